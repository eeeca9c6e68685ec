"""kg.store._nquads: the N-Quads text written from terms is pyoxigraph's serialiser's own, byte for
byte, for every record of the catalog and for random terms; a GraphTriples reads as its quads."""

from __future__ import annotations

import string

from hypothesis import given, settings
from hypothesis import strategies as st
from pyoxigraph import BlankNode, Literal, NamedNode, Quad, RdfFormat, parse, serialize

from kg.mapping import in_graph, record_triples
from kg.store._nquads import GraphTriples, text
from kg.records import record_from_json
from kg.vocab import Iris

IRIS = Iris()


def serialised(quads: list[Quad]) -> bytes:
    return serialize(quads, format=RdfFormat.N_QUADS) or b""


def test_every_catalog_record_and_the_full_seed_record_write_the_serialisers_text(site_records, seed_record):
    described: set[str] = set()
    for raw in [*site_records, seed_record]:
        record = record_from_json(raw)
        triples, _ = record_triples(record, IRIS, described)
        graph = GraphTriples(IRIS.record_graph(record.id), triples)
        assert text([graph]) == serialised(in_graph(triples, graph.graph)), record.id


def test_a_graph_reads_as_the_quads_of_its_triples(seed_record):
    record = record_from_json(seed_record)
    triples, _ = record_triples(record, IRIS, set())
    quads = in_graph(triples, IRIS.record_graph(record.id))
    graph = GraphTriples(IRIS.record_graph(record.id), triples)
    assert len(graph) == len(quads) > 500
    assert list(graph) == quads and graph[0] == quads[0] and graph[-1] == quads[-1] and graph[3:7] == quads[3:7]


def test_other_quads_go_through_the_serialiser_in_order():
    ex = "https://example.org/"
    one = GraphTriples(NamedNode(ex + "g"), [(NamedNode(ex + "s"), NamedNode(ex + "p"), Literal("1"))])
    other = [Quad(NamedNode(ex + "t"), NamedNode(ex + "p"), Literal("2"), NamedNode(ex + "h"))]
    assert text([one, other, []]) == serialised(list(one) + other)


iri_text = st.text(alphabet=st.sampled_from([*string.ascii_letters, *string.digits, *"-._~/?=&", "é", "日", "𝄞"]),
                   max_size=12)
iris = st.builds(lambda tail: NamedNode("https://example.org/" + tail), iri_text)
languages = st.sampled_from(["en", "de-CH", "zh-Hant-TW"])
datatypes = st.sampled_from([None, "http://www.w3.org/2001/XMLSchema#integer",
                             "http://www.w3.org/2001/XMLSchema#date", "https://example.org/type"])
# any text a record may hold: quotes, backslashes, line breaks, control characters, astral planes
values = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)
literals = st.one_of(
    st.builds(Literal, values),
    st.builds(lambda v, lang: Literal(v, language=lang), values, languages),
    st.builds(lambda v, dt: Literal(v, datatype=NamedNode(dt)) if dt else Literal(v), values, datatypes),
)
blank_nodes = st.builds(BlankNode, st.text(alphabet=string.ascii_letters + string.digits, min_size=1, max_size=8))
triples = st.lists(st.tuples(st.one_of(iris, blank_nodes), iris, st.one_of(iris, literals, blank_nodes)),
                   max_size=20)


@settings(max_examples=300, deadline=None)
@given(triples, iris)
def test_random_terms_write_the_serialisers_text_and_parse_back(triples, graph_name):
    graph = GraphTriples(graph_name, triples)
    written = text([graph])
    assert written == serialised(list(graph))
    assert list(parse(written, format=RdfFormat.N_QUADS)) == list(graph)
