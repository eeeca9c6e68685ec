"""SPARQL 1.1's scope rules that rdflib's parser does not enforce, checked on rdflib's parse tree.

SPARQL 1.1 (section 18.2.1) forbids two assignments to a variable that is already in scope, and a
strict engine (Jena's ARQ, hence Fuseki) refuses such a query; Oxigraph and rdflib accept it:

- ``SELECT (expr AS ?v)`` where ``?v`` is in scope in the WHERE pattern (or earlier in the
  projection), e.g. ``VALUES ?vendor`` bound in the pattern and ``(?vendorName AS ?vendor)``;
- ``BIND(expr AS ?v)`` where ``?v`` is in scope in the elements of its group before the BIND.

The in-scope variables of a pattern are those of its triple patterns, VALUES, BIND targets,
OPTIONAL, UNION and GRAPH parts, and a sub-SELECT's projection; not those of FILTER, MINUS or
EXISTS.

>>> problems("SELECT (?n AS ?v) WHERE { VALUES ?v { 1 } ?s ?p ?n }")
['(... AS ?v) in SELECT: ?v is already in scope']
>>> problems("SELECT ?s WHERE { ?s ?p ?o BIND(1 AS ?o) }")
['BIND(... AS ?o): ?o is already in scope']
>>> problems("SELECT (?n AS ?v) WHERE { ?s ?p ?n FILTER(?v) MINUS { ?v ?p ?n } }")
[]
"""

from __future__ import annotations

from typing import Any, Iterable

from rdflib.plugins.sparql.parser import parseQuery
from rdflib.plugins.sparql.parserutils import CompValue
from rdflib.term import Variable


def problems(text: str) -> list[str]:
    """Every assignment of ``text`` (a query) to a variable already in scope."""
    found: list[str] = []
    for part in parseQuery(text):
        if isinstance(part, CompValue) and part.name.endswith("Query"):
            _select(part, found)
    return found


def _select(select: CompValue, found: list[str]) -> set[Variable]:
    """The variables ``select`` projects (checking its projection and its pattern on the way)."""
    scope = _group(_key(select, "where"), found)
    projection = _key(select, "projection")
    if not projection:  # SELECT *, or another query form
        return scope
    projected: set[Variable] = set()
    for item in projection:
        if "evar" in item:
            if item["evar"] in scope or item["evar"] in projected:
                found.append(f"(... AS ?{item['evar']}) in SELECT: ?{item['evar']} is already in scope")
            projected.add(item["evar"])
        elif "var" in item:
            projected.add(item["var"])
    return projected


def _group(group: Any, found: list[str]) -> set[Variable]:
    """The in-scope variables of a group graph pattern (or a sub-SELECT), checking its BINDs."""
    if group is None:
        return set()
    if isinstance(group, CompValue) and group.name == "SubSelect":
        return _select(group, found)
    scope: set[Variable] = set()
    for part in _key(group, "part") or []:
        name = part.name
        if name == "TriplesBlock":
            scope |= _variables(part["triples"])
        elif name == "Bind":
            if part["var"] in scope:
                found.append(f"BIND(... AS ?{part['var']}): ?{part['var']} is already in scope")
            scope.add(part["var"])
        elif name == "InlineData":
            scope |= set(_key(part, "var") or [])
        elif name in ("OptionalGraphPattern", "ServiceGraphPattern"):
            scope |= _group(part["graph"], found)
        elif name == "GraphGraphPattern":
            scope |= _group(part["graph"], found) | _variables([part["term"]])
        elif name == "GroupOrUnionGraphPattern":
            for branch in part["graph"]:
                scope |= _group(branch, found)
        elif name == "MinusGraphPattern":
            _group(part["graph"], found)
    return scope


def _key(value: CompValue, key: str) -> Any:
    """``value[key]``, or None where it has none (CompValue.get answers the key itself then)."""
    return value[key] if key in value else None


def _variables(items: Iterable[Any]) -> set[Variable]:
    out: set[Variable] = set()
    for item in items:
        if isinstance(item, Variable):
            out.add(item)
        elif isinstance(item, (list, tuple)) or type(item).__name__ == "ParseResults":
            out |= _variables(item)
    return out
