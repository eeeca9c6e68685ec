"""The ASGI application: a Starlette app that carries the routes (:mod:`kg.serve.routes`)
to any ASGI server (uvicorn, hypercorn, gunicorn with uvicorn workers) or into another app.

    >>> from kg.serve import create_app                     # doctest: +SKIP
    >>> app = create_app("kg-store", workers=2)              # doctest: +SKIP
    >>> # uvicorn.run(app)  or  Starlette(routes=[Mount("/kg", app=app)])

Which paths exist, and which view answers each, is the route table's (:mod:`kg.serve.routes`);
how each answer is made, the dispatch's (:mod:`kg.serve.dispatch`): a query worker's answer is
awaited on the event loop, a blocking one runs in a thread, a dump is streamed
(:mod:`kg.serve.streams`).

The app owns its worker pool: it starts with the app's lifespan (or earlier, by
:class:`kg.serve.server.Server`) and stops with it. Mounted in another app (whose lifespan does
not run a mounted app's), the workers start at the first request; call
``app.state.service.close()`` when the outer app shuts down (the workers also exit when
their server process does). What belongs to HTTP is enforced here, for
whichever server runs the app: the Host allow-list, the URL length, the body's size,
``Content-Length`` and arrival deadline, CORS off unless one origin is configured, and an
access log without query strings (they can carry tokens and private text).
"""

from __future__ import annotations

import contextlib
import time
from typing import Any, AsyncIterator, Callable

import anyio
from starlette.applications import Starlette
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..errors import safe_text
from . import routes, streams
from .compression import GZIP_MIN, AcceptedEncoding
from .conditional_get import validate, version
from .config import MAX_URL_CHARS, ServeConfig
from .dispatch import Blocking, Work, ask_worker
from .errorpages import error_page, is_error, prefers_html
from .replies import Reply, empty_reply, json_reply
from .service import Service, service_for
from .views import sparql

__all__ = ["Service", "create_app", "service_for"]


def create_app(store: Any = None, *, service: Service | None = None, log: Callable[[str], None] | None = None,
               **options: Any) -> Starlette:
    """An ASGI app over the on-disk store at ``store`` (``options``: the fields of
    :class:`~kg.serve.config.ServeConfig`, as ``kg serve``'s options). Its workers start
    with the app's lifespan; mount it or run it under any ASGI server."""
    import os

    if service is None:
        service = service_for(ServeConfig(store=os.fspath(store), **options), log)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        owned = not service.started
        if owned:
            await anyio.to_thread.run_sync(service.start)
        try:
            yield
        finally:
            if owned:
                await anyio.to_thread.run_sync(service.close)

    # one Starlette route takes every path and method: kg.serve.routes says which exist
    app = Starlette(routes=[Route("/{rest:path}", _Endpoint())], lifespan=lifespan)
    app.state.service = service
    # pages made here and updates take a thread each (queries wait for their worker on the loop)
    app.state.limiter = anyio.CapacityLimiter(max(40, service.config.max_connections))
    app.add_middleware(GZipMiddleware, minimum_size=GZIP_MIN)
    app.add_middleware(AcceptedEncoding)
    app.add_middleware(_Edge, service=service)
    return app


# ---------------------------------------------------------------------------
# One request


class _Request:
    """A request as the views see it (:class:`kg.serve.request.Request`), body read already."""

    def __init__(self, method: str, path: str, base_url: str, headers: Any, body: bytes,
                 path_params: dict[str, str]) -> None:
        self.method, self.path, self.base_url, self._headers, self._body = method, path, base_url, headers, body
        self.path_params = path_params

    def header(self, name: str) -> str | None:
        value = self._headers.get(name)
        return None if value is None else str(value)

    def body(self) -> bytes:
        return self._body


def _target(scope: Scope) -> str:
    """The request target as sent (percent-encoding kept), below the mount point if mounted."""
    path = (scope.get("raw_path") or scope["path"].encode("utf-8")).decode("latin-1")
    root = scope.get("root_path") or ""
    if root and path.startswith(root):
        path = path[len(root):] or "/"
    query = scope.get("query_string") or b""
    return path + ("?" + query.decode("latin-1") if query else "")


def _under(root: str, reply: dict) -> dict:
    """An HTML answer's local links (``href="/..."``, ``action="/..."``, ``src="/..."``) below the mount
    point ``root``. Values in pages are escaped (a quote is ``&quot;``), so only the
    templates' own attributes match."""
    if not root or not str(reply.get("type", "")).startswith("text/html"):
        return reply
    body = reply["body"]
    for attribute in (b'href="/', b'action="/', b'src="/'):
        body = body.replace(attribute, attribute[:-1] + root.encode("utf-8") + b"/")
    return {**reply, "body": body}


async def _read_body(request: Request, config: ServeConfig, started: float) -> bytes:
    if request.headers.get("transfer-encoding") is not None and "content-length" in request.headers:
        raise Reply(400, "bad-request", "give a Content-Length or a Transfer-Encoding, not both",
                    headers={"Connection": "close"})
    if "chunked" in (request.headers.get("transfer-encoding") or "").lower():
        raise Reply(411, "length-required", "send the body with a Content-Length (chunked is not supported)",
                    headers={"Connection": "close"})
    length = request.headers.get("content-length")
    if length is None:
        raise Reply(411, "length-required", "a POST needs a Content-Length", headers={"Connection": "close"})
    if not length.isdigit():  # the server checked the framing; a server that did not gets 400 here
        raise Reply(400, "bad-request", "Content-Length is not a number", headers={"Connection": "close"})
    limit = config.max_request_bytes
    if int(length) > limit:
        raise Reply(413, "request-too-large", f"the request body is larger than {limit} bytes",
                    headers={"Connection": "close"}, maxRequestBytes=limit)
    chunks, size = [], 0
    try:
        with anyio.fail_after(max(0.0, started + config.request_seconds - time.monotonic())):
            async for chunk in request.stream():
                size += len(chunk)
                if size > limit:
                    raise Reply(413, "request-too-large", f"the request body is larger than {limit} bytes",
                                headers={"Connection": "close"}, maxRequestBytes=limit)
                chunks.append(chunk)
    except TimeoutError:
        raise Reply(408, "request-timeout", f"the body did not arrive within {config.request_seconds:g} s",
                    headers={"Connection": "close"}) from None
    return b"".join(chunks)


class _Endpoint:
    """The one endpoint behind every path and method (an ASGI app, so that Starlette's route
    leaves every method to it: a method no route answers gets the route's own 405)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = await _endpoint(Request(scope, receive))
        await response(scope, receive, send)


async def _endpoint(request: Request) -> Response:
    service: Service = request.app.state.service
    started = time.monotonic()
    method = request.method
    target = "/"
    routed: _Request | None = None
    route: routes.Route | None = None
    try:
        target = _target(request.scope)
        path = target.partition("?")[0]
        route, path_params = routes.route_for(path)  # 404 for a path that is no page
        if method == "OPTIONS":
            return _response(empty_reply(204, _preflight(service.config, route)), method)
        route.check(method)  # 405 with the route's Allow
        if len(target) > MAX_URL_CHARS:
            raise Reply(414, "uri-too-long", f"the URL is longer than {MAX_URL_CHARS} characters; "
                        "send the query by POST", headers={"Connection": "close"})
        body = await _read_body(request, service.config, started) if method == "POST" else b""
        if not service.started:  # mounted in another app, whose lifespan does not start ours
            await anyio.to_thread.run_sync(service.start)
        base_url = f"{request.url.scheme}://{request.url.netloc}{request.scope.get('root_path') or ''}"
        routed = _Request("GET" if method == "HEAD" else method, target, base_url, request.headers, body, path_params)
        # read before the work: an ingest meanwhile leaves this answer the old generation's ETag
        current = version(service.config.store) if method != "POST" else None
        job = route.view.respond(service, routed)  # reads the request only
        if isinstance(job, streams.Stream):
            return await _streamed(request, service, job, target, current)
        if isinstance(job, Work):  # a worker's answer, awaited on the loop
            reply = await ask_worker(service, job)
        elif isinstance(job, Blocking):  # pages made here, updates, descriptions: a thread answers them
            reply = await anyio.to_thread.run_sync(job.run, limiter=request.app.state.limiter)
        else:
            reply = job
        reply = _under(request.scope.get("root_path") or "", reply)
        if current is not None and getattr(route.view, "CONDITIONAL", True):
            day = job.msg.get("today") if isinstance(job, Work) else None  # ages counted to this day
            reply = validate(reply, target, current, dict(request.headers.items()), head=method == "HEAD", day=day)
    except Reply as refused:
        reply = refused.reply()
    except ClientDisconnect:
        return Response(status_code=400, headers={"Connection": "close"})
    except Exception as err:  # noqa: BLE001 - the server keeps running
        reply = json_reply(500, {"error": "internal-error", "message": safe_text(err, 300)}, {"Connection": "close"})
    return _error_page(request, reply, routed, route)


def _error_page(request: Request, reply: dict, routed: _Request | None, route: routes.Route | None) -> Response:
    """The answer; an error as a page for a client that prefers HTML (a query's text back in its form)."""
    if is_error(reply) and prefers_html(request.headers.get("accept")):
        text = sparql.query_text(routed) if routed is not None and route is not None and route.view is sparql else None
        reply = _under(request.scope.get("root_path") or "", error_page(reply, text))
    return _response(reply, request.method)


async def _streamed(request: Request, service: Service, job: streams.Stream, target: str,
                    current: tuple[str, float] | None) -> Response:
    """A dump of the store: validated first (a 304 dumps nothing), refused before its first byte
    if it must be, then streamed."""
    head = request.method == "HEAD"
    headers = dict(job.headers)
    if current is not None:
        checked = validate({"status": 200, "type": job.media_type, "headers": headers}, target, current,
                           dict(request.headers.items()), head=head, streamed=True)
        if checked["status"] == 304:
            return _response(checked, request.method)
        headers = checked["headers"]
    client = (request.scope.get("client") or ("-", 0))[0]
    started = await streams.start(service, job, client, head=head)
    if isinstance(started, dict):  # refused before the first byte
        return _error_page(request, started, None, None)
    return StreamingResponse(started, status_code=200, headers=headers, media_type=job.media_type)


def _preflight(config: ServeConfig, route: routes.Route) -> dict[str, str]:
    """The answer to OPTIONS: the route's ``Allow`` (as its 405s give it), and the CORS
    preflight headers when an origin is configured."""
    headers = route.allow_header()
    if config.cors:
        cross = [m for m in route.allowed if m in ("GET", "POST")]
        headers.update({"Access-Control-Allow-Methods": ", ".join(cross),
                        "Access-Control-Allow-Headers": "Accept, Content-Type, Authorization",
                        "Access-Control-Max-Age": "600"})
    return headers


def _response(reply: dict, method: str) -> Response:
    body = reply.get("body", b"")
    headers = dict(reply.get("headers") or {})
    if method == "HEAD":
        headers["Content-Length"] = str(len(body))
        body = b""
    return Response(content=body, status_code=reply["status"], headers=headers, media_type=reply.get("type") or None)


# ---------------------------------------------------------------------------
# Around every request


class _Edge:
    """ASGI middleware: the Host allow-list, headers every answer carries (nosniff, CORS
    when configured), the answer count, the metrics (with ``--metrics``) and the access log
    (path only, never the query)."""

    def __init__(self, app: ASGIApp, service: Service) -> None:
        self.app, self.service = app, service
        self.hosts = service.config.host_names()
        self.extra = [(b"x-content-type-options", b"nosniff")]
        if service.config.cors:
            self.extra += [(b"access-control-allow-origin", service.config.cors.encode()), (b"vary", b"Origin")]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 0
        started = time.monotonic()
        metrics = self.service.metrics
        route = _route_label(scope) if metrics is not None else ""

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = list(message.get("headers", [])) + self.extra
                if metrics is not None:
                    metrics.started(route, time.monotonic() - started)
            await send(message)

        try:
            if self.hosts is not None and _host_name(scope) not in self.hosts:
                await _plain_json(sending, 400, "bad-host", "this server answers only to "
                                  + ", ".join(sorted(self.hosts)) + " in the Host header")
            else:
                await self.app(scope, receive, sending)
        finally:
            self.service.count(status)
            if metrics is not None:
                metrics.answered(route, scope["method"], status)
            if self.service.log is not None:
                client = (scope.get("client") or ("-", 0))[0]
                self.service.log(safe_text(f'{client} "{scope["method"]} {scope["path"]} '
                                           f'HTTP/{scope.get("http_version", "1.1")}" {status or "-"}', 300))


def _route_label(scope: Scope) -> str:
    """The route a request is counted under: the first path of its row in the route table (a few
    labels, whatever the paths asked), ``unrouted`` for a path that is no page."""
    path = scope.get("path") or "/"
    root = scope.get("root_path") or ""
    if root and path.startswith(root):
        path = path[len(root):] or "/"
    found = routes.match(path)
    return found[0].paths[0] if found is not None else "unrouted"


def _host_name(scope: Scope) -> str:
    """The name in the Host header, without its port, lower case ("" when absent)."""
    raw = next((v for k, v in scope.get("headers", []) if k == b"host"), b"").decode("latin-1").strip().lower()
    if raw.startswith("["):  # [::1]:8000
        return raw[1:raw.find("]")] if "]" in raw else raw
    return raw.rsplit(":", 1)[0] if raw.count(":") == 1 else raw


async def _plain_json(send: Send, status: int, error: str, message: str) -> None:
    reply = json_reply(status, {"error": error, "message": message})
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"connection", b"close"),
                            (b"content-length", str(len(reply["body"])).encode())]})
    await send({"type": "http.response.body", "body": reply["body"]})
