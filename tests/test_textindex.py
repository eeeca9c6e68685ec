"""The words index (kg.textindex): search answers the same rows from it as from its SPARQL, it is
made again for every generation, and where it cannot answer exactly, search runs as written.
Expected answers: search.rq run as written (the index turned off) and tests/searching.py, the
matcher written from its definition, on the catalog JSON."""

from __future__ import annotations

import json
import warnings

import pytest
from pyoxigraph import Literal, NamedNode, Quad

from kg.normalise import fold
from kg import queries, textindex
from kg.store import GraphStore, KeptFileIgnored
from kg.vocab import KG, SCHEMA, XSD

import searching  # tests/searching.py

TEXTS = ["memory", "temporal graph", "knowledge graph", "graph", "", "zep", "Bi-Temporal", "MCP memory server",
         "a", "—", "vector database open source memory layer agents", "neo4j cypher graph", "ag me", "x",
         "llegro", "raph emor", "ph m", "a b c d e ource"]
FILTERS = [{}, {"tier": "1"}, {"section": "memory"}, {"tier": "2", "section": "MEMORY"}, {"limit": "7"},
           {"section": "é"}, {"limit": "0"}]


def as_written(monkeypatch, store, params):
    """search's rows with the index turned off: its SPARQL as written."""
    with monkeypatch.context() as patched:
        patched.setattr(textindex, "open_index", lambda _store: None)
        return queries.query(store, "search", params)


@pytest.mark.parametrize("text", TEXTS)
def test_the_index_answers_the_rows_search_rq_answers(bundled_store, monkeypatch, text):
    for extra in FILTERS:
        params = {"text": text, "limit": "100000", **extra}
        indexed = queries.query(bundled_store, "search", params)
        assert indexed == as_written(monkeypatch, bundled_store, params), params
    assert textindex.INDEX.path(bundled_store) is not None


@pytest.mark.parametrize("text", ["memory", "graph memory", "temporal graph", ""])
def test_the_index_ranks_as_the_definition_does(bundled_store, records, text):
    want = [rid for _, rid, _ in searching.ranked(text, records)]
    assert [row["id"] for row in queries.query(bundled_store, "search", {"text": text, "limit": "100000"})] == want


def _system(store_quads: list[Quad], rid: str, name: str | None, desc: str, tier: str | int = 1) -> None:
    system = NamedNode(f"https://w3id.org/agent-landscape/id/system/{rid}")
    graph = NamedNode(f"https://w3id.org/agent-landscape/graph/{rid}")
    text = "\n".join((rid, fold(name) if name else "", fold(desc), ""))
    store_quads.append(Quad(system, KG.searchText, Literal(text), graph))
    store_quads.append(Quad(system, KG.tier, Literal(str(tier), datatype=XSD.integer), graph))
    if name is not None:
        store_quads.append(Quad(system, SCHEMA.name, Literal(name), graph))


def _made(path, quads) -> GraphStore:
    store = GraphStore(path)
    store.add_bulk(quads)
    return store


def test_words_outside_ascii_and_systems_without_a_name(tmp_path, monkeypatch):
    quads: list[Quad] = []
    _system(quads, "strasse", "Straße Café", "東京 memory—layer for agents")
    _system(quads, "tokyo", None, "東京タワー graph", tier=2)
    _system(quads, "cafe", "café society", "Ünïcode ½ half & x×y", tier=2)
    _system(quads, "plain", "Plain", "memory layer")
    store = _made(tmp_path / "store", quads)
    for text in ["東京", "東", "straße", "stras", "cafe", "café", "memory layer", "layer memory", "½", "x y", "xy",
                 "unicode", "", "half x"]:
        params = {"text": text, "limit": "100"}
        assert queries.query(store, "search", params) == as_written(monkeypatch, store, params), text
    assert [row["id"] for row in queries.query(store, "search", {"text": "東"})] == ["strasse", "tokyo"]
    assert [row["id"] for row in queries.query(store, "search", {"text": ""})] == ["plain", "strasse", "tokyo", "cafe"]


def test_a_new_generation_gets_its_own_index(tmp_path):
    quads: list[Quad] = []
    _system(quads, "one", "One", "memory layer")
    store = _made(tmp_path / "store", quads)
    assert [row["id"] for row in queries.query(store, "search", {"text": "memory"})] == ["one"]
    first = textindex.INDEX.path(store)
    assert first is not None
    more: list[Quad] = []
    _system(more, "two", "Two", "graph memory")
    store.add_bulk(more)  # a new generation
    assert [row["id"] for row in queries.query(store, "search", {"text": "memory"})] == ["one", "two"]
    second = textindex.INDEX.path(store)
    assert second is not None and second.parent != first.parent


def test_an_index_of_other_data_files_is_made_again_silently(tmp_path, recwarn):
    import shutil

    quads: list[Quad] = []
    _system(quads, "one", "One", "memory layer")
    store = _made(tmp_path / "store", quads)
    assert [row["id"] for row in queries.query(store, "search", {"text": "memory"})] == ["one"]
    shutil.copytree(tmp_path / "store", tmp_path / "copy")  # new inodes: the index is of other data files
    copy = GraphStore.open_existing(tmp_path / "copy", read_only=True)
    before = textindex.INDEX.path(copy)
    assert before is None  # out of date, not damaged
    assert [row["id"] for row in queries.query(copy, "search", {"text": "memory"})] == ["one"]
    assert textindex.INDEX.path(copy) is not None and not [w for w in recwarn if w.category is KeptFileIgnored]


def test_an_index_edited_by_hand_is_ignored_said_and_made_again(tmp_path):
    import sqlite3

    quads: list[Quad] = []
    _system(quads, "one", "One", "memory layer")
    store = _made(tmp_path / "store", quads)
    textindex.open_index(store).close()  # made by the first search
    path = textindex.INDEX.path(store)
    assert path is not None
    db = sqlite3.connect(path)
    db.execute("DELETE FROM systems")  # what an edited index would answer: nothing
    db.commit()
    db.close()
    with pytest.warns(KeptFileIgnored, match="do not match the digest in its name"):
        assert [row["id"] for row in queries.query(store, "search", {"text": "memory"})] == ["one"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", KeptFileIgnored)
        assert textindex.INDEX.path(store) is not None  # made again, whole


def test_data_the_index_cannot_answer_runs_search_as_written(tmp_path, monkeypatch):
    quads: list[Quad] = []
    _system(quads, "one", "One", "memory layer")
    _system(quads, "two", "Two", "memory graph")
    two = NamedNode("https://w3id.org/agent-landscape/id/system/two")
    quads.append(Quad(two, KG.tier, Literal("3", datatype=XSD.integer), NamedNode("https://e.org/other")))
    store = _made(tmp_path / "store", quads)
    assert textindex.open_index(store) is None  # a system with two tiers: search.rq answers it twice
    rows = queries.query(store, "search", {"text": "memory"})
    assert [row["id"] for row in rows] == ["one", "two", "two"]
    assert rows == as_written(monkeypatch, store, {"text": "memory"})


def test_where_no_index_can_be_written_search_runs_as_written(tmp_path, monkeypatch):
    quads: list[Quad] = []
    _system(quads, "one", "One", "memory layer")
    store = _made(tmp_path / "store", quads)

    def refused(*_args):
        raise PermissionError("read-only")

    monkeypatch.setattr(textindex, "_write", refused)
    assert [row["id"] for row in queries.query(store, "search", {"text": "memory"})] == ["one"]
    assert textindex.INDEX.path(store) is None and not list(store.version_folder.glob("kg-words*"))


def test_no_index_in_memory():
    store = GraphStore()
    assert textindex.open_index(store) is None
    assert queries.query(store, "search", {"text": "memory"}) == []


@pytest.mark.parametrize("text, hits", [("graph", ["both", "inside"]), ("ra", ["both", "inside"]), ("rap", ["both", "inside"]),
                                        ("east", ["both"]), ("ea gr", ["both"]), ("st gr", ["both", "inside"]), ("ph", ["both", "inside"]), ("lle", ["inside"])])
def test_a_word_inside_a_word_is_found_by_three_characters_or_a_scan(tmp_path, monkeypatch, text, hits):
    """Words of three characters or more are looked up by their trigrams; shorter ones read every
    system. Either way the hits are those of search.rq, word starts first."""
    quads: list[Quad] = []
    _system(quads, "both", "East Graph", "a graph store")
    _system(quads, "inside", "AllegroGraph", "a triple store")
    _system(quads, "none", "Other", "a document store")
    store = _made(tmp_path / "store", quads)
    params = {"text": text, "limit": "100"}
    rows = queries.query(store, "search", params)
    assert [row["id"] for row in rows] == hits
    assert rows == as_written(monkeypatch, store, params)


def test_without_fts5_the_store_is_not_read_for_an_index(tmp_path, monkeypatch):
    import sqlite3
    quads: list[Quad] = []
    _system(quads, "one", "One", "memory layer")
    store = _made(tmp_path / "store", quads)

    def no_fts5(_db):
        raise sqlite3.OperationalError("no such module: fts5")

    def never(_store):
        raise AssertionError("the store was read for an index that cannot be made")

    monkeypatch.setattr(textindex, "_tables", no_fts5)
    monkeypatch.setattr(textindex, "_system_rows", never)
    assert [row["id"] for row in queries.query(store, "search", {"text": "memory"})] == ["one"]
    assert not list(store.version_folder.glob("kg-words*"))


def _ingested(path, records: list[dict], header: dict, name: str = "catalog.json"):
    file = path.parent / name
    file.write_text(json.dumps({**header, "records": records}), encoding="utf-8")
    from kg.ingestion import ingest_paths

    return ingest_paths(GraphStore(path), [str(file)], jobs=1)


def test_an_ingest_makes_its_index_from_the_one_before_and_what_it_wrote(tmp_path, site_catalog, monkeypatch):
    """The index after a re-ingest is the one before with the rows of the systems written made again
    (no whole index made), and it answers as search.rq as written does: names, descriptions, tiers and
    sections changed, a record added, one removed with --replace-all."""
    header = {k: v for k, v in site_catalog.items() if k != "records"}
    records = [r for r in site_catalog["records"] if r["cells"].get("desc")][:40]
    store_path = tmp_path / "store"
    _ingested(store_path, records, header)
    changed = json.loads(json.dumps(records[1:]))  # the first record removed (--replace-all below)
    changed[0]["name"] = "Quokka Memory Fabric"
    changed[1]["cells"]["desc"]["value"] = "a temporal graph of zebras"
    changed[2]["tier"] = changed[2]["tier"] % 5 + 1
    changed[3]["sections"] = [{**changed[3]["sections"][0], "section": records[10]["sections"][0]["section"]}]
    added = {**json.loads(json.dumps(records[5])), "id": "added--example-org", "name": "Zebra Quokka"}
    whole: list[str] = []
    original = textindex._write
    monkeypatch.setattr(textindex, "_write", lambda path, *args: whole.append(path) or original(path, *args))
    file = tmp_path / "release.json"
    file.write_text(json.dumps({**header, "records": [*changed, added]}), encoding="utf-8")
    from kg.ingestion import ingest_paths

    store = GraphStore(store_path)
    report = ingest_paths(store, [str(file)], replace_all=True, jobs=1)
    assert report.removed == [records[0]["id"]] and report.systems_written is not None
    assert whole == []  # followed, not made whole
    assert textindex.INDEX.path(store) is not None
    for text in ["quokka", "zebras", "temporal graph", "memory", "", "agent", records[0]["id"], "a"]:
        for extra in ({}, {"tier": str(changed[2]["tier"])}, {"section": records[10]["sections"][0]["section"][:6]}):
            params = {"text": text, "limit": "1000", **extra}
            assert queries.query(store, "search", params) == as_written(monkeypatch, store, params), params
    assert {row["id"] for row in queries.query(store, "search", {"text": "quokka"})} == {
        "added--example-org", changed[0]["id"]}


def test_an_index_of_another_generation_is_not_followed(tmp_path):
    """A writer that came between the index taken and the ingest's session: the index is made whole."""
    quads: list[Quad] = []
    _system(quads, "one", "One", "memory layer")
    store = _made(tmp_path / "store", quads)
    textindex.open_index(store).close()
    before = textindex.kept(store)
    assert before is not None and before.generation == store.generation
    more: list[Quad] = []
    _system(more, "two", "Two", "graph memory")
    other = GraphStore(tmp_path / "store")
    other.add_bulk(more)  # another writer: a new generation the index knows nothing of
    with store.transaction():
        store.add_bulk([Quad(NamedNode("https://e.org/x"), SCHEMA.name, Literal("x"), NamedNode("https://e.org/g"))])
        written = textindex.systems_written(store)
    assert written is not None and written.base != before.generation
    assert not textindex.follow(store, before, written)
    before.close()
    assert [row["id"] for row in queries.query(store, "search", {"text": "memory"})] == ["one", "two"]
