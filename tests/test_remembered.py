"""The catalog-wide answers remembered beside a generation (kg.validation.remembered): an ingest
leaves them, ``validate --record`` reads them instead of running the catalog-wide queries, a new
generation is answered anew (never an old generation's answer), and a damaged or foreign file is
answered again. Expected results from the catalog JSON: the edges whose source or target is not
one of its records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import tiny_catalog
from kg.ingestion import ingest_paths
from kg.store import GraphStore, KeptFileIgnored
from kg.validation import remembered, validate
from kg.vocab import Iris

IRIS = Iris()
EDGE_RULES = ("RelationSourceIsSystem", "RelationTargetIsSystem")


def with_dangling_edges(paths: list[str], folder: Path) -> str:
    """The tiny catalog's edges file with one edge from a record that is not in the catalog and one
    to such a record."""
    edges = json.loads(Path(paths[2]).read_text(encoding="utf-8"))
    edges["edges"] += [{**edges["edges"][0], "source": "no-such-record--nowhere"},
                       {**edges["edges"][1], "target": "another-missing--nowhere"}]
    path = folder / "dangling.edges.json"
    path.write_text(json.dumps(edges), encoding="utf-8")
    return str(path)


def expected_edge_results(paths: list[str], edges_path: str) -> set[tuple[str, str, str]]:
    """(rule, focus, value) of the edge rules, from the JSON: an edge's end that is no record."""
    ids = {r["id"] for r in json.loads(Path(paths[0]).read_text(encoding="utf-8"))["records"]}
    ids.add(json.loads(Path(paths[1]).read_text(encoding="utf-8"))["id"])
    found = set()
    for edge in json.loads(Path(edges_path).read_text(encoding="utf-8"))["edges"]:
        relation = IRIS.relation(edge["source"], edge["type"], edge["target"]).value
        for rule, end in zip(EDGE_RULES, ("source", "target")):
            if edge[end] not in ids:
                found.add((rule, relation, IRIS.system(edge[end]).value))
    return found


def edge_results(report) -> set[tuple[str, str, str]]:
    return {(r.rule, r.focus, r.value) for r in report.results if r.rule in EDGE_RULES}


@pytest.fixture
def built(tmp_path):
    paths = tiny_catalog(tmp_path / "tiny")
    dangling = with_dangling_edges(paths, tmp_path)
    store = GraphStore(tmp_path / "store")
    ingest_paths(store, [paths[0], paths[1], dangling])
    return store, paths, dangling


def _quiet(store: GraphStore, monkeypatch) -> list[str]:
    """The catalog-wide queries the store is asked from now on (their texts)."""
    asked: list[str] = []
    select = store.select

    def counting(text, *args, **kwargs):
        if "Catalog-wide rule" in text:
            asked.append(text)
        return select(text, *args, **kwargs)

    monkeypatch.setattr(store, "select", counting)
    return asked


def test_an_ingest_leaves_the_answers_and_a_record_check_reads_them(built, monkeypatch):
    store, paths, dangling = built
    want = expected_edge_results(paths, dangling)
    assert len(want) == 2
    assert (store.version_folder / remembered.KEPT.name).is_file()
    asked = _quiet(store, monkeypatch)
    quick = validate(store, IRIS, records=["mem0--mem0-ai"])
    assert edge_results(quick) == want
    assert asked == []  # answered from the file, not by the queries
    assert edge_results(validate(store, IRIS)) == want


def test_a_new_generation_is_answered_anew(built, monkeypatch):
    store, paths, dangling = built
    before = store.version_folder
    ingest_paths(store, [paths[0], paths[1], paths[2]])  # the edges as they were: none dangles
    assert store.version_folder != before
    assert expected_edge_results(paths, paths[2]) == set()
    reader = GraphStore.open_existing(store.version_folder.parent, read_only=True)
    assert edge_results(validate(reader, IRIS, records=["mem0--mem0-ai"])) == set()


@pytest.mark.parametrize("damage", ["{not json", json.dumps({"format": "1", "files": {}, "key": "other rules",
                                                             "answers": {"RelationSourceIsSystem": [["x", None]]}})])
def test_a_damaged_or_foreign_file_is_answered_again(built, monkeypatch, damage):
    store, paths, dangling = built
    path = store.version_folder / remembered.KEPT.name
    path.write_text(damage, encoding="utf-8")
    asked = _quiet(store, monkeypatch)
    with pytest.warns(KeptFileIgnored, match="kg-catalog-rules.json is ignored"):
        assert edge_results(validate(store, IRIS, records=["mem0--mem0-ai"])) == expected_edge_results(paths, dangling)
    assert asked  # the queries ran
    made_again = json.loads(path.read_text(encoding="utf-8"))
    assert made_again["content"]["key"] != "other rules"


def test_a_file_of_the_right_generation_and_rules_but_edited_by_hand_is_answered_again(built, monkeypatch):
    store, paths, dangling = built
    path = store.version_folder / remembered.KEPT.name
    held = json.loads(path.read_text(encoding="utf-8"))
    answers = held["content"]["answers"]
    for edited in ({**answers, "RelationSourceIsSystem": []},  # an answer taken out
                   {**answers, "RelationTargetIsSystem": answers["RelationTargetIsSystem"] + [["fake", None]]}):
        path.write_text(json.dumps({**held, "content": {**held["content"], "answers": edited}}), encoding="utf-8")
        asked = _quiet(store, monkeypatch)
        with pytest.warns(KeptFileIgnored, match="its digest does not match its content"):
            found = validate(store, IRIS, records=["mem0--mem0-ai"])
        assert edge_results(found) == expected_edge_results(paths, dangling)
        assert asked


def test_in_memory_the_queries_answer_each_time(tmp_path, monkeypatch):
    paths = tiny_catalog(tmp_path / "tiny")
    dangling = with_dangling_edges(paths, tmp_path)
    store = GraphStore()
    ingest_paths(store, [paths[0], paths[1], dangling])
    asked = _quiet(store, monkeypatch)
    assert edge_results(validate(store, IRIS, records=["mem0--mem0-ai"])) == expected_edge_results(paths, dangling)
    assert asked
    assert store.version_folder is None
