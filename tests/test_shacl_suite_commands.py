"""The SHACL Core conformance suite through the command: ``kg validate DATA --shapes SHAPES --format turtle``
run as a real process on every case (the W3C suite's 98 and kg's own), its report compared with the
expected one as a multiset of results (tests/shacl_suite/suite.py: two alike sh:result nodes are two).

A case's own Turtle file is given to the command when a parse of it labels its blank nodes the same
way each time; otherwise (a ``[]`` in the data or the shapes gets a new label at each parse) the test
writes the triples of one parse as N-Triples and gives those to the command, so that the report's
blank nodes (a focus node, a value, a source shape: kg names them by the labels of a single file)
can be looked up in the graph the expected report is read against. Two processes at a time.
"""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyoxigraph
import pytest

from kg.cli import EXIT_OK, EXIT_VIOLATIONS

sys.path.insert(0, str(Path(__file__).resolve().parent / "shacl_suite"))
import suite  # noqa: E402
from helpers import kg

CASES = suite.cases() + suite.cases(suite.HERE / "kg" / "manifest.ttl")


def _stable(path: Path) -> bool:
    """Whether two parses of ``path`` give the same triples (blank nodes labelled by the file)."""
    def parse() -> set:
        return set(pyoxigraph.parse(path=str(path), format=pyoxigraph.RdfFormat.TURTLE, base_iri=path.as_uri()))
    return parse() == parse()


def _given(path: Path, folder: Path) -> tuple[Path, suite.Graph]:
    """The file to give the command for ``path``, and the graph its report is read against."""
    if _stable(path):
        return path, suite.Graph.of(path)
    graph = suite.Graph.of(path)
    copy = folder / (path.stem + ".nt")
    copy.write_bytes(pyoxigraph.serialize(graph.triples, format=pyoxigraph.RdfFormat.N_TRIPLES) or b"")
    return copy, graph


def _outcome(case: suite.Case, folder: Path) -> str | None:
    """None when the command's report equals the expected one; else what differs."""
    folder.mkdir(parents=True)
    data, data_graph = _given(case.data, folder)
    shapes, shapes_graph = (data, data_graph) if case.shapes == case.data else _given(case.shapes, folder)
    run = kg("validate", str(data), "--shapes", str(shapes), "--format", "turtle", "--fail-on", "info",
             "--store", str(folder / "unused"), text=False, timeout=120)
    if run.returncode != (EXIT_OK if case.conforms else EXIT_VIOLATIONS):
        return f"exit {run.returncode}: {run.stderr.decode(errors='replace')[-300:]}"
    report = list(pyoxigraph.parse(run.stdout, format=pyoxigraph.RdfFormat.TURTLE))
    got = suite.report_keys(report, shapes_graph, data_graph)
    if got != (case.conforms, case.results):
        return f"conforms {got[0]}, results {dict(got[1])} (expected {case.conforms}, {dict(case.results)})"
    return None


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory) -> dict[str, str | None]:
    top = tmp_path_factory.mktemp("suite")
    with ThreadPoolExecutor(2) as pool:
        found = pool.map(lambda pair: _outcome(pair[1], top / str(pair[0])), enumerate(CASES))
        return {case.name: outcome for case, outcome in zip(CASES, found)}


def test_every_case_of_the_suite_gives_its_expected_report_through_the_command(outcomes):
    wrong = {name: outcome for name, outcome in outcomes.items() if outcome is not None}
    assert len(outcomes) == 104 and wrong == {}


def test_alike_results_are_each_reported(outcomes):
    # the cases whose expected reports hold alike results: each pair of values sh:lessThan finds, two
    # sh:class constraints a value breaks, a property shape two node shapes share, two shared languages
    alike = [case.name for case in CASES if any(count > 1 for _, count in case.results)]
    assert {"property/lessThan-002", "validation-reports/shared", "kg/uniqueLang-001"} <= set(alike)
    assert all(outcomes[name] is None for name in alike)
