"""kg push and every named query against Apache Jena TDB2 (Debian's libapache-jena-java 4.5, behind
tests/jena/JenaFront.java: Fuseki is not packaged), started on a free loopback port for this module:
the bundled catalog pushed once by SPARQL Update (the largest graphs staged and moved into place),
every named query compared with the local answers (tests/engine_checks.py), ``vendor-portfolio -p
vendor=google`` answered (HTTP 400 before: a variable bound while the SELECT assigns it), and a
store without a union default graph named as such, never an empty answer. Skipped with the reason
where Jena is not installed; in CI a failure (.ci/run installs it).
"""

from __future__ import annotations

import csv
import io

import pytest

import engine_checks
import engine_servers
from kg import queries
from kg.cli import main

KNOWN_FAILURES: dict[str, str] = {}  # every named query answers on Jena


@pytest.fixture(scope="module")
def jena(tmp_path_factory, bundled_store):
    engine = engine_servers.start_jena(tmp_path_factory.mktemp("jena"))
    try:
        yield engine_checks.pushed(engine, bundled_store)
    finally:
        engine.stop()


def test_the_push_is_whole_and_verified(jena, bundled_store):
    assert jena.report.verified is True and jena.report.graphs == len(bundled_store.named_graphs()) > 900
    engine_checks.assert_whole(jena.engine, bundled_store)


@pytest.mark.parametrize("name", engine_checks.query_cases(KNOWN_FAILURES))
def test_every_named_query_gives_the_local_rows(jena, bundled_store, name):
    engine_checks.check_query(jena, bundled_store, name)


def test_vendor_portfolio_of_google_answers(jena, bundled_store, capsys):
    args = ["query", "vendor-portfolio", "-p", "vendor=google", "-f", "csv"]
    assert main([*args, "--store", str(bundled_store.path)]) == 0
    here = capsys.readouterr().out
    assert main([*args, "--endpoint", jena.engine.query]) == 0
    there = capsys.readouterr().out
    assert _names_as_sets(there) == _names_as_sets(here) and "google.com" in here


def _names_as_sets(text: str) -> list[list[str]]:
    """CSV rows with the names column (a list "in no set order") sorted into its parts."""
    rows = list(csv.reader(io.StringIO(text)))
    at = rows[0].index("names")
    return [row[:at] + sorted(row[at].split("; ")) + row[at + 1:] for row in rows]


def test_the_portability_table_says_what_jena_did(jena):
    engine_checks.check_table(jena)


def test_a_store_without_a_union_default_graph_is_named_not_answered_empty(tmp_path, tiny_store, capsys):
    """Jena's default: a default graph of its own. The push succeeds; a query then exits 4 with one
    line that says why and how to configure the store, never 0 rows with exit 0."""
    engine = engine_servers.start_jena(tmp_path / "jena", union=False)
    try:
        assert engine_checks.pushed(engine, tiny_store).report.verified is True
        capsys.readouterr()
        assert main(["query", "info", "--endpoint", engine.query]) == 4
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1
        assert "default graph" in err and "tdb2:unionDefaultGraph true" in err
        with pytest.raises(Exception, match="not the union|does not"):
            queries.query(__import__("kg").endpoint(engine.query), "sections")
    finally:
        engine.stop()
