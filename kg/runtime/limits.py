"""The query limits ``kg serve`` and ``kg mcp`` both apply, so a query one refuses the other refuses too.

This module stays light (no pyoxigraph): the command line reads the defaults while it builds its parser.
"""

from __future__ import annotations

DEFAULT_TIMEOUT = 10.0  # seconds a query may run; past it, its worker is killed and replaced
DEFAULT_MAX_ROWS = 10_000  # rows (or triples) of one result; more is refused, never cut short
DEFAULT_MAX_BYTES = 64 * 1024 * 1024  # bytes of one serialised result
DEFAULT_WORKER_MEMORY_MB = 2048  # memory a query worker may use
MAX_QUERY_CHARS = 64 * 1024  # characters of one SPARQL text
DEFAULT_ANSWER_CACHE_MB = 64  # answers kept for the store's current generation (kg.runtime.answer_cache)
