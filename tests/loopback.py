"""A loopback HTTP server of the test's own, for the remote tests: on a free port of 127.0.0.1,
in a thread, answering every GET, POST and PUT with ``answer(handler)`` -> (status, headers, body)
after reading the request's body."""

from __future__ import annotations

import contextlib
import http.server
import threading
from typing import Callable, Iterator

Answer = Callable[[http.server.BaseHTTPRequestHandler], tuple[int, dict[str, str], bytes]]


class Loopback(http.server.ThreadingHTTPServer):
    """The server; ``url`` is its base URL (no trailing slash)."""

    def __init__(self, answer: Answer) -> None:
        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _answer(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status, headers, body = answer(self)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PUT = _answer

        super().__init__(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server_address[1]}"
        threading.Thread(target=self.serve_forever, daemon=True).start()


@contextlib.contextmanager
def loopback(answer: Answer) -> Iterator[Loopback]:
    """A running :class:`Loopback`, stopped and closed at the end."""
    server = Loopback(answer)
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
