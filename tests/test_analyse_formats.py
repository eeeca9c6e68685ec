"""kg.analyse.formats: projection files (GraphML, GEXF, node-link JSON) read back by NetworkX hold the
same nodes, edges and attributes, and the systems projection has the bundled catalog's counts."""

from __future__ import annotations

import io
import json

import networkx as nx
import pytest

from kg.analyse import formats
from kg.errors import UsageError


@pytest.fixture(scope="module")
def projections(bundled_store) -> dict[str, nx.Graph]:
    return {name: formats.projection(bundled_store, name) for name in formats.PROJECTIONS}


def _written(graph: nx.Graph, fmt: str) -> bytes:
    out = io.BytesIO()
    formats.write_projection(graph, fmt, out)
    return out.getvalue()


def _read(data: bytes, fmt: str) -> nx.Graph:
    if fmt == "graphml":
        return nx.read_graphml(io.BytesIO(data))
    if fmt == "gexf":
        return nx.read_gexf(io.BytesIO(data))
    return nx.node_link_graph(json.loads(data), edges="edges")


def _edges(graph: nx.Graph) -> dict[frozenset, dict]:
    return {frozenset((u, v)): data for u, v, data in graph.edges(data=True)}


def test_systems_projection_counts_equal_the_bundled_json(projections, expected_records, edges_file):
    ids = set(expected_records)
    adjacencies = {frozenset((e["source"], e["target"])) for e in edges_file["edges"]
                   if e["source"] != e["target"] and e["source"] in ids and e["target"] in ids}
    graph = projections["systems"]
    assert graph.number_of_nodes() == len(ids) == 912
    assert set(graph) == ids
    assert graph.number_of_edges() == len(adjacencies)
    assert set(_edges(graph)) == adjacencies
    for fmt in formats.FORMATS:
        back = _read(_written(graph, fmt), fmt)
        assert (back.number_of_nodes(), back.number_of_edges()) == (912, len(adjacencies))


@pytest.mark.parametrize("fmt", ["graphml", "gexf"])
@pytest.mark.parametrize("name", formats.PROJECTIONS)
def test_xml_formats_keep_every_node_edge_and_safe_attribute(projections, name, fmt):
    graph = projections[name]
    safe = formats.safe_attributes(graph)
    back = _read(_written(graph, fmt), fmt)
    assert not back.is_directed()
    assert set(back) == set(graph)
    assert set(_edges(back)) == set(_edges(graph))
    for node, data in safe.nodes(data=True):
        got = dict(back.nodes[node])
        if fmt == "gexf":  # GEXF's node label is the node's own label attribute, or else its id
            assert got.pop("label") == data.get("label", node)
            data = {k: v for k, v in data.items() if k != "label"}
        assert got == data, node
    wanted = _edges(safe)
    for key, data in _edges(back).items():
        if fmt == "gexf":
            data = {k: v for k, v in data.items() if k != "id"}  # GEXF numbers its edges
        assert data == wanted[key]  # GEXF reads weights as floats: 2.0 == 2
    if fmt == "graphml":
        assert back.graph["projection"] == name


@pytest.mark.parametrize("name", formats.PROJECTIONS)
def test_node_link_keeps_attributes_as_they_are(projections, name):
    graph = projections[name]
    back = _read(_written(graph, "node-link"), "node-link")
    assert dict(back.nodes(data=True)) == dict(graph.nodes(data=True))
    assert _edges(back) == _edges(graph)
    assert back.graph == {"projection": name}


def test_safe_attributes_drop_none_and_join_lists(projections):
    systems = projections["systems"]
    without_vendor = [n for n, v in systems.nodes(data="vendor") if v is None]
    several = [(u, v) for u, v, types in systems.edges(data="types") if len(types) > 1]
    assert without_vendor and several  # the bundled data has both cases
    back = _read(_written(systems, "graphml"), "graphml")
    assert all("vendor" not in back.nodes[n] for n in without_vendor)
    for u, v in several:
        assert back.edges[u, v]["types"] == ";".join(systems.edges[u, v]["types"])


def test_projection_file_attributes_by_kind(projections):
    licenses = _read(_written(projections["licenses"], "graphml"), "graphml")
    osi = {d["label"]: d["osi_approved"] for _, d in licenses.nodes(data=True) if d["kind"] == "license"
           and "osi_approved" in d}
    assert osi["MIT"] is True
    protocols = _read(_written(projections["protocols"], "gexf"), "gexf")
    modes = {mode for _, _, mode in protocols.edges(data="mode")}
    assert modes <= {"native", "adapter", "client"} and modes
    vendors = _read(_written(projections["vendors"], "graphml"), "graphml")
    assert all(isinstance(d["systems"], int) and d["systems"] >= 1 for _, d in vendors.nodes(data=True))


def test_unknown_projection_or_format_is_a_usage_error(bundled_store, projections):
    with pytest.raises(UsageError, match="known: systems, vendors, licenses, protocols"):
        formats.projection(bundled_store, "people")
    with pytest.raises(UsageError, match="known: graphml, gexf, node-link"):
        formats.write_projection(projections["vendors"], "dot", io.BytesIO())
