"""The process pool of the split run: the parts of the store checked on all cores.

Each worker opens a snapshot of the on-disk store read-only (``GraphStore.backup``
then ``GraphStore.open_existing``) and reads its parts from it; an in-memory store
sends each part's triples to the workers as N-Triples instead. Only the workers
use the pySHACL speed-ups (``kg.validation.speedups``, for the tested pySHACL
versions); with ``jobs=1`` the parts are checked in the calling process with stock
pySHACL: no process to start for a few records (``--record``, ``revalidate``, the
fixtures), and a stock reference that the pool's results are tested against. With
``scheduler`` the parts go to a Dask cluster instead (``kg.validation.dask_run``):
each part then carries its triples, since the workers cannot read the store.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import pyoxigraph

from ..errors import StoreError
from ..store import GraphStore
from ..vocab import RDFS, Iris
from . import speedups
from .partcheck import OwnShapes, PartChecker, Setup, Task, our_read_plan, own_part_quads
from .parts import by_subject, graph_quads, lazy_triples, our_part_quads, part_list, payload
from .readplan import read_plan
from .report import Result

RECORDS_PER_CALL = 24  # records per pySHACL call: its per-call cost is small, smaller graphs are faster


@dataclass
class PartRun:
    """The results of the parts, and what the run took."""

    results: list[Result]
    timings: dict[str, float]
    notes: list[str]


# ---------------------------------------------------------------------------
# Workers: each opens the store itself (read-only) and validates parts of it


_WORKER: dict[str, PartChecker] = {}


def _worker_init(store_path: str | None, setup: Setup) -> None:
    store = GraphStore.open_existing(store_path, read_only=True) if store_path else None
    fast = setup.fast and speedups.supported(speedups.installed_version())
    _WORKER["checker"] = PartChecker(setup, store, fast=fast)


def _check_in_worker(task: Task) -> tuple[list[Result], float]:
    return _WORKER["checker"].check(task)


def _start_method() -> multiprocessing.context.BaseContext:
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["kg.validation.parallel", "pyshacl"])
        return ctx
    return multiprocessing.get_context("spawn")


@contextmanager
def snapshot(store: GraphStore) -> Iterator[str | None]:
    """A point-in-time copy of an on-disk store for the workers to read: its folder, or None.

    Oxigraph calls reading a store that another handle writes to undefined
    behaviour (and RocksDB's background compaction does delete files under a
    read-only reader), so the workers open a checkpoint instead: hard links to the
    store's files, made in milliseconds next to the store and removed afterwards.
    None for an in-memory store, or when no copy can be made: the parts then travel
    to the workers as N-Triples.
    """
    folder: Path | None = None
    if store.path is not None:
        for where in (Path(store.path).resolve().parent, None):  # next to the store: hard links
            try:
                folder = Path(tempfile.mkdtemp(prefix=".kg-validate-", dir=where)) / "snapshot"
                store.backup(folder)
                break
            except (OSError, StoreError):
                if folder is not None:
                    shutil.rmtree(folder.parent, ignore_errors=True)
                folder = None
    try:
        yield str(folder) if folder is not None else None
    finally:
        if folder is not None:
            shutil.rmtree(folder.parent, ignore_errors=True)


def _schema(store: GraphStore) -> list[tuple[str, str]]:
    """The class hierarchy (the ontology's): it goes to every part, and widens the classes read."""
    return [(row["sub"].value, row["sup"].value) for row in store.select(
        f"SELECT DISTINCT ?sub ?sup WHERE {{ ?sub <{RDFS.subClassOf.value}> ?sup "
        f"FILTER(isIRI(?sub) && isIRI(?sup)) }}")]


def _setup(store: GraphStore, iris: Iris, own: OwnShapes | None, fast: bool) -> Setup:
    if own is not None:
        return Setup(iris.base, read_plan(own.graph()), own=own, fast=fast)
    schema = _schema(store)
    return Setup(iris.base, our_read_plan(iris.base).with_subclasses(schema), schema, fast=fast)


def check_record_parts(store: GraphStore, iris: Iris, *, ids: Sequence[str] | None = None,
                       with_rest: bool = True, jobs: int | None = None,
                       per_call: int = RECORDS_PER_CALL, own: OwnShapes | None = None,
                       progress: Callable[[int, int], None] | None = None,
                       scheduler: str | None = None) -> PartRun:
    """The record-local rules (ours, or the user's ``own`` shapes): pySHACL on each part, in ``jobs``
    processes (1: in this process, stock pySHACL), or on the Dask cluster at ``scheduler``.

    ``progress(done, total)`` is called as parts finish."""
    parts = part_list(store, iris, ids, with_rest, per_call)
    if scheduler is not None:
        return _on_dask(store, iris, parts, own, progress, scheduler)
    if jobs is None:  # a pool pays off from a few parts on (starting one costs about half a second)
        jobs = min(os.cpu_count() or 1, len(parts) // 2 or 1)
    jobs = max(1, min(jobs, len(parts)))
    started = time.perf_counter()
    version = speedups.installed_version() if jobs > 1 else None
    setup = _setup(store, iris, own, fast=version is not None and speedups.supported(version))
    # a few records (``--record``, ``revalidate``): read what they need, never the whole store
    few = ids is not None and not with_rest and jobs == 1
    lazy_of = _lazy_function(store, iris, setup, own,
                             [iris.shared_graph.value] + [g for _, graphs in parts for g in graphs] if few else None)
    finished = _Finished(len(parts), progress)
    notes: list[str] = []
    if jobs == 1:
        checker = PartChecker(setup, store, fast=False)
        checker.few = few
        finished.prepared = time.perf_counter() - started
        for kind, graphs in parts:
            finished.add(checker.check((kind, graphs, None, lazy_of(graphs))))
    else:
        note = speedups.note(version or "")
        notes += [note] if note else []
        with snapshot(store) as path:
            tasks: list[Task] = [(kind, graphs, None if path else _part_payload(store, iris, setup, kind, graphs),
                                  lazy_of(graphs)) for kind, graphs in parts]
            finished.prepared = time.perf_counter() - started
            # a process pool that breaks (instead of respawning) when a worker cannot start
            with ProcessPoolExecutor(jobs, mp_context=_start_method(), initializer=_worker_init,
                                     initargs=(path, setup)) as pool:
                for future in as_completed([pool.submit(_check_in_worker, task) for task in tasks]):
                    finished.add(future.result())
    return PartRun(finished.results, {"record_parts": len(parts), "jobs": jobs,
                                      "prepare_s": round(finished.prepared, 3),
                                      "worker_cpu_s": round(finished.cpu, 3)}, notes)


def _on_dask(store: GraphStore, iris: Iris, parts: list[tuple[str, list[str]]], own: OwnShapes | None,
             progress: Callable[[int, int], None] | None, scheduler: str) -> PartRun:
    """The parts on the Dask cluster at ``scheduler``: each task carries the triples its part reads."""
    from .dask_run import check_on_cluster  # imports Dask (an optional extra) only when asked

    started = time.perf_counter()
    version = speedups.installed_version()
    setup = _setup(store, iris, own, fast=True)  # each worker checks its own pySHACL version
    lazy_of = _lazy_function(store, iris, setup, own)
    shared = by_subject(graph_quads(store, iris.shared_graph, setup.plan)) if own is None else {}
    sent = [0]

    def tasks() -> Iterator[Task]:  # made as they are sent: the workers start on the first ones meanwhile
        for kind, graphs in parts:
            lazy = lazy_of(graphs)
            triples = _sent_triples(store, iris, setup, kind, graphs, shared, lazy)
            sent[0] += len(triples) + len(lazy)
            yield kind, graphs, triples, lazy

    finished = _Finished(len(parts), progress)
    finished.prepared = time.perf_counter() - started
    threads = check_on_cluster(scheduler, setup, tasks(), finished.add) if parts else 0
    note = speedups.note(version)
    return PartRun(finished.results, {"record_parts": len(parts), "jobs": threads,
                                      "prepare_s": round(finished.prepared, 3),
                                      "worker_cpu_s": round(finished.cpu, 3),
                                      "sent_mb": round(sent[0] / 1e6, 3)}, [note] if note else [])


def _sent_triples(store: GraphStore, iris: Iris, setup: Setup, kind: str, graphs: list[str],
                  shared: dict[Any, list[Any]], lazy: bytes) -> bytes:
    """The N-Triples a part sends to a worker that cannot read the store: for our shapes, what a
    worker reading the store would read (the plan's triples, the shared resources reached)."""
    if setup.own is not None:
        return _part_payload(store, iris, setup, kind, graphs)
    lazy_quads = list(pyoxigraph.parse(lazy, format=pyoxigraph.RdfFormat.N_TRIPLES)) if lazy else []
    quads = our_part_quads(store, iris, setup.plan, kind, graphs, shared, lazy_quads)
    return "".join(f"{q.subject} {q.predicate} {q.object} .\n" for q in quads).encode("utf-8")


def _lazy_function(store: GraphStore, iris: Iris, setup: Setup, own: OwnShapes | None,
                   only: list[str] | None = None) -> Callable[[list[str]], bytes]:
    """The N-Triples of the lazy predicates' triples a part of ``graphs`` needs (none for the user's shapes);
    ``only``: the graphs of every part (their triples are then looked for graph by graph)."""
    lazy = lazy_triples(store, setup.plan, only) if own is None else {}
    shared_lazy = lazy.get(iris.shared_graph.value, [])

    def lazy_of(graphs: list[str]) -> bytes:
        return "".join(shared_lazy + [t for g in graphs for t in lazy.get(g, [])]).encode("utf-8")

    return lazy_of


class _Finished:
    """The results of the parts as they finish, their CPU time, and the progress callback."""

    def __init__(self, total: int, progress: Callable[[int, int], None] | None) -> None:
        self.total, self.progress = total, progress
        self.results: list[Result] = []
        self.cpu = self.prepared = 0.0
        self.done = 0

    def add(self, part: tuple[list[Result], float]) -> None:
        self.results += part[0]
        self.cpu += part[1]
        self.done += 1
        if self.progress:
            self.progress(self.done, self.total)


def _part_payload(store: GraphStore, iris: Iris, setup: Setup, kind: str, graphs: list[str]) -> bytes:
    if setup.own is None:
        return payload(store, graphs, iris)
    return "".join(f"{t.subject} {t.predicate} {t.object} .\n"
                   for t in own_part_quads(store, iris, setup, kind, graphs)).encode("utf-8")
