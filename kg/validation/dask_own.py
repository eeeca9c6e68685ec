"""The user's shapes on a Dask cluster: every worker holds the whole graph, each part is a slice of the focus nodes.

The shapes and the store's quads (N-Quads) go to every worker once; part ``i`` of
``n`` checks the focus nodes whose text hashes to ``i`` (CRC-32, the same on every
machine), so the parts together check each focus node once.
"""

from __future__ import annotations

import time
import zlib
from dataclasses import dataclass
from typing import Any

import pyoxigraph

from ..store import GraphStore
from ..vocab import Iris
from .core import CoreShapes
from .dask_run import check_on_cluster, run_state
from .report import Result
from .user_shapes import UserShapes

PARTS = 8


@dataclass(frozen=True)
class OwnSetup:
    """What every worker gets once: the base, the shapes (N-Triples), their names and skipped shapes (as
    text), and the whole graph (N-Quads)."""

    base: str
    shapes: bytes
    names: dict[str, str]
    skip: tuple[str, ...]
    data: bytes


def _term(text: str) -> Any:
    return pyoxigraph.BlankNode(text[2:]) if text.startswith("_:") else pyoxigraph.NamedNode(text)


def check_slice(run: str, setup: OwnSetup, part: tuple[int, int]) -> tuple[list[Result], float]:
    """Part ``(i, n)``: the results on the focus nodes of slice ``i`` of ``n``."""
    started = time.process_time()

    def make() -> tuple[CoreShapes, Any]:
        shapes = CoreShapes(pyoxigraph.parse(setup.shapes, format=pyoxigraph.RdfFormat.N_TRIPLES),
                            Iris(setup.base), names=setup.names, skip=[_term(s) for s in setup.skip])
        return shapes, shapes.facts(pyoxigraph.parse(setup.data, format=pyoxigraph.RdfFormat.N_QUADS))

    shapes, facts = run_state(run, make)
    index, count = part
    results = shapes.check(facts, lambda node: zlib.crc32(str(node).encode("utf-8")) % count == index)
    return results, time.process_time() - started


def check_own_on_cluster(address: str, store: GraphStore, iris: Iris, own: UserShapes) -> tuple[list[Result], int]:
    """The user's SHACL Core shapes on the cluster at ``address``: the results, and the worker threads."""
    names = {("_:" + str(k)) if not str(k).startswith(("http:", "https:", "urn:")) and type(k).__name__ == "BNode"
             else str(k): v for k, v in own.names.items()}
    setup = OwnSetup(iris.base, "".join(f"{t} .\n" for t in own.triples).encode("utf-8"), names,
                     tuple(("_:" + s.value) if isinstance(s, pyoxigraph.BlankNode) else s.value for s in own.skip),
                     "".join(f"{q} .\n" for q in store.quads()).encode("utf-8"))
    found: list[Result] = []
    threads = check_on_cluster(address, setup, [(i, PARTS) for i in range(PARTS)],
                               lambda part: found.extend(part[0]), check_slice)
    return found, threads
