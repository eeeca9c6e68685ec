"""Nothing lost, nothing crashes: property-based tests of ingest and export.

* Generated valid catalogs (both record shapes, unknown keys and columns, absent vs
  null keys, nasty text: NFD, bidi controls, emoji, NUL) come back from the store
  exactly (``catalog_json``), compared as canonical JSON so that ``True`` never
  passes for ``1`` nor ``1.0`` for ``1``.
* Re-ingesting the catalog-json export gives the same catalog again (a fixed point).
* Junk (bytes, JSON documents, real records with a random part replaced) always
  ends in a ``KgError`` or a clean ingest, never another exception; and whatever
  is accepted round-trips exactly.
* Every RDF export of a nasty generated catalog re-parses with an independent
  parser into the store's own quads.
"""

from __future__ import annotations

import copy
import io
import json
import os
import unicodedata
from pathlib import Path

import pyoxigraph
import pytest
import rdflib
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kg.errors import KgError
from kg.exports import catalog_json, export
from kg.ingestion import ingest_batches
from kg.records import RECORD_KEYS
from kg.sources import read_bytes, read_text
from kg.store import GraphStore
from kg.vocab import EDGE_PROPERTIES, Iris

IRIS = Iris()
DATA = Path(__file__).resolve().parent.parent / "data"
SITE = json.loads((DATA / "landscape-site.json").read_text(encoding="utf-8"))
SEED = json.loads((DATA / "seed-record.json").read_text(encoding="utf-8"))

# KG_PROPERTY_SCALE=20 multiplies every example count, for a thorough run outside CI
SCALE = max(1, int(os.environ.get("KG_PROPERTY_SCALE", "1")))
PROPERTY = settings(max_examples=25 * SCALE, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow,
                                                                            HealthCheck.data_too_large])


def canonical(value) -> str:
    """Exact JSON text (bool, int and float told apart); key order ignored."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


# ---------------------------------------------------------------------------
# Strategies

NASTY = [
    "", " ", "naïve", unicodedata.normalize("NFD", "naïve café"), "\u202eevil\u202c", "\u200f\u061c",
    "emoji 🧠🦜👩‍👩‍👧", "nul\x00inside", "\x1b[31mred\x1b[0m", "line\nbreak\r\n", 'quote " and \\ backslash',
    "<script>alert(1)</script>", "x> <http://evil.example/p> <y", "\ufeffbom", "\U0010ffff", "tab\tend",
    "javascript:alert(1)", "file:///etc/passwd", "https://github.com/a/b (note)", "https://example.org/ok",
    "2026-05-14", "2026-02-30", "1,234", "MIT OR Apache-2.0", "Native MCP server", "real-data",
]
text = st.one_of(
    st.sampled_from(NASTY),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=12),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=12).map(lambda s: unicodedata.normalize("NFD", s)),
)
ints = st.one_of(st.integers(-(2 ** 63), 2 ** 63 - 1), st.integers(-(10 ** 40), 10 ** 40), st.sampled_from([0, 1, -1]))
floats = st.floats(allow_nan=False, allow_infinity=False)
scalar = st.one_of(st.none(), st.booleans(), ints, floats, text)
json_value = st.recursive(scalar, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                          st.dictionaries(text, inner, max_size=3)),
                          max_leaves=6)
maybe_text = st.one_of(st.none(), text)

# real cell values of the columns the typed layer reads, so normalisation meets real and odd text
TYPED_COLUMNS = ["gh", "license", "protocol-support", "mcp-support", "a2a-support", "otel", "deployment",
                 "sdk-languages", "api-surface", "created", "latest-release", "integration-count",
                 "compliance", "compliance-certifications", "capability-composite-score",
                 "cost-input-usd-per-mtok", "obs-tracing", "eval-harness", "cost-caching"]
REAL_VALUES = sorted({c["value"] for r in SITE["records"] + [SEED] for k, c in r["cells"].items()
                      if k in TYPED_COLUMNS and isinstance(c.get("value"), str)})[:400]
STATUSES = ["real-data", "not-applicable", "depth-floor-reached", "no-data", "estimate"]

# keys that look like the graph's own bookkeeping (prefixed extras, null/empty markers)
TRICKY_KEYS = ["lifecycle.status", "lifecycle.x", "taxonomy.storage", "taxonomy", "cells", "changes", "value",
               "@context", "@id", "owl:imports", "x/../y", "%2F", "", "url", "sections", "_provenance"]
column_slug = st.one_of(st.sampled_from(TYPED_COLUMNS), text)
_word = st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=6)
_words = st.lists(_word, min_size=1, max_size=3).map("-".join)
slug = st.tuples(_words, st.one_of(st.just(""), _words.map(lambda w: "--" + w))).map("".join)


def with_optional(required: dict, optional: dict, known: frozenset[str] | set[str] = frozenset(),
                  avoid: str | None = None):
    """An object with the required keys, any of the optional ones (absent vs null), and unknown keys
    (none starting with ``avoid``)."""
    key = st.one_of(text, st.sampled_from(TRICKY_KEYS))
    unknown = st.dictionaries(key.filter(lambda k: k not in known and k not in required and k not in optional
                                         and not (avoid and k.startswith(avoid))), json_value, max_size=2)
    return st.tuples(st.fixed_dictionaries(required, optional=optional), unknown).map(
        lambda pair: {**pair[1], **pair[0]})


cell = with_optional({}, {
    "value": st.one_of(scalar, st.sampled_from(REAL_VALUES)),
    "citation": st.one_of(maybe_text, st.sampled_from(["https://github.com/mem0ai/mem0", "http://x.org/a b"])),
    "status": st.one_of(st.none(), st.sampled_from(STATUSES), text),
    "tier": st.one_of(st.none(), st.sampled_from(["T1", "T2", "T3"]), text),
    "last_verified_at": maybe_text,
    "source_class": maybe_text,
}, {"value", "citation", "status", "tier", "last_verified_at", "source_class"})

section_object = with_optional({"section": text}, {"subsection": maybe_text, "primary": st.one_of(st.none(), st.booleans()),
                                                   "reason": maybe_text}, {"section", "subsection", "primary", "reason"})
taxonomy_value = with_optional({"value": text}, {"primary": st.one_of(st.none(), st.booleans()), "reason": maybe_text},
                               {"value", "primary", "reason"})
axis = st.one_of(st.sampled_from(["storage", "retrieval", "persistence", "update", "unit", "governance", "conflict"]),
                 text)
provenance = with_optional({}, {"source": st.one_of(st.none(), st.sampled_from(["human", "scrape", "llm"]), text),
                                "verified": st.one_of(st.none(), st.booleans()), "author": maybe_text,
                                "model_id": maybe_text}, {"source", "verified", "author", "model_id"})
change = with_optional({}, {"field": maybe_text, "label": maybe_text, "from": json_value, "to": json_value,
                            "source": maybe_text}, {"field", "label", "from", "to", "source"})
history_entry = with_optional({}, {"date": maybe_text, "commit": maybe_text,
                                   "pr": st.one_of(st.none(), st.integers(-(2 ** 63), 2 ** 63 - 1)),
                                   "kind": maybe_text, "changes": st.one_of(st.none(), st.lists(change, max_size=2))},
                              {"date", "commit", "pr", "kind", "changes"})
lifecycle = st.one_of(st.none(), with_optional({}, {"status": maybe_text, "severity": st.one_of(st.none(), st.integers(-5, 5)),
                                                    "note": maybe_text}, {"status", "severity", "note"}))

core = {
    "id": slug,
    "name": text,
    "tier": st.one_of(st.integers(1, 5), st.integers(-(2 ** 63), 2 ** 63 - 1)),
    "taxonomy": st.dictionaries(axis, st.lists(taxonomy_value, max_size=2), max_size=3),
    "cells": st.dictionaries(column_slug, cell, max_size=5),
}
common_optional = {
    "url": st.one_of(maybe_text, st.just("https://example.org/x?a=1&b=<2>")),
    "last_verified_at": maybe_text,
    "decay_cause": maybe_text, "decay_date": maybe_text, "decay_evidence": maybe_text,
}
catalog_record = with_optional({**core, "sections": st.lists(section_object, max_size=3)},
                               {**common_optional, "_provenance": st.dictionaries(column_slug, provenance, max_size=2)},
                               RECORD_KEYS)
export_record = with_optional(
    {**core, "sections": st.lists(text, max_size=3), "section": text},
    {**common_optional, "family": maybe_text, "page": maybe_text, "license": maybe_text, "source": maybe_text,
     "lifecycle": lifecycle, "history": st.lists(history_entry, max_size=2), "corroboration": json_value,
     "edges": json_value, "_provenance": st.dictionaries(column_slug, provenance, max_size=2)},
    RECORD_KEYS)
record = st.one_of(catalog_record, export_record)


@st.composite
def catalogs(draw, max_records: int = 3):
    records = draw(st.lists(record, min_size=1, max_size=max_records, unique_by=lambda r: r["id"]))
    ids = [r["id"] for r in records]
    edges = []
    if len(ids) > 1:
        edge = with_optional({"source": st.sampled_from(ids), "target": st.sampled_from(ids),
                              "type": st.one_of(st.sampled_from(sorted(EDGE_PROPERTIES)), text)},
                             {"evidence": maybe_text, "citation": maybe_text,
                              "isInfluential": st.one_of(st.none(), st.booleans())},
                             {"source", "target", "type", "evidence", "citation", "isInfluential"})
        candidates = draw(st.lists(edge, max_size=4))
        seen = set()
        for item in candidates:
            key = (item["source"], item["target"], item["type"])
            if item["source"] != item["target"] and key not in seen:
                seen.add(key)
                edges.append(item)
    header = draw(st.dictionaries(text.filter(lambda k: k not in ("records", "edges", "edgesHeader")),
                                  json_value, max_size=3))
    return {**header, "records": records, "edges": edges,
            "edgesHeader": draw(st.dictionaries(text, json_value, max_size=2))}


def ingested(document: dict) -> tuple[GraphStore, object]:
    store = GraphStore()
    # generated records break the schema's structural rules at will: written anyway (keep_invalid)
    report = ingest_batches(store, [read_text(json.dumps(document, ensure_ascii=False), "gen.json")], IRIS,
                            keep_invalid=True)
    return store, report


def assert_same_catalog(rebuilt: dict, document: dict) -> None:
    by_id = {r["id"]: r for r in rebuilt["records"]}
    assert sorted(by_id) == sorted(r["id"] for r in document["records"])
    for given_record in document["records"]:
        assert canonical(by_id[given_record["id"]]) == canonical(given_record)
    assert canonical(rebuilt["edges"]) == canonical(document["edges"])
    for key, value in document.items():
        if key not in ("records", "edges", "edgesHeader"):
            assert canonical(rebuilt[key]) == canonical(value)
    if document["edges"] and document["edgesHeader"]:
        assert canonical(rebuilt["edgesHeader"]) == canonical(document["edgesHeader"])


# ---------------------------------------------------------------------------
# Round trip


@PROPERTY
@given(catalogs())
def test_generated_catalog_round_trips_exactly(document):
    store, report = ingested(document)
    assert not report.quarantined, [str(e) for e in report.quarantined]
    assert report.records == len(document["records"]) and report.edges == len(document["edges"])
    assert_same_catalog(catalog_json(store, IRIS), document)


@pytest.mark.parametrize("extra", [{"lifecycle.status": None}, {"lifecycle.note": "kept at the top"},
                                   {"\\lifecycle.x": 1}, {"\\": "backslash"}])
def test_record_key_with_the_lifecycle_prefix_round_trips(extra):
    record = {"id": "a", "name": "A", "tier": 1, "sections": [], "taxonomy": {}, "cells": {}, **extra}
    store, report = ingested({"records": [record], "edges": [], "edgesHeader": {}})
    (rebuilt,) = catalog_json(store, IRIS)["records"]
    assert canonical(rebuilt) == canonical(record)


@settings(max_examples=10 * SCALE, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(catalogs())
def test_catalog_json_export_is_a_fixed_point(document):
    store, _ = ingested(document)
    first = io.BytesIO()
    export(store, "catalog-json", first, IRIS)
    again = GraphStore()
    ingest_batches(again, [read_bytes(first.getvalue(), "export.json")], IRIS, keep_invalid=True)
    second = io.BytesIO()
    export(again, "catalog-json", second, IRIS)
    assert json.loads(second.getvalue()) == json.loads(first.getvalue())
    # the same graphs (the catalog header gains the licence and attribution the export adds)
    skip = (IRIS.catalog_graph, IRIS.dataset_graph)
    # (and the changesets, which say when each store was built)
    assert sorted(str(q) for q in again.quads() if q.graph_name not in skip and not IRIS.is_history_graph(q.graph_name)) == \
        sorted(str(q) for q in store.quads() if q.graph_name not in skip and not IRIS.is_history_graph(q.graph_name))


def test_real_catalog_json_export_is_a_fixed_point(edges_file):
    """200 real site records, the seed record and the real edges between them."""
    records = [r for r in SITE["records"][:200] if r["id"] != SEED["id"]] + [SEED]
    ids = {r["id"] for r in records}
    edges = [e for e in edges_file["edges"] if e["source"] in ids and e["target"] in ids]
    header = {k: v for k, v in SITE.items() if k != "records"}
    store, report = ingested({**header, "records": records, "edges": edges,
                              "edgesHeader": {k: v for k, v in edges_file.items() if k != "edges"}})
    assert report.records == len(records) and report.edges == len(edges) > 20 and not report.quarantined
    first = io.BytesIO()
    export(store, "catalog-json", first, IRIS)
    again = GraphStore()
    report = ingest_batches(again, [read_bytes(first.getvalue(), "export.json")], IRIS)
    assert report.records == len(records) and report.edges == len(edges) and not report.quarantined
    second = io.BytesIO()
    export(again, "catalog-json", second, IRIS)
    assert canonical(json.loads(second.getvalue())) == canonical(json.loads(first.getvalue()))


# ---------------------------------------------------------------------------
# Junk never crashes


def ingest_or_kg_error(data: bytes):
    """Read and ingest ``data``; return the store and report, or None after a KgError.
    Any other exception fails the test."""
    try:
        batch = read_bytes(data, "junk.json")
        store = GraphStore()
        return store, ingest_batches(store, [batch], IRIS)
    except KgError as err:
        assert "\n" not in str(err) and all(ch.isprintable() for ch in str(err))
        return None


@settings(max_examples=150 * SCALE, deadline=None, database=None)
@given(st.one_of(st.binary(max_size=60),
                 st.sampled_from([b"{", b'{"records": [', b"\xef\xbb\xbf", b"\xff\xfe", b"[{}]", b'{"id": 1}',
                                  b'{"edges": [{}]}', b"[" * 70, b'{"id": "a", "id": "a"}'])
                 .flatmap(lambda prefix: st.binary(max_size=20).map(lambda tail: prefix + tail))))
def test_junk_bytes_give_a_clean_error(data):
    ingest_or_kg_error(data)


junk_document = st.one_of(
    json_value,
    st.dictionaries(st.sampled_from(["records", "edges", "id", "name", "tier", "cells", "sections", "taxonomy",
                                     "edgesHeader", "schemaVersion"]), json_value, max_size=6),
    st.fixed_dictionaries({"records": st.lists(st.dictionaries(
        st.sampled_from(["id", "name", "tier", "cells", "sections", "taxonomy", "section", "lifecycle", "history",
                         "_provenance", "url"]), json_value, max_size=8), max_size=3)}),
    st.fixed_dictionaries({"edges": st.lists(st.dictionaries(
        st.sampled_from(["source", "target", "type", "evidence", "citation", "isInfluential"]),
        st.one_of(json_value, slug), max_size=6), max_size=3)}),
)


@settings(max_examples=80 * SCALE, deadline=None, database=None)
@given(junk_document)
def test_junk_json_gives_a_clean_error(document):
    ingest_or_kg_error(json.dumps(document).encode())


def _paths(value, prefix=()):
    """Every path into a JSON value (keys and indexes)."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _paths(item, prefix + (i,))


SAMPLE_RECORDS = [SEED] + SITE["records"][:40:8]


@settings(max_examples=80 * SCALE, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_real_record_with_a_random_part_replaced_never_crashes_and_round_trips_when_accepted(data):
    original = data.draw(st.sampled_from(SAMPLE_RECORDS))
    mutated = copy.deepcopy(original)
    paths = [p for p in _paths(mutated) if p]
    path = data.draw(st.sampled_from(paths))
    replacement = data.draw(st.one_of(json_value, st.just(None), st.just(True), st.just(10 ** 30),
                                      st.sampled_from(["", "a b", "\ud800", "x" * 5000, "Mem0", -1])))
    node = mutated
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = replacement
    result = ingest_or_kg_error(json.dumps(mutated).encode("utf-8", "surrogatepass"))
    if result is None:
        return
    store, report = result
    if report.records:
        (rebuilt,) = catalog_json(store, IRIS)["records"]
        assert canonical(rebuilt) == canonical(mutated)
    else:
        assert len(report.quarantined) == 1


# ---------------------------------------------------------------------------
# Exports re-parse with an independent parser


def _ox_term(term):
    if isinstance(term, rdflib.URIRef):
        return pyoxigraph.NamedNode(str(term))
    if isinstance(term, rdflib.BNode):
        raise AssertionError("the graph must have no blank nodes")
    if term.language:
        return pyoxigraph.Literal(str(term), language=term.language)
    return pyoxigraph.Literal(str(term), datatype=pyoxigraph.NamedNode(str(term.datatype or rdflib.XSD.string)))


@pytest.fixture
def exact_rdflib_literals():
    """rdflib rewrites some lexical forms ("01" as xsd:integer -> "1"); compare exact text."""
    before = rdflib.NORMALIZE_LITERALS
    rdflib.NORMALIZE_LITERALS = False
    yield
    rdflib.NORMALIZE_LITERALS = before


def _exports(store) -> dict[str, bytes]:
    out = {}
    for fmt in ("turtle", "ntriples", "nquads", "trig", "jsonld"):
        buffer = io.BytesIO()
        export(store, fmt, buffer, IRIS)
        out[fmt] = buffer.getvalue()
    return out


def _check_exports(store) -> None:
    quads = {(q.subject, q.predicate, q.object, q.graph_name) for q in store.quads()}
    triples = {q[:3] for q in quads}
    data = _exports(store)
    # our own JSON-LD writer, read back by pyoxigraph
    assert {(q.subject, q.predicate, q.object, q.graph_name)
            for q in pyoxigraph.parse(data["jsonld"], format=pyoxigraph.RdfFormat.JSON_LD)} == quads
    # pyoxigraph's writers, read back by rdflib
    for fmt, rdflib_format in (("turtle", "turtle"), ("ntriples", "nt")):
        graph = rdflib.Graph()
        graph.parse(data=data[fmt], format=rdflib_format)
        assert {(_ox_term(s), _ox_term(p), _ox_term(o)) for s, p, o in graph} == triples, fmt
    for fmt in ("nquads", "trig"):
        dataset = rdflib.Dataset()
        dataset.parse(data=data[fmt], format=fmt)
        assert {(_ox_term(s), _ox_term(p), _ox_term(o), pyoxigraph.NamedNode(str(g)))
                for s, p, o, g in dataset.quads((None, None, None, None)) if g is not None} == quads, fmt


@settings(max_examples=6 * SCALE, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                                 HealthCheck.function_scoped_fixture])
@given(catalogs(max_records=4))
def test_every_export_of_a_generated_catalog_reparses(exact_rdflib_literals, document):
    store, _ = ingested(document)
    _check_exports(store)


def test_every_export_of_a_nasty_fixed_catalog_reparses(exact_rdflib_literals):
    record = copy.deepcopy(SEED)
    record["id"] = "nasty--example"
    record["name"] = "Nasty \x00\x01\x1b[2J \u202eevil\u202c " + unicodedata.normalize("NFD", "café") + " 🧠"
    record["cells"]["x-new\ncolumn <with> \"odd\" {chars}"] = {
        "value": "\\u0000 not an escape; tab\t; CR\r; U+2028\u2028", "citation": "javascript:alert(1)",
        "status": "made-up", "tier": "T9", "reviewer": {"nested": ["\x00", None, True, 1.5e300]}}
    record["@context"] = "http://127.0.0.1:9/ctx"
    record["key ending in a dot."] = None  # a prefixed name may not end in "."
    record["taxonomy"]["axis."] = [{"value": ".", "primary": True, "reason": None}]
    record["url"] = "https://example.org/a?b=<c>&d=\"e\""
    site = copy.deepcopy(SITE["records"][0])
    site["cells"]["desc"]["value"] = "\ufeff" + "é" * 3 + "\U0010ffff"
    document = {"schemaVersion": "x\x00", "records": [record, site],
                "edges": [{"source": record["id"], "target": site["id"], "type": "weird type/../..",
                           "evidence": "\x00", "citation": "file:///etc/passwd"}]}
    store, report = ingested(document)
    assert report.records == 2 and not report.quarantined
    assert_same_catalog(catalog_json(store, IRIS), {**document, "edgesHeader": {}})
    _check_exports(store)
