"""Records <-> quads without a store: both directions of the mapping, and the catalog JSON rebuilt
from any source of quads."""

from __future__ import annotations

from collections import defaultdict

import pytest
from pyoxigraph import BlankNode, Literal, NamedNode, Quad

from kg.mapping import (
    catalog_json, date_literal, edges_from_quads, iri_or_text, json_value, record_from_quads, record_quads,
    relation_quads, source_file_quads, value_literal,
)
from kg.records import edge_from_json, edge_to_json, record_from_json, record_to_json
from kg.vocab import XSD


def test_every_real_record_comes_back_from_its_quads(site_catalog, seed_record, iris):
    described: set[str] = set()
    for raw in [*site_catalog["records"], seed_record]:
        own, _ = record_quads(record_from_json(raw), iris, described)
        assert {q.graph_name for q in own} == {iris.record_graph(raw["id"])}
        assert record_to_json(record_from_quads(own, iris, raw["id"])) == raw


def test_shared_resources_are_described_once(site_catalog, iris):
    described: set[str] = set()
    shared = []
    for raw in site_catalog["records"][:50]:
        shared += record_quads(record_from_json(raw), iris, described)[1]
    assert len(shared) == len(set(shared))
    assert {q.graph_name for q in shared} == {iris.shared_graph}


def test_every_real_edge_comes_back_in_order(edges_file, iris):
    quads = [q for i, raw in enumerate(edges_file["edges"]) for q in relation_quads(edge_from_json(raw), i, iris)]
    assert [edge_to_json(e) for e in edges_from_quads(reversed(quads), iris)] == edges_file["edges"]


class _Quads:
    """A source of quads that is not a store: the mapping needs no more than this."""

    def __init__(self, quads: list[Quad]) -> None:
        self.by_graph: dict = defaultdict(list)
        for q in quads:
            self.by_graph[q.graph_name].append(q)

    def quads(self, graph=None):
        return list(self.by_graph.get(graph, [])) if graph is not None else [
            q for qs in self.by_graph.values() for q in qs]

    def named_graphs(self):
        return sorted(self.by_graph, key=lambda g: g.value)


def test_the_catalog_json_is_rebuilt_from_any_source_of_quads(site_catalog, edges_file, iris):
    records = site_catalog["records"][:5]
    header = {"schemaVersion": site_catalog["schemaVersion"], "generatedAt": site_catalog["generatedAt"]}
    quads = source_file_quads(iris.catalog_source, iris.catalog_graph, "catalog", header)
    quads += source_file_quads(iris.edges_source, iris.edges_graph, "edges", {"schemaVersion": "1"})
    described: set[str] = set()
    for raw in records:
        own, shared = record_quads(record_from_json(raw), iris, described)
        quads += own + shared
    edges = edges_file["edges"][:3]
    quads += [q for i, raw in enumerate(edges) for q in relation_quads(edge_from_json(raw), i, iris)]
    rebuilt = catalog_json(_Quads(quads), iris)
    assert rebuilt["records"] == sorted(records, key=lambda r: iris.record_graph(r["id"]).value)
    assert rebuilt["edges"] == edges and rebuilt["edgesHeader"] == {"schemaVersion": "1"}
    assert {k: rebuilt[k] for k in header} == header and rebuilt["license"] == "CC-BY-4.0"


def test_quads_kg_never_writes_are_ignored_on_the_way_back(seed_record, iris):
    own, _ = record_quads(record_from_json(seed_record), iris, set())
    system = iris.system(seed_record["id"])
    stray = [Quad(BlankNode(), NamedNode("https://example.org/p"), system, own[0].graph_name),
             Quad(system, NamedNode("https://example.org/p"), BlankNode(), own[0].graph_name)]
    assert record_to_json(record_from_quads(own + stray, iris, seed_record["id"])) == seed_record


@pytest.mark.parametrize("value", [True, False, 0, -7, 2 ** 62, 2.5, -0.0, 1e300, "", "text", None, [1, "a"],
                                   {"k": [None, {"x": 1.5}]}])
def test_json_values_survive_their_literal(value):
    back = json_value(value_literal(value))
    assert back == value and type(back) is type(value)


def test_dates_and_links_are_typed_only_when_valid():
    assert date_literal("2026-05-14").datatype == XSD.date
    assert date_literal("2026-02-30") == Literal("2026-02-30")  # not a date: kept as text
    assert iri_or_text("https://example.org/x") == NamedNode("https://example.org/x")
    assert iri_or_text("https://exa mple.org/x") == Literal("https://exa mple.org/x")
    assert iri_or_text("javascript:alert(1)") == Literal("javascript:alert(1)")
