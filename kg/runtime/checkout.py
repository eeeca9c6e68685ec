"""The idle workers of a pool, and the two ways a call takes one.

A caller in a thread waits for an idle worker until its deadline (:meth:`IdleWorkers.take`). A
caller on an event loop takes one that is idle now (:meth:`IdleWorkers.take_now`), and only when
callers in threads hold them all waits for one in a thread (:meth:`IdleWorkers.take_awaited`),
giving it back if it is cancelled once the thread has one. Either way an idle worker found dead
is dropped (the pool's ``usable`` check removes and replaces it) and the next one is taken.
"""

from __future__ import annotations

import queue
import time
from typing import Callable

import anyio

from .failures import PoolBusy
from .pipe import ChildProcess


class IdleWorkers:
    """Idle workers, the most recently used first (a warm one answers sooner)."""

    def __init__(self, usable: Callable[[ChildProcess], bool]) -> None:
        self._usable = usable  # whether a worker taken is alive (a dead one is dealt with by the pool)
        self._idle: queue.LifoQueue[ChildProcess] = queue.LifoQueue()

    def put(self, proc: ChildProcess) -> None:
        self._idle.put(proc)

    def count(self) -> int:
        return self._idle.qsize()

    def take(self, deadline: float) -> ChildProcess:
        """A live idle worker, waiting for one until ``deadline`` (then :class:`PoolBusy`)."""
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise PoolBusy()
            try:
                proc = self._idle.get(timeout=remaining)
            except queue.Empty:
                raise PoolBusy() from None
            if self._usable(proc):
                return proc

    def take_now(self) -> ChildProcess | None:
        """A live idle worker, or None when none is idle now."""
        while True:
            try:
                proc = self._idle.get_nowait()
            except queue.Empty:
                return None
            if self._usable(proc):
                return proc

    async def take_awaited(self, deadline: float) -> ChildProcess:
        """A live idle worker for a caller on an event loop: one idle now, else one waited for
        in a thread (callers in threads hold them all)."""
        proc = self.take_now()
        if proc is not None:
            return proc
        taken: list[ChildProcess] = []
        try:
            await anyio.to_thread.run_sync(lambda: taken.append(self.take(deadline)))
        except BaseException:
            for proc in taken:  # cancelled once the thread had one: it goes back
                self._idle.put(proc)
            raise
        return taken[0]

    def drain(self) -> list[ChildProcess]:
        """Every idle worker, taken out (the pool is closing)."""
        drained = []
        while True:
            try:
                drained.append(self._idle.get_nowait())
            except queue.Empty:
                return drained
