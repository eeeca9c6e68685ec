"""The HTTP layer: ``http.server`` threads that read requests, pass them to the routes
and write the answers; nothing here knows SPARQL.

It enforces what belongs to HTTP itself: the URL length, the body's Content-Length and
size, the number of open connections, silent clients; CORS headers when configured;
JSON bodies for the errors http.server raises itself.
"""

from __future__ import annotations

import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

from ..errors import safe_text
from . import routes
from .config import MAX_CONNECTIONS, MAX_URL_CHARS
from .replies import Reply, empty_reply, json_reply

if TYPE_CHECKING:
    from .app import App


class HttpServer(ThreadingHTTPServer):
    """A thread per connection, at most ``MAX_CONNECTIONS`` at once (more get 503 at once)."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], app: App) -> None:
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


class _Request:
    """One request as the routes see it (:class:`kg.serve.routes.Request`)."""

    def __init__(self, handler: _Handler, method: str) -> None:
        self.handler, self.method, self.path = handler, method, handler.path

    def header(self, name: str) -> str | None:
        return self.handler.headers.get(name)

    def body(self) -> bytes:
        return self.handler.read_body()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "kg-serve"
    timeout = 30  # seconds a client may stay silent (slow or idle connections)
    server: HttpServer

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
        self._send(json_reply(code, {"error": "bad-request" if code < 500 else "error",
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

    def read_body(self) -> bytes:
        """The request body; a body that is not read (or not whole) closes the connection."""
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            self.close_connection = True
            raise Reply(411, "length-required", "send the body with a Content-Length (chunked is not supported)")
        length = self.headers.get("Content-Length")
        if length is None:
            self.close_connection = True
            raise Reply(411, "length-required", "a POST needs a Content-Length")
        try:
            size = int(length)
        except ValueError:
            self.close_connection = True
            raise Reply(400, "bad-request", "Content-Length is not a number") from None
        if size < 0:
            self.close_connection = True
            raise Reply(400, "bad-request", "Content-Length is negative")
        limit = self.server.app.config.max_request_bytes
        if size > limit:
            self.close_connection = True  # the body is not read
            raise Reply(413, "request-too-large", f"the request body is larger than {limit} bytes",
                        maxRequestBytes=limit)
        data = self.rfile.read(size)
        if len(data) != size:
            self.close_connection = True
            raise Reply(400, "bad-request", "the body is shorter than its Content-Length")
        return data

    def _dispatch(self, method: str) -> None:
        started = time.monotonic()
        self._status = 0
        try:
            if len(self.path) > MAX_URL_CHARS:
                self.close_connection = True
                raise Reply(414, "uri-too-long", f"the URL is longer than {MAX_URL_CHARS} characters; "
                            "send the query by POST")
            self._send(routes.answer(self.server.app, _Request(self, method)))
        except Reply as reply:
            self._send(reply.reply())
        except (ConnectionError, socket.timeout):
            self.close_connection = True
        except Exception as err:  # noqa: BLE001 - the server keeps running
            self.close_connection = True
            try:
                self._send(json_reply(500, {"error": "internal-error", "message": safe_text(err, 300)}))
            except OSError:
                pass
        finally:
            self.server.app.record_answer(self._status, time.monotonic() - started)

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
        self._send(empty_reply(204, headers))

    def _not_allowed(self) -> None:
        self._send(json_reply(405, {"error": "method-not-allowed", "message": f"{self.command} is not supported here"},
                              {"Allow": "GET, HEAD, POST, OPTIONS"}))

    do_PUT = do_DELETE = do_PATCH = _not_allowed  # noqa: N815
