"""What ``kg serve`` can be told: its options, their defaults and the server's fixed limits.

This module stays light (no pyoxigraph, no templates): the command line reads the
defaults from it while it builds its parser.
"""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from ..errors import StoreError, UsageError
from ..runtime.limits import (DEFAULT_ANSWER_CACHE_MB, DEFAULT_MAX_BYTES, DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT,
                              DEFAULT_WORKER_MEMORY_MB, MAX_QUERY_CHARS)
from ..vocab import DEFAULT_BASE, Iris

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
DEFAULT_MAX_REQUEST_BYTES = 1024 * 1024
MAX_URL_CHARS = 16 * 1024
MAX_CONNECTIONS = 512  # open connections at once; more are answered 503 at once
MAX_CONNECTIONS_PER_CLIENT = 100  # from one address (a proxy is one address: raise it behind one)
REQUEST_SECONDS = 10.0  # a request (its head and its body) must arrive within this, else 408
KEEP_ALIVE_SECONDS = 5.0  # an idle keep-alive connection is closed after this
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")  # Host names accepted when bound to loopback
MIN_TOKEN_CHARS = 16
STREAMS_PER_CLIENT = 2  # dumps (GET /store, Graph Store reads) one client address may read at once
STREAMS = 8  # dumps streamed at once in all; past either cap a dump is answered 503 with Retry-After
STREAM_STALL_SECONDS = 60.0  # a dump whose client takes nothing for this long is stopped

__all__ = ["DEFAULT_ANSWER_CACHE_MB", "DEFAULT_HOST", "DEFAULT_MAX_BYTES", "DEFAULT_MAX_REQUEST_BYTES",
           "DEFAULT_MAX_ROWS", "DEFAULT_PORT", "DEFAULT_TIMEOUT", "DEFAULT_WORKER_MEMORY_MB", "MAX_QUERY_CHARS",
           "ServeConfig", "is_loopback", "is_web_iri"]


@dataclass
class ServeConfig:
    """Everything ``kg serve`` can be told; the CLI options map one to one."""

    store: str
    base: str = DEFAULT_BASE
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    timeout: float = DEFAULT_TIMEOUT
    max_rows: int = DEFAULT_MAX_ROWS
    max_bytes: int = DEFAULT_MAX_BYTES
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES
    workers: int = 0  # 0: chosen from the number of CPUs
    worker_memory_mb: int = DEFAULT_WORKER_MEMORY_MB
    allow_update: bool = False
    token: str | None = field(default=None, repr=False)
    cors: str | None = None
    max_connections: int = MAX_CONNECTIONS
    max_connections_per_client: int = MAX_CONNECTIONS_PER_CLIENT
    request_seconds: float = REQUEST_SECONDS
    allowed_hosts: tuple[str, ...] | None = None  # None: the loopback names when bound to loopback, else any
    answer_cache_mb: int = DEFAULT_ANSWER_CACHE_MB  # answers kept for the current generation (0: none)
    streams_per_client: int = STREAMS_PER_CLIENT
    streams: int = STREAMS
    queries: tuple[str, ...] = ()  # folders of the user's named queries (--queries): forms, pages, JSON
    metrics: bool = False  # /metrics, in the Prometheus text format (--metrics)

    def check(self) -> None:
        if not os.path.isdir(self.store):
            raise StoreError(f"no store at {self.store}: run 'kg build' first (or pass --store)")
        Iris(self.base)
        if self.timeout <= 0 or self.max_rows < 1 or self.max_request_bytes < 1024 or self.workers < 0:
            raise UsageError("timeout, max-rows, max-request-bytes and workers must be positive")
        if self.max_bytes < 1 or self.answer_cache_mb < 0 or self.streams_per_client < 1 or self.streams < 1:
            raise UsageError("max-bytes, streams-per-client and streams must be positive, answer-cache-mb 0 or more")
        if self.max_connections < 1 or self.max_connections_per_client < 1 or self.request_seconds <= 0:
            raise UsageError("max-connections, max-connections-per-client and request-seconds must be positive")
        if self.allow_update:
            if not self.token:
                raise UsageError("--allow-update needs a bearer token: --token or KG_TOKEN")
            if len(self.token) < MIN_TOKEN_CHARS:
                raise UsageError(f"the update token must have at least {MIN_TOKEN_CHARS} characters")
        if self.cors is not None and (self.cors == "*" or not is_web_iri(self.cors)):
            raise UsageError("--cors takes one origin such as https://example.org (never '*')")
        from ..queries import use_folders  # the pages made here list them; each worker registers them too

        use_folders(self.queries)

    def host_names(self) -> frozenset[str] | None:
        """The Host header names this server answers (None: any). Bound to loopback, only
        loopback names: a page elsewhere cannot rebind its own name to 127.0.0.1 and read us.

        >>> sorted(ServeConfig(store="s").host_names())
        ['127.0.0.1', '::1', 'localhost']
        >>> ServeConfig(store="s", host="0.0.0.0").host_names() is None
        True
        """
        if self.allowed_hosts is not None:
            return frozenset(h.lower() for h in self.allowed_hosts)
        return frozenset(LOOPBACK_HOSTS) if is_loopback(self.host) else None

    @property
    def answer_cache_bytes(self) -> int:
        return self.answer_cache_mb * 1024 * 1024

    def worker_count(self) -> int:
        return self.workers or max(2, min(8, os.cpu_count() or 2))


def is_web_iri(text: str) -> bool:
    """Whether ``text`` is an http(s) IRI with a host and no space or control character.

    >>> is_web_iri("https://example.org/x"), is_web_iri("javascript:alert(1)"), is_web_iri("https://")
    (True, False, False)
    """
    try:
        parts = urlsplit(text)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.netloc) and not any(
        ch.isspace() or ord(ch) < 32 for ch in text)


def is_loopback(host: str) -> bool:
    """Whether ``host`` only listens on this machine.

    >>> is_loopback("127.0.0.1"), is_loopback("0.0.0.0"), is_loopback("localhost")
    (True, False, True)
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
