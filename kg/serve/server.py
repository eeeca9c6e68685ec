"""``kg serve``'s server: the ASGI app (:mod:`kg.serve.asgi`) under uvicorn, with the
connection limits (:mod:`kg.serve.connection_limits`), started and stopped with its workers."""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any, Callable

from ..errors import StoreError
from ..runtime.listening import listening_socket
from ..vocab import DEFAULT_BASE
from .asgi import create_app
from .service import Service, service_for
from .config import (DEFAULT_HOST, DEFAULT_MAX_BYTES, DEFAULT_MAX_REQUEST_BYTES, DEFAULT_MAX_ROWS, DEFAULT_PORT,
                     DEFAULT_TIMEOUT, DEFAULT_WORKER_MEMORY_MB, KEEP_ALIVE_SECONDS, ServeConfig)
from .connection_limits import guarded_protocol


def _quiet_uvicorn() -> None:
    # uvicorn reports to the logging module; kg serve writes its own one-line access log
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        if not logger.handlers:
            logger.addHandler(logging.NullHandler())
        logger.propagate = False


class Server:
    """A configured server: bound to its port when made, serving once started.

    ``start()`` runs it in a background thread (for tests and embedding), ``serve_forever()``
    in the calling thread; ``stop()`` (or leaving a ``with`` block) stops it and its workers.
    ``asgi`` is the ASGI app itself, ``service`` its settings and worker pool.
    """

    def __init__(self, config: ServeConfig, log: Callable[[str], None] | None = None) -> None:
        import uvicorn

        self.service: Service = service_for(config, log)
        self.config, self.pool, self.log = config, self.service.pool, log
        self.asgi = create_app(service=self.service)
        self.socket = listening_socket(config.host, config.port, backlog=512, inheritable=True)
        self.port: int = self.socket.getsockname()[1]
        _quiet_uvicorn()
        protocol = guarded_protocol(config.max_connections, config.max_connections_per_client,
                                    config.request_seconds)
        settings = uvicorn.Config(self.asgi, http=protocol, lifespan="on", log_config=None, access_log=False,
                                  timeout_keep_alive=int(KEEP_ALIVE_SECONDS), limit_concurrency=None,
                                  server_header=False, timeout_graceful_shutdown=5, ws="none")
        self.server = uvicorn.Server(settings)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host = self.config.host
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}"

    @property
    def stats(self) -> dict[int, int]:
        """Answers so far by status (0: a request that got no answer)."""
        return self.service.stats

    def start(self) -> "Server":
        self.service.start()
        self._thread = threading.Thread(target=self.serve_forever, daemon=True, name="kg-serve")
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started and self._thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)
        if not self.server.started:
            self.stop()
            raise StoreError("kg serve did not start")
        return self

    def serve_forever(self) -> None:
        """Serve in this thread until stopped (in the main thread: until SIGINT or SIGTERM)."""
        self.service.start()
        self.server.run(sockets=[self.socket])

    def stop(self) -> None:
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)
            self._thread = None
        self.socket.close()
        self.service.close()

    def __enter__(self) -> "Server":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def make_server(store: str | os.PathLike, *, base: str = DEFAULT_BASE, host: str = DEFAULT_HOST,
             port: int = DEFAULT_PORT, timeout: float = DEFAULT_TIMEOUT, max_rows: int = DEFAULT_MAX_ROWS,
             max_bytes: int = DEFAULT_MAX_BYTES, max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
             workers: int = 0, worker_memory_mb: int = DEFAULT_WORKER_MEMORY_MB, allow_update: bool = False,
             token: str | None = None, cors: str | None = None,
             log: Callable[[str], None] | None = None, **limits: Any) -> Server:
    """A server over the store at ``store`` (the arguments mirror ``kg serve``'s options;
    ``limits``: the other fields of :class:`~kg.serve.config.ServeConfig`).

    The socket is bound at once (``port=0`` picks a free port, see ``server.url``); workers
    start with ``server.start()`` or ``server.serve_forever()``.
    """
    config = ServeConfig(store=os.fspath(store), base=base, host=host, port=port, timeout=timeout,
                         max_rows=max_rows, max_bytes=max_bytes, max_request_bytes=max_request_bytes,
                         workers=workers, worker_memory_mb=worker_memory_mb, allow_update=allow_update,
                         token=token, cors=cors, **limits)
    return Server(config, log=log)


def serve(store: str | os.PathLike, *, ready: Callable[[Server], None] | None = None, **options: Any) -> None:
    """Run ``kg serve`` in the calling thread until interrupted (Ctrl-C, SIGTERM), then stop cleanly."""
    server = make_server(store, **options)
    try:
        server.service.start()
        if ready is not None:
            ready(server)
        server.serve_forever()
    finally:
        server.stop()
