"""Checking one part of a split run: what every part of a run shares, and the checker a worker
(a process of the pool, a Dask worker, or the calling process) runs each part with."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import pyoxigraph
import rdflib
from rdflib import URIRef

from ..store import GraphStore
from ..vocab import RDFS, Iris
from .pyshacl_run import Converter, ShaclEngine
from .locality import SplitPlan
from .parts import SharedReader, by_subject, closure_quads, graph_quads, our_part_quads, rest_homes
from .readplan import ReadPlan, read_plan
from .report import Result
from .rules import shapes_graph

_RDFS_SUBCLASS = URIRef(RDFS.subClassOf.value)

Task = tuple[str, list[str], "bytes | None", bytes]  # kind, graph IRIs, the part's triples or None, lazy triples


@dataclass(frozen=True)
class OwnShapes:
    """The user's shapes as the workers get them: the triples (blank nodes keep their ids), the
    rule names of the shapes, and the split plan."""

    triples: tuple[tuple[Any, Any, Any], ...]
    names: dict[Any, str]
    split: SplitPlan

    def graph(self) -> rdflib.Graph:
        graph = rdflib.Graph(bind_namespaces="none")
        for triple in self.triples:
            graph.add(triple)
        return graph


@dataclass(frozen=True)
class Setup:
    """What every part of one run shares: the base, the read plan, the class hierarchy, the shapes."""

    base: str
    plan: ReadPlan
    schema: list[tuple[str, str]] = field(default_factory=list)
    own: OwnShapes | None = None
    fast: bool = False  # the speed-ups, in workers only


@lru_cache(maxsize=4)
def our_read_plan(base: str) -> ReadPlan:
    """The read plan of our record-local shapes for ``base``."""
    return read_plan(shapes_graph(Iris(base), cross=False))


_ENGINES: dict[tuple[str, bool], ShaclEngine] = {}


def _our_engine(base: str, fast: bool) -> ShaclEngine:
    """The pySHACL engine of our record-local shapes for ``base`` (once per process)."""
    if (base, fast) not in _ENGINES:
        iris = Iris(base)
        _ENGINES[(base, fast)] = ShaclEngine(shapes_graph(iris, cross=False), iris, fast=fast)
    return _ENGINES[(base, fast)]


class PartChecker:
    """Checks parts of one run, reading them from ``store`` (None: parts bring their triples)."""

    def __init__(self, setup: Setup, store: GraphStore | None, *, fast: bool) -> None:
        self.setup = setup
        self.iris = Iris(setup.base)
        self.store = store
        if setup.own is None:
            self.engine = _our_engine(setup.base, fast)
        else:
            self.engine = ShaclEngine(setup.own.graph(), self.iris, setup.own.names, fast=fast)
        self.convert = Converter()  # one term cache per checker
        self._shared: dict[Any, list[Any]] | None = None
        self.few = False  # only record parts of a few records: shared resources read as reached

    def check(self, task: Task) -> tuple[list[Result], float]:
        """Validate one part: a list of record graphs (or the other graphs) with what they reach.

        ``task``: (kind, graph IRIs, the part's triples as N-Triples when the checker
        cannot read the store or None, the few triples of the plan's lazy predicates
        the part needs).
        """
        kind, graphs, part_triples, lazy = task
        started = time.process_time()
        data = rdflib.Graph()
        if self.setup.own is not None:
            self._fill_own(data, kind, graphs, part_triples)
        else:
            self._fill_ours(data, kind, graphs, part_triples, lazy)
        return self.engine.run(data), time.process_time() - started

    def _fill_ours(self, data: rdflib.Graph, kind: str, graphs: list[str], part_triples: bytes | None,
                   lazy: bytes) -> None:
        plan = self.setup.plan
        for sub, sup in self.setup.schema:  # the class hierarchy, wherever it is stated
            data.add((URIRef(sub), _RDFS_SUBCLASS, URIRef(sup)))
        # the lazy predicates' few triples: added like the rest, and they reach shared resources too
        lazy_quads = list(pyoxigraph.parse(lazy, format=pyoxigraph.RdfFormat.N_TRIPLES)) if lazy else []
        if part_triples is not None:
            self.convert.fill(data, pyoxigraph.parse(part_triples, format=pyoxigraph.RdfFormat.N_TRIPLES), plan)
            self.convert.fill(data, lazy_quads)
            return
        assert self.store is not None
        if self._shared is None and self.few:
            self._shared = SharedReader(self.store, self.iris.shared_graph, plan)
        elif self._shared is None:
            self._shared = by_subject(graph_quads(self.store, self.iris.shared_graph, plan))
        self.convert.fill(data, our_part_quads(self.store, self.iris, plan, kind, graphs, self._shared, lazy_quads))

    def _fill_own(self, data: rdflib.Graph, kind: str, graphs: list[str], part_triples: bytes | None) -> None:
        if part_triples is not None:
            self.convert.fill(data, pyoxigraph.parse(part_triples, format=pyoxigraph.RdfFormat.N_TRIPLES))
            return
        assert self.store is not None and self.setup.own is not None
        self.convert.fill(data, own_part_quads(self.store, self.iris, self.setup, kind, graphs))


def own_part_quads(store: GraphStore, iris: Iris, setup: Setup, kind: str, graphs: list[str]) -> list[Any]:
    """The triples one part of a user-shapes run needs (``kg.validation.user_shapes``)."""
    assert setup.own is not None
    homes = list(graphs) if kind == "records" else rest_homes(store, iris, graphs)
    return closure_quads(store, homes, setup.own.split, setup.plan.predicates)
