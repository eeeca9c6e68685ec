"""``kg serve`` asked by client libraries nobody here wrote: SPARQLWrapper 2.0 in every return
format it has (SELECT, ASK, CONSTRUCT and DESCRIBE; it sends ``format=``, ``output=`` and
``results=`` beside its ``Accept``) and rdflib's SPARQLStore. The answers are checked against
the bundled catalog's JSON.
Comunica (npm) has its own file, tests/test_serve_comunica.py.
"""

from __future__ import annotations

import pytest

from serving import kg_serve

SPARQLWrapper = pytest.importorskip("SPARQLWrapper")
rdflib = pytest.importorskip("rdflib")

TIER_FIVE = ("PREFIX kg: <https://w3id.org/agent-landscape/ontology#>\n"
             "PREFIX schema: <https://schema.org/>\n"
             "SELECT ?system ?name WHERE { ?system a kg:System ; kg:tier 5 ; schema:name ?name }")
CONSTRUCT = ("PREFIX kg: <https://w3id.org/agent-landscape/ontology#>\n"
             "PREFIX schema: <https://schema.org/>\n"
             "CONSTRUCT { ?system schema:name ?name } WHERE { ?system a kg:System ; kg:tier 5 ; schema:name ?name }")


@pytest.fixture(scope="module")
def endpoint(bundled_store):
    with kg_serve(bundled_store.path) as url:
        yield url + "/sparql"


@pytest.fixture(scope="module")
def tier_five(expected_records) -> set[str]:
    return {r["name"] for r in expected_records.values() if r["tier"] == 5}


def ask(endpoint: str, query: str, fmt: str, method: str = "GET"):
    from SPARQLWrapper import SPARQLWrapper as Client

    client = Client(endpoint)
    client.setQuery(query)
    client.setReturnFormat(fmt)
    client.setMethod(method)
    return client.query()


@pytest.mark.parametrize("fmt", ["json", "xml", "csv", "tsv"])
@pytest.mark.parametrize("method", ["GET", "POST"])
def test_select_in_every_format(endpoint, tier_five, fmt, method):
    import csv
    import io

    result = ask(endpoint, TIER_FIVE, fmt, method)
    converted = result.convert()
    if fmt == "json":
        names = {b["name"]["value"] for b in converted["results"]["bindings"]}
    elif fmt == "xml":
        names = {node.firstChild.nodeValue for binding in converted.getElementsByTagName("binding")
                 if binding.getAttribute("name") == "name" for node in binding.getElementsByTagName("literal")}
    else:
        text = converted.decode("utf-8")
        rows = list(csv.reader(io.StringIO(text), delimiter="," if fmt == "csv" else "\t"))
        names = {row[1] for row in rows[1:]} if fmt == "csv" else {row[1].strip('"') for row in rows[1:]}
    assert names == tier_five


@pytest.mark.parametrize("fmt", ["turtle", "n3", "xml", "rdf+xml", "json-ld"])
@pytest.mark.parametrize("method", ["GET", "POST"])
def test_construct_in_every_format(endpoint, tier_five, fmt, method):
    """SPARQLWrapper's CONSTRUCT in each RDF return format: never a 400 for its format= value."""
    result = ask(endpoint, CONSTRUCT, fmt, method)
    graph = result.convert()
    if not isinstance(graph, rdflib.Graph):  # turtle, n3 and json-ld come back as bytes
        parse_as = {"turtle": "turtle", "n3": "turtle", "json-ld": "json-ld"}[fmt]
        graph = rdflib.Graph().parse(data=graph, format=parse_as)
    assert {str(o) for o in graph.objects(None, rdflib.URIRef("https://schema.org/name"))} == tier_five


@pytest.mark.parametrize("fmt", ["turtle", "xml", "json-ld"])
def test_describe(endpoint, expected_records, fmt):
    system = sorted(i for i, r in expected_records.items() if r["tier"] == 5)[0]
    query = f"DESCRIBE <https://w3id.org/agent-landscape/id/system/{system}>"
    graph = ask(endpoint, query, fmt).convert()
    if not isinstance(graph, rdflib.Graph):
        graph = rdflib.Graph().parse(data=graph, format={"turtle": "turtle", "json-ld": "json-ld"}[fmt])
    names = {str(o) for o in graph.objects(rdflib.URIRef(f"https://w3id.org/agent-landscape/id/system/{system}"),
                                           rdflib.URIRef("https://schema.org/name"))}
    assert names == {expected_records[system]["name"]}


def test_ask(endpoint, expected_records):
    assert ask(endpoint, "ASK { ?s a <https://w3id.org/agent-landscape/ontology#System> }", "json").convert()["boolean"]


def test_rdflib_sparqlstore(endpoint, tier_five):
    from rdflib.plugins.stores.sparqlstore import SPARQLStore

    graph = rdflib.Graph(store=SPARQLStore(endpoint, returnFormat="json"))
    assert {str(row.name) for row in graph.query(TIER_FIVE)} == tier_five
    built = rdflib.Graph(store=SPARQLStore(endpoint)).query(CONSTRUCT)  # its default: XML, RDF/XML for graphs
    assert {str(o) for o in built.graph.objects(None, rdflib.URIRef("https://schema.org/name"))} == tier_five


def test_rdflib_sparqlstore_asks_a_construct_for_json(endpoint, tier_five):
    """SPARQLStore with returnFormat json sends ``Accept: application/sparql-results+json`` for a
    CONSTRUCT too: the graph comes in the default RDF format (Turtle), never a 406."""
    from rdflib.plugins.stores.sparqlstore import SPARQLStore

    built = rdflib.Graph(store=SPARQLStore(endpoint, returnFormat="json")).query(CONSTRUCT)
    assert built.type == "CONSTRUCT"
    assert {str(o) for o in built.graph.objects(None, rdflib.URIRef("https://schema.org/name"))} == tier_five
