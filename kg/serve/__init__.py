"""``kg serve``: a SPARQL 1.1 Protocol endpoint and linked-data pages over the store.

Layout of a running server::

    uvicorn (server: make_server() gives it), its h11 protocol with connection limits (connection_limits)
      - strict HTTP/1.1 framing, a deadline per request, connection caps per client
    the ASGI app (asgi: Starlette; create_app() gives it, to run or mount anywhere)
      - Host allow-list, size limits, access log without query strings (asgi), gzip as
        Accept-Encoding asks (compression), ETags and 304 (conditional_get)
      - the route table (routes): each path, its methods, its view (views: one module per page
        kind, its pages and its JSON or RDF from the same module)
      - a view's answer is made by a query worker *process* (dispatch; the pool is
        kg.runtime.pool, shared with kg mcp), unless the same request was answered before from
        the store's current generation (kg.runtime.answer_cache); or here, in a thread; or it is
        the store's dump, streamed (streams)
    query workers (worker: one process each, store opened read-only)
      - guard (kg.sparql.guard): refuse SERVICE / LOAD / non-local FROM, read from the tokens of
        plain SPARQL 1.1, else by walking rdflib's algebra (fail closed when rdflib cannot parse
        the text), then evaluate with pyoxigraph
      - render the view the message names (rendering: results and RDF held to max_bytes; pages
        from templates by pages)

pyoxigraph cannot cancel a running query, so the only real time limit is to kill the
process: a request that passes its deadline gets ``504`` with a JSON error body, its
worker is killed and replaced, and the other workers keep answering. Results are never
truncated silently: more than ``max_rows`` rows (or ``max_bytes`` bytes) gives ``422``.

Importing this package is cheap (the command line reads the defaults while it builds
its parser); the server's modules load when :func:`create_app`, :func:`make_server`,
:func:`serve`, :class:`Server` or :class:`WorkerPool` is first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .config import (DEFAULT_ANSWER_CACHE_MB, DEFAULT_HOST, DEFAULT_MAX_BYTES, DEFAULT_MAX_REQUEST_BYTES,
                     DEFAULT_MAX_ROWS, DEFAULT_PORT, DEFAULT_TIMEOUT, DEFAULT_WORKER_MEMORY_MB, ServeConfig,
                     is_loopback)

if TYPE_CHECKING:
    from ..runtime.pool import WorkerPool
    from .asgi import create_app
    from .server import Server, make_server, serve

_LAZY = {"Server": (".server", "Server"), "make_server": (".server", "make_server"), "serve": (".server", "serve"),
         "create_app": (".asgi", "create_app"), "WorkerPool": ("..runtime.pool", "WorkerPool")}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module, attribute = _LAZY[name]
        value = getattr(importlib.import_module(module, __name__), attribute)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'kg.serve' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = ["Server", "create_app", "DEFAULT_ANSWER_CACHE_MB", "DEFAULT_HOST", "DEFAULT_MAX_BYTES",
           "DEFAULT_MAX_REQUEST_BYTES", "DEFAULT_MAX_ROWS", "DEFAULT_PORT", "DEFAULT_TIMEOUT",
           "DEFAULT_WORKER_MEMORY_MB", "ServeConfig", "WorkerPool", "is_loopback", "make_server", "serve"]
