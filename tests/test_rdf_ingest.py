"""RDF in, with the conventions of the Oxigraph CLI: our own exports go back in unchanged, bad
files change nothing and say where they are bad, and hostile files are refused before parsing."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import pytest
from pyoxigraph import DefaultGraph, Literal, NamedNode

import kg.rdffiles as rdf
from kg.cli import EXIT_INPUT, main
from kg.description import read_description
from kg.errors import SourceError, UsageError
from kg.exports import export
from kg.ingestion import ingest_paths
from kg.sources import read_rdf_file
from kg.store import GraphStore
from kg.vocab import Iris

IRIS = Iris()
EX = "https://example.org/"


@pytest.fixture(scope="module")
def original(tmp_path_factory, site_catalog, seed_record, edges_file) -> GraphStore:
    """A small store built from catalog JSON: the records at both ends of a few real edges, the seed."""
    edges = edges_file["edges"][:10]
    ids = {e["source"] for e in edges} | {e["target"] for e in edges}
    records = [r for r in site_catalog["records"] if r["id"] in ids]
    folder = tmp_path_factory.mktemp("original")
    (folder / "cat.json").write_text(json.dumps({**{k: v for k, v in site_catalog.items() if k != "records"},
                                                 "records": records}), encoding="utf-8")
    (folder / "seed.json").write_text(json.dumps(seed_record), encoding="utf-8")
    (folder / "edges.json").write_text(json.dumps({"schemaVersion": "1", "edges": edges}), encoding="utf-8")
    store = GraphStore()
    report = ingest_paths(store, [str(folder / n) for n in ("cat.json", "seed.json", "edges.json")])
    assert report.records == len(records) + 1 and not report.quarantined
    return store


def quads(store: GraphStore) -> list[str]:
    return sorted(str(q) for q in store.quads())


def union(store: GraphStore) -> set[str]:
    """Every triple of every graph, the default graph included."""
    return {f"{q.subject} {q.predicate} {q.object}" for q in store.quads()}


def exported(store: GraphStore, fmt: str, path: Path) -> str:
    with open(path, "wb") as out:
        export(store, fmt, out)
    return str(path)


# ---------------------------------------------------------------------------
# Our own exports go back in unchanged


@pytest.mark.parametrize("fmt,name", [("trig", "dump.trig"), ("jsonld", "dump.jsonld"), ("nquads", "dump.NQ")])
def test_a_dataset_export_ingested_into_a_fresh_store_gives_the_same_quads(original, tmp_path, fmt, name):
    fresh = GraphStore()
    report = ingest_paths(fresh, [exported(original, fmt, tmp_path / name)])
    assert report.rdf_quads == len(original) and not report.quarantined
    assert quads(fresh) == quads(original)  # the refreshed description is the exported one


def test_a_turtle_export_ingested_gives_the_same_union_of_graphs(original, tmp_path):
    """Triples go into the default graph (as ``oxigraph load`` does); the description kg
    rebuilds adds nothing the copied one does not already say."""
    fresh = GraphStore()
    ingest_paths(fresh, [exported(original, "turtle", tmp_path / "dump.ttl")])
    assert union(fresh) == union(original)
    assert sum(1 for _ in fresh.match(None, None, None, DefaultGraph())) == len(original)
    assert read_description(fresh, IRIS) == read_description(original, IRIS)


def test_kg_info_counts_the_triples_of_every_export(original, tmp_path):
    import pyoxigraph

    triples = read_description(original, IRIS)["triples"]
    assert triples == len(original)
    for fmt in ("turtle", "ntriples", "nquads", "trig", "jsonld"):
        buffer = io.BytesIO()
        export(original, fmt, buffer)
        parsed = pyoxigraph.parse(buffer.getvalue(), format=rdf.RDF_FORMATS[fmt])
        assert sum(1 for _ in parsed) == triples, fmt


# ---------------------------------------------------------------------------
# Where triples go; which format


def test_triples_go_into_the_given_graph_and_quads_keep_theirs(tmp_path):
    (tmp_path / "a.nt").write_text(f"<{EX}a> <{EX}p> \"v\" .\n", encoding="utf-8")
    (tmp_path / "b.trig").write_text(f"<{EX}b> <{EX}p> \"d\" . GRAPH <{EX}g2> {{ <{EX}b> <{EX}p> \"n\" }}\n",
                                     encoding="utf-8")
    store = GraphStore()
    ingest_paths(store, [str(tmp_path / "a.nt"), str(tmp_path / "b.trig")], graph=f"{EX}g")
    p, g = NamedNode(f"{EX}p"), NamedNode(f"{EX}g")
    assert store.contains(NamedNode(f"{EX}a"), p, Literal("v"), g)
    assert store.contains(NamedNode(f"{EX}b"), p, Literal("d"), g)  # the default-graph part of a dataset
    assert store.contains(NamedNode(f"{EX}b"), p, Literal("n"), NamedNode(f"{EX}g2"))
    assert not store.contains(None, p, None, DefaultGraph())


def test_the_format_comes_from_the_extension_in_any_case_or_is_given(tmp_path):
    text = f"@prefix ex: <{EX}> .\nex:a ex:p ex:b .\n"
    (tmp_path / "UPPER.TTL").write_text(text, encoding="utf-8")
    (tmp_path / "notes.txt").write_text(text, encoding="utf-8")
    assert len(read_rdf_file(tmp_path / "UPPER.TTL")) == 1
    assert len(read_rdf_file(tmp_path / "notes.txt", "ttl")) == 1
    with pytest.raises(SourceError, match="say which format"):
        read_rdf_file(tmp_path / "notes.txt")
    store = GraphStore()
    assert ingest_paths(store, [str(tmp_path / "notes.txt")], format="turtle").rdf_quads == 1
    with pytest.raises(UsageError, match="unknown RDF format"):
        ingest_paths(store, [str(tmp_path / "notes.txt")], format="yaml")
    with pytest.raises(UsageError, match="not an IRI"):
        ingest_paths(store, [str(tmp_path / "UPPER.TTL")], graph="not an iri")


def test_blank_nodes_of_two_files_stay_apart(tmp_path):
    for name in ("a.ttl", "b.ttl"):
        (tmp_path / name).write_text(f"_:x <{EX}p> \"{name}\" .\n", encoding="utf-8")
    store = GraphStore()
    ingest_paths(store, [str(tmp_path / "a.ttl"), str(tmp_path / "b.ttl")])
    assert len({q.subject for q in store.match(None, NamedNode(f"{EX}p"))}) == 2


# ---------------------------------------------------------------------------
# A bad file: one line naming file, line and column; nothing written


BAD_TURTLE = f"@prefix ex: <{EX}> .\nex:a ex:p ex:b .\nex:a ex:p \"unterminated\n"


def test_a_turtle_syntax_error_names_file_line_and_column_and_changes_nothing(original, tmp_path):
    store = GraphStore()
    store.add(original.quads())
    before = quads(store)
    good = tmp_path / "good.ttl"
    good.write_text(f"<{EX}x> <{EX}p> <{EX}y> .\n", encoding="utf-8")
    bad = tmp_path / "bad.ttl"
    bad.write_text(BAD_TURTLE, encoding="utf-8")
    with pytest.raises(SourceError) as err:
        ingest_paths(store, [str(good), str(bad)])
    message = str(err.value)
    assert message.startswith(f"{bad}: invalid Turtle at line 3 column 11: ") and "\n" not in message
    assert quads(store) == before


def test_the_cli_says_it_in_one_line_with_exit_3(tmp_path, capsys):
    bad = tmp_path / "bad.ttl"
    bad.write_text(BAD_TURTLE, encoding="utf-8")
    assert main(["ingest", str(bad), "--store", str(tmp_path / "store")]) == EXIT_INPUT
    lines = capsys.readouterr().err.splitlines()
    assert lines == [f"kg: error: {bad}: invalid Turtle at line 3 column 11: Unexpected end of file"]


@pytest.mark.parametrize("name,text,needle", [
    ("bad.jsonld", '{"@id": "https://example.org/a",\n "https://example.org/p": [1,}', "invalid JSON-LD at line 2 column"),
    ("bad.nq", f"<{EX}a> <{EX}p> <{EX}b> <{EX}g> <{EX}h> .\n", "invalid N-Quads at line 1 column"),
    ("bad.rdf", '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description></rdf:RDF>',
     "invalid RDF/XML: "),
    ("relative.ttl", "<a> <b> <c> .", "invalid Turtle at line 1 column 1: "),
    ("utf16.ttl", "<a> <b> <c> .".encode("utf-16"), "is UTF-16"),
])
def test_other_bad_files_are_one_line_source_errors(tmp_path, name, text, needle):
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    with pytest.raises(SourceError) as err:
        read_rdf_file(path)
    assert needle in str(err.value) and "\n" not in str(err.value)


# ---------------------------------------------------------------------------
# Hostile files: refused quickly, before the parser sees them


def _refused_quickly(path: Path, needle: str, seconds: float = 2.0) -> None:
    started = time.perf_counter()
    with pytest.raises(SourceError, match=needle):
        ingest_paths(GraphStore(), [str(path)])
    assert time.perf_counter() - started < seconds


def test_a_remote_json_ld_context_is_never_fetched(tmp_path):
    path = tmp_path / "remote.jsonld"
    path.write_text('{"@context": "https://example.org/context.jsonld", "@id": "https://example.org/a", '
                    '"name": "x"}', encoding="utf-8")
    _refused_quickly(path, "remote JSON-LD context")


BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
 <rdf:Description rdf:about="https://example.org/a"><rdf:value>&lol9;</rdf:value></rdf:Description>
</rdf:RDF>
"""


def test_the_billion_laughs_are_refused_before_parsing(tmp_path):
    path = tmp_path / "lolz.rdf"
    path.write_text(BILLION_LAUGHS, encoding="utf-8")
    assert path.stat().st_size < 1100
    _refused_quickly(path, "DOCTYPE declaration")


def test_json_ld_nested_5000_levels_is_refused_not_a_crash(tmp_path):
    path = tmp_path / "deep.jsonld"
    path.write_text('{"@context": {"p": "https://example.org/p"}, "p": ' + '{"p": ' * 5000 + '"v"' + "}" * 5001,
                    encoding="utf-8")
    assert 30_000 < path.stat().st_size < 60_000
    _refused_quickly(path, f"nested more than {rdf.MAX_RDF_DEPTH} levels")


def test_rdf_xml_nested_100000_levels_is_refused_fast(tmp_path):
    head = '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:e="https://example.org/">'
    path = tmp_path / "deep.rdf"
    path.write_text(head + "<rdf:Description><e:p>" * 50_000 + "</e:p></rdf:Description>" * 50_000 + "</rdf:RDF>",
                    encoding="utf-8")
    _refused_quickly(path, f"nested more than {rdf.MAX_RDF_DEPTH} elements")


def test_nesting_within_the_cap_is_read(tmp_path):
    depth = rdf.MAX_RDF_DEPTH - 2
    path = tmp_path / "ok.jsonld"
    path.write_text('{"@id": "https://example.org/a", "https://example.org/p": ' + "[" * depth + '"v"' + "]" * depth
                    + "}", encoding="utf-8")
    assert len(read_rdf_file(path)) == 1


@pytest.mark.parametrize("data", [
    b'"' + b'\\"' * 200_000,                          # an unterminated string of escaped quotes
    b"[" * 100_000 + b'"' + b"]" * 100_000,
])
def test_the_json_depth_scan_stays_linear_on_hostile_text(tmp_path, data):
    path = tmp_path / "odd.jsonld"
    path.write_bytes(data)
    started = time.perf_counter()
    with pytest.raises(SourceError):
        read_rdf_file(path)
    assert time.perf_counter() - started < 2


@pytest.mark.parametrize("data", [
    b"<a " + b'x="' * 100_000,                        # unterminated attribute values
    b"<!--" * 100_000,                                # unterminated comments
    b"<a>" + b"<?x " * 100_000,
])
def test_the_xml_scan_stays_linear_on_hostile_text(tmp_path, data):
    path = tmp_path / "odd.rdf"
    path.write_bytes(data)
    started = time.perf_counter()
    with pytest.raises(SourceError):
        read_rdf_file(path)
    assert time.perf_counter() - started < 2


def test_a_file_over_the_size_cap_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(rdf, "MAX_RDF_BYTES", 100)
    path = tmp_path / "big.nt"
    path.write_text(f"<{EX}a> <{EX}p> \"{'x' * 200}\" .\n", encoding="utf-8")
    _refused_quickly(path, "an RDF file is read whole, up to 100 bytes")


def test_stdin_is_read_as_rdf_when_a_format_is_named(monkeypatch):
    class Stdin:
        buffer = io.BytesIO(f"<{EX}a> <{EX}p> <{EX}b> .\n".encode())

    monkeypatch.setattr("sys.stdin", Stdin())
    store = GraphStore()
    report = ingest_paths(store, ["-"], format="nt", graph=f"{EX}g")
    assert report.rdf_quads == 1 and report.sources == ["<stdin>"]
    assert store.contains(NamedNode(f"{EX}a"), None, None, NamedNode(f"{EX}g"))


def test_a_graph_for_catalog_json_is_a_usage_error(tmp_path, seed_record):
    path = tmp_path / "seed.json"
    path.write_text(json.dumps(seed_record), encoding="utf-8")
    store = GraphStore()
    with pytest.raises(UsageError, match="RDF files only"):
        ingest_paths(store, [str(path)], graph=f"{EX}g")
    assert len(store) == 0
