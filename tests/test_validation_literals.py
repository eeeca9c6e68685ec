"""Ill-formed literals (``"aldi"^^xsd:integer``) are validation findings, never a traceback on stderr.

rdflib logs a "Failed to convert Literal" warning with its traceback whenever it makes such a literal;
``kg validate`` reads the data into rdflib for pySHACL, and the SHACL spec makes the literal an
sh:datatype violation where a shape checks the datatype. Real processes: what a user sees.
"""

from __future__ import annotations

import json
from pathlib import Path
from helpers import kg

ROOT = Path(__file__).resolve().parent.parent

DATA = """@prefix kg: <https://w3id.org/agent-landscape/ontology#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
<urn:x:thing> a kg:System ; kg:tier "aldi"^^xsd:integer ; kg:lastVerified "not a date"^^xsd:date .
"""

SHAPES = """@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix kg: <https://w3id.org/agent-landscape/ontology#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix ex: <urn:ex:> .
ex:TierShape a sh:PropertyShape ; sh:targetClass kg:System ; sh:path kg:tier ; sh:datatype xsd:integer ;
    sh:message "tier is an integer" .
"""


def _quiet(stderr: str) -> None:
    assert "Traceback" not in stderr and "Failed to convert Literal" not in stderr, stderr


def test_an_ill_formed_literal_is_a_datatype_violation_of_the_users_shapes_not_a_traceback(tmp_path):
    data, shapes = tmp_path / "data.ttl", tmp_path / "shapes.ttl"
    data.write_text(DATA, encoding="utf-8")
    shapes.write_text(SHAPES, encoding="utf-8")
    done = kg("validate", str(data), "--shapes", str(shapes), "--format", "json", cwd=ROOT)
    _quiet(done.stderr)
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert [(r["focus"], r["path"], r["value"], r["component"]) for r in report["results"]] == [
        ("urn:x:thing", "kg:tier", "aldi", "DatatypeConstraintComponent")]
    for jobs in ("1", "2"):  # in this process and in worker processes: the same quiet
        done = kg("validate", str(data), "--shapes", str(shapes), "--jobs", jobs, cwd=ROOT)
        _quiet(done.stderr)
        assert done.returncode == 1 and "VIOLATION      1  ex:TierShape" in done.stdout + done.stderr


def test_an_ill_formed_literal_is_a_datatype_violation_of_our_shapes_not_a_traceback(tmp_path):
    data = tmp_path / "data.ttl"
    data.write_text(DATA, encoding="utf-8")
    done = kg("validate", str(data), "--format", "json", cwd=ROOT)
    _quiet(done.stderr)
    assert done.returncode == 1, done.stderr
    found = {(r["rule"], r["value"], r["component"]) for r in json.loads(done.stdout)["results"]}
    assert {("SystemTier", "aldi", "DatatypeConstraintComponent"),
            ("SystemLastVerified", "not a date", "DatatypeConstraintComponent")} <= found
