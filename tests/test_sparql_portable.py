"""Every named query is standard SPARQL 1.1, as written and as kg sends it with each parameter set of
tests/portability.py: rdflib's parser and algebra accept it, and no variable is assigned while in
scope (tests/sparql_scope.py: the rule rdflib and Oxigraph do not enforce and Jena does, which once
made ``vendor-portfolio -p vendor=google`` an HTTP 400 on Jena). Where Apache Jena is installed, its
strict SPARQL 1.1 parser (ARQ, as ``qparse``) reads every text too.
"""

from __future__ import annotations

import pytest
from rdflib.plugins.sparql.algebra import translateQuery
from rdflib.plugins.sparql.parser import parseQuery

import engine_servers
import portability
import sparql_scope
from kg import queries


@pytest.fixture(scope="module")
def texts(bundled_store) -> dict[str, str]:
    """label -> query text: each named query as written, and bound with each of its parameter sets."""
    found: dict[str, str] = {}
    for name in queries.available():
        query = queries.load(name)
        found[name] = query.text
        if name in portability.NOT_ASKED:  # no parameter set answers on the bundled catalog
            continue
        for number, params in enumerate(portability.param_sets(name)):
            found[f"{name}#{number}"] = queries.plan(query, params, bundled_store).text
    return found


def test_every_text_parses_as_sparql_11_and_assigns_no_variable_in_scope(texts):
    problems = {}
    for label, text in texts.items():
        translateQuery(parseQuery(text))  # raises on what rdflib's grammar or algebra refuses
        if sparql_scope.problems(text):
            problems[label] = sparql_scope.problems(text)
    assert problems == {}
    assert len(texts) > 2 * len(queries.available())


def test_the_scope_rule_catches_what_jena_refused():
    """vendor-portfolio as it was: VALUES ?vendor bound while the SELECT assigns (... AS ?vendor)."""
    old = ("SELECT (?vendorName AS ?vendor) WHERE { VALUES (?vendor) { (\"google\") } "
           "?v <urn:x:label> ?vendorName FILTER(CONTAINS(?vendorName, ?vendor)) }")
    assert sparql_scope.problems(old) == ["(... AS ?vendor) in SELECT: ?vendor is already in scope"]


def test_jena_parses_every_text(texts, tmp_path, jena_build):
    """Every text, and the old vendor-portfolio text bound (which the strict parser must refuse), in one JVM."""
    files = []
    for number, (label, text) in enumerate(texts.items()):
        path = tmp_path / f"{number}.rq"
        path.write_text(text, encoding="utf-8")
        files.append((label, path))
    old = tmp_path / "old.rq"
    old.write_text("SELECT (?n AS ?vendor) WHERE { VALUES (?vendor) { (\"google\") } ?v <urn:x:p> ?n }")
    outcome = engine_servers.jena_parse(jena_build, [path for _, path in files] + [old])
    refused = {label: outcome[str(path)] for label, path in files if outcome[str(path)] != "ok"}
    assert refused == {} and len(outcome) == len(files) + 1
    assert "already in-scope" in outcome[str(old)]  # the parser is strict
