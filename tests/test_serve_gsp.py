"""Graph Store Protocol reads on a real ``kg serve``: ``/store?graph=IRI``, ``?default`` and
``/sparql?graph=IRI``, in every RDF format, checked against the store's own graph (and
``kg export --graph``) as an isomorphism; 404 for an unknown graph, 405 with Allow for writes."""

from __future__ import annotations

import gc
import json
import urllib.parse
from pathlib import Path

import pytest
from serving import http, kg_serve
from pyoxigraph import RdfFormat, parse
from rdflib import Graph
from rdflib.compare import isomorphic

from kg.store import GraphStore
from kg.vocab import Iris
from helpers import kg

SEED = Path(__file__).resolve().parent.parent / "data" / "seed-record.json"

FORMATS = {"text/turtle": "turtle", "application/n-triples": "nt", "application/rdf+xml": "xml",
           "application/ld+json": "json-ld"}


@pytest.fixture(scope="module")
def graphs(small_store) -> dict:
    """The store's graphs: IRI -> its triples as N-Triples text (read before the server runs)."""
    store = GraphStore.open_existing(str(small_store), read_only=True)
    found = {}
    for g in store.named_graphs():
        found[g.value] = "".join(f"{q.subject} {q.predicate} {q.object} .\n" for q in store.quads(g))
    found[None] = "".join(sorted({f"{q.subject} {q.predicate} {q.object} .\n" for q in store.quads()}))
    del store
    gc.collect()
    return found


@pytest.fixture(scope="module")
def served(small_store, graphs):
    with kg_serve(small_store) as url:
        yield url


def record_graph(graphs: dict) -> str:
    """The seed record's graph (the store holds it, with its triples)."""
    iri = Iris().record_graph(json.loads(SEED.read_text(encoding="utf-8"))["id"]).value
    assert iri in graphs
    return iri


def as_graph(body: bytes, fmt: str) -> Graph:
    return Graph().parse(data=body, format=fmt)


def test_a_record_graph_in_every_format_is_the_stores_graph(served, graphs):
    iri = record_graph(graphs)
    expected = as_graph(graphs[iri].encode(), "nt")
    assert len(expected) > 0
    for media, fmt in FORMATS.items():
        status, headers, body = http("GET", served + "/store?graph=" + urllib.parse.quote(iri, safe=""), Accept=media)
        assert status == 200, (media, body[:300])
        assert headers["content-type"].startswith(media)
        assert isomorphic(as_graph(body, fmt), expected), media


def test_turtle_is_the_default_and_matches_kg_export(served, graphs, small_store, tmp_path):
    iri = record_graph(graphs)
    status, headers, body = http("GET", served + "/sparql?graph=" + urllib.parse.quote(iri, safe=""))
    assert status == 200 and headers["content-type"].startswith("text/turtle")
    out = tmp_path / "g.ttl"
    kg("export", "--store", str(small_store), "--graph", iri, "--format", "turtle", "-o", str(out), check=True)
    assert isomorphic(as_graph(body, "turtle"), as_graph(out.read_bytes(), "turtle"))


def test_default_is_the_union_of_all_graphs(served, graphs):
    status, _, body = http("GET", served + "/store?default", Accept="application/n-triples")
    assert status == 200
    assert isomorphic(as_graph(body, "nt"), as_graph(graphs[None].encode(), "nt"))
    assert {t for t in parse(body, format=RdfFormat.N_TRIPLES)}  # pyoxigraph reads it too


def test_head_has_the_headers_and_no_body(served, graphs):
    url = served + "/store?graph=" + urllib.parse.quote(record_graph(graphs), safe="")
    status, headers, body = http("HEAD", url)
    assert status == 200 and body == b"" and headers["content-type"].startswith("text/turtle")
    assert "etag" in headers


def test_unknown_graph_is_404(served):
    status, _, _ = http("GET", served + "/store?graph=" + urllib.parse.quote("https://example.org/none", safe=""))
    assert status == 404
    status, _, _ = http("GET", served + "/sparql?graph=" + urllib.parse.quote("https://example.org/none", safe=""))
    assert status == 404


@pytest.mark.parametrize("method", ["PUT", "POST", "DELETE"])
def test_writes_are_405_with_allow(served, method):
    status, headers, _ = http(method, served + "/store?default", b"<a:b> <a:c> <a:d> .",
                              **{"Content-Type": "application/n-triples"})
    assert status == 405
    assert headers["allow"] == "GET, HEAD, OPTIONS"
    status, headers, _ = http("OPTIONS", served + "/store")
    assert status == 204 and headers["allow"] == "GET, HEAD, OPTIONS"
