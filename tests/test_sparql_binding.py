"""kg.sparql.binding: one parameter-binding semantics for kg query, GraphStore.query and the rest."""

from __future__ import annotations

import pytest
from pyoxigraph import BlankNode, Literal, NamedNode, Quad, Store, Variable

from kg.errors import QueryError
from kg.sparql.binding import bind
from kg.store import GraphStore

EX = "https://example.org/"
A, B, P, Q = (NamedNode(EX + n) for n in ("a", "b", "p", "q"))


@pytest.fixture(scope="module")
def store():
    """Three triples: a p a, b p b, a q b."""
    store = GraphStore()
    g = NamedNode(EX + "g")
    store.add([Quad(A, P, A, g), Quad(B, P, B, g), Quad(A, Q, B, g)])
    return store


def test_bind_reaches_every_group_that_uses_a_parameter():
    text = """PREFIX ex: <https://example.org/#>
    # a comment with { braces } and ?id
    CONSTRUCT { ?s ex:p ?id }
    WHERE {
      ?s ex:name "a { b } ?id" .
      OPTIONAL { ?s ex:q ?id }
      { SELECT ?s WHERE { ?s ex:r ?id } }
      VALUES ?t { ex:a ex:b }
      FILTER NOT EXISTS { ?s ex:gone ?other }
    }"""
    bound = bind(text, {"id": Literal("v")})
    assert bound.count('VALUES (?id) { ("v") }') == 3  # WHERE, OPTIONAL, sub-select WHERE
    assert 'CONSTRUCT { ?s ex:p ?id }' in bound  # the template is left alone
    assert '"a { b } ?id"' in bound and "# a comment with { braces } and ?id" in bound
    assert "VALUES ?t { ex:a ex:b }" in bound
    assert "{ ?s ex:gone ?other }" in bound  # a group without the parameter is left alone
    assert "{ SELECT ?s WHERE" in bound


def test_bind_rejects_unusable_queries():
    with pytest.raises(QueryError):
        bind("CONSTRUCT WHERE { ?s ?p ?id }", {"id": Literal("x")})
    with pytest.raises(QueryError):
        bind("SELECT * WHERE { ?s ?p ?o", {"id": Literal("x")})
    with pytest.raises(QueryError):
        bind("SELECT * WHERE { ?s ?p ?o } }", {"id": Literal("x")})
    with pytest.raises(QueryError):
        bind("DESCRIBE <https://example.org/x>", {"id": Literal("x")})
    with pytest.raises(QueryError, match="Update"):
        bind("DELETE { ?s ?p ?id } WHERE { ?s ?p ?id }", {"id": Literal("x")})
    assert bind("SELECT * WHERE { ?s ?p ?o }", {}) == "SELECT * WHERE { ?s ?p ?o }"


@pytest.mark.parametrize("name, term, message", [
    ("not a name", Literal("x"), "not a SPARQL variable name"),
    ("x}", Literal("x"), "not a SPARQL variable name"),
    ("?x", Literal("x"), "not a SPARQL variable name"),
    ("x", BlankNode(), "expected an IRI or a literal"),
    ("x", "plain text", "expected an IRI or a literal"),
])
def test_names_and_terms_are_checked(name, term, message):
    with pytest.raises(QueryError, match=message):
        bind("SELECT * { ?s ?p ?x }", {name: term})


def test_a_sub_select_that_does_not_project_the_parameter_still_sees_it(store):
    text = "SELECT ?n WHERE { { SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o } } }"
    assert [r["n"].value for r in store.select(text, {"o": B})] == ["2"]  # b p b, a q b
    # what a single VALUES block at the top would give: every triple counted
    top_only = text.replace("WHERE {", "WHERE { VALUES (?o) { (%s) }" % B, 1)
    assert [r["n"].value for r in store.select(top_only)] == ["3"]


def test_a_mention_in_a_sub_select_projection_binds_its_where_group(store):
    text = "SELECT ?x WHERE { { SELECT (STR(?o) AS ?x) WHERE { ?s ?p ?other } LIMIT 1 } }"
    bound = bind(text, {"o": A})
    assert bound.count("VALUES (?o)") == 2
    assert [r["x"].value for r in store.select(text, {"o": A})] == [A.value]


def test_store_query_and_named_queries_share_the_semantics(store):
    text = "SELECT ?s WHERE { ?s ?p ?o OPTIONAL { ?s ?q ?o } MINUS { ?s ?p ?s } }"
    rows = store.select(text, {"o": B})
    assert [r["s"] for r in rows] == [A]  # b p b is subtracted; a q b stays
    assert bind(text, {"o": B}).count("VALUES (?o)") == 2  # WHERE and OPTIONAL, not MINUS


def test_a_parameter_the_query_does_not_mention_changes_nothing(store):
    assert len(store.select("SELECT * WHERE { ?s ?p ?o }", {"unused": A})) == 3


@pytest.mark.parametrize("value", [
    'x" } ; DROP ALL #', "x' } }", '"""', "\\", "a\nb\r\nc", "\u0000", "} UNION { ?s ?p ?o", "<https://e.org/>",
    "?o", "# comment", "\u202e\u0301 unicode",
])
def test_a_hostile_value_stays_one_literal(value):
    store = GraphStore()
    store.add([Quad(A, P, Literal(value), NamedNode(EX + "g")), Quad(B, P, Literal("other"), NamedNode(EX + "g"))])
    rows = store.select("SELECT ?s WHERE { ?s ?p ?v }", {"v": Literal(value)})
    assert [r["s"] for r in rows] == [A]
    assert store.count("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }") == 2  # nothing was dropped


def test_pyoxigraph_substitutions_still_refuse_an_unprojected_variable():
    """The reason bind() writes VALUES blocks instead of passing ``substitutions=``.

    If this test fails, pyoxigraph now substitutes variables outside the SELECT
    projection: kg.sparql.binding.bind can hand its terms to ``substitutions=``.
    """
    store = Store()
    store.add(Quad(A, P, B))
    projected = store.query("SELECT ?s ?o WHERE { ?s ?p ?o }", substitutions={Variable("o"): B})
    assert [row["s"] for row in projected] == [A]  # a projected variable works
    with pytest.raises(RuntimeError, match="SELECT projection"):
        store.query("SELECT ?s WHERE { ?s ?p ?o }", substitutions={Variable("o"): B})
