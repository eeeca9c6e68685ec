"""``kg serve``: a SPARQL 1.1 Protocol endpoint and linked-data pages over the store.

Layout of a running server::

    uvicorn (server: make_server() gives it), its h11 protocol with connection limits (connection_limits)
      - strict HTTP/1.1 framing, a deadline per request, connection caps per client
    the ASGI app (asgi: Starlette; create_app() gives it, to run or mount anywhere)
      - Host allow-list, size limits, access log without query strings (asgi), the bearer
        token and content negotiation (routes, negotiation)
      - hand the work to a pool of query worker *processes* (kg.runtime.pool, shared with kg mcp),
        unless the same request was answered before from the store's current generation
        (kg.runtime.answers)
    query workers (worker: one process each, store opened read-only)
      - guard (kg.sparql.guard): refuse SERVICE / LOAD / non-local FROM, read from the tokens of
        plain SPARQL 1.1, else by walking rdflib's algebra (fail closed when rdflib cannot parse
        the text), then evaluate with pyoxigraph
      - serialise results, entity pages (HTML from templates by pages, Turtle, JSON-LD,
        N-Triples, RDF/XML)

pyoxigraph cannot cancel a running query, so the only real time limit is to kill the
process: a request that passes its deadline gets ``504`` with a JSON error body, its
worker is killed and replaced, and the other workers keep answering. Results are never
truncated silently: more than ``max_rows`` rows (or ``max_bytes`` bytes) gives ``422``.

Importing this package is cheap (the command line reads the defaults while it builds
its parser); the server's modules load when :func:`create_app`, :func:`make_server`,
:func:`serve`, :class:`Server` or :class:`WorkerPool` is first used. ``make_app`` and
``App`` are the former names of ``make_server`` and ``Server``, kept for existing callers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .config import (DEFAULT_HOST, DEFAULT_MAX_BYTES, DEFAULT_MAX_REQUEST_BYTES, DEFAULT_MAX_ROWS, DEFAULT_PORT,
                     DEFAULT_TIMEOUT, DEFAULT_WORKER_MEMORY_MB, ServeConfig, is_loopback)

if TYPE_CHECKING:
    from ..runtime.pool import WorkerPool
    from .asgi import create_app
    from .server import Server, make_server, serve

    App, make_app = Server, make_server

_LAZY = {"Server": (".server", "Server"), "make_server": (".server", "make_server"), "serve": (".server", "serve"),
         "create_app": (".asgi", "create_app"), "WorkerPool": ("..runtime.pool", "WorkerPool"),
         "App": (".server", "Server"), "make_app": (".server", "make_server")}  # the last two: former names


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


__all__ = ["Server", "create_app", "DEFAULT_HOST", "DEFAULT_MAX_BYTES", "DEFAULT_MAX_REQUEST_BYTES", "DEFAULT_MAX_ROWS",
           "DEFAULT_PORT", "DEFAULT_TIMEOUT", "DEFAULT_WORKER_MEMORY_MB", "ServeConfig", "WorkerPool",
           "is_loopback", "make_server", "serve"]
