"""kg.sparql.guard, case by case without a store: what a query or an update may not do
here, checked before evaluation.

The tests with a store and a listener that must never be reached are in
test_sparql_guard.py (the guard through kg query) and test_serve.py (through the endpoint).
"""

from __future__ import annotations

import pytest

from kg.errors import QueryError
from kg.sparql.guard import CheckedQuery, QueryRefused, check_query, check_update

URL = "http://127.0.0.1:9/sparql"
LOCAL = "https://w3id.org/agent-landscape/data/graph/edges"

# every spelling of SERVICE the endpoint tests send, with a fixed URL
SERVICE_FORMS = [
    "SELECT * WHERE {{ SERVICE <{url}> {{ ?s ?p ?o }} }}",
    "select * where {{ service <{url}> {{ ?s ?p ?o }} }}",
    "SELECT * WHERE {{ SERVICE SILENT <{url}> {{ ?s ?p ?o }} }}",
    "SELECT * WHERE {{ BIND(<{url}> AS ?e) SERVICE ?e {{ ?s ?p ?o }} }}",
    "SELECT * WHERE {{ {{ SELECT ?s WHERE {{ SERVICE SILENT <{url}> {{ ?s ?p ?o }} }} }} }}",
    "SELECT * WHERE {{ ?s ?p ?o FILTER EXISTS {{ SERVICE SILENT <{url}> {{ ?s ?p ?o }} }} }} LIMIT 1",
    "SELECT * WHERE {{ ?s ?p ?o FILTER NOT EXISTS {{ SERVICE SILENT <{url}> {{ ?s ?p ?o }} }} }} LIMIT 1",
    "ASK {{ OPTIONAL {{ SERVICE SILENT <{url}> {{ ?s ?p ?o }} }} }}",
    "CONSTRUCT {{ ?s ?p ?o }} WHERE {{ {{ SERVICE SILENT <{url}> {{ ?s ?p ?o }} }} UNION {{ ?s ?p ?o }} }} LIMIT 1",
    "PREFIX r: <{url}> SELECT * WHERE {{ SERVICE SILENT r: {{ ?s ?p ?o }} }}",
    "SELECT * WHERE {{ SeRvIcE#comment\n<{url}> {{ ?s ?p ?o }} }}",
    "SELECT * WHERE {{ ?s ?p ?o LATERAL {{ SERVICE SILENT <{url}> {{ ?s ?p ?x }} }} }} LIMIT 1",
]



@pytest.mark.parametrize("form", SERVICE_FORMS)
def test_every_form_of_service_is_refused(form):
    with pytest.raises(QueryRefused, match="SERVICE is not allowed"):
        check_query(form.format(url=URL), set())


@pytest.mark.parametrize("text,form", [
    ("SELECT * WHERE { ?s ?p ?o }", "SELECT"), ("ASK { ?s ?p ?o }", "ASK"),
    ("CONSTRUCT WHERE { ?s ?p ?o }", "CONSTRUCT"), ("DESCRIBE <https://e.org/x>", "DESCRIBE"),
])
def test_the_form_of_a_query(text, form):
    assert check_query(text, set()) == CheckedQuery(form=form, has_dataset=False)


def test_from_only_names_graphs_of_the_store():
    checked = check_query(f"SELECT * FROM <{LOCAL}> WHERE {{ ?s ?p ?o }}", {LOCAL})
    assert checked.has_dataset and checked.form == "SELECT"
    for text in (f"SELECT * FROM <{URL}> WHERE {{ ?s ?p ?o }}",
                 f"SELECT * FROM NAMED <{URL}> WHERE {{ GRAPH ?g {{ ?s ?p ?o }} }}",
                 f"select * from <{URL}> where {{ ?s ?p ?o }}"):
        with pytest.raises(QueryRefused, match="FROM .* is not a graph of this store"):
            check_query(text, {LOCAL})


def test_from_named_of_a_graph_of_the_store_is_allowed():
    assert check_query(f"SELECT * FROM NAMED <{LOCAL}> WHERE {{ GRAPH ?g {{ ?s ?p ?o }} }}", {LOCAL}).has_dataset


def test_what_rdflib_cannot_parse_is_refused_fail_closed():
    # valid for pyoxigraph (LATERAL, RDF 1.2 triple terms) but not for rdflib
    for text in ("SELECT * WHERE { ?s ?p ?o LATERAL { SELECT ?x WHERE { ?s ?p ?x } LIMIT 1 } } LIMIT 1",
                 "SELECT * WHERE { ?s ?p <<( ?a ?b ?c )>> }", "SELECT ?x WHERE { ?x ?p "):
        with pytest.raises(QueryRefused, match="malformed or unsupported"):
            check_query(text, set())


def test_an_update_is_not_a_query():
    with pytest.raises(QueryRefused, match="this is not a query"):
        check_query('INSERT DATA { <https://e.org/s> <https://e.org/p> "x" }', set())


def test_updates_refuse_load_and_service():
    check_update('INSERT DATA { <https://e.org/s> <https://e.org/p> "x" }')
    check_update("DROP SILENT GRAPH <https://e.org/g>")
    for text in (f"LOAD <{URL}>", f"load silent <{URL}> into graph <https://e.org/g>"):
        with pytest.raises(QueryRefused, match="LOAD is not allowed"):
            check_update(text)
    with pytest.raises(QueryRefused, match="SERVICE is not allowed"):
        check_update(f"INSERT {{ ?s ?p ?o }} WHERE {{ SERVICE SILENT <{URL}> {{ ?s ?p ?o }} }}")
    with pytest.raises(QueryRefused, match="malformed or unsupported SPARQL Update"):
        check_update("INSERT DATA { <https://e.org/s> ")


def test_a_refusal_is_a_query_error():
    assert issubclass(QueryRefused, QueryError)  # the command line reports it as one
