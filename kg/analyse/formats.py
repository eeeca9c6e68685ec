"""Projection files: a projection graph as GraphML, GEXF or node-link JSON, for Gephi, Cytoscape and scripts.

``projection(store, name)`` builds one of the ``PROJECTIONS`` from the store
(the same graphs as ``system_graph``, ``vendor_graph``, ``license_graph`` and
``protocol_graph`` with their defaults), and ``write_projection`` writes it with
every node and edge attribute through NetworkX's own writers:

* ``graphml`` (Cytoscape, Gephi, yEd, igraph) and ``gexf`` (Gephi) hold only
  scalar attribute values, so ``safe_attributes`` drops an attribute whose
  value is ``None`` (the node simply has no value for that key) and joins a
  list into one string with ``;`` (an edge's ``types``: ``built-on;cites``);
* ``node-link`` is NetworkX's JSON form (``nx.node_link_graph(data,
  edges="edges")`` reads it back); JSON holds lists and nulls, so the
  attributes are written as they are.

>>> g = nx.Graph()
>>> g.add_node("a", name="A", section=None)
>>> g.add_edge("a", "b", weight=2, types=["built-on", "cites"])
>>> safe = safe_attributes(g)
>>> safe.nodes["a"], safe.edges["a", "b"]
({'name': 'A'}, {'weight': 2, 'types': 'built-on;cites'})
"""

from __future__ import annotations

import json
from typing import IO, Any, Callable

import networkx as nx

from ..errors import UsageError, safe_text
from ..output import PROJECTION_FORMATS, PROJECTIONS, xml_forbidden
from ..store import GraphStore
from ..vocab import Iris
from .projections import license_graph, protocol_graph, system_graph, vendor_graph

#: The projections ``projection`` builds (by their command-line names), and the file
#: formats ``write_projection`` writes: declared in kg.output.
FORMATS: tuple[str, ...] = PROJECTION_FORMATS
#: What joins the items of a list attribute in GraphML and GEXF.
LIST_SEPARATOR = ";"

_BUILDERS: dict[str, Callable[..., nx.Graph]] = {
    "systems": system_graph, "vendors": vendor_graph, "licenses": license_graph, "protocols": protocol_graph,
}


def projection(store: GraphStore, name: str, iris: Iris | None = None) -> nx.Graph:
    """The projection ``name`` (one of ``PROJECTIONS``) of the graph in ``store``, undirected.

    The graph attribute ``projection`` holds the name, so that a written file says what it is.
    """
    if name not in _BUILDERS:
        raise UsageError(f"unknown projection {name!r}; known: {', '.join(PROJECTIONS)}")
    graph = _BUILDERS[name](store, iris=iris)
    graph.graph["projection"] = name
    return graph


def _safe(data: dict[str, Any]) -> dict[str, Any]:
    return {key: (LIST_SEPARATOR.join(map(str, value)) if isinstance(value, (list, tuple)) else value)
            for key, value in data.items() if value is not None}


def safe_attributes(graph: nx.Graph) -> nx.Graph:
    """A copy of ``graph`` whose attributes GraphML and GEXF can hold: ``None`` dropped, lists joined by ``;``."""
    safe = graph.__class__()
    safe.graph.update(_safe(graph.graph))
    safe.add_nodes_from((node, _safe(data)) for node, data in graph.nodes(data=True))
    safe.add_edges_from((u, v, _safe(data)) for u, v, data in graph.edges(data=True))
    return safe


def node_link(graph: nx.Graph) -> dict[str, Any]:
    """NetworkX's node-link form of ``graph``, with its edges under ``"edges"``."""
    try:
        return nx.node_link_data(graph, edges="edges")
    except TypeError:  # networkx < 3.4 calls the keyword ``link``
        return nx.node_link_data(graph, link="edges")


def _xml_checked(graph: nx.Graph, fmt: str) -> nx.Graph:
    """``graph``, once no node id or attribute value holds a character XML 1.0 forbids:
    refused, as RDF/XML refuses it (:func:`kg.output.xml_forbidden`)."""
    items = [("the graph", graph.graph)] + [(f"node {node}", {"id": node, **data})
                                            for node, data in graph.nodes(data=True)]
    items += [(f"edge {u} {v}", data) for u, v, data in graph.edges(data=True)]
    for where, data in items:
        for key, value in data.items():
            bad = xml_forbidden(value)
            if bad:
                raise UsageError(f"cannot write {fmt}: {safe_text(where, 120)}: {safe_text(key, 40)} holds {bad}, "
                                 "which XML 1.0 forbids; write node-link instead")
    return graph


def write_projection(graph: nx.Graph, fmt: str, output: IO[bytes]) -> None:
    """Write ``graph`` to the binary stream ``output`` as ``fmt`` (one of ``FORMATS``), UTF-8."""
    if fmt == "graphml":
        nx.write_graphml(_xml_checked(safe_attributes(graph), "GraphML"), output, encoding="utf-8")
    elif fmt == "gexf":
        nx.write_gexf(_xml_checked(safe_attributes(graph), "GEXF"), output, encoding="utf-8")
    elif fmt == "node-link":
        text = json.dumps(node_link(graph), ensure_ascii=False, indent=1, sort_keys=True)
        output.write(text.encode("utf-8") + b"\n")
    else:
        raise UsageError(f"unknown graph format {fmt!r}; known: {', '.join(FORMATS)}")
