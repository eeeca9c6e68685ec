"""The named query library (queries/*.rq), ``kg.queries`` and ``kg query``.

Every named query is run on the real bundled catalog, and its expected answer is computed
here from the JSON input files, never with SPARQL or the store. For the typed layer
(licences, protocol support, deployment, dates, compliance, feature states) the expected
answer uses ``kg.normalise``'s classifiers on the JSON cell text: they are the mapping's
specification. The feature and decay queries are also run on a generated full-shape
catalog (benchmarks/generate.py), since the site data has no feature or decay fields.
"""

from __future__ import annotations

import csv
import hashlib
import importlib.util
import io
import json
import re
from collections import Counter, defaultdict, deque
from pathlib import Path

import pytest
from pyoxigraph import Literal, NamedNode, QueryResultsFormat, Quad, RdfFormat, parse, parse_query_results

from kg import normalise, output, queries
from kg.cli import main
from kg.errors import NotFound, QueryError, UsageError
from kg.ingestion import ingest_batches
from kg.mapping import feature_family, record_from_quads
from kg.records import record_to_json
from kg.sources import batch_from_document
from kg.store import GraphStore
from kg.vocab import PREFIXES, Iris

import searching  # tests/searching.py: the words matcher, written from its definition
from helpers import in_process  # tests/helpers.py: kg run in this process

ROOT = Path(__file__).resolve().parent.parent
GEN_PATH = ROOT / "benchmarks" / "generate.py"
GENERATED_SEED = 6  # a seed whose 50 records include decayed ones (checked below)

OWN_QUERIES = (
    "compare", "compliant-systems", "coverage", "decay-cause", "eval-orphans", "findings", "findings-matrix", "info",
    "license-distribution", "open-source-systems", "protocol-adoption", "recent", "related", "search",
    "sections", "self-hostable-systems", "show", "stale", "substrate-risk", "systems-with-a2a-support",
    "systems-with-mcp-support", "vendor-portfolio",
)
# A sample value for every parameter of the named queries, used by the structural tests.
SAMPLE_PARAMS = {
    "compare": {"a": "mem0--mem0-ai", "b": "zep-graphiti--getzep-com"},
    "compliant-systems": {"framework": "SOC 2"},
    "decay-cause": {"cause": "acquired"},
    "findings": {"limit": "5"},
    "recent": {"since": "2026-01-01"},
    "related": {"id": "mem0--mem0-ai"},
    "search": {"text": "memory"},
    "show": {"id": "mem0--mem0-ai"},
    "substrate-risk": {"system": "anthropic-claude-foundation-models--anthropic-com"},
    "select-dependency": {"system": "anthropic-claude-foundation-models--anthropic-com"},
}


# ---------------------------------------------------------------------------
# helpers


def plain(term):
    return None if term is None else output.text(term)


def rows(store, name, **params):
    """A query's rows as dicts of plain text values."""
    return [{k: plain(v) for k, v in row.items()} for row in queries.query(store, name, params).terms]


def cell_text(record, slug):
    """(value, status, citation) of a cell whose value is text (as the mapping reads it)."""
    cell = (record.get("cells") or {}).get(slug)
    if not isinstance(cell, dict) or not isinstance(cell.get("value"), str):
        return None
    status = cell.get("status") if isinstance(cell.get("status"), str) else ""
    citation = cell.get("citation") if isinstance(cell.get("citation"), str) else None
    return cell["value"], status, citation


def primary_section(record):
    for listing in record.get("sections") or []:
        if isinstance(listing, dict) and listing.get("primary") is True:
            return listing["section"]
    return record.get("section") if isinstance(record.get("section"), str) else None


def section_names(record):
    return [s["section"] if isinstance(s, dict) else s for s in record.get("sections") or []]


def protocol_modes(record):
    """protocol -> support mode, read from the cells as the mapping's typed layer does."""
    modes = {}
    for slug, key in (("mcp-support", "mcp"), ("a2a-support", "a2a"), ("otel", "opentelemetry")):
        cell = cell_text(record, slug)
        if cell is not None:
            modes[key] = normalise.protocol_mode(cell[0], cell[1])
    combined = cell_text(record, "protocol-support")
    if combined is not None and combined[1] in ("real-data", "estimate"):
        for key, mode in normalise.protocols_in_support_cell(combined[0]).items():
            if key not in modes or modes[key] == "unknown":
                modes[key] = mode
    return modes


def incoming_counts(edges):
    return Counter(e["target"] for e in edges)


def list_order(records, ids, edges):
    """Ids ordered by tier, then most incoming edges, then name (the list queries' order)."""
    incoming = incoming_counts(edges)
    return sorted(ids, key=lambda i: (records[i]["tier"], -incoming[i], records[i]["name"], i))


@pytest.fixture(scope="module")
def generated():
    """A 50-record full-shape catalog from the generator, ingested into a store of its own."""
    spec = importlib.util.spec_from_file_location("landscape_generate_q", GEN_PATH)
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    catalog, edges = gen.generate_catalog(50, seed=GENERATED_SEED)
    store = GraphStore()
    report = ingest_batches(store, [batch_from_document(catalog, "generated"), batch_from_document(edges, "edges")])
    assert not report.quarantined
    return store, {r["id"]: r for r in catalog["records"]}, edges["edges"]


_DUMP_HASHES: dict[tuple, str] = {}


def fingerprint(store):
    """The store's whole content: the version current on disk (any write, by this handle or
    another, makes a new one), the version this handle reads, its size and a hash of its
    N-Quads dump (the store writes its quads in index order, so an unchanged store dumps the
    same bytes). A version on disk never changes once written, so its dump is hashed once."""
    key = (str(store.version_folder), store.generation)
    if key not in _DUMP_HASHES:
        _DUMP_HASHES[key] = hashlib.sha256(store.dump(None, "nquads")).hexdigest()
    return GraphStore.latest_generation(store.path), store.generation, len(store), _DUMP_HASHES[key]


# ---------------------------------------------------------------------------
# the files themselves


def test_every_query_has_a_complete_header():
    problems = {}
    for name in queries.available():
        query = queries.load(name)
        found = queries.header_problems(query)
        if found:
            problems[name] = found
    assert problems == {}
    assert set(OWN_QUERIES) <= set(queries.available())


@pytest.mark.parametrize("name", OWN_QUERIES)
def test_query_is_portable_sparql(bundled_store, name):
    """Parses with rdflib's own SPARQL parser too (as written, and its plan's text), and its PREFIX
    lines agree with kg.vocab."""
    from rdflib.plugins.sparql import prepareQuery

    query = queries.load(name)
    prepareQuery(query.text)
    prepareQuery(queries.plan(query, SAMPLE_PARAMS.get(name, {}), bundled_store).text)
    for prefix, iri in re.findall(r"^PREFIX\s+(\w*):\s*<([^>]*)>", query.text, re.MULTILINE):
        if prefix in PREFIXES:
            assert PREFIXES[prefix] == iri, f"{name}: PREFIX {prefix}: differs from kg.vocab"
    assert query.question.endswith("?")
    assert {p.name for p in query.params if not p.optional} <= set(SAMPLE_PARAMS.get(name, {}))


def test_every_query_runs_on_an_empty_store():
    store = GraphStore()
    for name in queries.available():
        query = queries.load(name)
        values = {p.name: _sample_value(p) for p in query.params if not p.optional or p.either > p.name}
        values.update(BEYOND_REQUIRED.get(name, {}))
        if any(p.type in queries.GRAPH_TYPES for p in query.params if p.name in values):
            with pytest.raises(NotFound):  # no such system in an empty graph: not an empty answer
                queries.query(store, name, values)
            continue
        result = queries.query(store, name, values)
        if name not in ("coverage", "protocol-adoption"):  # these list their fixed categories
            assert result in ([], False), name


# what a query answered in Python needs beyond its required values (recommend: a text or a form)
BEYOND_REQUIRED = {"recommend": {"text": "offline multi agent"}}


def _sample_value(param):
    if param.choices:
        return param.choices[0]
    return {"string": "x", "integer": "1", "decimal": "1.5", "boolean": "true", "date": "2025-01-01",
            "iri": "https://example.org/x", "system": "mem0--mem0-ai", "id": "mem0--mem0-ai",
            "system-name": "mem0", "period": "2025", "limit": "5"}[param.type]


def test_list_is_the_bundled_queries():
    assert [q.name for q in queries.listing()] == queries.available()
    assert all(q.title for q in queries.listing())


# ---------------------------------------------------------------------------
# parameters: binding, types, hostile values


def test_parameter_types_are_checked():
    iris = Iris()
    q = queries.load("search")
    empty = GraphStore()
    with pytest.raises(QueryError, match="tier"):
        queries.plan(q, {"text": "x", "tier": "one"}, empty, iris)
    with pytest.raises(QueryError, match="needs --param text"):
        queries.plan(q, {}, empty, iris)
    with pytest.raises(QueryError, match="no parameter"):
        queries.plan(q, {"text": "x", "nope": "1"}, empty, iris)
    with pytest.raises(QueryError, match="limit"):
        queries.plan(q, {"text": "x", "limit": "-1"}, empty, iris)
    assert queries.plan(q, {"text": "x"}, empty, iris).limit == 50
    iri = queries.Param("x", "iri")
    with pytest.raises(QueryError):
        queries.to_term(iri, "https://example.org/a>b", iris)
    with pytest.raises(QueryError):
        queries.to_term(queries.Param("x", "system"), "} ; DROP ALL ; #", iris)
    with pytest.raises(QueryError):
        queries.to_term(queries.Param("x", "date"), "2025-13-01", iris)


def test_unknown_query_and_paths():
    with pytest.raises(UsageError):
        queries.load("no-such-query")
    with pytest.raises(UsageError):
        queries.load("../kg/queries")
    with pytest.raises(UsageError):
        queries.load("missing-file.rq")


HOSTILE = [
    '"', "'", "{", "}", "} ; DROP ALL ; #", '" } ; DROP ALL ; #', "' } ; DROP ALL ; #",
    '""" } DROP ALL """', "\\", "\\u0022", "<https://example.org/a>b>", "> } DROP ALL {", "?s", "$s",
    "# comment", "\n} DELETE WHERE { ?s ?p ?o }", "%00", "é∑😀",
]


def test_hostile_parameter_values_change_nothing(bundled_store, records, edges, site_catalog, seed_record):
    """Quotes, braces, comment marks, update keywords, IRIs with '>': the answer is what the
    value means as plain text (usually nothing), and the store is untouched."""
    before = fingerprint(bundled_store)
    names_one = {value: _names_one(records, value) for value in HOSTILE}  # from the JSON, once per value
    checked = 0
    for name in OWN_QUERIES:
        query = queries.load(name)
        for param in (p for p in query.params if p.type in ("string", "id", "system-name")):
            for value in HOSTILE:
                values = {p.name: SAMPLE_PARAMS.get(name, {}).get(p.name, "x") for p in query.params
                          if not p.optional}
                values[param.name] = value
                if param.choices:
                    with pytest.raises(QueryError, match="is not one of"):
                        queries.query(bundled_store, name, values)
                elif param.type in ("id", "system-name") and not names_one[value]:
                    with pytest.raises(NotFound):
                        queries.query(bundled_store, name, values)
                elif name == "search":
                    assert got_search(bundled_store, values) == expected_search(records, values)
                elif name == "substrate-risk":
                    got = [(int(r["length"]), int(r["tier"]), r["name"], r["id"])
                           for r in rows(bundled_store, name, **values)]
                    assert got == [w[:4] for w in expected_substrate(records, edges, value)[1]]
                elif name == "vendor-portfolio":
                    got = dict(got_portfolio(bundled_store, values))
                    assert got == expected_portfolio(site_catalog, seed_record, values)
                else:
                    assert queries.query(bundled_store, name, values) == [], (name, param.name, value)
                checked += 1
    assert checked >= 10 * len(HOSTILE)
    for value in ["https://example.org/a>b", "<https://x>", "javascript:alert(1)>"]:
        with pytest.raises(QueryError):
            queries.to_term(queries.Param("x", "iri"), value, Iris())
    assert fingerprint(bundled_store) == before


def test_hostile_values_through_the_command_line(bundled_store, capsys):
    before = fingerprint(bundled_store)
    store = str(bundled_store.path)
    for value in ["} ; DROP ALL ; #", '" } DROP ALL { "']:
        assert main(["query", "related", "--store", store, "-p", f"id={value}", "-f", "csv"]) == 6  # not found
        assert capsys.readouterr().out == ""
    assert fingerprint(bundled_store) == before


def test_queries_cannot_write(bundled_store):
    before = fingerprint(bundled_store)
    path = ROOT / "queries" / "search.rq"
    with pytest.raises(QueryError):
        bundled_store.query("DROP ALL")
    with pytest.raises(QueryError):
        queries.query(bundled_store, str(path), {"text": "x", "limit": "1; DROP ALL"})
    assert fingerprint(bundled_store) == before


# ---------------------------------------------------------------------------
# search


def expected_search(records, params):
    """(id, matched, primary section) rows of the search query, from the JSON (tests/searching.py)."""
    expected = []
    for key, rid, matched in searching.ranked(params["text"], records):
        rec = records[rid]
        if "tier" in params and rec["tier"] != int(params["tier"]):
            continue
        if "section" in params and not any(params["section"].lower() in s.lower() for s in section_names(rec)):
            continue
        expected.append((rid, matched, primary_section(rec)))
    return expected[:int(params.get("limit", 50))]


def got_search(store, params):
    return [(r["id"], r["matched"], r.get("primary_section")) for r in rows(store, "search", **params)]


@pytest.mark.parametrize("params", [
    {"text": "zep"}, {"text": "MEMORY", "limit": "1000"}, {"text": "graph", "tier": "1"},
    {"text": "", "section": "vector", "limit": "7"}, {"text": "agent", "section": "MEMORY LAYERS", "tier": "2"},
    {"text": "²"}, {"text": "mem0--mem0-ai"}, {"text": "temporal graph", "limit": "1000"},
    {"text": "knowledge graph", "limit": "1000"}, {"text": "Graph memory MCP server", "limit": "1000"},
])
def test_search(bundled_store, records, params):
    want = expected_search(records, params)
    assert got_search(bundled_store, params) == want
    if params["text"] in ("zep", "graph", "", "agent"):
        assert want  # the test means something


# ---------------------------------------------------------------------------
# show, related, compare


@pytest.mark.parametrize("rid", ["mem0--mem0-ai", "smolagents-memory--huggingface-co",
                                 "anthropic-claude-foundation-models--anthropic-com",
                                 "0-5-physical-intelligence--pi-website"])
def test_show_is_the_whole_record_and_its_edges(bundled_store, records, edges, iris, rid):
    triples = queries.query(bundled_store, "show", {"id": rid})
    graph = iris.record_graph(rid)
    rebuilt = record_from_quads([Quad(t.subject, t.predicate, t.object, graph) for t in triples], iris, rid)
    assert record_to_json(rebuilt) == records[rid]
    # the relation nodes of every edge touching it, and the direct triples
    touching = {(e["source"], e["type"], e["target"]) for e in edges if rid in (e["source"], e["target"])}
    relations = {t.subject.value for t in triples if t.predicate.value.endswith("#edgeType")}
    assert relations == {iris.relation(s, ty, t).value for s, ty, t in touching}
    evidence = {t.object.value for t in triples if t.predicate.value.endswith("#evidence")}
    assert evidence == {e["evidence"] for e in edges if rid in (e["source"], e["target"])}
    # the related systems' names, and the labels of what the record points to
    names = {(t.subject.value, t.object.value) for t in triples if t.predicate.value == "https://schema.org/name"}
    for s, _, t in touching:
        other = t if s == rid else s
        if other in records:
            assert (iris.system(other).value, records[other]["name"]) in names
    described_columns = {t.subject.value for t in triples
                         if t.predicate.value == "http://purl.org/dc/terms/identifier"
                         and "/column/" in t.subject.value}
    assert described_columns == {iris.column(slug).value for slug in records[rid]["cells"]}


def test_show_unknown_system_is_not_found(bundled_store):
    with pytest.raises(NotFound, match="no system with id 'no-such-system'"):
        queries.query(bundled_store, "show", {"id": "no-such-system"})


@pytest.mark.parametrize("rid", ["mem0--mem0-ai", "anthropic-claude-foundation-models--anthropic-com",
                                 "neo4j--neo4j-com", "cognee--cognee-ai"])
def test_related(bundled_store, records, edges, rid):
    per_type = Counter(e["type"] for e in edges if rid in (e["source"], e["target"]))
    want = []
    for e in edges:
        if rid not in (e["source"], e["target"]):
            continue
        direction = "outgoing" if e["source"] == rid else "incoming"
        other = e["target"] if direction == "outgoing" else e["source"]
        influential = e.get("isInfluential")
        want.append((e["type"], direction, other, records.get(other, {}).get("name"), e["evidence"],
                     e.get("citation"), None if influential is None else str(influential).lower(),
                     str(per_type[e["type"]])))
    want.sort(key=lambda w: w[:3])
    got = [(r["type"], r["direction"], r["other_id"], r.get("other_name"), r.get("evidence"), r.get("citation"),
            r.get("influential"), r["type_count"]) for r in rows(bundled_store, "related", id=rid)]
    assert got == want
    assert want


def _json_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return str(value)


@pytest.mark.parametrize("a,b", [
    ("mem0--mem0-ai", "zep-graphiti--getzep-com"),
    ("smolagents-memory--huggingface-co", "mem0--mem0-ai"),
    ("mem0--mem0-ai", "mem0--mem0-ai"),
    ("cognee--cognee-ai", "neo4j--neo4j-com"),
])
def test_compare(bundled_store, records, edges, a, b):
    ra, rb = records[a], records[b]
    want = []
    for field, key in (("name", "name"), ("tier", "tier"), ("url", "url"), ("last-verified", "last_verified_at")):
        va, vb = ra.get(key), rb.get(key)
        agreement = "empty" if va is None or vb is None else "same" if va == vb else "different"
        want.append(("record", field, None if va is None else str(va), None if vb is None else str(vb), agreement))
    pa, pb = primary_section(ra), primary_section(rb)
    want.append(("record", "primary-section", pa, pb, "empty" if None in (pa, pb) else
                 "same" if pa == pb else "different"))
    for slug in sorted(set(ra["cells"]) | set(rb["cells"])):
        ca, cb = ra["cells"].get(slug), rb["cells"].get(slug)
        va = None if ca is None or ca.get("value") is None else ca["value"]
        vb = None if cb is None or cb.get("value") is None else cb["value"]
        want.append(("cell", slug, None if va is None else _json_text(va), None if vb is None else _json_text(vb),
                     cell_agreement(ca, cb)))
    between = sorted((e["type"], e["source"], e["target"], e["evidence"]) for e in edges
                     if {e["source"], e["target"]} == {a, b} and a != b)
    want += [("edge", t, s, g, None) for t, s, g, _ in between]
    got = rows(bundled_store, "compare", a=a, b=b)
    assert [(r["kind"], r["field"], r.get("a_value"), r.get("b_value"), r.get("agreement")) for r in got] == want
    assert all((r.get("same") == "true") == (r.get("agreement") == "same") for r in got if r["kind"] != "edge")
    assert [r["evidence"] for r in got if r["kind"] == "edge"] == [ev for *_, ev in between]
    if (a, b) == ("cognee--cognee-ai", "neo4j--neo4j-com"):
        assert between


BOILERPLATE_STATUSES = ("not-applicable", "depth-floor-reached", "no-data")
BOILERPLATE_TEXT = re.compile(r"^\s*(not applicable|n/a|searched,? not found|no data)", re.IGNORECASE)


def _is_boilerplate(cell):
    return cell.get("status") in BOILERPLATE_STATUSES or bool(BOILERPLATE_TEXT.match(_json_text(cell["value"])))


def cell_agreement(ca, cb):
    """compare's agreement of two cells, from the JSON: empty, boilerplate, same or different."""
    va = None if ca is None else ca.get("value")
    vb = None if cb is None else cb.get("value")
    if va is None or vb is None or _json_text(va) == "" or _json_text(vb) == "":
        return "empty"
    if _is_boilerplate(ca) or _is_boilerplate(cb):
        return "boilerplate"
    return "same" if va == vb and type(va) is type(vb) else "different"


def test_compare_unknown_system_is_not_found(bundled_store):
    with pytest.raises(NotFound, match="parameter b: no system with id 'no-such-system'"):
        rows(bundled_store, "compare", a="mem0--mem0-ai", b="no-such-system")


# ---------------------------------------------------------------------------
# aggregates over the catalog


def test_sections(bundled_store, records):
    counts = defaultdict(Counter)
    for rec in records.values():
        counts[primary_section(rec)][rec["tier"]] += 1
    want = sorted(((-sum(c.values()), section, [str(c[t]) for t in range(1, 6)]) for section, c in counts.items()))
    got = rows(bundled_store, "sections")
    assert [(-int(r["systems"]), r["section"], [r[f"tier{t}"] for t in range(1, 6)]) for r in got] == want
    assert sum(int(r["systems"]) for r in got) == len(records)


def expected_recent(records, since=None, limit=20):
    """(id, name, date, basis) rows of the recent query, from the JSON, read with
    kg.normalise's date reader (the mapping's specification; its own tests read the raw text)."""
    want = []
    for rid, rec in records.items():
        when, basis = None, None
        cell = cell_text(rec, "latest-release")
        if cell is not None:
            when, basis = normalise.release_info(cell[0], cell[1])[1], "latest-release"
        if when is None:
            cell = cell_text(rec, "created")
            if cell is not None and cell[1] in ("real-data", "estimate"):
                when, basis = normalise.created_date(cell[0]), "created"
        if when is not None and (since is None or when.end >= normalise.since_period(since).start):
            want.append(((-when.end.toordinal(), -when.start.toordinal(), rec["name"], rid),
                         (rid, rec["name"], when.text, basis)))
    return [row for _, row in sorted(want)][:limit]


@pytest.mark.parametrize("params", [{"since": "2026-05-01"}, {"since": "2025-06-15", "limit": "1000"},
                                    {"since": "2024", "limit": "1000"}, {"since": "2030-01-01"}, {}])
def test_recent(bundled_store, records, params):
    want = expected_recent(records, params.get("since"), int(params.get("limit", 20)))
    got = [(r["id"], r["name"], r["date"], r["basis"]) for r in rows(bundled_store, "recent", **params)]
    assert got == want
    if params.get("since") == "2025-06-15":
        assert want and any(b == "created" for *_, b in want) and any(b == "latest-release" for *_, b in want)


def _coverage(records):
    per_family = {f: Counter() for f in ("observability", "cost", "eval")}
    for rec in records.values():
        states = defaultdict(Counter)
        for slug, cell in (rec.get("cells") or {}).items():
            family = feature_family(slug)
            if family is None:
                continue
            value = cell.get("value") if isinstance(cell.get("value"), str) else ""
            status = cell.get("status") if isinstance(cell.get("status"), str) else ""
            states[family][normalise.feature_state(value, status)] += 1
        for family, c in states.items():
            totals = per_family[family]
            totals["systems"] += 1
            totals["systems_yes"] += c["yes"] > 0
            totals["systems_no"] += c["yes"] == 0 and c["no"] > 0
            totals["systems_unknown"] += c["yes"] == 0 and c["no"] == 0
            totals["cells"] += sum(c.values())
            for state in ("yes", "no", "unknown"):
                totals[f"cells_{state}"] += c[state]
    columns = ("systems", "systems_yes", "systems_no", "systems_unknown", "cells", "cells_yes", "cells_no",
               "cells_unknown")
    return [(family, [str(per_family[family][c]) for c in columns]) for family in per_family], columns


def test_coverage_on_bundled_catalog(bundled_store, records):
    want, columns = _coverage(records)
    got = rows(bundled_store, "coverage")
    assert [(r["family"], [r[c] for c in columns]) for r in got] == want
    assert want[0][1][0] == "1"  # only the seed record has feature columns, all not yet researched


def test_coverage_on_generated_catalog(generated):
    store, recs, _ = generated
    want, columns = _coverage(recs)
    got = rows(store, "coverage")
    assert [(r["family"], [r[c] for c in columns]) for r in got] == want
    assert all(int(values[1]) > 0 and int(values[2]) > 0 for _, values in want)


def _eval_orphans(records):
    want = []
    for rid, rec in records.items():
        obs_yes, eval_yes, researched = [], False, 0
        for slug, cell in (rec.get("cells") or {}).items():
            family = feature_family(slug)
            value = cell.get("value") if isinstance(cell.get("value"), str) else ""
            status = cell.get("status") if isinstance(cell.get("status"), str) else ""
            state = normalise.feature_state(value, status)
            if family == "observability" and state == "yes":
                obs_yes.append(slug)
            if family == "eval":
                eval_yes |= state == "yes"
                researched += status in ("real-data", "estimate", "depth-floor-reached")
        if obs_yes and not eval_yes and researched:
            want.append((rec["tier"], rec["name"], rid, sorted(obs_yes), str(researched)))
    return [(rid, obs, n) for _, _, rid, obs, n in sorted(want)]


def test_eval_orphans(bundled_store, generated, records):
    got = [(r["id"], sorted(r["observability"].split(", ")), r["eval_researched"])
           for r in rows(bundled_store, "eval-orphans")]
    assert got == _eval_orphans(records) == []
    store, recs, _ = generated
    want = _eval_orphans(recs)
    assert want, "the generated catalog should hold systems with observability but no eval"
    got = [(r["id"], sorted(r["observability"].split(", ")), r["eval_researched"])
           for r in rows(store, "eval-orphans")]
    assert got == want


DEPENDS_ON = ("runtime-dependency",)  # kg's one meaning of "depends on", the catalog's


def _dependents(edges, target, types=DEPENDS_ON):
    """Shortest dependency path from each dependent to ``target`` (BFS on the JSON): its
    length and the first path of that length in id order (the ids in between)."""
    depends_on_me = defaultdict(set)
    for e in edges:
        if e["type"] in types:
            depends_on_me[e["target"]].add(e["source"])
    paths, todo = {target: ()}, deque([target])
    while todo:
        node = todo.popleft()
        for dependent in depends_on_me[node]:
            path = (node, *paths[node]) if node != target else ()
            if dependent not in paths or (len(path) == len(paths[dependent]) and path < paths[dependent]):
                if dependent not in paths:
                    todo.append(dependent)
                paths[dependent] = path
    del paths[target]
    return {d: len(path) + 1 for d, path in paths.items()}, paths


def _fold(text):
    import unicodedata

    bare = "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))
    return " ".join(bare.split()).lower()


def _named(records, given):
    """The ids a system-name value names, from the JSON: the id, else equal names, else names containing it."""
    if given in records:
        return [given]
    exact = [rid for rid, rec in records.items() if _fold(rec["name"]) == _fold(given)]
    return exact or [rid for rid, rec in records.items() if _fold(given) and _fold(given) in _fold(rec["name"])]


def _names_one(records, given):
    return len(_named(records, given)) == 1


def _chosen(records, edges, named):
    """Of the systems a name names, the one the others depend on: the only one with dependants
    that depends on none of the others with dependants (None when there is no such one)."""
    if len(named) == 1:
        return named[0]
    depended = {rid: set(_dependents(edges, rid)[0]) for rid in named}
    depended = {rid: below for rid, below in depended.items() if below}
    roots = [rid for rid in depended if not any(rid in below for other, below in depended.items() if other != rid)]
    return roots[0] if len(roots) == 1 else None


def expected_substrate(records, edges, given, types=DEPENDS_ON):
    """(target, [(length, tier, name, id, via) ...]) of the substrate-risk query, from the JSON."""
    target = _chosen(records, edges, _named(records, given))
    if target is None:
        return None, []
    lengths, paths = _dependents(edges, target, types)
    return target, sorted((lengths[d], records[d]["tier"], records[d]["name"], d, " > ".join(paths[d]))
                          for d in lengths if d in records)


@pytest.mark.parametrize("given", ["anthropic-claude-foundation-models--anthropic-com", "neo4j--neo4j-com",
                                   "openai gpt family", "Mem0", "  NEO4J ", "model context protocol (mcp spec)"])
def test_substrate_risk(bundled_store, records, edges, given):
    target, want = expected_substrate(records, edges, given)
    got = rows(bundled_store, "substrate-risk", system=given)
    assert [(int(r["length"]), int(r["tier"]), r["name"], r["id"], r.get("via") or "") for r in got] == want
    assert {(r["target_id"], r["target_name"]) for r in got} == {(target, records[target]["name"])}
    if given in ("neo4j--neo4j-com", "  NEO4J ", "openai gpt family"):
        assert max(n for n, *_ in want) >= 2  # transitive dependents are found too, with their path
        assert all(via.count(" > ") == n - 2 for n, *_, via in want if n > 1)


@pytest.mark.parametrize("system", ["qdrant--qdrant-tech", "mem0--mem0-ai", "cognee--cognee-ai", "neo4j--neo4j-com"])
def test_substrate_risk_counts_what_the_catalog_counts(bundled_store, edges, system):
    """By default a substrate's dependants are the records that runtime-depend on it, as the catalog
    counts them (Qdrant 2 direct, mem0 7, Cognee 0; built-on edges would make them 4, 10 and 1);
    built-on is followed on request, and kg says which edges it followed."""
    for types in (("runtime-dependency",), ("built-on", "runtime-dependency")):
        direct = {e["source"] for e in edges if e["target"] == system and e["type"] in types and e["source"] != system}
        given = {"system": system, "direct": "true"}
        if types != DEPENDS_ON:
            given["edge_types"] = ",".join(types)
        got = queries.query(bundled_store, "substrate-risk", given)
        assert {r["id"] for r in got} == direct
        assert got.notes[0].startswith(f"following {' and '.join(types)} edges")
        lengths, _ = _dependents(edges, system, types)
        whole = queries.query(bundled_store, "substrate-risk", {k: v for k, v in given.items() if k != "direct"})
        assert {r["id"]: r["length"] for r in whole} == lengths
    catalog = {"qdrant--qdrant-tech": 2, "mem0--mem0-ai": 7, "cognee--cognee-ai": 0}
    if system in catalog:
        assert len(queries.query(bundled_store, "substrate-risk", {"system": system, "direct": "true"})) == catalog[system]


@pytest.mark.parametrize("types", ["built-on", "integrates-with,runtime-dependency", "cites, extends forks"])
def test_substrate_risk_follows_any_edge_types_asked_for(bundled_store, records, edges, types):
    wanted = tuple(t for t in re.split(r"[\s,]+", types) if t)
    for given in ("neo4j--neo4j-com", "Anthropic", "lancedb--lancedb-com"):
        target, want = expected_substrate(records, edges, given, wanted)
        got = queries.query(bundled_store, "substrate-risk", {"system": given, "edge_types": types})
        assert [(r["length"], r["tier"], r["name"], r["id"], r["via"] or "") for r in got] == want


def test_substrate_risk_refuses_an_unknown_edge_type(bundled_store):
    with pytest.raises(QueryError, match="depends-on is not an edge type; give one or more of built-on, "):
        queries.query(bundled_store, "substrate-risk", {"system": "neo4j--neo4j-com", "edge_types": "depends-on"})


@pytest.mark.parametrize("given", ["claude", "OpenAI", "Anthropic", "Google", "Gemini", "Zep", "LangChain", "MCP"])
def test_substrate_risk_a_name_several_systems_share(bundled_store, records, edges, given, capsys):
    """A name several systems share means the one the others depend on; kg says which it chose."""
    named = _named(records, given)
    target, want = expected_substrate(records, edges, given)
    assert len(named) > 1 and target is not None  # the catalog's vendors' names, each resolved
    got = queries.query(bundled_store, "substrate-risk", {"system": given})
    assert [(r["length"], r["tier"], r["name"], r["id"], r["via"] or "") for r in got] == want
    assert {r["target_id"] for r in got} == {target}
    assert got.notes == ["following runtime-dependency edges (other edge types on request: "
                         "--param edge_types=TYPE,TYPE)",
                         f"parameter system: {given!r} names {len(named)} systems; chose {target} "
                         f"({records[target]['name']}), the one of them that others depend on "
                         "(the rest have no dependants, or depend on it)"]
    assert main(["query", "substrate-risk", "--store", str(bundled_store.path), "-p", f"system={given}", "-f", "csv"]) == 0
    out, err = capsys.readouterr()
    assert f"chose {target} " in err and out.count("\n") == len(want) + 1


@pytest.mark.parametrize("given", ["memory", "no such thing"])
def test_substrate_risk_names_that_are_not_one_system(bundled_store, records, edges, given):
    named = _named(records, given)
    assert len(named) != 1 and _chosen(records, edges, named) is None
    with pytest.raises(NotFound) as caught:
        rows(bundled_store, "substrate-risk", system=given)
    if named:  # ambiguous: every candidate is listed, none cut
        assert sorted(rid for rid, _ in caught.value.candidates) == sorted(named)
        assert f"matches {len(named)} systems" in str(caught.value)
        assert all(rid in str(caught.value) for rid in named) and "more" not in str(caught.value)


def _vendor_systems(records, text):
    """The ids of the systems of every vendor whose key or name contains the text, from the JSON
    (the vendor as kg.normalise reads it from the record's URL, else its GitHub owner)."""
    out = set()
    for rid, rec in records.items():
        vendor = _vendor_key(rec)
        if vendor is not None and any(_fold(text) in part.lower() for part in vendor):
            out.add(rid)
    return out


@pytest.mark.parametrize("vendor", ["anthropic", "OpenAI", "google", "getzep"])
def test_substrate_risk_of_a_vendor(bundled_store, records, edges, vendor):
    """Every system of the vendor is a target: each row one dependent of one of them."""
    want = []
    for target in sorted(_vendor_systems(records, vendor)):
        lengths, paths = _dependents(edges, target)
        want += [(lengths[d], records[d]["tier"], records[d]["name"], d, target) for d in lengths if d in records]
    got = queries.query(bundled_store, "substrate-risk", {"vendor": vendor})
    assert want and [(r["length"], r["tier"], r["name"], r["id"], r["target_id"]) for r in got] == sorted(want)


def test_substrate_risk_takes_a_system_or_a_vendor(bundled_store):
    with pytest.raises(QueryError, match="needs one of --param system=VALUE and --param vendor=VALUE"):
        queries.query(bundled_store, "substrate-risk", {})
    with pytest.raises(QueryError, match="not both"):
        queries.query(bundled_store, "substrate-risk", {"system": "neo4j--neo4j-com", "vendor": "neo4j"})
    with pytest.raises(NotFound, match="no vendor whose key or name contains 'no-such-vendor'"):
        queries.query(bundled_store, "substrate-risk", {"vendor": "no-such-vendor"})


def _decayed(records, cause=None):
    want = [(rec["decay_date"], rec["name"], rid, rec["decay_cause"], rec.get("decay_evidence"))
            for rid, rec in records.items() if rec.get("decay_cause")
            and (cause is None or rec["decay_cause"].lower() == cause.lower())]
    want.sort(key=lambda w: (w[1], w[2]))
    want.sort(key=lambda w: w[0], reverse=True)
    return [(rid, c, d, ev) for d, _, rid, c, ev in want]


def test_decay_cause(bundled_store, generated, records):
    assert rows(bundled_store, "decay-cause") == _decayed(records) == []
    store, recs, _ = generated
    causes = Counter(r["decay_cause"] for r in recs.values() if r.get("decay_cause"))
    assert causes, f"seed {GENERATED_SEED} should give decayed records"
    for cause in [*causes, causes.most_common(1)[0][0].upper(), "no-such-cause", None]:
        params = {} if cause is None else {"cause": cause}
        got = [(r["id"], r["decay_cause"], r["date"], r["evidence"]) for r in rows(store, "decay-cause", **params)]
        assert got == _decayed(recs, cause)
    assert len(rows(store, "decay-cause")) == sum(causes.values())


# ---------------------------------------------------------------------------
# the typed-layer lists


@pytest.mark.parametrize("name,protocol", [("systems-with-mcp-support", "mcp"), ("systems-with-a2a-support", "a2a")])
def test_protocol_lists(bundled_store, records, edges, name, protocol):
    modes = {rid: protocol_modes(rec).get(protocol) for rid, rec in records.items()}
    ids = [rid for rid, mode in modes.items() if mode in ("native", "adapter", "client")]
    incoming = incoming_counts(edges)
    want = [(rid, str(records[rid]["tier"]), modes[rid], str(incoming[rid])) for rid in list_order(records, ids, edges)]
    got = [(r["id"], r["tier"], r["mode"], r["incoming"]) for r in rows(bundled_store, name)]
    assert got == want
    assert len(want) > 10


def test_open_source_systems(bundled_store, records, edges):
    want_license = {}
    for rid, rec in records.items():
        cell = cell_text(rec, "license")
        if cell is None:
            continue
        info = normalise.spdx_license(cell[0], cell[1])
        if normalise.license_is_osi(info):
            compound = len(info.spdx_ids) > 1 and info.expression
            want_license[rid] = info.expression if compound else min(
                i for i in info.spdx_ids if i in normalise.OSI_APPROVED)
    want = [(rid, want_license[rid]) for rid in list_order(records, want_license, edges)]
    got = [(r["id"], r["license"]) for r in rows(bundled_store, "open-source-systems")]
    assert got == want
    assert len(want) > 100


def test_self_hostable_systems(bundled_store, records, edges):
    kinds = {}
    for rid, rec in records.items():
        cell = cell_text(rec, "deployment")
        kind = normalise.deployment_kind(cell[0], cell[1]) if cell else None
        if kind in ("self-hosted", "both"):
            kinds[rid] = kind
    want = [(rid, kinds[rid]) for rid in list_order(records, kinds, edges)]
    got = [(r["id"], r["deployment"]) for r in rows(bundled_store, "self-hostable-systems")]
    assert got == want
    assert len(want) > 50


def _frameworks(record):
    found = []
    for slug in ("compliance", "compliance-certifications"):
        cell = cell_text(record, slug)
        if cell is not None:
            found += [f for f in normalise.compliance_frameworks(cell[0], cell[1]) if f not in found]
    return found


@pytest.mark.parametrize("given,framework", [("SOC 2", "SOC 2"), ("soc2", "SOC 2"), ("GDPR", "GDPR"),
                                             ("hipaa", "HIPAA"), ("ISO-27001", "ISO 27001"), ("PCI", None)])
def test_compliant_systems(bundled_store, generated, records, edges, given, framework):
    found = []
    for store, recs, edge_list in ((bundled_store, records, edges), generated):
        ids = [rid for rid, rec in recs.items() if framework in _frameworks(rec)]
        want = list_order(recs, ids, edge_list)
        got = rows(store, "compliant-systems", framework=given)
        assert [r["id"] for r in got] == want
        assert all(r["claimed"] == framework for r in got)
        found.append(want)
    if framework in ("SOC 2", "GDPR"):
        assert found[0] == ["smolagents-memory--huggingface-co"]  # the seed record claims both


def _vendor_key(record):
    gh = cell_text(record, "gh")
    owner = None
    if gh is not None:
        repo = normalise.github_repo(gh[0], gh[2])
        owner = repo[0] if repo else None
    url = record.get("url") if isinstance(record.get("url"), str) else None
    info = normalise.vendor_of(url, owner)
    return None if info is None else (info.key, info.name)


def expected_portfolio(site_catalog, seed_record, params):
    """{key: (vendor label, systems, best tier, sorted names)} of vendor-portfolio, from the JSON.

    A vendor's label is its name in the first record (in ingest order) that names it.
    """
    in_order = [r for r in site_catalog["records"] if r["id"] != seed_record["id"]] + [seed_record]
    portfolio, label = defaultdict(list), {}
    for rec in in_order:
        found = _vendor_key(rec)
        if found is not None:
            portfolio[found[0]].append(rec)
            label.setdefault(found[0], found[1])
    minimum = int(params.get("min_systems", 2))
    needle = params.get("vendor", "").lower()
    return {key: (label[key], len(recs), min(r["tier"] for r in recs), sorted(r["name"] for r in recs))
            for key, recs in portfolio.items()
            if len(recs) >= minimum and (needle in key.lower() or needle in label[key].lower())}


def got_portfolio(store, params):
    return [(r["key"], (r["vendor"], int(r["systems"]), int(r["best_tier"]), sorted(r["names"].split("; "))))
            for r in rows(store, "vendor-portfolio", **params)]


@pytest.mark.parametrize("params", [{}, {"min_systems": "1"}, {"vendor": "MICROSOFT"},
                                    {"vendor": "hugging", "min_systems": "1"}])
def test_vendor_portfolio(bundled_store, site_catalog, seed_record, params):
    want = expected_portfolio(site_catalog, seed_record, params)
    got = got_portfolio(bundled_store, params)
    assert dict(got) == want
    assert [key for key, _ in got] == sorted(want, key=lambda k: (-want[k][1], want[k][0], k))
    assert want


def test_license_distribution(bundled_store, records):
    counts = Counter()
    for rec in records.values():
        cell = cell_text(rec, "license")
        if cell is None:
            continue
        info = normalise.spdx_license(cell[0], cell[1])
        if info.kind == "spdx":
            for spdx in info.spdx_ids:
                counts[(spdx, spdx, str(spdx in normalise.OSI_APPROVED).lower())] += 1
        elif info.kind == "proprietary":
            counts[("Proprietary", None, "false")] += 1
        elif info.kind == "unknown":
            counts[("Unknown licence", None, "false")] += 1
    want = sorted(((-n, label, spdx, osi) for (label, spdx, osi), n in counts.items()))
    got = rows(bundled_store, "license-distribution")
    assert [(-int(r["systems"]), r["license"], r.get("spdx_id"), r["osi_approved"]) for r in got] == want


def test_protocol_adoption(bundled_store, records):
    counts = {p: Counter() for p in ("mcp", "a2a", "opentelemetry")}
    for rec in records.values():
        for protocol, mode in protocol_modes(rec).items():
            counts[protocol][mode] += 1
    columns = ("native", "adapter", "client", "none", "not_applicable", "unknown")
    want = []
    for protocol, c in counts.items():
        supporting = c["native"] + c["adapter"] + c["client"]
        want.append((-supporting, protocol, [str(c[m.replace("_", "-")]) for m in columns], str(sum(c.values()))))
    want.sort()
    got = rows(bundled_store, "protocol-adoption")
    assert [(-int(r["supporting"]), r["protocol"], [r[m] for m in columns], r["researched"]) for r in got] == want


def test_info(bundled_store, records, edges):
    vendors, licences, venues = set(), set(), set()
    for rec in records.values():
        found = _vendor_key(rec)
        if found:
            vendors.add(found[0])
        cell = cell_text(rec, "license")
        if cell is not None:
            info = normalise.spdx_license(cell[0], cell[1])
            licences |= set(info.spdx_ids) if info.kind == "spdx" else (
                {info.kind} if info.kind in ("proprietary", "unknown") else set())
        venue = normalise.publication_venue(rec.get("url") if isinstance(rec.get("url"), str) else None)
        if venue:
            venues.add(venue)
    want = {"System": len(records), "Relation": len(edges), "Cell": sum(len(r["cells"]) for r in records.values()),
            "Vendor": len(vendors), "License": len(licences), "Protocol": 3, "PublicationVenue": len(venues)}
    got = {r["class"].rsplit("#", 1)[1]: int(r["entities"]) for r in rows(bundled_store, "info")}
    assert got == want


def test_info_follows_every_change_of_the_store(partial_store, site_catalog):
    """info reads the description's counts: they must follow a removal and a re-ingest, not the first build."""
    from kg.ingestion import ingest_paths, remove_records

    kept = site_catalog["records"][:40]
    removed = [r["id"] for r in kept[::4]]
    remove_records(partial_store, removed, Iris())
    left = [r for r in kept if r["id"] not in removed]

    def counts():
        return {r["class"].rsplit("#", 1)[1]: int(r["entities"]) for r in rows(partial_store, "info")}

    assert (counts()["System"], counts()["Cell"]) == (len(left), sum(len(r["cells"]) for r in left))
    fewer_cells = dict(left[0], cells=dict(list(left[0]["cells"].items())[:3]))
    path = partial_store.path.parent / "changed.json"
    path.write_text(json.dumps([fewer_cells]), encoding="utf-8")
    ingest_paths(partial_store, [str(path)])
    want_cells = sum(len(r["cells"]) for r in left) - len(left[0]["cells"]) + 3
    assert (counts()["System"], counts()["Cell"]) == (len(left), want_cells)


# ---------------------------------------------------------------------------
# Python API and command line


def test_limit_and_run(bundled_store):
    result = queries.run(bundled_store, "search", {"text": "memory", "limit": "3"})
    assert [v.value for v in result.variables] == ["id", "name", "tier", "primary_section", "matched"]
    assert len(list(result)) == 3
    assert len(queries.query(bundled_store, "search", {"text": "memory", "limit": "0"})) == 0
    assert queries.query(bundled_store, str(ROOT / "queries" / "info.rq")) == queries.query(bundled_store, "info")


def test_cli_list(capsys):
    code, out, _ = in_process(capsys, "query", "--list")
    assert code == 0
    for name in OWN_QUERIES:  # name, then the question (shortened to the table's width)
        question = queries.load(name).question or queries.load(name).title
        assert re.search(rf"^{re.escape(name)}\s+{re.escape(question[:40])}", out, re.MULTILINE)
    code, out, _ = in_process(capsys, "query", "--list", "-f", "sparql-json")
    assert [b["name"]["value"] for b in json.loads(out)["results"]["bindings"]] == queries.available()
    code, out, _ = in_process(capsys, "query", "--list", "-f", "json")
    assert [row["name"] for row in json.loads(out)] == queries.available()


def test_queries_that_read_the_whole_catalog_say_so_with_their_measured_cost(capsys):
    from kg.mcp.schema import tool_description

    code, out, _ = in_process(capsys, "query", "--list", "-f", "json")
    costs = {row["name"]: row["cost"] for row in json.loads(out)}
    for name in ("eval-orphans", "select-system-names", "search", "changes"):
        assert re.match(r"reads every .*; cold on disk [0-9.]+ s at 912 .*, [0-9.]+ s at 45,600", costs[name]), name
    # one system's neighbourhood, or the description's counts and tallies
    for name in ("show", "related", "compare", "info", "coverage"):
        assert costs[name] == "", name
    # an MCP tool's description leaves the cost out (every tool list carries it); kg://query/search has it
    assert "Cost:" not in tool_description(queries.load("search"))


def test_cli_formats(bundled_store, capsys):
    store = str(bundled_store.path)
    expected = rows(bundled_store, "related", id="mem0--mem0-ai")
    code, out, _ = in_process(capsys, "query", "related", "--store", store, "-p", "id=mem0--mem0-ai",
                              "-f", "sparql-json")
    assert code == 0
    parsed = list(parse_query_results(out.encode(), QueryResultsFormat.JSON))
    assert [{k: plain(row[k]) for k in expected[0] if row[k] is not None} for row in parsed] == expected
    code, out, _ = in_process(capsys, "query", "related", "--store", store, "-p", "id=mem0--mem0-ai", "-f", "csv")
    table = list(csv.DictReader(io.StringIO(out)))
    assert [{k: v for k, v in r.items() if v != ""} for r in table] == expected
    code, out, _ = in_process(capsys, "query", "related", "--store", store, "-p", "id=mem0--mem0-ai", "-f", "tab")
    lines = out.splitlines()
    assert lines[0].split("\t") == ["direction", "type", "other_id", "other_name", "evidence", "citation",
                                    "influential", "type_count"]
    assert len(lines) == len(expected) + 1
    code, out, _ = in_process(capsys, "query", "related", "--store", store, "-p", "id=mem0--mem0-ai", "-f", "tsv")
    parsed = list(parse_query_results(out.encode(), QueryResultsFormat.TSV))  # W3C SPARQL TSV, as the endpoint's
    assert [{k: plain(row[k]) for k in expected[0] if row[k] is not None} for row in parsed] == expected
    code, out, _ = in_process(capsys, "query", "related", "--store", store, "-p", "id=mem0--mem0-ai")
    assert out.rstrip().endswith(f"({len(expected)} rows)")
    assert "mem0-mcp-official--gh-mem0ai-mem0-mcp" in out


@pytest.mark.parametrize("fmt,rdf_format", [(None, RdfFormat.TURTLE), ("turtle", RdfFormat.TURTLE),
                                            ("ntriples", RdfFormat.N_TRIPLES), ("jsonld", RdfFormat.JSON_LD)])
def test_cli_graph_formats(bundled_store, capsys, fmt, rdf_format):
    args = ["query", "show", "--store", str(bundled_store.path), "-p", "id=mem0--mem0-ai"]
    code, out, _ = in_process(capsys, *args, *(["-f", fmt] if fmt else []))
    assert code == 0
    parsed = {(q.subject, q.predicate, q.object) for q in parse(out.encode(), rdf_format)}
    shown = queries.query(bundled_store, "show", {"id": "mem0--mem0-ai"})
    expected = {(t.subject, t.predicate, t.object) for t in shown}
    assert parsed == expected and len(expected) > 500


def test_cli_file_and_errors(bundled_store, capsys, tmp_path):
    store = str(bundled_store.path)
    rq = tmp_path / "mine.rq"
    rq.write_text("# title: mine\nPREFIX kg: <https://w3id.org/agent-landscape/ontology#>\n"
                  "# not a header line any more\nSELECT (COUNT(*) AS ?n) WHERE { ?s a kg:System }\n")
    code, out, _ = in_process(capsys, "query", str(rq), "--store", store, "-f", "csv")
    assert code == 0 and out.splitlines() == ["n", "912"]
    ask = tmp_path / "ask.rq"
    ask.write_text('# param: id (string) an id\nPREFIX dcterms: <http://purl.org/dc/terms/>\n'
                   'ASK { ?s dcterms:identifier ?id }\n')
    assert in_process(capsys, "query", str(ask), "--store", store, "-p", "id=mem0--mem0-ai")[1] == "true\n"
    asked = in_process(capsys, "query", str(ask), "--store", store, "-p", "id=x", "-f", "sparql-json")
    assert json.loads(asked.stdout) == {"head": {}, "boolean": False}
    assert json.loads(in_process(capsys, "query", str(ask), "--store", store, "-p", "id=x", "-f", "json")[1]) is False
    assert in_process(capsys, "query", "search", "--store", store, "-p", "text=x", "-f", "turtle")[0] == 2
    assert in_process(capsys, "query", "show", "--store", store, "-p", "id=mem0--mem0-ai", "-f", "csv")[0] == 2
    assert in_process(capsys, "query", "show", "--store", store, "-p", "id=x", "-f", "csv")[0] == 6  # no such system
    assert in_process(capsys, "query", "no-such-query", "--store", store)[0] == 2
    assert in_process(capsys, "query", "search", "--store", store)[0] == 2  # missing --param text
    assert in_process(capsys, "query", "search", "--store", store, "-p", "text")[0] == 2
    assert in_process(capsys, "query", "search", "--store", store, "-p", "text=a", "-p", "text=b")[0] == 2
    assert in_process(capsys, "query", "search", "--store", store, "-p", "text=a", "-p", "tier=x")[0] == 2
    assert in_process(capsys, "query", "--store", store)[0] == 2
    assert in_process(capsys, "query", "info", "--store", str(tmp_path / "missing"))[0] == 4
    code, out, _ = in_process(capsys, "query", "compliant-systems", "--store", store, "--sparql", "-p",
                              'framework=" } DROP ALL #')
    assert code == 0 and 'VALUES (?framework) { ("\\" } DROP ALL #") }' in out
    assert in_process(capsys, "query", "related", "--store", store, "--sparql", "-p", 'id=" } DROP ALL #')[0] == 6


def test_a_user_query_file_is_guarded_before_it_runs(bundled_store, capsys, tmp_path):
    """SERVICE and a remote FROM in a user's .rq file are refused (pyoxigraph would fetch them)."""
    store = str(bundled_store.path)
    service = tmp_path / "service.rq"
    service.write_text("SELECT * WHERE { SERVICE SILENT <http://127.0.0.1:9/sparql> { ?s ?p ?o } }\n")
    remote = tmp_path / "remote.rq"
    remote.write_text("SELECT * FROM <http://127.0.0.1:9/g> WHERE { ?s ?p ?o }\n")
    for path, message in ((service, "SERVICE is not allowed"), (remote, "is not a graph of this store")):
        with pytest.raises(QueryError, match=message):
            queries.run(bundled_store, str(path))
        code, _, err = in_process(capsys, "query", str(path), "--store", store)
        assert code == 2 and str(path) in err and message in err
    local = tmp_path / "local.rq"
    local.write_text(f"SELECT (COUNT(*) AS ?n) FROM {Iris().edges_graph} WHERE {{ ?s ?p ?o }}\n")
    edges_graph = sum(1 for _ in bundled_store.quads(Iris().edges_graph))
    assert queries.query(bundled_store, str(local))[0]["n"] == edges_graph  # FROM is honoured


def test_an_oversize_user_query_is_refused_not_crashed(bundled_store, tmp_path):
    """A 7,000-term FILTER made pyoxigraph overflow its stack (SIGSEGV); the guard's cap refuses it."""
    huge = tmp_path / "huge.rq"
    huge.write_text("SELECT * WHERE { ?s ?p ?o FILTER(" + "+".join(["1"] * 7000) + " > 0) }\n")
    with pytest.raises(QueryError, match="too large"):
        queries.run(bundled_store, str(huge))
    wide = tmp_path / "wide.rq"  # 85 triple patterns: past rdflib's default recursion limit, accepted
    wide.write_text("SELECT (COUNT(*) AS ?n) WHERE { " + " . ".join(f"?s{i} ?p{i} ?o{i}" for i in range(85))
                    + " FILTER(false) }\n")
    assert queries.query(GraphStore(), str(wide)).terms == [{"n": Literal("0", datatype=NamedNode(
        "http://www.w3.org/2001/XMLSchema#integer"))}]


def test_output_table_is_safe_for_a_terminal():
    out = io.StringIO()
    output.write_rows([{"a": "line\none\x1b[31m", "n": Literal("12", datatype=NamedNode(
        "http://www.w3.org/2001/XMLSchema#integer")), "k": NamedNode(PREFIXES["kg"] + "MCP")}], out, "table")
    text = out.getvalue()
    assert "\x1b" not in text and "\n" not in text.splitlines()[2]
    assert "kg:MCP" in text and "(1 row)" in text
    out = io.StringIO()
    output.write_rows([{"a": "tab\there", "b": None}], out, "tab")
    assert out.getvalue() == "a\tb\ntab\\there\t\n"
    out = io.StringIO()
    output.write_rows([{"a": "tab\there", "b": None}], out, "tsv")
    assert out.getvalue() == '?a\t?b\n"tab\\there"\t\n'


# ---------------------------------------------------------------------------
# portability: another SPARQL 1.1 engine gives the same answers


def _term_key(term):
    """A comparable form of a pyoxigraph or rdflib term."""
    import rdflib

    if term is None:
        return None
    if isinstance(term, (Literal, rdflib.Literal)):
        if isinstance(term, Literal):
            lexical, lang, datatype = term.value, term.language, term.datatype.value
        else:
            lexical, lang = str(term), term.language
            datatype = str(term.datatype) if term.datatype else "http://www.w3.org/2001/XMLSchema#string"
        for sep in ("; ", ", "):  # GROUP_CONCAT parts come in no set order
            if sep in lexical:
                lexical = sep.join(sorted(lexical.split(sep)))
        return ("literal", lexical, lang or datatype)
    return ("iri", str(term.value if isinstance(term, NamedNode) else term))


@pytest.fixture(scope="module")
def small_catalog(site_catalog, seed_record, edges_file):
    """A slice of the bundled catalog (every runtime dependent of Neo4j, a few hubs, the seed record)
    with the edges among them: in our store, and in an rdflib Dataset with a union default graph."""
    import rdflib

    edges = edges_file["edges"]
    keep = {"neo4j--neo4j-com", "mem0--mem0-ai", "zep-graphiti--getzep-com", "cognee--cognee-ai",
            "anthropic-claude-foundation-models--anthropic-com", seed_record["id"]}
    keep |= set(_dependents(edges, "neo4j--neo4j-com")[0])
    records = [r for r in site_catalog["records"] if r["id"] in keep and r["id"] != seed_record["id"]]
    records.append(seed_record)
    kept_edges = [e for e in edges if e["source"] in keep and e["target"] in keep]
    store = GraphStore()
    ingest_batches(store, [batch_from_document({"records": records}, "slice"),
                           batch_from_document({"edges": kept_edges}, "slice-edges")])
    dataset = rdflib.Dataset(default_union=True)
    dataset.parse(data=store.dump(None, "nquads").decode("utf-8"), format="nquads")
    return store, dataset


PORTABILITY_CASES = [(name, SAMPLE_PARAMS.get(name, {})) for name in OWN_QUERIES] + [
    ("search", {"text": "graph", "tier": "1", "section": "memory"}),
    ("search", {"text": "Temporal Graph"}), ("search", {"text": "graph memory mcp", "limit": "20"}),
    ("find", {"text": "knowledge graph"}),
    ("substrate-risk", {"vendor": "neo4j"}),
    ("substrate-risk", {"system": "neo4j--neo4j-com"}),
    ("compare", {"a": "smolagents-memory--huggingface-co", "b": "mem0--mem0-ai"}),
    ("vendor-portfolio", {"min_systems": "1"}),
    ("vendor-portfolio", {"vendor": "neo4j", "min_systems": "1"}),
    ("recent", {"since": "2025-06-15"}),
]


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("name,params", PORTABILITY_CASES, ids=[f"{n}-{i}" for i, (n, _) in
                                                                 enumerate(PORTABILITY_CASES)])
def test_rdflib_gives_the_same_answers(small_catalog, name, params):
    """The bound query text means the same on rdflib's engine (a union default graph) as on ours."""
    store, dataset = small_catalog
    query = queries.load(name)
    text = queries.plan(query, params, store).text
    ours = store.query(text)
    theirs = dataset.query(text)
    if theirs.type in ("CONSTRUCT", "DESCRIBE"):
        assert {tuple(_term_key(t) for t in (tr.subject, tr.predicate, tr.object)) for tr in ours} == \
            {tuple(_term_key(t) for t in triple) for triple in theirs.graph}
        return
    names = [v.value for v in ours.variables]
    assert names == [str(v) for v in theirs.vars]
    mine = Counter(tuple(_term_key(row[n]) for n in names) for row in ours)
    other = Counter(tuple(_term_key(row[n]) for n in names) for row in theirs)
    assert mine == other
    if name in ("search", "related", "compare", "substrate-risk", "sections", "open-source-systems"):
        assert mine  # a meaningful comparison
