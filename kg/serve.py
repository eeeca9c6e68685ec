"""``kg serve``: a SPARQL 1.1 Protocol endpoint and linked-data pages over the store.

Layout of a running server::

    HTTP threads (ThreadingHTTPServer, standard library)
      - parse the request, enforce size limits, the bearer token and content negotiation
      - hand the work to a pool of query worker *processes*
    query workers (one process each, store opened read-only)
      - guard: refuse SERVICE / LOAD / non-local FROM by walking rdflib's algebra
        (fail closed when rdflib cannot parse the text), then evaluate with pyoxigraph
      - serialise results, entity pages (HTML, Turtle, JSON-LD, N-Triples, RDF/XML)

pyoxigraph cannot cancel a running query, so the only real time limit is to kill the
process: a request that passes its deadline gets ``504`` with a JSON error body, its
worker is killed and replaced, and the other workers keep answering. Results are never
truncated silently: more than ``max_rows`` rows (or ``max_bytes`` bytes) gives ``422``.

Routes: ``/`` query page; ``/sparql`` (also ``/query``) queries by GET and POST
(form or ``application/sparql-query``); ``/update`` (or ``/sparql`` with an update)
only with ``allow_update`` and ``Authorization: Bearer <token>``;
``/id/<path>`` and ``/system/<id>`` entity pages; ``/health``.

>>> negotiate("text/html,application/xml;q=0.9,*/*;q=0.8", SOLUTION_OFFERS)
'html'
>>> negotiate("text/csv", SOLUTION_OFFERS), negotiate("image/png", SOLUTION_OFFERS)
('csv', None)
>>> check_query("SELECT * WHERE { ?s ?p ?o }", set()).form
'SELECT'
>>> check_query("select * { filter exists { service silent ?x { ?s ?p ?o } } }", set())
Traceback (most recent call last):
...
kg.serve.QueryRefused: SERVICE is not allowed: this endpoint never queries other endpoints
"""

from __future__ import annotations

import hmac
import html
import ipaddress
import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from multiprocessing.connection import Connection
from typing import Any, Callable, Iterable
from urllib.parse import parse_qs, quote, unquote, urlsplit

from pyoxigraph import (
    Literal, NamedNode, QueryBoolean, QueryResultsFormat, QuerySolutions, RdfFormat, Triple, parse_query_results,
)
from pyoxigraph import serialize as serialize_rdf

from .errors import QueryError, StoreError, UsageError, safe_text
from .vocab import ATTRIBUTION, DEFAULT_BASE, KG, PREFIXES, RDF, RDFS, SCHEMA, SKOS, Iris

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
DEFAULT_TIMEOUT = 10.0
DEFAULT_MAX_ROWS = 10_000
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
DEFAULT_MAX_REQUEST_BYTES = 1024 * 1024
MAX_QUERY_CHARS = 64 * 1024
MAX_URL_CHARS = 16 * 1024
MAX_CONNECTIONS = 256
DEFAULT_WORKER_MEMORY_MB = 2048
MIN_TOKEN_CHARS = 16

# (format key, media type) in the server's order of preference.
SOLUTION_OFFERS = [
    ("json", "application/sparql-results+json"), ("json", "application/json"),
    ("xml", "application/sparql-results+xml"), ("xml", "application/xml"), ("xml", "text/xml"),
    ("csv", "text/csv"), ("tsv", "text/tab-separated-values"), ("html", "text/html"),
]
GRAPH_OFFERS = [
    ("turtle", "text/turtle"), ("turtle", "application/turtle"), ("turtle", "application/x-turtle"),
    ("jsonld", "application/ld+json"), ("jsonld", "application/json"), ("ntriples", "application/n-triples"),
    ("ntriples", "text/plain"), ("rdfxml", "application/rdf+xml"), ("html", "text/html"),
]
ENTITY_OFFERS = [("html", "text/html"), ("html", "application/xhtml+xml")] + [
    offer for offer in GRAPH_OFFERS if offer[0] != "html"]
CONTENT_TYPES = {
    "json": "application/sparql-results+json", "xml": "application/sparql-results+xml",
    "csv": "text/csv; charset=utf-8", "tsv": "text/tab-separated-values; charset=utf-8",
    "html": "text/html; charset=utf-8", "turtle": "text/turtle; charset=utf-8",
    "jsonld": "application/ld+json", "ntriples": "application/n-triples", "rdfxml": "application/rdf+xml",
}
SOLUTION_FORMATS = ("json", "xml", "csv", "tsv", "html")
GRAPH_FORMATS = ("turtle", "jsonld", "ntriples", "rdfxml", "html")
HTML_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; "
                               "base-uri 'none'; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
}


class QueryRefused(QueryError):
    """The guard refused a query or update before evaluation (SERVICE, LOAD, a remote FROM, unparsable)."""


@dataclass
class ServeConfig:
    """Everything ``kg serve`` can be told; the CLI options map one to one."""

    store: str
    base: str = DEFAULT_BASE
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    timeout: float = DEFAULT_TIMEOUT
    max_rows: int = DEFAULT_MAX_ROWS
    max_bytes: int = DEFAULT_MAX_BYTES
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES
    workers: int = 0  # 0: chosen from the number of CPUs
    worker_memory_mb: int = DEFAULT_WORKER_MEMORY_MB
    allow_update: bool = False
    token: str | None = field(default=None, repr=False)
    cors: str | None = None

    def check(self) -> None:
        if not os.path.isdir(self.store):
            raise StoreError(f"no store at {self.store}: run 'kg build' first (or pass --store)")
        Iris(self.base)
        if self.timeout <= 0 or self.max_rows < 1 or self.max_request_bytes < 1024 or self.workers < 0:
            raise UsageError("timeout, max-rows, max-request-bytes and workers must be positive")
        if self.allow_update:
            if not self.token:
                raise UsageError("--allow-update needs a bearer token: --token or KG_TOKEN")
            if len(self.token) < MIN_TOKEN_CHARS:
                raise UsageError(f"the update token must have at least {MIN_TOKEN_CHARS} characters")
        if self.cors is not None and (self.cors == "*" or not _is_web_iri(self.cors)):
            raise UsageError("--cors takes one origin such as https://example.org (never '*')")

    def worker_count(self) -> int:
        return self.workers or max(2, min(8, os.cpu_count() or 2))


# ---------------------------------------------------------------------------
# Content negotiation


def _parse_accept(header: str) -> list[tuple[str, str, float]]:
    ranges = []
    for part in header.split(","):
        pieces = [p.strip() for p in part.split(";")]
        if not pieces[0] or "/" not in pieces[0]:
            continue
        main, sub = (x.strip().lower() for x in pieces[0].split("/", 1))
        q = 1.0
        for param in pieces[1:]:
            if param.lower().startswith("q="):
                try:
                    q = max(0.0, min(1.0, float(param[2:])))
                except ValueError:
                    q = 0.0
        ranges.append((main, sub, q))
    return ranges


def negotiate(accept: str | None, offers: list[tuple[str, str]]) -> str | None:
    """The format key of the best offer for an ``Accept`` header (ties: server order), or None."""
    if not accept or not accept.strip():
        return offers[0][0]
    ranges = _parse_accept(accept)
    best: tuple[float, int, str] | None = None
    for index, (key, media) in enumerate(offers):
        main, sub = media.split("/")
        specificity, quality = -1, 0.0
        for r_main, r_sub, r_q in ranges:
            if (r_main, r_sub) == (main, sub):
                s = 2
            elif r_main == main and r_sub == "*":
                s = 1
            elif (r_main, r_sub) == ("*", "*"):
                s = 0
            else:
                continue
            if s > specificity:
                specificity, quality = s, r_q
        if quality > 0 and (best is None or quality > best[0]):
            best = (quality, index, key)
    return best[2] if best else None


# ---------------------------------------------------------------------------
# The guard: refuse what could reach the network, before evaluation


_IRIREF = re.compile(r'<[^<>"{}|^`\\\x00-\x20]*>')


def _code_only(text: str) -> str:
    """``text`` with comments, string literals and IRIs blanked out (keywords remain)."""
    out, i, n = [], 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "#":
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
            continue
        if ch in "\"'":
            quote_ = ch * 3 if text.startswith(ch * 3, i) else ch
            j = i + len(quote_)
            while j < n and not text.startswith(quote_, j):
                j += 2 if text[j] == "\\" else 1
            j = min(n, j + len(quote_))
            out.append(" " * (j - i))
            i = j
            continue
        if ch == "<":
            m = _IRIREF.match(text, i)
            if m:
                out.append(" " * (m.end() - i))
                i = m.end()
                continue
        out.append(ch)
        i += 1
    return "".join(out)


def _keyword(text: str, word: str) -> bool:
    """Whether the bare keyword ``word`` occurs outside strings, IRIs, comments and names."""
    return re.search(rf"(?<![\w?$:\-]){word}(?![\w:\-])", _code_only(text), re.IGNORECASE) is not None


def _walk(node: Any) -> Iterable[Any]:
    """Every node of an rdflib parse tree or algebra (CompValue, lists, dicts), depth first."""
    from rdflib.plugins.sparql.parserutils import CompValue

    stack, seen = [node], set()
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, CompValue):
            yield item
            stack.extend(item.values())
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)


@dataclass
class CheckedQuery:
    form: str  # SELECT, ASK, CONSTRUCT, DESCRIBE
    has_dataset: bool  # FROM / FROM NAMED present


_FORMS = {"SelectQuery": "SELECT", "AskQuery": "ASK", "ConstructQuery": "CONSTRUCT", "DescribeQuery": "DESCRIBE"}


def _refuse_service(nodes: list[Any], text: str) -> None:
    if _keyword(text, "SERVICE") or any(n.name == "ServiceGraphPattern" for n in nodes):
        raise QueryRefused("SERVICE is not allowed: this endpoint never queries other endpoints")


def _check_graphs(iris: Iterable[str], local_graphs: set[str], what: str) -> None:
    for iri in iris:
        if iri not in local_graphs:
            raise QueryRefused(f"{what} <{safe_text(iri, 120)}> is not a graph of this store; "
                               "remote graphs are never fetched")


def check_query(text: str, local_graphs: set[str]) -> CheckedQuery:
    """Parse ``text`` with rdflib and walk its algebra; raise ``QueryRefused`` for SERVICE
    (any form: lower case, SILENT, a variable, nested), for FROM / FROM NAMED naming a
    graph that is not in ``local_graphs``, and for anything rdflib cannot parse (fail closed).
    """
    from rdflib.plugins.sparql.algebra import translateQuery
    from rdflib.plugins.sparql.parser import parseQuery

    try:
        parsed = parseQuery(text)
        algebra = translateQuery(parsed).algebra
    except Exception as err:  # noqa: BLE001 - any failure to understand the text is a refusal
        if _keyword(text, "SERVICE"):
            raise QueryRefused("SERVICE is not allowed: this endpoint never queries other endpoints") from None
        if _keyword(text, "INSERT") or _keyword(text, "DELETE") or _keyword(text, "LOAD") or _keyword(text, "DROP"):
            raise QueryRefused("this is not a query (updates go to /update, when enabled)") from None
        raise QueryRefused(f"malformed or unsupported SPARQL (checked with rdflib before evaluation): "
                           f"{safe_text(err, 300)}") from None
    nodes = list(_walk(algebra)) + list(_walk(parsed))
    _refuse_service(nodes, text)
    datasets = [n for n in nodes if n.name == "DatasetClause"]
    _check_graphs({str(n.get("default") or n.get("named")) for n in datasets}, local_graphs, "FROM")
    return CheckedQuery(form=_FORMS.get(algebra.name, algebra.name), has_dataset=bool(datasets))


def check_update(text: str) -> None:
    """Refuse LOAD and SERVICE anywhere in an update, and anything rdflib cannot parse."""
    from rdflib.plugins.sparql.algebra import translateUpdate
    from rdflib.plugins.sparql.parser import parseUpdate

    if _keyword(text, "LOAD"):
        raise QueryRefused("LOAD is not allowed: this endpoint never fetches remote data")
    try:
        parsed = parseUpdate(text)
        algebra = translateUpdate(parsed)
    except Exception as err:  # noqa: BLE001 - fail closed
        if _keyword(text, "SERVICE"):
            raise QueryRefused("SERVICE is not allowed: this endpoint never queries other endpoints") from None
        raise QueryRefused(f"malformed or unsupported SPARQL Update (checked with rdflib): "
                           f"{safe_text(err, 300)}") from None
    nodes = list(_walk(algebra.algebra)) + list(_walk(parsed))
    if any(n.name == "Load" for n in nodes):
        raise QueryRefused("LOAD is not allowed: this endpoint never fetches remote data")
    _refuse_service(nodes, text)


# ---------------------------------------------------------------------------
# HTML helpers (every literal escaped; href only for http(s) IRIs and local paths)


def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _is_web_iri(text: str) -> bool:
    try:
        parts = urlsplit(text)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.netloc) and not any(
        ch.isspace() or ord(ch) < 32 for ch in text)


_LOCAL_SAFE = "/:@!$&'()*+,;=-._~%"

_CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1b1f24;background:#fafbfc}
header{background:#16324f;color:#fff;padding:.6em 1.2em}header a{color:#fff;text-decoration:none;font-weight:600}
header nav a{font-weight:400;margin-left:1.2em;opacity:.9}
main{max-width:1080px;margin:1em auto;padding:0 1.2em}footer{color:#57606a;font-size:12px;max-width:1080px;margin:2em auto;padding:0 1.2em}
h1{font-size:1.6em;margin:.3em 0}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #d0d7de;padding-bottom:.2em}
table{border-collapse:collapse;width:100%;background:#fff;font-size:13.5px}
th,td{border:1px solid #d0d7de;padding:.3em .5em;text-align:left;vertical-align:top}th{background:#eef2f6}
td{overflow-wrap:anywhere}a{color:#0b57a4}.muted{color:#57606a}.dt{color:#8c959f;font-size:11px}
textarea{width:100%;font:13px/1.4 ui-monospace,Menlo,Consolas,monospace;box-sizing:border-box}
.bar{margin:.5em 0;display:flex;gap:.8em;align-items:center;flex-wrap:wrap}
button{background:#16324f;color:#fff;border:0;padding:.45em 1.2em;border-radius:4px;font-size:14px;cursor:pointer}
pre{background:#fff;border:1px solid #d0d7de;padding:.6em;overflow:auto;font-size:12.5px}
.kv td:first-child{width:16em}.pill{display:inline-block;background:#e7eef6;border-radius:9px;padding:0 .5em;margin:0 .2em .2em 0}
ul.examples li{margin:.2em 0}
"""


def _page(title: str, body: str, *, head: str = "") -> bytes:
    return (
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>{_esc(title)}</title><style>{_CSS}</style>{head}</head><body>"
        "<header><a href=\"/\">AI Agent Infrastructure Landscape &middot; knowledge graph</a>"
        "<nav style=\"display:inline\"><a href=\"/\">SPARQL query</a>"
        "<a href=\"/sparql\">service description</a></nav></header>"
        f"<main>{body}</main><footer>Data: {_esc(ATTRIBUTION)}</footer></body></html>\n"
    ).encode("utf-8")


class _Html:
    """Renders terms for HTML: IRIs under the base become local links, other http(s)
    IRIs external links, everything else escaped text."""

    def __init__(self, base: str, labels: dict[str, str] | None = None) -> None:
        self.base = base
        self.labels = labels or {}
        self.pairs = sorted(((k, v) for k, v in {**PREFIXES, "data": base, "sys": base + "system/"}.items()),
                            key=lambda kv: -len(kv[1]))

    def href(self, iri: str) -> str | None:
        if iri.startswith(self.base) and len(iri) > len(self.base):
            return "/id/" + quote(iri[len(self.base):], safe=_LOCAL_SAFE)
        if _is_web_iri(iri):
            return iri
        return None

    def compact(self, iri: str) -> str:
        for prefix, ns in self.pairs:
            if iri.startswith(ns) and len(iri) > len(ns):
                return f"{prefix}:{iri[len(ns):]}"
        return iri

    def iri(self, iri: str, label: str | None = None) -> str:
        text = label or self.labels.get(iri) or self.compact(iri)
        target = self.href(iri)
        if target is None:
            return f"<span>{_esc(text)}</span>"
        external = "" if target.startswith("/") else ' rel="nofollow noopener noreferrer"'
        return f'<a href="{_esc(target)}"{external}>{_esc(text)}</a>'

    def term(self, term: Any, label: str | None = None) -> str:
        if term is None:
            return ""
        if isinstance(term, NamedNode):
            return self.iri(term.value, label)
        if isinstance(term, Literal):
            extra = ""
            if term.language:
                extra = f' <span class="dt">@{_esc(term.language)}</span>'
            elif term.datatype.value not in ("http://www.w3.org/2001/XMLSchema#string",):
                extra = f' <span class="dt">{_esc(self.compact(term.datatype.value))}</span>'
            return _esc(term.value) + extra
        return _esc(str(term))


def _table(headers: list[str], rows: list[list[str]], css: str = "") -> str:
    head = "".join(f"<th>{_esc(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return f'<table class="{css}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


# ---------------------------------------------------------------------------
# The query worker (runs in its own process)


class _Reply(Exception):
    """An HTTP answer decided inside a worker or a handler (usually an error)."""

    def __init__(self, status: int, error: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.error, self.message, self.extra = status, error, message, extra

    def reply(self) -> dict:
        return _json_reply(self.status, {"error": self.error, "message": self.message, **self.extra})


def _json_reply(status: int, document: dict, headers: dict | None = None) -> dict:
    return {"status": status, "type": "application/json",
            "body": json.dumps(document, ensure_ascii=False).encode("utf-8") + b"\n", "headers": headers or {}}


def _sparql_prefixes() -> str:
    return "".join(f"PREFIX {name}: {NamedNode(ns)}\n" for name, ns in PREFIXES.items())


class _Worker:
    """Holds a read-only store; answers query and entity requests."""

    def __init__(self, settings: dict) -> None:
        from .store import GraphStore

        self.settings = settings
        self.iris = Iris(settings["base"])
        self.store = GraphStore.open_existing(settings["store"], read_only=True)
        self.graphs = {g.value for g in self.store.named_graphs()}
        self.prefixes = _sparql_prefixes()
        self._checked: OrderedDict[str, CheckedQuery | QueryRefused] = OrderedDict()
        self.check("SELECT * WHERE { ?s ?p ?o } LIMIT 1")  # warm rdflib's parser

    def check(self, text: str) -> CheckedQuery:
        """``check_query`` against this store's graphs, remembered for the last 1000 texts
        (the answer depends only on the text and the graphs, which a worker never sees change)."""
        known = self._checked.get(text)
        if known is None:
            try:
                known = check_query(text, self.graphs)
            except QueryRefused as err:
                known = err
            self._checked[text] = known
            if len(self._checked) > 1000:
                self._checked.popitem(last=False)
        else:
            self._checked.move_to_end(text)
        if isinstance(known, QueryRefused):
            raise QueryRefused(str(known))
        return known

    # -- SPARQL queries ----------------------------------------------------

    def query(self, msg: dict) -> dict:
        text = msg["query"]
        checked = self.check(text)
        kwargs: dict[str, Any] = {}
        if msg.get("default") is not None or msg.get("named") is not None:
            _check_graphs(msg.get("default") or [], self.graphs, "default-graph-uri")
            _check_graphs(msg.get("named") or [], self.graphs, "named-graph-uri")
            kwargs["default_graph"] = [NamedNode(g) for g in msg.get("default") or []]
            if msg.get("named") is not None:
                kwargs["named_graphs"] = [NamedNode(g) for g in msg["named"]]
        elif not checked.has_dataset:
            kwargs["use_default_graph_as_union"] = True
        solutions_format, graph_format = msg.get("solutions"), msg.get("graph")
        graph_form = checked.form in ("CONSTRUCT", "DESCRIBE")
        wanted = graph_format if graph_form else solutions_format
        if wanted is None:
            offered = GRAPH_OFFERS if graph_form else SOLUTION_OFFERS
            raise _Reply(406, "not-acceptable", f"a {checked.form} result can be sent as: "
                         + ", ".join(sorted({m for _, m in offered})))
        try:
            result = self.store._store.query(text, **kwargs)
            max_rows = msg["max_rows"]
            if isinstance(result, QueryBoolean):
                return self._boolean(bool(result), wanted, msg)
            if isinstance(result, QuerySolutions):
                variables = [v.value for v in result.variables]
                rows = _take(result, max_rows, "rows")
                return self._solutions(variables, rows, wanted, msg)
            triples = _take(result, max_rows, "triples")
            return self._triples(triples, wanted, msg)
        except SyntaxError as err:
            raise _Reply(400, "malformed-query", f"malformed SPARQL: {safe_text(err, 400)}") from None
        except (OSError, RuntimeError, ValueError) as err:
            raise _Reply(500, "query-failed", safe_text(err, 400)) from None

    def _body(self, fmt: str, body: bytes, msg: dict) -> dict:
        if len(body) > msg["max_bytes"]:
            raise _Reply(422, "result-too-large",
                         f"the result is larger than {msg['max_bytes']} bytes; add LIMIT or narrow the query",
                         maxBytes=msg["max_bytes"])
        headers = dict(HTML_HEADERS) if fmt == "html" else {}
        return {"status": 200, "type": CONTENT_TYPES[fmt], "body": body, "headers": headers}

    def _boolean(self, value: bool, fmt: str, msg: dict) -> dict:
        if fmt == "html":
            body = _page("ASK result", f"<h1>ASK</h1><p>Answer: <strong>{'true' if value else 'false'}</strong></p>"
                         + _query_form(msg["query"], "html"))
            return self._body(fmt, body, msg)
        parsed = parse_query_results(json.dumps({"head": {}, "boolean": value}).encode(),
                                     format=QueryResultsFormat.JSON)
        return self._body(fmt, parsed.serialize(format=RESULT_FORMATS[fmt]), msg)

    def _solutions(self, variables: list[str], rows: list, fmt: str, msg: dict) -> dict:
        if fmt == "html":
            render = _Html(self.iris.base)
            table = _table(variables, [[render.term(row[v]) for v in variables] for row in rows])
            body = _page("Query results", f"<h1>Results</h1><p class=\"muted\">{len(rows)} row(s)</p>{table}"
                         + "<h2>Query</h2>" + _query_form(msg["query"], "html"))
            return self._body(fmt, body, msg)
        # Re-serialise the rows taken (at most max_rows) with pyoxigraph's own writers,
        # through TSV, whose terms are written by pyoxigraph's term serialiser.
        lines = ["\t".join(f"?{v}" for v in variables)]
        for row in rows:
            lines.append("\t".join("" if row[v] is None else str(row[v]) for v in variables))
        parsed = parse_query_results(("\n".join(lines) + "\n").encode("utf-8"), format=QueryResultsFormat.TSV)
        return self._body(fmt, parsed.serialize(format=RESULT_FORMATS[fmt]), msg)

    def _triples(self, triples: list, fmt: str, msg: dict) -> dict:
        if fmt == "html":
            render = _Html(self.iris.base)
            table = _table(["subject", "predicate", "object"],
                           [[render.term(t.subject), render.term(t.predicate), render.term(t.object)]
                            for t in triples])
            body = _page("Query results", f"<h1>Triples</h1><p class=\"muted\">{len(triples)} triple(s)</p>"
                         f"{table}<h2>Query</h2>" + _query_form(msg["query"], "html"))
            return self._body(fmt, body, msg)
        return self._body(fmt, self._serialise(triples, fmt), msg)

    def _serialise(self, triples: list, fmt: str) -> bytes:
        kwargs = {"prefixes": {k: v for k, v in PREFIXES.items() if k != "sh"}} if fmt in ("turtle", "rdfxml") else {}
        return serialize_rdf(triples, format=RDF_FORMATS[fmt], **kwargs)

    # -- entity pages --------------------------------------------------------

    def entity(self, msg: dict) -> dict:
        from .vocab import ID_PATTERN

        rest, fmt = msg["rest"], msg["format"]
        system_id = rest[len("system/"):] if rest.startswith("system/") else None
        if system_id is not None and ID_PATTERN.match(system_id):
            iri = self.iris.system(system_id)
            if not self._exists(iri):
                raise _Reply(404, "not-found", f"no system {safe_text(system_id, 120)} in this store")
            if fmt == "html":
                return self._body("html", self._system_page(system_id, iri), msg)
            quads = self._system_quads(system_id, iri)
        else:
            iri = None
            for candidate in dict.fromkeys((rest, unquote(rest))):
                try:
                    node = NamedNode(self.iris.base + candidate)
                except ValueError:
                    continue
                if self._exists(node, any_type=True):
                    iri = node
                    break
            if iri is None:
                raise _Reply(404, "not-found", "no such resource in this store")
            quads = list(self.store._store.quads_for_pattern(iri, None, None, None))
            if fmt == "html":
                return self._body("html", self._resource_page(iri, quads), msg)
        if fmt == "jsonld":
            from .exports import jsonld_bytes
            from .store import GraphStore

            scratch = GraphStore()
            scratch.replace_graphs({}, additions=quads)
            document = json.loads(jsonld_bytes(scratch, self.iris))
            # One flat graph, like the Turtle: the nodes of every named graph together
            # (a node given twice is merged by JSON-LD processors).
            flat = {"@context": document["@context"],
                    "@graph": [node for graph in document["@graph"] for node in graph.get("@graph", [])]}
            body = json.dumps(flat, ensure_ascii=False, indent=1).encode("utf-8") + b"\n"
            return self._body(fmt, body, msg)
        triples = list(dict.fromkeys(Triple(q.subject, q.predicate, q.object) for q in quads))
        triples.sort(key=lambda t: (t.subject != iri, str(t.subject), str(t.predicate), str(t.object)))
        return self._body(fmt, self._serialise(triples, fmt), msg)

    def _exists(self, iri: Any, any_type: bool = False) -> bool:
        if any_type:
            return next(iter(self.store._store.quads_for_pattern(iri, None, None, None)), None) is not None
        return next(iter(self.store._store.quads_for_pattern(iri, RDF.type, KG.System, None)), None) is not None

    def _system_quads(self, system_id: str, iri: Any) -> list:
        s = self.store._store
        edges, analysis = self.iris.edges_graph, self.iris.analysis_graph
        quads = list(s.quads_for_pattern(None, None, None, self.iris.record_graph(system_id)))
        quads += s.quads_for_pattern(iri, None, None, edges)
        quads += s.quads_for_pattern(None, None, iri, edges)
        for link in (KG.source, KG.target):
            for q in list(s.quads_for_pattern(None, link, iri, edges)):
                quads += s.quads_for_pattern(q.subject, None, None, edges)
        quads += s.quads_for_pattern(iri, None, None, analysis)
        return list(dict.fromkeys(quads))

    def _labels(self, iris: Iterable[Any]) -> dict[str, str]:
        labels: dict[str, str] = {}
        for node in iris:
            if not isinstance(node, NamedNode) or node.value in labels:
                continue
            for predicate in (SCHEMA.name, SKOS.prefLabel, RDFS.label):
                found = next(iter(self.store._store.quads_for_pattern(node, predicate, None, None)), None)
                if found is not None:
                    labels[node.value] = found.object.value
                    break
        return labels

    def _select(self, body: str, system: Any) -> list[dict]:
        return self.store.select(self.prefixes + body, {"sys": system})

    def _system_page(self, system_id: str, iri: Any) -> bytes:
        record_graph = self.iris.record_graph(system_id)
        facts = [q for q in self.store._store.quads_for_pattern(iri, None, None, record_graph)]
        skip = {KG.cell, KG.taxonomyAssignment, KG.sectionMembership, KG.protocolSupport, KG.provenance,
                KG.historyEntry, KG.extraField}
        facts = [q for q in facts if q.predicate not in skip]
        labels = self._labels([q.predicate for q in facts] + [q.object for q in facts])
        render = _Html(self.iris.base, labels)
        name = labels.get(iri.value) or next((q.object.value for q in facts if q.predicate == SCHEMA.name), system_id)
        grouped: dict[str, list[str]] = {}
        for q in sorted(facts, key=lambda q: (q.predicate.value, str(q.object))):
            grouped.setdefault(q.predicate.value, []).append(render.term(q.object))
        fact_rows = [[render.iri(p), " ".join(f'<span class="pill">{v}</span>' if len(vs) > 1 else v for v in vs)]
                     for p, vs in sorted(grouped.items(), key=lambda kv: render.compact(kv[0]))]
        protocols = self._select("""
SELECT ?protocol ?mode WHERE { ?sys kg:protocolSupport ?ps . ?ps kg:protocol ?protocol ; kg:supportMode ?mode }
ORDER BY ?protocol""", iri)
        plabels = self._labels([r["protocol"] for r in protocols] + [r["mode"] for r in protocols])
        prender = _Html(self.iris.base, plabels)
        cells = self._select("""
SELECT ?slug ?value ?status ?tier ?citation ?verified WHERE {
  ?sys kg:cell ?cell . ?cell kg:column ?column . ?column dcterms:identifier ?slug .
  OPTIONAL { ?cell kg:value ?value } OPTIONAL { ?cell kg:status ?status }
  OPTIONAL { ?cell kg:claimTier ?tier } OPTIONAL { ?cell kg:citation ?citation }
  OPTIONAL { ?cell kg:lastVerified ?verified }
} ORDER BY ?slug""", iri)
        edges = {}
        for direction, this_end, other_end in (("out", "source", "target"), ("in", "target", "source")):
            edges[direction] = self._select(f"""
SELECT ?type ?other ?evidence ?citation ?influential WHERE {{
  ?relation kg:{this_end} ?sys ; kg:{other_end} ?other ; kg:edgeType ?type .
  OPTIONAL {{ ?relation kg:evidence ?evidence }} OPTIONAL {{ ?relation kg:citation ?citation }}
  OPTIONAL {{ ?relation kg:isInfluential ?influential }}
}} ORDER BY ?type ?other""", iri)
        others = self._labels([r["other"] for rows in edges.values() for r in rows])
        erender = _Html(self.iris.base, others)
        centrality = [q for q in self.store._store.quads_for_pattern(iri, None, None, self.iris.analysis_graph)
                      if not isinstance(q.object, NamedNode)]
        clabels = self._labels([q.predicate for q in centrality])
        crender = _Html(self.iris.base, clabels)

        parts = [f"<p class=\"muted\">System <code>{_esc(system_id)}</code> &middot; "
                 f"<code>{_esc(iri.value)}</code></p><h1>{_esc(name)}</h1>",
                 "<p>Also as: <a href=\"?format=turtle\">Turtle</a> &middot; "
                 "<a href=\"?format=jsonld\">JSON-LD</a> &middot; <a href=\"?format=ntriples\">N-Triples</a></p>",
                 "<h2>Facts</h2>", _table(["property", "value"], fact_rows, "kv")]
        if protocols:
            parts += ["<h2>Protocol support</h2>",
                      _table(["protocol", "support"],
                             [[prender.term(r["protocol"]), prender.term(r["mode"])] for r in protocols])]
        if centrality:
            parts += ["<h2>Centrality</h2><p class=\"muted\">From the analysis graph "
                      f"<code>{_esc(self.iris.analysis_graph.value)}</code>.</p>",
                      _table(["measure", "value"], [[crender.iri(q.predicate.value), crender.term(q.object)]
                                                    for q in sorted(centrality, key=lambda q: q.predicate.value)],
                             "kv")]
        for direction, title, label in (("out", "Outgoing edges", "target"), ("in", "Incoming edges", "source")):
            rows = edges[direction]
            parts.append(f"<h2>{title} ({len(rows)})</h2>")
            if rows:
                parts.append(_table(["type", label, "evidence", "citation"], [
                    [_esc(r["type"].value) + (" (influential)" if "influential" in r and r["influential"].value == "true" else ""),
                     erender.term(r["other"]), erender.term(r.get("evidence")), erender.term(r.get("citation"))]
                    for r in rows]))
            else:
                parts.append("<p class=\"muted\">none</p>")
        parts.append(f"<h2>Cells ({len(cells)})</h2>")
        parts.append(_table(["column", "value", "status", "claim tier", "citation", "verified"], [
            [_esc(r["slug"].value), render.term(r.get("value")), render.term(r.get("status")),
             render.term(r.get("tier")), render.term(r.get("citation")), render.term(r.get("verified"))]
            for r in cells]))
        alternates = "".join(
            f'<link rel="alternate" type="{media}" href="?format={key}">'
            for key, media in (("turtle", "text/turtle"), ("jsonld", "application/ld+json")))
        return _page(f"{name} - AI Agent Infrastructure Landscape", "".join(parts), head=alternates)

    def _resource_page(self, iri: Any, quads: list) -> bytes:
        inbound = list(self.store._store.quads_for_pattern(None, None, iri, None))[:500]
        labels = self._labels([iri] + [q.predicate for q in quads] + [q.object for q in quads]
                              + [q.subject for q in inbound] + [q.predicate for q in inbound])
        render = _Html(self.iris.base, labels)
        title = labels.get(iri.value) or render.compact(iri.value)
        rows = [[render.iri(q.predicate.value), render.term(q.object), render.iri(q.graph_name.value)]
                for q in sorted(quads, key=lambda q: (q.predicate.value, str(q.object)))]
        back = [[render.term(q.subject), render.iri(q.predicate.value)]
                for q in sorted(inbound, key=lambda q: (q.predicate.value, q.subject.value))]
        body = (f"<p class=\"muted\"><code>{_esc(iri.value)}</code></p><h1>{_esc(title)}</h1>"
                "<p>Also as: <a href=\"?format=turtle\">Turtle</a> &middot; "
                "<a href=\"?format=jsonld\">JSON-LD</a></p>"
                "<h2>Statements</h2>" + _table(["property", "value", "graph"], rows)
                + f"<h2>Referenced by ({len(back)}{'+' if len(back) == 500 else ''})</h2>"
                + _table(["subject", "property"], back))
        return _page(title, body)


RESULT_FORMATS = {"json": QueryResultsFormat.JSON, "xml": QueryResultsFormat.XML,
                  "csv": QueryResultsFormat.CSV, "tsv": QueryResultsFormat.TSV}
RDF_FORMATS = {"turtle": RdfFormat.TURTLE, "ntriples": RdfFormat.N_TRIPLES, "rdfxml": RdfFormat.RDF_XML,
               "jsonld": RdfFormat.JSON_LD}


def _take(iterator: Iterable, limit: int, what: str) -> list:
    """At most ``limit`` items; one more means the result is too large (never truncated silently)."""
    items = []
    for item in iterator:
        items.append(item)
        if len(items) > limit:
            raise _Reply(422, "result-too-large",
                         f"the result has more than {limit} {what} (the server's --max-rows); "
                         f"add LIMIT {limit} or narrow the query", maxRows=limit)
    return items


def _limit_memory(megabytes: int) -> None:
    if megabytes <= 0:
        return
    try:
        import resource

        limit = megabytes * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    except (ImportError, ValueError, OSError):
        pass


def _watch_parent(parent: int) -> None:
    def watch() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def _worker_main(conn: Any, settings: dict) -> None:
    """Entry point of a query worker process."""
    _watch_parent(settings["parent"])
    _limit_memory(settings["memory_mb"])
    try:
        worker = _Worker(settings)
    except Exception as err:  # noqa: BLE001 - reported to the parent, which raises StoreError
        conn.send({"ready": False, "error": safe_text(err, 400)})
        return
    conn.send({"ready": True, "pid": os.getpid()})
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        try:
            if msg["op"] == "query":
                reply = worker.query(msg)
            elif msg["op"] == "entity":
                reply = worker.entity(msg)
            else:
                reply = {"status": 200, "type": "application/json", "body": b"{}", "headers": {}}
        except _Reply as err:
            reply = err.reply()
        except QueryRefused as err:
            reply = _Reply(400, "refused", str(err)).reply()
        except QueryError as err:
            reply = _Reply(400, "malformed-query", safe_text(err, 400)).reply()
        except MemoryError:
            reply = _Reply(507, "out-of-memory", "the query needed more memory than a worker may use").reply()
        except Exception as err:  # noqa: BLE001 - one bad request must not end the worker
            reply = _Reply(500, "internal-error", safe_text(err, 400)).reply()
        try:
            conn.send(reply)
        except (OSError, ValueError):
            return


def _update_main(conn: Any, settings: dict, text: str) -> None:
    """Entry point of the one-off process that runs a SPARQL Update on a writable store."""
    _watch_parent(settings["parent"])
    try:
        from .store import GraphStore

        check_update(text)
        store = GraphStore.open_existing(settings["store"])
        try:
            store._store.update(text)
        except SyntaxError as err:
            raise _Reply(400, "malformed-update", f"malformed SPARQL Update: {safe_text(err, 400)}") from None
        store.flush()
        del store
        conn.send({"status": 204, "type": "", "body": b"", "headers": {}})
    except _Reply as err:
        conn.send(err.reply())
    except QueryRefused as err:
        conn.send(_Reply(400, "refused", str(err)).reply())
    except StoreError as err:
        conn.send(_Reply(503, "store-unavailable", safe_text(err, 400)).reply())
    except Exception as err:  # noqa: BLE001
        conn.send(_Reply(500, "update-failed", safe_text(err, 400)).reply())


# ---------------------------------------------------------------------------
# The worker pool (in the server process)


class _Timeout(Exception):
    pass


class _Busy(Exception):
    pass


class _Died(Exception):
    pass


def _child_main(fd: int) -> None:
    """Entry point of a worker or update process: its job comes as the first message."""
    conn = Connection(fd)
    job = conn.recv()
    if job["role"] == "update":
        _update_main(conn, job["settings"], job["text"])
    else:
        _worker_main(conn, job["settings"])


_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class _Process:
    """A child Python process (not multiprocessing: the caller's ``__main__`` is never
    re-imported) that talks over a socket pair with pickled messages."""

    def __init__(self, settings: dict, generation: int = 0, role: str = "query", text: str | None = None) -> None:
        self.generation = generation
        ours, theirs = socket.socketpair()
        env = dict(os.environ)
        env["PYTHONPATH"] = _PACKAGE_ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        code = "import sys; from kg.serve import _child_main; _child_main(int(sys.argv[1]))"
        try:
            self.proc = subprocess.Popen([sys.executable, "-c", code, str(theirs.fileno())],
                                         pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, env=env)
        finally:
            theirs.close()
        self.conn = Connection(ours.detach())
        self.conn.send({"role": role, "settings": settings, "text": text})

    def alive(self) -> bool:
        return self.proc.poll() is None

    def wait_ready(self, timeout: float) -> None:
        try:
            if not self.conn.poll(timeout):
                self.kill()
                raise StoreError("a query worker did not start in time")
            msg = self.conn.recv()
        except (EOFError, OSError):
            self.kill()
            raise StoreError("a query worker exited while starting") from None
        if not msg.get("ready"):
            self.kill()
            raise StoreError(msg.get("error") or "a query worker could not start")

    def call(self, msg: dict | None, deadline: float) -> dict:
        try:
            if msg is not None:
                self.conn.send(msg)
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self.conn.poll(remaining):
                raise _Timeout()
            return self.conn.recv()
        except (EOFError, OSError):
            raise _Died() from None

    def kill(self) -> None:
        try:
            self.proc.kill()
            self.proc.wait(5)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.conn.close()

    def close(self) -> None:
        try:
            self.conn.send(None)
            self.proc.wait(2)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            pass
        self.kill()


class WorkerPool:
    """A fixed number of query worker processes; a worker past its deadline is killed and replaced."""

    def __init__(self, settings: dict, size: int, startup_timeout: float = 60.0) -> None:
        self.settings = settings
        self.size = size
        self.startup_timeout = startup_timeout
        self._idle: queue.LifoQueue[_Process] = queue.LifoQueue()
        self._gate = threading.Condition()
        self._in_flight = 0
        self._exclusive = False
        self._generation = 0
        self._closed = False
        self._procs: set[_Process] = set()
        self._procs_lock = threading.Lock()
        self.replaced = 0
        self.timeouts = 0

    def _new(self) -> _Process:
        proc = _Process(self.settings, self._generation)
        with self._procs_lock:
            self._procs.add(proc)
        return proc

    def _kill(self, proc: _Process) -> None:
        proc.kill()
        with self._procs_lock:
            self._procs.discard(proc)

    def start(self) -> None:
        procs = [self._new() for _ in range(self.size)]
        try:
            for proc in procs:
                proc.wait_ready(self.startup_timeout)
        except StoreError:
            for proc in procs:
                self._kill(proc)
            raise
        for proc in procs:
            self._idle.put(proc)

    def _replace(self) -> None:
        """Start a new worker in the background and add it to the pool when ready."""
        def spawn() -> None:
            delay = 0.2
            while not self._closed:
                proc = self._new()
                try:
                    proc.wait_ready(self.startup_timeout)
                except StoreError:
                    self._kill(proc)
                    time.sleep(delay)
                    delay = min(delay * 2, 5.0)
                    continue
                if self._closed:
                    self._kill(proc)
                    return
                self._idle.put(proc)
                self.replaced += 1
                return

        threading.Thread(target=spawn, daemon=True, name="kg-serve-spawn").start()

    def _checkout(self, deadline: float) -> _Process:
        with self._gate:
            while self._exclusive:
                if not self._gate.wait(max(0.0, deadline - time.monotonic())) or time.monotonic() >= deadline:
                    raise _Busy()
            self._in_flight += 1
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise _Busy()
                try:
                    proc = self._idle.get(timeout=remaining)
                except queue.Empty:
                    raise _Busy() from None
                if proc.generation == self._generation and proc.alive():
                    return proc
                self._kill(proc)  # opened before the last update, or dead
                self._replace()
        except BaseException:
            self._release()
            raise

    def _release(self) -> None:
        with self._gate:
            self._in_flight -= 1
            self._gate.notify_all()

    def call(self, msg: dict, deadline: float) -> dict:
        proc = self._checkout(deadline)
        try:
            reply = proc.call(msg, deadline)
        except _Timeout:
            self.timeouts += 1
            self._kill(proc)
            self._replace()
            raise
        except _Died:
            self._kill(proc)
            self._replace()
            raise _Died(proc.proc.returncode) from None
        else:
            if self._closed:
                self._kill(proc)
            else:
                self._idle.put(proc)
            return reply
        finally:
            self._release()

    def run_exclusive(self, text: str, deadline: float) -> dict:
        """Run an update in a one-off writable process while no query runs; then restart
        every worker so that queries see the new data."""
        with self._gate:
            while self._exclusive:
                if not self._gate.wait(max(0.0, deadline - time.monotonic())) or time.monotonic() >= deadline:
                    raise _Busy()
            self._exclusive = True
            try:
                while self._in_flight:
                    if not self._gate.wait(max(0.0, deadline - time.monotonic())) or time.monotonic() >= deadline:
                        raise _Busy()
            except BaseException:
                self._exclusive = False
                self._gate.notify_all()
                raise
        try:
            proc = _Process(self.settings, role="update", text=text)
            try:
                reply = proc.call(None, deadline)
                try:
                    proc.proc.wait(10)  # let it close the store cleanly
                except subprocess.TimeoutExpired:
                    pass
            finally:
                proc.kill()
            self._recycle()
            return reply
        finally:
            with self._gate:
                self._exclusive = False
                self._gate.notify_all()

    def _recycle(self) -> None:
        self._generation += 1
        old = []
        while True:
            try:
                old.append(self._idle.get_nowait())
            except queue.Empty:
                break
        for proc in old:
            proc.close()
            with self._procs_lock:
                self._procs.discard(proc)
        fresh = [self._new() for _ in old]
        for proc in fresh:
            try:
                proc.wait_ready(self.startup_timeout)
                self._idle.put(proc)
            except StoreError:
                self._kill(proc)
                self._replace()

    def idle(self) -> int:
        return self._idle.qsize()

    def close(self) -> None:
        """Stop every worker: idle ones politely, busy or starting ones by force."""
        self._closed = True
        while True:
            try:
                proc = self._idle.get_nowait()
            except queue.Empty:
                break
            proc.close()
            with self._procs_lock:
                self._procs.discard(proc)
        with self._procs_lock:
            remaining, self._procs = list(self._procs), set()
        for proc in remaining:
            proc.kill()


# ---------------------------------------------------------------------------
# HTTP


def _query_form(text: str, fmt: str = "html") -> str:
    options = [("html", "HTML table"), ("json", "SPARQL JSON"), ("xml", "SPARQL XML"), ("csv", "CSV"),
               ("tsv", "TSV"), ("turtle", "Turtle (CONSTRUCT/DESCRIBE)"), ("jsonld", "JSON-LD (CONSTRUCT/DESCRIBE)"),
               ("ntriples", "N-Triples (CONSTRUCT/DESCRIBE)")]
    select = "".join(f'<option value="{k}"{" selected" if k == fmt else ""}>{_esc(label)}</option>'
                     for k, label in options)
    return ('<form method="post" action="/sparql" accept-charset="utf-8">'
            f'<textarea name="query" rows="14" spellcheck="false" aria-label="SPARQL query">{_esc(text)}</textarea>'
            f'<div class="bar"><button type="submit">Run query</button><label>Results as '
            f'<select name="format">{select}</select></label></div></form>')


def _default_query() -> str:
    return (f"PREFIX kg: {NamedNode(KG.iri)}\nPREFIX schema: {NamedNode(SCHEMA.iri)}\n\n"
            "# Systems with native, adapter or client MCP support, best-established first\n"
            "SELECT ?system ?name ?tier WHERE {\n"
            "  ?system a kg:System ; schema:name ?name ; kg:tier ?tier ; kg:supportsProtocol kg:MCP .\n"
            "}\nORDER BY ?tier ?name\nLIMIT 25\n")


def _home_page(example: str | None, config: ServeConfig) -> bytes:
    from . import queries

    text = _default_query()
    examples = []
    try:
        names = queries.available()
    except Exception:  # noqa: BLE001 - the page works without examples
        names = []
    for name in names:
        try:
            q = queries.load(name)
        except Exception:  # noqa: BLE001
            continue
        examples.append(q)
        if name == example:
            text = q.text
    items = "".join(
        f'<li><a href="/?example={quote(q.name)}">{_esc(q.title or q.name)}</a>'
        + (f' <span class="muted">&mdash; {_esc(q.question)}</span>' if q.question else "")
        + (f' <span class="muted">(parameters: {_esc(", ".join(p.name for p in q.params))}; '
           f'unbound here)</span>' if q.params else "") + "</li>"
        for q in examples)
    body = (
        "<h1>SPARQL query</h1>"
        "<p>Ask the catalog anything in SPARQL 1.1. The default graph is the union of all named graphs. "
        f"Queries time out after {config.timeout:g} s; results over {config.max_rows} rows are refused "
        "(add <code>LIMIT</code>).</p>"
        + _query_form(text)
        + (f"<h2>Example queries</h2><ul class=\"examples\">{items}</ul>" if items else "")
        + "<h2>Use it from code</h2><pre>"
        + _esc("curl -H 'Accept: text/csv' --data-urlencode 'query=SELECT * WHERE { ?s ?p ?o } LIMIT 5' "
               "http://HOST/sparql\n"
               "curl -H 'Accept: text/turtle' http://HOST/id/system/mem0--mem0-ai\n")
        + "</pre><p>Entity pages: <code>/id/system/&lt;id&gt;</code> (HTML, Turtle, JSON-LD by "
        "<code>Accept</code> or <code>?format=</code>).</p>"
    )
    return _page("SPARQL query - AI Agent Infrastructure Landscape", body)


def _service_description(url: str, config: ServeConfig) -> bytes:
    sd = "http://www.w3.org/ns/sparql-service-description#"
    formats = ["SPARQL_Results_JSON", "SPARQL_Results_XML", "SPARQL_Results_CSV", "SPARQL_Results_TSV",
               "Turtle", "JSON-LD", "N-Triples", "RDF_XML"]
    lines = [f"@prefix sd: {NamedNode(sd)} .", "@prefix fmt: <http://www.w3.org/ns/formats/> .", "",
             f"{NamedNode(url)} a sd:Service ;", f"  sd:endpoint {NamedNode(url)} ;",
             "  sd:supportedLanguage sd:SPARQL11Query" + (", sd:SPARQL11Update" if config.allow_update else "") + " ;",
             "  sd:feature sd:UnionDefaultGraph ;",
             "  sd:resultFormat " + ", ".join(f"fmt:{f}" for f in formats) + " ."]
    return ("\n".join(lines) + "\n").encode("utf-8")


class _HttpServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], app: "App") -> None:
        self.app = app
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.address_family = family
        super().__init__(address, _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            try:
                body = b'{"error":"busy","message":"too many open connections"}\n'
                request.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                                b"Retry-After: 1\r\nConnection: close\r\nContent-Length: "
                                + str(len(body)).encode() + b"\r\n\r\n" + body)
            except OSError:
                pass
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "kg-serve"
    timeout = 30  # seconds a client may stay silent (slow or idle connections)
    server: _HttpServer

    # -- plumbing --------------------------------------------------------------

    def version_string(self) -> str:
        return self.server_version

    def setup(self) -> None:
        super().setup()
        try:  # headers and body go out as separate writes: do not let Nagle hold the second one
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - signature of the base class
        log = self.server.app.log
        if log is not None:
            log(safe_text(f"{self.address_string()} {format % args}", 300))

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        # Errors raised by http.server itself (bad request line, 414, 431, 501): JSON too.
        self.close_connection = True
        self._send(_json_reply(code, {"error": "bad-request" if code < 500 else "error",
                                      "message": message or self.responses.get(code, ("",))[0]}))

    def _send(self, reply: dict) -> None:
        status, body = reply["status"], reply.get("body", b"")
        self.send_response(status)
        if reply.get("type"):
            self.send_header("Content-Type", reply["type"])
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Content-Type-Options", "nosniff")
        for name, value in reply.get("headers", {}).items():
            self.send_header(name, value)
        cors = self.server.app.config.cors
        if cors:
            self.send_header("Access-Control-Allow-Origin", cors)
            self.send_header("Vary", "Origin")
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD" and body:
            self.wfile.write(body)
        self._status = status

    def _error(self, status: int, error: str, message: str, headers: dict | None = None, **extra: Any) -> None:
        reply = _json_reply(status, {"error": error, "message": message, **extra}, headers)
        self._send(reply)

    def _params(self) -> dict[str, list[str]]:
        try:
            return parse_qs(urlsplit(self.path).query, keep_blank_values=True, strict_parsing=False,
                            errors="strict", max_num_fields=64)
        except (ValueError, UnicodeDecodeError):
            raise _Reply(400, "bad-request", "the query string is not valid UTF-8 form data") from None

    def _body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            self.close_connection = True
            raise _Reply(411, "length-required", "send the body with a Content-Length (chunked is not supported)")
        length = self.headers.get("Content-Length")
        if length is None:
            self.close_connection = True
            raise _Reply(411, "length-required", "a POST needs a Content-Length")
        try:
            size = int(length)
        except ValueError:
            self.close_connection = True
            raise _Reply(400, "bad-request", "Content-Length is not a number") from None
        if size < 0:
            self.close_connection = True
            raise _Reply(400, "bad-request", "Content-Length is negative")
        limit = self.server.app.config.max_request_bytes
        if size > limit:
            self.close_connection = True  # the body is not read
            raise _Reply(413, "request-too-large", f"the request body is larger than {limit} bytes",
                         maxRequestBytes=limit)
        data = self.rfile.read(size)
        if len(data) != size:
            self.close_connection = True
            raise _Reply(400, "bad-request", "the body is shorter than its Content-Length")
        return data

    def _dispatch(self, method: str) -> None:
        started = time.monotonic()
        self._status = 0
        try:
            if len(self.path) > MAX_URL_CHARS:
                self.close_connection = True
                raise _Reply(414, "uri-too-long", f"the URL is longer than {MAX_URL_CHARS} characters; "
                             "send the query by POST")
            self._route(method)
        except _Reply as reply:
            self._send(reply.reply())
        except (ConnectionError, socket.timeout):
            self.close_connection = True
        except Exception as err:  # noqa: BLE001 - the server keeps running
            self.close_connection = True
            try:
                self._error(500, "internal-error", safe_text(err, 300))
            except OSError:
                pass
        finally:
            self.server.app._count(self._status, time.monotonic() - started)

    def do_GET(self) -> None:  # noqa: N802 - http.server names
        self._dispatch("GET")

    def do_HEAD(self) -> None:  # noqa: N802
        self._dispatch("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._dispatch("POST")

    def do_OPTIONS(self) -> None:  # noqa: N802
        headers = {"Allow": "GET, HEAD, POST, OPTIONS"}
        if self.server.app.config.cors:
            headers.update({"Access-Control-Allow-Methods": "GET, POST",
                            "Access-Control-Allow-Headers": "Accept, Content-Type, Authorization",
                            "Access-Control-Max-Age": "600"})
        self._send({"status": 204, "type": "", "body": b"", "headers": headers})

    def _not_allowed(self) -> None:
        self._error(405, "method-not-allowed", f"{self.command} is not supported here",
                    {"Allow": "GET, HEAD, POST, OPTIONS"})

    do_PUT = do_DELETE = do_PATCH = _not_allowed  # noqa: N815

    # -- routes -----------------------------------------------------------------

    def _route(self, method: str) -> None:
        app = self.server.app
        path = urlsplit(self.path).path
        if path in ("/sparql", "/query"):
            self._sparql(method)
        elif path == "/update":
            if method != "POST":
                raise _Reply(405, "method-not-allowed", "updates are sent by POST", headers={"Allow": "POST"})
            self._update(self._update_text())
        elif path in ("/", "/index.html"):
            if method != "GET":
                raise _Reply(405, "method-not-allowed", "the query form posts to /sparql")
            example = (self._params().get("example") or [None])[0]
            self._send({"status": 200, "type": CONTENT_TYPES["html"], "body": _home_page(example, app.config),
                        "headers": dict(HTML_HEADERS)})
        elif path == "/health":
            self._send(_json_reply(200, {"status": "ok", "workers": app.pool.size, "idle": app.pool.idle(),
                                         "timeouts": app.pool.timeouts, "replaced": app.pool.replaced}))
        elif path.startswith("/id/") or path.startswith("/system/"):
            if method != "GET":
                raise _Reply(405, "method-not-allowed", "entity pages are read with GET")
            rest = path[len("/id/"):] if path.startswith("/id/") else path[1:]
            self._entity(rest)
        else:
            raise _Reply(404, "not-found", "no such page; the SPARQL endpoint is /sparql")

    def _entity(self, rest: str) -> None:
        fmt = (self._params().get("format") or [None])[0]
        for ext, key in ((".ttl", "turtle"), (".jsonld", "jsonld"), (".nt", "ntriples"), (".html", "html")):
            if rest.startswith("system/") and rest.endswith(ext):
                rest, fmt = rest[:-len(ext)], key
        if fmt is not None and fmt not in CONTENT_TYPES or fmt in ("json", "xml", "csv", "tsv"):
            raise _Reply(400, "bad-request", "format must be html, turtle, jsonld, ntriples or rdfxml")
        if fmt is None:
            fmt = negotiate(self.headers.get("Accept"), ENTITY_OFFERS)
            if fmt is None:
                raise _Reply(406, "not-acceptable", "entity pages come as text/html, text/turtle, "
                             "application/ld+json, application/n-triples or application/rdf+xml")
        reply = self._work({"op": "entity", "rest": rest, "format": fmt,
                            "max_bytes": self.server.app.config.max_bytes})
        reply.setdefault("headers", {})["Vary"] = "Accept"
        self._send(reply)

    def _form(self, body: bytes) -> dict[str, list[str]]:
        try:
            return parse_qs(body.decode("utf-8"), keep_blank_values=True, errors="strict", max_num_fields=64)
        except (ValueError, UnicodeDecodeError):
            raise _Reply(400, "bad-request", "the form body is not valid UTF-8 form data") from None

    def _content_type(self) -> tuple[str, dict[str, str]]:
        raw = self.headers.get("Content-Type") or ""
        main, _, rest = raw.partition(";")
        params = {}
        for part in rest.split(";"):
            if "=" in part:
                k, v = part.split("=", 1)
                params[k.strip().lower()] = v.strip().strip('"').lower()
        return main.strip().lower(), params

    def _read_text(self, body: bytes, params: dict[str, str]) -> str:
        charset = params.get("charset", "utf-8")
        if charset not in ("utf-8", "utf8"):
            raise _Reply(415, "unsupported-media-type", "only UTF-8 request bodies are accepted")
        try:
            return body.decode("utf-8")
        except UnicodeDecodeError:
            raise _Reply(400, "bad-request", "the body is not valid UTF-8") from None

    def _update_text(self) -> str:
        body = self._body()
        ctype, params = self._content_type()
        if ctype == "application/sparql-update":
            return self._read_text(body, params)
        if ctype == "application/x-www-form-urlencoded":
            values = self._form(body).get("update")
            if not values or len(values) != 1:
                raise _Reply(400, "bad-request", "give exactly one 'update' parameter")
            return values[0]
        raise _Reply(415, "unsupported-media-type",
                     "send updates as application/sparql-update or application/x-www-form-urlencoded")

    def _sparql(self, method: str) -> None:
        params = self._params()
        if method == "POST":
            body = self._body()
            ctype, cparams = self._content_type()
            if ctype == "application/x-www-form-urlencoded":
                form = self._form(body)
                if "update" in form:
                    if "query" in form:
                        raise _Reply(400, "bad-request", "give either 'query' or 'update', not both")
                    values = form["update"]
                    if len(values) != 1:
                        raise _Reply(400, "bad-request", "give exactly one 'update' parameter")
                    return self._update(values[0])
                for key, values in form.items():
                    params.setdefault(key, []).extend(values)
            elif ctype == "application/sparql-query":
                if "query" in params:
                    raise _Reply(400, "bad-request", "the query is the body; do not also pass 'query' in the URL")
                params["query"] = [self._read_text(body, cparams)]
            elif ctype == "application/sparql-update":
                return self._update(self._read_text(body, cparams))
            else:
                raise _Reply(415, "unsupported-media-type",
                             "POST a query as application/x-www-form-urlencoded (query=...) "
                             "or as application/sparql-query")
        if "update" in params:
            raise _Reply(400, "bad-request", "updates must be sent by POST to /update")
        queries_ = params.get("query")
        if not queries_:
            accept = self.headers.get("Accept") or ""
            if negotiate(accept, [("turtle", "text/turtle"), ("html", "text/html")]) == "html":
                self._send({"status": 200, "type": CONTENT_TYPES["html"],
                            "body": _home_page(None, self.server.app.config), "headers": dict(HTML_HEADERS)})
            else:
                self._send({"status": 200, "type": CONTENT_TYPES["turtle"], "headers": {"Vary": "Accept"},
                            "body": _service_description(self.server.app.url + "/sparql", self.server.app.config)})
            return
        if len(queries_) != 1:
            raise _Reply(400, "bad-request", "give exactly one 'query' parameter")
        text = queries_[0]
        if len(text) > MAX_QUERY_CHARS:
            raise _Reply(413, "request-too-large", f"the query is longer than {MAX_QUERY_CHARS} characters")
        fmt = (params.get("format") or params.get("output") or [None])[0]
        if fmt is not None:
            if fmt not in CONTENT_TYPES:
                raise _Reply(400, "bad-request", "format must be one of " + ", ".join(CONTENT_TYPES))
            solutions = fmt if fmt in SOLUTION_FORMATS else None
            graph = fmt if fmt in GRAPH_FORMATS else ("jsonld" if fmt == "json" else None)
        else:
            accept = self.headers.get("Accept")
            solutions, graph = negotiate(accept, SOLUTION_OFFERS), negotiate(accept, GRAPH_OFFERS)
            if solutions is None and graph is None:
                raise _Reply(406, "not-acceptable", "results come as SPARQL JSON, XML, CSV, TSV, HTML "
                             "(SELECT, ASK) or Turtle, JSON-LD, N-Triples, RDF/XML (CONSTRUCT, DESCRIBE)")
        default = params.get("default-graph-uri")
        named = params.get("named-graph-uri")
        config = self.server.app.config
        reply = self._work({"op": "query", "query": text, "default": default, "named": named,
                            "solutions": solutions, "graph": graph, "max_rows": config.max_rows,
                            "max_bytes": config.max_bytes})
        reply.setdefault("headers", {})["Vary"] = "Accept"
        self._send(reply)

    def _work(self, msg: dict) -> dict:
        app = self.server.app
        deadline = time.monotonic() + app.config.timeout
        try:
            return app.pool.call(msg, deadline)
        except _Timeout:
            raise _Reply(504, "timeout", f"the query ran longer than the server's limit of "
                         f"{app.config.timeout:g} s and was stopped", timeoutSeconds=app.config.timeout) from None
        except _Busy:
            raise _Reply(503, "busy", f"all {app.pool.size} query workers stayed busy for "
                         f"{app.config.timeout:g} s; try again", headers={"Retry-After": "1"}) from None
        except _Died as died:
            if died.args and died.args[0] == -signal.SIGABRT:
                raise _Reply(500, "out-of-memory", "the query needed more memory than a worker may use "
                             f"({app.config.worker_memory_mb} MiB); the worker was replaced") from None
            raise _Reply(500, "worker-died", "the query worker stopped and was replaced") from None

    def _update(self, text: str) -> None:
        app = self.server.app
        if not app.config.allow_update:
            raise _Reply(403, "read-only", "this endpoint is read-only (start kg serve with --allow-update "
                         "and a token to accept updates)")
        auth = self.headers.get("Authorization") or ""
        scheme, _, given = auth.partition(" ")
        if scheme.lower() != "bearer" or not given.strip():
            raise _Reply(401, "unauthorized", "updates need 'Authorization: Bearer <token>'",
                         headers={"WWW-Authenticate": 'Bearer realm="kg"'})
        if not hmac.compare_digest(given.strip().encode(), (app.config.token or "").encode()):
            raise _Reply(401, "unauthorized", "wrong token",
                         headers={"WWW-Authenticate": 'Bearer realm="kg", error="invalid_token"'})
        if len(text) > app.config.max_request_bytes:
            raise _Reply(413, "request-too-large", "the update is too large")
        deadline = time.monotonic() + app.config.timeout
        try:
            reply = app.pool.run_exclusive(text, deadline)
        except _Timeout:
            raise _Reply(504, "timeout", f"the update ran longer than {app.config.timeout:g} s and was "
                         "stopped; it was not committed") from None
        except _Busy:
            raise _Reply(503, "busy", "queries kept the store busy; try again",
                         headers={"Retry-After": "1"}) from None
        except _Died:
            raise _Reply(500, "worker-died", "the update process stopped") from None
        self._send(reply)


# ---------------------------------------------------------------------------
# Public API


class App:
    """A configured server: bound to its port when made, serving once started.

    ``start()`` runs it in a background thread (for tests and embedding), ``serve_forever()``
    in the calling thread; ``stop()`` (or leaving a ``with`` block) stops it and its workers.
    """

    def __init__(self, config: ServeConfig, log: Callable[[str], None] | None = None) -> None:
        config.check()
        self.config = config
        self.log = log
        settings = {"store": config.store, "base": config.base, "memory_mb": config.worker_memory_mb,
                    "parent": os.getpid()}
        self.pool = WorkerPool(settings, config.worker_count())
        self.httpd = _HttpServer((config.host, config.port), self)
        self.port = self.httpd.server_address[1]
        self._thread: threading.Thread | None = None
        self._started = False
        self._stats_lock = threading.Lock()
        self.stats: dict[int, int] = {}

    @property
    def url(self) -> str:
        host = self.config.host
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}"

    def _count(self, status: int, seconds: float) -> None:
        with self._stats_lock:
            self.stats[status] = self.stats.get(status, 0) + 1

    def _start_workers(self) -> None:
        if not self._started:
            self.pool.start()
            self._started = True

    def start(self) -> "App":
        self._start_workers()
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True, name="kg-serve")
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self._start_workers()
        self.httpd.serve_forever()

    def stop(self) -> None:
        if self._thread is not None:
            self.httpd.shutdown()
            self._thread.join(5)
            self._thread = None
        self.httpd.server_close()
        self.pool.close()

    def __enter__(self) -> "App":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def make_app(store: str | os.PathLike, *, base: str = DEFAULT_BASE, host: str = DEFAULT_HOST,
             port: int = DEFAULT_PORT, timeout: float = DEFAULT_TIMEOUT, max_rows: int = DEFAULT_MAX_ROWS,
             max_bytes: int = DEFAULT_MAX_BYTES, max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
             workers: int = 0, worker_memory_mb: int = DEFAULT_WORKER_MEMORY_MB, allow_update: bool = False,
             token: str | None = None, cors: str | None = None,
             log: Callable[[str], None] | None = None) -> App:
    """A server over the store at ``store`` (the arguments mirror ``kg serve``'s options).

    The socket is bound at once (``port=0`` picks a free port, see ``app.url``); workers
    start with ``app.start()`` or ``app.serve_forever()``.
    """
    config = ServeConfig(store=os.fspath(store), base=base, host=host, port=port, timeout=timeout,
                         max_rows=max_rows, max_bytes=max_bytes, max_request_bytes=max_request_bytes,
                         workers=workers, worker_memory_mb=worker_memory_mb, allow_update=allow_update,
                         token=token, cors=cors)
    return App(config, log=log)


def serve(store: str | os.PathLike, *, ready: Callable[[App], None] | None = None, **options: Any) -> None:
    """Run ``kg serve`` in the calling thread until interrupted (Ctrl-C), then stop cleanly."""
    app = make_app(store, **options)
    try:
        app._start_workers()
        if ready is not None:
            ready(app)
        app.httpd.serve_forever()
    finally:
        app.stop()


def is_loopback(host: str) -> bool:
    """Whether ``host`` only listens on this machine.

    >>> is_loopback("127.0.0.1"), is_loopback("0.0.0.0"), is_loopback("localhost")
    (True, False, True)
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


__all__ = ["App", "CheckedQuery", "QueryRefused", "ServeConfig", "WorkerPool", "check_query", "check_update",
           "is_loopback", "make_app", "negotiate", "serve"]

