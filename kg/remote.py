"""``kg push``: load every named graph of the store into an external SPARQL 1.1 store.

Two routes, both replacing each graph so that pushing twice leaves the remote store
exactly as pushing once:

- SPARQL 1.1 Update (the default): ``DROP SILENT GRAPH <g> ; INSERT DATA { GRAPH <g> { ... } }``,
  several small graphs per request and large graphs split over requests of at most
  ``batch_bytes``. Every term is written by pyoxigraph's serialiser (``str(term)``), so no
  value can change the structure of the update.
- Graph Store Protocol (``graph_store=URL``): one ``PUT URL?graph=<g>`` per graph with an
  N-Triples body, which the server swaps in atomically.

After loading, the quads of every pushed graph are counted on the remote side (one
query) and compared with the local counts. HTTP goes through one private ``urllib``
opener with a timeout on every request, Basic or Digest authentication (both sent up front).

>>> for text, quads in update_requests({"https://e.org/g": ['<https://e.org/s> <https://e.org/p> "v" .']}, 1024):
...     print(text)
DROP SILENT GRAPH <https://e.org/g> ;
INSERT DATA {
GRAPH <https://e.org/g> {
<https://e.org/s> <https://e.org/p> "v" .
}
}
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import socket
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Mapping
from urllib.parse import quote, urlencode, urlsplit

from pyoxigraph import Literal, NamedNode, RdfFormat, Triple, serialize

from .errors import StoreError, UsageError, safe_text
from .store import GraphStore
from .vocab import Iris

DEFAULT_TIMEOUT = 60.0
DEFAULT_BATCH_BYTES = 256 * 1024
AUTH_METHODS = ("basic", "digest")
USER_AGENT = "kg-push"


@dataclass
class PushReport:
    """What a push did: graphs and quads sent, requests made, and the remote check."""

    mode: str
    graphs: int = 0
    quads: int = 0
    requests: int = 0
    seconds: float = 0.0
    verified: bool | None = None
    mismatches: list[tuple[str, int, int]] = field(default_factory=list)
    pruned: list[str] = field(default_factory=list)


class _Unauthorized(Exception):
    def __init__(self, challenge: str, detail: str) -> None:
        super().__init__(detail)
        self.challenge, self.detail = challenge, detail


class _Digest:
    """HTTP Digest (RFC 7616: MD5, MD5-sess, SHA-256; qop=auth) sent pre-emptively.

    urllib's own handler first sends every request without credentials and resends it
    after the 401, so each large body goes out twice, and servers that answer the 401
    before reading the body (Virtuoso) break the connection mid-upload. Here one cheap
    probe learns the challenge, and every request then carries its Authorization header.
    """

    def __init__(self, user: str, password: str) -> None:
        self.user, self.password = user, password
        self.challenge: dict[str, str] | None = None
        self.count = 0
        self._lock = threading.Lock()

    def learn(self, header: str) -> bool:
        scheme, _, rest = header.strip().partition(" ")
        if scheme.lower() != "digest":
            return False
        fields = urllib.request.parse_keqv_list(urllib.request.parse_http_list(rest))
        if "nonce" not in fields or "realm" not in fields:
            return False
        with self._lock:
            self.challenge, self.count = fields, 0
        return True

    def header(self, method: str, url: str) -> str | None:
        with self._lock:
            if self.challenge is None:
                return None
            self.count += 1
            count = f"{self.count:08x}"
            c = self.challenge
        algorithm = c.get("algorithm", "MD5")
        digest = hashlib.sha256 if algorithm.upper().startswith("SHA-256") else hashlib.md5

        def h(text: str) -> str:
            return digest(text.encode("utf-8")).hexdigest()

        parts = urlsplit(url)
        uri = parts.path + ("?" + parts.query if parts.query else "")
        cnonce = secrets.token_hex(8)
        ha1 = h(f"{self.user}:{c['realm']}:{self.password}")
        if algorithm.upper().endswith("-SESS"):
            ha1 = h(f"{ha1}:{c['nonce']}:{cnonce}")
        ha2 = h(f"{method}:{uri}")
        qops = [q.strip() for q in c.get("qop", "").split(",") if q.strip()]
        fields = [f'username="{self.user}"', f'realm="{c["realm"]}"', f'nonce="{c["nonce"]}"', f'uri="{uri}"',
                  f"algorithm={algorithm}"]
        if "auth" in qops:
            response = h(f"{ha1}:{c['nonce']}:{count}:{cnonce}:auth:{ha2}")
            fields += ["qop=auth", f"nc={count}", f'cnonce="{cnonce}"']
        else:
            response = h(f"{ha1}:{c['nonce']}:{ha2}")
        fields.append(f'response="{response}"')
        if "opaque" in c:
            fields.append(f'opaque="{c["opaque"]}"')
        return "Digest " + ", ".join(fields)


class Remote:
    """HTTP to one remote store: a private opener (never installed globally), a timeout
    on every request, Basic or Digest authentication sent up front."""

    def __init__(self, *, user: str | None = None, password: str | None = None,
                 auth: str = "basic", timeout: float = DEFAULT_TIMEOUT) -> None:
        if auth not in AUTH_METHODS:
            raise UsageError(f"--auth must be one of {', '.join(AUTH_METHODS)}")
        if (user is None) != (password is None):
            raise UsageError("give both --user and --password (or neither)")
        if timeout <= 0:
            raise UsageError("--timeout must be positive")
        self.timeout = timeout
        self.requests = 0
        self._basic: str | None = None
        self._digest: _Digest | None = None
        if user is not None and auth == "basic":
            token = base64.b64encode(f"{user}:{password}".encode("utf-8")).decode("ascii")
            self._basic = f"Basic {token}"
        elif user is not None:
            self._digest = _Digest(user, password or "")
        self._opener = urllib.request.build_opener()

    def _send(self, method: str, url: str, body: bytes | None, headers: Mapping[str, str],
              authorization: str | None) -> bytes:
        request = urllib.request.Request(url, data=body, method=method)
        request.add_header("User-Agent", USER_AGENT)
        for name, value in headers.items():
            request.add_header(name, value)
        if authorization:
            request.add_header("Authorization", authorization)
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                return response.read()
        except urllib.error.HTTPError as err:
            detail = err.read(2000).decode("utf-8", "replace") if err.fp else ""
            if err.code == 401:
                raise _Unauthorized(err.headers.get("WWW-Authenticate") or "", detail) from None
            hint = " (check --user/--password/--auth)" if err.code == 403 else ""
            raise StoreError(f"{method} {safe_text(url, 120)}: HTTP {err.code} {safe_text(err.reason, 60)}"
                             f"{hint}: {safe_text(detail, 400)}") from None
        except urllib.error.URLError as err:
            raise StoreError(f"cannot reach {safe_text(url, 120)}: {safe_text(err.reason, 200)}") from None
        except (TimeoutError, socket.timeout):
            raise StoreError(f"{method} {safe_text(url, 120)}: no answer within {self.timeout:g} s") from None
        except OSError as err:
            raise StoreError(f"{method} {safe_text(url, 120)}: {safe_text(err, 200)}") from None

    def request(self, method: str, url: str, body: bytes | None = None,
                headers: Mapping[str, str] | None = None) -> bytes:
        self.requests += 1
        headers = headers or {}
        if self._digest is not None and self._digest.challenge is None:
            try:  # a cheap probe, only to learn the challenge
                self._send("GET", url, None, {}, None)
            except _Unauthorized as err:
                self._digest.learn(err.challenge)
            except StoreError:
                pass
        for attempt in (1, 2):
            authorization = self._basic or (self._digest.header(method, url) if self._digest else None)
            try:
                return self._send(method, url, body, headers, authorization)
            except _Unauthorized as err:
                # a Digest server may have moved on to a new nonce: learn it and try once more
                if attempt == 1 and self._digest is not None and self._digest.learn(err.challenge):
                    continue
                raise StoreError(f"{method} {safe_text(url, 120)}: HTTP 401 Unauthorized (check --user/"
                                 f"--password/--auth): {safe_text(err.detail, 300)}") from None
        raise AssertionError("unreachable")

    def update(self, endpoint: str, text: str) -> None:
        self.request("POST", endpoint, urlencode({"update": text}).encode("utf-8"),
                     {"Content-Type": "application/x-www-form-urlencoded; charset=UTF-8"})

    def select(self, endpoint: str, text: str) -> list[dict]:
        raw = self.request("POST", endpoint, urlencode({"query": text}).encode("utf-8"),
                           {"Content-Type": "application/x-www-form-urlencoded; charset=UTF-8",
                            "Accept": "application/sparql-results+json"})
        try:
            return json.loads(raw)["results"]["bindings"]
        except (ValueError, KeyError, TypeError):
            raise StoreError(f"{safe_text(endpoint, 120)} did not answer with SPARQL JSON results") from None

    def put(self, url: str, body: bytes, media_type: str) -> None:
        self.request("PUT", url, body, {"Content-Type": media_type})

def _check_url(url: str, option: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise UsageError(f"{option} must be an http(s) URL, got {safe_text(url, 120)!r}")
    if parts.username or parts.password:
        raise UsageError(f"{option}: pass credentials with --user/--password, not in the URL")
    return url


def _lines(store: GraphStore, graph: NamedNode) -> list[str]:
    return [f"{q.subject} {q.predicate} {q.object} ." for q in store.quads(graph)]


def update_requests(graphs: Mapping[str, list[str]], batch_bytes: int) -> Iterator[tuple[str, int]]:
    """(SPARQL Update text, quads in it) pairs that replace every graph of ``graphs`` (IRI -> N-Triples lines,
    already serialised), each at most about ``batch_bytes`` long (a single line may exceed it).

    A graph's first request drops it; a graph split over several requests continues with
    ``INSERT DATA`` only.
    """
    batch: list[tuple[str, bool, list[str]]] = []
    size = 0

    def text(parts: list[tuple[str, bool, list[str]]]) -> tuple[str, int]:
        drops = [f"DROP SILENT GRAPH {NamedNode(g)}" for g, drop, _ in parts if drop]
        blocks = [f"GRAPH {NamedNode(g)} {{\n" + "\n".join(lines) + "\n}" for g, _, lines in parts if lines]
        ops = drops + (["INSERT DATA {\n" + "\n".join(blocks) + "\n}"] if blocks else [])
        return " ;\n".join(ops), sum(len(lines) for _, _, lines in parts)

    for graph, lines in graphs.items():
        drop, current = True, list[str]()
        for line in lines:
            if size + len(line) + 1 > batch_bytes and (current or batch):
                if current:
                    batch.append((graph, drop, current))
                    drop, current = False, []
                yield text(batch)
                batch, size = [], 0
            current.append(line)
            size += len(line) + 1
        if current or drop:
            batch.append((graph, drop, current))
            size += len(graph) + 40
    if batch:
        yield text(batch)


def remote_counts(remote: Remote, endpoint: str, graphs: Iterable[NamedNode]) -> dict[str, int]:
    """Quads per graph on the remote side, for the graphs given (absent graphs: 0)."""
    graphs = list(graphs)
    counts = {g.value: 0 for g in graphs}
    for start in range(0, len(graphs), 500):
        values = " ".join(str(g) for g in graphs[start:start + 500])
        rows = remote.select(endpoint, f"SELECT ?g (COUNT(*) AS ?n) WHERE {{ VALUES ?g {{ {values} }} "
                                       "GRAPH ?g { ?s ?p ?o } } GROUP BY ?g")
        for row in rows:
            try:
                counts[row["g"]["value"]] = int(row["n"]["value"])
            except (KeyError, ValueError):
                raise StoreError(f"{safe_text(endpoint, 120)}: unexpected answer to the count query") from None
    return counts


def _remote_graphs_under(remote: Remote, endpoint: str, prefix: str) -> list[str]:
    rows = remote.select(endpoint, "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } "
                                   f"FILTER(STRSTARTS(STR(?g), {Literal(prefix)})) }}")
    return [row["g"]["value"] for row in rows if "g" in row]


def push(store: GraphStore, endpoint: str, *, update_endpoint: str | None = None,
         graph_store: str | None = None, user: str | None = None, password: str | None = None,
         auth: str = "basic", timeout: float = DEFAULT_TIMEOUT, batch_bytes: int = DEFAULT_BATCH_BYTES,
         verify: bool = True, prune: bool = False, iris: Iris | None = None, graph_param: str = "graph",
         progress: Callable[[int, int], None] | None = None) -> PushReport:
    """Replace every named graph of ``store`` in the remote store at ``endpoint``.

    ``endpoint`` is the SPARQL query endpoint (used to verify); ``update_endpoint``
    (default: ``endpoint``) receives the updates; with ``graph_store`` the graphs are
    sent with Graph Store Protocol PUTs instead. ``prune`` drops remote graphs under the
    data's ``graph/`` namespace that the local store no longer has. ``progress`` is
    called with (quads sent, quads in all).
    """
    _check_url(endpoint, "--endpoint")
    update_endpoint = _check_url(update_endpoint or endpoint, "--update-endpoint")
    if graph_store is not None:
        _check_url(graph_store, "--graph-store")
    if batch_bytes < 1024:
        raise UsageError("the batch size must be at least 1024 bytes")
    remote = Remote(user=user, password=password, auth=auth, timeout=timeout)
    graphs = store.named_graphs()
    if not graphs:
        raise StoreError("the store holds no named graphs: nothing to push (run 'kg build' first)")
    report = PushReport(mode="graph-store" if graph_store else "update", graphs=len(graphs))
    local = {g.value: 0 for g in graphs}
    started = time.perf_counter()
    if graph_store is not None:
        total = len(store)
        for graph in graphs:
            triples = [Triple(q.subject, q.predicate, q.object) for q in store.quads(graph)]
            body = serialize(triples, format=RdfFormat.N_TRIPLES) or b""
            separator = "&" if "?" in graph_store else "?"
            remote.put(f"{graph_store}{separator}{quote(graph_param)}={quote(graph.value, safe='')}", body,
                       "application/n-triples")
            local[graph.value] = len(triples)
            report.quads += len(triples)
            if progress:
                progress(report.quads, total)
    else:
        lines = {g.value: _lines(store, g) for g in graphs}
        for graph_iri, graph_lines in lines.items():
            local[graph_iri] = len(graph_lines)
        total = sum(local.values())
        for text, quads in update_requests(lines, batch_bytes):
            remote.update(update_endpoint, text)
            report.quads += quads
            if progress:
                progress(report.quads, total)
    if prune:
        prefix = (iris or Iris()).base + "graph/"
        stale = [g for g in _remote_graphs_under(remote, endpoint, prefix) if g not in local]
        for start in range(0, len(stale), 200):
            remote.update(update_endpoint, " ;\n".join(f"DROP SILENT GRAPH {NamedNode(g)}"
                                                       for g in stale[start:start + 200]))
        report.pruned = stale
    if verify:
        counts = remote_counts(remote, endpoint, graphs)
        report.mismatches = [(g, n, counts.get(g, 0)) for g, n in local.items() if counts.get(g, 0) != n]
        report.verified = not report.mismatches
    report.requests = remote.requests
    report.seconds = time.perf_counter() - started
    return report


__all__ = ["AUTH_METHODS", "PushReport", "Remote", "push", "remote_counts", "update_requests"]
