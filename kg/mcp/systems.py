"""One system for the tools: whether an id names one, and its record, edges and centrality as JSON.

An id that names no system is an error here, never an empty answer: the named queries
that take a catalog id (a ``system`` parameter, or one whose description says "catalog
id") have their ids checked before they run, and so has the ``describe-system`` tool.
A parameter whose description also allows "text found in the system's name" passes
when some system's name contains it.
"""

from __future__ import annotations

from typing import Any, Mapping

from pyoxigraph import Literal, NamedNode, QueryBoolean

from ..errors import UsageError, safe_text
from ..mapping import edges_from_quads, record_from_quads
from ..output import plain_json
from ..queries import NamedQuery, Param
from ..records import edge_to_json, record_to_json
from ..store import GraphStore
from ..vocab import KG, RDF, Iris, is_record_id

_NAME_CONTAINS = """
PREFIX kg: <https://w3id.org/agent-landscape/ontology#>
PREFIX schema: <https://schema.org/>
ASK { ?system a kg:System ; schema:name ?name . FILTER(CONTAINS(LCASE(?name), LCASE(STR(?text)))) }
"""


def system_exists(store: GraphStore, iris: Iris, system_id: str) -> bool:
    """Whether ``system_id`` is a catalog id of a system in the store."""
    return is_record_id(system_id) and store.contains(iris.system(system_id), RDF.type, KG.System)


def _unknown(system_id: str, what: str = "system") -> UsageError:
    return UsageError(f"no {what} with id {safe_text(system_id, 120)!r} in this store; "
                      "the search tool finds a system's id from words of its name")


def require_system(store: GraphStore, iris: Iris, system_id: str) -> NamedNode:
    """The IRI of the system ``system_id``; an unknown id is a UsageError."""
    if not system_exists(store, iris, system_id):
        raise _unknown(system_id)
    return iris.system(system_id)


def id_params(query: NamedQuery) -> list[Param]:
    """The parameters of a query that name a system by its catalog id."""
    return [p for p in query.params if p.type == "system" or "catalog id" in p.doc.lower()]


def _name_fallback(param: Param) -> bool:
    return "name" in param.doc.lower()


def name_matches(store: GraphStore, text: str) -> bool:
    """Whether some system's name contains ``text`` (case-insensitive), as the queries match names."""
    result = store.query(_NAME_CONTAINS, {"text": Literal(text)})
    return isinstance(result, QueryBoolean) and bool(result)


def check_ids(store: GraphStore, iris: Iris, query: NamedQuery, params: Mapping[str, str]) -> None:
    """Raise UsageError when an id parameter names no system (and no name matches, where allowed)."""
    for param in id_params(query):
        value = params.get(param.name)
        if value is None or system_exists(store, iris, value):
            continue
        if _name_fallback(param) and name_matches(store, value):
            continue
        what = "system (and no system name contains it)" if _name_fallback(param) else "system"
        raise UsageError(f"{query.name}: argument {param.name}: " + str(_unknown(value, what)))


def _edges(store: GraphStore, iris: Iris, system: NamedNode) -> list[dict[str, Any]]:
    """The edges that touch the system (both directions), as the catalog's edges file writes them."""
    graph = iris.edges_graph
    relations = {q.subject for link in (KG.source, KG.target) for q in store.match(None, link, system, graph)}
    quads = [q for relation in relations for q in store.match(relation, None, None, graph)]
    return [edge_to_json(edge) for edge in edges_from_quads(quads, iris)]


def _centrality(store: GraphStore, iris: Iris, system: NamedNode) -> dict[str, Any] | None:
    """The measures ``kg analyze --write-back`` stored for the system, by property name, if any."""
    found = {q.predicate.value.rsplit("#", 1)[-1]: plain_json(q.object)
             for q in store.match(system, None, None, iris.analysis_graph) if isinstance(q.object, Literal)}
    return dict(sorted(found.items())) or None


def describe(store: GraphStore, iris: Iris, system_id: str) -> dict[str, Any]:
    """The system's record (catalog JSON), its edges by direction, and its stored centrality."""
    system = require_system(store, iris, system_id)
    record = record_to_json(record_from_quads(store.quads(iris.record_graph(system_id)), iris, system_id))
    edges = _edges(store, iris, system)
    out: dict[str, Any] = {
        "id": system_id, "iri": system.value, "record": record,
        "edges": {"outgoing": [e for e in edges if e["source"] == system_id],
                  "incoming": [e for e in edges if e["target"] == system_id and e["source"] != system_id]},
        "centrality": _centrality(store, iris, system),
    }
    if out["centrality"] is None:
        out["centralityNote"] = ("no analysis graph for this system: run 'kg analyze --write-back' to store "
                                 "the measures, or call the analyze tool")
    return out
