"""The report (kg.validation.report): JSON with one entry per result, a text report that fits a
screen, the W3C validation report graph, and what the report says about how it was made."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pyoxigraph
import rdflib
from rdflib.collection import Collection

from kg.validation import ValidationReport, load_rdf_files, text_report, validate
from kg.vocab import KG_NS, SHAPES_NS

FIXTURES = Path(__file__).resolve().parent / "shapes"
SH = rdflib.Namespace("http://www.w3.org/ns/shacl#")


def test_json_report_has_one_entry_per_result(bundled_report):
    data = bundled_report.to_json()
    assert data["conforms"] is False and data["violations"] == bundled_report.violations
    assert len(data["results"]) == len(bundled_report.results) == sum(data["counts"].values())
    keys = {"focus", "record", "path", "value", "rule", "severity", "message"}
    assert all(keys <= entry.keys() for entry in data["results"])
    cell = next(e for e in data["results"] if e["rule"] == "T2Citation")
    assert cell["focus"].endswith("/cell/" + cell["column"]) and cell["record"] in cell["focus"]
    assert cell["path"] == "kg:citation" and cell["severity"] == "Violation"


def test_text_report_fits_a_screen_and_ends_with_one_summary_line(bundled_report):
    text = text_report(bundled_report)
    lines = text.rstrip("\n").split("\n")
    assert len(lines) <= 40 and max(len(line) for line in lines) <= 100
    assert re.fullmatch(r"FAIL: \d+ violation\(s\), 341 warning\(s\), 0 info\(s\) in \d+ record\(s\)", lines[-1])
    t2 = next(i for i, line in enumerate(lines) if "T2Citation" in line)
    assert "by column:" in lines[t2 + 1]
    assert str(len(bundled_report.by_rule()["T2Citation"])) in lines[t2]


def test_turtle_report_is_the_w3c_validation_report(bundled_report, iris):
    triples = list(pyoxigraph.parse(bundled_report.to_turtle(iris), format=pyoxigraph.RdfFormat.TURTLE))
    by_predicate = Counter(t.predicate.value for t in triples)
    assert by_predicate[str(SH.result)] == len(bundled_report.results)
    assert by_predicate[str(SH.focusNode)] == by_predicate[str(SH.resultSeverity)] == len(bundled_report.results)
    severities = Counter(t.object.value.rsplit("#", 1)[-1] for t in triples if t.predicate.value == str(SH.resultSeverity))
    assert severities == Counter(r.severity for r in bundled_report.results)
    conforms = [t.object for t in triples if t.predicate.value == str(SH.conforms)]
    assert conforms == [pyoxigraph.Literal(False)]


def test_turtle_report_keeps_complex_result_paths(iris):
    report = validate(load_rdf_files([str(FIXTURES / "LicenceCellLinksLicense.fail.ttl")], iris), iris, jobs=1)
    graph = rdflib.Graph().parse(data=report.to_turtle(iris), format="turtle")
    result = next(graph.objects(None, SH.result))
    path = graph.value(result, SH.resultPath)
    steps = list(Collection(graph, path))
    assert [str(graph.value(step, SH.inversePath)) for step in steps] == [
        "http://purl.org/dc/terms/identifier", KG_NS + "column"]
    assert graph.value(result, SH.focusNode) == rdflib.Literal("license")
    assert str(graph.value(result, SH.sourceShape)) == SHAPES_NS + "LicenceCellLinksLicense"



def test_notes_and_own_shapes_files_appear_in_the_text_and_the_json():
    report = ValidationReport(results=[], rules={}, shapes=["mine.ttl"],
                              notes=["pySHACL 9.9 is outside the range the speed-ups were tested with"])
    lines = text_report(report).split("\n")
    assert lines[1] == "shapes: mine.ttl"
    assert lines[2].startswith("note: pySHACL 9.9 is outside the range")
    data = report.to_json()
    assert data["shapes"] == ["mine.ttl"] and data["notes"] == report.notes
    assert ValidationReport(results=[], rules={}).to_json()["notes"] == []
