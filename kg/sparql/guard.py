"""The query guard: refuse, before evaluation, what could make the store reach the network.

SERVICE (any form), LOAD and FROM / FROM NAMED of a graph the store does not hold are
refused by walking rdflib's parse tree and algebra; text that rdflib cannot parse is
refused too (fail closed), since pyoxigraph would evaluate it and fetch what it names.

>>> check_query("SELECT * WHERE { ?s ?p ?o }", set()).form
'SELECT'
>>> check_query("select * { filter exists { service silent ?x { ?s ?p ?o } } }", set())
Traceback (most recent call last):
...
kg.sparql.guard.QueryRefused: SERVICE is not allowed: this endpoint never queries other endpoints
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable

from ..errors import QueryError, safe_text


class QueryRefused(QueryError):
    """The guard refused a query or update before evaluation (SERVICE, LOAD, a remote FROM, unparsable)."""


_IRIREF = re.compile(r'<[^<>"{}|^`\\\x00-\x20]*>')


def _code_only(text: str) -> str:
    """``text`` with comments, string literals and IRIs blanked out (keywords remain)."""
    out, i, n = [], 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "#":
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
            continue
        if ch in "\"'":
            quote_ = ch * 3 if text.startswith(ch * 3, i) else ch
            j = i + len(quote_)
            while j < n and not text.startswith(quote_, j):
                j += 2 if text[j] == "\\" else 1
            j = min(n, j + len(quote_))
            out.append(" " * (j - i))
            i = j
            continue
        if ch == "<":
            m = _IRIREF.match(text, i)
            if m:
                out.append(" " * (m.end() - i))
                i = m.end()
                continue
        out.append(ch)
        i += 1
    return "".join(out)


def _keyword(text: str, word: str) -> bool:
    """Whether the bare keyword ``word`` occurs outside strings, IRIs, comments and names."""
    return re.search(rf"(?<![\w?$:\-]){word}(?![\w:\-])", _code_only(text), re.IGNORECASE) is not None


def _walk(node: Any) -> Iterable[Any]:
    """Every node of an rdflib parse tree or algebra (CompValue, lists, dicts), depth first."""
    from rdflib.plugins.sparql.parserutils import CompValue

    stack, seen = [node], set()
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, CompValue):
            yield item
            stack.extend(item.values())
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)


@dataclass
class CheckedQuery:
    form: str  # SELECT, ASK, CONSTRUCT, DESCRIBE
    has_dataset: bool  # FROM / FROM NAMED present


_FORMS = {"SelectQuery": "SELECT", "AskQuery": "ASK", "ConstructQuery": "CONSTRUCT", "DescribeQuery": "DESCRIBE"}


def _refuse_service(nodes: list[Any], text: str) -> None:
    if _keyword(text, "SERVICE") or any(n.name == "ServiceGraphPattern" for n in nodes):
        raise QueryRefused("SERVICE is not allowed: this endpoint never queries other endpoints")


def _check_graphs(iris: Iterable[str], local_graphs: set[str], what: str) -> None:
    for iri in iris:
        if iri not in local_graphs:
            raise QueryRefused(f"{what} <{safe_text(iri, 120)}> is not a graph of this store; "
                               "remote graphs are never fetched")


def check_query(text: str, local_graphs: set[str]) -> CheckedQuery:
    """Parse ``text`` with rdflib and walk its algebra; raise ``QueryRefused`` for SERVICE
    (any form: lower case, SILENT, a variable, nested), for FROM / FROM NAMED naming a
    graph that is not in ``local_graphs``, and for anything rdflib cannot parse (fail closed).
    """
    from rdflib.plugins.sparql.algebra import translateQuery
    from rdflib.plugins.sparql.parser import parseQuery

    try:
        parsed = parseQuery(text)
        algebra = translateQuery(parsed).algebra
    except Exception as err:  # noqa: BLE001 - any failure to understand the text is a refusal
        if _keyword(text, "SERVICE"):
            raise QueryRefused("SERVICE is not allowed: this endpoint never queries other endpoints") from None
        if _keyword(text, "INSERT") or _keyword(text, "DELETE") or _keyword(text, "LOAD") or _keyword(text, "DROP"):
            raise QueryRefused("this is not a query (updates go to /update, when enabled)") from None
        raise QueryRefused(f"malformed or unsupported SPARQL (checked with rdflib before evaluation): "
                           f"{safe_text(err, 300)}") from None
    nodes = list(_walk(algebra)) + list(_walk(parsed))
    _refuse_service(nodes, text)
    datasets = [n for n in nodes if n.name == "DatasetClause"]
    _check_graphs({str(n.get("default") or n.get("named")) for n in datasets}, local_graphs, "FROM")
    return CheckedQuery(form=_FORMS.get(algebra.name, algebra.name), has_dataset=bool(datasets))


def check_update(text: str) -> None:
    """Refuse LOAD and SERVICE anywhere in an update, and anything rdflib cannot parse."""
    from rdflib.plugins.sparql.algebra import translateUpdate
    from rdflib.plugins.sparql.parser import parseUpdate

    if _keyword(text, "LOAD"):
        raise QueryRefused("LOAD is not allowed: this endpoint never fetches remote data")
    try:
        parsed = parseUpdate(text)
        algebra = translateUpdate(parsed)
    except Exception as err:  # noqa: BLE001 - fail closed
        if _keyword(text, "SERVICE"):
            raise QueryRefused("SERVICE is not allowed: this endpoint never queries other endpoints") from None
        raise QueryRefused(f"malformed or unsupported SPARQL Update (checked with rdflib): "
                           f"{safe_text(err, 300)}") from None
    nodes = list(_walk(algebra.algebra)) + list(_walk(parsed))
    if any(n.name == "Load" for n in nodes):
        raise QueryRefused("LOAD is not allowed: this endpoint never fetches remote data")
    _refuse_service(nodes, text)


__all__ = ["CheckedQuery", "QueryRefused", "check_query", "check_update"]
