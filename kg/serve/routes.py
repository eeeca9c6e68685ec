"""What each URL answers: the SPARQL 1.1 Protocol (queries and updates), entity pages,
the query page and ``/health``, independent of the HTTP server that carries them.

A request whose answer is one worker's answer (a query, a Graph Store read, an entity page,
the index, a named query) is read by :func:`plan` into the :class:`Work` to ask of the worker
pool, which :func:`answer_work` awaits under the server's deadline; the others (pages made
here, updates, the descriptions) are answered by :func:`answer_here`, which may block. Either
gives an answer dict (:mod:`kg.serve.replies`) or raises :class:`~kg.serve.replies.Reply`.

Routes: ``/`` query page; ``/sparql`` (also ``/query``) queries by GET and POST
(form or ``application/sparql-query``); ``/update`` (or ``/sparql`` with an update)
only with ``allow_update`` and ``Authorization: Bearer <token>``;
``/id/<path>`` and ``/system/<id>`` entity pages; ``/health``.
"""

from __future__ import annotations

import hmac
import signal
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol
from urllib.parse import parse_qs, urlsplit

from ..vocab import Iris
from . import gsp, linkeddata, pages, static
from .linkeddata import VOID_PATH
from .static import PREFIX as STATIC_PREFIX
from .config import MAX_QUERY_CHARS
from .negotiation import CONTENT_TYPES, entity_format, negotiate, result_formats
from .paging import PAGE_PARAMS, Page
from ..runtime.pool import PoolBusy, WorkerDied, WorkerTimeout
from .replies import Reply, json_reply

if TYPE_CHECKING:
    from .config import ServeConfig
    from ..runtime.pool import WorkerPool


class Service(Protocol):
    """What a route needs from the server: its settings and its worker pool."""

    config: ServeConfig
    pool: WorkerPool


class Request(Protocol):
    """What a route needs from an HTTP request."""

    method: str  # GET (also for HEAD) or POST
    path: str  # the request target: path and query string
    base_url: str  # scheme://host[:port] as the client reached us (no trailing slash)

    def header(self, name: str) -> str | None: ...

    def body(self) -> bytes:
        """The whole body, within the server's size limit (else raises Reply)."""
        ...


_READ = ("GET", "HEAD")
_QUERY = ("GET", "HEAD", "POST")
_INDEX_PATHS = ("/id/system/", "/id/system", "/system/", "/system")


def methods(path: str) -> tuple[str, ...] | None:
    """The methods ``path`` answers, OPTIONS included: the one list that both ``OPTIONS``
    and a 405's ``Allow`` header give; None for a path that is no page (404).

    >>> methods("/id/system/mem0--mem0-ai"), methods("/update"), methods("/nowhere")
    (('GET', 'HEAD', 'OPTIONS'), ('POST', 'OPTIONS'), None)
    """
    answered: tuple[str, ...]
    if path in ("/sparql", "/query"):
        answered = _QUERY
    elif path == "/update":
        answered = ("POST",)
    elif path == "/store":  # Graph Store Protocol reads (kg.serve.gsp)
        answered = _READ
    elif path in ("/", "/index.html", "/health", "/ontology", "/favicon.ico", VOID_PATH) or path in _INDEX_PATHS or path.startswith(
            ("/queries/", "/id/", "/system/", STATIC_PREFIX)):
        answered = _READ
    else:
        return None
    return answered + ("OPTIONS",)


def allowed(path: str) -> dict[str, str]:
    """The ``Allow`` header of ``path`` (an empty dict for a path that is no page)."""
    answered = methods(path)
    return {"Allow": ", ".join(answered)} if answered else {}


_NOT_FOUND = "no such page; the SPARQL endpoint is /sparql"


def check_method(method: str, path: str) -> None:
    """Raise 404 for a path that is no page, 405 (with ``Allow``) for a method it does not answer."""
    answered = methods(path)
    if answered is None:
        raise Reply(404, "not-found", _NOT_FOUND)
    if method not in answered:
        raise Reply(405, "method-not-allowed", f"{method} is not answered here; this page answers "
                    + ", ".join(answered), headers=allowed(path))


@dataclass(frozen=True)
class Work:
    """A request whose answer is one worker's answer: the message it sends, and whether the
    answer varies with ``Accept`` (the header it then gets)."""

    msg: dict
    vary: bool = True

    def finish(self, reply: dict) -> dict:
        if self.vary:
            reply.setdefault("headers", {})["Vary"] = "Accept"
        return reply


async def answer_work(app: Service, work: Work) -> dict:
    """The answer to a request :func:`plan` gave ``work`` for, awaited on an event loop."""
    try:
        reply = await app.pool.acall(work.msg, time.monotonic() + app.config.timeout)
    except (WorkerTimeout, PoolBusy, WorkerDied) as failed:
        raise _refusal(app, failed) from None
    return work.finish(reply)


def plan(app: Service, request: Request) -> Work | None:
    """What to ask a worker when the answer is one worker's answer as it comes (a query, a Graph
    Store read, an entity page, the index of systems, a named query); None for the others
    (:func:`answer_here`). Only reads the request: cheap enough for an event loop."""
    path = urlsplit(request.path).path
    check_method(request.method, path)
    if path in ("/sparql", "/query"):
        return _sparql(app, request)
    if path == "/store":
        return _graph(app, request, _params(request))
    if path in _HERE or path.startswith(STATIC_PREFIX):
        return None
    if path in _INDEX_PATHS:
        return _index(app, request)
    if path.startswith("/queries/"):
        return _named(app, request, path[len("/queries/"):])
    return _entity(app, request, path[len("/id/"):] if path.startswith("/id/") else path[1:])


_HERE = ("/update", "/", "/index.html", "/ontology", VOID_PATH, "/favicon.ico", "/health")


def answer_here(app: Service, request: Request) -> dict:
    """The answer to a request that :func:`plan` gives no work for: pages made here, updates,
    the service and VoID descriptions (which may block: call it from a thread)."""
    path = urlsplit(request.path).path
    check_method(request.method, path)
    if path in ("/sparql", "/query"):
        return _sparql_rest(app, request)
    if path == "/update":
        return _update(app, request, _update_text(request))
    if path in ("/", "/index.html"):
        example = _first(_params(request), "example")
        return _home(app, request, example)
    if path == "/ontology":
        return linkeddata.ontology_answer(linkeddata.ontology_format(request.header("Accept"),
                                                                     _first(_params(request), "format")))
    if path == VOID_PATH:
        return _void(app, request)
    if path.startswith(STATIC_PREFIX) or path == "/favicon.ico":
        return static.answer(path[len(STATIC_PREFIX):] if path != "/favicon.ico" else "favicon.svg")
    if path == "/health":
        pool = app.pool
        return json_reply(200, {"status": "ok", "workers": pool.size, "idle": pool.idle(),
                                "timeouts": pool.timeouts, "replaced": pool.replaced})
    raise AssertionError(f"{path} is answered by a worker (plan)")


def _home(app: Service, request: Request, example: str | None) -> dict:
    body = pages.home_page(example, app.config.timeout, app.config.max_rows, request.base_url)
    return {"status": 200, "type": CONTENT_TYPES["html"], "body": body, "headers": dict(pages.EDITOR_HEADERS)}


# ---------------------------------------------------------------------------
# Reading the request


def _params(request: Request) -> dict[str, list[str]]:
    try:
        return parse_qs(urlsplit(request.path).query, keep_blank_values=True, strict_parsing=False,
                        errors="strict", max_num_fields=64)
    except (ValueError, UnicodeDecodeError):
        raise Reply(400, "bad-request", "the query string is not valid UTF-8 form data") from None


def _first(params: dict[str, list[str]], *names: str) -> str | None:
    """The first value of the first of ``names`` that has one."""
    for name in names:
        if params.get(name):
            return params[name][0]
    return None


def query_text(request: Request) -> str | None:
    """The SPARQL query a request to ``/sparql`` carries (in the URL, a form or the body),
    for an error page to give back; None when it carries none or cannot be read."""
    if urlsplit(request.path).path not in ("/sparql", "/query"):
        return None
    try:
        params = _params(request)
        if request.method == "POST":
            ctype, cparams = _content_type(request)
            if ctype == "application/x-www-form-urlencoded":
                params.update(_form(request.body()))
            elif ctype == "application/sparql-query":
                return _read_text(request.body(), cparams)
    except Reply:
        return None
    return _first(params, "query")


def _form(body: bytes) -> dict[str, list[str]]:
    try:
        return parse_qs(body.decode("utf-8"), keep_blank_values=True, errors="strict", max_num_fields=64)
    except (ValueError, UnicodeDecodeError):
        raise Reply(400, "bad-request", "the form body is not valid UTF-8 form data") from None


def _content_type(request: Request) -> tuple[str, dict[str, str]]:
    raw = request.header("Content-Type") or ""
    main, _, rest = raw.partition(";")
    params = {}
    for part in rest.split(";"):
        if "=" in part:
            k, v = part.split("=", 1)
            params[k.strip().lower()] = v.strip().strip('"').lower()
    return main.strip().lower(), params


def _read_text(body: bytes, params: dict[str, str]) -> str:
    charset = params.get("charset", "utf-8")
    if charset not in ("utf-8", "utf8"):
        raise Reply(415, "unsupported-media-type", "only UTF-8 request bodies are accepted")
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        raise Reply(400, "bad-request", "the body is not valid UTF-8") from None


def _update_text(request: Request) -> str:
    body = request.body()
    ctype, params = _content_type(request)
    if ctype == "application/sparql-update":
        return _read_text(body, params)
    if ctype == "application/x-www-form-urlencoded":
        values = _form(body).get("update")
        if not values or len(values) != 1:
            raise Reply(400, "bad-request", "give exactly one 'update' parameter")
        return values[0]
    raise Reply(415, "unsupported-media-type",
                "send updates as application/sparql-update or application/x-www-form-urlencoded")


# ---------------------------------------------------------------------------
# The SPARQL 1.1 Protocol


def _sparql_request(request: Request) -> tuple[dict[str, list[str]], str | None]:
    """The parameters of a request to ``/sparql`` (the URL's, a form's, a query body as ``query``)
    and the update it carries instead of a query (None for none)."""
    params = _params(request)
    if request.method == "POST":
        body = request.body()
        ctype, cparams = _content_type(request)
        if ctype == "application/x-www-form-urlencoded":
            form = _form(body)
            if "update" in form:
                if "query" in form:
                    raise Reply(400, "bad-request", "give either 'query' or 'update', not both")
                values = form["update"]
                if len(values) != 1:
                    raise Reply(400, "bad-request", "give exactly one 'update' parameter")
                return params, values[0]
            for key, values in form.items():
                params.setdefault(key, []).extend(values)
        elif ctype == "application/sparql-query":
            if "query" in params:
                raise Reply(400, "bad-request", "the query is the body; do not also pass 'query' in the URL")
            params["query"] = [_read_text(body, cparams)]
        elif ctype == "application/sparql-update":
            return params, _read_text(body, cparams)
        else:
            raise Reply(415, "unsupported-media-type",
                        "POST a query as application/x-www-form-urlencoded (query=...) "
                        "or as application/sparql-query")
    if "update" in params:
        raise Reply(400, "bad-request", "updates must be sent by POST to /update")
    return params, None


def _sparql(app: Service, request: Request) -> Work | None:
    """A query, or a Graph Store read by ``/sparql?graph=``; None for an update or the description."""
    params, update = _sparql_request(request)
    if update is not None:
        return None
    queries_ = params.get("query")
    if not queries_ and ("graph" in params or "default" in params):
        return _graph(app, request, params)
    if not queries_:
        return None
    if len(queries_) != 1:
        raise Reply(400, "bad-request", "give exactly one 'query' parameter")
    text = queries_[0]
    if len(text) > MAX_QUERY_CHARS:
        raise Reply(413, "request-too-large", f"the query is longer than {MAX_QUERY_CHARS} characters")
    solutions, graph = result_formats(_first(params, "format", "output", "results"), request.header("Accept"))
    config = app.config
    msg = {"op": "query", "query": text, "default": params.get("default-graph-uri"),
           "named": params.get("named-graph-uri"), "solutions": solutions, "graph": graph,
           "max_rows": config.max_rows, "max_bytes": config.max_bytes}
    if solutions == "html":  # a page of the rows, never a 422 where the first page can be shown
        msg.update(_html_page(params, config.max_rows))
    return Work(msg)


def _sparql_rest(app: Service, request: Request) -> dict:
    """``/sparql`` with an update, or with neither a query nor a graph (the description)."""
    params, update = _sparql_request(request)
    if update is not None:
        return _update(app, request, update)
    return _description(app, request, _first(params, "format"))


def _html_page(params: dict[str, list[str]], max_rows: int) -> dict:
    """What the worker needs to show one page of a SELECT's rows as HTML: the rows to read (one
    more than the page: a next page) and the page, with the parameters its links keep."""
    try:
        page = Page.read({k: v[0] for k, v in params.items() if k in PAGE_PARAMS and v})
    except ValueError as err:
        raise Reply(400, "bad-request", str(err)) from None
    most = max_rows - 1 - page.offset  # the page and the row after it within --max-rows
    if most < 1:
        raise Reply(400, "bad-request", f"offset must be below {max_rows - 1}: this server reads at most "
                    f"{max_rows} rows of one answer (its --max-rows); narrow the query instead")
    page = Page(page.offset, min(page.limit, most))
    kept = {k: v[0] for k, v in params.items() if k in ("query", "default-graph-uri", "named-graph-uri") and v}
    return {"row_cap": page.reach, "page": {"offset": page.offset, "limit": page.limit, "last": max_rows - 1,
                                            "params": {**kept, "format": "html"}}}


def _description(app: Service, request: Request, fmt: str | None) -> dict:
    """``/sparql`` without a query: the query page for a browser, else the service description
    (Turtle, JSON-LD, N-Triples or RDF/XML by ``Accept`` or ``?format=``), naming the graphs
    of the version the worker reads."""
    offers = linkeddata.DESCRIPTION_OFFERS
    chosen = fmt if fmt in {key for key, _ in offers} else negotiate(request.header("Accept") or "", offers)
    if chosen == "html":
        return _home(app, request, None)
    if chosen is None:
        raise Reply(406, "not-acceptable", "the service description comes as "
                    + ", ".join(dict.fromkeys(m for key, m in offers if key != "html")))
    # every graph, whatever --max-rows says (one short row per graph, our own query)
    found = _work(app, {"op": "query", "query": linkeddata.NAMED_GRAPHS, "solutions": "tsv", "graph": None,
                        "max_rows": 10**9, "max_bytes": app.config.max_bytes})
    if found.get("status") != 200:
        return found  # the worker's error answer
    graphs = [line.strip()[1:-1] for line in found["body"].decode("utf-8").splitlines()[1:] if line.startswith("<")]
    dataset = Iris(app.config.base).dataset.value
    body = linkeddata.service_description(request.base_url + "/sparql", app.config.allow_update, graphs, dataset,
                                          chosen)
    return {"status": 200, "type": CONTENT_TYPES[chosen], "headers": {"Vary": "Accept"}, "body": body}


def _void(app: Service, request: Request) -> dict:
    """``/.well-known/void``: the store's VoID description, with its endpoint and its dump."""
    offers = linkeddata.DESCRIPTION_OFFERS[:-1]
    fmt = _first(_params(request), "format")
    chosen = fmt if fmt in {key for key, _ in offers} else negotiate(request.header("Accept") or "", offers)
    if chosen is None:
        raise Reply(406, "not-acceptable", "the VoID description comes as "
                    + ", ".join(dict.fromkeys(m for _, m in offers)))
    iris = Iris(app.config.base)
    text = f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ GRAPH {iris.dataset_graph} {{ ?s ?p ?o }} }}"
    found = _work(app, {"op": "query", "query": text, "solutions": None, "graph": "turtle", "render": False,
                        "max_rows": 10**9, "max_bytes": app.config.max_bytes})  # the whole description
    if "triples" not in found:
        return found  # the worker's error answer
    body = linkeddata.void_description(found["triples"], iris.dataset.value, request.base_url, chosen)
    return {"status": 200, "type": CONTENT_TYPES[chosen], "headers": {"Vary": "Accept"}, "body": body}


def _graph(app: Service, request: Request, params: dict[str, list[str]]) -> Work:
    """A Graph Store Protocol read: one graph (``?graph=IRI``) or the default (``?default``)."""
    msg = gsp.request(params, request.header("Accept"), dataset=urlsplit(request.path).path == "/store")
    return Work({**msg, "max_bytes": app.config.max_bytes})


def _entity(app: Service, request: Request, rest: str) -> Work:
    rest, fmt = entity_format(rest, _first(_params(request), "format"), request.header("Accept"))
    return Work({"op": "entity", "rest": rest, "format": fmt, "max_bytes": app.config.max_bytes})


def _index(app: Service, request: Request) -> Work:
    """The index of systems: the query string is ``find``'s parameters (empty fields left out)
    and the page's ``offset`` and ``limit``; ``format=json`` gives the rows, facets, total and
    next page as JSON."""
    params = _params(request)
    fmt = _first(params, "format")
    if fmt != "json":
        _, fmt = entity_format("", fmt, request.header("Accept"))
    chosen = {name: values[0] for name, values in params.items() if name != "format" and values and values[0]}
    url = request.base_url + urlsplit(request.path).path
    shape = {"format": params["format"][0]} if params.get("format") else {}  # kept by the links to the pages
    return Work({"op": "index", "facets": chosen, "format": fmt, "url": url, "shape": shape,
                 "max_bytes": app.config.max_bytes})


def _named(app: Service, request: Request, name: str) -> Work:
    """A named query's form (``/queries/<name>``); with ``run``, a page of its results under it
    (``offset``, ``limit``), or, with ``format``, the page alone."""
    params = _params(request)
    values = {k: v[0] for k, v in params.items() if k not in ("run", "format") and v}
    fmt = _first(params, "format") or "html"
    if fmt not in ("html", "json", "xml", "csv", "tsv"):
        raise Reply(400, "bad-request", "format must be html, json, xml, csv or tsv")
    config = app.config
    return Work({"op": "named", "name": name, "values": values, "run": "run" in params, "format": fmt,
                 "base_url": request.base_url, "max_rows": config.max_rows, "max_bytes": config.max_bytes},
                vary=False)


def _work(app: Service, msg: dict) -> dict:
    try:
        return app.pool.call(msg, time.monotonic() + app.config.timeout)
    except (WorkerTimeout, PoolBusy, WorkerDied) as failed:
        raise _refusal(app, failed) from None


def _refusal(app: Service, failed: Exception) -> Reply:
    """The answer to a call to the pool that failed: past the deadline, no worker free, the worker lost."""
    if isinstance(failed, WorkerTimeout):
        return Reply(504, "timeout", f"the query ran longer than the server's limit of "
                     f"{app.config.timeout:g} s and was stopped", timeoutSeconds=app.config.timeout)
    if isinstance(failed, PoolBusy):
        return Reply(503, "busy", f"all {app.pool.size} query workers stayed busy for "
                     f"{app.config.timeout:g} s; try again", headers={"Retry-After": "1"})
    if failed.args and failed.args[0] == -signal.SIGABRT:
        return Reply(500, "out-of-memory", "the query needed more memory than a worker may use "
                     f"({app.config.worker_memory_mb} MiB); the worker was replaced")
    return Reply(500, "worker-died", "the query worker stopped and was replaced")


def _update(app: Service, request: Request, text: str) -> dict:
    config = app.config
    if not config.allow_update:
        raise Reply(403, "read-only", "this endpoint is read-only (start kg serve with --allow-update "
                    "and a token to accept updates)")
    scheme, _, given = (request.header("Authorization") or "").partition(" ")
    if scheme.lower() != "bearer" or not given.strip():
        raise Reply(401, "unauthorized", "updates need 'Authorization: Bearer <token>'",
                    headers={"WWW-Authenticate": 'Bearer realm="kg"'})
    if not hmac.compare_digest(given.strip().encode(), (config.token or "").encode()):
        raise Reply(401, "unauthorized", "wrong token",
                    headers={"WWW-Authenticate": 'Bearer realm="kg", error="invalid_token"'})
    if len(text) > config.max_request_bytes:
        raise Reply(413, "request-too-large", "the update is too large")
    deadline = time.monotonic() + config.timeout
    try:
        return app.pool.update(text, deadline)
    except WorkerTimeout:
        raise Reply(504, "timeout", f"the update ran longer than {config.timeout:g} s and was "
                    "stopped; it was not committed") from None
    except PoolBusy:
        raise Reply(503, "busy", "queries kept the store busy; try again",
                    headers={"Retry-After": "1"}) from None
    except WorkerDied:
        raise Reply(500, "worker-died", "the update process stopped") from None
