"""kg.sparql.lexer: comments, strings, IRIs against '<' operators, names, query forms."""

from __future__ import annotations

import pytest

from kg import queries
from kg.sparql.lexer import code_tokens, has_keyword, keywords, query_form, tokens, variables


def kinds(text):
    return [(t.kind, t.text) for t in tokens(text)]


def test_every_character_of_code_is_in_one_token():
    text = 'PREFIX ex: <https://e.org/#> SELECT ?s $o { ?s ex:p "v"@en , 1.5e3 ; ex:q _:b . } # end'
    found = list(tokens(text))
    assert all(text[t.start:t.end] == t.text for t in found)
    gaps = [text[a.end:b.start] for a, b in zip(found, found[1:])] + [text[:found[0].start], text[found[-1].end:]]
    assert all(not gap.strip() for gap in gaps)  # between tokens: whitespace only


def test_comments_end_at_the_line_and_hide_what_they_hold():
    assert kinds("?a # { SERVICE \"\n?b") == [("var", "?a"), ("comment", '# { SERVICE "'), ("var", "?b")]
    assert kinds("?a #x\r?b")[-1] == ("var", "?b")


def test_hash_inside_an_iri_a_string_or_an_escaped_name_is_not_a_comment():
    assert kinds("<https://e.org/a#b> }") == [("iri", "<https://e.org/a#b>"), ("punct", "}")]
    assert kinds('"a # b" }') == [("string", '"a # b"'), ("punct", "}")]
    assert kinds("ex:a\\#b }") == [("pname", "ex:a\\#b"), ("punct", "}")]


@pytest.mark.parametrize("literal", [
    '"plain"', "'single'", '"with \\" escaped"', "'it\\'s'", '"""long "quoted" text"""', "'''long\n'line'\n'''",
    '"""ends in quotes"" """', '"""a""""', "'''a'''''", '"{ } # ?x SERVICE"', '""', "''",
])
def test_strings_of_every_quote_and_escape_are_one_token(literal):
    assert kinds(literal + " }") == [("string", literal), ("punct", "}")]


def test_an_unterminated_string_stops_at_the_line_end_and_never_raises():
    assert kinds('"open\n?x') == [("string", '"open'), ("var", "?x")]
    assert kinds('"""open\n?x') == [("string", '"""open\n?x')]
    assert kinds('"\\') == [("string", '"\\')]


@pytest.mark.parametrize("text, expected", [
    ("FILTER(?a<?b)", ["FILTER", "(", "?a", "<", "?b", ")"]),
    ("FILTER(?a<?b && ?c>?d)", ["FILTER", "(", "?a", "<", "?b", "&&", "?c", ">", "?d", ")"]),
    ("FILTER(?a <= 3)", ["FILTER", "(", "?a", "<=", "3", ")"]),
    ("FILTER(?a<<b>)", ["FILTER", "(", "?a", "<", "<b>", ")"]),
    ("FILTER(STR(?a)<\"x\")", ["FILTER", "(", "STR", "(", "?a", ")", "<", '"x"', ")"]),
    ("FILTER ex:f(?a<?b)", ["FILTER", "ex:f", "(", "?a", "<", "?b", ")"]),
    ("SELECT (?a<?b AS ?c) {}", ["SELECT", "(", "?a", "<", "?b", "AS", "?c", ")", "{", "}"]),
    ("ORDER BY ex:f(?a<?b)", ["ORDER", "BY", "ex:f", "(", "?a", "<", "?b", ")"]),
])
def test_lt_after_an_operand_in_an_expression_is_an_operator(text, expected):
    assert [t.text for t in tokens(text)] == expected


@pytest.mark.parametrize("text, iri", [
    ("{ ?s <p> ?o }", "<p>"),
    ("{ ?s ?p ?o FILTER(EXISTS { ?s <p> ?o }) }", "<p>"),  # a group inside an expression holds patterns
    ("{ ?s ex:p (?a <b>) }", "<b>"),  # a collection, not a call
    ("VALUES (?x) { (<a>) }", "<a>"),
    ("{ ?s ?p ( true (?x <c>) ) }", "<c>"),
    ("FILTER(?x IN (<a>, <b>))", "<a>"),
    ('FILTER(?x = "1"^^<dt>)', "<dt>"),
])
def test_lt_elsewhere_opens_an_iri(text, iri):
    assert ("iri", iri) in kinds(text)


def test_triple_terms_and_annotations_are_brackets_of_their_own():
    assert [t.text for t in tokens("<<(?a?b?c)>> {| ?q ?r |}")] == [
        "<<", "(", "?a", "?b", "?c", ")", ">>", "{|", "?q", "?r", "|}"]


def test_names_variables_blank_nodes_numbers_and_tags():
    text = "?x $y ex:a-b.c ex:. :local ex: _:b1 a 42 -1 .5 1e3 2. @en-GB @ar--rtl"
    assert kinds(text) == [
        ("var", "?x"), ("var", "$y"), ("pname", "ex:a-b.c"), ("pname", "ex:"), ("punct", "."), ("pname", ":local"),
        ("pname", "ex:"), ("bnode", "_:b1"), ("word", "a"), ("number", "42"), ("punct", "-"), ("number", "1"),
        ("number", ".5"), ("number", "1e3"), ("number", "2"), ("punct", "."), ("lang", "@en-GB"),
        ("lang", "@ar--rtl")]
    assert variables("SELECT ?a { ?a ?b $c } # ?d") == {"a", "b", "c"}


def test_keywords_are_bare_words_only():
    text = 'SELECT * { ?service <https://e.org/service> "SERVICE" . ?s service:x ex:SERVICE } # SERVICE'
    assert not has_keyword(text, "SERVICE")
    assert has_keyword("select * { SeRvIcE#c\n<x> { } }", "service")
    assert keywords("PREFIX ex: <a:b> ASK { ?s a ex:C FILTER(isIRI(?s)) }") == {"PREFIX", "ASK", "A", "FILTER", "ISIRI"}


@pytest.mark.parametrize("text, form", [
    ("SELECT * {}", "SELECT"), ("PREFIX ex: <a:> BASE <b:> ask {}", "ASK"),
    ("# SELECT\nCONSTRUCT WHERE {}", "CONSTRUCT"), ("DESCRIBE <x>", "DESCRIBE"),
    ("PREFIX select: <a:> INSERT DATA {}", "UPDATE"), ("WITH <g> DELETE {} WHERE {}", "UPDATE"),
    ("DROP ALL", "UPDATE"), ("LOAD <x>", "UPDATE"), ("", None), ("FOO", None), ('"SELECT"', None),
])
def test_query_form(text, form):
    assert query_form(text) == form
    assert query_form(code_tokens(text)) == form


def test_every_bundled_query_lexes_into_balanced_groups_without_a_lt_operator():
    for name in queries.available():
        text = queries.load(name).text
        found = code_tokens(text)
        assert query_form(found) in ("SELECT", "CONSTRUCT", "ASK", "DESCRIBE"), name
        opened = sum(t.text == "{" for t in found)
        assert opened and opened == sum(t.text == "}" for t in found), name
        assert not [t for t in found if t.text == "<"], name  # every '<' of ours opens an IRI
