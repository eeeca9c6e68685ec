"""The update text kg writes itself: a store replaced through it holds exactly the new graphs,
and hostile literal text stays a value."""

from __future__ import annotations

from pyoxigraph import Literal, NamedNode, Quad, Store

from kg.sparql.updates import replacement

G, H = NamedNode("https://example.org/g"), NamedNode("https://example.org/h")
S, P = NamedNode("https://example.org/s"), NamedNode("https://example.org/p")


def test_a_replacement_drops_then_inserts_and_keeps_values_as_values():
    store = Store()
    store.extend([Quad(S, P, Literal("old"), G), Quad(S, P, Literal("kept"), H)])
    hostile = Literal('x" } ; DROP ALL ; INSERT DATA { <a> <b> "c')
    store.update(replacement([G], [(G, [f"{S} {P} {hostile} ."]), (H, [])]))
    assert {(q.object.value, q.graph_name) for q in store} == {(hostile.value, G), ("kept", H)}


def test_nothing_to_insert_is_drops_only():
    assert replacement([G, H], [(G, [])]) == f"DROP SILENT GRAPH {G} ;\nDROP SILENT GRAPH {H}"
