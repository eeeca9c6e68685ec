"""Worker processes of the record pass: records mapped, checked and written as N-Quads text on every core.

``RecordWorkers`` forks ``jobs`` processes at the start of a pass (after the rules are compiled, before
anything is written, so each starts with them and with every module imported). The parent still reads
and checks the inputs, keeps the store and the history; each batch of records is cut into units and
sent (as the JSON read) to the workers, which rebuild each record, map it (``map_record``), check it
against the record-local rules and write its graph as N-Quads text (``GraphTriples.nquads``). The
answers come back to the parent in input order (``outcomes``), where ``kg.ingestion.map_gate`` keeps
the findings and the quarantine exactly as in one process.

Why the result is the one-process result, byte for byte:

* a shared resource (a vendor, a column, a concept) is described by the first record that points to
  it. Each worker describes what it has not met itself; the parent keeps a description only from the
  first record in input order (``kg.ingestion.reconcile``), which is the first of its own worker too;
* the rules read of a shared resource only what every record that describes it states the same way
  (its types, a column's identifier), and a record reaches only resources it points to, which its
  worker has met. Should a worker's reading of a resource ever differ from the first record's (a rule
  that reads labels), that worker's later records are checked again in the parent;
* units go to the workers in input order and each works through its own in order.

A worker that dies (killed, out of memory) stops the ingest with ``WorkerLost``: nothing is written,
the store keeps its version. Ctrl-C reaches the parent alone (the workers ignore it), which stops
them. When the parent dies, its pipes close and the workers end. Fork is Linux's; elsewhere the pass
runs in one process.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import warnings
from collections import deque
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from queue import SimpleQueue
from typing import Any, Iterator

from ..description import ontology_quads
from ..errors import RecordError, UsageError, WorkerLost
from ..gctuning import out_of_sight
from ..mapping import record_triples
from ..records import record_to_json
from ..validation.at_ingest import RuleCheck
from ..vocab import Iris
from .in_worker import worker_main
from .read_check import Pending
from .reconcile import Reconcile

UNIT_RECORDS = 50  # records a worker is sent at a time
UNIT_BYTES = 1 << 20  # ... and at most this much of their JSON (full records: about 20 KB each)
AHEAD = 2  # units each worker may have waiting besides the one it works on
WINDOW_UNITS = 6  # ... and at least this many units sent and not yet taken: a chunk of 250 records
# JSON (UTF-8) of records from which worker processes pay for their start and for sending the records
PARALLEL_FROM_BYTES = 2 * 1024 * 1024


def available() -> bool:
    """Whether the record pass can run in worker processes here (fork: Linux)."""
    return sys.platform.startswith("linux") and hasattr(os, "fork")


def jobs_for(asked: int | None, pending: list[Pending], records: int) -> int:
    """How many worker processes a pass uses, told by its first chunk of records (1: none, the pass runs
    here): ``asked``, or (None) one a core when the input's records (``records`` of them, as many as the
    first chunk's on average) hold ``PARALLEL_FROM_BYTES`` of JSON or more."""
    if asked is not None and asked < 1:
        raise UsageError(f"jobs must be at least 1, not {asked}")
    if asked == 1 or not pending or not available():
        return 1
    if asked is None:
        if sum(p.size for p in pending) * max(records, len(pending)) < PARALLEL_FROM_BYTES * len(pending):
            return 1
        asked = cores()
    return min(asked, max(records, len(pending)))  # never more workers than records


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def units(batch: list[Pending]) -> list[list[Pending]]:
    """A batch cut into the units sent to the workers (``UNIT_RECORDS``, ``UNIT_BYTES``; one record at least)."""
    cut: list[list[Pending]] = []
    start = 0
    while start < len(batch):
        end, weight = start + 1, batch[start].size
        while end < len(batch) and end - start < UNIT_RECORDS and weight + batch[end].size <= UNIT_BYTES:
            weight += batch[end].size
            end += 1
        cut.append(batch[start:end])
        start = end
    return cut


def _warm(iris: Iris, sample: Pending) -> None:
    """Load what the mapping and the rules load on first use (the Public Suffix List: 0.1 s; field
    tables) by mapping and checking one record here: every worker then starts with it."""
    triples, _ = record_triples(sample.record, iris, set())
    RuleCheck(iris, ontology_quads(iris)).record_terms(triples, sample.source, sample.index, sample.record.id)


class _RemoteTraceback(Exception):
    """A worker's traceback, shown under the error it raised (``--debug``)."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass
class _Worker:
    """One worker process, its pipes and the parent's two threads that feed it and read its answers."""

    number: int
    pid: int
    tasks: Connection
    results: Connection
    queue: SimpleQueue = field(default_factory=SimpleQueue)
    waiting: int = 0  # units sent, not yet answered
    threads: list[threading.Thread] = field(default_factory=list)


class RecordWorkers:
    """``jobs`` worker processes for one pass; ``outcomes`` gives each batch's records back in order.
    ``rules`` and ``described`` are the parent's (``MapAndGate``'s): the shared descriptions kept go
    into both, as a pass in one process would put them."""

    def __init__(self, jobs: int, iris: Iris, rules: RuleCheck, described: set[str],
                 sample: Pending | None = None) -> None:
        if sample is not None:
            _warm(iris, sample)
        self.reconcile = Reconcile(iris, rules, described)
        self.rule_seconds = 0.0
        self._workers: list[_Worker] = []
        self._answers: dict[int, tuple[Any, ...]] = {}
        self._lost: str | None = None  # how a worker that died ended
        self._closing = False
        self._changed = threading.Condition()
        self._next_unit = 0
        self._queued: deque[tuple[int, list[Pending]]] = deque()  # units started, not yet sent
        self._sent = self._taken = 0  # units sent, and units whose answers were taken
        self._base = iris.base
        try:
            for number in range(jobs):
                self._workers.append(self._start(number))
        except BaseException:
            self.close(kill=True)
            raise

    # -- the processes ---------------------------------------------------------------

    def _start(self, number: int) -> _Worker:
        tasks_read, tasks_write = os.pipe()
        results_read, results_write = os.pipe()
        try:
            with out_of_sight() as keep, warnings.catch_warnings():
                keep()  # the parent's objects: never scanned by the worker's collector (nor copied for it)
                warnings.simplefilter("ignore", DeprecationWarning)  # fork beside the store's threads: the
                pid = os.fork()  # worker never touches the store
                if pid == 0:
                    worker_main(tasks_read, results_write, self._base)
        except BaseException:
            for fd in (tasks_read, tasks_write, results_read, results_write):
                os.close(fd)
            raise
        os.close(tasks_read)
        os.close(results_write)
        worker = _Worker(number, pid, Connection(tasks_write, readable=False), Connection(results_read, writable=False))
        worker.threads = [threading.Thread(target=self._feed, args=(worker,), name=f"kg-feed-{number}", daemon=True),
                          threading.Thread(target=self._read, args=(worker,), name=f"kg-read-{number}", daemon=True)]
        for thread in worker.threads:
            thread.start()
        return worker

    def _feed(self, worker: _Worker) -> None:
        """Send the worker its units as they are queued (a unit's JSON may fill the pipe while it works)."""
        while True:
            message = worker.queue.get()
            try:
                worker.tasks.send(message)
            except (OSError, ValueError):
                return  # the worker is gone: its reader says so
            if message is None:
                return

    def _read(self, worker: _Worker) -> None:
        """Take the worker's answers as they come (so that it never waits on a full pipe)."""
        try:
            while True:
                head = worker.results.recv()
                if head[0] == "done":
                    texts = [worker.results.recv_bytes() for answer in head[2] if not isinstance(answer, RecordError)]
                    head = (*head, texts, worker.number)
                with self._changed:
                    self._answers[head[1]] = head
                    worker.waiting -= 1
                    self._changed.notify_all()
                if head[0] == "failed":
                    return
        except (EOFError, OSError):
            self._lose(self._how_it_ended(worker))
        except Exception as err:  # noqa: BLE001 - an answer that cannot be read: the pass must not wait for it
            os.kill(worker.pid, signal.SIGKILL)
            self._lose(f"an answer of worker process {worker.pid} of the ingest could not be read "
                       f"({type(err).__name__}: {err})")

    def _lose(self, why: str) -> None:
        """A worker is gone: the pass waiting for its answers stops with ``why`` (unless it is closing)."""
        with self._changed:
            if self._lost is None and not self._closing:
                self._lost = why
            self._changed.notify_all()

    @staticmethod
    def _how_it_ended(worker: _Worker) -> str:
        try:
            pid, status = os.waitpid(worker.pid, 0)
        except ChildProcessError:
            return f"worker process {worker.pid} of the ingest ended"
        if os.WIFSIGNALED(status):
            number = os.WTERMSIG(status)
            try:
                name = signal.Signals(number).name
            except ValueError:
                name = str(number)
            return f"worker process {worker.pid} of the ingest was killed by signal {number} ({name})"
        return f"worker process {worker.pid} of the ingest ended with exit code {os.WEXITSTATUS(status)}"

    def close(self, kill: bool = False) -> None:
        """Stop the workers (``kill``: at once, the pass failed) and wait for them."""
        with self._changed:
            self._closing = True
        for worker in self._workers:
            worker.queue.put(None)
            if kill:
                try:
                    os.kill(worker.pid, signal.SIGKILL)
                except OSError:
                    pass
        for worker in self._workers:
            for thread in worker.threads:
                thread.join(timeout=None if kill else 10)
            for conn in (worker.tasks, worker.results):
                conn.close()
            try:
                os.waitpid(worker.pid, 0)
            except ChildProcessError:
                pass  # reaped by its reader
        self._workers = []

    # -- the pass -----------------------------------------------------------------------

    def start(self, batches: list[list[Pending]]) -> list[list[tuple[int, list[Pending]]]]:
        """Queue each batch's records for the workers (cut into units, numbered in input order) and send
        what the window allows; the units of each batch, for ``outcomes``. Batches started later
        queue behind, so that the workers map the next chunk of a streamed input while this one is
        written."""
        started = []
        for batch in batches:
            numbered = [(self._next_unit + n, unit) for n, unit in enumerate(units(batch))]
            self._next_unit += len(numbered)
            self._queued.extend(numbered)
            started.append(numbered)
        self._pump()
        return started

    def outcomes(self, started: list[list[tuple[int, list[Pending]]]]) -> Iterator[list[Any]]:
        """Each started batch's records mapped and checked by the workers, a list per batch, in order:
        for each record, its quarantine line (``RecordError``) or ``(mapped, findings)``."""
        for batch in started:
            got: list[Any] = []
            for number, unit in batch:
                got += self.reconcile.outcomes(unit, self._wait_for(number))
                self._taken += 1
                self._pump()
            yield got

    def _pump(self) -> None:
        """Send queued units while fewer than the window are sent and not yet taken."""
        window = max(len(self._workers) * (AHEAD + 1), WINDOW_UNITS)
        while self._queued and self._sent - self._taken < window:
            number, unit = self._queued.popleft()
            self._send(unit, number)
            self._sent += 1

    def _send(self, unit: list[Pending], number: int) -> None:
        with self._changed:
            worker = min(self._workers, key=lambda w: (w.waiting, w.number))
            worker.waiting += 1
        worker.queue.put((number, [(_json_of(p), p.source, p.index, p.size) for p in unit]))

    def _wait_for(self, number: int) -> tuple[list[Any], list[bytes], int]:
        with self._changed:
            while number not in self._answers:
                if self._lost is not None:
                    raise WorkerLost(f"{self._lost}; nothing was written, the store keeps its version")
                self._changed.wait()
            head = self._answers.pop(number)
        if head[0] == "failed":
            error, text = head[2], head[3]
            if error is None:
                raise RuntimeError(f"a worker process of the ingest failed:\n{text}")
            error.__cause__ = _RemoteTraceback(text)
            raise error
        _, _, answers, seconds, texts, worker = head
        self.rule_seconds += seconds
        return answers, texts, worker


def _json_of(pending: Pending) -> Any:
    """A record's JSON to send: as read, or (a record given as a model) as the model writes it."""
    return pending.raw if pending.raw is not None else record_to_json(pending.record)
