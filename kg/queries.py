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
resolved to that system's IRI) and ``limit``. The option ``choices=a|b`` restricts a value
to a closed set; ``fold`` trims and folds a string (case, white space, accents:
:func:`kg.normalise.fold`) before it is bound. Before a query runs, every ``id``, ``system`` and ``system-name`` value is
checked against the graph (:mod:`kg.lookup`): an unknown system is
:class:`~kg.errors.NotFound`, with close matches, never an empty answer.

>>> q = load("info")
>>> q.name, bool(q.title)
('info', True)
>>> [p.name for p in load("search").params]
['text', 'section', 'tier', 'limit']
"""

from __future__ import annotations

import datetime as _dt
import itertools
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Mapping

from pyoxigraph import Literal, NamedNode, QueryBoolean, QuerySolutions, QueryTriples, Variable

from .errors import NotFound, QueryError, UsageError
from .lookup import SystemIndex
from .normalise import fold
from .normalise.dates import since_period
from .resources import resource_dir
from .sparql.binding import bind
from .sparql.guard import QueryRefused, check_query
from .sparql.lexer import variables
from .store import GraphStore
from .vocab import ID_PATTERN, XSD, Iris

if TYPE_CHECKING:
    from .remote_query import Endpoint

QUERIES_DIR = resource_dir("queries")
PARAM_TYPES = ("string", "integer", "decimal", "boolean", "date", "iri", "period", "id", "system", "system-name",
               "limit")
SYSTEM_TYPES = ("id", "system", "system-name")  # checked against the graph before a query runs
HEADER_KEYS = ("title", "question", "returns")

_HEADER = re.compile(r"^#\s*(title|question|param|returns|description|cost)\s*:\s*(.*)$", re.IGNORECASE)
_PARAM = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*\((?P<spec>[^)]*)\)\s*(?P<doc>.*)$")


@dataclass
class Param:
    """One declared parameter: its SPARQL variable name, type, and whether it may be left out."""

    name: str
    type: str
    optional: bool = False
    default: str | None = None
    doc: str = ""
    choices: tuple[str, ...] = ()
    fold: bool = False  # the value is folded (kg.normalise.fold) before it is bound


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


def _parse_param(spec_line: str, path: Path) -> Param:
    m = _PARAM.match(spec_line.strip())
    if not m:
        raise QueryError(f"{path.name}: bad '# param:' line: {spec_line!r}")
    parts = [p.strip() for p in m.group("spec").split(",") if p.strip()]
    if not parts or parts[0] not in PARAM_TYPES:
        raise QueryError(f"{path.name}: parameter {m.group('name')}: type must be one of {', '.join(PARAM_TYPES)}")
    param = Param(name=m.group("name"), type=parts[0], doc=m.group("doc").strip())
    for part in parts[1:]:
        if part == "optional":
            param.optional = True
        elif part.startswith("default="):
            param.default, param.optional = part[len("default="):].strip(), True
        elif part == "fold":
            param.fold = True
        elif part.startswith("choices="):
            param.choices = tuple(c.strip() for c in part[len("choices="):].split("|") if c.strip())
        else:
            raise QueryError(f"{path.name}: parameter {param.name}: unknown option {part!r}")
    return param


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
            param = _parse_param(value, path)
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
        if p.type != "limit" and p.name not in used:
            problems.append(f"parameter {p.name} is not a variable of the query")
        if p.default is not None:
            try:
                _check_default(p)
            except QueryError as err:
                problems.append(str(err))
    return problems


def _check_default(param: Param) -> None:
    if param.type == "limit":
        _limit(param, param.default or "")
    else:
        to_term(param, param.default or "", Iris())


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


def to_term(param: Param, value: str, iris: Iris) -> NamedNode | Literal:
    """The RDF term for a parameter value given as text; a bad value is a QueryError."""
    if param.choices and value not in param.choices:
        raise QueryError(f"parameter {param.name}: {value!r} is not one of {', '.join(param.choices)}")
    try:
        if param.type == "string":
            return Literal(fold(value) if param.fold else value)
        if param.type == "period":
            return Literal(since_period(value).start.isoformat(), datatype=XSD.date)
        if param.type == "id":
            return Literal(value)
        if param.type == "integer":
            return Literal(str(int(value)), datatype=XSD.integer)
        if param.type == "decimal":
            float(value)
            return Literal(value, datatype=XSD.decimal)
        if param.type == "boolean":
            if value.lower() not in ("true", "false"):
                raise ValueError("expected true or false")
            return Literal(value.lower() == "true")
        if param.type == "date":
            _dt.date.fromisoformat(value)
            return Literal(value, datatype=XSD.date)
        if param.type == "iri":
            return NamedNode(value)
        if param.type in ("system", "system-name"):
            if not ID_PATTERN.match(value):
                raise ValueError("not a catalog id" + (" (a name is resolved to an id only when the query runs)"
                                                       if param.type == "system-name" else ""))
            return iris.system(value)
    except ValueError as err:
        raise QueryError(f"parameter {param.name}: {value!r} is not a valid {param.type} ({err})") from None
    raise QueryError(f"parameter {param.name}: unknown type {param.type}")


def _limit(param: Param, value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        n = -1
    if n < 0:
        raise QueryError(f"parameter {param.name}: {value!r} is not a valid limit (a whole number >= 0)")
    return n


def bindings(query: NamedQuery, values: Mapping[str, str], iris: Iris, *, resolved: bool = True) -> dict[str, Any]:
    """Typed terms for the given parameter values; checks names and required parameters.

    A ``limit`` parameter caps the rows (see :func:`row_limit`); it gets a term only where
    the query's text uses its variable. With ``resolved`` false,
    a ``system-name`` value is only checked to be text (:func:`resolve` makes it an id).
    """
    declared = {p.name: p for p in query.params}
    unknown = sorted(set(values) - set(declared))
    if unknown:
        raise QueryError(f"query {query.name} has no parameter {', '.join(unknown)}; "
                         f"it takes: {', '.join(declared) or 'none'}")
    out: dict[str, Any] = {}
    for param in query.params:
        value = values.get(param.name, param.default)
        if value is None:
            if not param.optional:
                raise QueryError(f"query {query.name} needs --param {param.name}=VALUE ({param.type})")
            continue
        if param.type == "limit":
            cap = _limit(param, value)
            if param.name in query.variables:
                out[param.name] = Literal(str(cap), datatype=XSD.integer)
            continue
        if param.type == "system-name" and not resolved:
            continue
        out[param.name] = to_term(param, value, iris)
    return out


def resolve(select: Any, query: NamedQuery, values: Mapping[str, str]) -> dict[str, str]:
    """``values`` with every system parameter checked against the graph (``select``: SPARQL
    text -> rows) and each ``system-name`` replaced by the id it resolves to; an unknown
    id, or a name that matches no system or several, is NotFound."""
    wanted = [p for p in query.params if p.type in SYSTEM_TYPES and values.get(p.name) is not None
              and not _is_system_id(select, values[p.name])]  # an id that exists needs no index
    if not wanted:
        return dict(values)
    index = SystemIndex.read(select)
    out = dict(values)
    for param in wanted:
        given = values[param.name]
        try:
            out[param.name] = index.resolve(given) if param.type == "system-name" else index.check_id(given)
        except NotFound as err:
            raise NotFound(f"{query.name}: parameter {param.name}: {err}", err.candidates) from None
    return out


_SYSTEM_ID = ("PREFIX kg: <https://w3id.org/agent-landscape/ontology#>\n"
              "PREFIX dcterms: <http://purl.org/dc/terms/>\n"
              "SELECT ?system WHERE { ?system a kg:System ; dcterms:identifier ?id } LIMIT 1")


def _is_system_id(select: Any, value: str) -> bool:
    """Whether ``value`` is the id of a system in the graph (one bound lookup, no index)."""
    return ID_PATTERN.match(value) is not None and bool(select(bind(_SYSTEM_ID, {"id": Literal(value)})))


def row_limit(query: NamedQuery, values: Mapping[str, str]) -> int | None:
    """The row cap asked for with the query's ``limit`` parameter (or its default), if any."""
    param = query.limit_param
    if param is None:
        return None
    value = values.get(param.name, param.default)
    return None if value is None else _limit(param, value)


# ---------------------------------------------------------------------------
# Running


class LimitedSolutions:
    """SELECT results capped at a number of rows; iterates like ``QuerySolutions``."""

    def __init__(self, solutions: QuerySolutions, limit: int) -> None:
        self.variables: list[Variable] = list(solutions.variables)
        self._rows = itertools.islice(solutions, limit)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._rows)


def bound_text(query: NamedQuery, params: Mapping[str, str] | None = None, iris: Iris | None = None) -> str:
    """The query's text with its parameters bound (what is sent to the store)."""
    return bind(query.text, bindings(query, params or {}, iris or Iris()))


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


def run(store: "GraphStore | Endpoint", name_or_path: str | NamedQuery, params: Mapping[str, str] | None = None,
        iris: Iris | None = None) -> QuerySolutions | LimitedSolutions | QueryBoolean | QueryTriples:
    """Run a named query (or .rq file, or a loaded query) with its parameters bound.

    Returns pyoxigraph results: SELECT as ``QuerySolutions`` (``LimitedSolutions`` when the
    query has a ``limit`` parameter), ASK as ``QueryBoolean``, CONSTRUCT/DESCRIBE as
    ``QueryTriples``. A query file of the user's is checked by :func:`check_file` first.
    ``store`` may also be a remote :class:`kg.remote_query.Endpoint`: the same bound text is
    sent there and the answer comes back in the same types.
    """
    query = name_or_path if isinstance(name_or_path, NamedQuery) else load(name_or_path)
    bindings(query, params or {}, iris or Iris(), resolved=False)  # bad values fail before the store is asked
    params = resolve(store.select, query, params or {})
    if isinstance(store, GraphStore):
        check_file(store, query)
    result = store.query(bound_text(query, params, iris))
    limit = row_limit(query, params)
    if limit is not None and isinstance(result, QuerySolutions):
        return LimitedSolutions(result, limit)
    return result


def query(store: "GraphStore | Endpoint", name_or_path: str | NamedQuery, params: Mapping[str, str] | None = None,
          iris: Iris | None = None) -> Any:
    """Like :func:`run`, with the results in plain Python containers.

    SELECT: a list of rows, each a dict of variable name -> term (unbound variables left
    out); ASK: a bool; CONSTRUCT/DESCRIBE: a list of distinct triples in result order.

    >>> from kg.store import GraphStore
    >>> query(GraphStore(), "sections")
    []
    """
    result = run(store, name_or_path, params, iris)
    if isinstance(result, QueryBoolean):
        return bool(result)
    if isinstance(result, QueryTriples):
        return list(dict.fromkeys(result))
    names = [v.value for v in result.variables]
    return [{n: v for n, v in zip(names, row) if v is not None} for row in result]
