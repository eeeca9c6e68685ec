"""What tests/test_engines_jena.py and tests/test_engines_virtuoso.py check of each engine, said once:
the push is whole (every graph's quads counted on the server, no staging graph left), every named
query with each parameter set of tests/portability.py gives the local rows (the queries an engine
cannot answer are listed with the engine's reason, and must keep failing: a strict xfail), and the
portability table of docs/guide/push.md says what the engine did."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import portability
from kg import queries
from kg.pushes import push, remote_counts
from kg.remote_http import Remote
from kg.remote_query import Endpoint
from kg.vocab import Iris


def pushed(engine, store, **options) -> SimpleNamespace:
    """``store`` pushed to ``engine`` (update mode unless ``graph_store`` is given), with its report."""
    report = push(store, engine.query, update_endpoint=engine.update, user=engine.user, password=engine.password,
                  auth=engine.auth, timeout=600, **options)
    return SimpleNamespace(engine=engine, report=report, outcomes=portability.EngineOutcomes(engine.name))


def assert_whole(engine, store) -> None:
    """Every local graph has as many quads on the server, and no staging graph is left there."""
    remote = Remote(user=engine.user, password=engine.password, auth=engine.auth, timeout=300)
    try:
        graphs = store.named_graphs()
        local = {g.value: store.graph_size(g) for g in graphs}
        assert remote_counts(remote, engine.query, graphs) == local
        staging = remote.select(engine.query, "SELECT ?g WHERE { GRAPH ?g { ?s ?p ?o } "
                                              f"FILTER(STRSTARTS(STR(?g), \"{Iris().push_staging_prefix()}\")) }} LIMIT 1")
        assert staging == []
    finally:
        remote.close()


def tamper(engine, graphs) -> None:
    """A quad of junk added to each of ``graphs`` on the server (a push must replace it)."""
    remote = Remote(user=engine.user, password=engine.password, auth=engine.auth, timeout=300)
    try:
        for graph in graphs:
            remote.update(engine.update, f"INSERT DATA {{ GRAPH {graph} {{ <urn:x:junk> <urn:x:p> \"junk\" }} }}")
    finally:
        remote.close()


def query_cases(known_failures: dict[str, str]) -> list:
    """Every named query as a test case; those of ``known_failures`` a strict xfail with the reason."""
    return [pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=known_failures[name]))
            if name in known_failures else name for name in portability.names()]


def check_query(loaded, store, name: str) -> None:
    """``name`` with each of its parameter sets gives the local rows on the engine (recorded for the table)."""
    found = portability.compare_all(store, lambda: Endpoint(loaded.engine.query, timeout=300), loaded.engine.name,
                                    [name])
    loaded.outcomes.outcomes.extend(found.outcomes)
    differed = [(o.params, o.detail) for o in found.outcomes if not o.matched]
    assert differed == [], differed  # said in full: pytest does not rewrite the asserts of a helper module


def check_table(loaded) -> None:
    """The portability table in the docs says what this engine did (``python tests/portability.py --write``)."""
    names = {o.name for o in loaded.outcomes.outcomes}
    if names != set(portability.names()):
        pytest.skip("not every query of this engine ran (run the whole file)")
    found = {name: portability.verdict(loaded.outcomes, name) for name in portability.names()}
    documented = portability.documented()[loaded.engine.name]
    unlike = {name: (documented.get(name), verdict) for name, verdict in found.items() if documented.get(name) != verdict}
    assert unlike == {}, f"the table says, {loaded.engine.name} did: {unlike}"
