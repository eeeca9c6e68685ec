"""The ASGI application: a Starlette app that carries the routes (:mod:`kg.serve.routes`)
to any ASGI server (uvicorn, hypercorn, gunicorn with uvicorn workers) or into another app.

    >>> from kg.serve import create_app                     # doctest: +SKIP
    >>> app = create_app("kg-store", workers=2)              # doctest: +SKIP
    >>> # uvicorn.run(app)  or  Starlette(routes=[Mount("/kg", app=app)])

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
import threading
import time
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable

import anyio
from starlette.applications import Starlette
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..errors import safe_text
from . import routes
from ..runtime.pool import WorkerPool
from .config import MAX_URL_CHARS, QUERY_WORKER, ServeConfig
from .errorpages import error_page, is_error, prefers_html
from .replies import Reply, empty_reply, json_reply
from .validators import GZIP_MIN, validate, version

_METHODS = ["GET", "HEAD", "POST", "OPTIONS", "PUT", "DELETE", "PATCH"]


@dataclass
class Service:
    """A configured endpoint: its settings, its worker pool and what it has answered."""

    config: ServeConfig
    pool: WorkerPool
    log: Callable[[str], None] | None = None
    started: bool = False
    stats: dict[int, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def start(self) -> None:
        import os

        with self._lock:
            if not self.started:
                # the workers watch the process that starts them (an app made before a fork,
                # as under gunicorn --preload, starts them in the child)
                self.pool.settings["parent"] = os.getpid()
                self.pool.start()
                self.started = True

    def close(self) -> None:
        with self._lock:
            self.pool.close()
            self.started = False

    def count(self, status: int) -> None:
        with self._lock:
            self.stats[status] = self.stats.get(status, 0) + 1


def service_for(config: ServeConfig, log: Callable[[str], None] | None = None) -> Service:
    """The service for ``config`` (checked; workers not started yet)."""
    import os

    config.check()
    settings = {"worker": QUERY_WORKER, "store": config.store, "base": config.base, "memory_mb": config.worker_memory_mb,
                "parent": os.getpid()}
    return Service(config, WorkerPool(settings, config.worker_count()), log)


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

    app = Starlette(routes=[Route("/{rest:path}", _endpoint, methods=_METHODS)], lifespan=lifespan)
    app.state.service = service
    # pages made here and updates take a thread each (queries wait for their worker on the loop)
    app.state.limiter = anyio.CapacityLimiter(max(40, service.config.max_connections))
    app.add_middleware(GZipMiddleware, minimum_size=GZIP_MIN)
    app.add_middleware(_Edge, service=service)
    return app


# ---------------------------------------------------------------------------
# One request


class _Request:
    """A request as the routes see it (:class:`kg.serve.routes.Request`), body read already."""

    def __init__(self, method: str, path: str, base_url: str, headers: Any, body: bytes) -> None:
        self.method, self.path, self.base_url, self._headers, self._body = method, path, base_url, headers, body

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


async def _endpoint(request: Request) -> Response:
    service: Service = request.app.state.service
    started = time.monotonic()
    method = request.method
    target = "/"
    routed: _Request | None = None
    try:
        target = _target(request.scope)
        if method == "OPTIONS":
            return _response(empty_reply(204, _preflight(service.config, target)), method)
        if method not in ("GET", "HEAD", "POST"):
            routes.check_method(method, target.partition("?")[0])  # 404, or 405 with the path's Allow
        if len(target) > MAX_URL_CHARS:
            raise Reply(414, "uri-too-long", f"the URL is longer than {MAX_URL_CHARS} characters; "
                        "send the query by POST", headers={"Connection": "close"})
        body = await _read_body(request, service.config, started) if method == "POST" else b""
        if not service.started:  # mounted in another app, whose lifespan does not start ours
            await anyio.to_thread.run_sync(service.start)
        base_url = f"{request.url.scheme}://{request.url.netloc}{request.scope.get('root_path') or ''}"
        routed = _Request("GET" if method == "HEAD" else method, target, base_url, request.headers, body)
        # read before the work: an ingest meanwhile leaves this answer the old generation's ETag
        current = version(service.config.store) if method != "POST" else None
        work = routes.plan(service, routed)  # reads the request only
        if work is not None:  # a worker's answer, awaited on the loop
            reply = await routes.answer_work(service, work)
        else:  # pages made here, updates, descriptions: they may block, so a thread answers them
            reply = await anyio.to_thread.run_sync(routes.answer_here, service, routed,
                                                   limiter=request.app.state.limiter)
        reply = _under(request.scope.get("root_path") or "", reply)
        if current is not None and target.partition("?")[0] != "/health":
            reply = validate(reply, target, current, dict(request.headers.items()), head=method == "HEAD")
    except Reply as refused:
        reply = refused.reply()
    except ClientDisconnect:
        return Response(status_code=400, headers={"Connection": "close"})
    except Exception as err:  # noqa: BLE001 - the server keeps running
        reply = json_reply(500, {"error": "internal-error", "message": safe_text(err, 300)}, {"Connection": "close"})
    if is_error(reply) and prefers_html(request.headers.get("accept")):
        text = routes.query_text(routed) if routed is not None else None
        reply = _under(request.scope.get("root_path") or "", error_page(reply, text))
    return _response(reply, method)


def _preflight(config: ServeConfig, target: str) -> dict[str, str]:
    """The answer to OPTIONS: the path's ``Allow`` (as its 405s give it; 404 for no page),
    and the CORS preflight headers when an origin is configured."""
    path = target.partition("?")[0]
    routes.check_method("OPTIONS", path)
    headers = routes.allowed(path)
    if config.cors:
        cross = [m for m in headers["Allow"].split(", ") if m in ("GET", "POST")]
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
    when configured), the answer count and the access log (path only, never the query)."""

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

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = list(message.get("headers", [])) + self.extra
            await send(message)

        try:
            if self.hosts is not None and _host_name(scope) not in self.hosts:
                await _plain_json(sending, 400, "bad-host", "this server answers only to "
                                  + ", ".join(sorted(self.hosts)) + " in the Host header")
            else:
                await self.app(scope, receive, sending)
        finally:
            self.service.count(status)
            if self.service.log is not None:
                client = (scope.get("client") or ("-", 0))[0]
                self.service.log(safe_text(f'{client} "{scope["method"]} {scope["path"]} '
                                           f'HTTP/{scope.get("http_version", "1.1")}" {status or "-"}', 300))


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
