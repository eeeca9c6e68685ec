"""Incremental re-ingest and revalidation (issue 16): the store after re-ingesting some changed,
added and removed records equals a fresh ingest of the final catalog, and revalidating only
those records gives the results of a full validation. On generated catalogs
(benchmarks/generate.py, 40 records) with seeded random changes; the expected counts come
from the JSON."""

from __future__ import annotations

import copy
import importlib.util
import json
import random
import sys
from pathlib import Path

import pytest

from kg import description
from kg.ingestion import ingest_paths, remove_records
from kg.store import GraphStore
from kg.validation import revalidate, validate
from kg.vocab import Iris

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("landscape_generate_incremental", ROOT / "benchmarks" / "generate.py")
gen = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = gen
_spec.loader.exec_module(gen)

SIZE, HELD_BACK, CHANGED, REMOVED = 40, 4, 6, 3


def _write(path: Path, header: dict, records: list[dict]) -> str:
    path.write_text(json.dumps({**header, "records": records}), encoding="utf-8")
    return str(path)


def _change(record: dict, rng: random.Random, n: int) -> dict:
    """A changed copy: new name and tier, one cell's citation broken (T2Citation), a new vendor."""
    out = copy.deepcopy(record)
    out["name"] = f"{out['name']} (v{n})"
    out["tier"] = out["tier"] % 5 + 1
    cell = rng.choice(sorted(out["cells"]))
    out["cells"][cell] = dict(out["cells"][cell], citation="see the docs", tier="T2")
    if isinstance(out.get("vendor"), str):
        out["vendor"] = f"Changed Vendor {n}"
    return out


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    """Store A: built from most records, then some changed, added and removed incrementally, validated
    before and revalidated after; store B: a fresh ingest of the final catalog."""
    folder = tmp_path_factory.mktemp("incremental")
    catalog, edges = gen.generate_catalog(SIZE, seed=7)
    header = {k: v for k, v in catalog.items() if k != "records"}
    records = catalog["records"]
    rng = random.Random(16)
    first, held = records[:-HELD_BACK], records[-HELD_BACK:]
    targets = {e["target"] for e in edges["edges"]} | {e["source"] for e in edges["edges"]}
    pool = [r["id"] for r in first]
    removed = rng.sample([i for i in pool if i in targets], REMOVED)
    changed = rng.sample([i for i in pool if i not in removed], CHANGED)
    new = {i: _change(r, rng, n) for n, (i, r) in enumerate((r["id"], r) for r in first if r["id"] in changed)}
    final = [new.get(r["id"], r) for r in first if r["id"] not in removed] + held
    edges_path = folder / "edges.json"
    edges_path.write_text(json.dumps(edges), encoding="utf-8")
    iris = Iris()

    a = GraphStore(folder / "a")
    ingest_paths(a, [_write(folder / "first.json", header, first), str(edges_path)])
    before = validate(a, iris, jobs=1)
    ingest_paths(a, [_write(folder / "change.json", header, list(new.values()) + held)])
    remove_records(a, removed, iris)
    touched = sorted(set(changed) | {r["id"] for r in held} | set(removed))

    b = GraphStore(folder / "b")
    ingest_paths(b, [_write(folder / "final.json", header, final), str(edges_path)])
    return {"a": a, "b": b, "before": before, "touched": touched, "final": final, "edges": edges["edges"],
            "removed": removed, "iris": iris}


def _content(store: GraphStore, iris: Iris) -> set[str]:
    """Every quad but the history's and the dataset description's (they tell how the store was built)."""
    return {str(q) for q in store.quads() if not iris.is_history_graph(q.graph_name)
            and q.graph_name != iris.dataset_graph}


def test_incremental_reingest_equals_a_fresh_ingest_of_the_final_catalog(scenario):
    a, b, iris = scenario["a"], scenario["b"], scenario["iris"]
    assert _content(a, iris) == _content(b, iris)
    ids = {r["id"] for r in scenario["final"]}
    assert set(iris.stored_ids(a.named_graphs())) == ids


def test_the_description_counted_by_the_change_equals_a_full_count(scenario):
    a, iris = scenario["a"], scenario["iris"]
    stated = description.read_description(a, iris)
    full = description.class_counts(a, iris)
    assert stated["triples"] == len(a)  # no triple is in two graphs of a store kg built
    for cls in description.COUNTED_CLASSES:
        assert stated["counts"][cls.value.rsplit("#", 1)[-1]] == full.get(cls.value, 0), cls
    assert stated["counts"]["System"] == len(scenario["final"])
    assert stated["counts"]["Relation"] == len(scenario["edges"])


def test_revalidation_equals_a_full_validation(scenario, monkeypatch):
    a, iris = scenario["a"], scenario["iris"]
    full = validate(a, iris, jobs=1)

    def listing(self):  # the incremental run looks records up, it never lists the store's graphs
        raise AssertionError("revalidate listed every graph of the store")

    monkeypatch.setattr(GraphStore, "named_graphs", listing)
    after = revalidate(scenario["before"], a, scenario["touched"], iris)
    monkeypatch.undo()
    assert after.keys() == full.keys()
    assert (after.records, after.relations) == (full.records, full.relations) == (len(scenario["final"]),
                                                                                    len(scenario["edges"]))
    ids = {r["id"] for r in scenario["final"]}
    dangling = sum(e["target"] not in ids for e in scenario["edges"])
    assert dangling > 0 and sum(r.rule == "RelationTargetIsSystem" for r in after.results) == dangling
    broken = {r.record for r in after.results if r.rule == "T2Citation" and r.value == '"see the docs"'}
    assert broken == {i for i in scenario["touched"] if i in ids and i not in {r["id"] for r in
                                                                              scenario["final"][-HELD_BACK:]}}


def test_a_small_reingest_does_not_count_the_whole_store(scenario, tmp_path, monkeypatch):
    a, iris = scenario["a"], scenario["iris"]
    record = dict(scenario["final"][0], name="Renamed once more")
    path = tmp_path / "one.json"
    path.write_text(json.dumps([record]), encoding="utf-8")

    def whole(*args, **kwargs):
        raise AssertionError("the whole store was counted")

    monkeypatch.setattr(description, "class_counts", whole)
    monkeypatch.setattr(GraphStore, "__len__", whole)
    report = ingest_paths(a, [str(path)])
    monkeypatch.undo()
    assert report.records == 1 and a.select(
        "SELECT ?n WHERE { ?s <https://schema.org/name> ?n }", {"s": iris.system(record["id"])})[0]["n"].value \
        == "Renamed once more"
    stated = description.read_description(a, iris)
    assert stated["triples"] == len(a) and stated["counts"]["System"] == len(scenario["final"])
