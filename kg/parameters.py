"""A named query's parameters, one way down: declared in its header, checked and converted to RDF terms.

A query's ``# param:`` line declares a parameter (:func:`parse_param`); the values given
as text go through :func:`convert` once: unknown names, missing values and bad values
are a :class:`~kg.errors.QueryError`, each value becomes its RDF term
(:func:`to_term`), the row cap of a ``limit`` parameter is read, and the values that
name systems or vendors are set aside for the graph (:mod:`kg.lookup` resolves them;
:meth:`Converted.with_resolved` adds their terms). :func:`kg.queries.plan` calls the steps in
that order, then binds (:func:`kg.sparql.binding.bind`).

Options of a ``# param:`` line, after the type: ``optional``, ``default=VALUE``,
``choices=a|b``, ``fold`` (the text folded: :func:`kg.normalise.fold`), ``words``
(the text folded and cut into words: :func:`words`), ``prefer=depended`` (a
``system-name`` that several systems share means the one the others depend on, when
there is one: :mod:`kg.lookup`), ``or=OTHER`` (exactly one of this parameter and
OTHER is given) and ``as=VARIABLE`` (the value is bound to that variable of the query
rather than its own name's: a ``vendor`` binds the set of its systems to ``?system``).

A ``relations`` parameter names edge types of the catalog (``built-on,runtime-dependency``:
commas between them) and stands for a property path: its default is one edge type, the query is
written with that type's property (``kg:runtimeDependency``), and kg puts the alternative of the
chosen types' properties in its place wherever the query names it (:func:`relation_predicates`,
:func:`kg.sparql.binding.bind_paths`). The query run without kg answers for the default.

>>> p = parse_param("tier (integer, optional) only this tier", "q.rq")
>>> p.name, p.type, p.optional, to_term(p, "2", Iris()).value
('tier', 'integer', True, '2')
>>> words("  Bi-Temporal   GRAPH graph ")
'bi temporal graph'
"""

from __future__ import annotations

import datetime as _dt
import difflib
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from pyoxigraph import Literal, NamedNode

from .errors import QueryError
from .normalise import fold
from .normalise.dates import since_period
from .vocab import EDGE_PROPERTIES, ID_PATTERN, XSD, Iris

PARAM_TYPES = ("string", "integer", "decimal", "boolean", "date", "iri", "period", "id", "system", "system-name",
               "vendor", "limit", "relations")
SYSTEM_TYPES = ("id", "system", "system-name")  # checked against the graph before a query runs
GRAPH_TYPES = SYSTEM_TYPES + ("vendor",)  # resolved against the graph (kg.lookup)

_PARAM = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*\((?P<spec>[^)]*)\)\s*(?P<doc>.*)$")
#: What separates words in search text, the same class as the SPARQL of search and find use:
#: white space, ASCII punctuation, Latin-1 punctuation and symbols, general and CJK punctuation.
WORD_SEPARATORS = "[\\s!-/:-@\\[-`{-~\u00a0-\u00bf\u00d7\u00f7\u2000-\u206f\u3000-\u303f]+"
_SEPARATORS = re.compile(WORD_SEPARATORS)


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
    words: bool = False  # the value is folded and cut into words (:func:`words`)
    prefer: str = ""  # "depended": an ambiguous system name means the one the others depend on
    either: str = ""  # the name of the parameter given instead of this one (exactly one of the two)
    binds: str = ""  # the variable bound, when it is not the parameter's name ("as=VARIABLE")

    @property
    def variable(self) -> str:
        """The variable of the query that the value is bound to."""
        return self.binds or self.name


def parse_param(spec_line: str, source: str) -> Param:
    """The parameter a ``# param:`` line declares (``source`` names the file in errors)."""
    m = _PARAM.match(spec_line.strip())
    if not m:
        raise QueryError(f"{source}: bad '# param:' line: {spec_line!r}")
    parts = [p.strip() for p in m.group("spec").split(",") if p.strip()]
    if not parts or parts[0] not in PARAM_TYPES:
        raise QueryError(f"{source}: parameter {m.group('name')}: type must be one of {', '.join(PARAM_TYPES)}")
    param = Param(name=m.group("name"), type=parts[0], doc=m.group("doc").strip())
    for part in parts[1:]:
        _option(param, part, source)
    return param


def _option(param: Param, part: str, source: str) -> None:
    if part in ("optional", "fold", "words"):
        setattr(param, part, True)
    elif part.startswith("default="):
        param.default, param.optional = part[len("default="):].strip(), True
    elif part.startswith("choices="):
        param.choices = tuple(c.strip() for c in part[len("choices="):].split("|") if c.strip())
    elif part == "prefer=depended":
        param.prefer = "depended"
    elif part.startswith("or="):
        param.either = part[len("or="):].strip()
    elif part.startswith("as="):
        param.binds = part[len("as="):].strip()
    else:
        raise QueryError(f"{source}: parameter {param.name}: unknown option {part!r}")


def words(text: str) -> str:
    """``text`` folded (:func:`kg.normalise.fold`) and cut into words at white space and
    punctuation, one space between them; a word given twice, or at the start of a longer
    word also given ("gra graph"), is kept once (it matches wherever the longer one does)."""
    found = [w for w in _SEPARATORS.split(fold(text)) if w]
    kept = [w for i, w in enumerate(found) if w not in found[:i]
            and not any(o != w and o.startswith(w) for o in found)]
    return " ".join(kept)


def to_term(param: Param, value: str, iris: Iris) -> NamedNode | Literal:
    """The RDF term for a parameter value given as text; a bad value is a QueryError.
    A ``system-name`` must be an id by now (:mod:`kg.lookup` resolves a name first); a
    ``vendor`` is its folded text (:mod:`kg.lookup` finds its systems)."""
    if param.choices and value not in param.choices:
        wanted = value.strip().lower()
        close = difflib.get_close_matches(wanted, param.choices, n=1, cutoff=0.5) or \
            [c for c in param.choices if wanted and wanted in c][:1]
        raise QueryError(f"parameter {param.name}: {value!r} is not one of {', '.join(param.choices)}"
                         + (f"; did you mean {close[0]}?" if close else ""))
    try:
        return _term(param, value, iris)
    except ValueError as err:
        raise QueryError(f"parameter {param.name}: {value!r} is not a valid {param.type} ({err})") from None


def _term(param: Param, value: str, iris: Iris) -> NamedNode | Literal:
    kind = param.type
    if kind == "vendor":
        raise ValueError("a vendor is resolved to its systems only when the query runs")
    if kind == "string":
        return Literal(words(value) if param.words else fold(value) if param.fold else value)
    if kind == "period":
        return Literal(since_period(value).start.isoformat(), datatype=XSD.date)
    if kind == "id":
        return Literal(value)
    if kind == "integer":
        return Literal(str(int(value)), datatype=XSD.integer)
    if kind == "decimal":
        float(value)
        return Literal(value, datatype=XSD.decimal)
    if kind == "boolean":
        if value.lower() not in ("true", "false"):
            raise ValueError("expected true or false")
        return Literal(value.lower() == "true")
    if kind == "date":
        day = today() if value == "today" else _dt.date.fromisoformat(value)
        return Literal(day.isoformat(), datatype=XSD.date)
    if kind == "iri":
        return NamedNode(value)
    if kind in ("system", "system-name"):
        if not ID_PATTERN.match(value):
            raise ValueError("not a catalog id" + (" (a name is resolved to an id only when the query runs)"
                                                   if kind == "system-name" else ""))
        return iris.system(value)
    raise QueryError(f"parameter {param.name}: unknown type {kind}")


def today() -> _dt.date:
    """The day a ``date`` parameter given as ``today`` stands for: the current date in UTC."""
    return _dt.datetime.now(_dt.timezone.utc).date()


def relation_predicates(param: Param, value: str) -> tuple[NamedNode, ...]:
    """The properties of the edge types a ``relations`` value names (commas or spaces between
    them), in the vocabulary's order; an unknown type, or none, is a QueryError.

    >>> p = parse_param("edge_types (relations, default=runtime-dependency) which edges", "q.rq")
    >>> [n.value.rpartition("#")[2] for n in relation_predicates(p, "runtime-dependency, built-on")]
    ['builtOn', 'runtimeDependency']
    """
    allowed = param.choices or tuple(EDGE_PROPERTIES)
    given = [part for part in re.split(r"[\s,]+", value.strip()) if part]
    unknown = [part for part in given if part not in allowed]
    if unknown or not given:
        raise QueryError(f"parameter {param.name}: {', '.join(unknown) or repr(value)} is not an edge type; "
                         f"give one or more of {', '.join(allowed)}, separated by commas")
    return tuple(prop for name, prop in EDGE_PROPERTIES.items() if name in given)


def relation_placeholder(param: Param) -> NamedNode:
    """The property a ``relations`` parameter's query is written with: its default's (one edge type)."""
    default = (param.default or "").strip()
    if default not in EDGE_PROPERTIES:
        raise QueryError(f"parameter {param.name}: a relations parameter needs default=EDGE-TYPE (one of "
                         f"{', '.join(EDGE_PROPERTIES)}): the query is written with that type's property")
    return EDGE_PROPERTIES[default]


def limit_value(param: Param, value: str) -> int:
    """The row cap a ``limit`` value asks for (a whole number >= 0)."""
    try:
        n = int(value)
    except ValueError:
        n = -1
    if n < 0:
        raise QueryError(f"parameter {param.name}: {value!r} is not a valid limit (a whole number >= 0)")
    return n


def check_default(param: Param) -> None:
    """A QueryError when the parameter's default is not a valid value of its type."""
    if param.type == "limit":
        limit_value(param, param.default or "")
    elif param.type == "relations":
        relation_placeholder(param)
        relation_predicates(param, param.default or "")
    elif param.type not in ("system-name", "vendor"):
        to_term(param, param.default or "", Iris())


@dataclass
class Converted:
    """Parameter values converted: the terms to bind, the row cap, the values that the graph
    must resolve (name -> (param, text)), the values as given (defaults filled in), and the
    property paths of ``relations`` parameters (the property the query is written with -> the
    properties put in its place)."""

    terms: dict[str, Any] = field(default_factory=dict)
    limit: int | None = None
    pending: dict[str, tuple[Param, str]] = field(default_factory=dict)
    values: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # what a resolution chose, said to the user
    pending_terms: dict[str, Any] = field(default_factory=dict)  # the terms of pending ids, made once
    paths: dict[NamedNode, tuple[NamedNode, ...]] = field(default_factory=dict)

    def with_resolved(self, resolved: Mapping[str, tuple[str | list[str], str | None]], iris: Iris
                      ) -> "Converted":
        """These values with each pending one replaced by what it resolved to (an id; for a
        vendor, the ids of its systems), its term (or terms) added, and the notes kept."""
        terms, values, notes = dict(self.terms), dict(self.values), list(self.notes)
        for name, (param, given) in self.pending.items():
            value, note = resolved[name]
            if isinstance(value, list):
                terms[param.variable] = tuple(iris.system(rid) for rid in value)
            else:
                values[name] = value
                made = self.pending_terms.get(name) if value == given else None
                terms[param.variable] = made if made is not None else to_term(param, value, iris)
            if note:
                notes.append(note)
        return Converted(terms, self.limit, {}, values, notes, paths=dict(self.paths))


def convert(query: str, params: Iterable[Param], values: Mapping[str, str], iris: Iris,
            variables: frozenset[str]) -> Converted:
    """``values`` (text) checked against the declared ``params`` of the query named ``query``
    and converted once; a ``limit`` gets a term only where the query's text uses its
    variable (``variables``); system and vendor values wait in ``pending`` for the graph."""
    declared = {p.name: p for p in params}
    unknown = sorted(set(values) - set(declared))
    if unknown:
        raise QueryError(f"query {query} has no parameter {', '.join(unknown)}; "
                         f"it takes: {', '.join(declared) or 'none'}")
    _check_either(query, declared, values)
    out = Converted()
    for param in declared.values():
        value = values.get(param.name, param.default)
        if value is None:
            if not param.optional:
                raise QueryError(f"query {query} needs --param {param.name}=VALUE ({param.type})")
            continue
        out.values[param.name] = value
        if param.type == "limit":
            out.limit = limit_value(param, value)
            if param.name in variables:
                out.terms[param.name] = Literal(str(out.limit), datatype=XSD.integer)
            continue
        if param.type == "relations":
            chosen = relation_predicates(param, value)
            out.paths[relation_placeholder(param)] = chosen
            names = [name for name, prop in EDGE_PROPERTIES.items() if prop in chosen]
            out.notes.append(f"following {' and '.join(names)} edges (other edge types on request: "
                             f"--param {param.name}=TYPE,TYPE)")
            continue
        if param.type in GRAPH_TYPES:
            out.pending[param.name] = (param, value)
        if param.type not in ("system-name", "vendor"):  # those are text until the graph resolves them
            term = to_term(param, value, iris)  # a bad id fails here, before the graph is read
            if param.type in GRAPH_TYPES:
                out.pending_terms[param.name] = term
            else:
                out.terms[param.variable] = term
    return out


def _check_either(query: str, declared: Mapping[str, Param], values: Mapping[str, str]) -> None:
    for param in declared.values():
        if param.either and param.name < param.either:  # each pair once
            given = [n for n in (param.name, param.either) if values.get(n, declared[n].default) is not None]
            if len(given) != 1:
                raise QueryError(f"query {query} needs one of --param {param.name}=VALUE and "
                                 f"--param {param.either}=VALUE" + (", not both" if given else ""))
