"""kg serve: the SPARQL 1.1 Protocol endpoint and the linked-data pages, on the real catalog.

The server runs in-process on 127.0.0.1, port 0, over an on-disk store built from the
bundled catalog plus one hostile record (markup in its name, javascript:/file: IRIs).
Expected answers come from the JSON files, never from SPARQL. Two clients talk to it:
SPARQLWrapper and rdflib's SPARQLStore.
"""

from __future__ import annotations

import copy
import gc
import http.client
import json
import os
import re
import signal
import subprocess
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
import rdflib
from pyoxigraph import Literal, NamedNode, Quad
from rdflib.plugins.stores.sparqlstore import SPARQLStore
from SPARQLWrapper import CSV, JSON, POST, POSTDIRECTLY, TSV, XML, SPARQLWrapper
from SPARQLWrapper.SPARQLExceptions import QueryBadFormed

from kg.errors import UsageError
from kg.ingestion import ingest_paths
from kg.serve import make_server
from kg.store import GraphStore
from kg.vocab import KG, SCHEMA, Iris
from kg.validation.upkeep import validated_now
from helpers import kg_command

ROOT = Path(__file__).resolve().parent.parent
HOSTILE_ID = "zz-hostile--example-org"
ANALYSED_ID = "mem0--mem0-ai"  # the one system given an analysis value in the test store
HOSTILE_NAME = '<script>alert("x")</script> & Co'
HOSTILE_VALUE = "<img src=x onerror=alert(3)>"
TOKEN = "s3cret-token-for-tests-0123456789"
PREFIXES = ("PREFIX kg: <https://w3id.org/agent-landscape/ontology#>\n"
            "PREFIX schema: <https://schema.org/>\nPREFIX dcterms: <http://purl.org/dc/terms/>\n")
CARTESIAN = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"


# ---------------------------------------------------------------------------
# fixtures


@pytest.fixture(scope="module")
def hostile_record(site_catalog) -> dict:
    record = copy.deepcopy(site_catalog["records"][0])
    record["id"] = HOSTILE_ID
    record["name"] = HOSTILE_NAME
    record["url"] = "javascript:alert(2)"
    slug = sorted(record["cells"])[0]
    record["cells"][slug].update(value=HOSTILE_VALUE, citation="javascript:alert(1)", tier="T3")
    return record


@pytest.fixture(scope="module")
def expected(expected_records, hostile_record) -> dict[str, dict]:
    return {**expected_records, HOSTILE_ID: hostile_record}


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory, bundled_store, hostile_record, iris, expected_records) -> Path:
    """Bundled catalog + the hostile record + a javascript: and a file: IRI + one analysis value
    (the hostile record ingested into a snapshot of the session's bundled store)."""
    assert ANALYSED_ID in expected_records
    folder = tmp_path_factory.mktemp("serve")
    source = folder / "hostile.json"
    source.write_text(json.dumps({"records": [hostile_record]}), encoding="utf-8")
    path = folder / "store"
    bundled_store.backup(path)  # in milliseconds
    store = GraphStore(path)
    report = ingest_paths(store, [str(source)], keep_invalid=True)  # its javascript: url breaks SystemUrl
    assert not report.quarantined
    hostile, graph = iris.system(HOSTILE_ID), iris.record_graph(HOSTILE_ID)
    store.replace_graphs({iris.analysis_graph: [
        Quad(iris.system(ANALYSED_ID), KG.betweenness, Literal(0.4242), iris.analysis_graph)]},
        additions=[Quad(hostile, KG.citation, NamedNode("javascript:alert(4)"), graph),
                   Quad(hostile, KG.citation, NamedNode("file:///etc/passwd"), graph)])
    store.flush()
    validated_now(store, iris)  # its findings kept now, as an ingest keeps them: no page validates it in 4 s
    del store
    gc.collect()
    return path


@pytest.fixture(scope="module")
def app(store_dir):
    server = make_server(store_dir, port=0, workers=3, timeout=4, max_rows=2000)
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def endpoint(app) -> str:
    return app.url + "/sparql"


def fetch(url: str, *, accept: str | None = None, data: bytes | None = None, ctype: str | None = None,
          headers: dict | None = None, method: str | None = None) -> tuple[int, Any, bytes]:
    request = urllib.request.Request(url, data=data, method=method)
    if accept:
        request.add_header("Accept", accept)
    if ctype:
        request.add_header("Content-Type", ctype)
    for k, v in (headers or {}).items():
        request.add_header(k, v)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.headers, response.read()  # names in any case
    except urllib.error.HTTPError as err:
        return err.code, err.headers, err.read()


def get_query(endpoint: str, query: str, accept: str | None = None, **params: str) -> tuple[int, Any, bytes]:
    return fetch(endpoint + "?" + urllib.parse.urlencode({"query": query, **params}), accept=accept)


def wrapper(endpoint: str, query: str, fmt: str = JSON, method: str = "GET", direct: bool = False):
    sparql = SPARQLWrapper(endpoint)
    sparql.setTimeout(60)
    sparql.setQuery(query)
    sparql.setReturnFormat(fmt)
    if method == POST:
        sparql.setMethod(POST)
        if direct:
            sparql.setRequestMethod(POSTDIRECTLY)
    return sparql.query()


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.tags: Counter = Counter()
        self.srcs: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags[tag] += 1
        for name, value in attrs:
            if name == "href":
                self.hrefs.append(value or "")
            if name == "src":
                self.srcs.append(value or "")


def links(body: bytes) -> Links:
    parser = Links()
    parser.feed(body.decode("utf-8"))
    return parser


def tier_one_names(expected: dict) -> set[str]:
    return {r["name"] for r in expected.values() if r["tier"] == 1}


TIER_ONE = PREFIXES + "SELECT ?name WHERE { ?s a kg:System ; kg:tier 1 ; schema:name ?name }"


# ---------------------------------------------------------------------------
# SPARQL protocol, two clients


def test_binds_loopback_by_default(store_dir):
    app = make_server(store_dir, port=0)
    try:
        assert app.config.host == "127.0.0.1"
        assert app.socket.getsockname()[0] == "127.0.0.1"
    finally:
        app.stop()


@pytest.mark.parametrize("method,direct", [("GET", False), (POST, False), (POST, True)])
def test_select_json_by_get_and_both_posts(endpoint, expected, method, direct):
    result = wrapper(endpoint, TIER_ONE, JSON, method, direct).convert()
    names = {b["name"]["value"] for b in result["results"]["bindings"]}
    assert names == tier_one_names(expected)
    assert len(result["results"]["bindings"]) == sum(1 for r in expected.values() if r["tier"] == 1)


def test_select_xml_csv_tsv(endpoint, expected):
    want = tier_one_names(expected)
    document = wrapper(endpoint, TIER_ONE, XML).convert()
    xml_names = {node.firstChild.firstChild.data for node in document.getElementsByTagName("binding")}
    assert xml_names == want
    csv_lines = wrapper(endpoint, TIER_ONE, CSV).convert().decode("utf-8").splitlines()
    assert csv_lines[0] == "name"
    import csv as csv_module

    assert {row[0] for row in csv_module.reader(csv_lines[1:])} == want
    tsv_lines = wrapper(endpoint, TIER_ONE, TSV).convert().decode("utf-8").splitlines()
    assert tsv_lines[0] == "?name"
    assert {json.loads(line) for line in tsv_lines[1:]} == want  # TSV writes terms: "..." literals


def test_ask(endpoint, expected):
    some_id = sorted(expected)[0]
    yes = wrapper(endpoint, PREFIXES + f'ASK {{ ?s dcterms:identifier "{some_id}" }}').convert()
    no = wrapper(endpoint, PREFIXES + 'ASK { ?s dcterms:identifier "no-such-system" }').convert()
    assert yes["boolean"] is True and no["boolean"] is False


@pytest.mark.parametrize("accept,rdflib_format", [("text/turtle", "turtle"), ("application/ld+json", "json-ld"),
                                                  ("application/n-triples", "nt"),
                                                  ("application/rdf+xml", "xml")])
def test_construct_formats(endpoint, expected, accept, rdflib_format):
    query = PREFIXES + "CONSTRUCT { ?s schema:name ?name } WHERE { ?s a kg:System ; schema:name ?name }"
    status, headers, body = get_query(endpoint, query, accept)
    assert status == 200 and headers["Content-Type"].startswith(accept)
    graph = rdflib.Graph().parse(data=body, format=rdflib_format)
    assert {str(o) for o in graph.objects()} == {r["name"] for r in expected.values()}
    assert len(graph) == len(expected)


def test_rdflib_sparqlstore_second_client(endpoint, expected):
    for fmt in ("xml", "json"):
        graph = rdflib.Graph(store=SPARQLStore(query_endpoint=endpoint, returnFormat=fmt))
        rows = graph.query(PREFIXES + "SELECT ?id WHERE { ?s a kg:System ; dcterms:identifier ?id }")
        assert {str(row[0]) for row in rows} == set(expected)
    graph = rdflib.Graph(store=SPARQLStore(query_endpoint=endpoint, method="POST_FORM"))
    result = graph.query(PREFIXES + "CONSTRUCT { ?s kg:tier ?t } WHERE { ?s a kg:System ; kg:tier ?t }")
    tiers = Counter(int(o) for o in result.graph.objects())
    assert tiers == Counter(r["tier"] for r in expected.values())


def test_edges_counts_match_the_edges_file(endpoint, edges_file):
    rows = wrapper(endpoint, PREFIXES + "SELECT ?type (COUNT(*) AS ?n) WHERE { ?r a kg:Relation ; kg:edgeType ?type } "
                                        "GROUP BY ?type").convert()["results"]["bindings"]
    assert {b["type"]["value"]: int(b["n"]["value"]) for b in rows} == dict(
        Counter(e["type"] for e in edges_file["edges"]))


def test_malformed_query_is_400(endpoint):
    with pytest.raises(QueryBadFormed):
        wrapper(endpoint, "SELECT ?x WHERE { ?x ?p ").convert()
    status, headers, body = get_query(endpoint, "SELECT ?x WHERE { ?x ?p ")
    assert status == 400 and headers["Content-Type"] == "application/json"
    assert json.loads(body)["error"] in ("refused", "malformed-query")


def test_unsupported_media_type_is_415_and_unacceptable_406(endpoint):
    status, _, body = fetch(endpoint, data=b"SELECT * WHERE { ?s ?p ?o } LIMIT 1", ctype="text/plain")
    assert status == 415 and json.loads(body)["error"] == "unsupported-media-type"
    status, _, body = fetch(endpoint, data=b"--x--", ctype="multipart/form-data; boundary=x")
    assert status == 415
    status, _, _ = get_query(endpoint, "SELECT * WHERE { ?s ?p ?o } LIMIT 1", "image/png")
    assert status == 406
    # a CONSTRUCT whose Accept names only result types gets the default RDF format, never a 406
    status, headers, _ = get_query(endpoint, "CONSTRUCT WHERE { ?s ?p ?o } LIMIT 1", "text/csv")
    assert status == 200 and headers["Content-Type"].startswith("text/turtle")


def test_format_parameter_and_html_results(endpoint, expected):
    status, headers, body = get_query(endpoint, PREFIXES + f'SELECT ?name WHERE {{ ?s dcterms:identifier '
                                      f'"{HOSTILE_ID}" ; schema:name ?name }}', format="html")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    text = body.decode("utf-8")
    assert "<script" not in text.lower() and "&lt;script&gt;" in text
    status, headers, body = get_query(endpoint, TIER_ONE, "text/html", format="csv")
    assert status == 200 and headers["Content-Type"].startswith("text/csv")


def test_update_text_on_the_query_endpoint_is_refused(endpoint):
    status, _, body = get_query(endpoint, 'INSERT DATA { <https://e.org/s> <https://e.org/p> "x" }')
    assert status == 400
    status, _, body = fetch(endpoint, data=b"update=DROP+ALL", ctype="application/x-www-form-urlencoded")
    assert status == 403 and json.loads(body)["error"] == "read-only"
    status, _, _ = fetch(endpoint.replace("/sparql", "/update"), data=b"update=DROP+ALL",
                         ctype="application/x-www-form-urlencoded")
    assert status == 403


# ---------------------------------------------------------------------------
# The guard: SERVICE, remote FROM, unparsable text


def test_the_listener_would_see_a_service_call(listener):
    """Control: pyoxigraph on its own does reach the network for SERVICE."""
    from pyoxigraph import Store

    url, hits = listener
    list(Store().query(f"SELECT * WHERE {{ SERVICE SILENT <{url}> {{ ?s ?p ?o }} }}"))
    assert hits


SERVICE_FORMS = [
    "SELECT * WHERE {{ SERVICE <{url}> {{ ?s ?p ?o }} }}",
    "select * where {{ service <{url}> {{ ?s ?p ?o }} }}",
    "SELECT * WHERE {{ SERVICE SILENT <{url}> {{ ?s ?p ?o }} }}",
    "SELECT * WHERE {{ BIND(<{url}> AS ?e) SERVICE ?e {{ ?s ?p ?o }} }}",
    "SELECT * WHERE {{ {{ SELECT ?s WHERE {{ SERVICE SILENT <{url}> {{ ?s ?p ?o }} }} }} }}",
    "SELECT * WHERE {{ ?s ?p ?o FILTER EXISTS {{ SERVICE SILENT <{url}> {{ ?s ?p ?o }} }} }} LIMIT 1",
    "SELECT * WHERE {{ ?s ?p ?o FILTER NOT EXISTS {{ SERVICE SILENT <{url}> {{ ?s ?p ?o }} }} }} LIMIT 1",
    "ASK {{ OPTIONAL {{ SERVICE SILENT <{url}> {{ ?s ?p ?o }} }} }}",
    "CONSTRUCT {{ ?s ?p ?o }} WHERE {{ {{ SERVICE SILENT <{url}> {{ ?s ?p ?o }} }} UNION {{ ?s ?p ?o }} }} LIMIT 1",
    "PREFIX r: <{url}> SELECT * WHERE {{ SERVICE SILENT r: {{ ?s ?p ?o }} }}",
    "SELECT * WHERE {{ SeRvIcE#comment\n<{url}> {{ ?s ?p ?o }} }}",
    "SELECT * WHERE {{ ?s ?p ?o LATERAL {{ SERVICE SILENT <{url}> {{ ?s ?p ?x }} }} }} LIMIT 1",
]


@pytest.mark.parametrize("form", SERVICE_FORMS)
def test_service_is_refused_before_evaluation(endpoint, listener, form):
    url, hits = listener
    status, _, body = get_query(endpoint, form.format(url=url))
    assert status == 400
    assert json.loads(body)["error"] == "refused"
    assert hits == []


def test_remote_from_is_refused_and_local_from_works(endpoint, listener, iris, edges_file):
    url, hits = listener
    for query in (f"SELECT * FROM <{url}> WHERE {{ ?s ?p ?o }}",
                  f"SELECT * FROM NAMED <{url}> WHERE {{ GRAPH ?g {{ ?s ?p ?o }} }}",
                  f"select * from <{url}> where {{ ?s ?p ?o }}"):
        status, _, body = get_query(endpoint, query)
        assert status == 400 and "FROM" in json.loads(body)["message"]
    status, _, _ = get_query(endpoint, "SELECT * WHERE { ?s ?p ?o } LIMIT 1", **{"default-graph-uri": url})
    assert status == 400
    assert hits == []
    count = PREFIXES + "SELECT (COUNT(*) AS ?n) {from} WHERE {{ ?r a kg:Relation }}"
    result = wrapper(endpoint, count.format(from_=None, **{"from": f"FROM {iris.edges_graph}"})).convert()
    assert int(result["results"]["bindings"][0]["n"]["value"]) == len(edges_file["edges"])
    # the record graph of one system as the default graph: no relation in it
    status, _, body = get_query(endpoint, count.format(**{"from": ""}), "application/sparql-results+json",
                                **{"default-graph-uri": iris.record_graph(ANALYSED_ID).value})
    assert status == 200 and json.loads(body)["results"]["bindings"][0]["n"]["value"] == "0"


def test_what_rdflib_cannot_parse_is_refused(endpoint):
    # Valid for pyoxigraph (LATERAL, RDF 1.2 triple terms) but not for rdflib: fail closed.
    for query in ("SELECT * WHERE { ?s ?p ?o LATERAL { SELECT ?x WHERE { ?s ?p ?x } LIMIT 1 } } LIMIT 1",
                  "SELECT * WHERE { ?s ?p <<( ?a ?b ?c )>> }"):
        status, _, body = get_query(endpoint, query)
        assert status == 400 and json.loads(body)["error"] == "refused"


# ---------------------------------------------------------------------------
# Limits: time, rows, request size


def test_timeout_while_twenty_clients_keep_being_answered(app, endpoint, expected):
    count = PREFIXES + "SELECT (COUNT(*) AS ?n) WHERE { ?s a kg:System }"
    slow: dict = {}

    def pathological() -> None:
        slow["status"], slow["headers"], slow["body"] = get_query(endpoint, CARTESIAN)

    slow_thread = threading.Thread(target=pathological)
    slow_thread.start()
    answers: list[list[tuple[int, bytes, bool]]] = [[] for _ in range(20)]

    def client(i: int) -> None:
        while True:
            status, _, body = get_query(endpoint, count, "application/sparql-results+json")
            running = slow_thread.is_alive()
            answers[i].append((status, body, running))
            if not running:
                return

    clients = [threading.Thread(target=client, args=(i,)) for i in range(20)]
    for thread in clients:
        thread.start()
    for thread in clients + [slow_thread]:
        thread.join(120)
    assert slow["status"] == 504
    assert slow["headers"]["Content-Type"] == "application/json"
    assert json.loads(slow["body"])["error"] == "timeout"
    for replies in answers:
        assert any(running for _, _, running in replies), "a client got no answer while the slow query ran"
        for status, body, _ in replies:
            assert status == 200
            assert json.loads(body)["results"]["bindings"][0]["n"]["value"] == str(len(expected))
    # the killed worker is replaced
    for _ in range(600):
        health = json.loads(fetch(app.url + "/health")[2])
        if health["idle"] == health["workers"]:
            break
        threading.Event().wait(0.1)
    assert health["idle"] == health["workers"] == 3 and health["replaced"] >= 1


def test_row_limit_is_an_error_never_a_silent_truncation(endpoint, expected):
    systems = PREFIXES + "SELECT ?s WHERE { ?s a kg:System }"
    rows = wrapper(endpoint, systems).convert()["results"]["bindings"]
    assert len(rows) == len(expected)  # under the limit of 2000: complete
    cells = PREFIXES + "SELECT ?c WHERE { ?s kg:cell ?c }"
    status, _, body = get_query(endpoint, cells, "application/sparql-results+json")
    assert sum(len(r["cells"]) for r in expected.values()) > 2000
    assert status == 422 and json.loads(body)["error"] == "result-too-large"
    status, _, body = get_query(endpoint, PREFIXES + "CONSTRUCT WHERE { ?s kg:cell ?c }", "text/turtle")
    assert status == 422 and json.loads(body)["maxRows"] == 2000
    status, _, body = get_query(endpoint, cells + " LIMIT 2000", "text/csv")
    assert status == 200 and len(body.decode().splitlines()) == 2001


def test_request_size_limits(app, endpoint):
    host, port = app.socket.getsockname()[:2]
    connection = http.client.HTTPConnection(host, port, timeout=30)
    connection.putrequest("POST", "/sparql")
    connection.putheader("Content-Type", "application/sparql-query")
    connection.putheader("Content-Length", str(app.config.max_request_bytes + 1))
    connection.endheaders()
    response = connection.getresponse()
    assert response.status == 413 and json.loads(response.read())["error"] == "request-too-large"
    connection.close()
    long_query = "SELECT * WHERE { ?s ?p ?o } #" + "x" * 70_000
    status, _, _ = fetch(endpoint, data=long_query.encode(), ctype="application/sparql-query")
    assert status == 413
    status, _, _ = get_query(endpoint, "SELECT * WHERE { ?s ?p ?o } #" + "x" * 20_000)
    assert status == 414
    connection = http.client.HTTPConnection(host, port, timeout=30)
    connection.putrequest("POST", "/sparql")
    connection.putheader("Content-Type", "application/x-www-form-urlencoded")
    connection.putheader("Transfer-Encoding", "chunked")
    connection.endheaders()
    response = connection.getresponse()
    assert response.status == 411
    connection.close()


# ---------------------------------------------------------------------------
# Entity pages


def _most_connected(edges_file) -> str:
    return Counter(e["target"] for e in edges_file["edges"]).most_common(1)[0][0]


def test_system_page_html(app, expected, edges_file):
    system = _most_connected(edges_file)
    status, headers, body = fetch(app.url + f"/id/system/{system}", accept="text/html")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert "default-src 'none'" in headers["Content-Security-Policy"]
    text = body.decode("utf-8")
    record = expected[system]
    import html as html_module

    assert f"<h1>{html_module.escape(record['name'])}</h1>" in text
    incoming = sum(1 for e in edges_file["edges"] if e["target"] == system)
    outgoing = sum(1 for e in edges_file["edges"] if e["source"] == system)
    assert f"Incoming edges ({incoming})" in text and f"Outgoing edges ({outgoing})" in text
    assert f"Cells ({len(record['cells'])})" in text
    for slug in record["cells"]:
        assert f"<td>{html_module.escape(slug)}</td>" in text
    assert system != ANALYSED_ID
    assert "Centrality" not in text  # only ANALYSED_ID has an analysis value in this store
    same = fetch(app.url + f"/system/{system}", accept="text/html")
    assert same[0] == 200 and same[2] == body


def test_system_page_shows_centrality_from_the_analysis_graph(app):
    text = fetch(app.url + f"/id/system/{ANALYSED_ID}", accept="text/html")[2].decode("utf-8")
    assert "Centrality" in text and "0.4242" in text


def test_system_page_without_analysis_graph(small_store, seed_record):
    with make_server(small_store, port=0, workers=1) as server:
        status, _, body = fetch(server.url + f"/id/system/{seed_record['id']}", accept="text/html")
    assert status == 200
    assert "Centrality" not in body.decode("utf-8")


def test_system_page_turtle_and_jsonld(app, expected, edges_file, iris):
    system = _most_connected(edges_file)
    subject = rdflib.URIRef(iris.system(system).value)
    name = rdflib.Literal(expected[system]["name"])
    related = {e["source"] for e in edges_file["edges"] if e["target"] == system} | {
        e["target"] for e in edges_file["edges"] if e["source"] == system}
    relations = sum(1 for e in edges_file["edges"] if system in (e["source"], e["target"]))
    for accept, fmt in (("text/turtle", "turtle"), ("application/ld+json", "json-ld"),
                        ("application/n-triples", "nt")):
        status, headers, body = fetch(app.url + f"/id/system/{system}", accept=accept)
        assert status == 200 and headers["Content-Type"].startswith(accept) and "Accept" in headers["Vary"].split(", ")
        graph = rdflib.Graph().parse(data=body, format=fmt)
        assert (subject, rdflib.URIRef(SCHEMA.name.value), name) in graph
        assert len(set(graph.subjects(rdflib.URIRef(KG.source.value), None))) == relations
        neighbours = {str(o).rsplit("/", 1)[-1] for o in graph.objects(None, rdflib.URIRef(KG.source.value))} | {
            str(o).rsplit("/", 1)[-1] for o in graph.objects(None, rdflib.URIRef(KG.target.value))}
        assert neighbours - {system} == related
    ttl = fetch(app.url + f"/id/system/{system}?format=turtle", accept="text/html")
    assert ttl[1]["Content-Type"].startswith("text/turtle")
    assert fetch(app.url + f"/system/{system}.ttl")[2] == ttl[2]


def test_unknown_and_invalid_ids_are_404(app):
    for path in ("/id/system/no-such-system", "/id/system/Not_An_Id", "/system/%3Cscript%3E", "/id/vendor/nope"):
        status, headers, body = fetch(app.url + path, accept="application/json")
        assert status == 404 and json.loads(body)["error"] == "not-found"
        status, headers, body = fetch(app.url + path, accept="text/html")  # a browser: the same as a page
        assert status == 404 and headers["Content-Type"].startswith("text/html") and b"<h1>404 Not Found</h1>" in body


def test_other_resources_dereference(app, iris):
    status, _, body = fetch(app.url + "/id/column/license", accept="text/html")
    assert status == 200 and "<h1>license</h1>" in body.decode("utf-8")
    status, headers, body = fetch(app.url + "/id/column/license", accept="text/turtle")
    graph = rdflib.Graph().parse(data=body, format="turtle")
    assert (rdflib.URIRef(iris.column("license").value), rdflib.URIRef("http://purl.org/dc/terms/identifier"),
            rdflib.Literal("license")) in graph


def test_html_escapes_every_literal_and_links_only_http(app):
    status, _, body = fetch(app.url + f"/id/system/{HOSTILE_ID}", accept="text/html")
    assert status == 200
    text = body.decode("utf-8")
    assert "<script" not in text.lower() and "<img" not in text.lower()
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co" in text
    assert "&lt;img src=x onerror=alert(3)&gt;" in text
    assert "javascript:alert(4)" in text and "file:///etc/passwd" in text  # shown as text
    page = links(body)
    assert page.hrefs and page.srcs == []
    for href in page.hrefs:
        same_page = re.fullmatch(r"#[A-Za-z][\w-]*", href)  # a fragment of this page, e.g. #evidence
        assert href.startswith(("http://", "https://", "?")) or re.match(r"^/(?!/)", href) or same_page, href
        assert "javascript:" not in href.lower() and "file:" not in href.lower()


def test_query_page(app):
    status, headers, body = fetch(app.url + "/", accept="text/html")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    text = body.decode("utf-8")
    assert re.search(r'<form method="post" action="/sparql"', text)
    assert '<textarea name="query"' in text
    page = links(body)
    assert page.tags["script"] == 2 and page.tags["link"] == 1  # the editor, from this origin's /static/
    assert page.srcs == ["/static/yasgui/yasgui.min.js", "/static/editor.js"]
    assert all(h.startswith("/") for h in page.hrefs)  # no CDN, no external asset
    example = fetch(app.url + "/?example=info")[2].decode("utf-8")
    assert "void:classPartition ?part" in example


def test_query_page_form_post_gives_html_results(app, expected):
    form = urllib.parse.urlencode({"query": TIER_ONE, "format": "html", "limit": "1000"}).encode()
    status, headers, body = fetch(app.url + "/sparql", data=form, ctype="application/x-www-form-urlencoded",
                                  accept="text/html,application/xhtml+xml,*/*;q=0.8")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    import html as html_module

    text = body.decode("utf-8")
    assert all(html_module.escape(name) in text for name in tier_one_names(expected))


def test_service_description_and_errors_are_json(app):
    status, headers, body = fetch(app.url + "/sparql", accept="text/turtle")
    assert status == 200 and headers["Content-Type"].startswith("text/turtle")
    graph = rdflib.Graph().parse(data=body, format="turtle")
    assert len(graph) > 3
    status, headers, body = fetch(app.url + "/sparql", method="DELETE")
    assert status == 405 and json.loads(body)["error"] == "method-not-allowed"


# ---------------------------------------------------------------------------
# Updates: off by default, bearer token when on


def test_allow_update_needs_a_token(small_store):
    with pytest.raises(UsageError):
        make_server(small_store, port=0, allow_update=True)
    with pytest.raises(UsageError):
        make_server(small_store, port=0, allow_update=True, token="short")


def test_updates_with_a_bearer_token(small_store, seed_record, listener, iris):
    url, hits = listener
    with make_server(small_store, port=0, workers=2, allow_update=True, token=TOKEN) as server:
        update_url = server.url + "/update"
        new = iris.system("added-by-update")
        insert = f'INSERT DATA {{ GRAPH {iris.record_graph("added-by-update")} {{ {new} a {KG.System} }} }}'
        form = urllib.parse.urlencode({"update": insert}).encode()
        ctype = "application/x-www-form-urlencoded"
        assert fetch(update_url, data=form, ctype=ctype)[0] == 401
        assert fetch(update_url, data=form, ctype=ctype, headers={"Authorization": "Bearer wrong-token"})[0] == 401
        status, _, _ = fetch(update_url, data=form, ctype=ctype, headers={"Authorization": f"Bearer {TOKEN}"})
        assert status == 204
        count = PREFIXES + "SELECT (COUNT(*) AS ?n) WHERE { ?s a kg:System }"
        result = wrapper(server.url + "/sparql", count).convert()
        assert result["results"]["bindings"][0]["n"]["value"] == "2"  # the seed record + the new one
        # SPARQLWrapper as an update client, with the token as a header
        sparql = SPARQLWrapper(server.url + "/sparql", updateEndpoint=update_url)
        sparql.setTimeout(60)
        sparql.setMethod(POST)
        sparql.addCustomHttpHeader("Authorization", f"Bearer {TOKEN}")
        sparql.setQuery(f"DROP SILENT GRAPH {iris.record_graph('added-by-update')}")
        sparql.query()
        result = wrapper(server.url + "/sparql", count).convert()
        assert result["results"]["bindings"][0]["n"]["value"] == "1"
        for update in (f"LOAD <{url}>", f"load silent <{url}> into graph <https://e.org/g>",
                       f"INSERT {{ ?s ?p ?o }} WHERE {{ SERVICE SILENT <{url}> {{ ?s ?p ?o }} }}"):
            status, _, body = fetch(update_url, data=update.encode(), ctype="application/sparql-update",
                                    headers={"Authorization": f"Bearer {TOKEN}"})
            assert status == 400 and json.loads(body)["error"] == "refused"
        assert hits == []


# ---------------------------------------------------------------------------
# The command line


def test_cli_serve_starts_answers_and_stops(store_dir, expected):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(kg_command("serve", "--store", str(store_dir), "--port", "0", "--workers", "1",
                                          "--quiet"), stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = process.stderr.readline()
        match = re.search(r"SPARQL endpoint (http://127\.0\.0\.1:\d+/sparql)", line)
        assert match, line
        status, _, body = get_query(match.group(1), PREFIXES + "SELECT (COUNT(*) AS ?n) WHERE { ?s a kg:System }",
                                    "text/csv")
        assert status == 200 and body.decode().split() == ["n", str(len(expected))]
    finally:
        process.send_signal(signal.SIGTERM)
        rest = process.communicate(timeout=30)[1]
    assert process.returncode == 0 and "stopped" in rest


def test_cli_serve_refuses_a_missing_store(tmp_path):
    from kg.cli import main

    assert main(["serve", "--store", str(tmp_path / "missing"), "--port", "0"]) == 4
    assert main(["serve", "--store", str(tmp_path), "--allow-update", "--port", "0"]) in (2, 4)


def test_memory_cap_kills_a_hungry_query_and_the_worker_comes_back(store_dir, expected):
    with make_server(store_dir, port=0, workers=1, timeout=30, worker_memory_mb=384) as server:
        hungry = "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f } ORDER BY ?c ?f"  # sorts ~4e10 rows in memory
        status, _, body = get_query(server.url + "/sparql", hungry)
        assert status == 500 and json.loads(body)["error"] == "out-of-memory"
        count = PREFIXES + "SELECT (COUNT(*) AS ?n) WHERE { ?s a kg:System }"
        status, _, body = get_query(server.url + "/sparql", count, "text/csv")
        assert status == 200 and body.decode().split() == ["n", str(len(expected))]


def test_cors_is_off_by_default_and_one_origin_when_asked(app, small_store):
    assert "Access-Control-Allow-Origin" not in fetch(app.url + "/health")[1]
    with pytest.raises(UsageError):
        make_server(small_store, port=0, cors="*")
    with make_server(small_store, port=0, workers=1, cors="https://example.org") as server:
        headers = fetch(server.url + "/health")[1]
        assert headers["Access-Control-Allow-Origin"] == "https://example.org"
        status, headers, _ = fetch(server.url + "/sparql", method="OPTIONS")
        assert status == 204 and "POST" in headers["Access-Control-Allow-Methods"]


# ---------------------------------------------------------------------------
# Browsing: the index of systems, named query forms


def _shown_count(text: str) -> tuple[int, int]:
    found = re.search(r'<p class="muted" id="count">(\d+) of (\d+) systems</p>', text)
    assert found, text[:2000]
    return int(found.group(1)), int(found.group(2))


def _index_ids(text: str) -> list[str]:
    return re.findall(r'<td><a href="/id/system/([^"]+)">', text)


def test_index_lists_every_system_and_filters_by_facets(app, expected):
    status, headers, body = fetch(app.url + "/id/system/?limit=1000", accept="text/html")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    text = body.decode("utf-8")
    assert _shown_count(text) == (len(expected), len(expected))
    assert sorted(_index_ids(text)) == sorted(expected)
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co" in text and "<script" not in text
    for tier in (1, 5):
        page = fetch(app.url + f"/id/system/?tier={tier}&limit=1000", accept="text/html")[2].decode()
        want = sorted(i for i, r in expected.items() if r["tier"] == tier)
        assert sorted(_index_ids(page)) == want and _shown_count(page) == (len(want), len(expected))
        assert f'data-value="{tier}" aria-current="true">{tier} <span class="n">({len(want)})</span></a>' in page
    assert fetch(app.url + "/id/system?limit=1000", accept="text/html")[2] == body  # with or without the slash


def test_index_text_is_finds_text_bound(app, expected, find_oracle):
    """The index's text is find's (its words matcher: tests/searching.py), bound."""
    import searching

    def holds(record: dict, text: str) -> bool:
        return searching.match(text, record["id"], record) is not None

    for text in ("graph", "  Memory ", "'; DROP ALL #"):
        page = fetch(app.url + "/id/system/?" + urllib.parse.urlencode({"text": text, "limit": 1000}),
                     accept="text/html")[2].decode()
        assert set(_index_ids(page)) == {i for i, r in expected.items() if holds(r, text)}, text


def test_index_negotiates_like_every_entity(app, expected):
    status, headers, body = fetch(app.url + "/id/system/?tier=1&limit=1000", accept="text/turtle")
    assert status == 200 and headers["Content-Type"].startswith("text/turtle")
    assert "Accept" in headers["Vary"].split(", ")
    graph = rdflib.Graph().parse(data=body, format="turtle")
    names = {str(o) for o in graph.objects(None, rdflib.URIRef(SCHEMA.name.value))}
    assert names == tier_one_names(expected)
    assert fetch(app.url + "/id/system/?format=jsonld")[1]["Content-Type"].startswith("application/ld+json")


def test_query_form_runs_with_bound_parameters(app, expected):
    status, _, body = fetch(app.url + "/queries/search", accept="text/html")
    form = body.decode()
    assert status == 200 and 'name="text" value="" type="text" required' in form and "<h2>Results</h2>" not in form
    run = fetch(app.url + "/queries/search?" + urllib.parse.urlencode({"text": HOSTILE_NAME, "run": "1"}))[2].decode()
    assert 'id="count">1 row<' in run and f'<a href="/id/system/{HOSTILE_ID}">{HOSTILE_ID}</a>' in run
    assert "<script>" not in run
    status, headers, body = fetch(app.url + "/queries/search?" + urllib.parse.urlencode(
        {"text": "", "tier": "5", "limit": "1000", "run": "1", "format": "csv"}))
    assert status == 200 and headers["Content-Type"].startswith("text/csv")
    import csv as csv_module

    rows = list(csv_module.DictReader(body.decode().splitlines()))
    assert sorted(r["id"] for r in rows) == sorted(i for i, r in expected.items() if r["tier"] == 5)


def test_query_form_refuses_missing_and_bad_parameters(app):
    status, headers, body = fetch(app.url + "/queries/show?run=1", accept="text/html")
    assert status == 400 and headers["Content-Type"].startswith("text/html")
    assert "needs the parameter id" in body.decode()
    # an unknown system is 404, not an empty answer (as in the API, the CLI and MCP)
    status, headers, body = fetch(app.url + "/queries/show?id=mem0--mem0&run=1&format=json")
    assert status == 404 and json.loads(body)["error"] == "not-found"
    assert json.loads(body)["candidates"][0] == "mem0--mem0-ai" and "did you mean" in json.loads(body)["message"]
    status, headers, body = fetch(app.url + "/queries/search?text=x&tier=two&run=1&format=json")
    assert status == 400 and json.loads(body)["error"] == "bad-parameter" and "tier" in json.loads(body)["message"]
    assert fetch(app.url + "/queries/no-such-query")[0] == 404
    assert fetch(app.url + "/queries/search?format=png")[0] == 400
