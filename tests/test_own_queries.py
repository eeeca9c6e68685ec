"""Your own named queries (``--queries DIR``, ``KG_QUERIES``): a folder of two ``.rq`` files becomes two
``kg query`` names, two forms (pages and JSON) on ``kg serve`` and two tools of ``kg mcp``, bound by the
same rules as the bundled queries; a bad file is one line naming the file and the line, exit 3.

Each face runs as a user starts it (a ``kg`` process) over the bundled catalog's store; expected
answers come from the catalog's JSON.
"""

from __future__ import annotations

import json
import os
import sys
from functools import partial
from pathlib import Path

import httpx
import pytest

from serving import kg_serve
from helpers import kg

PREFIXES = """PREFIX kg: <https://w3id.org/agent-landscape/ontology#>
PREFIX dcterms: <http://purl.org/dc/terms/>
PREFIX schema: <https://schema.org/>
"""
TIER_NAMES = """# title: Systems of one tier
# question: Which systems have this tier, with their names?
# param: tier (integer) the tier (1 to 5)
# param: limit (limit, optional, default=500) at most this many rows
# returns: id, name
""" + PREFIXES + """SELECT ?id ?name WHERE {
  ?system a kg:System ; kg:tier ?tier ; dcterms:identifier ?id ; schema:name ?name
} ORDER BY ?id
"""
SYSTEM_ID = """# title: The id of a system
# question: Which catalog id has the system of this name?
# param: system (system-name) words of one system's name, or its id
# returns: id
""" + PREFIXES + """SELECT ?id WHERE { ?system dcterms:identifier ?id }
"""
NAMES = ("tier-names", "system-id")


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    found = tmp_path_factory.mktemp("own-queries")
    (found / "tier-names.rq").write_text(TIER_NAMES, encoding="utf-8")
    (found / "system-id.rq").write_text(SYSTEM_ID, encoding="utf-8")
    (found / "notes.txt").write_text("not a query: only .rq files are read", encoding="utf-8")
    return found


@pytest.fixture(scope="module")
def tier_five(expected_records) -> list[tuple[str, str]]:
    found = sorted((rid, r["name"]) for rid, r in expected_records.items() if r["tier"] == 5)
    assert found
    return found


@pytest.fixture(scope="module")
def named(expected_records) -> tuple[str, str]:
    """A record whose name no other record has: (its name, its id)."""
    names = [r["name"] for r in expected_records.values()]
    rid, record = next((rid, r) for rid, r in sorted(expected_records.items())
                       if names.count(r["name"]) == 1 and len(r["name"].split()) > 1)
    return record["name"], rid


# ---------------------------------------------------------------------------
# kg query


def test_kg_query_lists_and_runs_them(bundled_store, folder, tier_five, named):
    store = str(bundled_store.path)
    listed = kg("query", "--list", "--format", "json", "--queries", str(folder), "--store", store)
    assert listed.returncode == 0, listed.stderr
    rows = {row["name"]: row for row in json.loads(listed.stdout)}
    assert set(NAMES) <= set(rows) and "notes" not in rows
    assert rows["tier-names"]["params"] == "tier (integer) [limit (limit, default=500)]"
    assert rows["system-id"]["title"] == "The id of a system"
    bundled = kg("query", "--list", "--format", "json", "--store", store)
    assert len(rows) == len(json.loads(bundled.stdout)) + 2

    ran = kg("query", "tier-names", "--param", "tier=5", "--format", "json", "--queries", str(folder), "--store", store)
    assert ran.returncode == 0, ran.stderr
    assert [(r["id"], r["name"]) for r in json.loads(ran.stdout)] == tier_five
    name, rid = named
    resolved = kg("query", "system-id", "--param", f"system={name}", "--format", "csv", "--queries", str(folder),
                  "--store", store)
    assert resolved.returncode == 0, resolved.stderr
    assert resolved.stdout.split() == ["id", rid]


def test_the_binding_rules_are_the_bundled_ones(bundled_store, folder):
    store = str(bundled_store.path)
    unknown = kg("query", "system-id", "--param", "system=no such system at all", "--queries", str(folder),
                 "--store", store)
    assert unknown.returncode == 6 and "no system with that id or name 'no such system at all'" in unknown.stderr
    missing = kg("query", "tier-names", "--queries", str(folder), "--store", store)
    assert missing.returncode == 2 and "needs --param tier=VALUE (integer)" in missing.stderr
    bad = kg("query", "tier-names", "--param", "tier=five", "--queries", str(folder), "--store", store)
    assert bad.returncode == 2 and "not a valid integer" in bad.stderr
    # the text sent binds the value, as for a bundled query
    text = kg("query", "tier-names", "--param", "tier=5", "--sparql", "--queries", str(folder), "--store", store)
    assert "VALUES" in text.stdout and "5" in text.stdout


def test_kg_queries_names_the_folders(bundled_store, folder, tmp_path, tier_five):
    other = tmp_path / "more"
    other.mkdir()
    (other / "tier-count.rq").write_text("# title: Systems of tier 5\n" + PREFIXES +
                                         "SELECT (COUNT(?s) AS ?n) WHERE { ?s a kg:System ; kg:tier 5 }\n")
    env = {"KG_QUERIES": os.pathsep.join([str(folder), str(other)])}
    ran = kg("query", "tier-count", "--format", "csv", "--store", str(bundled_store.path), env=env)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split() == ["n", str(len(tier_five))]
    # --queries, when given, is what counts
    alone = kg("query", "tier-count", "--queries", str(folder), "--store", str(bundled_store.path), env=env)
    assert alone.returncode == 2 and "unknown query 'tier-count'" in alone.stderr


# each: (file name, text, the line the error names, what it says)
BAD_FILES = [
    ("bad-type.rq", "# title: x\n# question: y\n# param: tier (integr) the tier\n" + PREFIXES
     + "SELECT * WHERE { ?s kg:tier ?tier }\n", 3, "type must be one of"),
    ("not-a-variable.rq", "# title: x\n# param: vendor (string) a vendor\n# param: tier (integer) a tier\n" + PREFIXES
     + "SELECT * WHERE { ?s kg:tier ?tier }\n", 2, "parameter vendor is not a variable of the query"),
    ("bad-default.rq", "# title: x\n# param: tier (integer, optional, default=high) a tier\n" + PREFIXES
     + "SELECT * WHERE { ?s kg:tier ?tier }\n", 2, "'high' is not a valid integer"),
    ("malformed.rq", "# title: x\n" + PREFIXES + "SELECT * WHERE {\n  ?s ?p ?o .\n  FILTR(?o = 1)\n}\n", 7,
     "malformed"),
    ("cut-short.rq", "# title: x\n" + PREFIXES + "SELECT * WHERE {\n  ?s ?p ?o .\n  FILTER(?o = )\n}\n", 8,
     "malformed SPARQL"),
    ("elsewhere.rq", "# title: x\nSELECT * WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } }\n", 1,
     "SERVICE is not allowed"),
    ("search.rq", "# title: mine\nSELECT * WHERE { ?s ?p ?o }\n", 1, "the name 'search' is already a named query's"),
]


@pytest.mark.parametrize("name,text,line,says", BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_a_bad_file_is_one_line_naming_the_file_and_line(bundled_store, tmp_path, name, text, line, says):
    (tmp_path / "good.rq").write_text(TIER_NAMES, encoding="utf-8")
    (tmp_path / name).write_text(text, encoding="utf-8")
    for command in (["query", "--list"], ["serve", "--port", "0"]):
        done = kg(*command, "--queries", str(tmp_path), "--store", str(bundled_store.path))
        assert done.returncode == 3, (command, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
        assert lines[0].startswith(f"kg: error: {tmp_path / name}:{line}: "), lines[0]
        assert says in lines[0], lines[0]


def test_no_such_folder(bundled_store, tmp_path):
    done = kg("query", "--list", "--queries", str(tmp_path / "nowhere"), "--store", str(bundled_store.path))
    assert done.returncode == 3 and "no such folder of queries" in done.stderr


def test_a_query_of_yours_is_guarded_when_it_runs(bundled_store, tmp_path):
    """A FROM naming a graph is checked against the version the query reads (it may be a local graph):
    a remote one is refused, as for any query of the user's."""
    (tmp_path / "remote-from.rq").write_text("# title: x\nSELECT * FROM <http://example.org/elsewhere> "
                                             "WHERE { ?s ?p ?o } LIMIT 1\n", encoding="utf-8")
    done = kg("query", "remote-from", "--queries", str(tmp_path), "--store", str(bundled_store.path))
    assert done.returncode == 2 and "is not a graph of this store" in done.stderr, done.stderr


# ---------------------------------------------------------------------------
# kg serve


def test_kg_serve_gives_each_a_form_a_page_and_json(bundled_store, folder, tier_five, named):
    with kg_serve(bundled_store.path, "--queries", str(folder)) as url:
        home = httpx.get(url + "/", timeout=30).text
        own = home[home.index("<h2>Your queries</h2>"):home.index("<h2>Questions the catalog answers</h2>")]
        assert 'href="/queries/tier-names"' in own and 'href="/queries/system-id"' in own
        assert own.count("<li>") == 2
        form = httpx.get(url + "/queries/tier-names", timeout=30)
        assert form.status_code == 200 and "<h1>Systems of one tier</h1>" in form.text
        assert 'name="tier"' in form.text and 'type="number"' in form.text and 'name="limit"' in form.text
        page = httpx.get(url + "/queries/tier-names", params={"tier": "5", "run": "1"}, timeout=30).text
        assert f'id="count">{len(tier_five)} rows<' in page
        answer = httpx.get(url + "/queries/tier-names", params={"tier": "5", "run": "1", "format": "json"},
                           timeout=30).json()
        assert [(b["id"]["value"], b["name"]["value"]) for b in answer["results"]["bindings"]] == tier_five
        name, rid = named
        resolved = httpx.get(url + "/queries/system-id", params={"system": name, "run": "1", "format": "csv"},
                             timeout=30)
        assert resolved.status_code == 200 and resolved.text.split() == ["id", rid]
        unknown = httpx.get(url + "/queries/system-id", params={"system": "no such system at all", "run": "1",
                                                                 "format": "json"}, timeout=30)
        assert unknown.status_code == 404


# ---------------------------------------------------------------------------
# kg mcp


def test_kg_mcp_makes_each_a_tool(bundled_store, folder, tier_five):
    from anyio.from_thread import start_blocking_portal
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "kg", "mcp", "--store", str(bundled_store.path),
                                                                 "--queries", str(folder)])
    with start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(Client(params, mode="legacy")) as client:
            tools = {t.name: t for t in portal.call(client.list_tools).tools}
            assert set(NAMES) <= set(tools)
            assert {"tier", "limit"} <= set(tools["tier-names"].input_schema["properties"])
            result = portal.call(partial(client.call_tool, "tier-names", {"tier": 5}))
            assert not result.is_error, result.content[0].text
            rows = result.structured_content["rows"]
            assert [(r["id"], r["name"]) for r in rows] == tier_five


# ---------------------------------------------------------------------------
# the library


def test_a_folder_is_registered_once_and_never_shadows(folder, tmp_path):
    from kg.errors import SourceError
    from kg.queries import QUERIES_DIR, Folder, Registry, use_folders

    registry = Registry([Folder(QUERIES_DIR, trusted=True)])
    assert len(use_folders([folder], registry)) == 1
    assert use_folders([folder], registry) == []  # the same folder again: left as it is
    query = registry.load("tier-names")
    assert not query.trusted and [p.name for p in query.params] == ["tier", "limit"]
    again = tmp_path / "again"
    again.mkdir()
    (again / "tier-names.rq").write_text(TIER_NAMES, encoding="utf-8")
    taken = r"again/tier-names.rq:1: the name 'tier-names' is already a named query's \(in .*own-queries"
    with pytest.raises(SourceError, match=taken):
        use_folders([again], registry)
