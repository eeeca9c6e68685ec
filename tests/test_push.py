"""kg push against a real Oxigraph server (``oxigraph serve``, PyPI ``oxigraph``; tests/conftest.py's
``oxigraph_server``), started on a free loopback port for these tests and stopped at the end.

Small real stores are pushed here: both modes, pruning, pushing twice, Basic and Digest
authentication (through a small proxy that demands them), the command line and hostile
servers. The bundled catalog is pushed once, in tests/test_queries_remote.py, which then
asks that server every named query (and last tampers with it and pushes again).
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import socket
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from kg.cli import main
from kg.errors import StoreError, UsageError
from kg.ingestion import ingest_paths
from kg.pushes import push
from kg.store import GraphStore
from helpers import kg


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture()
def oxigraph(tmp_path, oxigraph_server):
    server = oxigraph_server(tmp_path / "oxigraph")
    yield server
    server.stop()


def test_prune_drops_only_stale_graphs_of_our_namespace(oxigraph, small_store, iris, graph_counts):
    store = GraphStore(small_store, read_only=True)
    endpoint, update = oxigraph.url + "/query", oxigraph.url + "/update"
    stale, foreign = f"{iris.base}graph/record/removed-upstream", "https://example.org/their-graph"
    oxigraph.update(f'INSERT DATA {{ GRAPH <{stale}> {{ <urn:x:a> <urn:x:p> "old" }} '
                    f'GRAPH <{foreign}> {{ <urn:x:a> <urn:x:p> "theirs" }} }}')
    kept = push(store, endpoint, update_endpoint=update)
    assert kept.pruned == [] and stale in oxigraph.graph_counts()  # never dropped unless asked
    pruned = push(store, endpoint, update_endpoint=update, prune=True, iris=iris)
    assert pruned.pruned == [stale]
    assert oxigraph.graph_counts() == {**graph_counts(store), foreign: 1}


def test_push_graph_store_protocol(oxigraph, tiny_store, graph_counts):
    """One PUT per graph and the count queries (in batches of 500 graphs: the bundled
    catalog's push in tests/test_queries_remote.py verifies more than one batch), verified."""
    report = push(tiny_store, oxigraph.url + "/query", graph_store=oxigraph.url + "/store")
    assert report.mode == "graph-store" and report.verified is True
    graphs = len(tiny_store.named_graphs())
    assert graphs > 10 and report.graphs == graphs and report.quads == len(tiny_store)
    # one PUT per graph, the count queries, and the ASK that asks which server it is (Virtuoso's storage)
    assert report.requests == graphs + -(-graphs // 500) + 1
    assert oxigraph.graph_counts() == graph_counts(tiny_store)


def test_graph_store_push_twice_is_idempotent(oxigraph, small_store, graph_counts):
    store = GraphStore(small_store, read_only=True)
    endpoint = oxigraph.url + "/query"
    for _ in range(2):
        assert push(store, endpoint, graph_store=oxigraph.url + "/store").verified
        assert oxigraph.graph_counts() == graph_counts(store)


# ---------------------------------------------------------------------------
# authentication through a proxy that demands it


class AuthProxy:
    """Forwards to ``upstream`` only requests with the right Basic or Digest credentials."""

    def __init__(self, upstream: str, scheme: str, user: str, password: str) -> None:
        self.accepted = 0
        self.rejected = 0
        self.realm = "kg-test-realm"
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _authorised(self) -> bool:
                header = self.headers.get("Authorization") or ""
                if scheme == "basic":
                    expected = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
                    return header == expected
                if not header.startswith("Digest "):
                    return False
                fields = {}
                for part in header[len("Digest "):].split(","):
                    key, _, value = part.strip().partition("=")
                    fields[key] = value.strip('"')
                md5 = lambda text: hashlib.md5(text.encode()).hexdigest()  # noqa: E731
                ha1 = md5(f"{user}:{proxy.realm}:{password}")
                ha2 = md5(f"{self.command}:{fields.get('uri')}")
                want = md5(f"{ha1}:{fields.get('nonce')}:{fields.get('nc')}:{fields.get('cnonce')}:"
                           f"{fields.get('qop')}:{ha2}")
                return fields.get("username") == user and fields.get("response") == want

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                if not self._authorised():
                    proxy.rejected += 1
                    self.send_response(401)
                    if scheme == "basic":
                        self.send_header("WWW-Authenticate", f'Basic realm="{proxy.realm}"')
                    else:
                        self.send_header("WWW-Authenticate", f'Digest realm="{proxy.realm}", qop="auth", '
                                                             f'nonce="{secrets.token_hex(8)}", algorithm=MD5')
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                proxy.accepted += 1
                request = urllib.request.Request(upstream + self.path, data=body, method=self.command)
                for name in ("Content-Type", "Accept"):
                    if self.headers.get(name):
                        request.add_header(name, self.headers[name])
                try:
                    with urllib.request.urlopen(request, timeout=60) as response:
                        status, ctype, payload = response.status, response.headers.get("Content-Type"), response.read()
                except urllib.error.HTTPError as err:
                    status, ctype, payload = err.code, err.headers.get("Content-Type"), err.read()
                self.send_response(status)
                if ctype:
                    self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_PUT = _handle  # noqa: N815

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.parametrize("scheme", ["basic", "digest"])
def test_push_with_basic_and_digest_auth(oxigraph, small_store, scheme, graph_counts):
    store = GraphStore(small_store, read_only=True)
    proxy = AuthProxy(oxigraph.url, scheme, "loader", "pa55-w0rd")
    try:
        with pytest.raises(StoreError, match="401"):
            push(store, proxy.url + "/query", update_endpoint=proxy.url + "/update", user="loader",
                 password="wrong", auth=scheme, timeout=10)
        report = push(store, proxy.url + "/query", update_endpoint=proxy.url + "/update", user="loader",
                      password="pa55-w0rd", auth=scheme, timeout=10)
        assert report.verified is True and proxy.accepted >= 2
        gsp = push(store, proxy.url + "/query", graph_store=proxy.url + "/store", user="loader",
                   password="pa55-w0rd", auth=scheme, timeout=10)
        assert gsp.verified is True
    finally:
        proxy.stop()
    assert oxigraph.graph_counts() == graph_counts(store)


# ---------------------------------------------------------------------------
# errors and the command line


def test_push_errors(small_store):
    store = GraphStore(small_store, read_only=True)
    with pytest.raises(UsageError):
        push(store, "ftp://example.org/sparql")
    with pytest.raises(UsageError):
        push(store, "http://127.0.0.1:9/sparql", user="only-a-user")
    with pytest.raises(UsageError):
        push(store, "http://user:pw@127.0.0.1:9/sparql")
    with pytest.raises(StoreError, match="cannot reach"):
        push(store, f"http://127.0.0.1:{_free_port()}/sparql", timeout=5)
    # a server that accepts the connection and never answers: the timeout applies
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    try:
        with pytest.raises(StoreError, match="no answer within 1 s"):
            push(store, f"http://127.0.0.1:{silent.getsockname()[1]}/sparql", timeout=1)
    finally:
        silent.close()


def test_cli_push(oxigraph, small_store, capsys, graph_counts):
    args = ["push", "--store", str(small_store), "--endpoint", oxigraph.url + "/query",
            "--update-endpoint", oxigraph.url + "/update"]
    assert main(args) == 0
    assert main(args) == 0
    err = capsys.readouterr().err
    assert err.count("verified: the remote store holds the same number of quads") == 2
    store = GraphStore(small_store, read_only=True)
    assert oxigraph.graph_counts() == graph_counts(store)
    assert main(["push", "--store", str(small_store), "--endpoint", "http://127.0.0.1:1/q", "--timeout", "3"]) == 4
    assert main(["push", "--store", str(small_store), "--endpoint", "not-a-url"]) == 2


# -- hostile endpoints on loopback: push never leaks, never lies, never hangs ---------------


class ScriptedServer:
    """A loopback HTTP server that reads each request and answers with ``reply(request)``:
    raw bytes, or a callable that writes to the socket itself (to drip or garble)."""

    def __init__(self, reply) -> None:
        self.requests: list[bytes] = []
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.reply = reply
        self.stopped = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _read_request(self, conn: socket.socket) -> bytes:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return data
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                       if line.lower().startswith(b"content-length:")), 0)
        while len(body) < length:
            chunk = conn.recv(65536)
            if not chunk:
                break
            body += chunk
        return head + b"\r\n\r\n" + body

    def _serve(self) -> None:
        while not self.stopped.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                try:
                    request = self._read_request(conn)
                    self.requests.append(request)
                    answer = self.reply(request)
                    if callable(answer):
                        answer(conn)
                    else:
                        conn.sendall(answer)
                except OSError:
                    pass

    def stop(self) -> None:
        self.stopped.set()
        self.sock.close()


@pytest.fixture()
def one_graph_store(tmp_path, tiny_paths):
    store = GraphStore(tmp_path / "one")
    ingest_paths(store, [tiny_paths[1]])  # the seed record alone
    return store


def test_a_redirect_is_never_followed_and_credentials_stay_home(one_graph_store):
    elsewhere = ScriptedServer(lambda request: b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n")
    redirecting = ScriptedServer(lambda request: (
        f"HTTP/1.1 302 Found\r\nLocation: {elsewhere.url}/sparql?api_key=s3cret\r\nContent-Length: 0\r\n\r\n").encode())
    try:
        with pytest.raises(StoreError) as raised:
            push(one_graph_store, redirecting.url + "/sparql", user="u", password="pw", timeout=5)
        message = str(raised.value)
        assert "302" in message and "not followed" in message and elsewhere.url in message
        assert "s3cret" not in message and "\n" not in message
        assert elsewhere.requests == []  # nothing, and no Authorization header, went to the other port
        assert all(b"authorization: basic" in r.lower() for r in redirecting.requests if b"POST" in r[:5])
    finally:
        elsewhere.stop()
        redirecting.stop()


def test_a_dripping_server_cannot_hold_a_push_past_its_deadline(one_graph_store):
    def drip(conn):
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
        for _ in range(30):
            conn.sendall(b"x")
            time.sleep(2)

    server = ScriptedServer(lambda request: drip)
    started = time.monotonic()
    try:
        with pytest.raises(StoreError, match="no answer within 3 s"):
            push(one_graph_store, server.url + "/sparql", timeout=3)
        assert time.monotonic() - started < 8
    finally:
        server.stop()


@pytest.mark.parametrize("garbage", [b"HTTP/1.1 2OO OK\r\n\r\n", b"garbage\r\n\r\n",
                                     b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort"],
                         ids=["bad-status-line", "not-http", "incomplete-read"])
def test_garbled_answers_are_one_line(one_graph_store, garbage):
    server = ScriptedServer(lambda request: garbage)
    try:
        with pytest.raises(StoreError) as raised:
            push(one_graph_store, server.url + "/sparql", timeout=5)
        assert "\n" not in str(raised.value) and server.url.split("//")[1] in str(raised.value)
    finally:
        server.stop()


def test_a_huge_answer_is_refused_not_read_whole(one_graph_store, monkeypatch):
    from kg import remote_http

    monkeypatch.setattr(remote_http, "MAX_REPLY_BYTES", 1024 * 1024)
    body = b"x" * (3 * 1024 * 1024)
    server = ScriptedServer(lambda request: b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
    try:
        with pytest.raises(StoreError, match="larger than 1 MiB"):
            push(one_graph_store, server.url + "/sparql", timeout=10)
    finally:
        server.stop()


def test_secrets_in_the_url_are_never_printed(one_graph_store, capsys):
    server = ScriptedServer(lambda request: b"HTTP/1.1 500 Oops\r\nContent-Length: 4\r\n\r\nboom")
    try:
        code = main(["push", "--store", str(one_graph_store.path), "--endpoint", server.url + "/sparql?api_key=s3cret"])
        err = capsys.readouterr().err
        assert code == 4 and "s3cret" not in err and "api_key=***" in err and "pushed" not in err
    finally:
        server.stop()


def _echo_page(request: bytes, status: bytes) -> bytes:
    """An error page that echoes the request line and headers as some servers do: as sent,
    percent-decoded and HTML-escaped, in a long page (so that it must be cut too)."""
    import html
    from urllib.parse import unquote

    head = request.split(b"\r\n\r\n", 1)[0].decode("latin-1")
    page = (f"<html><body><h1>{status.decode()}</h1><pre>{head}</pre><p>decoded: {unquote(head)}</p>"
            f"<p>escaped: {html.escape(unquote(head))}</p>{'<p>padding</p>' * 4000}</body></html>").encode()
    return b"HTTP/1.1 %s\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s" % (status, len(page), page)


@pytest.mark.parametrize("status", [b"404 Not Found", b"500 Internal Server Error"])
def test_a_page_that_echoes_the_request_never_prints_a_secret(one_graph_store, status):
    """kg push (a real process) against a server whose error page echoes the request line and
    headers: the query-string value (as sent, decoded, HTML-escaped), the password and the Basic
    token are all hidden, and the page is cut to one short line."""
    import os
    import subprocess
    import sys

    server = ScriptedServer(lambda request: _echo_page(request, status))
    password = "pa55-w0rd-xyz"
    token = base64.b64encode(f"pushuser:{password}".encode()).decode()
    try:
        done = kg("push", "--store", str(one_graph_store.path),
                  "--endpoint", server.url + "/ds/query?api_key=SE%2FKRIT-9&graph=urn%3Aabc",
                  "--user", "pushuser", "--timeout", "10", timeout=60, env={"KG_PUSH_PASSWORD": password})
    finally:
        server.stop()
    err = done.stderr
    assert done.returncode == 4, err
    assert any(b"SE%2FKRIT-9" in r for r in server.requests)  # the server did get the secret
    for secret in ("SE%2FKRIT-9", "SE/KRIT-9", "SE%2fKRIT-9", "urn%3Aabc", "urn:abc", password, token, "pushuser"):
        assert secret not in err, (secret, err)
    error = [line for line in err.splitlines() if "error" in line]
    assert len(error) == 1 and f"HTTP {status.decode()[:3]}" in error[0] and len(error[0]) < 700, err
    assert "Traceback" not in err and "pushed" not in err
