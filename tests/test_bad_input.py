"""Bad input at every entry point: one safe line naming file, index/id and field path, the
documented exit code, no traceback, and a store that a bad file leaves exactly as it was.

A small on-disk store of real records (those at both ends of the first real edges) is
built once; every case runs ``kg ingest`` on a fresh copy of it and compares sorted
N-Quads dumps before and after.
"""

from __future__ import annotations

import copy
import gc
import json
import shutil
from pathlib import Path

import pytest

from kg.cli import EXIT_INPUT, EXIT_OK, EXIT_QUARANTINE, main
from kg.errors import SourceError
from kg.ingestion import ingest_paths
from kg.store import GraphStore
from kg.vocab import KG, Iris
from helpers import kg

IRIS = Iris()


# ---------------------------------------------------------------------------
# Fixtures and helpers


@pytest.fixture(scope="module")
def base(tmp_path_factory, site_catalog, edges_file):
    """(store directory, its sorted N-Quads, the records in it, a record not in it, its edges)."""
    edges = edges_file["edges"][:12]
    ids = {e["source"] for e in edges} | {e["target"] for e in edges}
    records = [r for r in site_catalog["records"] if r["id"] in ids]
    outside = next(r for r in site_catalog["records"] if r["id"] not in ids)
    folder = tmp_path_factory.mktemp("base")
    (folder / "records.json").write_text(json.dumps({"schemaVersion": "1.0.0", "records": records}))
    (folder / "edges.json").write_text(json.dumps({"schemaVersion": "1.0.0", "edges": edges}))
    store = GraphStore(folder / "store")
    report = ingest_paths(store, [str(folder / "records.json"), str(folder / "edges.json")])
    assert report.records == len(records) and report.edges == len(edges) and not report.quarantined
    del store
    gc.collect()
    return {"store": folder / "store", "dump": dump(folder / "store"), "records": records,
            "outside": outside, "edges": edges}


def dump(path: Path) -> list[str]:
    """The store's quads as sorted N-Quads lines."""
    store = GraphStore(path)
    text = store.dump(None, "nquads").decode()
    del store
    return sorted(text.splitlines())


def fresh(base, tmp_path) -> Path:
    target = tmp_path / "store"
    shutil.copytree(base["store"], target)
    return target


def write(tmp_path: Path, name: str, data: bytes | str) -> str:
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return str(path)


def ingest(capsys, store: Path, *paths: str, strict: bool = False) -> tuple[int, list[str]]:
    """Run ``kg ingest`` in-process; (exit code, stderr lines). An uncaught exception fails the test."""
    argv = ["ingest", *paths, "--store", str(store)] + (["--strict"] if strict else [])
    code = main(argv)
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert "Traceback" not in err
    for line in lines:
        assert all(ch.isprintable() for ch in line), f"raw control character in {line!r}"
    return code, lines


def stored_ids(store: Path) -> set[str]:
    s = GraphStore(store)
    prefix = IRIS.record_graph_prefix()
    ids = {g.value[len(prefix):] for g in s.named_graphs() if g.value.startswith(prefix)}
    del s
    return ids


def cell_object(store: Path, record_id: str, column: str, predicate) -> object:
    s = GraphStore(store)
    cell = IRIS.part(IRIS.system(record_id), "cell", column)
    found = [q.object for q in s.quads(IRIS.record_graph(record_id)) if q.subject == cell and q.predicate == predicate]
    del s
    return found


# ---------------------------------------------------------------------------
# Unreadable files: exit 3, one line naming the file, nothing written

DEEP = b'{"id": "x", "deep": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
# a catalog header nested 65 levels: not a record, so the whole file is refused (a record that deep is set aside)
JUST_TOO_DEEP = b'{"records": [], "about": ' + b"[" * 65 + b"]" * 65 + b"}"

UNREADABLE = [
    ("truncated", b'{"schemaVersion": "1", "records": [{"id": "a", "na', "invalid JSON at line 1 column 48: Unterminated string"),
    ("latin-1", b'{"id": "caf\xe9"}', "is not valid UTF-8 (byte 11"),
    ("utf-16 with BOM", '{"records": []}'.encode("utf-16"), "is UTF-16"),
    ("utf-16 without BOM", '{"records": []}'.encode("utf-16-le"), "holds NUL bytes"),
    ("utf-32 with BOM", '{"records": []}'.encode("utf-32"), "is UTF-32"),
    ("top-level string", b'"records"', "unknown shape: a string"),
    ("top-level number", b"42", "unknown shape: a number"),
    ("top-level null", b"null", "unknown shape: null"),
    ("object of nothing known", b'{"items": []}', "unknown shape: an object without 'records', 'edges' or 'id'"),
    ("list of non-records", b'[1, "two"]', "unknown shape: a list with no record object"),
    ("records not a list", b'{"records": {"id": "a"}}', "'records' must be a list, not an object"),
    ("edges not a list", b'{"edges": "a -> b"}', "'edges' must be a list, not a string"),
    ("NaN", b'{"records": [{"id": "a", "tier": NaN}]}', "NaN is not valid JSON"),
    ("Infinity", b'{"records": [{"id": "a", "tier": -Infinity}]}', "-Infinity is not valid JSON"),
    ("float overflow", b'{"records": [{"id": "a", "tier": 1e400}]}', "number 1e400 is too large"),
    ("5000-digit integer", b'{"records": [{"id": "a", "tier": ' + b"9" * 5000 + b"}]}", "has 5000 digits"),
    ("duplicate keys", b'{"records": [{"id": "a", "id": "b"}]}', "duplicate key 'id'"),
    ("100k levels deep", DEEP, "nested more than 64 levels deep"),
    ("header 65 levels deep", JUST_TOO_DEEP, "nested more than 64 levels deep"),
    ("empty", b"", "is empty"),
    ("blank", b" \n\t\n", "is empty"),
    ("JSON Lines cut short", b'{"id": "a"}\n{"id": "b", "na', "invalid JSON Lines at line 2"),
    ("escape sequence in a key", b'{"\x1b[2J": 1}', "invalid JSON at line 1 column 3: Invalid control character"),
]


@pytest.mark.parametrize("name,data,needle", UNREADABLE, ids=[c[0] for c in UNREADABLE])
def test_unreadable_file_is_exit_3_one_line_and_changes_nothing(base, tmp_path, capsys, name, data, needle):
    store = fresh(base, tmp_path)
    path = write(tmp_path, "bad.json", data)
    code, lines = ingest(capsys, store, path)
    assert code == EXIT_INPUT
    assert lines == [lines[0]] and lines[0].startswith(f"kg: error: {path}: "), lines
    assert needle in lines[0]
    assert dump(store) == base["dump"]


@pytest.mark.parametrize("name,data,needle", UNREADABLE, ids=[c[0] for c in UNREADABLE])
def test_the_streaming_reader_refuses_the_same_files_with_the_same_line(tmp_path, name, data, needle):
    """Large catalog files are streamed (kg.sources.scan_catalog): same refusal, same message."""
    path = write(tmp_path, "bad.json", data)
    messages = []
    for stream in (False, True):
        store = GraphStore()
        with pytest.raises(SourceError) as err:
            ingest_paths(store, [path], stream=stream)
        assert len(store) == 0
        messages.append(str(err.value))
    assert needle in messages[0]
    assert messages[1] == messages[0]


def test_missing_path_and_empty_folder(base, tmp_path, capsys):
    store = fresh(base, tmp_path)
    code, lines = ingest(capsys, store, str(tmp_path / "nope.json"))
    assert code == EXIT_INPUT and lines == [f"kg: error: {tmp_path / 'nope.json'}: cannot be read: No such file or directory"]
    (tmp_path / "empty").mkdir()
    code, lines = ingest(capsys, store, str(tmp_path / "empty"))
    assert code == EXIT_INPUT and "folder holds no .json or .jsonl files" in lines[0]
    assert dump(store) == base["dump"]


def test_utf8_bom_is_fine(base, tmp_path, capsys):
    store = fresh(base, tmp_path)
    record = base["outside"]
    code, _ = ingest(capsys, store, write(tmp_path, "bom.json", b"\xef\xbb\xbf" + json.dumps(record).encode()))
    assert code == EXIT_OK and record["id"] in stored_ids(store)


def test_one_bad_file_among_good_ones_writes_nothing(base, tmp_path, capsys):
    store = fresh(base, tmp_path)
    good = write(tmp_path, "good.json", json.dumps(base["outside"]))
    bad = write(tmp_path, "bad.json", b'{"records": [')
    code, lines = ingest(capsys, store, good, bad)
    assert code == EXIT_INPUT and len(lines) == 1 and "bad.json" in lines[0]
    assert dump(store) == base["dump"]


# ---------------------------------------------------------------------------
# Bad records: quarantined with one line (file, [index] id, field path); the good ones go in


def _set(path: str, value):
    def mutate(record):
        *parents, last = path.split(".")
        node = record
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return mutate


def _drop(key: str):
    return lambda record: record.pop(key)


# (case name, mutation of a real record, the id shown in the line ('' for none), field path, message)
BAD_RECORDS = [
    ("tier boolean", _set("tier", True), None, "tier", "must be an integer, not a boolean"),
    ("tier string", _set("tier", "2"), None, "tier", "must be an integer, not str"),
    ("tier float", _set("tier", 2.0), None, "tier", "must be an integer, not float"),
    ("tier 10**400", _set("tier", 10 ** 400), None, "tier", "integer out of range (401 digits; must fit in 64 bits)"),
    ("name missing", _drop("name"), None, "name", "is missing"),
    ("name null", _set("name", None), None, "name", "must not be null"),
    ("name number", _set("name", 7), None, "name", "must be a string, not int"),
    ("cells a list", _set("cells", []), None, "cells", "must be an object, not list"),
    ("cell not an object", _set("cells.license", "MIT"), None, "cells.license", "must be an object, not str"),
    ("cell value a list", _set("cells.license.value", ["MIT"]), None, "cells.license.value",
     "must be a string, a number, true/false or null"),
    ("status a boolean", _set("cells.license.status", False), None, "cells.license.status",
     "must be a string, not a boolean"),
    ("citation a number", _set("cells.license.citation", 3), None, "cells.license.citation", "must be a string"),
    ("sections missing", _drop("sections"), None, "sections", "is missing"),
    ("section a number", _set("sections.0", 3), None, "sections[0]", "must be an object, not int"),
    ("primary a string", _set("sections.0.primary", "yes"), None, "sections[0].primary", "must be true or false"),
    ("taxonomy axis not a list", _set("taxonomy.storage", "vector"), None, "taxonomy.storage", "must be a list"),
    ("taxonomy value missing", _set("taxonomy.storage.0", {"primary": True}), None, "taxonomy.storage[0].value",
     "is missing"),
    ("provenance verified", _set("_provenance", {"license": {"verified": "yes"}}), None,
     "_provenance.license.verified", "must be true or false"),
    ("history pr boolean", _set("history", [{"pr": True}]), None, "history[0].pr", "must be an integer, not a boolean"),
    ("history pr huge", _set("history", [{"pr": 2 ** 64}]), None, "history[0].pr", "integer out of range"),
    ("lifecycle a list", _set("lifecycle", [1]), None, "lifecycle", "must be an object, not list"),
    ("lone surrogate in a value", _set("name", "x\ud800y"), None, "name", "holds a lone surrogate"),
    ("lone surrogate in a key", _set("cells.\udcff", {"value": 1}), None, "cells.\\udcff",
     "holds a lone surrogate"),
    ("id missing", _drop("id"), "", "id", "is missing"),
    ("id a number", _set("id", 12), "", "id", "must be a string, not int"),
    ("id uppercase", _set("id", "Mem0"), "", "id", "'Mem0' is not a catalog id"),
    ("id with a space", _set("id", "mem 0"), "", "id", "'mem 0' is not a catalog id"),
    ("id with quotes", _set("id", 'mem"0'), "", "id", "is not a catalog id"),
    ("id with angle brackets", _set("id", "x> <http://evil.example/p> <y"), "", "id", "is not a catalog id"),
    ("id with a newline", _set("id", "mem0\nquarantined: fake"), "", "id", "'mem0\\nquarantined: fake'"),
    ("id with an escape sequence", _set("id", "\x1b[31mred\x1b[0m"), "", "id", "'\\x1b[31mred\\x1b[0m'"),
    ("id with NUL and bidi", _set("id", "a\x00b\u202ec"), "", "id", "is not a catalog id"),
    ("id with a percent escape", _set("id", "mem%2F0"), "", "id", "is not a catalog id"),
    ("id that is a path", _set("id", "../../etc/passwd"), "", "id", "is not a catalog id"),
]


@pytest.mark.parametrize("name,mutate,shown_id,path,message", BAD_RECORDS, ids=[c[0] for c in BAD_RECORDS])
def test_bad_record_is_quarantined_and_the_good_one_goes_in(base, tmp_path, capsys, name, mutate, shown_id,
                                                            path, message):
    store = fresh(base, tmp_path)
    good = copy.deepcopy(base["outside"])
    bad = copy.deepcopy(base["records"][0])
    mutate(bad)
    text = json.dumps({"schemaVersion": "x", "records": [good, bad]}, ensure_ascii=True)
    file = write(tmp_path, "mixed.json", text)
    code, lines = ingest(capsys, store, file, "--quarantine", str(tmp_path / "q.jsonl"))
    assert code == EXIT_QUARANTINE
    quarantined = [line for line in lines if line.startswith("quarantined: ")]
    shown = base["records"][0]["id"] if shown_id is None else shown_id
    expected = f"quarantined: {file}: [1]" + (f" {shown}" if shown else "") + f": {path}: "
    assert len(quarantined) == 1 and quarantined[0].startswith(expected), quarantined
    assert message in quarantined[0]
    assert good["id"] in stored_ids(store)
    # the quarantine file holds the same item as JSON
    (item,) = [json.loads(line) for line in (tmp_path / "q.jsonl").read_text().splitlines()]
    assert item["index"] == 1 and item["source"] == file and item["path"] == path.replace("\\udcff", "\udcff")


def test_every_record_bad_changes_nothing(base, tmp_path, capsys, site_catalog):
    """The catalog header is not replaced by a file none of whose records went in."""
    store = fresh(base, tmp_path)
    bad = [dict(r, tier="high") for r in site_catalog["records"][:3]]
    file = write(tmp_path, "bad.json", json.dumps({"schemaVersion": "1.9", "generatedAt": "x", "records": bad}))
    code, lines = ingest(capsys, store, file)
    assert code == EXIT_QUARANTINE
    assert sum(line.startswith("quarantined: ") for line in lines) == 3
    assert lines[-1] == f"kg: nothing to ingest in {file} but bad items; the store was not changed"
    assert dump(store) == base["dump"]


@pytest.mark.parametrize("text", ['{"records": []}', "[]", '{"schemaVersion": "1.1", "records": []}'])
def test_an_empty_records_list_never_empties_the_store(base, tmp_path, capsys, text):
    store = fresh(base, tmp_path)
    code, lines = ingest(capsys, store, write(tmp_path, "empty.json", text))
    assert code == EXIT_OK and "the store was not changed" in lines[-1]
    assert dump(store) == base["dump"]


def test_an_empty_edges_list_never_empties_the_edges(base, tmp_path, capsys):
    store = fresh(base, tmp_path)
    code, _ = ingest(capsys, store, write(tmp_path, "edges.json", '{"edges": []}'))
    assert code == EXIT_OK and dump(store) == base["dump"]


def test_strict_rejects_the_whole_input(base, tmp_path, capsys):
    store = fresh(base, tmp_path)
    good, bad = base["outside"], dict(base["records"][0], tier=True)
    file = write(tmp_path, "mixed.json", json.dumps([good, bad]))
    code, lines = ingest(capsys, store, file, strict=True)
    assert code == EXIT_INPUT
    assert lines[0].startswith(f"rejected: {file}: [1] {bad['id']}: tier: must be an integer")
    assert lines[-1] == "kg: error: 1 bad record(s); nothing written (strict mode)"
    assert dump(store) == base["dump"]


def test_duplicate_ids_in_one_file_keep_the_first(base, tmp_path, capsys):
    store = fresh(base, tmp_path)
    first = copy.deepcopy(base["outside"])
    second = dict(copy.deepcopy(first), name="second")
    file = write(tmp_path, "dup.json", json.dumps([first, second]))
    code, lines = ingest(capsys, store, file)
    assert code == EXIT_QUARANTINE
    assert f"quarantined: {file}: [1] {first['id']}: id: duplicate id (first at [0] of the same file)" in lines
    s = GraphStore(store)
    names = [q.object.value for q in s.quads(IRIS.record_graph(first["id"]))
             if q.predicate.value == "https://schema.org/name"]
    del s
    assert names == [first["name"]]


def test_json_lines_and_stdin(base, tmp_path, site_catalog):
    """Through a real process: JSON Lines on stdin, one bad line set aside, one non-object line."""
    store = fresh(base, tmp_path)
    good = base["outside"]
    lines = [json.dumps(good), json.dumps(dict(base["records"][1], cells={"x": None})), "[1, 2]"]
    run = kg("ingest", "-", "--store", str(store), stdin="\n".join(lines) + "\n")
    assert run.returncode == EXIT_QUARANTINE, run.stderr
    assert "Traceback" not in run.stderr
    assert f"quarantined: <stdin>: [1] {base['records'][1]['id']}: cells.x: must not be null" \
        in run.stderr.splitlines()
    assert "quarantined: <stdin>: [2]: (record): a record must be an object, not list" in run.stderr.splitlines()
    assert good["id"] in stored_ids(store)


# ---------------------------------------------------------------------------
# Bad edges


def _edge(**fields):
    return {"source": "a", "target": "b", "type": "cites", "evidence": "e", **fields}


BAD_EDGES = [
    ("self-edge", _edge(source="b"), "b -> b", "target", "self-edge"),
    ("source not a slug", _edge(source="A B"), "A B -> b", "source", "'A B' is not a catalog id"),
    ("target with a newline", _edge(target="b\n<x>"), "a -> b\\n<x>", "target", "is not a catalog id"),
    ("type a number", _edge(type=3), "a -> b", "type", "must be a string, not int"),
    ("type missing", {"source": "a", "target": "b"}, "a -> b", "type", "is missing"),
    ("target missing", {"source": "a", "type": "cites"}, None, "target", "is missing"),
    ("isInfluential a string", _edge(isInfluential="yes"), "a -> b", "isInfluential", "must be true or false"),
    ("not an object", ["a", "b"], None, "(edge)", "an edge must be an object, not list"),
]


@pytest.mark.parametrize("name,edge,shown,path,message", BAD_EDGES, ids=[c[0] for c in BAD_EDGES])
def test_bad_edge_is_quarantined_and_stored_edges_stay(base, tmp_path, capsys, name, edge, shown, path, message):
    store = fresh(base, tmp_path)
    file = write(tmp_path, "edges.json", json.dumps({"edges": [edge]}))
    code, lines = ingest(capsys, store, file)
    assert code == EXIT_QUARANTINE
    expected = f"quarantined: {file}: [0]" + (f" {shown}" if shown else "") + f": {path}: "
    assert lines[0].startswith(expected) and message in lines[0], lines
    assert dump(store) == base["dump"]  # the only edge was bad: the stored edges stay


def test_duplicate_edge_is_quarantined(base, tmp_path, capsys):
    store = fresh(base, tmp_path)
    edge = base["edges"][0]
    file = write(tmp_path, "edges.json", json.dumps({"edges": [edge, dict(edge, evidence="again")]}))
    code, lines = ingest(capsys, store, file)
    assert code == EXIT_QUARANTINE
    assert lines[0].startswith(f"quarantined: {file}: [1] {edge['source']} -> {edge['target']}: type: "
                               f"duplicate edge ({edge['type']}); first seen at [0]")


def test_edges_to_missing_records_and_unknown_types_go_in_with_a_warning(base, tmp_path, capsys):
    store = fresh(base, tmp_path)
    known = base["records"][0]["id"]
    edges = [_edge(source=known, target="not-yet-here", type="cites"),
             _edge(source=known, target=base["records"][1]["id"], type="loves")]
    file = write(tmp_path, "edges.json", json.dumps({"edges": edges}))
    code, lines = ingest(capsys, store, file)
    assert code == EXIT_OK
    warnings = [line for line in lines if line.startswith("warning: ") and "(rule " not in line]
    assert warnings == [
        f"warning: {file}: [1] {known} -> {base['records'][1]['id']}: type: unknown edge type 'loves': "
        "kept as a relation without a direct link (kg validate reports it)",
        f"warning: {file}: [0] {known} -> not-yet-here: target: 'not-yet-here' is not a record in the store "
        "(yet); edge kept",
    ]
    # the edges' rule findings at ingest: neither cites a URL, and 'loves' is no edge type
    other = base["records"][1]["id"]
    assert [line for line in lines if line.startswith("warning: ") and "(rule " in line] == [
        f"warning: {file}: [0] {known} -> not-yet-here: citation: An edge cites one http(s) URL. (rule EdgeCitation)",
        f"warning: {file}: [1] {known} -> {other}: citation: An edge cites one http(s) URL. (rule EdgeCitation)",
        f"warning: {file}: [1] {known} -> {other}: type: An edge's type is one of the 10 edge types. "
        "(rule EdgeType; value 'loves')",
    ]
    s = GraphStore(store)
    assert s.count(f"SELECT (COUNT(*) AS ?n) WHERE {{ ?r {KG.edgeType} ?t }}") == 2
    del s


# ---------------------------------------------------------------------------
# Content the catalog rules forbid but the graph can hold: kept; kg validate reports it


def test_risky_links_are_kept_as_text_with_a_warning(base, tmp_path, capsys):
    """Cell citations; a record url that is not http(s) breaks the structural rule SystemUrl (test_ingest_rules)."""
    store = fresh(base, tmp_path)
    record = copy.deepcopy(base["outside"])
    record["cells"]["license"]["citation"] = "file:///etc/passwd"
    record["cells"]["type"]["citation"] = " \tJavaScript:alert(1)"
    record["cells"]["desc"]["citation"] = "see the vendor's docs (no URL)"  # free text: no warning
    file = write(tmp_path, "risky.json", json.dumps(record))
    code, lines = ingest(capsys, store, file)
    assert code == EXIT_OK
    warnings = sorted(line for line in lines if line.startswith("warning: ") and "(rule " not in line
                      and "more finding(s)" not in line)
    assert warnings == sorted([
        f"warning: {file}: [0] {record['id']}: cells.license.citation: a 'file:' link, not http(s); kept as text",
        f"warning: {file}: [0] {record['id']}: cells.type.citation: a 'javascript:' link, not http(s); kept as text",
    ])
    for column in ("license", "type", "desc"):
        (citation,) = cell_object(store, record["id"], column, KG.citation)
        assert type(citation).__name__ == "Literal"
        assert citation.value == record["cells"][column]["citation"]


def test_unknown_status_and_out_of_range_tier_are_quarantined_by_the_structural_rules(base, tmp_path, capsys):
    """Tier, status and claim tier break structural rules of the schema: quarantined, the store unchanged."""
    store = fresh(base, tmp_path)
    record = copy.deepcopy(base["outside"])
    record["tier"] = 9
    record["cells"]["license"]["status"] = "made-up-status"
    record["cells"]["license"]["tier"] = "T9"
    file = write(tmp_path, "odd.json", json.dumps(record))
    code, lines = ingest(capsys, store, file)
    assert code == EXIT_QUARANTINE
    (held,) = [line for line in lines if line.startswith("quarantined: ")]
    assert held.startswith(f"quarantined: {file}: [0] {record['id']}: ") and "breaks a structural rule" in held
    for rule in ("SystemTier", "CellStatus", "CellClaimTier"):
        assert rule in held, (rule, held)
    assert dump(store) == base["dump"]


def test_huge_strings_and_control_characters_are_kept_exactly(base, tmp_path, capsys):
    store = fresh(base, tmp_path)
    record = copy.deepcopy(base["outside"])
    huge = "x" * 10_000_000
    record["cells"]["desc"]["value"] = huge
    record["name"] = "Na\x00me\x1b[2J\u202eevil\n"
    file = write(tmp_path, "huge.json", json.dumps(record))
    code, lines = ingest(capsys, store, file)  # over the 8 MiB cap of a record: set aside, nothing written
    assert code == EXIT_QUARANTINE and dump(store) == base["dump"]
    size = len(json.dumps(record, ensure_ascii=False).encode("utf-8"))
    assert [line for line in lines if line.startswith("quarantined: ")] == [
        f"quarantined: {file}: [0] {record['id']}: (record): is {size:,} bytes of JSON, more than the cap of "
        f"8,388,608 (--max-record-bytes)"]
    code, lines = ingest(capsys, store, file, "--max-record-bytes", "20000000")
    assert code == EXIT_OK
    (value,) = cell_object(store, record["id"], "desc", KG.value)
    assert value.value == huge
    s = GraphStore(store)
    names = [q.object.value for q in s.quads(IRIS.record_graph(record["id"]))
             if q.predicate.value == "https://schema.org/name"]
    del s
    assert names == [record["name"]]


def test_a_huge_almost_slug_id_is_refused_quickly(base, tmp_path, capsys):
    store = fresh(base, tmp_path)
    record = dict(copy.deepcopy(base["outside"]), id="a-" * 500_000 + "!")
    code, lines = ingest(capsys, store, write(tmp_path, "id.json", json.dumps(record)))
    assert code == EXIT_QUARANTINE and len(lines[0]) < 600


# ---------------------------------------------------------------------------
# Through a real process: exit code, no traceback, store unchanged (sorted N-Quads)


PROCESS_CASES = [
    ("truncated", [b'{"records": [{"id": "a"'], [], EXIT_INPUT),
    ("deep", [DEEP], [], EXIT_INPUT),
    ("all records bad", [json.dumps({"records": [{"id": "a b"}, {"id": "ok", "tier": "x"}]}).encode()], [],
     EXIT_QUARANTINE),
    ("strict", ["GOOD", json.dumps([{"id": "x", "tier": True}]).encode()], ["--strict"], EXIT_INPUT),
    ("good then unreadable", ["GOOD", b"\xff\xfe{}"], [], EXIT_INPUT),
    ("control characters in the path", [b"{"], [], EXIT_INPUT),
]


@pytest.mark.parametrize("name,files,options,expected", PROCESS_CASES, ids=[c[0] for c in PROCESS_CASES])
def test_failing_ingest_process_leaves_the_store_byte_identical(base, tmp_path, name, files, options, expected):
    store = fresh(base, tmp_path)
    paths = []
    for i, data in enumerate(files):
        data = json.dumps(base["outside"]).encode() if data == "GOOD" else data
        file_name = f"in\x1b[31m{i}\n.json" if name.startswith("control") else f"in{i}.json"
        paths.append(write(tmp_path, file_name, data))
    run = kg("ingest", *paths, "--store", str(store), *options)
    assert run.returncode == expected, run.stderr
    assert "Traceback" not in run.stderr and run.stderr.strip()
    for line in run.stderr.splitlines():
        assert all(ch.isprintable() for ch in line), line
    assert dump(store) == base["dump"]


def test_a_record_of_100000_cells_is_set_aside_unread_and_changes_nothing(base, tmp_path, capsys):
    """JSON Lines: the line is over the byte cap, so it is never parsed (issue 13: one such record
    once took 1.3 GB); the good record beside it goes in."""
    store = fresh(base, tmp_path)
    good = copy.deepcopy(base["outside"])
    huge = copy.deepcopy(base["records"][0])
    huge["id"] = "huge--example-org"
    huge["cells"] = {f"c{i}": dict(good["cells"]["type"]) for i in range(100_000)}
    line = json.dumps(huge)
    file = write(tmp_path, "huge.jsonl", line + "\n" + json.dumps(good) + "\n")
    code, lines = ingest(capsys, store, file)
    assert code == EXIT_QUARANTINE
    assert [x for x in lines if x.startswith("quarantined: ")] == [
        f"quarantined: {file}: [0] huge--example-org: (record): is {len(line):,} bytes of JSON, more than the cap "
        f"of 8,388,608 (--max-record-bytes); not read"]
    assert stored_ids(store) == {r["id"] for r in base["records"]} | {good["id"]}


def test_the_cell_cap_sets_a_record_aside_and_is_an_option(base, tmp_path, capsys):
    store = fresh(base, tmp_path)
    wide = copy.deepcopy(base["outside"])
    wide["cells"] = {f"c{i}": {"value": "", "citation": None, "status": "no-data", "tier": "T3"} for i in range(2001)}
    file = write(tmp_path, "wide.json", json.dumps(wide))
    code, lines = ingest(capsys, store, file)
    assert code == EXIT_QUARANTINE and dump(store) == base["dump"]
    assert [x for x in lines if x.startswith("quarantined: ")] == [
        f"quarantined: {file}: [0] {wide['id']}: cells: 2,001 cells, more than the cap of 2,000 (--max-cells)"]
    normal = base["outside"]
    file = write(tmp_path, "normal.json", json.dumps(normal))
    code, lines = ingest(capsys, store, file, "--max-cells", str(len(normal["cells"]) - 1))
    assert code == EXIT_QUARANTINE and dump(store) == base["dump"]
    assert [x for x in lines if x.startswith("quarantined: ")] == [
        f"quarantined: {file}: [0] {normal['id']}: cells: {len(normal['cells'])} cells, more than the cap of "
        f"{len(normal['cells']) - 1} (--max-cells)"]


# ---------------------------------------------------------------------------
# The caps cost only the record that breaks them (issue 37's held-out corpus), through a real process


def deep_record(levels: int) -> str:
    """A record whose ``v`` nests ``levels`` lists deep (with brackets inside a string, to step over)."""
    return '{"id": "deep--example-org", "name": "D [x", "v": ' + "[" * levels + '"]} \\\\"' + "]" * levels + "}"


def shaped(form: str, records: list[str]) -> str:
    """Records (JSON texts) as a catalog file, JSON Lines or a top-level list."""
    if form == "catalog":
        return '{"schemaVersion": "1.0.0", "records": [\n' + ",\n".join(records) + "\n]}"
    if form == "lines":
        return "\n".join(records) + "\n"
    return "[" + ", ".join(records) + "]"


@pytest.mark.parametrize("levels", [70, 100_000])
@pytest.mark.parametrize("form", ["catalog", "lines", "list"])
def test_a_record_nested_too_deep_is_set_aside_and_its_neighbours_go_in(base, tmp_path, form, levels):
    """Once the whole file failed (exit 3) and its good records were lost; now the depth cap costs the
    deep record only: quarantined with its reason (exit 5), the records around it written."""
    store = fresh(base, tmp_path)
    first, last = copy.deepcopy(base["outside"]), copy.deepcopy(base["records"][0])
    first["id"], last["name"] = "first--example-org", "Renamed"
    file = write(tmp_path, f"deep-{form}.json", shaped(form, [json.dumps(first), deep_record(levels), json.dumps(last)]))
    run = kg("ingest", file, "--store", str(store))
    assert run.returncode == EXIT_QUARANTINE, run.stderr
    assert "Traceback" not in run.stderr
    assert f"quarantined: {file}: [1] deep--example-org: (record): nested more than 64 levels deep" in run.stderr
    assert {"first--example-org", last["id"]} <= stored_ids(store) and "deep--example-org" not in stored_ids(store)
    s = GraphStore(store)
    names = {q.object.value for q in s.quads(IRIS.record_graph(last["id"])) if q.predicate.value == "https://schema.org/name"}
    del s
    assert names == {"Renamed"}


@pytest.mark.parametrize("levels", [70, 100_000])
@pytest.mark.parametrize("form", ["catalog", "lines", "list"])
def test_the_streaming_reader_sets_the_deep_record_aside_too(base, tmp_path, form, levels):
    """The same file read record by record (as files of 64 MiB or more are): the same quarantine."""
    good = copy.deepcopy(base["outside"])
    file = write(tmp_path, f"deep-{form}.json", shaped(form, [json.dumps(good), deep_record(levels)]))
    report = ingest_paths(GraphStore(), [file], stream=True)
    assert report.records == 1 and [(e.index, e.record_id, e.message) for e in report.quarantined] == [
        (1, "deep--example-org", "nested more than 64 levels deep")]


def test_a_record_with_a_1_mib_description_goes_in(base, tmp_path):
    """The byte cap bounds memory; it does not judge content: a record anyone could write goes in."""
    store = fresh(base, tmp_path)
    record = copy.deepcopy(base["outside"])
    record["cells"]["desc"]["value"] = "A long description. " * (1024 * 1024 // 20 + 1)
    file = write(tmp_path, "long.jsonl", json.dumps(record) + "\n" + json.dumps(base["records"][0]) + "\n")
    run = kg("ingest", file, "--store", str(store))
    assert run.returncode == EXIT_OK, run.stderr
    (value,) = cell_object(store, record["id"], "desc", KG.value)
    assert value.value == record["cells"]["desc"]["value"] and len(value.value) > 1024 * 1024


def test_an_edge_repeated_byte_for_byte_is_kept_once_with_a_warning_in_a_real_process(base, tmp_path):
    """The same edge twice, as the same text: one relation, one warning line, exit 0 (an edge that
    shares (source, target, type) but differs stays a quarantined duplicate: see above)."""
    from collections import Counter

    store = fresh(base, tmp_path)
    edges = base["edges"]
    text = json.dumps(edges[0])
    file = write(tmp_path, "edges.json", '{"schemaVersion": "1.0.0", "edges": [' + ", ".join(
        [text] + [json.dumps(e) for e in edges[1:]] + [text]) + "]}")
    done = kg("ingest", file, "--store", str(store))
    assert done.returncode == EXIT_OK, done.stderr
    assert "Traceback" not in done.stderr and "quarantined" not in done.stderr
    repeated = [line for line in done.stderr.splitlines() if "kept once" in line]
    assert repeated == [f"warning: {file}: [{len(edges)}] {edges[0]['source']} -> {edges[0]['target']}: (edge): "
                        f"the same edge as [0], field for field: kept once"]
    s = GraphStore(store)
    rows = s.select(f"SELECT ?s ?t ?type WHERE {{ ?r {KG.source} ?s ; {KG.target} ?t ; {KG.edgeType} ?type }}")
    del s
    gc.collect()
    found = Counter((row["s"].value, row["t"].value, row["type"].value) for row in rows)
    expected = Counter((IRIS.system(e["source"]).value, IRIS.system(e["target"]).value, e["type"]) for e in edges)
    assert found == expected  # one relation per distinct edge of the file: the repeat adds none
