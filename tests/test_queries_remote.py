"""kg push, then kg query NAME --endpoint URL: the bundled catalog is pushed once (``kg.pushes.push``,
SPARQL Update in small batches) to a real Oxigraph server (``oxigraph serve``, once per test
session: tests/engine_fixtures.py); the push's report and the server's graphs are checked against the store
and the JSON; every named query asked of the server gives the same rows as the embedded
store. A remote copy tampered with is repaired by pushing again (the tiny catalog, on a server
of its own). Credentials go to the named endpoint only and a redirect is never followed.
"""

from __future__ import annotations

import base64
import http.server
import threading
import time
from collections import Counter
from types import SimpleNamespace

import pytest
from pyoxigraph import Literal

import portability
from kg import queries
from kg.cli import main
from kg.remote_query import Endpoint
from kg.errors import NotFound, QueryError, StoreError
from kg.pushes import push
from helpers import kg

PREFIXES = ("PREFIX kg: <https://w3id.org/agent-landscape/ontology#>\n"
            "PREFIX schema: <https://schema.org/>\nPREFIX dcterms: <http://purl.org/dc/terms/>\n")
CLASS_COUNTS = PREFIXES + """SELECT ?class (COUNT(DISTINCT ?e) AS ?n) WHERE { ?e a ?class }
GROUP BY ?class"""
REPRESENTATIVE = [  # a few plain queries, asked with SPARQLWrapper rather than kg's client
    CLASS_COUNTS,
    PREFIXES + """SELECT ?name ?mode WHERE { ?s a kg:System ; schema:name ?name ; kg:protocolSupport ?ps .
  ?ps kg:protocol kg:MCP ; kg:supportMode ?mode }""",
    PREFIXES + "SELECT ?type (COUNT(*) AS ?n) WHERE { ?r a kg:Relation ; kg:edgeType ?type } GROUP BY ?type",
    PREFIXES + """SELECT ?dep (COUNT(DISTINCT ?s) AS ?dependents) WHERE { ?s kg:runtimeDependency ?dep }
GROUP BY ?dep ORDER BY DESC(?dependents) LIMIT 10""",
    PREFIXES + "SELECT ?s ?tier WHERE { ?s a kg:System ; kg:tier ?tier FILTER(?tier <= 2) }",
]


@pytest.fixture(scope="module")
def remote(oxigraph_loaded):
    """The server, with the bundled catalog pushed by kg once per session (tests/engine_fixtures.py;
    ``report``: the push's report)."""
    server = oxigraph_loaded.engine.server
    return SimpleNamespace(server=server, url=server.url, report=oxigraph_loaded.report)


def _value(term) -> tuple[str, str]:
    if isinstance(term, Literal):
        return ("literal", term.value if term.language is None else f"{term.value}@{term.language}")
    return ("uri", term.value)


def _remote_value(binding: dict) -> tuple[str, str]:
    kind = "literal" if binding["type"] in ("literal", "typed-literal") else "uri"
    value = binding["value"]
    if kind == "literal" and "xml:lang" in binding:
        value = f"{value}@{binding['xml:lang']}"
    return (kind, value)


def same_answers(server, store, query: str) -> tuple[Counter, Counter]:
    """A query's rows from the local store and from the server (SPARQLWrapper), as multisets."""
    local = Counter(tuple(sorted((k, _value(v)) for k, v in row.items())) for row in store.select(query))
    remote = Counter(tuple(sorted((k, _remote_value(v)) for k, v in row.items())) for row in server.select(query))
    return local, remote


def test_the_push_is_verified_batched_and_complete(remote, bundled_store, expected_records, edges_file,
                                                    graph_counts):
    """The push's report, the server's quads per graph, its entities per class (as the store
    and as the JSON counts them) and a few plain queries asked without kg's client."""
    local = graph_counts(bundled_store)
    report = remote.report
    assert report.verified is True and report.mismatches == []
    assert report.graphs == len(local) > 900 and report.quads == sum(local.values()) == len(bundled_store)
    assert report.requests > 2  # batched, not one huge request
    assert remote.server.graph_counts() == local
    local_classes, remote_classes = same_answers(remote.server, bundled_store, CLASS_COUNTS)
    assert remote_classes == local_classes
    by_class = {dict(row)["class"][1]: int(dict(row)["n"][1]) for row in remote_classes}
    assert by_class["https://w3id.org/agent-landscape/ontology#System"] == len(expected_records)
    assert by_class["https://w3id.org/agent-landscape/ontology#Relation"] == len(edges_file["edges"])
    for text in REPRESENTATIVE[1:]:
        local_answer, remote_answer = same_answers(remote.server, bundled_store, text)
        assert remote_answer == local_answer and local_answer, text


@pytest.fixture(scope="module")
def loaded(oxigraph_loaded):
    """The server as tests/engine_checks.py checks an engine: each query's outcomes, for the table."""
    return oxigraph_loaded


@pytest.mark.parametrize("name", portability.names())
def test_every_named_query_gives_the_same_rows_remotely(bundled_store, loaded, name):
    """Each named query with each parameter set of tests/portability.py (its defaults and one more)."""
    import engine_checks

    engine_checks.check_query(loaded, bundled_store, name)


def test_the_portability_table_says_what_oxigraph_did(loaded):
    import engine_checks

    engine_checks.check_table(loaded)


def test_the_command_line_with_endpoint(remote, bundled_store, capsys):
    args = ["query", "substrate-risk", "-p", "system=OpenAI GPT family", "-f", "csv"]
    assert main([*args, "--store", str(bundled_store.path)]) == 0
    here = capsys.readouterr().out
    assert main([*args, "--endpoint", remote.url + "/query"]) == 0
    assert capsys.readouterr().out == here and here.count("\n") > 40
    assert main(["query", "show", "-p", "id=mem0--mem0", "--endpoint", remote.url + "/query"]) == 6
    assert "did you mean: mem0--mem0-ai (Mem0)" in capsys.readouterr().err
    with pytest.raises(NotFound):
        queries.query(Endpoint(remote.url + "/query"), "related", {"id": "no-such-system"})


def test_tampered_remote_copy_is_repaired_by_pushing_again(tiny_store, tmp_path, iris, oxigraph_server,
                                                           graph_counts):
    """A quad added to one record's graph on the server is gone after a second push, which sends
    exactly the local graphs again (the tiny catalog, on a server of its own: the bundled push
    above shows the batching at scale)."""
    server = oxigraph_server(tmp_path / "db")
    try:
        endpoint, update = server.url + "/query", server.url + "/update"
        first = push(tiny_store, endpoint, update_endpoint=update, batch_bytes=64 * 1024)
        local = graph_counts(tiny_store)
        assert first.verified is True and server.graph_counts() == local
        record_graph = next(g for g in sorted(local) if g.startswith(iris.record_graph_prefix()))
        server.update(f'INSERT DATA {{ GRAPH <{record_graph}> {{ <urn:x:junk> <urn:x:p> "junk" }} }}')
        assert server.graph_counts()[record_graph] == local[record_graph] + 1
        again = push(tiny_store, endpoint, update_endpoint=update)
        assert again.verified is True and again.quads == first.quads
        assert server.graph_counts() == local
        local_answer, remote_answer = same_answers(server, tiny_store, CLASS_COUNTS)
        assert remote_answer == local_answer
    finally:
        server.stop()


# ---------------------------------------------------------------------------
# credentials and redirects, against loopback servers of the test's own


class Recorder(http.server.ThreadingHTTPServer):
    """Answers every request with ``answer`` (status, headers, body) and records its headers."""

    def __init__(self, answer):
        self.seen: list[dict] = []
        self.seen_lines: list[str] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.server.seen.append(dict(self.headers))
                self.server.seen_lines.append(self.requestline)
                status, headers, body = answer(self)
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        super().__init__(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server_address[1]}"
        threading.Thread(target=self.serve_forever, daemon=True).start()


@pytest.fixture()
def servers():
    made = []

    def make(answer):
        made.append(Recorder(answer))
        return made[-1]

    yield make
    for server in made:
        server.shutdown()
        server.server_close()


EMPTY_ROWS = b'{"head": {"vars": ["id"]}, "results": {"bindings": []}}'


def test_credentials_go_to_the_named_endpoint(servers):
    endpoint = servers(lambda h: (200, {"Content-Type": "application/sparql-results+json"}, EMPTY_ROWS))
    result = Endpoint(endpoint.url + "/sparql", user="kg", password="s3cret").query("SELECT ?id WHERE { ?s ?p ?id }")
    assert list(result) == []
    assert endpoint.seen[0]["Authorization"] == "Basic " + base64.b64encode(b"kg:s3cret").decode()


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
def test_a_redirect_is_never_followed_with_credentials(servers, code):
    elsewhere = servers(lambda h: (200, {"Content-Type": "application/sparql-results+json"}, EMPTY_ROWS))
    endpoint = servers(lambda h: (code, {"Location": elsewhere.url + "/steal"}, b""))
    with pytest.raises(StoreError, match=f"HTTP {code} redirect to {elsewhere.url}/steal, not followed \\(kg follows no"):
        Endpoint(endpoint.url + "/sparql", user="kg", password="s3cret").query("SELECT ?id WHERE { ?s ?p ?id }")
    assert len(endpoint.seen) == 1 and "Authorization" in endpoint.seen[0]
    assert elsewhere.seen == []  # neither the credentials nor the query went anywhere else


def test_an_unreachable_endpoint_is_one_line_without_the_password():
    with pytest.raises(StoreError, match="cannot reach http://127.0.0.1:9/sparql") as caught:
        Endpoint("http://kg:s3cret@127.0.0.1:9/sparql?key=abc", timeout=2).query("ASK { ?s ?p ?o }")
    assert "s3cret" not in str(caught.value) and "abc" not in str(caught.value)


# ---------------------------------------------------------------------------
# kg query --endpoint as a real process: a total deadline, and nothing secret echoed


class Dripping(http.server.ThreadingHTTPServer):
    """Answers every POST with headers, then one byte of its body every 2 s (a 1000-byte body)."""

    def __init__(self) -> None:
        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.send_response(200)
                self.send_header("Content-Type", "application/sparql-results+json")
                self.send_header("Content-Length", "1000")
                self.end_headers()
                try:
                    for _ in range(100):
                        self.wfile.write(b" ")
                        self.wfile.flush()
                        time.sleep(2)
                except OSError:
                    pass

        super().__init__(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server_address[1]}"
        threading.Thread(target=self.serve_forever, daemon=True).start()


def test_a_dripping_endpoint_cannot_hold_a_query_past_its_deadline():
    """A server that sends its headers and then a byte every 2 s: kg query --endpoint stops at
    its --timeout (a deadline for the whole answer, not for each read), one line, exit 4."""
    server = Dripping()
    try:
        started = time.monotonic()
        done = kg("query", "--text", "SELECT * WHERE { ?s ?p ?o }", "--endpoint", server.url + "/sparql",
                  "--timeout", "3", timeout=60)
        took = time.monotonic() - started
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode == 4, done.stderr
    assert "no answer within 3 s" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and done.stdout == ""
    assert took < 15  # the interpreter's start, then 3 s


def test_an_endpoint_page_that_echoes_the_request_never_prints_a_secret(servers):
    """An endpoint that refuses the query (400, the query's fault: exit 2) or fails (500: exit 4)
    with a page echoing the request line and headers: no query-string value, password or token
    is printed, in any form."""
    def echo(status):
        def answer(handler):
            page = f"<h1>{status}</h1><pre>{handler.requestline}\n{handler.headers}</pre>" + "<p>pad</p>" * 5000
            return status, {"Content-Type": "text/html"}, page.encode()
        return answer

    for status, code in ((400, 2), (500, 4)):
        endpoint = servers(echo(status))
        done = kg("query", "--text", "SELECT * WHERE { ?s ?p ?o }", "--endpoint",
                  endpoint.url + "/ds/query?api_key=SE%2FKRIT-9", "--user", "quser",
                  "--password", "pa55-w0rd-xyz", timeout=60)
        err = done.stderr
        assert done.returncode == code, err
        assert "SE%2FKRIT-9" in endpoint.seen_lines[-1]  # the server got it, and echoed it
        token = base64.b64encode(b"quser:pa55-w0rd-xyz").decode()
        for secret in ("SE%2FKRIT-9", "SE/KRIT-9", "pa55-w0rd-xyz", token):
            assert secret not in err, (secret, err)
        assert f"HTTP {status}" in err and "api_key=***" in err and "Traceback" not in err
        assert all(len(line) < 700 for line in err.splitlines())


def test_a_server_without_a_union_default_graph_is_named_not_answered_empty(tmp_path, tiny_store, capsys):
    """``oxigraph serve`` without --union-default-graph: the push succeeds; a named query then exits 4
    with one line that says why and how to configure the store, never 0 rows with exit 0."""
    from engine_servers import OxigraphServer

    server = OxigraphServer(tmp_path / "db", union=False)
    try:
        report = push(tiny_store, server.url + "/query", update_endpoint=server.url + "/update")
        assert report.verified is True
        capsys.readouterr()
        assert main(["query", "info", "--endpoint", server.url + "/query"]) == 4
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1
        assert "default graph does not" in err and "oxigraph serve --union-default-graph" in err
    finally:
        server.stop()


def test_a_store_answering_its_asks_in_xml_is_still_checked_for_a_union_default_graph(servers, capsys):
    """An endpoint that prefers XML results (as tests/jena/JenaFront.java and some stores do): its
    "systems in the default graph?" false and "in a named graph?" true are read as such, the query
    exits 4 with the one line. Read as JSON only, the XML answers once let ``info`` print 0 rows, exit 0."""
    answers = iter((False, True))

    def xml_boolean(handler):
        body = ('<?xml version="1.0"?><sparql xmlns="http://www.w3.org/2005/sparql-results#"><head/>'
                f"<boolean>{str(next(answers, False)).lower()}</boolean></sparql>")
        return 200, {"Content-Type": "application/sparql-results+xml"}, body.encode()

    endpoint = servers(xml_boolean)
    assert main(["query", "info", "--endpoint", endpoint.url + "/sparql"]) == 4
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "default graph does not" in err
    assert len(endpoint.seen) == 2  # the two ASKs; the query itself never sent
