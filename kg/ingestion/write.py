"""Write, the third stage: each mapped batch handed to the store's writer thread while the next is mapped.

A batch's records the gate holds back are left out (their shared descriptions still go in). The
write itself runs on ``BackgroundWrites``' thread, inside the ingest's write session; its error is
raised in the caller at the next hand-over or ``wait``.
"""

from __future__ import annotations

from typing import Any

from pyoxigraph import NamedNode, Quad

from ..background import BackgroundWrites
from ..store import GraphStore, GraphText, GraphTriples
from ..vocab import Iris
from .map_gate import Mapped
from .read_check import Pending

Kept = list[tuple[Pending, "GraphTriples | GraphText"]]  # the records of a batch that are written, with their graphs


def kept_records(part: list[Mapped], held: set[str]) -> Kept:
    """The records of a mapped batch that are written: all but those ``held`` back."""
    return [(p, own) for p, own, _, _ in part if p.record.id not in held]


class BatchWriter:
    """The third stage of one pass: writes batches in the background, one at a time, and counts
    what it wrote."""

    def __init__(self, store: GraphStore, iris: Iris) -> None:
        self.store, self.iris = store, iris
        self.writes = BackgroundWrites()  # the batch being written while the next is mapped
        self.quads_written = 0
        self.written: set[str] = set()  # ids of the records written (a superseded one is written again)
        self.described_now: set[Any] = set()  # the shared resources written (as nodes)

    def write(self, part: list[Mapped], kept: Kept) -> None:
        """Hand one batch to the writer: the ``kept`` records' graphs and every shared description of ``part``."""
        graphs = {self.iris.record_graph(p.record.id): own for p, own in kept}
        shared = [q for _, _, descriptions, _ in part for q in descriptions]
        self.described_now.update(q.subject for q in shared)
        self.quads_written += sum(len(q) for q in graphs.values()) + len(shared)
        self.written.update(p.record.id for p, _ in kept)
        for own in graphs.values():
            # the loader's text made here, on the main thread, while the batch before is loaded:
            # the writer thread is the slower side (9,120 records: 191 s of 234)
            own.nquads()
        self.writes.submit(lambda: self._store_batch(graphs, shared))

    def _store_batch(self, graphs: dict[NamedNode, GraphTriples | GraphText], shared: list[Quad]) -> None:
        with self.store.helping():  # on the writer thread: read what the session wrote so far
            self.store.replace_graphs(graphs, shared)

    def wait(self) -> None:
        """Block until the last batch is written; raise its error, if it failed."""
        self.writes.wait()

    def abandon(self) -> None:
        """Block until no write runs, ignoring its error: the session is being thrown away."""
        self.writes.wait(raise_error=False)
