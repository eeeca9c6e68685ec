"""Exports re-parse with an independent parser into the same graph as the store.

rdflib (the independent parser) reads every format of the tiny catalog, and every term of
the whole bundled catalog once as N-Triples; the compact JSON-LD of the whole catalog is read back by
pyoxigraph.
"""

from __future__ import annotations

import functools
import io
import json

import pyoxigraph
import pytest
import rdflib

from kg.exports import export
from kg.store import GraphStore


@functools.lru_cache(maxsize=1 << 18)  # the catalog's terms repeat (classes, predicates, vendors)
def _ox_term(term):
    if isinstance(term, rdflib.URIRef):
        return pyoxigraph.NamedNode(str(term))
    if isinstance(term, rdflib.BNode):
        raise AssertionError("the graph must have no blank nodes")
    if term.language:
        return pyoxigraph.Literal(str(term), language=term.language)
    datatype = term.datatype or rdflib.XSD.string
    return pyoxigraph.Literal(str(term), datatype=pyoxigraph.NamedNode(str(datatype)))


def _store_triples(store):
    return {(q.subject, q.predicate, q.object) for q in store.quads()}


def _exported(store, iris, fmt) -> bytes:
    out = io.BytesIO()
    export(store, fmt, out, iris)
    return out.getvalue()


@pytest.mark.parametrize("fmt,rdflib_format", [("turtle", "turtle"), ("ntriples", "nt"), ("rdfxml", "xml")])
def test_triple_exports_reparse_with_rdflib(tiny_store, iris, fmt, rdflib_format):
    data = _exported(tiny_store, iris, fmt)
    if fmt != "rdfxml":
        assert data.startswith(b"# AI Agent Infrastructure Landscape")
    graph = rdflib.Graph()
    graph.parse(data=data, format=rdflib_format)
    parsed = {(_ox_term(s), _ox_term(p), _ox_term(o)) for s, p, o in graph}
    # no blank nodes anywhere, so isomorphism is equality of the triple sets
    assert parsed == _store_triples(tiny_store)


@pytest.fixture(scope="module")
def bundled_copy(bundled_store) -> GraphStore:
    """The bundled store's quads in a store in memory: the whole-catalog tests here read them
    four times, and a read from memory costs a tenth of one from the on-disk store (the
    on-disk store's own exports: tests/test_wheel.py, tests/test_cli.py)."""
    copy = GraphStore()
    copy.add_bulk(bundled_store.quads())
    assert len(copy) == len(bundled_store)
    return copy


def test_every_term_of_the_whole_catalog_reparses_with_rdflib(bundled_copy, iris):
    """The real data at full size, once, through the independent parser (N-Triples: every
    term written out in full). The whole export reads back as the store's triples; rdflib reads
    the lines that hold every distinct IRI and literal of the catalog at least once (a quarter
    of the lines: the rest repeat terms already read) and gets those lines' triples."""
    data = _exported(bundled_copy, iris, "ntriples")
    lines = [line for line in data.split(b"\n") if line and not line.startswith(b"#")]
    triples = list(pyoxigraph.parse(data, format=pyoxigraph.RdfFormat.N_TRIPLES))
    assert len(lines) == len(triples)  # one triple per line, in order
    assert {(t.subject, t.predicate, t.object) for t in triples} == _store_triples(bundled_copy)
    seen: set = set()
    chosen = []
    for line, triple in zip(lines, triples):
        terms = (triple.subject, triple.predicate, triple.object)
        if not seen.issuperset(terms):
            seen.update(terms)
            chosen.append((line, terms))
    graph = rdflib.Graph()
    graph.parse(data=b"\n".join(line for line, _ in chosen) + b"\n", format="nt")
    parsed = {(_ox_term(s), _ox_term(p), _ox_term(o)) for s, p, o in graph}
    assert parsed == {terms for _, terms in chosen}
    assert {term for _, terms in chosen for term in terms} == seen and len(seen) > 50_000


def test_nquads_export_keeps_every_quad(tiny_store, iris):
    data = _exported(tiny_store, iris, "nquads")
    dataset = rdflib.Dataset()
    dataset.parse(data=data, format="nquads")
    parsed = {(_ox_term(s), _ox_term(p), _ox_term(o), pyoxigraph.NamedNode(str(g)))
              for s, p, o, g in dataset.quads((None, None, None, None)) if g is not None}
    assert parsed == {(q.subject, q.predicate, q.object, q.graph_name) for q in tiny_store.quads()}


def test_jsonld_export_is_compact_and_reparses(bundled_copy, iris):
    data = _exported(bundled_copy, iris, "jsonld")
    document = json.loads(data)
    assert isinstance(document["@context"], dict)  # inline, never a remote context
    assert b"https://w3id.org/agent-landscape/ontology#tier" not in data  # terms are compacted
    quads = set(pyoxigraph.parse(data, format=pyoxigraph.RdfFormat.JSON_LD))
    assert quads == set(bundled_copy.quads())


def test_union_jsonld_is_a_default_graph_document_for_rdflib(tiny_store, iris):
    out = io.BytesIO()
    export(tiny_store, "jsonld", out, iris, union=True)
    graph = rdflib.Graph().parse(data=out.getvalue(), format="json-ld")
    assert {(_ox_term(s), _ox_term(p), _ox_term(o)) for s, p, o in graph} == _store_triples(tiny_store)


def test_chosen_graphs_only(tiny_store, iris):
    record = iris.record_graph("mem0--mem0-ai")
    out = io.BytesIO()
    export(tiny_store, "nquads", out, iris, graphs=[record.value, iris.edges_graph.value])
    parsed = set(pyoxigraph.parse(out.getvalue(), format=pyoxigraph.RdfFormat.N_QUADS))
    assert parsed == set(tiny_store.quads(record)) | set(tiny_store.quads(iris.edges_graph))


def test_trig_export_reparses(tiny_store, iris):
    data = _exported(tiny_store, iris, "trig")
    dataset = rdflib.Dataset()
    dataset.parse(data=data, format="trig")
    parsed = {(_ox_term(s), _ox_term(p), _ox_term(o), pyoxigraph.NamedNode(str(g)))
              for s, p, o, g in dataset.quads((None, None, None, None)) if g is not None}
    assert parsed == {(q.subject, q.predicate, q.object, q.graph_name) for q in tiny_store.quads()}


def test_rdfxml_refuses_a_character_xml_forbids(tmp_path, capsys):
    from pyoxigraph import Literal, NamedNode, Quad

    from kg.cli import EXIT_USAGE, main
    from kg.errors import UsageError
    from kg.store import GraphStore

    store = GraphStore(tmp_path / "s")
    g = NamedNode("https://example.org/g")
    store.add([Quad(NamedNode("https://example.org/s"), NamedNode("https://example.org/p"), Literal("a\x01b"), g)])
    with pytest.raises(UsageError, match="U\\+0001"):
        export(store, "rdfxml", io.BytesIO())
    ntriples = io.BytesIO()
    export(store, "ntriples", ntriples)  # the other formats escape it
    assert b"a\\u0001b" in ntriples.getvalue()
    del store
    target = tmp_path / "out.rdf"
    assert main(["export", "-o", str(target), "--store", str(tmp_path / "s")]) == EXIT_USAGE
    assert "XML 1.0 forbids" in capsys.readouterr().err
    assert not target.exists() and not list(tmp_path.glob(".kg-export-*"))


def test_jsonld_one_node_a_line_and_the_bounded_iri_memory_give_the_same_quads(tiny_store, iris, monkeypatch):
    from kg import exports

    monkeypatch.setattr(exports._Compactor, "LIMIT", 3)  # forgotten and worked out again all the time
    graphs = [iris.record_graph("mem0--mem0-ai"), iris.shared_graph]
    out = io.BytesIO()
    export(tiny_store, "jsonld", out, iris, graphs=graphs)
    expected = {q for graph in graphs for q in tiny_store.quads(graph)}
    assert set(pyoxigraph.parse(out.getvalue(), format=pyoxigraph.RdfFormat.JSON_LD)) == expected
    body = out.getvalue().decode().split('"@graph": [\n', 1)[1]  # after the context: a line per node of a graph
    nodes = [json.loads(line.strip().rstrip(",")) for line in body.splitlines() if line.startswith("  {")]
    assert len(nodes) == len({(q.graph_name, q.subject) for q in expected}) > 10
