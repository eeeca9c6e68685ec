"""Query worker processes for ``kg serve`` and ``kg mcp``: starting them, talking to them, their deadlines.

pyoxigraph cannot cancel a running query, so the only real time limit is to kill the
process: a call that passes its deadline raises :class:`WorkerTimeout`, its worker is
killed and replaced in the background, and the other workers keep answering.

A 200 answer is kept in memory under its request and the store generation it was read
from, and given again without a worker while that generation is current
(:mod:`kg.runtime.answers`: bounded in bytes, dropped at the next generation).

The store is a sequence of versions (:mod:`kg.store`). Each worker reads one
version for a whole request and, between requests (and every ``IDLE_CHECK_S`` while
idle), checks with one stat whether an ingest or an update made a newer one current,
and moves to it, releasing the old one. So no worker restarts for new data, an idle
worker does not keep an old version on disk, and an answer never mixes two versions.
An update runs in a one-off writable process (one at a time), beside the queries: it
writes a new version, which the next request of every worker reads.

A caller on an event loop (the ASGI app) uses :meth:`WorkerPool.acall`: it waits for a free
worker and for the answer on the loop, not in a thread (a wait for a worker that callers in
threads hold, and the reading of a large answer, go to a thread).

A child is a fresh Python (``python -c``, not multiprocessing: the caller's
``__main__`` is never re-imported) that imports :func:`_child_main` from this module
and gets its job as the first message over a socket pair. What it runs comes from the
module that ``settings["worker"]`` names (both servers name :mod:`kg.serve.worker`): its
``Worker(settings)`` answers query messages, its ``run_update(settings, text)`` runs an update.
"""

from __future__ import annotations

import importlib
import os
import queue
import socket
import struct
import subprocess
import sys
import threading
import time
from multiprocessing.connection import Connection
from typing import Any

import anyio

from ..errors import KgError, StoreError, safe_text
from .answers import DEFAULT_ANSWER_BYTES, AnswerCache, Generations, request_key

IDLE_CHECK_S = 1.0  # how often an idle worker looks for a newer version of the store
# an answer up to this size is read on the event loop at once; a larger one in a thread, so that
# the loop is never held while megabytes cross the pipe
INLINE_ANSWER_BYTES = 256 * 1024


class WorkerTimeout(Exception):
    """The call passed its deadline; the worker was killed."""


class PoolBusy(Exception):
    """No worker became free before the deadline."""


class WorkerDied(Exception):
    """The worker exited during the call (``args[0]``: its return code, when known)."""


# ---------------------------------------------------------------------------
# Inside a child process


def _limit_memory(megabytes: int) -> None:
    if megabytes <= 0:
        return
    try:
        import resource

        limit = megabytes * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    except (ImportError, ValueError, OSError):
        pass


def _watch_parent(parent: int) -> None:
    def watch() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def _worker_module(settings: dict) -> Any:
    """The module that does a worker's work: the one ``settings["worker"]`` names."""
    return importlib.import_module(settings["worker"])


def _worker_main(conn: Any, settings: dict) -> None:
    """A query worker: answer messages until the parent sends None or goes away."""
    _watch_parent(settings["parent"])
    _limit_memory(settings["memory_mb"])
    try:
        worker = _worker_module(settings).Worker(settings)
    except Exception as err:  # noqa: BLE001 - reported to the parent, which raises StoreError
        conn.send({"ready": False, "error": safe_text(err, 400)})
        return
    conn.send({"ready": True, "pid": os.getpid()})
    while True:
        try:
            if not conn.poll(IDLE_CHECK_S):
                _refresh_idle(worker)
                continue
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        try:
            conn.send(_answer(worker, msg))
        except (OSError, ValueError):
            return


def _answer(worker: Any, msg: dict) -> dict:
    """The worker's answer, with the generation it was read from when the server may give it
    again (``"generation"``, taken off by :meth:`WorkerPool.call`; see kg.runtime.answers)."""
    answer = worker.handle(msg)
    keepable = getattr(worker, "keepable", None)
    if keepable is not None and answer.get("status") == 200:
        answer["generation"] = keepable(msg)
    return answer


def _refresh_idle(worker: Any) -> None:
    """Move an idle worker to a newer version; a failure waits for the next request,
    which answers it as an error."""
    try:
        worker.refresh()
    except (KgError, OSError, RuntimeError):
        pass


def _update_main(conn: Any, settings: dict, text: str) -> None:
    """The one-off process that runs a SPARQL Update on a writable store."""
    _watch_parent(settings["parent"])
    conn.send(_worker_module(settings).run_update(settings, text))


def _child_main(fd: int) -> None:
    """Entry point of a worker or update process: its job comes as the first message."""
    conn = Connection(fd)
    job = conn.recv()
    if job["role"] == "update":
        _update_main(conn, job["settings"], job["text"])
    else:
        _worker_main(conn, job["settings"])


# ---------------------------------------------------------------------------
# In the server process

# The folder that holds the kg package (a checkout or site-packages): put first on the
# child's PYTHONPATH, so that it imports this same kg even when started from elsewhere.
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_CHILD_CODE = "import sys; from kg.runtime.pool import _child_main; _child_main(int(sys.argv[1]))"


class _Process:
    """A child Python process that talks over a socket pair with pickled messages."""

    def __init__(self, settings: dict, role: str = "query", text: str | None = None) -> None:
        ours, theirs = socket.socketpair()
        env = dict(os.environ)
        env["PYTHONPATH"] = _PACKAGE_ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        try:
            self.proc = subprocess.Popen([sys.executable, "-c", _CHILD_CODE, str(theirs.fileno())],
                                         pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, env=env)
        finally:
            theirs.close()
        self.sock = ours  # kept to wait on from an event loop and to peek at an answer's size
        self.conn = Connection(os.dup(ours.fileno()))
        self.conn.send({"role": role, "settings": settings, "text": text})

    def alive(self) -> bool:
        return self.proc.poll() is None

    def wait_ready(self, timeout: float) -> None:
        try:
            if not self.conn.poll(timeout):
                self.kill()
                raise StoreError("a query worker did not start in time")
            msg = self.conn.recv()
        except (EOFError, OSError):
            self.kill()
            raise StoreError("a query worker exited while starting") from None
        if not msg.get("ready"):
            self.kill()
            raise StoreError(msg.get("error") or "a query worker could not start")

    def call(self, msg: dict | None, deadline: float) -> dict:
        try:
            if msg is not None:
                self.conn.send(msg)
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self.conn.poll(remaining):
                raise WorkerTimeout()
            return self.conn.recv()
        except (EOFError, OSError):
            raise WorkerDied() from None

    async def acall(self, msg: dict, deadline: float) -> dict:
        """:meth:`call` from an event loop: the answer awaited, not waited for in a thread."""
        try:
            self.conn.send(msg)  # a worker between calls is reading: a message never waits long
            answered = False
            with anyio.move_on_after(deadline - time.monotonic()):
                await anyio.wait_readable(self.sock)
                answered = True
            if not answered:
                raise WorkerTimeout()
            if self._answer_is_large():
                return await anyio.to_thread.run_sync(self.conn.recv)
            return self.conn.recv()
        except (EOFError, OSError):
            raise WorkerDied() from None

    def _answer_is_large(self) -> bool:
        """Whether the answer waiting on the pipe is over INLINE_ANSWER_BYTES (its length prefix,
        as multiprocessing.connection writes it, peeked at; a prefix not all there yet counts as large)."""
        try:
            head = self.sock.recv(4, socket.MSG_PEEK | socket.MSG_DONTWAIT)
        except BlockingIOError:  # woken with nothing to read: the thread's read waits for it
            return True
        return len(head) < 4 or not 0 <= struct.unpack("!i", head)[0] <= INLINE_ANSWER_BYTES

    def kill(self) -> None:
        try:
            self.proc.kill()
            self.proc.wait(5)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.conn.close()
        self.sock.close()

    def close(self) -> None:
        try:
            self.conn.send(None)
            self.proc.wait(2)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            pass
        self.kill()


class WorkerPool:
    """A fixed number of query worker processes; a worker past its deadline is killed and replaced.

    ``settings`` go to every worker: ``worker`` (the module that does the work), ``parent`` (the
    process a worker watches: it exits when that one does), ``memory_mb`` (its memory cap), and
    whatever the worker module reads (``store``, ``base``).
    """

    def __init__(self, settings: dict, size: int, startup_timeout: float = 60.0,
                 answer_bytes: int = DEFAULT_ANSWER_BYTES) -> None:
        self.settings = settings
        self.size = size
        self.startup_timeout = startup_timeout
        # answers given again while the store's generation is current (none: answer_bytes 0)
        self.answers = AnswerCache(answer_bytes) if answer_bytes > 0 and settings.get("store") else None
        self._generations = Generations(settings["store"]) if self.answers is not None else None
        self._idle: queue.LifoQueue[_Process] = queue.LifoQueue()
        self._loop_callers = anyio.Semaphore(size)  # acall: callers past the pool's size wait on the loop
        self._updating = threading.Lock()  # one update process at a time
        self._closed = False
        self._procs: set[_Process] = set()
        self._procs_lock = threading.Lock()
        self.replaced = 0
        self.timeouts = 0

    def _new(self) -> _Process:
        proc = _Process(self.settings)
        with self._procs_lock:
            self._procs.add(proc)
        return proc

    def _kill(self, proc: _Process) -> None:
        proc.kill()
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

    def _checkout(self, deadline: float) -> _Process:
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

    def _idle_now(self) -> _Process | None:
        """An idle live worker, or None when none is idle now."""
        while True:
            try:
                proc = self._idle.get_nowait()
            except queue.Empty:
                return None
            if self._usable(proc):
                return proc

    def _usable(self, proc: _Process) -> bool:
        """Whether an idle worker is alive; a dead one is removed and replaced."""
        if proc.alive():
            return True
        self._kill(proc)
        self._replace()
        return False

    def call(self, msg: dict, deadline: float) -> dict:
        """A worker's answer to ``msg``, or the same answer given before while the store's
        generation is the same (kg.runtime.answers)."""
        key, generation, kept = self._kept(msg)
        if kept is not None:
            return kept
        return self._keep(key, generation, self._call(msg, deadline))

    async def acall(self, msg: dict, deadline: float) -> dict:
        """:meth:`call` for a caller on an event loop (the ASGI app): at most ``size`` such calls
        at a time (the others wait on the loop), each waiting for its answer on the loop."""
        key, generation, kept = self._kept(msg)
        if kept is not None:
            return kept
        with anyio.move_on_after(deadline - time.monotonic()) as waited:
            await self._loop_callers.acquire()
        if waited.cancelled_caught:
            raise PoolBusy()
        try:
            proc = self._idle_now()
            if proc is None:  # callers in threads hold the workers: wait for one in a thread
                proc = await self._checkout_in_thread(deadline)
            try:
                reply = await proc.acall(msg, deadline)
            except (WorkerTimeout, WorkerDied) as failed:
                raise self._failed(proc, failed) from None
            except BaseException:  # cancelled while the worker works: its answer must reach no other call
                self._kill(proc)
                self._replace()
                raise
            return self._keep(key, generation, self._release(proc, reply))
        finally:
            self._loop_callers.release()

    def _kept(self, msg: dict) -> tuple[str | None, int | None, dict | None]:
        """The request's key and the generation current now, with the answer kept for them (None)."""
        if self.answers is None or self._generations is None:
            return None, None, None
        generation = self._generations.current()
        key = request_key(msg) if generation is not None else None
        if key is None or generation is None:
            return None, None, None
        return key, generation, self.answers.get(generation, key)

    def _keep(self, key: str | None, generation: int | None, reply: dict) -> dict:
        """``reply`` without its ``generation``, kept when read from the generation that was
        current when the request came."""
        made = reply.pop("generation", None)
        if key is not None and self.answers is not None and made == generation:
            self.answers.put(made, key, reply)
        return reply

    async def _checkout_in_thread(self, deadline: float) -> _Process:
        taken: list[_Process] = []
        try:
            await anyio.to_thread.run_sync(lambda: taken.append(self._checkout(deadline)))
        except BaseException:
            for proc in taken:  # cancelled once the thread had one: it goes back
                self._idle.put(proc)
            raise
        return taken[0]

    def _call(self, msg: dict, deadline: float) -> dict:
        proc = self._checkout(deadline)
        try:
            reply = proc.call(msg, deadline)
        except (WorkerTimeout, WorkerDied) as failed:
            raise self._failed(proc, failed) from None
        return self._release(proc, reply)

    def _failed(self, proc: _Process, failed: Exception) -> Exception:
        """What a call that timed out or lost its worker raises; the worker is killed and replaced."""
        if isinstance(failed, WorkerTimeout):
            self.timeouts += 1
        self._kill(proc)
        self._replace()
        return failed if isinstance(failed, WorkerTimeout) else WorkerDied(proc.proc.returncode)

    def _release(self, proc: _Process, reply: dict) -> dict:
        if self._closed:
            self._kill(proc)
        else:
            self._idle.put(proc)
        return reply

    def each(self, msg: dict, deadline: float) -> list[dict]:
        """Every worker's own answer to ``msg`` (never one kept in memory), each with the
        ``generation`` it read when it may be kept: all workers are checked out, then asked
        in turn (for checks such as "does every worker read the new version")."""
        procs: list[_Process] = []
        try:
            while len(procs) < self.size:
                procs.append(self._checkout(deadline))
            answers = []
            for proc in procs:
                try:
                    answers.append(proc.call(msg, deadline))
                except (WorkerTimeout, WorkerDied):
                    procs.remove(proc)
                    self._kill(proc)
                    self._replace()
                    raise
            return answers
        finally:
            for proc in procs:
                self._idle.put(proc)

    def update(self, text: str, deadline: float) -> dict:
        """Run an update in a one-off writable process, one update at a time. Queries go
        on meanwhile, from the current version; the update's version is current (and
        read by the next request of every worker) when its 204 comes back."""
        if not self._updating.acquire(timeout=max(0.0, deadline - time.monotonic())):
            raise PoolBusy()
        try:
            proc = _Process(self.settings, role="update", text=text)
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
        return self._idle.qsize()

    def close(self) -> None:
        """Stop every worker: idle ones politely, busy or starting ones by force."""
        self._closed = True
        while True:
            try:
                proc = self._idle.get_nowait()
            except queue.Empty:
                break
            proc.close()
            with self._procs_lock:
                self._procs.discard(proc)
        with self._procs_lock:
            remaining, self._procs = list(self._procs), set()
        for proc in remaining:
            proc.kill()
