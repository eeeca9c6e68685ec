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

import gc
import multiprocessing
import os
import shutil
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

import pyoxigraph
from pyoxigraph import Literal, NamedNode

from ..errors import StoreError
from ..gctuning import THRESHOLD, fewer_collections
from ..shacl import terms
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

    def __init__(self, setup: Setup, store: GraphStore | None, *, reached: bool = False) -> None:
        self.iris = Iris(setup.base)
        self.shapes: CoreShapes = core_shapes(setup.base, setup.schema)
        self.store = store
        reads = self.shapes.reads  # None: some shape is closed, every predicate counts
        self.predicates = None if reads is None else [NamedNode(p) for p in sorted(reads)]
        self._predicate_set = frozenset(self.predicates or ())
        self._reading = None if self.predicates is None else _graph_reading(self.predicates)
        self._looked: set[Any] | None = None  # the nodes looked up in the shared graph, when read as reached
        if store is not None and reached and self.shapes.backwards is not None and self.predicates is not None:
            self._start_reached(store, self.predicates, self.shapes.backwards)
        elif store is not None:
            # read as a record graph is: of the predicates read, a third of its quads at 45,600 records
            self.shared_triples = self._read(self.iris.shared_graph)
        else:
            assert setup.shared is not None
            parsed = pyoxigraph.parse(setup.shared, format=pyoxigraph.RdfFormat.N_TRIPLES)
            self.shared_triples = self._kept(terms(parsed))
        self.shared: Facts = self.shapes.facts_of_terms(self.shared_triples)

    def check(self, task: Task) -> tuple[list[Result], float]:
        """The results of one part, and the CPU seconds it took."""
        kind, graphs, payload = task
        started = time.process_time()
        by_graph = self._triples(graphs, payload)
        results: list[Result] = []
        if kind == "rest":
            results += self.shapes.check(self.shapes.facts_of_terms(
                [*self.shared_triples, *(t for triples in by_graph.values() for t in triples)]))
        else:
            for triples in by_graph.values():
                if self._looked is not None:
                    self._reach(triples)
                results += self.shapes.check(self.shapes.facts_of_terms(triples, self.shared))
        return results, time.process_time() - started

    def _start_reached(self, store: GraphStore, predicates: list[NamedNode], backwards: frozenset[str]) -> None:
        """The shared layer of a check of some records: only the shared resources their triples reach
        (:meth:`_reach`), not the whole shared graph (10,000 triples at 45,600 records: 0.2 s); and
        every resource of a shared triple that some shape looks up from its object, as a lookup from
        any record may find it."""
        self.shared_triples = []
        self.shared = Facts(outgoing=self.shapes.engine.closed)
        self._looked = set()
        chosen = [p for p in predicates if p.value in backwards]
        if chosen:
            text, _ = _graph_reading(chosen)
            solutions = store.query(text, default_graph=self.iris.shared_graph)
            assert isinstance(solutions, pyoxigraph.QuerySolutions)
            self._fetch([s for s, _, _ in solutions])

    def _reach(self, triples: list[Any]) -> None:
        """Add to the shared layer the shared graph's triples about every node ``triples`` reach that is
        not one of their own subjects, and about what those reach in turn."""
        own = {s for s, _, _ in triples}
        self._fetch([o for _, _, o in triples if o not in own])

    def _fetch(self, nodes: list[Any]) -> None:
        """The shared graph's triples about ``nodes`` and what they reach, read node by node, added to
        the shared layer (each node looked up once a run)."""
        assert self.store is not None and self._looked is not None
        todo = [node for node in nodes if not isinstance(node, Literal) and node not in self._looked]
        graph = self.iris.shared_graph
        while todo:
            node = todo.pop()
            if node in self._looked:
                continue
            self._looked.add(node)
            found = self._kept(terms(self.store.match(node, None, None, graph)))
            if found:
                self._add_shared(found)
                todo += [o for _, _, o in found if not isinstance(o, Literal) and o not in self._looked]

    def _add_shared(self, triples: list[Any]) -> None:
        self.shared_triples += triples
        self.shared.add_terms(triples, None, self.shapes.backwards)

    def _triples(self, graphs: list[str], payload: bytes | None) -> dict[str, list[Any]]:
        """(subject, predicate, object) of each graph's triples the shapes look at, by graph."""
        if payload is None:
            assert self.store is not None
            return {g: self._read(NamedNode(g)) for g in graphs}
        found: dict[str, list[Any]] = {g: [] for g in graphs}
        for quad in pyoxigraph.parse(payload, format=pyoxigraph.RdfFormat.N_QUADS):
            found.setdefault(quad.graph_name.value, []).append(quad)
        return {g: self._kept(terms(quads)) for g, quads in found.items()}

    def _kept(self, triples: Iterable[tuple[Any, Any, Any]]) -> list[tuple[Any, Any, Any]]:
        """The triples of the predicates the shapes read (all where some shape is closed)."""
        if self.predicates is None:
            return list(triples)
        return [t for t in triples if t[1] in self._predicate_set]

    def _read(self, graph: NamedNode) -> list[Any]:
        """The triples of ``graph`` the shapes look at, as (subject, predicate, object): of the
        predicates they read (a third of a full record's quads are of other predicates), all where
        some shape is closed. Read by one query with the graph as its default graph that hands back
        each predicate as a number: each term read is a lookup in the store's dictionary, and this
        way neither the graph's name nor the predicate is looked up (a full-shape record read and
        checked 5.1 -> 4.0 ms at 912 records, 8.3 -> 6.2 ms at 45,600)."""
        assert self.store is not None
        if self._reading is None:
            return list(terms(self.store.quads(graph)))
        text, predicates = self._reading
        solutions = self.store.query(text, default_graph=graph)
        assert isinstance(solutions, pyoxigraph.QuerySolutions)
        return [(s, predicates[k.value], o) for s, o, k in solutions]


def _graph_reading(predicates: list[NamedNode]) -> tuple[str, dict[str, NamedNode]]:
    """The query that reads a graph's triples of ``predicates`` (its default graph), and the
    predicate of each number it answers."""
    table = " ".join(f"({p} {i})" for i, p in enumerate(predicates))  # pyoxigraph's serialiser escapes
    return (f"SELECT ?s ?o ?k WHERE {{ VALUES (?p ?k) {{ {table} }} ?s ?p ?o }}",
            {str(i): p for i, p in enumerate(predicates)})


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
        # a check of some records reads only the shared resources they reach
        checker = Checker(setup, store, reached=ids is not None and not with_rest)
        finished.prepared = time.perf_counter() - started
        # a record's check makes thousands of short-lived tuples: at the default threshold the collector
        # runs every few records over every object kept, the results so far among them (kg.gctuning)
        with fewer_collections():
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
    gc.set_threshold(THRESHOLD, *gc.get_threshold()[1:])  # as in one process (above); the process is ours
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
