"""kg.serve.negotiation: which format a request gets, from plain tables of cases."""

from __future__ import annotations

import pytest

from kg.serve.negotiation import (CONTENT_TYPES, ENTITY_OFFERS, GRAPH_OFFERS, SOLUTION_OFFERS, entity_format,
                                  negotiate, result_formats)
from kg.serve.replies import Reply

SOLUTIONS = [
    (None, "json"), ("", "json"), ("*/*", "json"), ("application/sparql-results+json", "json"),
    ("application/json", "json"), ("application/sparql-results+xml", "xml"), ("text/xml", "xml"),
    ("text/csv", "csv"), ("text/tab-separated-values", "tsv"), ("text/html", "html"),
    ("text/html,application/xml;q=0.9,*/*;q=0.8", "html"), ("text/*", "xml"),
    ("text/csv;q=0.5, text/tab-separated-values", "tsv"), ("text/csv;q=0", None), ("TEXT/CSV", "csv"),
    ("image/png", None), ("text/csv;q=oops", None), ("garbage", None),
]
GRAPHS = [
    (None, "turtle"), ("*/*", "turtle"), ("text/turtle", "turtle"), ("application/x-turtle", "turtle"),
    ("application/ld+json", "jsonld"), ("application/json", "jsonld"), ("application/n-triples", "ntriples"),
    ("text/plain", "ntriples"), ("application/rdf+xml", "rdfxml"), ("text/html", "html"), ("text/csv", None),
]
ENTITIES = [
    (None, "html"), ("text/html", "html"), ("application/xhtml+xml", "html"), ("*/*", "html"),
    ("text/turtle", "turtle"), ("application/ld+json", "jsonld"), ("application/n-triples", "ntriples"),
    ("application/rdf+xml", "rdfxml"), ("text/turtle;q=0.5,text/html;q=0.4", "turtle"), ("image/png", None),
]


@pytest.mark.parametrize("accept,expected", SOLUTIONS)
def test_solutions(accept, expected):
    assert negotiate(accept, SOLUTION_OFFERS) == expected


@pytest.mark.parametrize("accept,expected", GRAPHS)
def test_graphs(accept, expected):
    assert negotiate(accept, GRAPH_OFFERS) == expected


@pytest.mark.parametrize("accept,expected", ENTITIES)
def test_entities(accept, expected):
    assert negotiate(accept, ENTITY_OFFERS) == expected


def test_every_offer_has_a_content_type():
    for key, _ in SOLUTION_OFFERS + GRAPH_OFFERS + ENTITY_OFFERS:
        assert key in CONTENT_TYPES


@pytest.mark.parametrize("fmt,accept,expected", [
    ("csv", "text/html", ("csv", "html")), ("csv", None, ("csv", None)), ("html", None, ("html", "html")), ("json", None, ("json", "jsonld")),
    ("turtle", None, (None, "turtle")), ("jsonld", None, (None, "jsonld")),
    (None, "text/csv", ("csv", None)), (None, "text/turtle", (None, "turtle")), (None, None, ("json", "turtle")),
])
def test_result_formats(fmt, accept, expected):
    assert result_formats(fmt, accept) == expected


# what SPARQLWrapper 2.0 sends (format=, output= and results= beside its Accept): honoured
@pytest.mark.parametrize("fmt,accept,expected", [
    ("rdf+xml", "application/rdf+xml", (None, "rdfxml")), ("rdf", "application/rdf+xml", (None, "rdfxml")),
    ("json-ld", "application/ld+json,application/x-json+ld", (None, "jsonld")),
    ("n3", "application/turtle,text/turtle,text/rdf+n3", (None, "turtle")),
    ("turtle", "application/turtle,text/turtle", (None, "turtle")),
    ("xml", "application/rdf+xml", ("xml", "rdfxml")), ("xml", "application/sparql-results+xml", ("xml", "rdfxml")),
    ("json", "application/sparql-results+json,application/json", ("json", "jsonld")),
    ("csv", "text/csv", ("csv", None)), ("tsv", "text/tab-separated-values", ("tsv", None)),
    ("application/sparql-results+json", None, ("json", None)), ("text/turtle", None, (None, "turtle")),
    ("nope", "text/csv", ("csv", None)),  # a name nobody knows: Accept decides
])
def test_client_format_names(fmt, accept, expected):
    assert result_formats(fmt, accept) == expected


@pytest.mark.parametrize("fmt,accept,status", [("png", None, 400), ("png", "*/*", 400), (None, "image/png", 406)])
def test_result_formats_refused(fmt, accept, status):
    with pytest.raises(Reply) as refused:
        result_formats(fmt, accept)
    assert refused.value.status == status


@pytest.mark.parametrize("rest,fmt,accept,expected", [
    ("system/x", None, None, ("system/x", "html")), ("system/x.ttl", None, "text/html", ("system/x", "turtle")),
    ("system/x.jsonld", None, None, ("system/x", "jsonld")), ("system/x.nt", "html", None, ("system/x", "ntriples")),
    ("system/x.html", None, "text/turtle", ("system/x", "html")), ("column/a.ttl", None, None, ("column/a.ttl", "html")),
    ("column/license", "turtle", "text/html", ("column/license", "turtle")),
    ("column/license", None, "application/rdf+xml", ("column/license", "rdfxml")),
])
def test_entity_format(rest, fmt, accept, expected):
    assert entity_format(rest, fmt, accept) == expected


@pytest.mark.parametrize("fmt,accept,status", [("csv", None, 400), ("json", None, 400), ("nope", None, 400),
                                               (None, "image/png", 406)])
def test_entity_format_refused(fmt, accept, status):
    with pytest.raises(Reply) as refused:
        entity_format("system/x", fmt, accept)
    assert refused.value.status == status
