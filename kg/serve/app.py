"""A configured server: its worker pool and its HTTP server, started and stopped together."""

from __future__ import annotations

import os
import threading
from typing import Any, Callable

from ..vocab import DEFAULT_BASE
from .config import (DEFAULT_HOST, DEFAULT_MAX_BYTES, DEFAULT_MAX_REQUEST_BYTES, DEFAULT_MAX_ROWS, DEFAULT_PORT,
                     DEFAULT_TIMEOUT, DEFAULT_WORKER_MEMORY_MB, ServeConfig)
from .handler import HttpServer
from .pool import WorkerPool


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
        self.httpd = HttpServer((config.host, config.port), self)
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

    def record_answer(self, status: int, seconds: float) -> None:
        """Count an answer by status (``stats``); 0 is a request that got no answer."""
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
