"""Our record-local rules over the store: each record graph read and checked by the SHACL engine.

A record graph is checked over the shared graph (the descriptions every record
points to: vendors, columns, licences), as ingest checks it: its own nodes are the
focus nodes, the shared ones are read through. The other graphs (the edges, the
shared graph itself) are checked together in one part. The parts run in this
process, on a pool of processes (``jobs``: each opens a snapshot of the on-disk
store read-only), or on a Dask cluster (``kg.validation.dask_run``: the shared
graph goes to every worker once, each part carries its record graphs as N-Quads).
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
from pyoxigraph import NamedNode

from ..errors import StoreError
from ..store import GraphStore
from ..vocab import RDFS, Iris
from .core import CoreShapes, Facts, core_shapes
from .parts import part_list
from .report import Result

RECORDS_PER_CALL = 100  # record graphs per task of a pool or a cluster
POOL_FROM = 4000  # records from which a pool pays for its start (the engine checks ~1,000 records a second)

Task = tuple[str, list[str], "bytes | None"]  # kind ("records" or "rest"), graph IRIs, their N-Quads or None


@dataclass(frozen=True)
class Setup:
    """What every part of a run shares: the base, the class hierarchy (``(sub, super)`` IRIs), and the
    shared graph as N-Triples for workers that cannot read the store."""

    base: str
    schema: tuple[tuple[str, str], ...]
    shared: bytes | None = None


@dataclass
class PartRun:
    """The results of the parts, and what the run took."""

    results: list[Result]
    timings: dict[str, float]
    notes: list[str]


class Checker:
    """Checks parts of one run: from ``store``, or (None) from the N-Quads each part carries."""

    def __init__(self, setup: Setup, store: GraphStore | None) -> None:
        self.iris = Iris(setup.base)
        self.shapes: CoreShapes = core_shapes(setup.base, setup.schema)
        self.store = store
        reads = self.shapes.reads  # None: some shape is closed, every predicate counts
        self.predicates = None if reads is None else [NamedNode(p) for p in sorted(reads)]
        if store is not None:
            self.shared_quads = list(store.quads(self.iris.shared_graph))
        else:
            assert setup.shared is not None
            self.shared_quads = list(pyoxigraph.parse(setup.shared, format=pyoxigraph.RdfFormat.N_TRIPLES))
        self.shared: Facts = self.shapes.facts(self.shared_quads)

    def check(self, task: Task) -> tuple[list[Result], float]:
        """The results of one part, and the CPU seconds it took."""
        kind, graphs, payload = task
        started = time.process_time()
        by_graph = self._quads(graphs, payload)
        results: list[Result] = []
        if kind == "rest":
            results += self.shapes.check(self.shapes.facts(
                [*self.shared_quads, *(q for quads in by_graph.values() for q in quads)]))
        else:
            for quads in by_graph.values():
                results += self.shapes.check(self.shapes.facts(quads, self.shared))
        return results, time.process_time() - started

    def _quads(self, graphs: list[str], payload: bytes | None) -> dict[str, list[Any]]:
        if payload is None:
            assert self.store is not None
            return {g: self._read(NamedNode(g)) for g in graphs}
        found: dict[str, list[Any]] = {g: [] for g in graphs}
        for quad in pyoxigraph.parse(payload, format=pyoxigraph.RdfFormat.N_QUADS):
            found.setdefault(quad.graph_name.value, []).append(quad)
        return found


    def _read(self, graph: NamedNode) -> list[Any]:
        """The quads of ``graph`` the shapes look at: those of the predicates they read, one predicate
        at a time where they name them (a third of a full record's quads are of other predicates, and
        each term read costs a lookup in the store's dictionary: 5.0 -> 3.4 ms a full-shape record)."""
        assert self.store is not None
        if self.predicates is None:
            return list(self.store.quads(graph))
        return [q for p in self.predicates for q in self.store.match(None, p, None, graph)]


def schema(store: GraphStore) -> tuple[tuple[str, str], ...]:
    """The class hierarchy wherever the store states it (the ontology's): it holds for every part."""
    return tuple(sorted({(row["sub"].value, row["sup"].value) for row in store.select(
        f"SELECT DISTINCT ?sub ?sup WHERE {{ ?sub <{RDFS.subClassOf.value}> ?sup "
        f"FILTER(isIRI(?sub) && isIRI(?sup)) }}")}))


def check_records(store: GraphStore, iris: Iris, *, ids: Sequence[str] | None = None, with_rest: bool = True,
                  jobs: int | None = None, per_call: int = RECORDS_PER_CALL,
                  progress: Callable[[int, int], None] | None = None, scheduler: str | None = None) -> PartRun:
    """The record-local rules on the record graphs (``ids``: those only) and, ``with_rest``, on the other
    graphs: in this process, in ``jobs`` processes, or on the Dask cluster at ``scheduler``."""
    started = time.perf_counter()
    parts = part_list(store, iris, ids, with_rest, per_call)
    setup = Setup(iris.base, schema(store))
    finished = _Finished(len(parts), progress)
    records = sum(len(graphs) for kind, graphs in parts if kind == "records")
    if scheduler is not None:
        return _on_dask(store, setup, parts, finished, scheduler, started)
    if jobs is None:
        jobs = (os.cpu_count() or 1) if records >= POOL_FROM else 1
    jobs = max(1, min(jobs, len(parts)))
    if jobs == 1:
        checker = Checker(setup, store)
        finished.prepared = time.perf_counter() - started
        for kind, graphs in parts:
            finished.add(checker.check((kind, graphs, None)))
    else:
        with snapshot(store) as path:
            tasks: list[Task] = [(kind, graphs, None if path else _payload(store, graphs)) for kind, graphs in parts]
            if path is None:
                setup = Setup(setup.base, setup.schema, _shared(store, iris))
            finished.prepared = time.perf_counter() - started
            with ProcessPoolExecutor(jobs, mp_context=_start_method(), initializer=_worker_init,
                                     initargs=(path, setup)) as pool:
                for future in as_completed([pool.submit(_check_in_worker, task) for task in tasks]):
                    finished.add(future.result())
    return PartRun(finished.results, finished.timings(jobs), [])


def check_part(run: str, setup: Setup, task: Task) -> tuple[list[Result], float]:
    """One part on a Dask worker: the run's checker (made on the worker's first part of ``run``)."""
    from .dask_run import run_state

    return run_state(run, lambda: Checker(setup, None)).check(task)


def _on_dask(store: GraphStore, setup: Setup, parts: list[tuple[str, list[str]]], finished: "_Finished",
             scheduler: str, started: float) -> PartRun:
    from .dask_run import check_on_cluster  # imports Dask (an optional extra) only when asked

    iris = Iris(setup.base)
    setup = Setup(setup.base, setup.schema, _shared(store, iris))
    sent = [len(setup.shared or b"")]

    def tasks() -> Iterator[Task]:  # made as they are sent: the workers start on the first ones meanwhile
        for kind, graphs in parts:
            payload = _payload(store, graphs)
            sent[0] += len(payload)
            yield kind, graphs, payload

    finished.prepared = time.perf_counter() - started
    threads = check_on_cluster(scheduler, setup, tasks(), finished.add, check_part) if parts else 0
    timings = finished.timings(threads)
    timings["sent_mb"] = round(sent[0] / 1e6, 3)
    return PartRun(finished.results, timings, [])


def _shared(store: GraphStore, iris: Iris) -> bytes:
    return "".join(f"{q.subject} {q.predicate} {q.object} .\n"
                   for q in store.quads(iris.shared_graph)).encode("utf-8")


def _payload(store: GraphStore, graphs: list[str]) -> bytes:
    """The N-Quads of ``graphs``."""
    return "".join(f"{q} .\n" for g in graphs for q in store.quads(NamedNode(g))).encode("utf-8")


_WORKER: dict[str, Checker] = {}


def _worker_init(store_path: str | None, setup: Setup) -> None:
    store = GraphStore.open_existing(store_path, read_only=True) if store_path else None
    _WORKER["checker"] = Checker(setup, store)


def _check_in_worker(task: Task) -> tuple[list[Result], float]:
    return _WORKER["checker"].check(task)


def _start_method() -> multiprocessing.context.BaseContext:
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["kg.validation.records"])
        return ctx
    return multiprocessing.get_context("spawn")


@contextmanager
def snapshot(store: GraphStore) -> Iterator[str | None]:
    """A point-in-time copy of an on-disk store for the workers to read: its folder, or None.

    Oxigraph calls reading a store that another handle writes to undefined behaviour,
    so the workers open a checkpoint instead: hard links to the store's files, made
    next to the store and removed afterwards. None for an in-memory store, or when no
    copy can be made: the parts then travel to the workers as N-Quads.
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

    def timings(self, jobs: int) -> dict[str, float]:
        return {"record_parts": self.total, "jobs": jobs, "prepare_s": round(self.prepared, 3),
                "worker_cpu_s": round(self.cpu, 3)}
