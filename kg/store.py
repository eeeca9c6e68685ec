"""The quad store: quads in, SPARQL out, one whole version at a time. Knows nothing of records.

``GraphStore`` wraps an embedded pyoxigraph store, on disk (the default for the
CLI) or in memory. On disk, a store folder holds generations (see
:mod:`kg.generations`): a write session (:mod:`kg.session`) builds the next generation from a cheap
checkpoint of the current one and switches to it atomically when it ends, so a
reader sees the whole old version or the whole new one, never a mix, and a write
that is killed or fails leaves the previous version as it was.

>>> from pyoxigraph import NamedNode, Literal, Quad
>>> store = GraphStore()           # in memory
>>> g = NamedNode("https://example.org/g")
>>> store.replace_graphs({g: [Quad(g, NamedNode("https://example.org/p"), Literal("v"), g)]})
>>> [row["o"].value for row in store.select("SELECT ?o WHERE { ?s ?p ?o }")]
['v']

On disk, wrap a whole ingest in one session; a write call outside a session is a
session of its own:

>>> import tempfile
>>> disk = GraphStore(tempfile.mkdtemp() + "/kg-store")
>>> with disk.transaction():
...     disk.add([Quad(g, NamedNode("https://example.org/p"), Literal("a"), g)])
...     disk.add([Quad(g, NamedNode("https://example.org/p"), Literal("b"), g)])
>>> len(disk), disk.generation, disk.is_stale()
(2, 2, False)
"""

from __future__ import annotations

import functools
import os
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence, TypeVar, cast

from pyoxigraph import (
    DefaultGraph, Literal, NamedNode, Quad, QueryBoolean, QuerySolutions, QueryTriples, RdfFormat,
    Store,
)

from . import generations, nquads, streamload
from .errors import QueryError, StoreError, safe_text
from .rdffiles import RDF_FORMATS
from .sparql.binding import bind
from .sparql.lexer import has_keyword
from .sparql.updates import quads_replacement
from .session import Session, begin as begin_session
from .storefaults import is_storage_fault, open_read_only, open_writable, probe, reason
from .writes import graphs_written

DEFAULT_STORE = "kg-store"
DROP_CHUNK = 100  # graphs dropped by one update
# a write of at most this many quads goes in one transaction, outside a build (``_bulk_extend``)
TRANSACTION_MAX = 2000
T = TypeVar("T")

FORMATS: dict[str, RdfFormat] = RDF_FORMATS  # the one table of RDF formats (kg.rdffiles)


def default_store_path() -> str:
    """The store directory: ``KG_STORE`` when set, else ./kg-store."""
    return os.environ.get("KG_STORE") or DEFAULT_STORE


MEMORY = ":memory:"  # the path of an in-memory store


class GraphStore:
    """An embedded RDF dataset with atomic named-graph replacement and bound SPARQL.

    ``GraphStore(path)`` opens (or creates) a store to read and write;
    ``read_only=True`` (or :meth:`open_existing`) only reads an existing store, and
    never creates or changes anything. Either reads one generation: the version that
    was current when it was opened (see :meth:`is_stale` and :meth:`reopen`).
    ``GraphStore()`` (or the path ``":memory:"``, as the CLI's ``--store`` spells it) is
    a throwaway store in memory.
    """

    def __init__(self, path: str | os.PathLike | None = None, *, read_only: bool = False) -> None:
        self.path = Path(path) if path is not None and str(path) != MEMORY else None
        self.read_only = read_only
        self.generation = 0
        self._stamp: tuple[int, int, int, int] | None = None  # the pointer's stat when it was last read
        self._session: Session | None = None
        self._reader: generations.Lock | None = None
        # handles on earlier versions, with their reader locks, until no thread reads them
        self._retired: list[tuple[Store, generations.Lock | None]] = []
        if self.path is None:
            self._store = Store()
            return
        found = generations.kind(self.path)
        if found == "damaged":
            generations.refuse_damaged(self.path)
        if found in ("missing", "empty") and not read_only:
            self._create(self.path)
        elif found in ("missing", "empty"):
            raise StoreError(f"no store at {safe_text(self.path)}")
        elif found == "foreign":
            raise StoreError(f"cannot open store {safe_text(self.path)}: not a kg store (no generation pointer, "
                             f"no store files)")
        self._store = Store()
        self._store = self._open_current()

    @classmethod
    def open_existing(cls, path: str | os.PathLike, *, read_only: bool = False) -> "GraphStore":
        """Open a store that must already exist (reading commands never create one)."""
        found = generations.kind(Path(path))
        if found == "damaged":
            generations.refuse_damaged(Path(path))
        if found in ("missing", "empty") or not Path(path).is_dir():
            raise StoreError(f"no store at {path}: run 'kg build' or 'kg ingest' first (or pass --store)")
        return cls(path, read_only=read_only)

    @staticmethod
    def latest_generation(path: str | os.PathLike) -> int:
        """The number of the store's current generation (0 for a store from before
        generations): one small file read, cheap enough to poll."""
        return generations.current(Path(path))

    def is_stale(self) -> bool:
        """Whether a newer version than the one this handle reads has become current.

        One stat of the pointer file while it is unchanged (the file is read only when
        its stat differs), so a server can ask before every request. Also lets go of
        earlier versions that no pinned handle reads any more (see :meth:`pinned`)."""
        if self.path is None or self._session is not None:
            return False
        if self._retired:
            self._release_unheld()
        stamp = generations.pointer_stamp(self.path)
        if stamp is not None and stamp == self._stamp:
            return False
        stale = self.latest_generation(self.path) != self.generation
        if not stale:
            self._stamp = stamp  # taken before the read: a switch after it changes the stamp again
        return stale

    def pinned(self) -> "GraphStore":
        """A read-only handle on the version this handle reads now, which keeps reading
        that version whatever :meth:`reopen` does later: one request, one version, for
        threads that share this handle. The version stays on disk while the pinned
        handle lives; once it is dropped, the next :meth:`is_stale` lets go of it.

        >>> store = GraphStore()
        >>> store.pinned().generation == store.generation
        True
        """
        if self._session is not None:
            raise StoreError("a write session cannot be pinned")
        view = GraphStore.__new__(GraphStore)
        view.path, view.read_only, view.generation, view._stamp = self.path, True, self.generation, self._stamp
        view._session, view._reader, view._retired = None, None, []
        view._store = self._store  # the reference that keeps this version's reader lock (see _retire)
        return view

    def reopen(self) -> bool:
        """Read the current version from now on, if a newer one exists; True if it did."""
        if not self.is_stale():
            return False
        self._store = self._open_current()
        return True

    @property
    def version_folder(self) -> Path | None:
        """The folder of the version this handle reads (None in memory or inside a
        session). It stays whole while this handle is open (its reader lock), so worker
        processes can open it read-only and read exactly this version."""
        if self.path is None or self._session is not None:
            return None
        return generations.generation_dir(self.path, self.generation) if self.generation else self.path

    def _open_current(self) -> Store:
        """A read-only handle on the current generation, its reader lock taken (the
        previous one released)."""
        assert self.path is not None
        stamp = generations.pointer_stamp(self.path)  # before the pointer is read (see is_stale)
        number, lock = generations.lock_current(self.path)
        folder = generations.generation_dir(self.path, number) if number else self.path
        try:
            store = open_read_only(folder)
            if self.read_only:
                probe(store, folder)
        except StoreError:
            if lock is not None:
                lock.release()
            raise
        self._retire()
        self._reader, self.generation, self._stamp = lock, number, stamp
        return store

    def _retire(self) -> None:
        """Keep the current handle's reader lock until no other thread reads through the
        handle (its generation must not be removed under a query in flight); release the
        locks of earlier handles that nobody holds any more."""
        if self._reader is not None:
            self._retired.append((self._store, self._reader))
            self._reader = None
        self._release_unheld()

    def _release_unheld(self) -> None:
        """Release the reader locks of earlier versions that nobody reads any more."""
        held = []
        for store, lock in self._retired:
            # 3 references: this list's tuple, the loop variable, getrefcount's argument
            if sys.getrefcount(store) > 3 + (store is self._store):
                held.append((store, lock))
            elif lock is not None:
                lock.release()
        self._retired = held

    @staticmethod
    def _create(folder: Path) -> None:
        """A new store folder whose generation 1 is an empty store."""
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise StoreError(f"cannot create store {safe_text(folder)}: {err.strerror or err}") from None
        writer = generations.lock_writer(folder)
        try:
            if generations.kind(folder) != "empty":
                return  # another process made it meanwhile (a damaged store is refused when it is opened)
            generations.clean(folder, keep=0)  # what a killed creation left (generations never current)
            generations.start_generation(folder, 1)
            store = open_writable(generations.generation_dir(folder, 1))
            store.flush()
            del store
            generations.write_pointer(folder, 1)
        except (OSError, StoreError) as err:
            generations.remove_generation(folder, 1)
            if isinstance(err, StoreError):
                raise
            raise StoreError(f"cannot create store {safe_text(folder)}: {err.strerror or err}") from None
        finally:
            writer.release()

    # -- write sessions -------------------------------------------------------

    @contextmanager
    def helping(self) -> Iterator["GraphStore"]:
        """Inside the block, the calling thread (a writer thread of the session's own) reads and
        writes the open write session as the thread that began it does: without this, its reads
        would see the version before the session (a record written twice in one ingest would keep
        both versions' quads). Outside a session, nothing changes."""
        session = self._session
        me = threading.get_ident()
        if session is None or session.seen_here():
            yield self
            return
        session.helpers.add(me)
        try:
            yield self
        finally:
            session.helpers.discard(me)

    @contextmanager
    def transaction(self) -> Iterator["GraphStore"]:
        """One write session: every write inside becomes visible to readers at once when
        the block ends, or not at all if it raises (or the process dies). Reads inside
        see the session's own writes. Nested sessions join the outer one; in memory,
        writes apply directly."""
        if self.path is None or self._session is not None:
            yield self
            return
        self._begin()
        try:
            yield self
        except BaseException:
            self._abort()
            raise
        self._commit()

    def _begin(self) -> None:
        if self.read_only:
            raise StoreError(f"the store {safe_text(self.path)} was opened read-only")
        assert self.path is not None
        self._session = begin_session(self.path, self._handle_on, self._migrate)

    def _handle_on(self, generation: int) -> Store | None:
        """This handle's store when it reads ``generation`` (a session's checkpoint is made from it)."""
        return self._store if self.generation == generation else None

    def _commit(self) -> None:
        current = self._session
        assert current is not None and self.path is not None
        if not current.wrote:
            self._abort()  # nothing changed: keep the current generation
            return
        try:
            current.seal()
            current.switch(self.path)
        except StoreError:
            self._abort()
            raise
        self._session = None
        try:
            self._store = self._open_current()
            generations.clean(self.path, keep=current.number)
        finally:
            current.writer.release()

    def _abort(self) -> None:
        current = self._session
        assert current is not None and self.path is not None
        self._session = None
        current.discard(self.path)

    def _migrate(self, folder: Path) -> None:
        """Make a plain store from before generations generation 1 (under the writer lock):
        a checkpoint of it, then the pointer, then its old files go."""
        self._store = Store()  # let go of the read-only handle on the old files
        generations.clean(folder, keep=0)  # what a killed migration left (never current)
        try:
            old = open_writable(folder)  # read-write: its log is replayed and flushed into the copy
            generations.start_generation(folder, 1)
            old.flush()
            old.backup(str(generations.generation_dir(folder, 1)))
            del old
            generations.write_pointer(folder, 1)
        except (OSError, RuntimeError, ValueError) as err:
            generations.remove_generation(folder, 1)
            self._store = self._open_current()
            if isinstance(err, StoreError):
                raise
            raise StoreError(f"cannot convert the store {safe_text(folder)}: {reason(err)}") from None
        self._store = self._open_current()

    def _write(self, method: str, *args: Any, **options: Any) -> None:
        """Call the pyoxigraph write ``method``: in the current session, or in a session
        of its own (named, not bound: the session's store exists only once it began)."""
        with self.transaction():
            if self._session is not None:
                self._end_stream()  # what follows may read or drop what the load was given
                self._session.wrote = True
            try:
                getattr(self._session.store if self._session is not None else self._store, method)(*args, **options)
            except (OSError, RuntimeError) as err:
                raise StoreError(f"cannot write to the store: {reason(err)}") from None

    # -- writing ------------------------------------------------------------

    def replace_graphs(self, graphs: Mapping[NamedNode, Sequence[Quad]], additions: Iterable[Quad] = ()) -> None:
        """In one transaction: swap in every graph of ``graphs`` (old content removed)
        and add ``additions`` (quads of graphs that are merged into, not replaced)."""
        additions = list(additions)
        self._touch(graphs)
        self._touch_quads(additions)
        with self.transaction():
            if self._stream(graphs, additions):
                return
            existing = [g for g in graphs if self.has_graph(g)]
            if existing and self._session is None:
                # In memory there is no generation to throw away: one SPARQL update is the
                # one all-or-nothing write that removes and inserts.
                self._write("update", quads_replacement(graphs, existing, additions))
                return
            # On disk the session's generation is the transaction: drop the old graphs, then
            # one bulk insert (a SPARQL update of the same change costs 4x the whole ingest).
            self._drop(existing)
            self._bulk_extend([*graphs.values(), additions])

    def _stream(self, graphs: Mapping[NamedNode, Sequence[Quad]], additions: list[Quad]) -> bool:
        """Hand new graphs to the one bulk load of a session that fills an empty store
        (kg.streamload); False where they must be written the usual way."""
        session = self._session
        if session is None or session.build is None or not session.seen_here():
            return False
        try:
            taken = session.build.take(graphs, additions)
        except (OSError, RuntimeError) as err:
            raise StoreError(f"cannot write to the store: {reason(err)}") from None
        session.wrote = session.wrote or taken
        return taken

    def _end_stream(self) -> None:
        """End the session's bulk load, if one runs: after this, its store holds all it was given."""
        if self._session is not None:
            self._session.end_stream()

    def remove_graphs(self, graphs: Iterable[NamedNode]) -> None:
        graphs = list(graphs)
        self._touch(graphs)
        with self.transaction():
            graphs = [g for g in graphs if self.has_graph(g)]
            if graphs and self._session is None:
                self._write("update", " ;\n".join(f"DROP SILENT GRAPH {g}" for g in graphs))
                return
            self._drop(graphs)

    def _drop(self, graphs: list[NamedNode]) -> None:
        # one update for many graphs: a remove_graph call each costs 7x as much (a commit each);
        # in chunks, so that one update's transaction stays small in memory
        for start in range(0, len(graphs), DROP_CHUNK):
            self._write("update", " ;\n".join(f"DROP SILENT GRAPH {g}" for g in graphs[start:start + DROP_CHUNK]))

    def _bulk_extend(self, parts: list[Sequence[Quad]]) -> None:
        """Add the quads of ``parts`` (graphs' quads, and others) through the bulk loader."""
        # pyoxigraph's bulk loader is not transactional on its own; on disk it writes into
        # the session's new generation, which a failure throws away whole. In memory it is
        # used only on graphs that did not exist before.
        count = sum(len(part) for part in parts)
        # A few quads go in one transaction, but not in a build: there a write waits while
        # RocksDB merges the many level-0 files the build's load left (at 45,600 records the
        # description's 317 quads waited 100 s), and files the loader writes do not wait.
        build = self._session.build if self._session is not None else None
        if count <= TRANSACTION_MAX and build is None:
            self._write("extend", [q for part in parts for q in part])
            return
        # As N-Quads text the loader parses and writes without holding the GIL (``bulk_extend``
        # holds it while it reads the Python quads), so a caller's thread can map the next
        # records meanwhile. The parser renames blank nodes: quads with one keep ``bulk_extend``.
        text = nquads.text(parts)
        nquads.forget(parts)  # the joined text is the one the loader reads
        if build is not None:
            build.loaded += count
        if b"_:" in text:
            self._write("bulk_extend", [q for part in parts for q in part])
        else:  # kg's own text, from terms pyoxigraph checked when they were made: see streamload.LENIENT
            self._write("bulk_load", text, RdfFormat.N_QUADS, lenient=streamload.LENIENT)

    def add(self, quads: Iterable[Quad]) -> None:
        """Add quads in one transaction (all or nothing); in a build whose one bulk load still
        runs, they join it (the session is the transaction)."""
        self._add("extend", list(quads))

    def add_bulk(self, quads: Iterable[Quad]) -> None:
        """Add many quads through the bulk loader: fast; on disk all or nothing with the
        session (in memory, a failure part-way can leave part of them written); like ``add``,
        they join the running bulk load of a build (a build's changeset: every record added)."""
        self._add("bulk_extend", list(quads))

    def _add(self, method: str, quads: list[Quad]) -> None:
        """Hand ``quads`` to a build's running load, else to the pyoxigraph write ``method``."""
        self._touch_quads(quads)
        with self.transaction():
            if not self._stream({}, quads):
                self._write(method, quads)

    def remove(self, quads: Iterable[Quad]) -> None:
        """Remove these quads (those the store lacks are ignored), in one transaction."""
        quads = list(quads)
        if not quads:
            return
        self._touch_quads(quads)
        with self.transaction():
            for quad in quads:
                self._write("remove", quad)

    def compact(self) -> None:
        """Merge the files of the version being written before it becomes current: reads of
        a bulk-loaded RocksDB store check many overlapping files, and after a compaction the
        named queries run 2-3x faster on disk. About a second for the bundled catalog, so it
        is done when a session fills an empty store (a build) and on request (``kg ingest
        --compact``); small updates leave it to RocksDB. In memory it does nothing."""
        if self._session is not None:
            self._session.compact = True

    def backup(self, folder: str | os.PathLike) -> None:
        """Write a consistent snapshot of the version this handle reads into ``folder``
        (which must not exist). RocksDB hard-links its files, so this takes milliseconds."""
        if self.path is None:
            raise StoreError("an in-memory store has no snapshot on disk")
        try:
            self._view().backup(str(folder))
        except (OSError, RuntimeError) as err:
            raise StoreError(f"cannot snapshot the store into {folder}: {reason(err)}") from None

    def update(self, text: str) -> None:
        """Run a SPARQL Update built by kg itself (terms serialised, never pasted)."""
        self._touch(graphs_written(text))
        self._write("update", text)

    def _touch(self, graphs: Iterable[Any] | None) -> None:
        if self._session is not None:
            self._session.changes.graphs(graphs)

    def _touch_quads(self, quads: list[Quad]) -> None:
        if self._session is not None:
            self._session.changes.quads(quads)

    def written_subjects(self, graph: Any) -> set[Any] | None:
        """The subjects of the quads this session merged into or removed from ``graph``, when that is
        all it did to it; None when it replaced, dropped or updated the graph (or outside a session)."""
        return self._session.changes.subjects(graph) if self._session is not None else None

    def written_graphs(self) -> set[Any] | None:
        """The graphs this write session has written so far (removed, replaced or added to);
        None outside a session, in memory, or after a write whose graphs cannot be told
        (a SPARQL Update that writes into a graph named by a variable, for instance)."""
        session = self._session
        if session is None or not session.seen_here():
            return None
        return session.changes.written()

    def previous(self) -> "GraphStore | None":
        """Inside a write session: a read-only view of the version the session started
        from (what the store held before its writes); None outside a session or in memory."""
        session = self._session
        if session is None or session.base is None or not session.seen_here():
            return None
        view = GraphStore.__new__(GraphStore)
        view.path, view.read_only, view.generation, view._stamp = None, True, self.generation, None
        view._session, view._reader, view._retired = None, None, []
        view._store = session.base
        return view

    def graph_size(self, graph: Any) -> int:
        """How many quads ``graph`` holds (a named graph, or ``DefaultGraph()``), counted in the store."""
        if isinstance(graph, DefaultGraph):
            return sum(1 for _ in self.match(None, None, None, graph))
        result = self.query("SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }", {"g": graph}, union=False)
        assert isinstance(result, QuerySolutions)
        return int(next(iter(result))["n"].value)

    def flush(self) -> None:
        """Write what the session holds in memory to its files (a finished session does this itself)."""
        self._end_stream()
        if self._session is not None and self._session.store is not None:
            self._session.store.flush()

    def _view(self) -> Store:
        """The store to read: the session's, in the thread that writes it; else the current version."""
        session = self._session
        if session is not None and session.store is not None and session.seen_here():
            self._end_stream()  # a read sees everything written so far
            return session.store
        return self._store

    # -- reading ------------------------------------------------------------

    def has_graph(self, graph: NamedNode) -> bool:
        return self._read(self._view().contains_named_graph, graph)

    def named_graphs(self) -> list[NamedNode]:
        # kg names its graphs with IRIs; a blank-node graph name (from a loaded TriG
        # file) sorts and reads (``.value``) the same way
        graphs = cast(list[NamedNode], self._read(lambda: list(self._view().named_graphs())))
        return sorted(graphs, key=lambda g: g.value)

    def quads(self, graph: NamedNode | DefaultGraph | None = None) -> Iterator[Quad]:
        return self.match(None, None, None, graph)

    def match(self, subject: Any = None, predicate: Any = None, object: Any = None,
              graph: Any = None) -> Iterator[Quad]:
        """Quads matching a pattern (``None`` matches anything)."""
        store = self._view()
        return self._checked(store.quads_for_pattern(subject, predicate, object, graph), store)

    def contains(self, subject: Any = None, predicate: Any = None, object: Any = None,
                 graph: Any = None) -> bool:
        """Whether any quad matches the pattern."""
        return next(iter(self.match(subject, predicate, object, graph)), None) is not None

    def __len__(self) -> int:
        return self._read(self._view().__len__)

    def _read(self, action: Any, *args: Any) -> Any:
        try:
            return action(*args)
        except (OSError, RuntimeError) as err:
            raise StoreError(f"cannot read the store: {reason(err)}") from None

    def _checked(self, items: Iterable[Any], store: Store) -> Iterator[Any]:
        """``items`` (read from ``store``, held while iterating), a storage fault while
        iterating raised as StoreError."""
        try:
            yield from items
        except (OSError, RuntimeError) as err:
            raise StoreError(f"cannot read the store: {reason(err)}") from None

    def query(self, sparql: str, bindings: Mapping[str, Any] | None = None, *,
              union: bool = True, default_graph: Any = None, named_graphs: Any = None,
              options: Mapping[str, Any] | None = None) -> QuerySolutions | QueryBoolean | QueryTriples:
        """Run a SPARQL query with values bound to variables (never pasted into the text).

        ``bindings`` maps variable names to IRIs or literals, bound as constants throughout
        the query (:func:`kg.sparql.binding.bind`). With ``union`` the default graph is
        the union of all graphs; a query's own dataset (FROM / FROM NAMED, or
        ``default_graph`` / ``named_graphs`` here) replaces it. ``options`` go to
        pyoxigraph's ``Store.query`` as they are (``base_iri``, ``custom_functions``).
        """
        return self._query(self._view(), sparql, bindings, union=union, default_graph=default_graph,
                           named_graphs=named_graphs, options=options)

    def _query(self, store: Store, sparql: str, bindings: Mapping[str, Any] | None = None, *,
               union: bool = True, default_graph: Any = None, named_graphs: Any = None,
               options: Mapping[str, Any] | None = None) -> QuerySolutions | QueryBoolean | QueryTriples:
        text = bind(sparql, bindings) if bindings else sparql
        kwargs: dict[str, Any] = dict(options or {})
        if default_graph is not None or named_graphs is not None:
            if default_graph is not None:
                kwargs["default_graph"] = default_graph
            if named_graphs is not None:
                kwargs["named_graphs"] = named_graphs
        elif not has_keyword(text, "FROM"):
            # pyoxigraph lets use_default_graph_as_union override a query's FROM clauses
            kwargs["use_default_graph_as_union"] = union
        try:
            return store.query(text, **kwargs)
        except SyntaxError as err:
            raise QueryError(f"malformed SPARQL: {err}") from None
        except (RuntimeError, ValueError, OSError) as err:
            if is_storage_fault(err):
                raise StoreError(f"cannot read the store: {reason(err)}") from None
            raise QueryError(str(err)) from None

    def select(self, sparql: str, bindings: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """SELECT rows as dicts of variable name -> term (unbound variables left out)."""
        store = self._view()  # held while the rows are read
        result = self._query(store, sparql, bindings)
        if not isinstance(result, QuerySolutions):
            raise QueryError("expected a SELECT query")
        names = [v.value for v in result.variables]
        try:  # a row read by position: by name, pyoxigraph looks each variable up again
            return [{n: v for n, v in zip(names, row) if v is not None} for row in result]
        except (RuntimeError, OSError) as err:
            if is_storage_fault(err):
                raise StoreError(f"cannot read the store: {reason(err)}") from None
            raise QueryError(str(err)) from None

    def count(self, sparql: str, bindings: Mapping[str, Any] | None = None) -> int:
        """The integer in the first column of the first row."""
        rows = self.select(sparql, bindings)
        if not rows:
            return 0
        return int(next(iter(rows[0].values())).value)

    def dump(self, output: Any, fmt: str, *, graph: NamedNode | None = None,
             prefixes: Mapping[str, str] | None = None) -> Any:
        """Serialise the whole dataset (or one graph) in ``fmt`` (a key of FORMATS)."""
        kwargs: dict[str, Any] = {"format": FORMATS[fmt]}
        if graph is not None:
            kwargs["from_graph"] = graph
        elif not FORMATS[fmt].supports_datasets:
            kwargs["from_graph"] = DefaultGraph()
        if prefixes and fmt in ("turtle", "trig"):
            kwargs["prefixes"] = dict(prefixes)
        return self._read(lambda: self._view().dump(output, **kwargs))


def transactional(function: Callable[..., T]) -> Callable[..., T]:
    """Decorator: run ``function(store, ...)`` in one write session of ``store`` (its
    first argument), so that readers see all of its writes or none of them."""
    @functools.wraps(function)
    def in_one_session(store: GraphStore, *args: Any, **kwargs: Any) -> T:
        with store.transaction():
            return function(store, *args, **kwargs)
    return in_one_session


def literal_text(term: Any) -> str:
    """The lexical value of a term, for display."""
    if isinstance(term, (Literal, NamedNode)):
        return term.value
    return str(term)
