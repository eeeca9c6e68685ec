"""The SHACL Core conformance suite (tests/shacl_suite/): the W3C data-shapes test suite's 98 SHACL Core
cases and kg's own, each expected report written by hand from the specification, checked against the
engine (kg.shacl) as a library call on every case and as ``kg validate DATA --shapes SHAPES --format
turtle`` on some; and the engine's own behaviour where the specification leaves the report open."""

from __future__ import annotations

import sys
from pathlib import Path

import pyoxigraph
import pytest

from kg.cli import EXIT_OK, EXIT_VIOLATIONS, main
from kg.shacl import Engine, Unsupported, report_triples

sys.path.insert(0, str(Path(__file__).resolve().parent / "shacl_suite"))
import suite  # noqa: E402  (tests/shacl_suite/suite.py: the manifests read)

W3C = suite.cases()
OURS = suite.cases(suite.HERE / "kg" / "manifest.ttl")
BY_NAME = {case.name: case for case in W3C + OURS}
COMMANDS = ["kg/class-subclass-001", "kg/datatype-ill-formed-001", "kg/lessThan-001", "kg/uniqueLang-001",
            "kg/no-value-001", "kg/shared-shapes-001", "misc/severity-002", "misc/deactivated-002",
            "node/datatype-002", "property/lessThan-001", "targets/multipleTargets-001",
            "targets/targetClassImplicit-001", "property/qualifiedValueShapesDisjoint-001"]


def _engine_report(case: suite.Case) -> tuple[Engine, list]:
    engine = Engine(case.shapes_graph.triples)
    return engine, engine.validate(engine.facts(case.data_graph.triples))


def test_the_suite_holds_every_core_case_and_ours():
    assert len(W3C) == 98 and len(OURS) == 6
    folders = {case.name.split("/")[0] for case in W3C}
    assert folders == {"complex", "misc", "node", "path", "property", "targets", "validation-reports"}
    assert sum(1 for case in W3C + OURS if not case.conforms) > 80


@pytest.mark.parametrize("case", W3C + OURS, ids=lambda case: case.name)
def test_the_engine_gives_the_expected_report(case):
    engine, found = _engine_report(case)
    conforms, keys = suite.report_keys(report_triples(found, engine.shapes), case.shapes_graph, case.data_graph)
    assert (conforms, keys) == (case.conforms, case.results)
    said = {(str(f.focus), str(m)) for f in found for m in f.messages}
    assert case.messages <= said  # sh:message copied into sh:resultMessage, language tag and all


@pytest.mark.parametrize("name", COMMANDS)
def test_kg_validate_gives_the_expected_report_graph(name, capsys):
    case = BY_NAME[name]
    code = main(["validate", str(case.data), "--shapes", str(case.shapes), "--format", "turtle",
                 "--fail-on", "info"])
    out = capsys.readouterr().out
    assert code == (EXIT_OK if case.conforms else EXIT_VIOLATIONS)
    report = list(pyoxigraph.parse(out.encode("utf-8"), format=pyoxigraph.RdfFormat.TURTLE))
    assert suite.report_keys(report, case.shapes_graph, case.data_graph) == (case.conforms, case.results)


def test_unique_lang_gives_one_result_per_shared_tag():
    _, found = _engine_report(BY_NAME["kg/uniqueLang-001"])
    assert len(found) == 2  # en and de: alike results, both reported


def _run(text: str) -> list:
    triples = list(pyoxigraph.parse(("@prefix sh: <http://www.w3.org/ns/shacl#> . "
                                     "@prefix ex: <http://example.org/> . " + text).encode("utf-8"),
                                    format=pyoxigraph.RdfFormat.TURTLE))
    engine = Engine(triples)
    return sorted((f.focus.value, f.component, f.value.value if f.value is not None else None)
                  for f in engine.validate(engine.facts(triples)))


def test_a_recursive_shape_ends_and_its_nodes_conform():
    # the specification leaves recursion open: a shape met again on the same node counts as conforming
    assert _run("ex:S sh:targetNode ex:a ; sh:property [ sh:path ex:knows ; sh:node ex:S ] . "
                "ex:a ex:knows ex:b . ex:b ex:knows ex:a .") == []
    # ex:b knows no one: it does not conform to ex:S, so ex:a's value ex:b is a result (ex:b's own
    # missing value is part of that answer, not a result of its own: ex:b is no focus node)
    assert _run("ex:S sh:targetNode ex:a ; sh:property [ sh:path ex:knows ; sh:node ex:S ; sh:minCount 1 ] . "
                "ex:a ex:knows ex:b .") == [("http://example.org/a", "NodeConstraintComponent", "http://example.org/b")]


def test_shacl_sparql_and_custom_components_are_not_core():
    with pytest.raises(Unsupported, match="sh:sparql"):
        _run('ex:S sh:targetNode ex:a ; sh:sparql [ sh:select "SELECT $this WHERE { }" ] .')
    with pytest.raises(Unsupported, match="sh:target"):
        _run("ex:S sh:target [ a ex:MyTarget ] ; sh:nodeKind sh:IRI .")
    with pytest.raises(Unsupported, match="custom constraint component"):
        _run("ex:C a sh:ConstraintComponent ; sh:parameter [ sh:path ex:max ] . "
             "ex:S sh:targetNode ex:a ; ex:max 3 .")


def test_the_engine_never_reads_an_iri_it_is_given():
    # owl:imports and IRIs of classes and shapes are names only: nothing is fetched
    assert _run("ex:shapes <http://www.w3.org/2002/07/owl#imports> <http://example.org/remote-shapes> . "
                "ex:S sh:targetNode ex:a ; sh:class <http://example.org/remote#Class> .") == [
        ("http://example.org/a", "ClassConstraintComponent", "http://example.org/a")]
