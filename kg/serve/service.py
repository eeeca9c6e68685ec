"""A configured endpoint: its settings, its worker pool, the dumps it is streaming and what it has answered.

One :class:`Service` stands behind an app (:mod:`kg.serve.asgi`); the views read its settings and
hand their work to its pool. Its workers start with the app's lifespan (or earlier, by
:class:`kg.serve.server.Server`, or at the first request of a mounted app) and stop with it.
"""

from __future__ import annotations

import os
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

from ..runtime.pool import WorkerPool, worker_settings
from .config import ServeConfig
from .metrics import Metrics


@dataclass
class StreamSlots:
    """Dumps being streamed (:mod:`kg.serve.streams`), by client address, within a cap per client and in all."""

    per_client: int
    total: int
    _open: Counter[str] = field(default_factory=Counter)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def take(self, client: str) -> bool:
        """Count one more dump for ``client``; False (nothing counted) past either cap."""
        with self._lock:
            if self._open[client] >= self.per_client or sum(self._open.values()) >= self.total:
                return False
            self._open[client] += 1
            return True

    def give_back(self, client: str) -> None:
        with self._lock:
            self._open[client] -= 1
            if self._open[client] <= 0:
                del self._open[client]

    def open(self) -> int:
        with self._lock:
            return sum(self._open.values())


@dataclass
class Service:
    """A configured endpoint: its settings, its worker pool and what it has answered."""

    config: ServeConfig
    pool: WorkerPool
    log: Callable[[str], None] | None = None
    started: bool = False
    stats: dict[int, int] = field(default_factory=dict)
    streams: StreamSlots | None = None
    metrics: Metrics | None = None  # with --metrics: what /metrics reports
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        if self.streams is None:
            self.streams = StreamSlots(self.config.streams_per_client, self.config.streams)

    def start(self) -> None:
        with self._lock:
            if not self.started:
                # the workers watch the process that starts them (an app made before a fork,
                # as under gunicorn --preload, starts them in the child)
                self.pool.settings["parent"] = os.getpid()
                self.pool.start()
                self.started = True

    def close(self) -> None:
        with self._lock:
            self.pool.close()
            self.started = False

    def count(self, status: int) -> None:
        with self._lock:
            self.stats[status] = self.stats.get(status, 0) + 1


def service_for(config: ServeConfig, log: Callable[[str], None] | None = None) -> Service:
    """The service for ``config`` (checked; workers not started yet)."""
    config.check()
    settings = worker_settings(config.store, config.base, config.worker_memory_mb, queries=config.queries)
    service = Service(config, WorkerPool(settings, config.worker_count(), answer_bytes=config.answer_cache_bytes), log)
    if config.metrics:
        service.metrics = Metrics(service)
    return service
