"""Named SPARQL queries from queries/*.rq, with typed parameters that are bound, never pasted.

Each file starts with a comment header::

    # title: Systems with MCP support
    # question: Which systems support MCP natively, via an adapter or as a client?
    # param: tier (integer, optional) only systems of this tier
    # param: limit (limit, optional, default=50) at most this many rows
    # returns: id, name, tier

A query that must read the whole catalog whatever it is asked says so in a ``# cost:``
line, with what it was measured to take; the listing, the pages and the MCP tools show it.

Below the header is plain SPARQL 1.1 with its PREFIX lines, meant for a dataset whose
default graph is the union of its named graphs. A parameter is an ordinary variable of
the query. Its value, given as text, is checked against the declared type, turned into
an RDF term, serialised by pyoxigraph (which escapes it) and bound as a constant
throughout the query (:func:`kg.sparql.binding.bind`); a value can never change the
structure of the query.

A query file that is not one of the bundled queries is checked by the guard
(:func:`kg.sparql.guard.check_query`) before it runs: no SERVICE, no remote FROM.

A ``limit`` parameter caps the number of rows returned. A query whose text uses the
variable as well gets the cap bound there as an ``xsd:integer``, so that it can leave out
early what the cap would drop (``changes`` does); a query run without kg sees it unbound.

Parameter types: ``string``, ``integer``, ``decimal``, ``boolean``, ``date``, ``iri``,
``period`` (YYYY, YYYY-Qn, YYYY-MM, YYYY-MM-DD or an ISO timestamp, bound as the
``xsd:date`` of its first day), ``id`` (a catalog id, bound as text), ``system`` (a catalog
id, bound as the system's IRI), ``system-name`` (an id or words of one system's name,
resolved to that system's IRI), ``vendor`` (text that some vendor's key or name contains,
bound folded) and ``limit``; the options of a ``# param:`` line are :mod:`kg.parameters`'.
Before a query runs, every ``id``, ``system``, ``system-name`` and ``vendor`` value is
checked against the graph (:mod:`kg.lookup`): an unknown system is
:class:`~kg.errors.NotFound`, with close matches, never an empty answer.

One parameter goes one way down (:func:`run`): :func:`prepare` converts the values once
(:mod:`kg.parameters`) and resolves what names systems (:mod:`kg.lookup`); :func:`run`
binds the terms (:mod:`kg.sparql.binding`) and sends the text to the store.

>>> q = load("info")
>>> q.name, bool(q.title)
('info', True)
>>> [p.name for p in load("search").params]
['text', 'section', 'tier', 'limit']
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Mapping

from pyoxigraph import QueryBoolean, QuerySolutions, QueryTriples, Variable

from .errors import QueryError, UsageError
from .lookup import resolve_values
from .parameters import (GRAPH_TYPES, PARAM_TYPES, SYSTEM_TYPES, Converted, Param, check_default, convert,
                         limit_value, parse_param, to_term)
from .resources import resource_dir
from .rows import Rows
from .sparql.binding import bind
from .sparql.guard import QueryRefused, check_query
from .sparql.lexer import variables
from .store import GraphStore
from .textindex import ranked_group
from .vocab import Iris

if TYPE_CHECKING:
    from .remote_query import Endpoint

__all__ = ["GRAPH_TYPES", "PARAM_TYPES", "SYSTEM_TYPES", "NamedQuery", "Param", "to_term", "load", "listing",
           "available", "parse", "run", "query", "prepare", "bind_prepared", "bound_text", "row_limit", "bindings"]

QUERIES_DIR = resource_dir("queries")
HEADER_KEYS = ("title", "question", "returns")

_HEADER = re.compile(r"^#\s*(title|question|param|returns|description|cost)\s*:\s*(.*)$", re.IGNORECASE)


@dataclass
class NamedQuery:
    name: str
    path: Path
    text: str
    title: str = ""
    question: str = ""
    returns: str = ""
    params: list[Param] = field(default_factory=list)
    cost: str = ""  # what a query that reads the whole catalog costs, measured (its "# cost:" line)

    @cached_property
    def variables(self) -> frozenset[str]:
        """The names of the query's variables (its text lexed once, not at every run)."""
        return frozenset(variables(self.text))

    @property
    def limit_param(self) -> Param | None:
        return next((p for p in self.params if p.type == "limit"), None)


def parse(text: str, path: Path) -> NamedQuery:
    """The header of a query file (the comment lines before the first SPARQL line)."""
    query = NamedQuery(name=path.stem, path=path, text=text)
    for line in text.splitlines():
        if not line.startswith("#"):
            if line.strip():
                break
            continue
        m = _HEADER.match(line)
        if not m:
            continue
        key, value = m.group(1).lower(), m.group(2).strip()
        if key == "param":
            param = parse_param(value, path.name)
            if any(p.name == param.name for p in query.params):
                raise QueryError(f"{path.name}: parameter {param.name} declared twice")
            query.params.append(param)
        elif key in ("question", "description"):
            query.question = value
        else:
            setattr(query, key, value)
    return query


def header_problems(query: NamedQuery) -> list[str]:
    """What is missing from a query's header (empty when it is complete)."""
    problems = [f"no '# {key}:' line" for key in HEADER_KEYS if not getattr(query, key)]
    problems += [f"parameter {p.name} has no description" for p in query.params if not p.doc]
    if sum(p.type == "limit" for p in query.params) > 1:
        problems.append("more than one limit parameter")
    used = query.variables
    for p in query.params:
        if p.type != "limit" and p.variable not in used:
            problems.append(f"parameter {p.name} is not a variable of the query"
                            + (f" (it binds ?{p.variable})" if p.binds else ""))
        if p.either and p.either not in {o.name for o in query.params}:
            problems.append(f"parameter {p.name}: or={p.either} names no parameter")
        if p.default is not None:
            try:
                check_default(p)
            except QueryError as err:
                problems.append(str(err))
    return problems


def available() -> list[str]:
    """Names of the bundled queries."""
    return sorted(p.stem for p in QUERIES_DIR.glob("*.rq"))


def listing() -> list[NamedQuery]:
    """Every bundled query, parsed (for ``kg query --list``)."""
    return [load(name) for name in available()]


def load(name_or_path: str) -> NamedQuery:
    """A bundled query by name (``search``) or any ``.rq`` file by path."""
    path = Path(name_or_path)
    if not (name_or_path.endswith(".rq") and path.is_file()):
        if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", name_or_path) or name_or_path.endswith(".rq"):
            raise UsageError(f"no query file {name_or_path!r}; known queries: {', '.join(available())}")
        path = QUERIES_DIR / f"{name_or_path}.rq"
    if not path.is_file():
        raise UsageError(f"unknown query {name_or_path!r}; known: {', '.join(available())}")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise UsageError(f"cannot read {path}: {err}") from None
    return parse(text, path)


# ---------------------------------------------------------------------------
# Running


class LimitedSolutions:
    """SELECT results capped at a number of rows; iterates like ``QuerySolutions``."""

    def __init__(self, solutions: QuerySolutions, limit: int) -> None:
        self.variables: list[Variable] = list(solutions.variables)
        self._rows = itertools.islice(solutions, limit)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._rows)


def prepare(select: Any, query: NamedQuery, params: Mapping[str, str] | None = None,
            iris: Iris | None = None) -> Converted:
    """The parameter values of ``query`` made ready to bind, one way down: checked and
    converted (:func:`kg.parameters.convert`), then the values that name systems or
    vendors resolved against the graph (``select``: SPARQL text -> rows; :mod:`kg.lookup`).
    Its ``terms`` are bound by :func:`kg.sparql.binding.bind`; its ``limit`` caps the rows;
    its ``notes`` say what a name several systems share was taken to mean."""
    iris = iris or Iris()
    converted = convert(query.name, query.params, params or {}, iris, query.variables)
    if not converted.pending:
        return converted
    return converted.with_resolved(resolve_values(select, query.name, converted.pending, iris), iris)


def bind_prepared(query: NamedQuery, ready: Converted) -> str:
    """The query's text with the prepared values bound (:func:`prepare`)."""
    return bind(query.text, ready.terms)


_RANKED_MARK = "# -- ranked hits:"
_RANKED = re.compile(rf"^[ \t]*{_RANKED_MARK}.*?^[ \t]*# -- end of the ranked hits --[^\n]*$", re.M | re.S)


def bound(store: "GraphStore | Endpoint", query: NamedQuery, ready: Converted) -> str:
    """The text to send to ``store``: the query with the prepared values bound and, where the
    words index of the store's generation answers the query's ranked hits (search's, between
    its two marker comments: :mod:`kg.textindex`), those hits in their place."""
    text = bind_prepared(query, ready)
    # the marker first: every named query passes here, and only search has ranked hits
    if not (isinstance(store, GraphStore) and _RANKED_MARK in query.text and is_bundled(query)):
        return text
    found = _RANKED.search(text)
    group = None if found is None else ranked_group(store, ready.terms, ready.limit)
    if found is None or group is None:
        return text
    # put in place after binding: the table is data, with nothing in it for the binder to read
    return text[:found.start()] + "  " + group + text[found.end():]


def bindings(query: NamedQuery, values: Mapping[str, str], iris: Iris) -> dict[str, Any]:
    """Typed terms for parameter values that need no graph (ids given as ids)."""
    converted = convert(query.name, query.params, values, iris, query.variables)
    return {**converted.terms, **{param.variable: to_term(param, value, iris) for param, value
                                  in converted.pending.values()}}


def bound_text(query: NamedQuery, params: Mapping[str, str] | None = None, iris: Iris | None = None) -> str:
    """The query's text with its parameters bound (what is sent to the store); a system
    given by name must be given by id here (:func:`prepare` resolves names)."""
    return bind(query.text, bindings(query, params or {}, iris or Iris()))


def row_limit(query: NamedQuery, values: Mapping[str, str]) -> int | None:
    """The row cap asked for with the query's ``limit`` parameter (or its default), if any."""
    param = query.limit_param
    value = None if param is None else values.get(param.name, param.default)
    return None if param is None or value is None else limit_value(param, value)


def is_bundled(query: NamedQuery) -> bool:
    """Whether ``query`` is one of the bundled queries (ours; the guard need not check it)."""
    return query.path.resolve().parent == QUERIES_DIR.resolve()


def check_file(store: GraphStore, query: NamedQuery) -> None:
    """Refuse a user's query file that names SERVICE or a graph ``store`` does not hold
    (pyoxigraph would fetch them), before pyoxigraph sees it; bundled queries pass."""
    if is_bundled(query):
        return
    try:
        check_query(query.text, {g.value for g in store.named_graphs()})
    except QueryRefused as err:
        raise QueryRefused(f"{query.path}: {err}") from None


Result = QuerySolutions | LimitedSolutions | QueryBoolean | QueryTriples


def run(store: "GraphStore | Endpoint", name_or_path: str | NamedQuery, params: Mapping[str, str] | None = None,
        iris: Iris | None = None, *, notes: list[str] | None = None) -> Result:
    """Run a named query (or .rq file, or a loaded query) with its parameters bound.

    Returns pyoxigraph results: SELECT as ``QuerySolutions`` (``LimitedSolutions`` when the
    query has a ``limit`` parameter), ASK as ``QueryBoolean``, CONSTRUCT/DESCRIBE as
    ``QueryTriples``. A query file of the user's is checked by :func:`check_file` first.
    ``store`` may also be a remote :class:`kg.remote_query.Endpoint`: the same bound text is
    sent there and the answer comes back in the same types. What resolving a name chose
    is appended to ``notes`` when given (:func:`prepare`).
    """
    query = name_or_path if isinstance(name_or_path, NamedQuery) else load(name_or_path)
    ready = prepare(store.select, query, params, iris)  # bad values fail before the store is asked
    if notes is not None:
        notes.extend(ready.notes)
    if isinstance(store, GraphStore):
        check_file(store, query)
    result = store.query(bound(store, query, ready))
    if ready.limit is not None and isinstance(result, QuerySolutions):
        return LimitedSolutions(result, ready.limit)
    return result


def query(store: "GraphStore | Endpoint", name_or_path: str | NamedQuery, params: Mapping[str, str] | None = None,
          iris: Iris | None = None) -> Any:
    """Like :func:`run`, with the results in plain Python containers.

    SELECT: :class:`kg.rows.Rows`, a list of rows, each a dict of every column -> a plain
    Python value (``None`` when unbound; the pyoxigraph terms in ``.terms``, what a name
    resolved to in ``.notes``); ASK: a bool; CONSTRUCT/DESCRIBE: a list of distinct
    triples in result order.

    >>> from kg.store import GraphStore
    >>> query(GraphStore(), "sections")
    []
    """
    notes: list[str] = []
    result = run(store, name_or_path, params, iris, notes=notes)
    if isinstance(result, QueryBoolean):
        return bool(result)
    if isinstance(result, QueryTriples):
        return list(dict.fromkeys(result))
    return Rows.of(result.variables, ([row[v] for v in result.variables] for row in result), notes)
