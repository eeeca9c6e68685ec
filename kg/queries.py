"""Named SPARQL queries from queries/*.rq, with typed parameters that are bound, never pasted.

Each file starts with a comment header::

    # title: Systems with MCP support
    # question: Which systems support MCP natively, via an adapter or as a client?
    # param: tier (integer, optional) only systems of this tier
    # returns: id, name, tier

Parameters are ordinary SPARQL variables of the query; ``GraphStore.query`` binds them
with a VALUES block built from serialised terms.

>>> q = load("info")
>>> q.name, bool(q.title)
('info', True)
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from pyoxigraph import Literal, NamedNode

from .errors import QueryError, UsageError
from .records import ID_PATTERN
from .store import GraphStore
from .vocab import XSD, Iris

QUERIES_DIR = Path(__file__).resolve().parent.parent / "queries"
PARAM_TYPES = ("string", "integer", "decimal", "boolean", "date", "iri", "system")

_HEADER = re.compile(r"^#\s*(title|question|param|returns|description)\s*:\s*(.*)$", re.IGNORECASE)
_PARAM = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*\((?P<spec>[^)]*)\)\s*(?P<doc>.*)$")


@dataclass
class Param:
    """One declared parameter: its SPARQL variable name, type, and whether it may be left out."""

    name: str
    type: str
    optional: bool = False
    default: str | None = None
    doc: str = ""


@dataclass
class NamedQuery:
    name: str
    path: Path
    text: str
    title: str = ""
    question: str = ""
    returns: str = ""
    params: list[Param] = field(default_factory=list)


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
    return param


def parse(text: str, path: Path) -> NamedQuery:
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
            query.params.append(_parse_param(value, path))
        elif key in ("question", "description"):
            query.question = value
        else:
            setattr(query, key, value)
    return query


def available() -> list[str]:
    """Names of the bundled queries."""
    return sorted(p.stem for p in QUERIES_DIR.glob("*.rq"))


def load(name_or_path: str) -> NamedQuery:
    """A bundled query by name (``search``) or any ``.rq`` file by path."""
    path = Path(name_or_path)
    if not (name_or_path.endswith(".rq") and path.is_file()):
        path = QUERIES_DIR / f"{name_or_path}.rq"
    if not path.is_file():
        raise UsageError(f"unknown query {name_or_path!r}; known: {', '.join(available())}")
    return parse(path.read_text(encoding="utf-8"), path)


def to_term(param: Param, value: str, iris: Iris) -> NamedNode | Literal:
    """The RDF term for a parameter value given as text; a bad value is a QueryError."""
    try:
        if param.type == "string":
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
        if param.type == "system":
            if not ID_PATTERN.match(value):
                raise ValueError("not a catalog id")
            return iris.system(value)
    except ValueError as err:
        raise QueryError(f"parameter {param.name}: {value!r} is not a valid {param.type} ({err})") from None
    raise QueryError(f"parameter {param.name}: unknown type {param.type}")


def bindings(query: NamedQuery, values: Mapping[str, str], iris: Iris) -> dict[str, Any]:
    """Typed terms for the given parameter values; checks names and required parameters."""
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
        out[param.name] = to_term(param, value, iris)
    return out


def run(store: GraphStore, name_or_path: str, params: Mapping[str, str] | None = None,
        iris: Iris | None = None) -> Any:
    """Run a named query (or .rq file) with its parameters bound; returns pyoxigraph results."""
    query = load(name_or_path)
    return store.query(query.text, bindings(query, params or {}, iris or Iris()))
