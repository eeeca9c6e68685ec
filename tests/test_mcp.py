"""kg mcp: the MCP server, driven by the MCP SDK's own client over stdio and streamable HTTP.

The server runs as ``python -m kg mcp`` over an on-disk store of the tiny catalog (with
the analysis graph written back). One stdio session serves the module's tests; one HTTP
server is started for its own test. Expected answers come from the JSON files of the
tiny catalog, never from SPARQL.
"""

from __future__ import annotations

import gc
import json
import re
import subprocess
import sys
import time
from collections import Counter, deque
from functools import partial
from pathlib import Path
from typing import Any, Iterator

import anyio
import httpx
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import PromptReference

import kg.mcp
from kg.analyse import analyze, write_back
from kg.cli import main
from kg.ingestion import ingest_paths
from kg.queries import listing, load
from kg.store import GraphStore
import helpers  # tests/helpers.py (its kg() would hide the package kg here)

ROOT = Path(__file__).resolve().parent.parent
CARTESIAN = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"
PREFIXES = "PREFIX kg: <https://w3id.org/agent-landscape/ontology#>\n"
OWN_TOOLS = {"catalog", "sparql", "analyze"}  # listed by default; describe-system with --all-tools
ADVICE_TOOLS = {"recommend", "between", "predict-citations", "breakouts"}  # answered in Python, another source
DEFAULT_TOOLS = {"search", "find", "show", "related", "compare", "substrate-risk"} | ADVICE_TOOLS | OWN_TOOLS


# ---------------------------------------------------------------------------
# fixtures


@pytest.fixture(scope="module")
def catalog(tiny_paths) -> dict[str, Any]:
    """The tiny catalog's records by id (the seed file supersedes its site version) and edges."""
    site, seed, edges = (json.loads(Path(p).read_text(encoding="utf-8")) for p in tiny_paths)
    records = {r["id"]: r for r in site["records"]}
    records[seed["id"]] = seed
    return {"records": records, "edges": edges["edges"]}


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory, tiny_paths) -> Path:
    """The tiny catalog, with the analysis graph written back, closed so that the server can open it."""
    path = tmp_path_factory.mktemp("mcp") / "kg-store"
    store = GraphStore(path)
    assert not ingest_paths(store, tiny_paths).quarantined
    write_back(store, analyze(store))
    store.flush()
    del store
    gc.collect()
    return path


class Session:
    """A client session held open in a portal's event loop; its calls are plain functions."""

    def __init__(self, portal: BlockingPortal, client: Client) -> None:
        self.portal, self.client = portal, client

    def tools(self) -> dict[str, Any]:
        return {t.name: t for t in self.portal.call(self.client.list_tools).tools}

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> Any:
        return self.portal.call(partial(self.client.call_tool, name, arguments or {}))

    def ok(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        result = self.call(name, arguments)
        assert not result.is_error, result.content[0].text
        assert json.loads(result.content[0].text) == result.structured_content
        return result.structured_content

    def error(self, name: str, arguments: dict[str, Any] | None = None) -> str:
        result = self.call(name, arguments)
        assert result.is_error, f"{name} {arguments} should be a tool error, got {result.structured_content}"
        assert result.structured_content is None
        return result.content[0].text


@pytest.fixture(scope="module")
def session(store_dir) -> Iterator[Session]:
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "kg", "mcp", "--store", str(store_dir), "--timeout", "5"])
    with start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(Client(params, mode="legacy")) as client:
            yield Session(portal, client)


def rows(document: dict[str, Any]) -> list[dict[str, Any]]:
    return document["rows"]


# ---------------------------------------------------------------------------
# the session and the tool list


def test_initialize_names_the_server_and_its_tools(session):
    client = session.client
    assert client.server_info is not None and client.server_info.name == "kg"
    assert client.server_capabilities.tools is not None
    assert "read-only" in (client.instructions or "").lower()


def test_the_common_questions_are_tools_and_plumbing_is_hidden(session):
    tools = session.tools()
    assert set(tools) == DEFAULT_TOOLS
    bundled = {p.stem for p in (ROOT / "queries").glob("*.rq")}
    plumbing = {name for name in bundled if name.startswith(("check-", "select-"))}
    questions = tools["catalog"].input_schema["properties"]["question"]["enum"]
    assert set(questions) == bundled - plumbing - DEFAULT_TOOLS and "open-source-systems" in questions
    for name in questions:  # each named in the description, with its parameters
        assert re.search(rf"^- {re.escape(name)}( \(.*\))?: ", tools["catalog"].description, re.M), name
    assert "- compliant-systems (framework): " in tools["catalog"].description
    # hidden, not gone: a plumbing query is still answered by its name
    assert rows(session.ok("check-unique-edge")) == []


def test_every_named_query_has_its_header_as_schema(session):
    """Every query's tool schema (listed or not: kg mcp --all-tools lists them all) is its header."""
    from kg.mcp import schema

    tools = session.tools()
    queries = listing()
    json_types = {"string": "string", "integer": "integer", "decimal": "number", "boolean": "boolean",
                  "date": "string", "iri": "string", "system": "string", "id": "string", "system-name": "string",
                  "period": "string", "limit": "integer", "vendor": "string", "relations": "string"}
    for query in queries:
        input_schema = schema.tool_input_schema(query)
        if query.name in tools:
            assert tools[query.name].input_schema == input_schema
        assert input_schema["type"] == "object" and input_schema["additionalProperties"] is False
        paged = ["offset"] if query.form == "SELECT" else []
        if paged and query.limit_param is None:
            paged = ["limit", "offset"]
        assert list(input_schema["properties"]) == ([p.name for p in query.params] + paged
                                                   + (["full"] if query.name == "show" else []))
        assert input_schema.get("required", []) == [p.name for p in query.params if not p.optional]
        for param in query.params:
            prop = input_schema["properties"][param.name]
            assert prop["type"] == json_types[param.type]
            assert prop["description"] == param.doc
            assert ("default" in prop) == (param.default is not None or param.type == "limit")
        description = schema.tool_description(query)
        assert query.question in description and "Cost:" not in description
        assert description.startswith("Check") == query.name.startswith("check-")
    search = tools["search"].input_schema["properties"]
    assert search["limit"] == {"type": "integer", "minimum": 0, "default": 50,
                               "description": "at most this many rows"}
    assert search["offset"] == {"type": "integer", "minimum": 0}  # 0 when absent; the instructions say how to page
    assert all(t.annotations.read_only_hint is True for t in tools.values())
    by_name = {q.name: schema.tool_input_schema(q)["properties"] for q in queries}
    assert by_name["recent"]["since"]["pattern"].startswith("^\\d{4}")
    assert by_name["find"]["limit"]["default"] == 100  # its own 1000, a page of at most 100 here
    assert tools["related"].input_schema["properties"]["edge_direction"]["enum"] == ["outgoing", "incoming"]
    assert by_name["vendor-portfolio"]["min_systems"]["default"] == 2
    assert by_name["select-analysis-protocols"]["every"]["type"] == "boolean"
    assert tools["sparql"].input_schema["required"] == ["query"]


def test_all_tools_lists_every_query(store_dir):
    async def names() -> set[str]:
        params = StdioServerParameters(command=sys.executable, args=["-m", "kg", "mcp", "--store", str(store_dir),
                                                                     "--workers", "1", "--all-tools"])
        async with Client(params, mode="legacy") as client:
            return {t.name for t in (await client.list_tools()).tools}

    assert anyio.run(names) == {q.name for q in listing()} | OWN_TOOLS | {"describe-system"}


# ---------------------------------------------------------------------------
# named queries


def test_search_finds_the_systems_whose_id_or_name_holds_the_text(session, catalog):
    found = session.ok("search", {"text": "memory"})
    assert found["columns"] == ["id", "name", "tier", "primary_section", "matched"]
    by_id_or_name = {r["id"] for r in rows(found) if {"id", "name"} & set(r["matched"].split(", "))}
    expected = {i for i, r in catalog["records"].items() if "memory" in i or "memory" in r["name"].lower()}
    assert expected and by_id_or_name == expected
    for row in rows(found):
        assert row["tier"] == catalog["records"][row["id"]]["tier"] and isinstance(row["tier"], int)
    tier = next(iter(sorted({r["tier"] for r in catalog["records"].values()})))
    one_tier = session.ok("search", {"text": "", "tier": tier, "limit": 2})
    assert len(rows(one_tier)) == min(2, sum(r["tier"] == tier for r in catalog["records"].values()))
    assert {r["tier"] for r in rows(one_tier)} == {tier}


def _dependents(edges: list[dict], target: str) -> dict[str, int]:
    """Every system that depends on ``target`` at run time, directly or not, with its distance."""
    depends_on: dict[str, set[str]] = {}
    for edge in edges:
        if edge["type"] == "runtime-dependency":  # kg's one meaning of "depends on", the catalog's
            depends_on.setdefault(edge["target"], set()).add(edge["source"])
    distance, todo = {}, deque([(target, 0)])
    while todo:
        node, hops = todo.popleft()
        for dependent in sorted(depends_on.get(node, ())):
            if dependent != target and dependent not in distance:
                distance[dependent] = hops + 1
                todo.append((dependent, hops + 1))
    return distance


def test_substrate_risk_lists_the_runtime_dependents(session, catalog):
    counts = Counter(e["target"] for e in catalog["edges"] if e["type"] == "runtime-dependency")
    target = max(sorted(counts), key=counts.__getitem__)
    result = rows(session.ok("substrate-risk", {"system": target}))
    assert {r["target_id"] for r in result} == {target}
    assert {r["id"]: r["length"] for r in result} == _dependents(catalog["edges"], target)


def test_a_catalog_question_and_a_graph_result(session, catalog):
    sections = session.ok("catalog", {"question": "sections"})
    primary = {next((s["section"] for s in r["sections"] if isinstance(s, dict) and s["primary"]), r.get("section"))
               for r in catalog["records"].values()}
    assert {r["section"] for r in rows(sections)} == primary and sections["total"] == len(primary)
    assert "no question" not in session.error("catalog", {"question": "no-such-question"})
    assert "question must be one of" in session.error("catalog", {"question": "no-such-question"})
    shown = session.ok("show", {"id": "mem0--mem0-ai", "full": True})
    names = {t["object"] for t in shown["triples"] if t["predicate"] == "https://schema.org/name"}
    assert catalog["records"]["mem0--mem0-ai"]["name"] in names
    assert shown["tripleCount"] == len(shown["triples"])


def test_show_is_a_summary_unless_full(session, catalog):
    """show answers the system's summary by default (its name and description first, no index
    fields, no cell nodes); every triple of the record and what it points to on request."""
    record = catalog["records"]["mem0--mem0-ai"]
    summary = session.ok("show", {"id": "mem0--mem0-ai"})
    whole = session.ok("show", {"id": "mem0--mem0-ai", "full": True})
    assert list(summary)[:2] == ["name", "description"]
    assert (summary["name"], summary["description"]) == (record["name"], record["cells"]["desc"]["value"])
    assert (summary["pros"], summary["cons"]) == (record["cells"]["pros"]["value"], record["cells"]["cons"]["value"])
    assert summary["tier"] == record["tier"] and summary["sections"][0] == record["sections"][0]["section"]
    assert summary["cells"]["license"] == record["cells"]["license"]["value"]
    touching = {(e["type"], e["target"] if e["source"] == "mem0--mem0-ai" else e["source"]) for e in catalog["edges"]
                if "mem0--mem0-ai" in (e["source"], e["target"])}
    listed = summary["edges"]["outgoing"] + summary["edges"]["incoming"]
    assert {(e["type"], e["id"]) for e in listed} == touching
    assert all(e["name"] == catalog["records"][e["id"]]["name"] for e in listed)
    text = json.dumps(summary)
    for index_field in ("searchText", "protocolSupportText", "taxonomyText", "/cell/"):
        assert index_field not in text
    assert summary["summary"] is True and summary["wholeTripleCount"] == whole["tripleCount"] == len(whole["triples"])
    assert len(text) * 3 < len(json.dumps(whole))
    assert "summary" not in whole and session.ok("show", {"id": "mem0--mem0-ai", "full": "true"}) == whole


def test_numbers_and_booleans_given_as_text_are_taken(session, catalog):
    as_number = rows(session.ok("search", {"text": "", "tier": 1, "limit": 1000}))
    as_text = rows(session.ok("search", {"text": "", "tier": "1", "limit": "1000"}))
    assert as_text == as_number and {r["id"] for r in as_text} == {
        rid for rid, rec in catalog["records"].items() if rec["tier"] == 1}
    assert "must be a JSON integer" in session.error("search", {"text": "x", "tier": "one"})


def test_named_query_tools_declare_their_output(session):
    """Each named-query tool has an output schema, and its answers fit it."""
    import jsonschema

    from kg.mcp import schema

    tools = session.tools()
    assert all(tool.output_schema for name, tool in tools.items() if name not in ("sparql", "analyze"))
    assert all(schema.output_schema(q) for q in listing())
    assert schema.tool_input_schema(load("changes"))["properties"]["kind"]["enum"] == ["added", "removed", "changed"]
    search = tools["search"].output_schema
    assert list(search["properties"]["rows"]["items"]["properties"]) == ["id", "name", "tier", "primary_section",
                                                                        "matched"]
    for name, arguments in (("search", {"text": "memory"}), ("catalog", {"question": "sections"}),
                            ("show", {"id": "mem0--mem0-ai"}), ("show", {"id": "mem0--mem0-ai", "full": True}),
                            ("substrate-risk", {"system": "mem0--mem0-ai"})):
        jsonschema.validate(session.ok(name, arguments), tools[name].output_schema)


def test_every_default_and_documented_value_fits_its_own_schema():
    """A client that checks arguments against the tool's schema (format assertions on) takes every
    default and the values the headers document: a date given as 'today' among them."""
    import jsonschema

    from kg.mcp import schema

    checker = jsonschema.Draft202012Validator.FORMAT_CHECKER
    for query in listing():
        for name, prop in schema.tool_input_schema(query)["properties"].items():
            given = [prop["default"]] if "default" in prop else []
            given += ["today", "2026-12-07"] if query.params and prop.get("pattern", "").startswith("^(today") else []
            for value in given:
                jsonschema.validate(value, prop, format_checker=checker)
    stale = schema.tool_input_schema(load("stale"))["properties"]["today"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate("yesterday", stale, format_checker=checker)


def test_resources_are_the_vocabulary_the_shapes_the_void_and_every_query(session, catalog):
    listed = {str(r.uri): r for r in session.portal.call(session.client.list_resources).resources}
    queries = listing()
    shapes = sorted(p.stem for p in (ROOT / "shapes").glob("*.ttl"))
    assert set(listed) == ({"kg://ontology", "kg://ontology/context.jsonld", "kg://void"}
                           | {f"kg://shapes/{s}" for s in shapes} | {f"kg://query/{q.name}" for q in queries})

    def read(uri: str) -> tuple[str, str]:
        [content] = session.portal.call(session.client.read_resource, uri).contents
        return content.mime_type, content.text

    assert read("kg://ontology") == ("text/turtle", (ROOT / "ontology" / "kg.ttl").read_text(encoding="utf-8"))
    shapes_text = (ROOT / "shapes" / "kg-shapes.ttl").read_text(encoding="utf-8")
    assert read("kg://shapes/kg-shapes") == ("text/turtle", shapes_text)
    for query in queries:
        mime, text = read(f"kg://query/{query.name}")
        assert mime == "application/sparql-query" and text == query.text
        assert query.compute is not None or text == query.path.read_text(encoding="utf-8")  # else: answered in Python
        assert text.startswith("# title:")
    assert read("kg://queries/search") == read("kg://query/search")  # the former name is read too
    mime, void = read("kg://void")
    import rdflib

    graph = rdflib.Graph().parse(data=void, format="turtle")
    entities = rdflib.URIRef("http://rdfs.org/ns/void#entities")
    datasets = list(graph.subjects(rdflib.RDF.type, rdflib.URIRef("http://rdfs.org/ns/void#Dataset")))
    assert mime == "text/turtle" and len(datasets) == 1
    assert int(graph.value(datasets[0], entities)) == len(catalog["records"])
    with pytest.raises(MCPError, match="no resource"):
        read("kg://query/no-such-query")


def _t2_without_citation(record: dict) -> set[str]:
    return {slug for slug, cell in record["cells"].items() if cell.get("tier") == "T2"
            and not (isinstance(cell.get("citation"), str) and re.match(r"^https?://", cell["citation"]))}


def test_the_findings_tool_and_resource_read_the_kept_findings(session, catalog):
    """The findings of a record: the findings query (called by its name) and the resource
    kg://findings/{id} give the same findings, those of the catalog JSON's T2 cells without an
    http(s) citation; findings-matrix counts them by column."""
    expected = _t2_without_citation(catalog["records"]["mem0--mem0-ai"])
    found = rows(session.ok("findings", {"id": "mem0--mem0-ai"}))
    assert {r["column"] for r in found if r["rule"] == "T2Citation"} == expected and expected
    templates = session.portal.call(session.client.list_resource_templates).resource_templates
    assert "kg://findings/{id}" in {t.uri_template for t in templates}
    [content] = session.portal.call(session.client.read_resource, "kg://findings/mem0--mem0-ai").contents
    assert content.mime_type == "application/json" and json.loads(content.text)["rows"] == found
    matrix = rows(session.ok("findings-matrix"))
    t2 = Counter(slug for record in catalog["records"].values() for slug in _t2_without_citation(record))
    assert {r["key"]: r["findings"] for r in matrix if r["rule"] == "T2Citation"} == dict(t2)
    with pytest.raises(MCPError, match="no-such-system--x"):
        session.portal.call(session.client.read_resource, "kg://findings/no-such-system--x")


@pytest.mark.parametrize("today, months", [("2027-05-15", 12), ("2026-12-01", 6), ("2028-06-01", 24)])
def test_the_stale_tool_answers_from_the_verification_dates(session, catalog, today, months):
    import datetime as dt

    day = dt.date.fromisoformat(today)

    def old_enough(text: str) -> bool:
        verified = dt.date.fromisoformat(text[:10])
        return (day.year - verified.year) * 12 + day.month - verified.month - (day.day < verified.day) >= months

    found = rows(session.ok("stale", {"today": today, "months": months, "scope": "records", "limit": 10000}))
    assert {r["id"] for r in found} == {rid for rid, r in catalog["records"].items()
                                        if r.get("last_verified_at") and old_enough(r["last_verified_at"])}
    cells = rows(session.ok("stale", {"today": today, "months": months, "limit": 10000}))
    assert Counter((r["id"], r["column"]) for r in cells) == Counter(
        (rid, slug) for rid, r in catalog["records"].items() for slug, c in r["cells"].items()
        if (c.get("last_verified_at") or r.get("last_verified_at"))
        and old_enough(c.get("last_verified_at") or r["last_verified_at"]))


def test_prompts_for_the_common_tasks(session):
    listed = {p.name: p for p in session.portal.call(session.client.list_prompts).prompts}
    assert set(listed) == {"find-systems", "compare-systems", "what-depends-on", "write-sparql"}
    assert [a.name for a in listed["compare-systems"].arguments] == ["system", "other"]
    compared = session.portal.call(session.client.get_prompt, "compare-systems", {"system": "zep", "other": "mem0"})
    assert "zep and mem0" in compared.messages[0].content.text
    got = session.portal.call(session.client.get_prompt, "what-depends-on", {"target": "Anthropic"})
    [message] = got.messages
    assert message.role == "user" and "Anthropic" in message.content.text and "substrate-risk" in message.content.text
    written = session.portal.call(session.client.get_prompt, "write-sparql", {"question": "How many vendors?"})
    assert "kg://ontology" in written.messages[0].content.text
    with pytest.raises(MCPError, match="needs the argument question"):
        session.portal.call(session.client.get_prompt, "write-sparql", {})


# ---------------------------------------------------------------------------
# sparql


def test_sparql_rows_are_objects_with_typed_numbers(session, catalog):
    counted = session.ok("sparql", {"query": PREFIXES + "SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s a kg:System }"})
    assert rows(counted) == [{"n": len(catalog["records"])}]
    asked = session.ok("sparql", {"query": PREFIXES + "ASK { ?s a kg:System }"})
    assert asked == {"boolean": True}


def test_sparql_refuses_service_and_updates(session):
    assert "SERVICE is not allowed" in session.error(
        "sparql", {"query": "SELECT * WHERE { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } }"})
    assert "SERVICE" in session.error("sparql", {"query": "select * { service silent ?x { ?s ?p ?o } }"})
    assert "read-only" in session.error("sparql", {"query": "INSERT DATA { <urn:a> <urn:b> <urn:c> }"})
    assert "not a graph of this store" in session.error(
        "sparql", {"query": "SELECT * FROM <http://127.0.0.1:9/x> WHERE { ?s ?p ?o }"})


def test_sparql_past_its_deadline_is_stopped_and_the_server_keeps_answering(session):
    started = time.monotonic()
    message = session.error("sparql", {"query": CARTESIAN, "timeout": 0.5})
    assert message.startswith("timeout:") and "0.5 s" in message
    assert time.monotonic() - started < 4
    assert session.ok("sparql", {"query": "ASK { ?s ?p ?o }"}) == {"boolean": True}


def test_sparql_over_the_row_cap_gives_its_first_page_flagged(session, catalog):
    # the server's cap (10000) is passed by the cartesian square of one small pattern
    first = session.ok("sparql", {"query": "SELECT * WHERE { ?a a ?t . ?b a ?u }"})
    assert first["truncated"] is True and first["has_more"] is True and "total" not in first
    assert first["rowCount"] == len(first["rows"]) == 100 and first["next_offset"] == 100
    later = session.ok("sparql", {"query": "SELECT * WHERE { ?a a ?t . ?b a ?u }", "offset": 9990, "limit": 50})
    assert later["rowCount"] == 10 and later["has_more"] is False and later["truncated"] is True
    graph = session.ok("sparql", {"query": "CONSTRUCT { ?a ?b ?c } WHERE { ?a ?b ?c }", "limit": 3})
    assert graph["tripleCount"] == 3 and graph["truncated"] is True and graph["has_more"] is True
    systems = PREFIXES + "SELECT ?s WHERE { ?s a kg:System } ORDER BY ?s"
    pages = [session.ok("sparql", {"query": systems, "limit": 4, "offset": offset}) for offset in range(0, 400, 4)]
    assert [r["s"].rsplit("/", 1)[1] for p in pages for r in p["rows"]] == sorted(catalog["records"])
    last = next(p for p in pages if not p["has_more"])
    assert last["total"] == len(catalog["records"]) and last["truncated"] is False
    assert "must be at most 10000" in session.error("sparql", {"query": systems, "limit": 10001})


# ---------------------------------------------------------------------------
# errors: unknown ids and bad arguments


def test_unknown_ids_are_tool_errors_not_empty_answers(session):
    assert "no system with id 'no-such--system'" in session.error("related", {"id": "no-such--system"})
    assert "no system" in session.error("compare", {"a": "mem0--mem0-ai", "b": "no-such--system"})
    assert "no system" in session.error("describe-system", {"id": "no-such--system"})
    assert "no system with that id or name" in session.error("substrate-risk", {"system": "zzzz no such name"})
    ambiguous = session.error("substrate-risk", {"system": "memory"})  # several tiny-catalog names hold it
    assert "matches" in ambiguous and "give one of their ids" in ambiguous
    assert "no system" in session.error("show", {"id": "Not An Id"})


def test_bad_arguments_are_tool_errors_that_say_what_the_tool_takes(session):
    assert "needs the argument text" in session.error("search", {})
    assert "it takes: text, section, tier, limit" in session.error("search", {"text": "a", "colour": "red"})
    assert "must be a JSON integer" in session.error("search", {"text": "a", "tier": "one"})
    assert "must be a JSON integer" in session.error("search", {"text": "a", "tier": True})
    assert "not a valid period (expected YYYY, YYYY-Qn" in session.error("recent", {"since": "yesterday"})
    assert "limit must be a whole number of rows" in session.error("search", {"text": "a", "limit": -1})
    assert "offset must be a whole number of rows" in session.error("search", {"text": "a", "offset": "x"})
    assert "needs the argument query" in session.error("sparql", {})
    assert "unknown measure" in session.error("analyze", {"measures": ["fame"]})
    with pytest.raises(MCPError, match="unknown tool"):
        session.call("no-such-tool")


# ---------------------------------------------------------------------------
# describe-system and analyze


def test_describe_system_gives_the_record_its_edges_and_its_centrality(session, catalog):
    inbound = Counter(e["target"] for e in catalog["edges"] if e["source"] != e["target"])
    system = max(sorted(inbound), key=inbound.__getitem__)
    described = session.ok("describe-system", {"id": system})
    assert described["record"] == catalog["records"][system]
    touching = {(e["source"], e["target"], e["type"]) for e in catalog["edges"] if system in (e["source"], e["target"])}
    got = described["edges"]["outgoing"] + described["edges"]["incoming"]
    assert {(e["source"], e["target"], e["type"]) for e in got} == touching
    assert all(e["source"] == system for e in described["edges"]["outgoing"])
    assert described["centrality"]["inboundCount"] == inbound[system]


def test_analyze_ranks_the_top_systems_by_the_first_measure(session, catalog):
    inbound = Counter(e["target"] for e in catalog["edges"] if e["source"] != e["target"])
    result = session.ok("analyze", {"measures": ["inbound", "coreness"], "top": 3})
    assert result["rankedBy"] == "inbound" and len(result["systems"]) == 3
    assert [s["inbound"] for s in result["systems"]] == sorted(inbound.values(), reverse=True)[:3]
    assert result["graph"]["nodes"] == len(catalog["records"])
    assert all("pagerank" not in s for s in result["systems"])
    assert result["has_more"] is True and result["total"] == len(catalog["records"])
    following = session.ok("analyze", {"measures": ["inbound", "coreness"], "top": 3, "offset": 3})
    whole = session.ok("analyze", {"measures": ["inbound", "coreness"], "top": 6})
    assert result["systems"] + following["systems"] == whole["systems"]


# ---------------------------------------------------------------------------
# streamable HTTP (loopback only) and the command line


def test_streamable_http_serves_the_same_tools(store_dir, catalog):
    proc = subprocess.Popen(helpers.kg_command("mcp", "--http", "--port", "0", "--workers", "1",
                                               "--store", str(store_dir)),
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline() if proc.stderr else ""
        found = re.search(r"http://127\.0\.0\.1:\d+/mcp", line)
        assert found, line

        async def talk() -> tuple[set[str], Any, list[str], list[str]]:
            async with Client(found.group(0)) as client:
                tools = await client.list_tools()
                templates = await client.list_resource_templates()
                completed = await client.complete(PromptReference(type="ref/prompt", name="compare-systems"),
                                                  {"name": "system", "value": "mem0"})
                return ({t.name for t in tools.tools}, await client.call_tool("search", {"text": "mem0", "limit": 1}),
                        [t.uri_template for t in templates.resource_templates], completed.completion.values)

        names, result, templates, completed = anyio.run(talk)
        assert names == DEFAULT_TOOLS
        assert not result.is_error and result.structured_content["rows"][0]["id"] == "mem0--mem0-ai"
        assert result.structured_content["has_more"] is True
        assert {"kg://system/{id}", "kg://query/{name}"} <= set(templates)
        assert set(completed) == {i for i, r in catalog["records"].items()
                                  if "mem0" in i or "mem0" in r["name"].lower()}
        # DNS rebinding: a page elsewhere that makes the browser call 127.0.0.1 is turned away
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                      "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                 "clientInfo": {"name": "test", "version": "1"}}}
        accept = {"Accept": "application/json, text/event-stream"}
        foreign_host = httpx.post(found.group(0), json=initialize, headers={**accept, "Host": "evil.example"})
        foreign_origin = httpx.post(found.group(0), json=initialize,
                                    headers={**accept, "Origin": "http://evil.example"})
        assert (foreign_host.status_code, foreign_origin.status_code) == (421, 403)
    finally:
        proc.terminate()
        proc.wait(10)


def test_the_command_needs_an_existing_store(tmp_path, capsys):
    assert main(["mcp", "--store", str(tmp_path / "none")]) == 4
    captured = capsys.readouterr()
    assert "no store at" in captured.err and not captured.out


def test_the_command_without_the_sdk_says_how_to_install_it(store_dir, capsys, monkeypatch):
    for name in [n for n in sys.modules if n.startswith(("mcp.", "kg.mcp.transports", "kg.mcp.server"))]:
        monkeypatch.delitem(sys.modules, name)
    for name in ("transports", "server"):
        monkeypatch.delattr(kg.mcp, name, raising=False)
    monkeypatch.setitem(sys.modules, "mcp", None)  # import mcp now fails, as without the extra
    assert main(["mcp", "--store", str(store_dir)]) == 2
    assert "pip install 'agent-landscape-kg[mcp]'" in capsys.readouterr().err


INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "test", "version": "1"}}}


def _mcp_http(store_dir: Path, *options: str) -> tuple[subprocess.Popen, str]:
    """``python -m kg mcp --http`` on a free port, and its URL."""
    proc = subprocess.Popen(helpers.kg_command("mcp", "--http", "--port", "0", "--workers", "1",
                                               "--store", str(store_dir), *options),
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    line = proc.stderr.readline() if proc.stderr else ""
    found = re.search(r"http://127\.0\.0\.1:(\d+)/mcp", line)
    if not found:
        proc.terminate()
        proc.wait(10)
        raise AssertionError(line)
    return proc, found.group(0)


def _origin_status(url: str, origin: str) -> int:
    reply = httpx.post(url, json=INITIALIZE, timeout=30,
                       headers={"Accept": "application/json, text/event-stream", "Origin": origin})
    return reply.status_code


def test_http_accepts_only_its_own_origin(store_dir):
    """A page served from another port of this machine (http://localhost:OTHER) cannot drive the
    tools; the server's own origin, under each loopback name, can."""
    proc, url = _mcp_http(store_dir)
    try:
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        for other in (f"http://localhost:{port + 1}", f"http://127.0.0.1:{port - 1}", "http://localhost:3000",
                      f"http://[::1]:{port + 7}", f"https://localhost:{port}", "http://localhost", "null"):
            assert _origin_status(url, other) == 403, other
        for own in (f"http://127.0.0.1:{port}", f"http://localhost:{port}", f"http://[::1]:{port}"):
            assert _origin_status(url, own) == 200, own
    finally:
        proc.terminate()
        proc.wait(10)


def test_http_accepts_the_origins_the_user_lists(store_dir):
    proc, url = _mcp_http(store_dir, "--allow-origin", "http://localhost:3000", "--allow-origin",
                          "HTTPS://App.Example/")
    try:
        assert _origin_status(url, "http://localhost:3000") == 200
        assert _origin_status(url, "https://app.example") == 200
        assert _origin_status(url, "http://localhost:3001") == 403
    finally:
        proc.terminate()
        proc.wait(10)
    refused = helpers.kg("mcp", "--http", "--store", str(store_dir), "--allow-origin", "localhost:3000", timeout=60)
    assert refused.returncode == 2 and "--allow-origin" in refused.stderr and "Traceback" not in refused.stderr
