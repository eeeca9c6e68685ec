"""SHACL validation: the shapes, their fixtures on two engines, the split run against one
monolithic pySHACL run, and the real state of the bundled catalog."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from datetime import date
from pathlib import Path

import pyoxigraph
import pytest
import rdflib
from rdflib.collection import Collection

from kg.cli import EXIT_INPUT, EXIT_OK, EXIT_STORE, EXIT_USAGE, EXIT_VIOLATIONS
from kg.ingest import ingest_paths
from kg.sources import bundled_paths
from kg.store import GraphStore
from kg.validation import (
    load_rdf_files, load_rules, revalidate, shapes_graph, shapes_text, text_report, validate, validate_monolithic,
)
from kg.vocab import KG_NS, ONTOLOGY_FILE, SHAPES_NS, Iris

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "shapes"
SH = rdflib.Namespace("http://www.w3.org/ns/shacl#")
ID_PATTERN = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*(--[a-z0-9]+(-[a-z0-9]+)*)?$")
PREFIXES = {"kg": KG_NS, "dcterms": "http://purl.org/dc/terms/", "schema": "https://schema.org/"}


def kg(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kg.cli", *args], capture_output=True, text=True, timeout=600)


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
    assert len(rules) == 40
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


def _readme_sections() -> tuple[list[str], list[str]]:
    text = (ROOT / "data" / "README.md").read_text(encoding="utf-8")
    table = text.split("Records per primary section")[1].split("## Known gaps")[0]
    names = [m.group(1) for m in re.finditer(r"^\| (.+?) \| \d+ \|$", table, re.M)]
    listed = text.split("would reject 341 records: ")[1].split("\n- Record-level")[0]
    non_canonical = [n.strip().rstrip(".") for n in listed.replace("\n", " ").split("; ")]
    return names, non_canonical


def _in_list(rule: str) -> list:
    shapes = shapes_graph()
    return [v.toPython() if isinstance(v, rdflib.Literal) else str(v)
            for v in Collection(shapes, shapes.value(rdflib.URIRef(SHAPES_NS + rule), SH["in"]))]


def test_canonical_sections_are_the_readme_table_minus_its_14_non_canonical_names():
    names, non_canonical = _readme_sections()
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
# Fixtures: a passing and a failing graph per rule, on pySHACL (monolithic and split) and pyrudof


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
def test_fixture_on_pyshacl_monolithic_and_split(path, iris):
    rule, expected = _fixture(path)
    monolithic = validate_monolithic(rdflib.Graph().parse(path), iris)
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


@pytest.fixture(scope="module")
def bundled_report(bundled_store, iris):
    return validate(bundled_store, iris)


def test_split_run_equals_one_monolithic_pyshacl_run_on_the_bundled_catalog(bundled_store, bundled_report, iris):
    monolithic = validate_monolithic(bundled_store, iris)
    assert len(monolithic.results) > 12000
    assert bundled_report.keys() == monolithic.keys()


def _is_date(text) -> bool:
    try:
        return isinstance(text, str) and bool(re.fullmatch(r"\d{4}-\d{2}-\d{2}", text)) and bool(date.fromisoformat(text))
    except ValueError:
        return False


def _iri_ok(text: str) -> bool:
    """As the mapping stores a citation: an IRI when it is a valid http(s) IRI, else text."""
    if not text.startswith(("http://", "https://")):
        return False
    try:
        pyoxigraph.NamedNode(text)
    except ValueError:
        return False
    return True


def _citation_results(cell: dict, pattern: str) -> int:
    """Results kgsh:T1Citation / T2Citation give for one cell: missing, not an IRI, not matching."""
    citation = cell.get("citation")
    if citation is None:
        return 1
    return (0 if _iri_ok(citation) else 1) + (0 if re.match(pattern, citation) else 1)


def expected_counts(records: dict[str, dict], edges: list[dict]) -> Counter:
    """The results each rule must give, computed from the catalog JSON (no RDF, no SPARQL)."""
    _, non_canonical = _readme_sections()
    names, _ = _readme_sections()
    canonical = set(names) - set(non_canonical)
    subsectioned = {"Recent method papers — theorized, no distinct product", "Vertical / domain-specific AI memory"}
    out: Counter = Counter()
    for record in records.values():
        out["SystemIdentifier"] += not ID_PATTERN.match(record["id"])
        out["SystemTier"] += not (isinstance(record["tier"], int) and 1 <= record["tier"] <= 5)
        url = record.get("url")
        if url is not None:  # kept as an IRI only when it is a valid http(s) one
            out["SystemUrl"] += (0 if _iri_ok(url) else 1) + (0 if re.match(r"^https?://", url) else 1)
        out["SystemLastVerified"] += record.get("last_verified_at") is not None and not _is_date(record["last_verified_at"])
        listings = [s for s in record["sections"] if isinstance(s, dict)]
        primaries = [s for s in listings if s.get("primary") is True]
        out["SystemOnePrimaryListing"] += len(primaries) > 1
        out["SystemPrimarySection"] += not primaries and not record.get("section")
        for listing in record["sections"]:
            name = listing if isinstance(listing, str) else listing["section"]
            out["CanonicalSection"] += name not in canonical
            if isinstance(listing, dict) and listing.get("subsection"):
                out["SubsectionSection"] += name not in subsectioned
        for axis in ("storage", "retrieval", "persistence", "update", "unit", "governance", "conflict"):
            values = record["taxonomy"].get(axis) or []
            out["Taxonomy" + axis.capitalize()] += sum(1 for v in values if v.get("primary") is True) != 1
        for slug, cell in record["cells"].items():
            out["CellStatus"] += cell.get("status") not in (
                "real-data", "not-applicable", "depth-floor-reached", "no-data", "estimate")
            out["CellClaimTier"] += cell.get("tier") not in ("T1", "T2", "T3")
            out["CellLastVerified"] += "last_verified_at" in cell and cell["last_verified_at"] is not None \
                and not _is_date(cell["last_verified_at"])
            if cell.get("tier") == "T1":
                out["T1Citation"] += _citation_results(cell, r"^https://github\.com/")
            if cell.get("tier") == "T2":
                out["T2Citation"] += _citation_results(cell, r"^https?://")
            if slug == "license" and cell.get("status") in ("real-data", "estimate"):
                # the text says no licence although the status says the cell holds one
                out["LicenceCellLinksLicense"] += cell["value"].lower().startswith(("n/a", "no data"))
        for provenance in (record.get("_provenance") or {}).values():
            out["ProvenanceSource"] += provenance.get("source") not in ("human", "scrape", "llm", "legacy")
            out["HumanProvenanceAuthor"] += provenance.get("source") == "human" and not provenance.get("author")
        out["DecayCause"] += record.get("decay_cause") not in (None, "acquired", "pivoted", "unfunded",
                                                               "lost-benchmark-race", "superseded", "archived",
                                                               "research-complete", "unknown")
        out["DecayDate"] += record.get("decay_date") is not None and not _is_date(record["decay_date"])
    ids = Counter(r["id"] for r in records.values())
    out["UniqueSystemIdentifier"] += sum(1 for n in ids.values() if n > 1)
    keys = Counter((e["source"], e["target"], e["type"]) for e in edges)
    types = {"built-on", "runtime-dependency", "integrates-with", "cites", "competes-with", "extends", "forks",
             "same-team-as", "succeeds", "inspired-by"}
    for edge in edges:
        out["RelationSourceIsSystem"] += edge["source"] not in records
        out["RelationTargetIsSystem"] += edge["target"] not in records
        out["NoSelfEdge"] += edge["source"] == edge["target"]
        out["UniqueEdge"] += keys[(edge["source"], edge["target"], edge["type"])] > 1
        out["EdgeType"] += edge["type"] not in types
        out["InfluentialOnlyOnCites"] += "isInfluential" in edge and edge["type"] != "cites"
        out["IsInfluentialBoolean"] += "isInfluential" in edge and not isinstance(edge["isInfluential"], bool)
        out["EdgeCitation"] += _citation_results(edge, r"^https?://")
        evidence = edge.get("evidence")
        out["EdgeEvidence"] += 1 if evidence is None else (not evidence.strip()) + (len(evidence) > 500)
    return +out  # drop zero counts


def test_counts_per_rule_on_the_bundled_catalog_match_the_catalog_json(bundled_report, expected_records,
                                                                        edges_file):
    reported = Counter(entry["rule"] for entry in bundled_report.to_json()["results"])
    expected = expected_counts(expected_records, edges_file["edges"])
    assert reported == expected
    # the real state of the reconstructed data: most T2 cells carry no citation
    assert expected["T2Citation"] > 12000 and expected["CanonicalSection"] == 341


def test_t2_citation_counts_per_column_match_the_catalog_json(bundled_report, expected_records):
    per_column = Counter(r.column for r in bundled_report.results if r.rule == "T2Citation")
    expected = Counter(slug for record in expected_records.values() for slug, cell in record["cells"].items()
                       if cell.get("tier") == "T2" for _ in range(_citation_results(cell, r"^https?://")))
    assert per_column == expected
    assert per_column["desc"] == 911  # every site record but the seed's, whose cells are cited


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


def test_kg_validate_on_the_bundled_store(bundled_store, bundled_report):
    """The command on two records of the store: their results, and the catalog-wide rules."""
    chosen = ["mem0--mem0-ai", "smolagents-memory--huggingface-co"]
    run = kg("validate", "--store", str(bundled_store.path), "--format", "json",
             "--record", chosen[0], "--record", chosen[1])
    assert run.returncode == EXIT_VIOLATIONS, run.stderr
    data = json.loads(run.stdout)
    assert data["records"] == 2 and data["scope"] == sorted(chosen)
    expected = Counter(r.rule for r in bundled_report.results if r.record in chosen)
    assert Counter(entry["rule"] for entry in data["results"]) == expected
    assert expected["T2Citation"] == 20 and expected["T1Citation"] == 1
    assert "violation(s)" in run.stderr


# ---------------------------------------------------------------------------
# Exit codes, records on their own, incremental revalidation


def test_exit_codes_and_fail_on():
    warning_only = str(FIXTURES / "CanonicalSection.fail.ttl")
    assert kg("validate", str(FIXTURES / "T2Citation.pass.ttl")).returncode == EXIT_OK
    run = kg("validate", warning_only)
    assert run.returncode == EXIT_OK and "WARN: 0 violation(s), 1 warning(s)" in run.stdout
    assert kg("validate", warning_only, "--fail-on", "warning").returncode == EXIT_VIOLATIONS
    assert kg("validate", str(FIXTURES / "T2Citation.fail.ttl")).returncode == EXIT_VIOLATIONS
    assert kg("validate", str(ROOT / "README.md")).returncode == EXIT_INPUT
    assert kg("validate", str(FIXTURES / "missing.ttl")).returncode == EXIT_INPUT
    assert kg("validate", "--jobs", "0", warning_only).returncode == EXIT_USAGE
    assert kg("validate", "--fail-on", "never").returncode == EXIT_USAGE
    assert kg("validate", "--store", str(FIXTURES / "no-store")).returncode == EXIT_STORE


def _partial_store(folder: Path, site_catalog: dict) -> GraphStore:
    """40 records and every edge: edges to the other 872 records reach the store."""
    records = folder / "records.jsonl"
    records.write_text("".join(json.dumps(r) + "\n" for r in site_catalog["records"][:40]), encoding="utf-8")
    store = GraphStore(folder / "store")
    edges = [p for p in bundled_paths() if p.endswith("edges.json")]
    report = ingest_paths(store, [str(records), *edges])
    assert report.records == 40 and report.edges == 528
    return store


@pytest.fixture
def partial_store(tmp_path, site_catalog):
    return _partial_store(tmp_path, site_catalog)


def test_edges_to_missing_records_are_reported(partial_store, site_catalog, edges_file, iris):
    report = validate(partial_store, iris, jobs=1)
    kept = {r["id"] for r in site_catalog["records"][:40]}
    counts = Counter(r.rule for r in report.results)
    assert counts["RelationTargetIsSystem"] == sum(e["target"] not in kept for e in edges_file["edges"]) > 0
    assert counts["RelationSourceIsSystem"] == sum(e["source"] not in kept for e in edges_file["edges"]) > 0
    dangling = next(r for r in report.results if r.rule == "RelationTargetIsSystem")
    assert dangling.path == "kg:target" and dangling.value.startswith(iris.base + "system/")


def test_revalidating_one_changed_record_equals_a_full_run(partial_store, site_catalog, iris, tmp_path):
    before = validate(partial_store, iris, jobs=1)
    record = dict(site_catalog["records"][3], tier=7)
    record["sections"] = [dict(record["sections"][0], section="Training infrastructure", subsection="x")]
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(record), encoding="utf-8")
    ingest_paths(partial_store, [str(changed)])
    after = revalidate(before, partial_store, [record["id"]], iris)
    full = validate(partial_store, iris, jobs=1)
    assert after.keys() == full.keys() != before.keys()
    mine = {r.rule for r in after.results if r.record == record["id"]}
    assert {"SystemTier", "CanonicalSection", "SubsectionSection"} <= mine
    one = validate(partial_store, iris, records=[record["id"]])
    assert {r.key for r in one.results if r.record == record["id"]} == \
        {r.key for r in full.results if r.record == record["id"]}
