"""The catalog's record-local rules at ingest: every bad record named by file, record and field path,
the same results as ``kg validate``, structural rules that quarantine and quality rules that warn, the
gate that keeps the stored version, the schemaVersion check.

The bad records are variants of one clean record (mem0, its T2 cells given an http(s)
citation, so it breaks no rule): each variant breaks exactly the rule it is about.
"""

from __future__ import annotations

import copy
import gc
import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from kg.cli import EXIT_INPUT, EXIT_OK, EXIT_QUARANTINE, main
from kg.ingestion import ingest_paths
from kg.mapping import catalog_records
from kg.store import GraphStore
from kg.validation import load_rules
from kg.vocab import Iris
from helpers import kg

IRIS = Iris()
ROOT = Path(__file__).resolve().parent.parent


def variant(clean: dict, name: str, change) -> dict:
    record = copy.deepcopy(clean)
    record["id"] = f"bad-{name}--example-org"
    change(record)
    return record


def _two_primary(r):
    r["sections"].append({"section": "Retrieval-as-memory hybrids", "subsection": None, "primary": True,
                          "reason": None})


def _no_primary(r):
    for listing in r["sections"]:
        listing["primary"] = False


INJECTION = 'x> <http://evil.example/> "p'
# (name, change, field path, rule): each bad record of issue 13, and the rule it breaks
BAD = [
    ("tier-7", lambda r: r.__setitem__("tier", 7), "tier", "SystemTier"),
    ("status-verified", lambda r: r["cells"]["type"].__setitem__("status", "verified"), "cells.type.status",
     "CellStatus"),
    ("claim-tier-t4", lambda r: r["cells"]["desc"].__setitem__("tier", "T4"), "cells.desc.tier", "CellClaimTier"),
    ("no-status", lambda r: r["cells"]["pros"].pop("status"), "cells.pros.status", "CellStatus"),
    ("two-primary", _two_primary, "sections", "SystemOnePrimaryListing"),
    ("no-primary", _no_primary, "sections", "SystemPrimarySection"),
    ("no-conflict-axis", lambda r: r["taxonomy"].pop("conflict"), "taxonomy.conflict", "TaxonomyConflict"),
    ("bad-date", lambda r: r.__setitem__("last_verified_at", "2026-13-45"), "last_verified_at",
     "SystemLastVerified"),
    ("injected-column", lambda r: r["cells"].__setitem__(INJECTION, dict(r["cells"]["type"])),
     f"cells.{INJECTION}", "CellColumnKey"),
    ("decay-cause", lambda r: r.__setitem__("decay_cause", "got-bored"), "decay_cause", "DecayCause"),
]


@pytest.fixture(scope="module")
def base(tmp_path_factory, clean):
    """An on-disk store holding the clean record, and its sorted N-Quads."""
    folder = tmp_path_factory.mktemp("rules")
    (folder / "clean.json").write_text(json.dumps(clean), encoding="utf-8")
    store = GraphStore(folder / "store")
    report = ingest_paths(store, [str(folder / "clean.json")])
    assert report.records == 1 and not report.findings  # the premise: a record that breaks no rule
    del store
    gc.collect()
    return {"store": folder / "store", "dump": dump(folder / "store")}


def dump(path: Path) -> list[str]:
    store = GraphStore(path)
    text = store.dump(None, "nquads").decode()
    del store
    gc.collect()
    return sorted(text.splitlines())


def fresh(base, tmp_path) -> Path:
    import shutil

    shutil.copytree(base["store"], tmp_path / "store")
    return tmp_path / "store"


def test_every_bad_record_is_named_by_file_record_and_field_in_a_real_process(base, clean, tmp_path):
    """Each breaks a structural rule: quarantined with its reasons, one line each, the store unchanged."""
    records = [variant(clean, name, change) for name, change, _, _ in BAD]
    file = tmp_path / "bad.json"
    file.write_text(json.dumps({"schemaVersion": "1.0.0", "records": records}), encoding="utf-8")
    store, quarantine = fresh(base, tmp_path), tmp_path / "q.jsonl"
    done = kg("ingest", str(file), "--store", str(store), "--quarantine", str(quarantine))
    assert done.returncode == EXIT_QUARANTINE, done.stderr
    assert not [line for line in done.stderr.splitlines() if line.startswith("warning: ")], done.stderr
    held = [line for line in done.stderr.splitlines() if line.startswith("quarantined: ")]
    assert len(held) == len(BAD), done.stderr  # one each, nothing else
    for index, ((name, _, path, rule), line) in enumerate(zip(BAD, held)):
        assert line.startswith(f"quarantined: {file}: [{index}] bad-{name}--example-org: {path}: breaks a "
                               f"structural rule, so it is not written: "), line
        assert f"(rule {rule}" in line, line
    lines = [json.loads(line) for line in quarantine.read_text(encoding="utf-8").splitlines()]
    assert [(item["index"], item["path"], item["reasons"][0]["rule"], item["reasons"][0]["kind"])
            for item in lines] == [(i, path, rule, "structural") for i, (_, _, path, rule) in enumerate(BAD)]
    assert dump(store) == base["dump"]


def test_a_schema_version_of_another_major_is_refused_and_changes_nothing(base, clean, tmp_path):
    file = tmp_path / "v2.json"
    file.write_text(json.dumps({"schemaVersion": "2.0.0", "records": [variant(clean, "v2", lambda r: None)]}),
                    encoding="utf-8")
    store = fresh(base, tmp_path)
    done = kg("ingest", str(file), "--store", str(store))
    assert done.returncode == EXIT_INPUT
    assert done.stderr.strip().splitlines() == [
        f"kg: error: {file}: schemaVersion: '2.0.0' is major version 2; kg reads major version 1 only"]
    assert dump(store) == base["dump"]


@pytest.mark.parametrize("version", ["1.0.0", "1.7", "1", "x"])
def test_schema_versions_of_major_1_or_without_a_number_are_read(tmp_path, clean, version):
    file = tmp_path / "v.json"
    file.write_text(json.dumps({"schemaVersion": version, "records": [clean]}), encoding="utf-8")
    assert ingest_paths(GraphStore(), [str(file)]).records == 1


def ingest(capsys, store: Path, *args: str) -> tuple[int, list[str]]:
    code = main(["ingest", *args, "--store", str(store)])
    gc.collect()
    return code, capsys.readouterr().err.splitlines()


def test_the_gate_keeps_the_stored_version_and_quarantines_the_new_one(base, clean, tmp_path, capsys):
    """--gate holds back what breaks quality rules (here two uncited T2 cells), which go in without it."""
    store = fresh(base, tmp_path)
    worse = copy.deepcopy(clean)
    worse["cells"]["type"]["citation"] = None
    worse["cells"]["desc"]["citation"] = None
    file = tmp_path / "worse.json"
    file.write_text(json.dumps(worse), encoding="utf-8")
    quarantine = tmp_path / "q.jsonl"
    code, lines = ingest(capsys, store, str(file), "--gate", "violation", "--quarantine", str(quarantine))
    assert code == EXIT_QUARANTINE
    assert dump(store) == base["dump"]  # quad for quad: the old version stays
    (held,) = [line for line in lines if line.startswith("quarantined: ")]
    assert held.startswith(f"quarantined: {file}: [0] mem0--mem0-ai: cells.") and held.endswith(
        ".citation: held back by the gate: breaks T2Citation x2; the stored version, if any, is kept"), held
    (item,) = [json.loads(line) for line in quarantine.read_text(encoding="utf-8").splitlines()]
    assert sorted((r["path"], r["rule"], r["kind"]) for r in item["reasons"]) == [
        ("cells.desc.citation", "T2Citation", "quality"), ("cells.type.citation", "T2Citation", "quality")]
    # without the gate the new version replaces the old one, with its warnings
    code, lines = ingest(capsys, store, str(file))
    assert code == EXIT_OK and sum(line.startswith("warning: ") for line in lines) == 2
    assert dump(store) != base["dump"]


def test_the_gate_quarantines_a_new_record_that_breaks_a_rule_and_lets_good_ones_in(base, clean, tmp_path,
                                                                                    capsys):
    store = fresh(base, tmp_path)
    bad = variant(clean, "new", lambda r: r["cells"]["type"].__setitem__("citation", None))
    good = copy.deepcopy(clean)
    good["name"] = "Mem0 (renamed)"
    file = tmp_path / "mixed.json"
    file.write_text(json.dumps({"schemaVersion": "1.0.0", "records": [bad, good]}), encoding="utf-8")
    code, lines = ingest(capsys, store, str(file), "--gate", "violation")
    assert code == EXIT_QUARANTINE
    assert any(line.startswith(f"quarantined: {file}: [0] bad-new--example-org: cells.type.citation: held back")
               for line in lines)
    after = GraphStore(store)
    ids = IRIS.stored_ids(after.named_graphs())
    names = {q.object.value for q in after.quads(IRIS.record_graph("mem0--mem0-ai"))
             if q.predicate.value == "https://schema.org/name"}
    del after
    gc.collect()
    assert ids == ["mem0--mem0-ai"] and names == {"Mem0 (renamed)"}


def test_a_top_level_list_is_accepted_with_a_warning_and_a_lone_record_without(clean, tmp_path, capsys):
    """Every record of the list is stored, and the lone one: read back from the store, each is its JSON."""
    def renamed(record_id: str) -> dict:
        return dict(copy.deepcopy(clean), id=record_id)

    records = [renamed(f"listed-{i}--example-org") for i in range(3)]
    alone = renamed("lone--example-org")
    listed, lone = tmp_path / "list.json", tmp_path / "lone.json"
    listed.write_text(json.dumps(records), encoding="utf-8")
    lone.write_text(json.dumps(alone), encoding="utf-8")
    code, lines = ingest(capsys, tmp_path / "store", str(listed), str(lone))
    assert code == EXIT_OK
    assert [line for line in lines if line.startswith("warning: ")] == [
        f"warning: {listed}: (file): a top-level list of records, not a catalog file "
        "({'schemaVersion', 'records': [...]}): accepted, without a catalog header"]
    stored = GraphStore(tmp_path / "store")
    found = {record["id"]: record for record in catalog_records(stored, IRIS)}
    del stored
    gc.collect()
    assert found == {record["id"]: record for record in [*records, alone]}


def _record_results(report):
    rules = load_rules(IRIS)
    return Counter(r.key for r in report.results if rules[r.rule].scope == "record")


def test_the_rules_at_ingest_find_what_kg_validate_finds_on_the_bundled_catalog(bundled_ingest, bundled_report,
                                                                               expected_records):
    """Result for result, the findings of the bundled catalog's ingest (records and edges) equal the
    record-local results of the split pySHACL run over the stored graph (both fixtures are made once
    per session, for other tests too)."""
    store, report = bundled_ingest
    found = Counter(f.result.key for f in report.findings)
    assert found == _record_results(bundled_report)
    assert report.checked == len(expected_records) == 912
    # and one count straight from the JSON: the T2 cells without an http(s) citation
    uncited = sum(1 for record in expected_records.values() for cell in record["cells"].values()
                  if cell.get("tier") == "T2" and not str(cell.get("citation") or "").startswith(("http://",
                                                                                                  "https://")))
    assert Counter(key[0] for key in found)["T2Citation"] == uncited == 12242


def test_the_help_names_the_caps_the_checks_apply():
    from kg.cli.data import MAX_BYTES_TEXT, MAX_CELLS_TEXT
    from kg.sources import MAX_RECORD_BYTES, MAX_RECORD_CELLS

    assert MAX_CELLS_TEXT == str(MAX_RECORD_CELLS) and MAX_BYTES_TEXT.split()[0] == str(MAX_RECORD_BYTES)


FIXTURES = sorted((ROOT / "tests" / "shapes").glob("*.ttl"))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_the_rules_at_ingest_pass_every_shape_fixture(path):
    """The passing and failing graph of each record-local rule (tests/shapes/, also run on pySHACL and
    pyrudof by test_validation_rules.py) give the results their header expects."""
    import re

    import pyoxigraph

    from kg.validation.core import Facts, core_shapes

    text = path.read_text(encoding="utf-8")
    rule = re.search(r"^# rule: (\w+)$", text, re.M).group(1)
    if load_rules(IRIS)[rule].scope != "record":
        pytest.skip("a catalog-wide rule: left to kg validate")
    expected = {(rule, m.group(1), None if m.group(2) == "-" else m.group(2), m.group(3))
                for m in re.finditer(r"^# expect: (.+) \| (.+) \| (\w+)$", text, re.M)}
    facts = Facts().add(pyoxigraph.parse(text.encode("utf-8"), format=pyoxigraph.RdfFormat.TURTLE))
    found = {(r.rule, r.focus, r.path, r.severity) for r in core_shapes(IRIS.base).check(facts)}
    assert found == expected


def test_edges_are_checked_against_the_edge_rules_too(tmp_path, edges_file, capsys):
    edges = [dict(e) for e in edges_file["edges"][:3]]
    edges[0]["citation"] = "see the paper"
    edges[2]["evidence"] = "   "
    file = tmp_path / "edges.json"
    file.write_text(json.dumps({"schemaVersion": "1.0.0", "edges": edges}), encoding="utf-8")
    code, lines = ingest(capsys, Path(":memory:"), str(file))
    assert code == EXIT_OK
    assert [line for line in lines if "(rule " in line] == [
        f"warning: {file}: [0] {edges[0]['source']} -> {edges[0]['target']}: citation: An edge cites one http(s) "
        f"URL. (rule EdgeCitation; value 'see the paper')",
        f"warning: {file}: [2] {edges[2]['source']} -> {edges[2]['target']}: evidence: An edge has one evidence "
        f"text, not blank, at most 500 characters. (rule EdgeEvidence; value '   ')"]


def test_a_records_facts_from_the_mappings_terms_are_those_of_its_quads(seed_record):
    """The ingest indexes the mapping's own (s, p, o) (``record_triples``), not the quads read back."""
    from kg.mapping import in_graph, record_triples
    from kg.records import record_from_json
    from kg.validation.core import Facts

    triples, _ = record_triples(record_from_json(seed_record), IRIS, set())
    quads = in_graph(triples, IRIS.record_graph(seed_record["id"]))
    from_terms, from_quads = Facts().add_terms(triples), Facts().add(quads)
    assert len(triples) > 900
    for index in ("forward", "backward", "by_predicate", "instances"):
        assert getattr(from_terms, index) == getattr(from_quads, index)


# ---------------------------------------------------------------------------
# Structural rules quarantine, quality rules warn (the rule table's kgsh:ruleKind)


def _empty_sections(r):
    r["sections"] = []


def _axis_without_primary(r):
    for value in r["taxonomy"]["unit"]:
        value["primary"] = False


# (name, change, field path, rule): one record for each kind of structural break of the schema
STRUCTURAL_BREAKS = [
    ("tier-6", lambda r: r.__setitem__("tier", 6), "tier", "SystemTier"),
    ("tier-0", lambda r: r.__setitem__("tier", 0), "tier", "SystemTier"),
    ("cell-without-status", lambda r: r["cells"]["pros"].pop("status"), "cells.pros.status", "CellStatus"),
    ("two-primary-sections", _two_primary, "sections", "SystemOnePrimaryListing"),
    ("no-primary-section", _no_primary, "sections", "SystemPrimarySection"),
    ("empty-sections", _empty_sections, "sections", "SystemPrimarySection"),
    ("axis-without-primary", _axis_without_primary, "taxonomy.unit", "TaxonomyUnit"),
    ("missing-axis", lambda r: r["taxonomy"].pop("governance"), "taxonomy.governance", "TaxonomyGovernance"),
    ("javascript-url", lambda r: r.__setitem__("url", "javascript:alert(1)"), "url", "SystemUrl"),
]


def stored_names(store: Path) -> dict[str, set[str]]:
    """The records of a store on disk: id -> its schema:name values."""
    opened = GraphStore(store)
    found = {record_id: {q.object.value for q in opened.quads(IRIS.record_graph(record_id))
                         if q.predicate.value == "https://schema.org/name"}
             for record_id in IRIS.stored_ids(opened.named_graphs())}
    del opened
    gc.collect()
    return found


@pytest.mark.parametrize("name,change,path,rule", STRUCTURAL_BREAKS, ids=[c[0] for c in STRUCTURAL_BREAKS])
def test_a_record_that_breaks_a_structural_rule_is_quarantined_and_its_neighbours_go_in(base, clean, tmp_path,
                                                                                       name, change, path, rule):
    store, quarantine = fresh(base, tmp_path), tmp_path / "q.jsonl"
    before = variant(clean, "before", lambda r: r.__setitem__("name", "Before"))
    bad = variant(clean, name, change)
    after = variant(clean, "after", lambda r: r.__setitem__("name", "After"))
    records = [before, bad, after]
    file = tmp_path / "mixed.json"
    file.write_text(json.dumps({"schemaVersion": "1.0.0", "records": records}), encoding="utf-8")
    done = kg("ingest", str(file), "--store", str(store), "--quarantine", str(quarantine))
    assert done.returncode == EXIT_QUARANTINE, done.stderr
    (held,) = [line for line in done.stderr.splitlines() if line.startswith("quarantined: ")]
    assert held.startswith(f"quarantined: {file}: [1] {bad['id']}: {path}: breaks a structural rule"), held
    assert f"(rule {rule}" in held, held
    assert not [line for line in done.stderr.splitlines() if line.startswith("warning: ") and bad["id"] in line]
    (item,) = [json.loads(line) for line in quarantine.read_text(encoding="utf-8").splitlines()]
    assert (item["source"], item["index"], item["id"], item["path"]) == (str(file), 1, bad["id"], path)
    assert (path, rule, "structural") in {(r["path"], r["rule"], r["kind"]) for r in item["reasons"]}
    # the neighbours went in, the bad record did not: what the input says, less the bad one
    expected = {"mem0--mem0-ai": {clean["name"]}} | {r["id"]: {r["name"]} for r in records if r is not bad}
    assert stored_names(store) == expected


def test_a_record_that_breaks_only_quality_rules_goes_in_with_a_warning_and_the_gate_holds_it(base, clean,
                                                                                            tmp_path):
    uncited = variant(clean, "uncited", lambda r: r["cells"]["type"].__setitem__("citation", None))
    file = tmp_path / "uncited.json"
    file.write_text(json.dumps(uncited), encoding="utf-8")
    store = fresh(base, tmp_path)
    done = kg("ingest", str(file), "--store", str(store))
    assert done.returncode == EXIT_OK, done.stderr
    assert [line for line in done.stderr.splitlines() if line.startswith("warning: ")] == [
        f"warning: {file}: [0] {uncited['id']}: cells.type.citation: A T2 cell has an http(s) citation. "
        "(rule T2Citation)"]
    assert set(stored_names(store)) == {"mem0--mem0-ai", uncited["id"]}
    gated = tmp_path / "gated"
    shutil.copytree(base["store"], gated)
    done = kg("ingest", str(file), "--store", str(gated), "--gate", "violation")
    assert done.returncode == EXIT_QUARANTINE, done.stderr
    assert f"{uncited['id']}: cells.type.citation: held back by the gate: breaks T2Citation" in done.stderr
    assert dump(gated) == base["dump"]


def test_strict_rejects_the_whole_input_for_a_structural_break(base, clean, tmp_path):
    records = [variant(clean, "fine", lambda r: None), variant(clean, "tier-9", lambda r: r.__setitem__("tier", 9))]
    file = tmp_path / "two.json"
    file.write_text(json.dumps({"schemaVersion": "1.0.0", "records": records}), encoding="utf-8")
    store = fresh(base, tmp_path)
    done = kg("ingest", str(file), "--store", str(store), "--strict")
    assert done.returncode == EXIT_INPUT, done.stderr
    assert f"[1] bad-tier-9--example-org: tier: breaks a structural rule" in done.stderr
    assert dump(store) == base["dump"]


def test_an_edge_that_breaks_a_structural_rule_is_quarantined_and_the_others_go_in(tmp_path, edges_file):
    edges = [dict(e) for e in edges_file["edges"][:3]]
    edges[1].update(type="built-on", isInfluential=True)  # isInfluential is given only on cites edges
    file, store = tmp_path / "edges.json", tmp_path / "store"
    file.write_text(json.dumps({"schemaVersion": "1.0.0", "edges": edges}), encoding="utf-8")
    done = kg("ingest", str(file), "--store", str(store))
    assert done.returncode == EXIT_QUARANTINE, done.stderr
    (held,) = [line for line in done.stderr.splitlines() if line.startswith("quarantined: ")]
    assert held.startswith(f"quarantined: {file}: [1] {edges[1]['source']} -> {edges[1]['target']}: type: breaks "
                           "a structural rule") and "(rule InfluentialOnlyOnCites" in held, held
    opened = GraphStore(store)
    kept = {(r["s"].value, r["t"].value) for r in opened.select(
        "SELECT ?s ?t WHERE { ?r <https://w3id.org/agent-landscape/ontology#source> ?s ; "
        "<https://w3id.org/agent-landscape/ontology#target> ?t }")}
    del opened
    gc.collect()
    assert kept == {(IRIS.system(e["source"]).value, IRIS.system(e["target"]).value) for e in (edges[0], edges[2])}


def test_the_validation_guide_and_the_shapes_readme_say_which_rules_are_structural_and_which_quality():
    import re

    kinds: dict[str, list[str]] = {"structural": [], "quality": []}
    for name, rule in sorted(load_rules(IRIS).items()):
        kinds[rule.kind].append(name)
    assert kinds["structural"] and kinds["quality"] and "T2Citation" in kinds["quality"]
    guide = (ROOT / "docs" / "guide" / "validation.md").read_text(encoding="utf-8").splitlines()
    for kind, names in kinds.items():
        (line,) = [line for line in guide if line.startswith(f"- **{kind}**")]
        assert re.findall(r"`(\w+)`", line.split(":", 1)[1]) == names, kind
    table = {m.group(1): m.group(2) for m in re.finditer(r"^\| `(\w+)` \| (structural|quality) \|",
                                                          (ROOT / "shapes" / "README.md").read_text(encoding="utf-8"),
                                                          re.M)}
    assert table == {name: kind for kind, names in kinds.items() for name in names}


def test_no_record_of_the_bundled_catalog_breaks_a_structural_rule(bundled_ingest):
    """The bundled catalog builds whole: its findings (12,586) are all quality findings."""
    _, report = bundled_ingest
    assert report.records == 912 and not report.quarantined
    rules = load_rules(IRIS)
    assert {f.rule for f in report.findings} and not [f for f in report.findings if rules[f.rule].structural]
