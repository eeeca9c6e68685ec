"""GraphStore, the store's one public class: it reads through a handle on one version (``_handle``)
and hands every write to the open write session (``_session``), or in memory to direct writes
(``_writes``).

>>> from pyoxigraph import NamedNode, Literal, Quad
>>> store = GraphStore()
>>> g = NamedNode("https://example.org/g")
>>> store.add([Quad(g, g, Literal("v"), g)])
>>> store.count("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"), store.has_graph(g)
(1, True)
"""

from __future__ import annotations

import functools
import os
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence, TypeVar, cast

from pyoxigraph import DefaultGraph, Literal, NamedNode, Quad, QuerySolutions, RdfFormat, Store

from ..errors import StoreError, safe_text
from ..rdffiles import RDF_FORMATS
from . import _generations as generations
from ._faults import reason
from ._handle import ReadHandle, current_generation, require_existing
from ._reading import Result, checked, read, run_query, select_rows
from ._session import Session
from ._writes import Writes

DEFAULT_STORE = "kg-store"
MEMORY = ":memory:"  # the path of an in-memory store
T = TypeVar("T")

FORMATS: dict[str, RdfFormat] = RDF_FORMATS  # the one table of RDF formats (kg.rdffiles)


def default_store_path() -> str:
    """The store directory: ``KG_STORE`` when set, else ./kg-store."""
    return os.environ.get("KG_STORE") or DEFAULT_STORE


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
        folder = Path(path) if path is not None and str(path) != MEMORY else None
        handle = ReadHandle.open(folder, read_only) if folder is not None else ReadHandle.in_memory()
        self._adopt(handle, read_only)

    def _adopt(self, handle: ReadHandle, read_only: bool) -> None:
        """Read through ``handle`` (a new handle, or a view's)."""
        self.path = handle.folder
        self.read_only = read_only
        self._handle = handle
        self._session: Session | None = None
        # in memory, writes apply directly to the one store
        self._direct = Writes(handle.store) if handle.folder is None else None

    @classmethod
    def _viewing(cls, handle: ReadHandle) -> "GraphStore":
        """A read-only GraphStore that reads through ``handle``."""
        view = cls.__new__(cls)
        view._adopt(handle, True)
        return view

    @classmethod
    def open_existing(cls, path: str | os.PathLike, *, read_only: bool = False) -> "GraphStore":
        """Open a store that must already exist (reading commands never create one)."""
        require_existing(Path(path))
        return cls(path, read_only=read_only)

    @staticmethod
    def latest_generation(path: str | os.PathLike) -> int:
        """The number of the store's current generation (0 for a store from before
        generations): one small file read, cheap enough to poll."""
        return current_generation(Path(path))

    @staticmethod
    def pointer_stamp(path: str | os.PathLike) -> tuple[int, int, int, int] | None:
        """What changes whenever a version of the store at ``path`` becomes current (the stat of
        its pointer file), from one stat: cheap enough to ask before every request; None when
        the store has no pointer (a store from before generations, or none)."""
        return generations.pointer_stamp(Path(path))

    @staticmethod
    def current_version(path: str | os.PathLike) -> tuple[str, float]:
        """The current version of the store at ``path`` as its pointer names it (a text) and the
        time it became current (a store from before generations: ``legacy-...`` and its folder's
        time); what an HTTP validator of its answers is made from."""
        return generations.pointer_version(Path(path))

    @property
    def version_key(self) -> tuple | None:
        """What names the version this handle reads while it cannot change, for caches of what
        is worked out from it: its generation's folder with that folder's identity on disk (a
        store removed and built again at the same path reuses the folder name); None in memory,
        inside a write session, or for a store from before generations (changed in place)."""
        folder = self.version_folder
        if folder is None or not self.generation:
            return None
        try:
            found = os.stat(folder)
        except OSError:
            return None
        return str(folder), found.st_dev, found.st_ino, found.st_mtime_ns

    # -- the version read ---------------------------------------------------

    @property
    def generation(self) -> int:
        """The number of the generation this handle reads (0 in memory or for a plain old store)."""
        return self._handle.generation

    def is_stale(self) -> bool:
        """Whether a newer version than the one this handle reads has become current.

        One stat of the pointer file while it is unchanged (the file is read only when
        its stat differs), so a server can ask before every request. Also lets go of
        earlier versions that no pinned handle reads any more (see :meth:`pinned`)."""
        if self._session is not None:
            return False
        return self._handle.is_stale()

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
        return GraphStore._viewing(self._handle.pinned())

    def reopen(self) -> bool:
        """Read the current version from now on, if a newer one exists; True if it did."""
        if self._session is not None:
            return False
        return self._handle.reopen()

    @property
    def version_folder(self) -> Path | None:
        """The folder of the version this handle reads (None in memory or inside a
        session). It stays whole while this handle is open (its reader lock), so worker
        processes can open it read-only and read exactly this version."""
        return None if self._session is not None else self._handle.version_folder

    # -- write sessions -----------------------------------------------------

    @contextmanager
    def helping(self) -> Iterator["GraphStore"]:
        """Inside the block, the calling thread (a writer thread of the session's own) reads and
        writes the open write session as the thread that began it does: without this, its reads
        would see the version before the session (a record written twice in one ingest would keep
        both versions' quads). Outside a session, nothing changes."""
        if self._session is None:
            yield self
            return
        with self._session.lent():
            yield self

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
        self._handle.migrate_if_legacy()
        self._session = Session.begin(self.path, (self._handle.generation, self._handle.store))

    def _commit(self) -> None:
        session = self._session
        assert session is not None and self.path is not None
        try:
            committed = session.commit(self.path)  # a failed commit throws the generation away
        finally:
            self._session = None
        if not committed:
            return
        try:
            self._handle.open_current()
            session.clean_up(self.path)
        finally:
            session.release()

    def _abort(self) -> None:
        session, self._session = self._session, None
        assert session is not None and self.path is not None
        session.discard(self.path)

    def _writes(self) -> Writes:
        """Where a write goes (inside ``transaction``): the open session, or in memory the store itself."""
        writes = self._session if self._session is not None else self._direct
        assert writes is not None  # on disk, a write runs in a session (see transaction)
        return writes

    # -- writing ------------------------------------------------------------

    def replace_graphs(self, graphs: Mapping[NamedNode, Sequence[Quad]], additions: Iterable[Quad] = ()) -> None:
        """In one transaction: swap in every graph of ``graphs`` (old content removed)
        and add ``additions`` (quads of graphs that are merged into, not replaced)."""
        additions = list(additions)
        with self.transaction():
            self._writes().replace_graphs(graphs, additions)

    def remove_graphs(self, graphs: Iterable[NamedNode]) -> None:
        """Drop these graphs (those the store lacks are ignored), in one transaction."""
        graphs = list(graphs)
        with self.transaction():
            self._writes().remove_graphs(graphs)

    def add(self, quads: Iterable[Quad]) -> None:
        """Add quads in one transaction (all or nothing); in a build whose one bulk load still
        runs, they join it (the session is the transaction)."""
        quads = list(quads)
        with self.transaction():
            self._writes().add("extend", quads)

    def add_bulk(self, quads: Iterable[Quad]) -> None:
        """Add many quads through the bulk loader: fast; on disk all or nothing with the
        session (in memory, a failure part-way can leave part of them written); like ``add``,
        they join the running bulk load of a build (a build's changeset: every record added)."""
        quads = list(quads)
        with self.transaction():
            self._writes().add("bulk_extend", quads)

    def remove(self, quads: Iterable[Quad]) -> None:
        """Remove these quads (those the store lacks are ignored), in one transaction."""
        quads = list(quads)
        if not quads:
            return
        with self.transaction():
            self._writes().remove(quads)

    def update(self, text: str) -> None:
        """Run a SPARQL Update built by kg itself (terms serialised, never pasted)."""
        with self.transaction():
            self._writes().update(text)

    def compact(self) -> None:
        """Merge the files of the version being written before it becomes current: reads of
        a bulk-loaded RocksDB store check many overlapping files, and after a compaction the
        named queries run 2-3x faster on disk. About a second for the bundled catalog, so it
        is done when a session fills an empty store (a build) and on request (``kg ingest
        --compact``); small updates leave it to RocksDB. In memory it does nothing."""
        if self._session is not None:
            self._session.ask_compaction()

    def flush(self) -> None:
        """Write what the session holds in memory to its files (a finished session does this itself)."""
        if self._session is not None:
            self._session.flush()

    def backup(self, folder: str | os.PathLike) -> None:
        """Write a consistent snapshot of the version this handle reads into ``folder``
        (which must not exist). RocksDB hard-links its files, so this takes milliseconds."""
        if self.path is None:
            raise StoreError("an in-memory store has no snapshot on disk")
        try:
            self._view().backup(str(folder))
        except (OSError, RuntimeError) as err:
            raise StoreError(f"cannot snapshot the store into {folder}: {reason(err)}") from None

    # -- what a session wrote -----------------------------------------------

    def written_subjects(self, graph: Any) -> set[Any] | None:
        """The subjects of the quads this session merged into or removed from ``graph``, when that is
        all it did to it; None when it replaced, dropped or updated the graph (or outside a session)."""
        return self._session.written_subjects(graph) if self._session is not None else None

    def written_graphs(self) -> set[Any] | None:
        """The graphs this write session has written so far (removed, replaced or added to);
        None outside a session, in memory, or after a write whose graphs cannot be told
        (a SPARQL Update that writes into a graph named by a variable, for instance)."""
        return self._session.written_graphs() if self._session is not None else None

    def previous(self) -> "GraphStore | None":
        """Inside a write session: a read-only view of the version the session started
        from (what the store held before its writes); None outside a session or in memory."""
        base = self._session.previous_version() if self._session is not None else None
        return None if base is None else GraphStore._viewing(ReadHandle.on(base, self.generation))

    # -- reading ------------------------------------------------------------

    def _view(self) -> Store:
        """The store to read: the session's, in the thread that writes it; else the current version."""
        session = self._session.reading_store() if self._session is not None else None
        return session if session is not None else self._handle.store

    def has_graph(self, graph: NamedNode) -> bool:
        return read(self._view().contains_named_graph, graph)

    def named_graphs(self) -> list[NamedNode]:
        # kg names its graphs with IRIs; a blank-node graph name (from a loaded TriG
        # file) sorts and reads (``.value``) the same way
        graphs = cast(list[NamedNode], read(lambda: list(self._view().named_graphs())))
        return sorted(graphs, key=lambda g: g.value)

    def graph_size(self, graph: Any) -> int:
        """How many quads ``graph`` holds (a named graph, or ``DefaultGraph()``), counted in the store."""
        if isinstance(graph, DefaultGraph):
            return sum(1 for _ in self.match(None, None, None, graph))
        result = self.query("SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }", {"g": graph}, union=False)
        assert isinstance(result, QuerySolutions)
        return int(next(iter(result))["n"].value)

    def quads(self, graph: NamedNode | DefaultGraph | None = None) -> Iterator[Quad]:
        return self.match(None, None, None, graph)

    def match(self, subject: Any = None, predicate: Any = None, object: Any = None,
              graph: Any = None) -> Iterator[Quad]:
        """Quads matching a pattern (``None`` matches anything)."""
        store = self._view()
        return checked(store.quads_for_pattern(subject, predicate, object, graph), store)

    def contains(self, subject: Any = None, predicate: Any = None, object: Any = None,
                 graph: Any = None) -> bool:
        """Whether any quad matches the pattern."""
        return next(iter(self.match(subject, predicate, object, graph)), None) is not None

    def __len__(self) -> int:
        return read(self._view().__len__)

    def query(self, sparql: str, bindings: Mapping[str, Any] | None = None, *,
              union: bool = True, default_graph: Any = None, named_graphs: Any = None,
              options: Mapping[str, Any] | None = None) -> Result:
        """Run a SPARQL query with values bound to variables (never pasted into the text).

        ``bindings`` maps variable names to IRIs or literals, bound as constants throughout
        the query (:func:`kg.sparql.binding.bind`). With ``union`` the default graph is
        the union of all graphs; a query's own dataset (FROM / FROM NAMED, or
        ``default_graph`` / ``named_graphs`` here) replaces it. ``options`` go to
        pyoxigraph's ``Store.query`` as they are (``base_iri``, ``custom_functions``).
        """
        return run_query(self._view(), sparql, bindings, union=union, default_graph=default_graph,
                         named_graphs=named_graphs, options=options)

    def select(self, sparql: str, bindings: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """SELECT rows as dicts of variable name -> term (unbound variables left out)."""
        return select_rows(self._view(), sparql, bindings)

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
        return read(lambda: self._view().dump(output, **kwargs))


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
