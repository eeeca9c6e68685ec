"""A read-only store and its query workers (the work behind the tools), under the endpoint's limits.

Every SPARQL text, named or not, runs in a query worker of :class:`kg.runtime.pool.WorkerPool`
(the pool kg serve runs too): the worker checks it with the guard, a query past its deadline is
stopped by killing its process. A caller that pages (:mod:`kg.mcp.paging`) has the worker read at
most ``cap`` rows (or triples) and flags an answer that reached it; without a cap, a result of more
than ``max_rows`` rows is refused, never cut short. A ``sparql`` text is also checked with the
guard here, before any worker sees it. Nothing here writes: the store is opened read-only, workers open it read-only,
and there is no update path at all.

The small reads that need no deadline (does a system exist, a system's record, the graph
measures) use the store opened read-only in this process. It follows new versions of the
store (an ingest finished) like the workers do: each tool call takes :meth:`StoreWorkers.version`,
one version pinned for the whole call, after a one-stat check for a newer one; a watcher
thread does the same check every ``IDLE_CHECK_S`` while the server is idle, so that an
old version is not kept on disk.
"""

from __future__ import annotations

import threading
import time
from types import TracebackType
from typing import Any, Callable

from ..errors import KgError, QueryError
from ..queries import Plan
from ..runtime.limits import MAX_QUERY_CHARS
from ..runtime.failures import POOL_FAILURES, refusal
from ..runtime.pipe import QUERY_OP
from ..runtime.pool import IDLE_CHECK_S, WorkerPool
from ..sparql.guard import QueryRefused, check_query
from ..store import GraphStore
from ..vocab import Iris
from .config import McpConfig
from .results import GRAPH_FORMAT, SOLUTIONS_FORMAT, decode


class StoreWorkers:
    """A read-only store and its query workers, with the server's deadline and row cap."""

    def __init__(self, config: McpConfig) -> None:
        config.check()
        self.config = config
        self.iris = Iris(config.base)
        self.store = GraphStore.open_existing(config.store, read_only=True)
        self.graphs = {g.value for g in self.store.named_graphs()}
        self.pool = WorkerPool(config.worker_settings(), config.workers)
        self._lock = threading.Lock()  # one thread at a time moves the store to a new version
        self.on_new_version: list[Callable[[], None]] = []  # what drops its caches of an older version
        self._stop = threading.Event()

    def start(self) -> "StoreWorkers":
        self.pool.start()
        threading.Thread(target=self._watch, daemon=True, name="kg-mcp-versions").start()
        return self

    def close(self) -> None:
        self._stop.set()
        self.pool.close()

    # -- versions of the store ---------------------------------------------

    def version(self) -> GraphStore:
        """The store's current version, pinned: a tool call reads it whole, whatever
        ingests finish meanwhile (one stat when no newer version exists)."""
        with self._lock:
            self._refresh()
            return self.store.pinned()

    def refresh(self) -> None:
        """Move :attr:`store` to the current version, if an ingest made a newer one current."""
        with self._lock:
            self._refresh()

    def _refresh(self) -> None:
        if self.store.reopen():
            self.graphs = {g.value for g in self.store.named_graphs()}
            for forget in self.on_new_version:
                forget()

    def _watch(self) -> None:
        while not self._stop.wait(IDLE_CHECK_S):
            try:
                self.refresh()
            except (KgError, OSError, RuntimeError):
                pass  # the next tool call meets the error and reports it

    def __enter__(self) -> "StoreWorkers":
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    # -- queries -------------------------------------------------------------

    def sparql(self, text: str, timeout: float | None = None, cap: int | None = None) -> dict[str, Any]:
        """A SPARQL query of the caller's, guarded, under the deadline (at most the server's); with
        ``cap``, its first ``cap`` rows or triples."""
        if len(text) > MAX_QUERY_CHARS:
            raise QueryError(f"the query is longer than {MAX_QUERY_CHARS} characters")
        self.refresh()  # the graphs the guard knows are the current version's
        try:
            check_query(text, self.graphs)
        except QueryRefused as err:
            if "not a query" in str(err):  # the guard's words for an update, which has no path here
                raise QueryRefused("this is not a query: this server is read-only and takes no SPARQL Update") \
                    from None
            raise
        return self._run(text, self.deadline_seconds(timeout), cap=cap)

    def named(self, planned: Plan, cap: int | None = None) -> dict[str, Any]:
        """A named query's plan (:func:`kg.queries.plan`, made on :meth:`version`) run, capped at its
        ``limit``; what resolving a name chose is said in the answer's ``notes``. Its text is kg's
        own, checked as it was made: the worker runs it as planned, whatever its length. With ``cap``,
        at most its first ``cap`` rows are read."""
        answer = self._run(planned.text, self.config.timeout, limit=planned.limit,
                           planned={"form": planned.form, "dataset": planned.dataset}, cap=cap)
        return {**answer, "notes": list(planned.notes)} if planned.notes else answer

    def deadline_seconds(self, timeout: float | None) -> float:
        """The caller's timeout if it is shorter than the server's, else the server's."""
        if timeout is None:
            return self.config.timeout
        if timeout <= 0:
            raise QueryError("timeout must be a positive number of seconds")
        return min(timeout, self.config.timeout)

    def _run(self, text: str, seconds: float, limit: int | None = None, planned: dict | None = None,
             cap: int | None = None) -> dict[str, Any]:
        msg = {"op": QUERY_OP, "query": text, "solutions": SOLUTIONS_FORMAT, "graph": GRAPH_FORMAT,
               "max_rows": self.config.max_rows, "max_bytes": self.config.max_bytes, "planned": planned}
        if cap is not None:
            msg.update(row_cap=min(cap, self.config.max_rows), triple_cap=min(cap, self.config.max_rows))
        return decode(self._call(msg, seconds), limit)

    def _call(self, msg: dict, seconds: float) -> dict:
        try:
            return self.pool.call(msg, time.monotonic() + seconds)
        except POOL_FAILURES as failed:  # said as kg serve says it (kg.runtime.failures)
            raise QueryError(str(refusal(failed, seconds, self.pool.size, self.config.worker_memory_mb))) from None
