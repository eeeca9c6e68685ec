"""The quad store: quads in, SPARQL out. Knows nothing of records.

``GraphStore`` wraps an embedded pyoxigraph store, on disk (the default for the
CLI) or in memory. Graph replacement is atomic: a batch of named graphs is
swapped in a single transaction, so a crash leaves each graph either old or new.

>>> from pyoxigraph import NamedNode, Literal, Quad
>>> store = GraphStore()           # in memory
>>> g = NamedNode("https://example.org/g")
>>> store.replace_graphs({g: [Quad(g, NamedNode("https://example.org/p"), Literal("v"), g)]})
>>> [row["o"].value for row in store.select("SELECT ?o WHERE { ?s ?p ?o }")]
['v']
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

from pyoxigraph import (
    DefaultGraph, Literal, NamedNode, Quad, QueryBoolean, QuerySolutions, QueryTriples, RdfFormat,
    Store,
)

from .errors import QueryError, StoreError

DEFAULT_STORE = "kg-store"

FORMATS: dict[str, RdfFormat] = {
    "turtle": RdfFormat.TURTLE,
    "ntriples": RdfFormat.N_TRIPLES,
    "nquads": RdfFormat.N_QUADS,
    "trig": RdfFormat.TRIG,
    "jsonld": RdfFormat.JSON_LD,
    "rdfxml": RdfFormat.RDF_XML,
}


def default_store_path() -> str:
    """The store directory: ``KG_STORE`` when set, else ./kg-store."""
    return os.environ.get("KG_STORE") or DEFAULT_STORE


class GraphStore:
    """An embedded RDF dataset with atomic named-graph replacement and bound SPARQL."""

    def __init__(self, path: str | os.PathLike | None = None, *, read_only: bool = False) -> None:
        self.path = Path(path) if path is not None else None
        try:
            if path is None:
                self._store = Store()
            elif read_only:
                self._store = Store.read_only(str(path))
            else:
                self._store = Store(str(path))
        except OSError as err:
            raise StoreError(f"cannot open store {path}: {err}") from None

    @classmethod
    def open_existing(cls, path: str | os.PathLike, *, read_only: bool = False) -> "GraphStore":
        """Open a store that must already exist (reading commands never create one)."""
        if not Path(path).is_dir():
            raise StoreError(f"no store at {path}: run 'kg build' or 'kg ingest' first (or pass --store)")
        return cls(path, read_only=read_only)

    # -- writing ------------------------------------------------------------

    def replace_graphs(self, graphs: Mapping[NamedNode, list[Quad]], additions: Iterable[Quad] = ()) -> None:
        """In one transaction: swap in every graph of ``graphs`` (old content removed)
        and add ``additions`` (quads of graphs that are merged into, not replaced)."""
        existing = [g for g in graphs if self.has_graph(g)]
        if not existing:
            # Fast path: nothing to remove, one atomic bulk insert.
            self._bulk_extend([q for quads in graphs.values() for q in quads] + list(additions))
            return
        self._update(_replace_update(graphs, existing, list(additions)))

    def remove_graphs(self, graphs: Iterable[NamedNode]) -> None:
        graphs = [g for g in graphs if self.has_graph(g)]
        if graphs:
            self._update(" ;\n".join(f"DROP SILENT GRAPH {g}" for g in graphs))

    def _bulk_extend(self, quads: list[Quad]) -> None:
        # pyoxigraph documents atomicity for ``extend`` (one transaction) only; its
        # ``bulk_extend`` loader commits at its end, and a failure part-way can leave
        # part of it written. It is used here only on graphs that did not exist before.
        try:
            self._store.bulk_extend(quads) if len(quads) > 2000 else self._store.extend(quads)
        except OSError as err:
            raise StoreError(f"cannot write to the store: {err}") from None

    def add(self, quads: Iterable[Quad]) -> None:
        """Add quads in one transaction (all or nothing)."""
        try:
            self._store.extend(quads)
        except OSError as err:
            raise StoreError(f"cannot write to the store: {err}") from None

    def add_bulk(self, quads: Iterable[Quad]) -> None:
        """Add many quads through the bulk loader: fast, but not transactional (a
        failure part-way can leave part of them written)."""
        try:
            self._store.bulk_extend(quads)
        except OSError as err:
            raise StoreError(f"cannot write to the store: {err}") from None

    def backup(self, folder: str | os.PathLike) -> None:
        """Write a consistent snapshot of the on-disk store into ``folder`` (which must
        not exist). RocksDB hard-links its files, so this takes milliseconds."""
        if self.path is None:
            raise StoreError("an in-memory store has no snapshot on disk")
        try:
            self._store.backup(str(folder))
        except OSError as err:
            raise StoreError(f"cannot snapshot the store into {folder}: {err}") from None

    def _update(self, text: str) -> None:
        try:
            self._store.update(text)
        except OSError as err:
            raise StoreError(f"cannot write to the store: {err}") from None

    def update(self, text: str) -> None:
        """Run a SPARQL Update built by kg itself (terms serialised, never pasted)."""
        self._update(text)

    def flush(self) -> None:
        if self.path is not None:
            self._store.flush()

    # -- reading ------------------------------------------------------------

    def has_graph(self, graph: NamedNode) -> bool:
        return self._store.contains_named_graph(graph)

    def named_graphs(self) -> list[NamedNode]:
        return sorted(self._store.named_graphs(), key=lambda g: g.value)

    def quads(self, graph: NamedNode | DefaultGraph | None = None) -> Iterator[Quad]:
        return self._store.quads_for_pattern(None, None, None, graph)

    def match(self, subject: Any = None, predicate: Any = None, object: Any = None,
              graph: Any = None) -> Iterator[Quad]:
        """Quads matching a pattern (``None`` matches anything)."""
        return self._store.quads_for_pattern(subject, predicate, object, graph)

    def contains(self, subject: Any = None, predicate: Any = None, object: Any = None,
                 graph: Any = None) -> bool:
        """Whether any quad matches the pattern."""
        return next(iter(self.match(subject, predicate, object, graph)), None) is not None

    def __len__(self) -> int:
        return len(self._store)

    def query(self, sparql: str, bindings: Mapping[str, Any] | None = None, *,
              union: bool = True, default_graph: Any = None,
              named_graphs: Any = None) -> QuerySolutions | QueryBoolean | QueryTriples:
        """Run a SPARQL query with values bound to variables (never pasted into the text).

        With ``union`` the default graph is the union of all named graphs; a query's
        own dataset (FROM / FROM NAMED, given as ``default_graph`` / ``named_graphs``)
        replaces it.
        """
        text = bind_values(sparql, bindings) if bindings else sparql
        kwargs: dict[str, Any] = {}
        if default_graph is not None or named_graphs is not None:
            if default_graph is not None:
                kwargs["default_graph"] = default_graph
            if named_graphs is not None:
                kwargs["named_graphs"] = named_graphs
        else:
            kwargs["use_default_graph_as_union"] = union
        try:
            return self._store.query(text, **kwargs)
        except SyntaxError as err:
            raise QueryError(f"malformed SPARQL: {err}") from None
        except (RuntimeError, ValueError) as err:
            raise QueryError(str(err)) from None

    def select(self, sparql: str, bindings: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """SELECT rows as dicts of variable name -> term (unbound variables left out)."""
        result = self.query(sparql, bindings)
        if not isinstance(result, QuerySolutions):
            raise QueryError("expected a SELECT query")
        names = [v.value for v in result.variables]
        return [{n: row[n] for n in names if row[n] is not None} for row in result]

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
        return self._store.dump(output, **kwargs)


_VARIABLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _where_brace(sparql: str) -> int:
    """Index of the opening brace of the query's top-level WHERE group, or -1.

    Skips comments, strings and IRIs, and a CONSTRUCT template.
    """
    i, depth, last_word, form = 0, 0, "", ""
    n = len(sparql)
    while i < n:
        ch = sparql[i]
        if ch == "#":
            i = sparql.find("\n", i)
            i = n if i < 0 else i
            continue
        if ch in "\"'":
            quote = ch * 3 if sparql.startswith(ch * 3, i) else ch
            j = i + len(quote)
            while j < n and not sparql.startswith(quote, j):
                j += 2 if sparql[j] == "\\" else 1
            i = j + len(quote)
            continue
        if ch == "<" and depth == 0:
            j = sparql.find(">", i)
            if j > 0 and not any(c in sparql[i + 1:j] for c in " \n{}"):
                i = j + 1
                continue
        if ch.isalpha() or ch == "_":
            m = _WORD.match(sparql, i)
            word = m.group(0).upper()
            if not form and word in ("SELECT", "ASK", "CONSTRUCT", "DESCRIBE"):
                form = word
            if sparql[i - 1:i] not in ("?", "$", ":"):
                last_word = word
            i = m.end()
            continue
        if ch == "{":
            if depth == 0 and (last_word == "WHERE" or form in ("SELECT", "ASK")):
                return i
            depth += 1
        elif ch == "}":
            depth -= 1
        i += 1
    return -1


def bind_values(sparql: str, bindings: Mapping[str, Any]) -> str:
    """``sparql`` with a VALUES block binding ``bindings`` at the top of its WHERE group.

    Terms are written by pyoxigraph's serialiser (``str(term)``), which escapes them,
    so a parameter value can never change the query's structure.

    >>> from pyoxigraph import Literal
    >>> print(bind_values('SELECT ?s WHERE { ?s ?p ?name }', {"name": Literal('x" } ; DROP ALL #')}))
    SELECT ?s WHERE { VALUES (?name) { ("x\\" } ; DROP ALL #") } ?s ?p ?name }
    """
    for name, term in bindings.items():
        if not _VARIABLE.match(name):
            raise QueryError(f"not a SPARQL variable name: {name!r}")
        if not isinstance(term, (NamedNode, Literal)):
            raise QueryError(f"parameter {name}: expected an IRI or a literal, got {type(term).__name__}")
    at = _where_brace(sparql)
    if at < 0:
        raise QueryError("cannot bind parameters: the query has no WHERE group")
    names = " ".join(f"?{name}" for name in bindings)
    values = " ".join(str(term) for term in bindings.values())
    return f"{sparql[:at + 1]} VALUES ({names}) {{ ({values}) }}{sparql[at + 1:]}"


def _replace_update(graphs: Mapping[NamedNode, list[Quad]], existing: list[NamedNode],
                    additions: list[Quad]) -> str:
    """One SPARQL Update dropping ``existing`` and inserting ``graphs`` and ``additions``.

    Terms are written by pyoxigraph's own serialiser (``str(term)``), which escapes
    them: no value is pasted into the update as raw text.
    """
    parts = [f"DROP SILENT GRAPH {g}" for g in existing]
    grouped: dict[NamedNode, list[Quad]] = {g: list(q) for g, q in graphs.items()}
    for quad in additions:
        grouped.setdefault(quad.graph_name, []).append(quad)
    body = []
    for graph, quads in grouped.items():
        if quads:
            triples = "\n".join(f"{q.subject} {q.predicate} {q.object} ." for q in quads)
            body.append(f"GRAPH {graph} {{\n{triples}\n}}")
    if body:
        parts.append("INSERT DATA {\n" + "\n".join(body) + "\n}")
    return " ;\n".join(parts)


def literal_text(term: Any) -> str:
    """The lexical value of a term, for display."""
    if isinstance(term, (Literal, NamedNode)):
        return term.value
    return str(term)
