"""kg push and every named query against Virtuoso 7.2 (Debian's virtuoso-opensource), started on free
loopback ports over a new database for this module: the bundled catalog pushed by Graph Store
Protocol PUTs (/sparql-graph-crud-auth), then again by SPARQL Update (Digest, /sparql-auth: it once
failed with "The length of generated SQL text has exceeded 10000 lines of code"), replacing every
graph, each verified whole; every named query compared with the local answers (tests/engine_checks.py). Skipped with
the reason where Virtuoso is not installed; in CI a failure (.ci/run installs it).
"""

from __future__ import annotations

import pytest

import engine_checks
import engine_servers

# What Virtuoso 7.2.5's SPARQL compiler refuses of these queries, in its words (they run on Jena
# and Oxigraph); a strict xfail: the day one of them answers, this list and the table are updated.
KNOWN_FAILURES = {
    "compare": "Virtuoso 7.2: 'Unsupported case in CONVERT (VARCHAR -> IRI_ID)' (a literal bound in a nested "
               "group); bound as IRIs instead, its optimiser never ends the OPTIONAL join of the two systems' cells",
    "find": "Virtuoso 7.2: 'SPARQL compiler: Internal error: lost filters in equivs'",
    "search": "Virtuoso 7.2: 'Maximum size (32767) of a code vector exceeded' (the words matcher compiles to "
              "too much SQL)",
}


@pytest.fixture(scope="module")
def virtuoso(tmp_path_factory, bundled_store):
    engine = engine_servers.start_virtuoso(tmp_path_factory.mktemp("virtuoso"))
    try:
        loaded = engine_checks.pushed(engine, bundled_store, graph_store=engine.graph_store)
        loaded.graph_store_report = loaded.report
        engine_checks.assert_whole(engine, bundled_store)
        loaded.report = engine_checks.pushed(engine, bundled_store).report  # the queries read what this wrote
        yield loaded
    finally:
        engine.stop()


def test_both_push_modes_are_whole_and_verified(virtuoso, bundled_store):
    update, graph_store = virtuoso.report, virtuoso.graph_store_report
    assert update.verified is True and update.mode == "update" and update.requests > 200  # 1,000 quads a request
    assert graph_store.verified is True and graph_store.mode == "graph-store"
    assert graph_store.requests >= len(bundled_store.named_graphs())
    engine_checks.assert_whole(virtuoso.engine, bundled_store)


@pytest.mark.parametrize("name", engine_checks.query_cases(KNOWN_FAILURES))
def test_every_named_query_gives_the_local_rows(virtuoso, bundled_store, name):
    engine_checks.check_query(virtuoso, bundled_store, name)


def test_the_portability_table_says_what_virtuoso_did(virtuoso):
    engine_checks.check_table(virtuoso)
