"""The user's own shapes (kg.validation.user_shapes): ``validate(store, shapes=[...])`` checks the
graph against them with our report and exit semantics: SHACL Core by the engine (equal to one stock
pySHACL run), SHACL-SPARQL by one stock pySHACL run, our catalog-wide rules by their queries."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
import rdflib

from kg.errors import SourceError, UsageError
from kg.validation import load_rdf_files, load_shapes, revalidate, text_report, validate, validate_monolithic
from kg.validation.rules import CROSS_SHAPES

FIXTURES = Path(__file__).resolve().parent / "shapes"
USER = FIXTURES / "user"
PASSING, FAILING = str(USER / "catalog.pass.ttl"), str(USER / "catalog.fail.ttl")
SH = rdflib.Namespace("http://www.w3.org/ns/shacl#")

NOT_LOCAL = """@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix kg: <https://w3id.org/agent-landscape/ontology#> .
@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix my: <https://example.org/my-shapes#> .
my:LicenceColumn sh:targetNode "license" ;
    sh:property [ sh:path [ sh:inversePath dcterms:identifier ] ; sh:minCount 1 ] .
my:CitedBySomeone sh:targetClass kg:System ;
    sh:property [ sh:path [ sh:inversePath kg:cites ] ; sh:minCount 1 ; sh:severity sh:Info ] .
"""

MORE = """@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix kg: <https://w3id.org/agent-landscape/ontology#> .
@prefix my: <https://example.org/my-shapes#> .
@prefix schema: <https://schema.org/> .
my:EdgeTargets sh:targetObjectsOf kg:target ;
    sh:class kg:System ; sh:property [ sh:path kg:tier ; sh:minCount 1 ; sh:maxInclusive 4 ] .
my:Organisations sh:targetClass schema:Organization ;  # vendors and venues: subclasses, in the ontology
    sh:property [ sh:path kg:vendorKey ; sh:minCount 1 ] .
"""


def _write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _focus_by_rule(report) -> dict[str, set[str]]:
    found: dict[str, set[str]] = defaultdict(set)
    for r in report.results:
        found[r.rule].add(r.focus)
    return dict(found)


def test_the_bundled_catalog_passes_the_passing_shapes(bundled_store, expected_records, iris):
    report = validate(bundled_store, iris, shapes=[PASSING])
    assert report.conforms and not report.fails("info")
    assert report.mode == "graph" and report.shapes == [PASSING] and report.notes == []
    assert report.records == len(expected_records)
    assert {"my:RelationSource/kg:source", "my:CitesSystems/kg:cites"} <= set(report.rules)
    assert all(rule.scope == "graph" for rule in report.rules.values())


def test_the_failing_shapes_report_the_focus_nodes_the_catalog_json_gives(bundled_store, expected_records,
                                                                         edges_file, iris):
    report = validate(bundled_store, iris, shapes=[FAILING])
    system = {rid: iris.system(rid).value for rid in expected_records}
    tiers = {rid: r["tier"] for rid, r in expected_records.items()}
    cites_low = {(system[e["source"]], system[e["target"]]) for e in edges_file["edges"]
                 if e["type"] == "cites" and e["source"] in tiers and tiers.get(e["target"], 9) < 3}
    expected = {
        "my:EstablishedTier": {system[rid] for rid, tier in tiers.items() if tier > 2},
        "my:HasUrl": {system[rid] for rid, r in expected_records.items() if r.get("url") is None},
        "my:CitesResearch/kg:cites": {source for source, _ in cites_low},
    }
    assert _focus_by_rule(report) == expected
    assert {(r.focus, r.value) for r in report.results if r.rule == "my:CitesResearch/kg:cites"} == cites_low
    assert report.warnings == len(expected["my:HasUrl"]) and report.violations == len(report.results) - report.warnings
    assert report.fails("violation") and not report.conforms
    text = text_report(report)
    assert "my:EstablishedTier: tier 1 or 2 only" in text and text.rstrip().split("\n")[-1].startswith("FAIL: ")


def test_the_engine_on_own_shapes_equals_one_stock_pyshacl_run(shared_partial_store, iris, tmp_path):
    more = _write(tmp_path, "more.ttl", MORE)
    not_local = _write(tmp_path, "not-local.ttl", NOT_LOCAL)
    for shapes in ([FAILING], [more], [not_local], [PASSING, FAILING, more, not_local]):
        monolithic = validate_monolithic(shared_partial_store, iris, shapes=shapes)
        assert monolithic.results, shapes
        if shapes == [more]:  # objects of a predicate, and instances of subclasses
            assert {"my:EdgeTargets", "my:EdgeTargets/kg:tier", "my:Organisations/kg:vendorKey"} <= \
                monolithic.by_rule().keys()
        engine = validate(shared_partial_store, iris, shapes=shapes)
        assert engine.mode == "graph" and engine.notes == [] and engine.timings["jobs"] == 1
        assert engine.keys() == monolithic.keys(), shapes
    # the partial store holds edges to 872 records it lacks: the passing shapes fail on it
    assert validate(shared_partial_store, iris, shapes=[PASSING], jobs=1).by_rule().keys() == \
        {"my:RelationSource/kg:source", "my:CitesSystems/kg:cites"}


SPARQL = """@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix kg: <https://w3id.org/agent-landscape/ontology#> .
@prefix my: <https://example.org/my-shapes#> .
my:LowTier sh:targetClass kg:System ; sh:severity sh:Info ;
    sh:sparql [ sh:select "SELECT $this ?value WHERE { $this <https://w3id.org/agent-landscape/ontology#tier> ?value FILTER(?value > 3) }" ] .
"""


def test_shacl_sparql_shapes_run_once_in_stock_pyshacl(shared_partial_store, site_catalog, iris, tmp_path):
    path = _write(tmp_path, "sparql.ttl", SPARQL)
    shapes = load_shapes([path])
    assert not shapes.core and shapes.sparql_graph is not None and "sh:sparql" in shapes.reason
    report = validate(shared_partial_store, iris, shapes=[path])
    assert report.mode == "monolithic" and len(report.notes) == 1 and "SHACL-SPARQL" in report.notes[0]
    assert report.keys() == validate_monolithic(shared_partial_store, iris, shapes=[path]).keys()
    tiers = {iris.system(r["id"]).value for r in site_catalog["records"][:40] if r["tier"] > 3}
    assert {r.focus for r in report.results} == tiers and report.count("Info") == len(tiers) > 0
    assert "note: the shapes use SHACL-SPARQL" in text_report(report)
    with pytest.raises(UsageError, match="leave out the records"):
        validate(shared_partial_store, iris, shapes=[path], records=[site_catalog["records"][0]["id"]])


def test_sparql_shapes_run_in_pyshacl_beside_the_engines(shared_partial_store, iris, tmp_path):
    path = _write(tmp_path, "sparql.ttl", SPARQL)
    not_local = _write(tmp_path, "not-local.ttl", NOT_LOCAL)
    shapes = load_shapes([FAILING, not_local, path])
    assert shapes.core and shapes.sparql_graph is not None
    assert shapes.rules["my:EstablishedTier"].scope == "graph"
    report = validate(shared_partial_store, iris, shapes=[FAILING, not_local, path])
    assert report.mode == "graph" and report.notes and report.notes[-1].startswith("some shapes use SHACL-SPARQL")
    assert report.keys() == validate_monolithic(shared_partial_store, iris, shapes=[FAILING, not_local, path]).keys()
    assert {"my:EstablishedTier", "my:CitedBySomeone/^kg:cites", "my:LowTier"} <= report.by_rule().keys()


def test_own_shapes_for_some_records_give_the_results_about_them(shared_partial_store, site_catalog, iris):
    everything = validate(shared_partial_store, iris, shapes=[FAILING])
    chosen = sorted({r.record for r in everything.results if r.record})[:3] + [site_catalog["records"][0]["id"]]
    some = validate(shared_partial_store, iris, shapes=[FAILING], records=chosen)
    assert some.keys() == {r.key for r in everything.results if r.record in chosen} and some.results


def test_our_catalog_wide_rules_among_own_shapes_are_answered_by_their_queries(iris, tmp_path):
    shapes = load_shapes([str(CROSS_SHAPES), FAILING])
    ours = {"UniqueSystemIdentifier", "UniqueEdge", "RelationSourceIsSystem", "RelationTargetIsSystem"}
    assert set(shapes.checks) == ours and all(rule.scope == "catalog" for rule in shapes.checks.values())
    assert shapes.sparql_graph is None and shapes.rules["UniqueEdge"].check == "check-unique-edge"
    data = load_rdf_files([str(FIXTURES / f"{name}.fail.ttl") for name in sorted(ours)], iris)
    report = validate(data, iris, shapes=[str(CROSS_SHAPES), FAILING], jobs=1)
    assert report.mode == "graph" and report.notes == [] and ours <= report.by_rule().keys()
    assert report.keys() == validate_monolithic(data, iris, shapes=[str(CROSS_SHAPES), FAILING]).keys()
    # changed, a rule of ours is the user's own: its SPARQL constraint runs on the whole graph
    changed = _write(tmp_path, "changed.ttl", CROSS_SHAPES.read_text(encoding="utf-8").replace(
        "is given once.", "is given once only."))
    assert set(load_shapes([changed]).checks) == ours - {"UniqueEdge"}
    assert "sh:sparql" in load_shapes([changed]).reason


def test_own_shapes_check_rdf_files_too(iris, tmp_path):
    data = _write(tmp_path, "data.ttl", f"""@prefix kg: <https://w3id.org/agent-landscape/ontology#> .
<{iris.system("one").value}> a kg:System ; kg:tier 4 ; kg:cites <{iris.system("two").value}> .
<{iris.system("two").value}> a kg:System ; kg:tier 1 .
""")
    report = validate(load_rdf_files([data], iris), iris, shapes=[FAILING], jobs=1)
    assert _focus_by_rule(report) == {
        "my:EstablishedTier": {iris.system("one").value},
        "my:HasUrl": {iris.system("one").value, iris.system("two").value},
        "my:CitesResearch/kg:cites": {iris.system("one").value},
    }
    assert {r.record for r in report.results} == {"one", "two"}


def test_rule_names_do_not_depend_on_blank_node_ids():
    first, second = load_shapes([FAILING, PASSING]), load_shapes([FAILING, PASSING])
    assert sorted(first.names.values()) == sorted(second.names.values())
    assert set(first.rules) == set(second.rules)
    assert first.rules["my:HasUrl"].severity == "Warning" and first.rules["my:HasUrl"].message == "a URL"
    assert "my:Established" not in first.rules  # it only hands its nodes to its property shapes


def test_the_turtle_report_names_the_users_shapes(shared_partial_store, iris):
    report = validate(shared_partial_store, iris, shapes=[FAILING, PASSING], jobs=1)
    graph = rdflib.Graph().parse(data=report.to_turtle(iris), format="turtle")
    shapes = {str(s) for s in graph.objects(None, SH.sourceShape) if isinstance(s, rdflib.URIRef)}
    assert "https://example.org/my-shapes#EstablishedTier" in shapes
    # a blank property shape: the result names it (a blank node carrying its path)
    nested = [s for s in graph.objects(None, SH.sourceShape) if isinstance(s, rdflib.BNode)]
    assert nested and "my:RelationSource/kg:source" in report.by_rule()
    assert len(list(graph.objects(None, SH.result))) == len(report.results)


def test_revalidating_a_report_of_own_shapes_validates_again(shared_partial_store, site_catalog, iris):
    report = validate(shared_partial_store, iris, shapes=[FAILING], jobs=1)
    again = revalidate(report, shared_partial_store, [site_catalog["records"][0]["id"]], iris)
    assert again.keys() == report.keys() and again.shapes == [FAILING]


@pytest.mark.parametrize(("name", "text", "expected"), [
    ("bad.ttl", "@prefix sh: <http://www.w3.org/ns/shacl#> .\n<a:s> sh:path <a:p> .\n<a:s> sh:minCount \"1\n",
     r"bad\.ttl: invalid Turtle at line 3 column \d+"),
    ("readme.ttl", "# A heading\n\nSome *markdown* text, not RDF.\n", r"readme\.ttl: invalid Turtle at line 3 column \d+"),
    ("empty.ttl", "<a:s> <a:p> <a:o> .\n", r"empty\.ttl: holds no SHACL shapes"),
    ("shapes.shacl", "", r"shapes\.shacl: unknown RDF format"),
])
def test_a_bad_shapes_file_raises_a_source_error_with_file_line_and_column(tmp_path, name, text, expected):
    path = _write(tmp_path, name, text)
    with pytest.raises(SourceError, match=expected) as caught:
        validate(load_rdf_files([], __import__("kg").Iris()), shapes=[path])
    assert caught.value.source.endswith(name)


def test_an_unreadable_shapes_file_raises_a_source_error(tmp_path):
    with pytest.raises(SourceError, match="cannot be read"):
        load_shapes([str(tmp_path / "missing.ttl")])


def test_our_shapes_match_their_patterns_without_a_time_limit_and_users_shapes_with_one(site_records, monkeypatch):
    """kg's own patterns run in time linear in the value: matched without regex's timeout (4-14 us a
    match), with the same answers; any other shapes graph keeps a time limit on every match."""
    from kg.mapping import record_triples
    from kg.records import record_from_json
    from kg.shacl import values
    from kg.validation.core import CoreShapes, our_shapes_triples
    from kg.vocab import Iris

    calls: list[dict] = []

    class Watched:
        def __init__(self, pattern):
            self.pattern = pattern

        def search(self, text, **options):
            calls.append(options)
            return self.pattern.search(text, **options)

    original = values.compile_pattern
    monkeypatch.setattr(values, "compile_pattern", lambda *args: Watched(original(*args)))
    iris = Iris()
    triples, _ = record_triples(record_from_json(site_records[0]), iris, set())
    found = {}
    for ours in (True, False):
        shapes = CoreShapes(our_shapes_triples(iris), iris, ours=ours)
        calls.clear()
        found[ours] = [(r.rule, r.focus, r.value) for r in shapes.check(shapes.facts_of_terms(
            [t for t in triples if shapes.reads is None or t[1].value in shapes.reads]))]
        assert calls and all(("timeout" in c) is not ours for c in calls)
    assert found[True] == found[False]
