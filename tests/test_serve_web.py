"""The web face of ``kg serve`` (issue 40): errors as pages for browsers (JSON for the others),
paging of the pages and their JSON (never a 422 where a first page can be shown), the ontology,
the service description, the VoID description and the dump, and the editor's files from this
origin. In-process (Starlette's test client) over the bundled catalog; expected answers from the
catalog's JSON or written here by hand."""

from __future__ import annotations

import html
import json
import re
from urllib.parse import urlencode

import pytest
from pyoxigraph import RdfFormat, parse

BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
KG = "https://w3id.org/agent-landscape/ontology#"
NAMES = ("PREFIX kg: <https://w3id.org/agent-landscape/ontology#> PREFIX schema: <https://schema.org/> "
         "SELECT ?name WHERE { ?s a kg:System ; schema:name ?name } ORDER BY ?name")
MAX_ROWS = 300


@pytest.fixture(scope="module")
def client(bundled_store):
    from starlette.testclient import TestClient

    from kg.serve import create_app

    app = create_app(bundled_store.path, workers=1, allowed_hosts=("testserver",), max_rows=MAX_ROWS)
    with TestClient(app) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def names(expected_records) -> list[str]:
    return sorted(r["name"] for r in expected_records.values())


# ---------------------------------------------------------------------------
# Errors


@pytest.mark.parametrize("method,path,status", [
    ("GET", "/id/system/no-such-system", 404), ("GET", "/nowhere", 404), ("GET", "/queries/no-such-query", 404),
    ("DELETE", "/sparql", 405), ("GET", "/sparql?" + urlencode({"query": "SELEC ?x"}), 400),
    ("GET", "/sparql?" + urlencode({"query": "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }"}), 422),
])
def test_every_error_is_a_page_for_a_browser_and_json_for_the_others(client, method, path, status):
    page = client.request(method, path, headers={"Accept": BROWSER})
    assert page.status_code == status and page.headers["content-type"].startswith("text/html")
    assert f"<h1>{status} " in page.text and '<a href="/id/system/">Systems</a>' in page.text
    assert "default-src 'none'" in page.headers["content-security-policy"]
    for accept in ("*/*", "application/json"):
        answer = client.request(method, path, headers={"Accept": accept})
        assert answer.status_code == status and answer.headers["content-type"] == "application/json"
        assert set(answer.json()) >= {"error", "message"}
    if status == 405:
        assert page.headers["allow"] == "GET, HEAD, POST, OPTIONS"


def test_a_query_error_page_keeps_the_query(client):
    bad = 'SELECT ?x WHERE { ?x ?y "</textarea><script>alert(1)</script>" }}'
    page = client.post("/sparql", data={"query": bad}, headers={"Accept": BROWSER})
    assert page.status_code == 400
    assert f'aria-label="SPARQL query">{html.escape(bad)}</textarea>' in page.text and "<script>alert" not in page.text


# ---------------------------------------------------------------------------
# Paging


def test_a_query_past_the_row_cap_shows_its_first_page(client, names):
    """From the page (HTML), more rows than --max-rows: the first page and a next link, not a 422;
    the pages together are the whole answer. A script still gets the 422 (never cut short)."""
    assert len(names) > MAX_ROWS
    seen, url = [], "/sparql?" + urlencode({"query": NAMES, "format": "html"})
    first = client.get(url, headers={"Accept": BROWSER})
    assert first.status_code == 200 and 'rel="next"' in first.text
    while url:
        page = client.get(url, headers={"Accept": BROWSER})
        assert page.status_code == 200
        seen += [html.unescape(c) for c in re.findall(r"<tr><td>([^<]*)</td></tr>", page.text)]
        found = re.search(r'<a href="(\?[^"]+)" rel="next">', page.text)
        url = "/sparql" + html.unescape(found.group(1)) if found else None
    assert seen == names[:MAX_ROWS - 1]  # the rows the server reads of one answer, page by page
    assert "past the most this server reads" in page.text
    assert client.get("/sparql?" + urlencode({"query": NAMES}), headers={"Accept": "text/csv"}).status_code == 422


def test_a_named_query_is_paged_with_link_headers(client, expected_records):
    tier_one = sorted((r["name"].lower(), i) for i, r in expected_records.items() if r["tier"] == 1)
    ids, url = [], "/queries/find?" + urlencode({"tier": "1", "run": "1", "format": "json", "limit": "40"})
    while url:
        answer = client.get(url)
        assert answer.status_code == 200 and len(answer.json()["results"]["bindings"]) <= 40
        ids += [b["id"]["value"] for b in answer.json()["results"]["bindings"]]
        link = answer.headers.get("link", "")
        found = re.search(r'<(\?[^>]+)>; rel="next"', link)
        url = "/queries/find" + found.group(1) if found else None
    assert sorted(ids) == sorted(i for _, i in tier_one) and len(ids) == len(set(ids))


# ---------------------------------------------------------------------------
# Linked data


@pytest.mark.parametrize("accept,fmt", [("text/turtle", RdfFormat.TURTLE), ("application/rdf+xml", RdfFormat.RDF_XML),
                                        ("application/n-triples", RdfFormat.N_TRIPLES),
                                        ("application/ld+json", RdfFormat.JSON_LD)])
def test_the_ontology_dereferences_in_every_format(client, accept, fmt):
    from kg.vocab import ONTOLOGY_FILE

    answer = client.get("/ontology", headers={"Accept": accept})
    assert answer.status_code == 200 and answer.headers["content-type"].startswith(accept)
    want = set(parse(path=str(ONTOLOGY_FILE), format=RdfFormat.TURTLE))
    got = set(parse(answer.content, format=fmt))
    assert {t for t in got if not _blank(t)} == {t for t in want if not _blank(t)}


def _blank(triple) -> bool:
    return any(type(term).__name__ == "BlankNode" for term in (triple.subject, triple.object))


def test_the_ontology_page_has_every_term_at_its_anchor_and_system_pages_link_there(client, expected_records):
    page = client.get("/ontology", headers={"Accept": BROWSER}).text
    for term in ("System", "tier", "supportsProtocol", "MCP"):
        assert f'<section class="term" id="{term}">' in page
    system = sorted(expected_records)[0]
    shown = client.get(f"/id/system/{system}", headers={"Accept": BROWSER}).text
    assert '<a href="/ontology#tier">' in shown and f'href="{KG}tier"' not in shown
    for hidden in ("search text", "protocol support text", "taxonomy text"):
        assert f">{hidden}<" not in shown


def test_the_service_description_names_the_dataset_and_its_graphs(client, bundled_store):
    graphs = {g.value for g in bundled_store.named_graphs()}
    for accept, fmt in (("text/turtle", RdfFormat.TURTLE), ("application/ld+json", RdfFormat.JSON_LD)):
        answer = client.get("/sparql", headers={"Accept": accept})
        assert answer.status_code == 200 and answer.headers["content-type"].startswith(accept)
        triples = list(parse(answer.content, format=fmt))
        sd = "http://www.w3.org/ns/sparql-service-description#"
        named = {t.object.value for t in triples if t.predicate.value == sd + "name"}
        assert named == graphs
        dataset = {t.object.value for t in triples if t.predicate.value == sd + "defaultDataset"}
        assert dataset == {"https://w3id.org/agent-landscape/id/dataset"}
        assert any(t.object.value == "http://testserver/.well-known/void" for t in triples)


def test_well_known_void_and_the_dump(client, bundled_store):
    answer = client.get("/.well-known/void", headers={"Accept": "text/turtle"})
    assert answer.status_code == 200
    triples = list(parse(answer.content, format=RdfFormat.TURTLE))
    said = {(t.predicate.value.rsplit("#", 1)[-1], t.object.value) for t in triples
            if t.subject.value == "https://w3id.org/agent-landscape/id/dataset"}
    assert ("sparqlEndpoint", "http://testserver/sparql") in said and ("dataDump", "http://testserver/store") in said
    assert ("license", "https://creativecommons.org/licenses/by/4.0/") in {(p.rsplit("/", 1)[-1], o) for p, o in said}
    dump = client.get("/store", headers={"Accept": "application/n-quads"})
    assert dump.status_code == 200 and dump.headers["content-type"] == "application/n-quads"
    assert 'rel="license"' in dump.headers["link"]
    assert len(set(parse(dump.content, format=RdfFormat.N_QUADS))) == len(bundled_store)


# ---------------------------------------------------------------------------
# The editor's files


def test_the_editor_is_served_from_this_origin_under_a_strict_policy(client):
    home = client.get("/", headers={"Accept": BROWSER})
    csp = home.headers["content-security-policy"]
    assert "script-src 'self';" in csp and "unsafe-eval" not in csp and "connect-src 'self'" in csp
    sources = re.findall(r'(?:src|href)="([^"]+)"', home.text)
    assert all(s.startswith(("/", "?", "#")) for s in sources), sources
    config = json.loads(html.unescape(re.search(r'data-config="([^"]+)"', home.text).group(1)))
    assert config["prefixes"]["kg"] == KG and KG + "tier" in config["properties"] and KG + "System" in config["classes"]
    assert '<textarea name="query"' in home.text  # the form without script
    for path, kind in (("/static/yasgui/yasgui.min.js", "text/javascript"), ("/static/yasgui/yasgui.min.css", "text/css"),
                       ("/static/editor.js", "text/javascript"), ("/static/yasgui/LICENSE.txt", "text/plain")):
        answer = client.get(path)
        assert answer.status_code == 200 and answer.headers["content-type"].startswith(kind), path
        assert path.endswith(".txt") or b"sourceMappingURL" not in answer.content  # no map to fetch
    assert client.get("/static/../routes.py").status_code == 404
    assert client.get("/static/nothing.js").status_code == 404


# ---------------------------------------------------------------------------
# Negotiation: the site's address, the VoID page, N3


SD = "http://www.w3.org/ns/sparql-service-description#"


@pytest.mark.parametrize("accept,fmt", [("text/turtle", RdfFormat.TURTLE), ("application/ld+json", RdfFormat.JSON_LD),
                                        ("application/n-triples", RdfFormat.N_TRIPLES)])
def test_the_site_address_answers_the_service_description_to_rdf(client, bundled_store, accept, fmt):
    """``/`` is the query page for a browser (and for ``*/*``), the service description for a client
    that asks for RDF: the site's address is the service, its endpoint ``/sparql``."""
    answer = client.get("/", headers={"Accept": accept})
    assert answer.status_code == 200 and answer.headers["content-type"].startswith(accept)
    assert "Accept" in answer.headers["vary"].split(", ")
    triples = list(parse(answer.content, format=fmt))
    endpoints = {(t.subject.value, t.object.value) for t in triples if t.predicate.value == SD + "endpoint"}
    assert endpoints == {("http://testserver/", "http://testserver/sparql")}
    assert {t.object.value for t in triples if t.predicate.value == SD + "name"} == {
        g.value for g in bundled_store.named_graphs()}
    for page_accept in (BROWSER, "*/*", None):
        page = client.get("/", headers={"Accept": page_accept} if page_accept else {})
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html"), page_accept


def test_well_known_void_as_a_page(client):
    """``/.well-known/void`` for a browser: a page of the same statements as its Turtle."""
    page = client.get("/.well-known/void", headers={"Accept": BROWSER})
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "default-src 'none'" in page.headers["content-security-policy"]
    turtle = list(parse(client.get("/.well-known/void", headers={"Accept": "text/turtle"}).content,
                        format=RdfFormat.TURTLE))
    text = html.unescape(page.text)
    dataset = "https://w3id.org/agent-landscape/id/dataset"
    assert f"<code>{dataset}</code>" in text and "<h2>The dataset</h2>" in text
    for t in turtle:
        if t.subject.value == dataset and not t.object.value.startswith("_:"):
            assert t.object.value in text or t.object.value.rsplit("/", 1)[-1] in text, t
    assert 'href="http://testserver/sparql"' in text and 'href="http://testserver/store"' in text
    assert client.get("/.well-known/void?format=html").status_code == 200


def test_n3_is_served_as_turtle(client, expected_records):
    system = sorted(expected_records)[0]
    turtle = client.get(f"/id/system/{system}", headers={"Accept": "text/turtle"})
    n3 = client.get(f"/id/system/{system}", headers={"Accept": "text/n3"})
    assert n3.status_code == 200 and n3.headers["content-type"] == "text/turtle; charset=utf-8"
    assert set(parse(n3.content, format=RdfFormat.TURTLE)) == set(parse(turtle.content, format=RdfFormat.TURTLE))
    assert client.get("/ontology", headers={"Accept": "text/n3"}).headers["content-type"].startswith("text/turtle")


# ---------------------------------------------------------------------------
# What a page of rows says, and what it leaves to the docs


def test_a_page_says_which_rows_of_how_many(client, find_oracle):
    """A 250-row answer's first page says "rows 1-100 of 250", not "100 row(s)"."""
    query = (f"PREFIX kg: <{KG}> SELECT ?s WHERE {{ ?s a kg:System }} ORDER BY ?s LIMIT 250")
    first = client.get("/sparql?" + urlencode({"query": query}), headers={"Accept": BROWSER}).text
    assert '<p class="muted" id="count">rows 1&ndash;100 of 250</p>' in first
    last = client.get("/sparql?" + urlencode({"query": query, "offset": "200"}), headers={"Accept": BROWSER}).text
    assert '<p class="muted" id="count">rows 201&ndash;250 of 250</p>' in last
    # a named query without a limit of its own: its rows counted past the page
    open_source = sum(1 for f in find_oracle.facts if f["open"])
    named = client.get("/queries/open-source-systems?run=1", headers={"Accept": BROWSER}).text
    assert f'<p class="muted" id="count">rows 1&ndash;100 of {open_source}</p>' in named
    # one page holds them all
    small = client.get("/queries/protocol-adoption?run=1", headers={"Accept": BROWSER}).text
    assert re.search(r'<p class="muted" id="count">\d+ rows</p>', small)


def test_pages_leave_the_benchmark_notes_to_the_docs(client):
    from kg.queries import load

    find = load("find")
    assert find.cost  # the query has its note...
    page = client.get("/queries/find", headers={"Accept": BROWSER}).text
    assert "Cost:" not in page and html.escape(find.cost[:40]) not in page  # ...the page does not show it
