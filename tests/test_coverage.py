"""The catalog's feature tallies (kg.coverage) and the systems' feature summaries: after a fresh
ingest, after re-ingesting records whose feature cells changed, after adding and removing
records, they equal the counts computed from the JSON, and the tallies kept by change equal a
count afresh. On a generated catalog (benchmarks/generate.py, 40 full-shape records) with seeded
random changes."""

from __future__ import annotations

import copy
import importlib.util
import json
import random
import sys
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from kg import coverage, description, normalise, queries
from kg.ingestion import ingest_paths, remove_records
from kg.mapping.features import feature_family
from kg.store import GraphStore
from kg.vocab import Iris

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("landscape_generate_coverage", ROOT / "benchmarks" / "generate.py")
gen = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = gen
_spec.loader.exec_module(gen)

SIZE = 40
# feature cell texts and statuses, and the state the catalog's rules give them
CELLS = [("yes, native tracing", "real-data"), ("no", "real-data"), ("", "no-data"),
         ("searched, nothing found", "depth-floor-reached"), ("planned for Q3", "real-data")]


def _state(cell: dict) -> str:
    value = cell.get("value") if isinstance(cell.get("value"), str) else ""
    return normalise.feature_state(value, cell.get("status") if isinstance(cell.get("status"), str) else "")


def _expected(records: list[dict]) -> dict[tuple[str, str], Counter]:
    """(family, column slug or "") -> the eight counts, from the JSON."""
    out: dict[tuple[str, str], Counter] = defaultdict(Counter)
    for rec in records:
        states: dict[str, Counter] = defaultdict(Counter)
        for slug, cell in (rec.get("cells") or {}).items():
            family = feature_family(slug)
            if family is None:
                continue
            state = _state(cell)
            states[family][state] += 1
            out[(family, slug)].update({"systems": 1, f"systems_{state}": 1, "cells": 1, f"cells_{state}": 1})
        for family, c in states.items():
            seen = "yes" if c["yes"] else "no" if c["no"] else "unknown"
            out[(family, "")].update({"systems": 1, f"systems_{seen}": 1, "cells": sum(c.values()),
                                      **{f"cells_{s}": c[s] for s in ("yes", "no", "unknown")}})
    return {key: +c for key, c in out.items()}


def _nonzero(tally: dict) -> dict[tuple[str, str], Counter]:
    """A tally without its zero counts."""
    return {key: +Counter(counts) for key, counts in tally.items() if +Counter(counts)}


def _changed(record: dict, rng: random.Random) -> dict:
    """A copy with three of its feature cells given other texts and statuses."""
    out = copy.deepcopy(record)
    features = sorted(s for s in out.get("cells") or {} if feature_family(s))
    for slug in rng.sample(features, min(3, len(features))):
        value, status = rng.choice(CELLS)
        out["cells"][slug] = dict(out["cells"][slug], value=value, status=status)
    return out


def _write(path: Path, header: dict, records: list[dict]) -> str:
    path.write_text(json.dumps({**header, "records": records}), encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def steps(tmp_path_factory):
    """A store taken through four ingests; after each: (the records it holds, its tallies,
    a count afresh of the same store)."""
    folder = tmp_path_factory.mktemp("coverage")
    catalog, _ = gen.generate_catalog(SIZE, seed=11)
    header = {k: v for k, v in catalog.items() if k != "records"}
    records = catalog["records"]
    rng = random.Random(5)
    iris = Iris()
    store = GraphStore(folder / "store")
    held = records[-5:]
    current = {r["id"]: r for r in records[:-5]}
    out = []

    def note() -> None:
        out.append((list(current.values()), coverage.read_tally(store, iris), coverage.count_all(store, iris)))

    ingest_paths(store, [_write(folder / "first.json", header, list(current.values()))])
    note()
    changed = [_changed(current[i], rng) for i in rng.sample(sorted(current), 8)]
    current.update((r["id"], r) for r in changed)
    ingest_paths(store, [_write(folder / "changed.json", header, changed + held)])
    current.update((r["id"], r) for r in held)
    note()
    removed = rng.sample(sorted(current), 4)
    remove_records(store, removed, iris)
    for i in removed:
        del current[i]
    note()
    again = [_changed(current[i], rng) for i in rng.sample(sorted(current), 5)]
    current.update((r["id"], r) for r in again)
    ingest_paths(store, [_write(folder / "again.json", header, again)])
    note()
    return store, iris, out


def test_tallies_equal_the_json_after_every_change(steps):
    _, _, out = steps
    for held, kept, afresh in out:
        want = _expected(held)
        assert kept is not None
        assert _nonzero(kept) == want
        assert _nonzero(afresh) == want
    assert any(key[1] and counts["cells_yes"] for key, counts in _expected(out[-1][0]).items())
    assert _expected(out[0][0]) != _expected(out[-1][0])  # the changes moved the counts


def test_coverage_query_reads_the_tallies(steps):
    store, _, out = steps
    want = _expected(out[-1][0])
    order = {"observability": 1, "cost": 2, "eval": 3}
    measures = list(coverage.MEASURES)
    by_family = [(r["family"].value, [int(r[m].value) for m in measures])
                 for r in queries.query(store, "coverage", {}).terms]
    assert by_family == [(f, [want[(f, "")][m] for m in measures]) for f in order]
    by_feature = [(r["family"].value, r["feature"].value, [int(r[m].value) for m in measures])
                  for r in queries.query(store, "coverage", {"by": "feature"}).terms]
    assert by_feature == sorted(((f, s, [want[(f, s)][m] for m in measures]) for f, s in want if s),
                                key=lambda row: (order[row[0]], row[1]))


def test_eval_orphans_follow_the_changes(steps):
    store, _, out = steps
    want = []
    for rec in out[-1][0]:
        cells = rec.get("cells") or {}
        obs = sorted(s for s, c in cells.items() if feature_family(s) == "observability" and _state(c) == "yes")
        evals = [c for s, c in cells.items() if feature_family(s) == "eval"]
        researched = sum(c.get("status") in ("real-data", "estimate", "depth-floor-reached") for c in evals)
        if obs and researched and not any(_state(c) == "yes" for c in evals):
            want.append((rec["tier"], rec["name"], rec["id"], ", ".join(obs), researched))
    got = [(int(r["tier"].value), r["name"].value, r["id"].value, r["observability"].value,
            int(r["eval_researched"].value))
           for r in queries.query(store, "eval-orphans", {}).terms]
    assert want and got == sorted(want)


def test_a_change_updates_the_tallies_without_counting_afresh(tmp_path, monkeypatch):
    catalog, _ = gen.generate_catalog(12, seed=3)
    header = {k: v for k, v in catalog.items() if k != "records"}
    store, iris = GraphStore(tmp_path / "store"), Iris()
    ingest_paths(store, [_write(tmp_path / "a.json", header, catalog["records"])])

    def refuse(*_):
        raise AssertionError("counted afresh")

    monkeypatch.setattr(description, "count_all", refuse)
    changed = _changed(catalog["records"][0], random.Random(1))
    ingest_paths(store, [_write(tmp_path / "b.json", header, [changed])])
    records = [changed] + catalog["records"][1:]
    assert _nonzero(coverage.read_tally(store, iris)) == _expected(records)


def test_a_fresh_build_is_told_its_tallies_without_counting_afresh(tmp_path, monkeypatch):
    catalog, _ = gen.generate_catalog(12, seed=4)
    header = {k: v for k, v in catalog.items() if k != "records"}
    monkeypatch.setattr(description, "count_all", lambda *_: pytest.fail("counted afresh"))
    monkeypatch.setattr(coverage, "count_all", lambda *_: pytest.fail("counted afresh"))
    store, iris = GraphStore(tmp_path / "store"), Iris()
    ingest_paths(store, [_write(tmp_path / "a.json", header, catalog["records"])])
    assert _nonzero(coverage.read_tally(store, iris)) == _expected(catalog["records"])


def test_a_record_given_again_in_a_later_file_counts_once(tmp_path, monkeypatch):
    from kg import ingestion

    monkeypatch.setattr(ingestion.batching, "BATCH_SIZE", 4)  # streamed 4 at a time: the first version is written first
    catalog, _ = gen.generate_catalog(12, seed=6)
    header = {k: v for k, v in catalog.items() if k != "records"}
    records = catalog["records"]
    again = _changed(records[2], random.Random(9))
    store, iris = GraphStore(tmp_path / "store"), Iris()
    report = ingest_paths(store, [_write(tmp_path / "a.json", header, records),
                                  _write(tmp_path / "b.json", header, [again])], stream=True)
    assert report.superseded == [again["id"]]
    final = records[:2] + [again] + records[3:]
    assert _expected(final) != _expected(records)
    assert _nonzero(coverage.read_tally(store, iris)) == _expected(final)
