"""Writes into one pyoxigraph store as they apply in memory: each call one all-or-nothing write.

:class:`Writes` is what a store in memory writes through; a write session on disk
(:class:`kg.store._session.Session`) is a ``Writes`` into its new generation, which throws a
failed write away whole, so it replaces graphs and drops them in more steps. Both bulk-load many
quads as N-Quads text (``_nquads``), which pyoxigraph's loader parses without holding the GIL.

>>> from pyoxigraph import NamedNode, Literal, Quad, Store
>>> g = NamedNode("https://example.org/g")
>>> writes = Writes(Store())
>>> writes.replace_graphs({g: [Quad(g, g, Literal("a"), g)]}, [])
>>> writes.replace_graphs({g: [Quad(g, g, Literal("b"), g)]}, [])
>>> [q.object.value for q in writes.store]
['b']
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from pyoxigraph import NamedNode, Quad, RdfFormat, Store

from ..errors import StoreError
from ..sparql.updates import quads_replacement
from ._bulkload import LENIENT, BuildLoad
from ._faults import reason
from ._nquads import forget, text

DROP_CHUNK = 100  # graphs dropped by one update
# a write of at most this many quads goes in one transaction, outside a build (``bulk_extend``)
TRANSACTION_MAX = 2000


def drop_text(graphs: Iterable[NamedNode]) -> str:
    """One SPARQL Update that drops these graphs (those missing are ignored)."""
    return " ;\n".join(f"DROP SILENT GRAPH {g}" for g in graphs)


class Writes:
    """The writes into ``store``, each of them one transaction of its own (in memory there is no
    generation to throw away)."""

    def __init__(self, store: Store, build: BuildLoad | None = None) -> None:
        self.store = store
        self.build = build  # a session's one bulk load (kg.store._bulkload), if it runs one
        self.wrote = False  # whether any write reached the store (or the bulk load)

    def write(self, method: str, *args: Any, **options: Any) -> None:
        """Call the pyoxigraph write ``method`` on the store (a running bulk load ended first: what
        follows may read or drop what it was given), a failure raised as StoreError."""
        self.end_stream()
        self.wrote = True
        try:
            getattr(self.store, method)(*args, **options)
        except (OSError, RuntimeError) as err:
            raise StoreError(f"cannot write to the store: {reason(err)}") from None

    def end_stream(self) -> None:
        """End the bulk load, if one runs: after this, the store holds all it was given."""
        if self.build is not None:
            try:
                self.build.end()
            except (OSError, RuntimeError) as err:
                raise StoreError(f"cannot write to the store: {reason(err)}") from None

    @staticmethod
    def present(graphs: Iterable[NamedNode], store: Store | None) -> list[NamedNode]:
        """Those of ``graphs`` that ``store`` holds."""
        try:
            return [g for g in graphs if store is not None and store.contains_named_graph(g)]
        except (OSError, RuntimeError) as err:
            raise StoreError(f"cannot read the store: {reason(err)}") from None

    def replace_graphs(self, graphs: Mapping[NamedNode, Sequence[Quad]], additions: list[Quad]) -> None:
        """Swap in every graph of ``graphs`` and add ``additions``: one SPARQL update, the one
        all-or-nothing write that removes and inserts, where a graph existed; else a bulk insert."""
        existing = self.present(graphs, self.store)
        if existing:
            self.write("update", quads_replacement(graphs, existing, additions))
            return
        self.bulk_extend([*graphs.values(), additions])

    def remove_graphs(self, graphs: list[NamedNode]) -> None:
        """Drop these graphs, in one update."""
        graphs = self.present(graphs, self.store)
        if graphs:
            self.write("update", drop_text(graphs))

    def add(self, method: str, quads: list[Quad]) -> None:
        """Add ``quads`` with the pyoxigraph write ``method`` (``extend`` or ``bulk_extend``)."""
        self.write(method, quads)

    def remove(self, quads: list[Quad]) -> None:
        """Remove these quads (those the store lacks are ignored)."""
        for quad in quads:
            self.write("remove", quad)

    def update(self, sparql: str) -> None:
        """Run a SPARQL Update built by kg itself."""
        self.write("update", sparql)

    def bulk_extend(self, parts: list[Sequence[Quad]]) -> None:
        """Add the quads of ``parts`` (graphs' quads, and others) through the bulk loader."""
        # pyoxigraph's bulk loader is not transactional on its own; on disk it writes into
        # the session's new generation, which a failure throws away whole. In memory it is
        # used only on graphs that did not exist before.
        count = sum(len(part) for part in parts)
        # A few quads go in one transaction, but not in a build: there a write waits while
        # RocksDB merges the many level-0 files the build's load left (at 45,600 records the
        # description's 317 quads waited 100 s), and files the loader writes do not wait.
        if count <= TRANSACTION_MAX and self.build is None:
            self.write("extend", [q for part in parts for q in part])
            return
        # As N-Quads text the loader parses and writes without holding the GIL (``bulk_extend``
        # holds it while it reads the Python quads), so a caller's thread can map the next
        # records meanwhile. The parser renames blank nodes: quads with one keep ``bulk_extend``.
        nquads = text(parts)
        forget(parts)  # the joined text is the one the loader reads
        if self.build is not None:
            self.build.loaded += count
        if b"_:" in nquads:
            self.write("bulk_extend", [q for part in parts for q in part])
        else:  # kg's own text, from terms pyoxigraph checked when they were made: see _bulkload.LENIENT
            self.write("bulk_load", nquads, RdfFormat.N_QUADS, lenient=LENIENT)
