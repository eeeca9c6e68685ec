"""kg push and every named query against Virtuoso 7.2 (Debian's virtuoso-opensource), started on free
loopback ports over a new database once per test session (tests/engine_fixtures.py): the bundled
catalog pushed by SPARQL Update (Digest, /sparql-auth: it once failed with "The length of generated
SQL text has exceeded 10000 lines of code"), then a few graphs, tampered with on the server, pushed
again by Graph Store Protocol PUTs (/sparql-graph-crud-auth), each verified whole; every named query
compared with the local answers (tests/engine_checks.py). Skipped with the reason where Virtuoso is
not installed; in CI a failure (.ci/run installs it).
"""

from __future__ import annotations

import pytest
from pyoxigraph import NamedNode

import engine_checks

# What Virtuoso 7.2.5's SPARQL compiler refuses of these queries, in its words (they run on Jena
# and Oxigraph); a strict xfail: the day one of them answers, this list and the table are updated.
KNOWN_FAILURES = {
    "compare": "Virtuoso 7.2: 'Unsupported case in CONVERT (VARCHAR -> IRI_ID)' (a literal bound in a nested "
               "group); bound as IRIs instead, its optimiser never ends the OPTIONAL join of the two systems' cells",
    "find": "Virtuoso 7.2: 'SPARQL compiler: Internal error: lost filters in equivs'",
    "search": "Virtuoso 7.2: 'The memory pool size ... reached the limit 400000000 bytes' (the words matcher "
              "compiles to too much SQL; before main's matcher changed: 'Maximum size (32767) of a code vector')",
}


@pytest.fixture(scope="module")
def virtuoso(virtuoso_loaded):
    return virtuoso_loaded


def test_both_push_modes_are_whole_and_verified(virtuoso, bundled_store):
    """Update mode: every graph, 250 quads a request at most (Virtuoso's cap). Graph Store mode: each
    chosen graph one PUT, the junk added on the server gone. Then the server holds every local graph
    whole, quad for quad, and no staging graph."""
    update, graph_store = virtuoso.report, virtuoso.graph_store_report
    assert update.verified is True and update.mode == "update" and update.graphs == len(bundled_store.named_graphs())
    assert update.requests > len(bundled_store) / 250
    assert graph_store.verified is True and graph_store.mode == "graph-store"
    assert graph_store.graphs == len(virtuoso.graph_store_graphs) == 3
    assert graph_store.requests >= graph_store.graphs
    assert graph_store.quads == sum(bundled_store.graph_size(NamedNode(g)) for g in virtuoso.graph_store_graphs)
    engine_checks.assert_whole(virtuoso.engine, bundled_store)


@pytest.mark.parametrize("name", engine_checks.query_cases(KNOWN_FAILURES))
def test_every_named_query_gives_the_local_rows(virtuoso, bundled_store, name):
    engine_checks.check_query(virtuoso, bundled_store, name)


def test_the_portability_table_says_what_virtuoso_did(virtuoso):
    engine_checks.check_table(virtuoso)
