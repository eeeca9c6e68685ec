"""A write session on disk: the next generation of a store, built from a checkpoint of the
current one, written through its own methods, made current by one switch of the pointer, or
thrown away whole.

:class:`kg.store.GraphStore` begins one for each ``transaction()`` on disk and hands it every
write; the session keeps what its writes changed (``_changes``), feeds a build's one bulk load
(``_bulkload``) and ends with ``commit`` or ``discard``. The generations' files and locks are
:mod:`kg.store._generations`'.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

from pyoxigraph import NamedNode, Quad, Store

from ..errors import StoreError, safe_text
from ..sparql.written import graphs_written
from . import _checked as checked
from . import _generations as generations
from ._bulkload import BuildLoad, available
from ._changes import Changes
from ._faults import open_read_only, open_writable, reason
from ._locks import Lock
from ._writes import DROP_CHUNK, Writes, drop_text


class Session(Writes):
    """A write in progress: generation ``number`` open read-write, under the writer lock, seen by
    the thread that began it and the threads it is lent to (``lent``); other threads read the
    current version. ``base`` is the version it started from (read-only)."""

    def __init__(self, writer: Lock, number: int, store: Store, base: Store, *, empty: bool) -> None:
        super().__init__(store, BuildLoad(store) if empty and available() else None)  # a build's one bulk load
        self.number = number
        self.base: Store | None = base
        self._writer = writer
        self._thread = threading.get_ident()
        self._helpers: set[int] = set()
        self._compact = empty  # a session that fills an empty store (a build) compacts it
        self._changes = Changes()  # what its writes touched
        self._open: Store | None = store  # None once switched or discarded

    @classmethod
    def begin(cls, folder: Path, held: tuple[int, Store] | None = None) -> "Session":
        """A session on the store folder ``folder``: the writer lock, then the next generation as a
        checkpoint of the current one (``held``: the generation a handle reads and its open store,
        used when it is the current one). The folder holds generations already (see
        ``ReadHandle.migrate_if_legacy``)."""
        writer = generations.lock_writer(folder)
        try:
            generations.refuse_damaged(folder)  # before anything is cleaned: a damaged store is never emptied
            base = generations.current(folder)
            if base == 0:
                raise StoreError(f"cannot write to the store {safe_text(folder)}: a plain store, not converted")
            generations.clean(folder, keep=base)
            number = generations.next_number(folder)
            source = held[1] if held is not None and held[0] == base else open_read_only(generations.generation_dir(folder, base))
            store = _checkpoint(folder, number, source)
        except BaseException:
            writer.release()
            raise
        return cls(writer, number, store, source, empty=next(iter(source), None) is None)

    @property
    def compacts(self) -> bool:
        """Whether the new generation's files are merged before it becomes current (a build, or asked)."""
        return self._compact

    # -- who reads it -----------------------------------------------------------------

    def seen_here(self) -> bool:
        """Whether the calling thread reads this session (its own, or one lent to it)."""
        me = threading.get_ident()
        return me == self._thread or me in self._helpers

    @contextmanager
    def lent(self) -> Iterator[None]:
        """Inside the block, the calling thread reads and writes this session as its own thread does."""
        me = threading.get_ident()
        if self.seen_here():
            yield
            return
        self._helpers.add(me)
        try:
            yield
        finally:
            self._helpers.discard(me)

    def reading_store(self) -> Store | None:
        """The store the calling thread reads: the session's (its load ended first, so that a read sees
        everything written so far) when the thread reads this session; else None."""
        if self._open is None or not self.seen_here():
            return None
        self.end_stream()
        return self._open

    def previous_version(self) -> Store | None:
        """The version the session started from, for the threads that read this session."""
        return self.base if self.seen_here() else None

    def written_graphs(self) -> set[Any] | None:
        """The graphs written so far, for the threads that read this session (None: cannot be told)."""
        return self._changes.written() if self.seen_here() else None

    def written_subjects(self, graph: Any) -> set[Any] | None:
        """The subjects of the quads merged into or removed from ``graph``, when that is all the session
        did to it."""
        return self._changes.subjects(graph)

    # -- writes -----------------------------------------------------------------------

    def _held(self, graphs: Iterable[NamedNode]) -> list[NamedNode]:
        """Those of ``graphs`` that the version the calling thread reads holds."""
        store = self.reading_store()
        return self.present(graphs, store if store is not None else self.base)

    def replace_graphs(self, graphs: Mapping[NamedNode, Sequence[Quad]], additions: list[Quad]) -> None:
        """Swap in every graph of ``graphs`` and add ``additions``: new graphs of a build join its
        bulk load; else the old graphs are dropped, then one bulk insert (a SPARQL update of the same
        change costs 4x the whole ingest). The generation is the transaction."""
        self._changes.graphs(graphs)
        self._changes.quads(additions)
        if self._stream(graphs, additions):
            return
        self.drop(self._held(graphs))
        self.bulk_extend([*graphs.values(), additions])

    def remove_graphs(self, graphs: list[NamedNode]) -> None:
        self._changes.graphs(graphs)
        self.drop(self._held(graphs))

    def drop(self, graphs: list[NamedNode]) -> None:
        """Drop ``graphs``: one update for many (a remove_graph call each costs 7x as much: a commit
        each), in chunks, so that one update's transaction stays small in memory."""
        for start in range(0, len(graphs), DROP_CHUNK):
            self.write("update", drop_text(graphs[start:start + DROP_CHUNK]))

    def add(self, method: str, quads: list[Quad]) -> None:
        """Hand ``quads`` to a build's running load, else to the pyoxigraph write ``method``."""
        self._changes.quads(quads)
        if not self._stream({}, quads):
            self.write(method, quads)

    def remove(self, quads: list[Quad]) -> None:
        self._changes.quads(quads)
        super().remove(quads)

    def update(self, sparql: str) -> None:
        self._changes.updated(graphs_written(sparql))
        self.write("update", sparql)

    def ask_compaction(self) -> None:
        """Merge the new generation's files before it becomes current (see ``GraphStore.compact``)."""
        self._compact = True

    def _stream(self, graphs: Mapping[NamedNode, Sequence[Quad]], additions: list[Quad]) -> bool:
        """Hand new graphs to the one bulk load of a session that fills an empty store; False where
        they must be written the usual way."""
        if self.build is None or not self.seen_here():
            return False
        try:
            taken = self.build.take(graphs, additions)
        except (OSError, RuntimeError) as err:
            raise StoreError(f"cannot write to the store: {reason(err)}") from None
        self.wrote = self.wrote or taken
        return taken

    def flush(self) -> None:
        """Write what the session holds in memory to its files."""
        self.end_stream()
        if self._open is not None:
            self._open.flush()

    # -- its end ----------------------------------------------------------------------

    def commit(self, folder: Path) -> bool:
        """Make the generation current (False, and thrown away, when nothing was written); a failure
        throws it away and raises StoreError. The writer lock stays held until ``release``."""
        if not self.wrote:
            self.discard(folder)  # nothing changed: keep the current generation
            return False
        try:
            self._seal()
            self._switch(folder)
        except StoreError:
            self.discard(folder)
            raise
        return True

    def _seal(self) -> None:
        """Everything written into the generation's files: the load ended, the log flushed (a
        read-only checkpoint must find it all in the files), the files merged if asked."""
        assert self._open is not None
        try:
            self.end_stream()
            self._open.flush()
            if self._compact:
                # at the very end: a merge begun earlier leaves what follows it (the changeset, the
                # description) in small files of their own, which every read then checks too (queries
                # on the bundled build 20% slower, for no gain in the build's time)
                self._open.optimize()
        except (OSError, RuntimeError) as err:
            raise StoreError(f"cannot write to the store: {reason(err)}") from None

    def _switch(self, folder: Path) -> None:
        """Make the sealed generation the current one: its read-write store closed (the build's
        load holds it too), then the pointer replaced."""
        self._close()
        # the files just written are whole (RocksDB checksums every block it writes): remembered, so
        # that no reader reads a whole index to check them (kg.store._checked)
        checked.mark(generations.generation_dir(folder, self.number), "sealed")
        try:
            generations.write_pointer(folder, self.number)
        except OSError as err:
            raise StoreError(f"cannot write to the store {safe_text(folder)}: {err.strerror or err}") from None

    def _close(self) -> None:
        """Let go of the read-write store and the old one (the last references close them)."""
        self._open = self.base = self.build = None
        self.store = Store()  # nothing writes here any more: the session has ended

    def clean_up(self, folder: Path) -> None:
        """After a commit: remove the generations that no reader holds any more."""
        generations.clean(folder, keep=self.number)

    def release(self) -> None:
        """Let go of the writer lock."""
        self._writer.release()

    def discard(self, folder: Path) -> None:
        """Throw the generation away whole and let go of the writer lock."""
        try:
            self.end_stream()  # the loader must let go of the generation before it is removed
        except StoreError:
            pass
        self._close()
        try:
            generations.remove_generation(folder, self.number)
        finally:
            self.release()


def _checkpoint(folder: Path, number: int, source: Store) -> Store:
    """Generation ``number`` of ``folder`` made as a checkpoint of ``source`` (hard links:
    milliseconds), open read-write."""
    target = generations.generation_dir(folder, number)
    try:
        generations.start_generation(folder, number)
        source.backup(str(target))
        return open_writable(target)
    except (OSError, RuntimeError, ValueError) as err:
        generations.remove_generation(folder, number)
        if isinstance(err, StoreError):
            raise
        raise StoreError(f"cannot write to the store {safe_text(folder)}: {reason(err)}") from None
