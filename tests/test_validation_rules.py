"""The rules (kg.validation.rules): the shapes themselves, and a passing and a failing fixture per
rule on kg's engine (kg validate), stock pySHACL and pyrudof."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
import rdflib
from rdflib.collection import Collection

from kg.validation import load_rdf_files, load_rules, shapes_graph, shapes_text, validate
from kg.vocab import KG_NS, ONTOLOGY_FILE, SHAPES_NS, Iris

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "shapes"
SH = rdflib.Namespace("http://www.w3.org/ns/shacl#")
PREFIXES = {"kg": KG_NS, "dcterms": "http://purl.org/dc/terms/", "schema": "https://schema.org/"}


# ---------------------------------------------------------------------------
# The shapes themselves


def _path_iris(graph: rdflib.Graph, node) -> set[str]:
    if isinstance(node, rdflib.URIRef):
        return {str(node)}
    found: set[str] = set()
    if (node, rdflib.RDF.first, None) in graph:
        for item in Collection(graph, node):
            found |= _path_iris(graph, item)
    for key in (SH.inversePath, SH.alternativePath, SH.zeroOrMorePath, SH.oneOrMorePath, SH.zeroOrOnePath):
        for inner in graph.objects(node, key):
            found |= _path_iris(graph, inner)
    return found


def test_shapes_use_only_terms_the_ontology_declares():
    ontology = rdflib.Graph().parse(ONTOLOGY_FILE)
    declared = {str(s) for s in ontology.subjects(rdflib.RDF.type, None) if str(s).startswith(KG_NS)}
    shapes = shapes_graph()
    used: set[str] = set()
    for path in shapes.objects(None, SH.path):
        used |= _path_iris(shapes, path)
    for key in (SH["class"], SH.targetClass, SH.targetSubjectsOf, SH.targetObjectsOf, SH.disjoint):
        used |= {str(o) for o in shapes.objects(None, key)}
    for values in shapes.objects(None, SH["in"]):
        used |= {str(v) for v in Collection(shapes, values) if isinstance(v, rdflib.URIRef)}
    kg_terms = {iri for iri in used if iri.startswith(KG_NS)}
    assert len(kg_terms) > 30
    assert kg_terms - declared == set()


def test_every_rule_has_a_message_a_severity_and_a_scope():
    rules = load_rules()
    assert len(rules) == 41
    for rule in rules.values():
        assert rule.message and rule.severity in ("Violation", "Warning"), rule
    catalog = {name for name, rule in rules.items() if rule.scope == "catalog"}
    assert catalog == {"UniqueSystemIdentifier", "RelationSourceIsSystem", "RelationTargetIsSystem", "UniqueEdge"}
    assert all(rules[name].check and (ROOT / "queries" / f"{rules[name].check}.rq").is_file() for name in catalog)
    # only the duplicate-edge rule needs SPARQL; every other rule is SHACL Core
    sparql = {str(s)[len(SHAPES_NS):] for s in shapes_graph().subjects(SH.sparql, None)}
    assert sparql == {"UniqueEdge"}


def test_every_shape_with_a_target_reports_under_its_own_name_or_dispatches():
    """A targeted shape either is a rule (severity, message) or only hands its value nodes to one."""
    shapes = shapes_graph()
    targets = (SH.targetClass, SH.targetNode, SH.targetSubjectsOf, SH.targetObjectsOf)
    for shape in {s for key in targets for s in shapes.subjects(key, None)}:
        if (shape, SH.severity, None) in shapes:
            assert (shape, SH.message, None) in shapes, shape
        else:
            assert (shape, SH.property, None) in shapes, f"{shape} has a target but reports nothing"


def _in_list(rule: str) -> list:
    shapes = shapes_graph()
    return [v.toPython() if isinstance(v, rdflib.Literal) else str(v)
            for v in Collection(shapes, shapes.value(rdflib.URIRef(SHAPES_NS + rule), SH["in"]))]


def test_canonical_sections_are_the_readme_table_minus_its_14_non_canonical_names(readme_sections):
    names, non_canonical = readme_sections
    assert len(names) == 34 and len(non_canonical) == 14 and set(non_canonical) <= set(names)
    canonical = [n for n in names if n not in non_canonical]
    assert len(canonical) == 20
    assert sorted(_in_list("CanonicalSection")) == sorted(canonical)


def test_subsections_are_allowed_under_the_sections_that_have_them(site_catalog):
    with_subsections = {s["section"] for r in site_catalog["records"] for s in r["sections"] if s.get("subsection")}
    assert "Vertical / domain-specific AI memory" in with_subsections
    assert set(_in_list("SubsectionSection")) == with_subsections


def test_support_modes_and_protocols_are_the_ontology_lists():
    ontology = rdflib.Graph().parse(ONTOLOGY_FILE)
    modes = {str(s) for s in ontology.subjects(rdflib.RDF.type, rdflib.URIRef(KG_NS + "SupportMode"))}
    protocols = {str(s) for s in ontology.subjects(rdflib.RDF.type, rdflib.URIRef(KG_NS + "Protocol"))}
    assert set(_in_list("ProtocolSupportMode")) == modes and len(modes) == 6
    assert set(_in_list("ProtocolSupportProtocol")) == protocols


def test_shapes_follow_the_base_of_the_store():
    other = Iris("https://example.org/kg/")
    assert "https://example.org/kg/scheme/taxonomy/storage" in shapes_text(other)
    assert "w3id.org/agent-landscape/id/" not in shapes_text(other)


# ---------------------------------------------------------------------------
# Fixtures: a passing and a failing graph per rule, on stock pySHACL, kg's engine and pyrudof


def _fixture(path: Path) -> tuple[str, set[tuple]]:
    rule, expected = None, set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# rule:"):
            rule = line.split(":", 1)[1].strip()
        m = re.match(r"^# expect: (.+) \| (.+) \| (\w+)$", line)
        if m:
            expected.add((rule, m.group(1), None if m.group(2) == "-" else m.group(2), m.group(3)))
    return rule, expected


FIXTURE_FILES = sorted(FIXTURES.glob("*.ttl"))


def test_every_rule_has_a_passing_and_a_failing_fixture():
    rules = load_rules()
    covered = Counter()
    for path in FIXTURE_FILES:
        rule, expected = _fixture(path)
        assert rule in rules, path.name
        covered[(rule, path.name.endswith(".fail.ttl"))] += 1
        assert bool(expected) == path.name.endswith(".fail.ttl"), path.name
    for name in rules:
        assert covered[(name, True)] and covered[(name, False)], name


def _found(report) -> set[tuple]:
    return {(r.rule, r.focus, r.path, r.severity) for r in report.results}


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.name)
def test_fixture_on_pyshacl_monolithic_and_split(path, iris, monolithic_of):
    rule, expected = _fixture(path)
    monolithic = monolithic_of(path)
    assert _found(monolithic) == expected
    split = validate(load_rdf_files([str(path)], iris), iris, jobs=1)
    assert split.keys() == monolithic.keys()
    assert all(r.rule == rule for r in split.results)


def _rudof_path(text: str | None) -> str | None:
    if text is None:
        return None
    for prefix, ns in PREFIXES.items():
        text = re.sub(re.escape(ns) + r"([A-Za-z_][\w-]*)", prefix + r":\1", text)
    text = re.sub(r"\^\(([^()]*)\)", r"^\1", text).replace(" / ", "/")
    return text[1:-1] if text.startswith("(") and text.endswith(")") else text


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.name)
def test_fixture_on_pyrudof(path):
    pyrudof = pytest.importorskip("pyrudof")
    _, expected = _fixture(path)
    engine = pyrudof.Rudof(pyrudof.RudofConfig())
    engine.read_data(str(path), merge=False)  # merge=False: replace, never add to earlier data
    engine.read_shacl(shapes_text() + "\n" + shapes_text(cross=True))
    report = engine.validate_shacl()
    found = {(e.source_shape[len(SHAPES_NS):], e.focus_node, _rudof_path(e.path), e.severity) for e in report}
    assert found == expected
    assert report.conforms == (not expected)


# ---------------------------------------------------------------------------
# The bundled catalog: split == monolithic, and the counts per rule from the JSON

