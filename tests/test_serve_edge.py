"""kg serve's protocol edge, over raw sockets on loopback: framing, slow clients, connection
caps, status headers, the Host allow-list, the access log; and the ASGI app mounted in
another app.

Every count here is small and every wait bounded (a deadline of about a second); slow
clients come from 127.0.0.2, which is loopback too, so that the cap per client can be seen
leaving 127.0.0.1 alone.
"""

from __future__ import annotations

import gc
import json
import re
import shutil
import socket
import threading
import time
import urllib.parse

import pytest
from serving import http, kg_serve

from kg.serve import make_server
from kg.store import GraphStore

TOKEN = "s3cret-token-for-tests-0123456789"
CARTESIAN = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"


@pytest.fixture(scope="module")
def log() -> list[str]:
    return []


@pytest.fixture(scope="module")
def server(small_store, log):
    """A server with small caps and a one-second request deadline."""
    with make_server(small_store, port=0, workers=1, timeout=1.5, allow_update=True, token=TOKEN, log=log.append,
                  max_connections=12, max_connections_per_client=4, request_seconds=1.0) as app:
        yield app


def connect(app, source: str = "127.0.0.1") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", app.port), timeout=5, source_address=(source, 0))
    return sock


def exchange(app, data: bytes, source: str = "127.0.0.1", wait: float = 3.0) -> bytes:
    """Everything the server sends back for ``data`` until it closes or goes quiet."""
    with connect(app, source) as sock:
        sock.sendall(data)
        return read_all(sock, wait)


def read_all(sock: socket.socket, wait: float) -> bytes:
    sock.settimeout(wait)
    chunks = []
    try:
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    except (TimeoutError, ConnectionResetError):
        pass
    return b"".join(chunks)


def status_line(answer: bytes) -> str:
    return answer.split(b"\r\n", 1)[0].decode()


def head(answer: bytes) -> dict[str, str]:
    lines = answer.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")[1:]
    return {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines)}


def request(target: str, *headers: str, method: str = "GET", body: bytes = b"", host: str = "127.0.0.1") -> bytes:
    lines = [f"{method} {target} HTTP/1.1", f"Host: {host}", *headers, "Connection: close"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


# ---------------------------------------------------------------------------
# Framing: 400 or a single answer


def test_a_body_that_holds_a_second_request_is_a_body(server):
    smuggled = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    data = (f"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {len(smuggled)}\r\n\r\n").encode() + smuggled
    answer = exchange(server, data, wait=1.5)
    assert status_line(answer) == "HTTP/1.1 200 OK"
    assert answer.count(b"HTTP/1.1 ") == 1


@pytest.mark.parametrize("headers", [
    ["Content-Length: 5", "Content-Length: 6"],  # conflicting
    ["Content-Length: 1_5"], ["Content-Length: +15"], ["Content-Length: -1"], ["Content-Length: 0x10"],
    ["Transfer-Encoding : chunked"],  # whitespace before the colon
    ["Transfer-Encoding: chunked", "Content-Length: 5"],
    ["Transfer-Encoding: gzip"],
    ["Bad Header: x"], ["X-\x01: a"],  # a space, a control character in a name
])
def test_framing_errors_are_400(server, headers):
    answer = exchange(server, request("/sparql", "Content-Type: application/sparql-query", *headers,
                                      method="POST", body=b"ASK {}xxxxxxxxxxxxxx"))
    assert status_line(answer) == "HTTP/1.1 400 Bad Request", (headers, answer[:300])
    assert answer.count(b"HTTP/1.1 ") == 1


def test_a_request_without_host_is_400(server):
    answer = exchange(server, b"GET /health HTTP/1.1\r\n\r\n")
    assert status_line(answer) == "HTTP/1.1 400 Bad Request"


# ---------------------------------------------------------------------------
# Slow clients: a deadline per request, caps per client and overall


def test_a_trickled_request_head_is_cut_at_the_deadline(server):
    with connect(server) as sock:
        started = time.monotonic()
        sock.sendall(b"GET /health HTTP/1.1\r\n")
        answer = b""
        for _ in range(20):  # a header byte every 0.2 s: never done
            try:
                sock.sendall(b"X")
            except OSError:
                break
            time.sleep(0.2)
            sock.setblocking(False)
            try:
                answer += sock.recv(65536)
            except BlockingIOError:
                pass
            sock.setblocking(True)
            if answer:
                break
        answer += read_all(sock, 2.0)
    assert status_line(answer) == "HTTP/1.1 408 Request Timeout"
    assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"] == "request-timeout"
    assert 0.9 <= time.monotonic() - started < 3.5


def test_a_trickled_body_is_cut_at_the_deadline(server):
    with connect(server) as sock:
        started = time.monotonic()
        sock.sendall(request("/sparql", "Content-Type: application/sparql-query", "Content-Length: 50",
                             method="POST"))
        closed = False
        for _ in range(20):
            try:
                sock.sendall(b" ")
            except OSError:
                closed = True
                break
            time.sleep(0.2)
        answer = read_all(sock, 2.0)
    assert closed or answer == b"" or status_line(answer).startswith("HTTP/1.1 408"), answer[:200]
    assert time.monotonic() - started < 5


def test_an_idle_connection_is_closed(server):
    with connect(server) as sock:
        started = time.monotonic()
        answer = read_all(sock, 4.0)
    assert answer == b""  # it asked nothing, it gets no answer
    assert 0.9 <= time.monotonic() - started < 3.5


def test_one_client_cannot_take_every_connection(server):
    held = [connect(server, "127.0.0.2") for _ in range(4)]
    try:
        time.sleep(0.1)
        refused = exchange(server, request("/health"), source="127.0.0.2")
        assert status_line(refused) == "HTTP/1.1 503 Service Unavailable"
        assert head(refused)["retry-after"] == "1"
        answered = exchange(server, request("/health"))  # another address is still answered
        assert status_line(answered) == "HTTP/1.1 200 OK"
    finally:
        for sock in held:
            sock.close()


def test_the_server_caps_its_connections(server):
    held = [connect(server, f"127.0.0.{3 + i // 4}") for i in range(12)]
    try:
        time.sleep(0.1)
        refused = exchange(server, request("/health"))
        assert status_line(refused) == "HTTP/1.1 503 Service Unavailable"
    finally:
        for sock in held:
            sock.close()
    time.sleep(0.2)
    assert status_line(exchange(server, request("/health"))) == "HTTP/1.1 200 OK"


# ---------------------------------------------------------------------------
# Status headers are headers


def test_401_405_and_503_carry_their_headers(server):
    update = urllib.parse.urlencode({"update": "CLEAR DEFAULT"}).encode()
    answer = exchange(server, request("/update", "Content-Type: application/x-www-form-urlencoded",
                                      f"Content-Length: {len(update)}", method="POST", body=update))
    assert status_line(answer) == "HTTP/1.1 401 Unauthorized"
    assert head(answer)["www-authenticate"].startswith('Bearer realm="kg"')
    for target, method in (("/sparql", "DELETE"), ("/", "POST"), ("/update", "GET")):
        answer = exchange(server, request(target, "Content-Length: 0", method=method))
        assert status_line(answer) == "HTTP/1.1 405 Method Not Allowed", (target, method)
        assert head(answer)["allow"], (target, method)
        assert "headers" not in json.loads(answer.split(b"\r\n\r\n", 1)[1])

    # the runaway holds the one query slot until its deadline; its replacement is held back
    # 2 s (a worker may start in a tenth of a second), so a request asked meanwhile waits out
    # its whole deadline: 503 (each time a new text: an answer given before would come from
    # memory, without a worker)
    slow: dict = {}
    replace = server.pool._replace
    server.pool._replace = lambda: threading.Timer(2.0, replace).start()

    def runaway() -> None:
        slow["answer"] = exchange(server, request("/sparql?" + urllib.parse.urlencode({"query": CARTESIAN})),
                                  wait=10)

    thread = threading.Thread(target=runaway)
    try:
        thread.start()
        busy, deadline, asked = b"", time.monotonic() + 5, 0
        while thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.1)
            asked += 1
            busy = exchange(server, request("/sparql?" + urllib.parse.urlencode({"query": f"ASK {{}} # {asked}"})),
                            wait=10)
            if status_line(busy) != "HTTP/1.1 200 OK":
                break
        thread.join(20)
    finally:
        server.pool._replace = replace
    assert status_line(slow["answer"]) == "HTTP/1.1 504 Gateway Timeout"
    assert status_line(busy) == "HTTP/1.1 503 Service Unavailable"
    assert head(busy)["retry-after"] == "1"
    assert "headers" not in json.loads(busy.split(b"\r\n\r\n", 1)[1])
    deadline = time.monotonic() + 60  # the killed worker is replaced before the next test
    while time.monotonic() < deadline and server.pool.idle() < server.pool.size:
        time.sleep(0.1)


# ---------------------------------------------------------------------------
# Host allow-list (DNS rebinding), access log


@pytest.mark.parametrize("host,ok", [("127.0.0.1", True), ("localhost:8000", True), ("[::1]:8000", True),
                                     ("LOCALHOST", True), ("evil.example", False),
                                     ("evil.example:8000", False), ("127.0.0.1.evil.example", False)])
def test_host_header_is_checked_on_loopback(server, host, ok):
    answer = exchange(server, request("/health", host=host))
    if ok:
        assert status_line(answer) == "HTTP/1.1 200 OK"
    else:
        assert status_line(answer) == "HTTP/1.1 400 Bad Request"
        assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"] == "bad-host"


def test_access_log_has_no_query_strings(server, log):
    secret = "SELECT * WHERE { ?s ?p 'token-abc123' } LIMIT 1"
    exchange(server, request("/sparql?" + urllib.parse.urlencode({"query": secret, "access_token": "xyz"})))
    lines = [line for line in log if "/sparql" in line]
    assert lines and all("?" not in line and "abc123" not in line and "xyz" not in line for line in lines)
    assert any(re.match(r'127\.0\.0\.1 "GET /sparql HTTP/1\.1" \d{3}$', line) for line in lines), lines


# ---------------------------------------------------------------------------
# The ASGI app on its own: mounted in another app


def test_create_app_mounts_in_another_asgi_app(small_store):
    from starlette.applications import Starlette
    from starlette.routing import Mount
    from starlette.testclient import TestClient

    from kg.serve import create_app

    outer = Starlette(routes=[Mount("/kg", app=create_app(small_store, workers=1, allowed_hosts=("testserver",)))])
    with TestClient(outer) as client:
        answer = client.get("/kg/sparql", params={"query": "ASK { ?s ?p ?o }"},
                            headers={"Accept": "application/sparql-results+json"})
        assert answer.status_code == 200 and answer.json()["boolean"] is True
        page = client.get("/kg/", headers={"Accept": "text/html"})
        assert page.status_code == 200 and 'action="/kg/sparql"' in page.text
        description = client.get("/kg/sparql", headers={"Accept": "text/turtle"})
        assert "<http://testserver/kg/sparql>" in description.text
        assert client.get("/kg/health", headers={"Host": "evil.example"}).status_code == 400


# ---------------------------------------------------------------------------
# XML answers never hold a character XML 1.0 forbids


def test_xml_answers_refuse_a_character_xml_forbids(server, small_store):
    """A literal holding U+0001 (written while the server runs: its worker moves to that
    version) gets 406 as SPARQL XML or RDF/XML, and its exact value as JSON; the XML
    answers that are sent parse as XML."""
    import urllib.error
    import urllib.request
    import xml.etree.ElementTree as ElementTree

    from pyoxigraph import Literal, NamedNode, Quad

    base = "https://w3id.org/agent-landscape/id/"
    graph, subject, p = NamedNode(base + "xml-test"), NamedNode(base + "xml-test/thing"), NamedNode(base + "p")
    writer = GraphStore(small_store)
    writer.add([Quad(subject, p, Literal("a\x01b"), graph), Quad(subject, p, Literal("clean <&>"), graph)])
    del writer
    gc.collect()

    def get(target: str, accept: str) -> tuple[int, bytes]:
        request = urllib.request.Request(server.url + target, headers={"Accept": accept})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as err:
            return err.code, err.read()

    def sparql(query: str) -> str:
        return "/sparql?" + urllib.parse.urlencode({"query": query})

    every = sparql(f"SELECT ?o WHERE {{ GRAPH {graph} {{ ?s ?p ?o }} }} ORDER BY ?o")
    clean = sparql(f'SELECT ?o WHERE {{ GRAPH {graph} {{ ?s ?p ?o FILTER(STRSTARTS(?o, "clean")) }} }}')
    graph_of = sparql(f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ GRAPH {graph} {{ ?s ?p ?o }} }}")
    try:
        status, body = get(every, "application/sparql-results+json")
        assert status == 200
        assert [b["o"]["value"] for b in json.loads(body)["results"]["bindings"]] == ["a\x01b", "clean <&>"]
        for target, accept in ((every, "application/sparql-results+xml"), (graph_of, "application/rdf+xml"),
                               ("/id/xml-test/thing", "application/rdf+xml")):
            status, body = get(target, accept)
            error = json.loads(body)
            assert (status, error["error"]) == (406, "not-xml"), target
            assert "U+0001" in error["message"] and "XML 1.0 forbids" in error["message"]
        status, body = get(clean, "application/sparql-results+xml")
        assert status == 200
        literal = ElementTree.fromstring(body).find(".//{http://www.w3.org/2005/sparql-results#}literal")
        assert literal is not None and literal.text == "clean <&>"
    finally:
        writer = GraphStore(small_store)
        writer.remove_graphs([graph])
        del writer
        gc.collect()


# ---------------------------------------------------------------------------
# A real `kg serve` process: one Allow per route, legal SPARQL answered, updates that see
# what queries see


@pytest.fixture(scope="module")
def served(small_store):
    """A read-only `kg serve` process over the small store."""
    with kg_serve(small_store) as url:
        yield url


ROUTES = ["/sparql", "/query", "/update", "/", "/index.html", "/health", "/id/system/", "/id/system",
          "/id/system/smolagents-memory--huggingface-co", "/system/smolagents-memory--huggingface-co",
          "/queries/search", "/id/column/tier"]


@pytest.mark.parametrize("path", ROUTES)
def test_options_and_405_tell_one_truth_on_every_route(served, path):
    """OPTIONS names the methods a route answers; every other method gets 405 with the same
    Allow, and no method that OPTIONS names gets 405."""
    status, headers, _ = http("OPTIONS", served + path)
    assert status == 204, path
    allowed = {m.strip() for m in headers["allow"].split(",")}
    assert "OPTIONS" in allowed
    for method in ("GET", "HEAD", "POST", "PUT", "DELETE", "PATCH"):
        status, headers, _ = http(method, served + path, b"", **{"Content-Length": "0"})
        if method in allowed:
            assert status != 405, (path, method)
        else:
            assert status == 405, (path, method, status)
            assert {m.strip() for m in headers["allow"].split(",")} == allowed, (path, method)


def test_no_page_is_404_for_every_method(served):
    for method in ("OPTIONS", "GET", "POST", "PUT"):
        assert http(method, served + "/no/such/page", b"", **{"Content-Length": "0"})[0] == 404, method


LEGAL = {  # W3C SPARQL 1.1 syntax tests the endpoint once failed: a legal query is answered
    "unknown-function": "PREFIX : <http://example.org/>\nSELECT (:function(?x + ?y) AS ?F) ?z {}",
    "in-relative-iri": "SELECT * { ?s ?p ?o FILTER(?o IN (1, <x>)) }",
    "in-base": "BASE <http://example.org/>\nSELECT * { ?s ?p ?o FILTER(?o IN (1, <x>)) }",
    "in-full-iri": "SELECT * { ?s ?p ?o FILTER(?o IN (1, <http://example.org/x>)) }",
    "unknown-function-in-filter": "PREFIX : <http://example.org/>\nSELECT ?s { ?s ?p ?o FILTER(:f(?o)) }",
    "unknown-functions-coalesced": "PREFIX : <http://example.org/>\nSELECT (COALESCE(:f(1), :g(2), 'none') AS ?c) {}",
}


@pytest.mark.parametrize("name", sorted(LEGAL))
def test_legal_w3c_queries_are_answered(served, name):
    """An unknown extension function is an evaluation error, so unbound (a FILTER false), as
    SPARQL 1.1 says; a relative IRI resolves against the data's base IRI. Never a 4xx or 5xx."""
    status, _, body = http("POST", served + "/sparql", LEGAL[name].encode(),
                           **{"Content-Type": "application/sparql-query", "Accept": "application/sparql-results+json"})
    assert status == 200, (name, body[:300])
    rows = json.loads(body)["results"]["bindings"]
    if name == "unknown-function":
        assert rows == [{}]  # one row, ?F unbound (an error), ?z unbound
    elif name == "unknown-function-in-filter":
        assert rows == []
    elif name == "unknown-functions-coalesced":
        assert rows == [{"c": {"type": "literal", "value": "none"}}]


def test_an_update_sees_what_a_query_sees_or_is_refused(small_store, tmp_path):
    """With --allow-update, an update whose WHERE matches triples outside GRAPH (which SPARQL
    Update reads from the default graph alone, while queries read the union of the graphs) is
    refused with a message, never answered 204 with nothing done; the same update written with
    GRAPH ?g inserts exactly what the query sees."""
    store = tmp_path / "store"
    shutil.copytree(small_store, store)
    prefix = "PREFIX schema: <https://schema.org/>\n"
    count = prefix + "SELECT (COUNT(*) AS ?n) WHERE { ?s schema:name ?o }"
    inserted = "SELECT (COUNT(*) AS ?n) WHERE { GRAPH <urn:g> { ?s <urn:x> ?o } }"
    sparql = {"Content-Type": "application/sparql-query", "Accept": "text/csv"}
    update = {"Content-Type": "application/sparql-update", "Authorization": f"Bearer {TOKEN}"}
    with kg_serve(store, "--allow-update", env={"KG_TOKEN": TOKEN}) as url:
        status, _, body = http("POST", url + "/sparql", count.encode(), **sparql)
        seen = int(body.decode().split()[1])
        assert status == 200 and seen > 0
        status, _, body = http("POST", url + "/update",
                               (prefix + "INSERT { GRAPH <urn:g> { ?s <urn:x> ?o } } WHERE { ?s schema:name ?o }").encode(),
                               **update)
        assert status == 400, body
        assert "GRAPH ?g" in json.loads(body)["message"]
        assert http("POST", url + "/sparql", inserted.encode(), **sparql)[2].decode().split()[1] == "0"
        status, _, body = http("POST", url + "/update", b"DELETE WHERE { ?s ?p ?o }", **update)
        assert status == 400, body  # DELETE WHERE reads the default graph too
        status, _, body = http("POST", url + "/update", (prefix + "INSERT { GRAPH <urn:g> { ?s <urn:x> ?o } } "
                                                         "WHERE { GRAPH ?g { ?s schema:name ?o } }").encode(), **update)
        assert status == 204, body
        status, _, body = http("POST", url + "/sparql", inserted.encode(), **sparql)
        assert status == 200 and int(body.decode().split()[1]) == seen
