"""What ``kg mcp`` can be told: the store, the query limits, the worker pool and the HTTP port.

This module stays light (no MCP SDK, no pyoxigraph): the command line reads the defaults
from it while it builds its parser. The query limits are the SPARQL endpoint's
(:mod:`kg.runtime.limits`), so a query the endpoint refuses the MCP server refuses too.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from ..errors import StoreError, UsageError
from ..runtime.limits import DEFAULT_MAX_BYTES, DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT, DEFAULT_WORKER_MEMORY_MB
from ..vocab import DEFAULT_BASE, Iris

HTTP_HOST = "127.0.0.1"  # streamable HTTP listens on this machine only
DEFAULT_HTTP_PORT = 8765
HTTP_PATH = "/mcp"
DEFAULT_WORKERS = 2  # an agent asks one thing at a time; the second worker answers while one is replaced
DEFAULT_TOP = 10  # systems the analyze tool lists by default


@dataclass
class McpConfig:
    """Everything ``kg mcp`` can be told; the CLI options map one to one.

    >>> McpConfig(store=".", timeout=0).check()
    Traceback (most recent call last):
    ...
    kg.errors.UsageError: timeout, max-rows and workers must be positive
    """

    store: str
    base: str = DEFAULT_BASE
    timeout: float = DEFAULT_TIMEOUT
    max_rows: int = DEFAULT_MAX_ROWS
    max_bytes: int = DEFAULT_MAX_BYTES
    workers: int = DEFAULT_WORKERS
    worker_memory_mb: int = DEFAULT_WORKER_MEMORY_MB
    origins: tuple[str, ...] = field(default_factory=tuple)  # Origin headers --http accepts besides its own
    all_tools: bool = False  # list every named query as a tool, plumbing (check-*, select-*) included
    queries: tuple[str, ...] = field(default_factory=tuple)  # folders of the user's named queries (--queries)

    def check(self) -> None:
        if self.timeout <= 0 or self.max_rows < 1 or self.workers < 1:
            raise UsageError("timeout, max-rows and workers must be positive")
        if not os.path.isdir(self.store):
            raise StoreError(f"no store at {self.store}: run 'kg build' first (or pass --store)")
        Iris(self.base)
        from ..queries import use_folders  # registered here, before the tools are listed from the registry

        use_folders(self.queries)

    def worker_settings(self) -> dict:
        """The settings a query worker (:mod:`kg.runtime.pool`) is started with: the endpoint's
        worker (guard, limits, formats), as kg serve's."""
        from ..runtime.pool import worker_settings

        return worker_settings(self.store, self.base, self.worker_memory_mb)


def origin(text: str) -> str:
    """An origin given to ``--allow-origin``, as browsers send it: ``scheme://host[:port]``,
    lower case, no path.

    >>> origin("HTTP://App.Example:8080/")
    'http://app.example:8080'
    >>> origin("app.example")
    Traceback (most recent call last):
    ...
    kg.errors.UsageError: --allow-origin takes an origin such as http://localhost:3000, not 'app.example'
    """
    parts = urlsplit(text.strip())
    try:
        port = parts.port
    except ValueError:
        port = -1
    if (parts.scheme.lower() not in ("http", "https") or not parts.hostname or port == -1
            or parts.path not in ("", "/") or parts.query or parts.fragment or parts.username or parts.password):
        raise UsageError(f"--allow-origin takes an origin such as http://localhost:3000, not {text!r}")
    host = parts.hostname.lower()
    host = f"[{host}]" if ":" in host else host
    return f"{parts.scheme.lower()}://{host}" + (f":{port}" if port is not None else "")
