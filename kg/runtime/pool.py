"""The query worker pool of ``kg serve`` and ``kg mcp``: a fixed number of worker processes, their deadlines.

pyoxigraph cannot cancel a running query, so the only real time limit is to kill the
process: a call that passes its deadline raises :class:`WorkerTimeout`, its worker is
killed and replaced in the background, and the other workers keep answering.

The store is a sequence of versions (:mod:`kg.store`). Each worker reads one
version for a whole request and, between requests (and every ``IDLE_CHECK_S`` while
idle), checks with one stat whether an ingest or an update made a newer one current,
and moves to it, releasing the old one. So no worker restarts for new data, an idle
worker does not keep an old version on disk, and an answer never mixes two versions.
An update runs in a one-off writable process (one at a time), beside the queries: it
writes a new version, which the next request of every worker reads.

A caller in a thread uses :meth:`WorkerPool.call`; a caller on an event loop (the ASGI app)
:meth:`WorkerPool.acall`, which waits for a free worker and for the answer on the loop.

The parts, each in its module: what runs inside a child (:mod:`kg.runtime.child`), a child seen
from here and the pipe protocol (:mod:`kg.runtime.pipe`), the idle workers and the two ways to
take one (:mod:`kg.runtime.checkout`), the answers given again while the store's generation is
the same (:mod:`kg.runtime.answer_cache`: bounded in bytes, dropped at the next generation), and
what each failure is answered (:mod:`kg.runtime.failures`).
"""

from __future__ import annotations

import os
import subprocess
import threading
import time

import anyio

from ..errors import StoreError
from .answer_cache import DEFAULT_ANSWER_BYTES, GenerationCache, Lookup
from .checkout import IdleWorkers
from .child import IDLE_CHECK_S
from .counts import WorkerCounts
from .failures import PoolBusy, WorkerDied, WorkerTimeout
from .pipe import INLINE_ANSWER_BYTES, ChildProcess

__all__ = ["DEFAULT_ANSWER_BYTES", "IDLE_CHECK_S", "INLINE_ANSWER_BYTES", "QUERY_WORKER", "PoolBusy", "WorkerDied",
           "WorkerPool", "WorkerTimeout", "worker_settings"]

QUERY_WORKER = "kg.serve.worker"  # the module both servers' workers run: the endpoint's (guard, limits, formats)


def worker_settings(store: str, base: str, memory_mb: int, worker: str = QUERY_WORKER,
                    queries: tuple[str, ...] = ()) -> dict:
    """The settings a pool's workers start with: the ``worker`` module they run, the store and base
    IRI it reads, each worker's memory cap, the folders of the user's named queries it registers
    (:mod:`kg.queries.folders`), and this process (a worker exits when it does)."""
    return {"worker": worker, "store": store, "base": base, "memory_mb": memory_mb, "queries": list(queries),
            "parent": os.getpid()}


class WorkerPool:
    """A fixed number of query worker processes; a worker past its deadline is killed and replaced.

    ``settings`` go to every worker (:func:`worker_settings`): ``worker`` (the module that does the
    work), ``parent`` (the process a worker watches: it exits when that one does), ``memory_mb`` (its
    memory cap), and whatever the worker module reads (``store``, ``base``). ``answer_bytes`` bounds
    the answers kept for the store's current generation (0: none kept).
    """

    def __init__(self, settings: dict, size: int, startup_timeout: float = 60.0,
                 answer_bytes: int = DEFAULT_ANSWER_BYTES) -> None:
        self.settings = settings
        self.size = size
        self.startup_timeout = startup_timeout
        self.cache = GenerationCache(settings["store"], answer_bytes) \
            if answer_bytes > 0 and settings.get("store") else None
        self.answers = self.cache.answers if self.cache is not None else None  # what is kept, for /health and tests
        self._idle = IdleWorkers(self._usable)
        self._loop_callers = anyio.Semaphore(size)  # acall: callers past the pool's size wait on the loop
        self._updating = threading.Lock()  # one update process at a time
        self._closed = False
        self._procs: set[ChildProcess] = set()
        self._procs_lock = threading.Lock()
        self.replaced = 0
        self.timeouts = 0
        self.counts = WorkerCounts()  # what the workers counted, sent with their answers

    # -- the workers ---------------------------------------------------------

    def _new(self) -> ChildProcess:
        proc = ChildProcess(self.settings)
        with self._procs_lock:
            self._procs.add(proc)
        return proc

    def _kill(self, proc: ChildProcess) -> None:
        proc.kill()
        self.counts.retire(proc.proc.pid)
        with self._procs_lock:
            self._procs.discard(proc)

    def start(self) -> None:
        procs = [self._new() for _ in range(self.size)]
        try:
            for proc in procs:
                proc.wait_ready(self.startup_timeout)
        except StoreError:
            for proc in procs:
                self._kill(proc)
            raise
        for proc in procs:
            self._idle.put(proc)

    def _replace(self) -> None:
        """Start a new worker in the background and add it to the pool when ready."""
        def spawn() -> None:
            delay = 0.2
            while not self._closed:
                proc = self._new()
                try:
                    proc.wait_ready(self.startup_timeout)
                except StoreError:
                    self._kill(proc)
                    time.sleep(delay)
                    delay = min(delay * 2, 5.0)
                    continue
                if self._closed:
                    self._kill(proc)
                    return
                self._idle.put(proc)
                self.replaced += 1
                return

        threading.Thread(target=spawn, daemon=True, name="kg-serve-spawn").start()

    def _usable(self, proc: ChildProcess) -> bool:
        """Whether an idle worker is alive; a dead one is removed and replaced."""
        if proc.alive():
            return True
        self._kill(proc)
        self._replace()
        return False

    def _failed(self, proc: ChildProcess, failed: Exception) -> Exception:
        """What a call that timed out or lost its worker raises; the worker is killed and replaced."""
        if isinstance(failed, WorkerTimeout):
            self.timeouts += 1
        self._kill(proc)
        self._replace()
        return failed if isinstance(failed, WorkerTimeout) else WorkerDied(proc.proc.returncode)

    def _release(self, proc: ChildProcess, reply: dict) -> dict:
        self.counts.take(proc.proc.pid, reply)
        if self._closed:
            self._kill(proc)
        else:
            self._idle.put(proc)
        return reply

    # -- calls ---------------------------------------------------------------

    def call(self, msg: dict, deadline: float) -> dict:
        """A worker's answer to ``msg``, or the same answer given before while the store's
        generation is the same (kg.runtime.answer_cache)."""
        looked_up = self._lookup(msg)
        if looked_up.answer is not None:
            return looked_up.answer
        proc = self._idle.take(deadline)
        try:
            reply = proc.call(msg, deadline)
        except (WorkerTimeout, WorkerDied) as failed:
            raise self._failed(proc, failed) from None
        return self._keep(looked_up, self._release(proc, reply))

    async def acall(self, msg: dict, deadline: float) -> dict:
        """:meth:`call` for a caller on an event loop (the ASGI app): at most ``size`` such calls
        at a time (the others wait on the loop), each waiting for its answer on the loop."""
        looked_up = self._lookup(msg)
        if looked_up.answer is not None:
            return looked_up.answer
        with anyio.move_on_after(deadline - time.monotonic()) as waited:
            await self._loop_callers.acquire()
        if waited.cancelled_caught:
            raise PoolBusy()
        try:
            proc = await self._idle.take_awaited(deadline)
            try:
                reply = await proc.acall(msg, deadline)
            except (WorkerTimeout, WorkerDied) as failed:
                raise self._failed(proc, failed) from None
            except BaseException:  # cancelled while the worker works: its answer must reach no other call
                self._kill(proc)
                self._replace()
                raise
            return self._keep(looked_up, self._release(proc, reply))
        finally:
            self._loop_callers.release()

    def _lookup(self, msg: dict) -> Lookup:
        return self.cache.lookup(msg) if self.cache is not None else Lookup()

    def _keep(self, looked_up: Lookup, reply: dict) -> dict:
        if self.cache is None:
            reply.pop("generation", None)
            return reply
        return self.cache.keep(looked_up, reply)

    def update(self, text: str, deadline: float) -> dict:
        """Run an update in a one-off writable process, one update at a time. Queries go
        on meanwhile, from the current version; the update's version is current (and
        read by the next request of every worker) when its 204 comes back."""
        if not self._updating.acquire(timeout=max(0.0, deadline - time.monotonic())):
            raise PoolBusy()
        try:
            proc = ChildProcess(self.settings, role="update", text=text)
            try:
                reply = proc.call(None, deadline)
                try:
                    proc.proc.wait(10)  # let it close the store cleanly
                except subprocess.TimeoutExpired:
                    pass
            finally:
                proc.kill()
            return reply
        finally:
            self._updating.release()

    def idle(self) -> int:
        return self._idle.count()

    def close(self) -> None:
        """Stop every worker: idle ones politely, busy or starting ones by force."""
        self._closed = True
        for proc in self._idle.drain():
            proc.close()
            with self._procs_lock:
                self._procs.discard(proc)
        with self._procs_lock:
            remaining, self._procs = list(self._procs), set()
        for proc in remaining:
            proc.kill()
