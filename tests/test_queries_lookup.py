"""Not found is not empty: an unknown id, or a name that matches no system or several, is
the same error in the API, the command line (exit 6), serve (404) and MCP (a tool error,
tests/test_mcp.py), with close matches or the candidates. On the tiny catalog; expected
candidates are computed from its JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kg import queries
from kg.cli import main
from kg.errors import NotFound
from kg.lookup import Indexes, SystemIndex, fold

UNKNOWN = "mem0--mem0"  # one suffix short of mem0--mem0-ai


@pytest.fixture(scope="module")
def tiny_names(tiny_paths) -> dict[str, str]:
    names = {}
    for path in tiny_paths[:2]:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
        for record in document.get("records", [document] if "id" in document else []):
            names[record["id"]] = record["name"]
    return names


@pytest.mark.parametrize("name,params", [
    ("show", {"id": UNKNOWN}), ("related", {"id": UNKNOWN}), ("compare", {"a": "mem0--mem0-ai", "b": UNKNOWN}),
    ("substrate-risk", {"system": UNKNOWN}),
])
def test_the_api_says_not_found_with_close_matches(tiny_store, name, params):
    with pytest.raises(NotFound) as caught:
        queries.query(tiny_store, name, params)
    assert f"'{UNKNOWN}'" in str(caught.value) and "did you mean: mem0--mem0-ai (Mem0)" in str(caught.value)
    assert caught.value.candidates[0] == ("mem0--mem0-ai", "Mem0")


def test_the_command_line_exits_6_with_the_same_message(tiny_store, capsys):
    code = main(["query", "show", "--store", str(tiny_store.path), "-p", f"id={UNKNOWN}"])
    captured = capsys.readouterr()
    assert code == 6 and captured.out == ""
    assert captured.err.startswith(f"kg: error: show: parameter id: no system with id '{UNKNOWN}' in this graph; "
                                   "did you mean: mem0--mem0-ai (Mem0)")


def test_serve_answers_404_with_the_candidates(tiny_store, iris):
    from kg.serve.replies import Reply
    from kg.serve.views import named
    from kg.serve.worker import Worker

    worker = Worker({"base": iris.base, "store": str(tiny_store.path)})
    msg = {"name": "related", "values": {"id": UNKNOWN}, "run": True, "format": "json", "base_url": "http://h",
           "max_rows": 10000, "max_bytes": 1 << 20}
    with pytest.raises(Reply) as caught:
        named.render(worker, msg)
    assert caught.value.status == 404 and caught.value.error == "not-found"
    assert "did you mean: mem0--mem0-ai (Mem0)" in caught.value.message
    assert caught.value.extra["candidates"][0] == "mem0--mem0-ai"
    page = named.render(worker, {**msg, "format": "html"})
    assert page["status"] == 404 and b"did you mean: mem0--mem0-ai (Mem0)" in page["body"]


def test_an_ambiguous_name_lists_every_candidate(tiny_store, tiny_names):
    text = "memory"
    expected = sorted(rid for rid, name in tiny_names.items() if text in fold(name))
    assert len(expected) > 1
    with pytest.raises(NotFound) as caught:
        queries.query(tiny_store, "substrate-risk", {"system": text})
    assert sorted(rid for rid, _ in caught.value.candidates) == expected
    assert f"'{text}' matches {len(expected)} systems; give one of their ids" in str(caught.value)


def test_a_name_resolves_folded_and_an_exact_name_wins(site_records):
    names = {r["id"]: r["name"] for r in site_records}
    index = SystemIndex(names)
    assert index.resolve("  MEM0 ") == "mem0--mem0-ai"  # "Mem0" exactly, though other names contain it
    assert sum("mem0" in fold(n) for n in names.values()) == 3
    assert index.resolve("mem0--mem0-ai") == "mem0--mem0-ai"
    with pytest.raises(NotFound, match="no system with that id or name 'zzz'"):
        index.resolve("zzz")


def test_the_index_of_a_store_version_is_read_once_and_a_new_version_again(tmp_path, seed_record):
    """Kept per store version: the same version gives the same index; an ingest (a new version),
    a store removed and built again at the same path, and a store in memory read it again."""
    import gc
    import shutil

    from kg.ingestion import ingest_paths
    from kg.store import GraphStore

    other = dict(seed_record, id="other--example-org", name="Other")
    other_file = tmp_path / "other.json"
    other_file.write_text(json.dumps(other), encoding="utf-8")
    seed_file = tmp_path / "seed.json"
    seed_file.write_text(json.dumps(seed_record), encoding="utf-8")
    store = GraphStore(tmp_path / "store")
    ingest_paths(store, [str(seed_file)])
    first = Indexes.of(store).systems()
    assert list(first.names) == [seed_record["id"]] and Indexes.of(store).systems() is first
    ingest_paths(store, [str(other_file)])
    assert set(Indexes.of(store).systems().names) == {seed_record["id"], other["id"]}
    del store
    gc.collect()
    shutil.rmtree(tmp_path / "store")
    store = GraphStore(tmp_path / "store")  # the same generation numbers again, other content
    ingest_paths(store, [str(other_file)])
    assert set(Indexes.of(store).systems().names) == {other["id"]}
    memory = GraphStore()
    ingest_paths(memory, [str(seed_file)])
    assert Indexes.of(memory).systems() is not Indexes.of(memory).systems()
    ingest_paths(memory, [str(other_file)])
    assert set(Indexes.of(memory).systems().names) == {seed_record["id"], other["id"]}
