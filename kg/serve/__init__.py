"""``kg serve``: a SPARQL 1.1 Protocol endpoint and linked-data pages over the store.

Layout of a running server::

    uvicorn (app), its h11 protocol with a connection guard (protocol)
      - strict HTTP/1.1 framing, a deadline per request, connection caps per client
    the ASGI app (asgi: Starlette; create_app() gives it, to run or mount anywhere)
      - Host allow-list, size limits, access log without query strings (asgi), the bearer
        token and content negotiation (routes, negotiation)
      - hand the work to a pool of query worker *processes* (pool)
    query workers (worker: one process each, store opened read-only)
      - guard (kg.sparql.guard): refuse SERVICE / LOAD / non-local FROM by walking rdflib's
        algebra (fail closed when rdflib cannot parse the text), then evaluate with pyoxigraph
      - serialise results, entity pages (HTML from templates by pages, Turtle, JSON-LD,
        N-Triples, RDF/XML)

pyoxigraph cannot cancel a running query, so the only real time limit is to kill the
process: a request that passes its deadline gets ``504`` with a JSON error body, its
worker is killed and replaced, and the other workers keep answering. Results are never
truncated silently: more than ``max_rows`` rows (or ``max_bytes`` bytes) gives ``422``.

Importing this package is cheap (the command line reads the defaults while it builds
its parser); the server's modules load when :func:`create_app`, :func:`make_app`,
:func:`serve`, :class:`App` or :class:`WorkerPool` is first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .config import (DEFAULT_HOST, DEFAULT_MAX_BYTES, DEFAULT_MAX_REQUEST_BYTES, DEFAULT_MAX_ROWS, DEFAULT_PORT,
                     DEFAULT_TIMEOUT, DEFAULT_WORKER_MEMORY_MB, ServeConfig, is_loopback)

if TYPE_CHECKING:
    from .app import App, make_app, serve
    from .asgi import create_app
    from .pool import WorkerPool

_LAZY = {"App": "app", "make_app": "app", "serve": "app", "create_app": "asgi", "WorkerPool": "pool"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'kg.serve' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = ["App", "create_app", "DEFAULT_HOST", "DEFAULT_MAX_BYTES", "DEFAULT_MAX_REQUEST_BYTES", "DEFAULT_MAX_ROWS",
           "DEFAULT_PORT", "DEFAULT_TIMEOUT", "DEFAULT_WORKER_MEMORY_MB", "ServeConfig", "WorkerPool",
           "is_loopback", "make_app", "serve"]
