"""The validation runs (kg.validation.runs): the split run against one monolithic pySHACL run, the
real state of the bundled catalog from its JSON, the command's exit codes, records on their own and
incremental revalidation."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import date
from pathlib import Path

import pyoxigraph
import pytest

from kg.cli import EXIT_INPUT, EXIT_OK, EXIT_STORE, EXIT_USAGE, EXIT_VIOLATIONS
from kg.ingestion import ingest_paths
from kg.validation import load_rules, revalidate, validate, validate_monolithic
from helpers import in_process

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "shapes"
ID_PATTERN = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*(--[a-z0-9]+(-[a-z0-9]+)*)?$")


# ---------------------------------------------------------------------------
# The bundled catalog: split == monolithic, and the counts per rule from the JSON


def _rule_rich_records(records: list[dict], sections: tuple[list[str], list[str]]) -> list[dict]:
    """Real records that between them break every rule the bundled catalog breaks: each record with a
    T1 cell that is not cited from GitHub or a licence cell that says it holds no licence, ten outside
    the canonical sections, and the first twenty (chosen from the JSON, not from a validation)."""
    names, non_canonical = sections
    canonical = set(names) - set(non_canonical)

    def wanted(record: dict) -> bool:
        cells = record["cells"]
        licence = cells.get("license") or {}
        return any(c.get("tier") == "T1" and _citation_results(c, r"^https://github\.com/")
                   for c in cells.values()) or (
            licence.get("status") in ("real-data", "estimate")
            and licence.get("value", "").lower().startswith(("n/a", "no data")))

    outside = [r for r in records if any((s if isinstance(s, str) else s["section"]) not in canonical
                                         for s in r["sections"])][:10]
    chosen = {r["id"]: r for r in [*records[:20], *outside, *(r for r in records if wanted(r))]}
    return list(chosen.values())


def test_split_run_equals_one_monolithic_pyshacl_run_on_real_records(tmp_path, expected_records, edges_file,
                                                                     readme_sections, bundled_report, iris):
    """Stock pySHACL in one run over real records that break every rule the bundled catalog breaks,
    with real edges that reach records that are not there (every edge at either of them, and the
    first 30 of the file, some with neither end there): the split run gives the same results.
    The split run on the whole bundled catalog is checked against counts from the JSON below.
    (Stock pySHACL's time grows with the edges far faster than with the records: all 528 of them
    cost ten times these.)"""
    chosen = _rule_rich_records(list(expected_records.values()), readme_sections)
    records = tmp_path / "records.jsonl"
    records.write_text("".join(json.dumps(r) + "\n" for r in chosen), encoding="utf-8")
    ids = {r["id"] for r in chosen}
    kept = [e for i, e in enumerate(edges_file["edges"]) if i < 30 or e["source"] in ids or e["target"] in ids]
    ends = Counter((e["source"] in ids, e["target"] in ids) for e in kept)
    assert ends[(True, False)] and ends[(False, True)] and ends[(False, False)]  # every way to miss an end
    edges = tmp_path / "landscape.edges.json"
    edges.write_text(json.dumps({**edges_file, "edges": kept}), encoding="utf-8")
    from kg.store import GraphStore

    store = GraphStore(tmp_path / "store")
    ingest_paths(store, [str(records), str(edges)])
    split = validate(store, iris, jobs=1)
    rules = {r.rule for r in split.results}
    assert {r.rule for r in bundled_report.results} <= rules  # every rule the whole catalog breaks
    assert {"RelationSourceIsSystem", "RelationTargetIsSystem"} <= rules
    assert split.keys() == validate_monolithic(store, iris).keys()
    # and each chosen record's own results are those of the whole catalog's split run
    ids = {r["id"] for r in chosen}
    local = {"RelationSourceIsSystem", "RelationTargetIsSystem"}
    assert Counter((r.record, r.rule) for r in split.results if r.rule not in local) == Counter(
        (r.record, r.rule) for r in bundled_report.results if r.record in ids)


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


def expected_counts(records: dict[str, dict], edges: list[dict], sections: tuple[list[str], list[str]]) -> Counter:
    """The results each rule must give, computed from the catalog JSON (no RDF, no SPARQL)."""
    names, non_canonical = sections
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
                                                                        edges_file, readme_sections):
    reported = Counter(entry["rule"] for entry in bundled_report.to_json()["results"])
    expected = expected_counts(expected_records, edges_file["edges"], readme_sections)
    assert reported == expected
    # the real state of the reconstructed data: most T2 cells carry no citation
    assert expected["T2Citation"] > 12000 and expected["CanonicalSection"] == 341


def test_t2_citation_counts_per_column_match_the_catalog_json(bundled_report, expected_records):
    per_column = Counter(r.column for r in bundled_report.results if r.rule == "T2Citation")
    expected = Counter(slug for record in expected_records.values() for slug, cell in record["cells"].items()
                       if cell.get("tier") == "T2" for _ in range(_citation_results(cell, r"^https?://")))
    assert per_column == expected
    assert per_column["desc"] == 911  # every site record but the seed's, whose cells are cited


def test_kg_validate_on_the_bundled_store(capsys, bundled_store, bundled_report):
    """The command on two records of the store: their results, and the catalog-wide rules."""
    chosen = ["mem0--mem0-ai", "smolagents-memory--huggingface-co"]
    run = in_process(capsys, "validate", "--store", str(bundled_store.path), "--format", "json",
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


def test_exit_codes_and_fail_on(capsys):
    warning_only = str(FIXTURES / "CanonicalSection.fail.ttl")
    assert in_process(capsys, "validate", str(FIXTURES / "T2Citation.pass.ttl")).returncode == EXIT_OK
    run = in_process(capsys, "validate", warning_only)
    assert run.returncode == EXIT_OK and "WARN: 0 violation(s), 1 warning(s)" in run.stdout
    assert in_process(capsys, "validate", warning_only, "--fail-on", "warning").returncode == EXIT_VIOLATIONS
    assert in_process(capsys, "validate", str(FIXTURES / "T2Citation.fail.ttl")).returncode == EXIT_VIOLATIONS
    assert in_process(capsys, "validate", str(ROOT / "README.md")).returncode == EXIT_INPUT
    assert in_process(capsys, "validate", str(FIXTURES / "missing.ttl")).returncode == EXIT_INPUT
    assert in_process(capsys, "validate", "--jobs", "0", warning_only).returncode == EXIT_USAGE
    assert in_process(capsys, "validate", "--fail-on", "never").returncode == EXIT_USAGE
    assert in_process(capsys, "validate", "--store", str(FIXTURES / "no-store")).returncode == EXIT_STORE


def test_edges_to_missing_records_are_reported(partial_report, site_catalog, edges_file, iris):
    report = partial_report
    kept = {r["id"] for r in site_catalog["records"][:40]}
    counts = Counter(r.rule for r in report.results)
    assert counts["RelationTargetIsSystem"] == sum(e["target"] not in kept for e in edges_file["edges"]) > 0
    assert counts["RelationSourceIsSystem"] == sum(e["source"] not in kept for e in edges_file["edges"]) > 0
    dangling = next(r for r in report.results if r.rule == "RelationTargetIsSystem")
    assert dangling.path == "kg:target" and dangling.value.startswith(iris.base + "system/")


def test_revalidating_one_changed_record_equals_a_full_run(partial_store, partial_report, site_catalog, iris,
                                                           tmp_path):
    before = partial_report  # of the same 40 records and edges (IRIs are minted from ids: the same results)
    record = dict(site_catalog["records"][3], tier=7)
    record["sections"] = [dict(record["sections"][0], section="Training infrastructure", subsection="x")]
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(record), encoding="utf-8")
    ingest_paths(partial_store, [str(changed)], keep_invalid=True)  # tier 7 is structural: written anyway here
    after = revalidate(before, partial_store, [record["id"]], iris)
    full = validate(partial_store, iris, jobs=1)
    assert after.keys() == full.keys() != before.keys()
    mine = {r.rule for r in after.results if r.record == record["id"]}
    assert {"SystemTier", "CanonicalSection", "SubsectionSection"} <= mine
    one = validate(partial_store, iris, records=[record["id"]])
    assert {r.key for r in one.results if r.record == record["id"]} == \
        {r.key for r in full.results if r.record == record["id"]}


def test_the_bundled_catalog_result_for_result_equals_one_stock_pyshacl_run(bundled_store, bundled_report, iris):
    """The engine's report on the whole bundled catalog (912 records, 528 edges, 41 rules) and
    one run of stock, unpatched pySHACL over the same graph: the same results, each as many
    times (rule, focus node, path, value, component, severity), the record and column each is
    filed under too."""
    stock = validate_monolithic(bundled_store, iris)
    assert len(bundled_report.results) == len(stock.results) > 12_000
    assert Counter(bundled_report.results) == Counter(stock.results)
    filed = lambda report: Counter((r, r.record, r.column) for r in report.results)  # noqa: E731
    assert filed(bundled_report) == filed(stock)


def test_records_the_store_lacks_are_named(bundled_store):
    """--record: each id looked up in the store; one it lacks (or no IRI can hold) is a usage error naming it."""
    from kg.errors import UsageError

    with pytest.raises(UsageError, match=r"no record bad id>, no-such-record in the store"):
        validate(bundled_store, records=["mem0--mem0-ai", "no-such-record", "bad id>"])
    report = validate(bundled_store, records=["mem0--mem0-ai"])
    assert report.records == 1


def test_a_check_of_some_records_equals_the_full_run_on_them(bundled_store, bundled_report, expected_records, iris):
    """--record reads only the shared resources the records reach, and the catalog-wide answers the
    ingest remembered: the same results as the full run (itself equal to stock pySHACL, above), for
    those records' graphs and for every catalog-wide rule."""
    rules = load_rules(iris)
    chosen = set(sorted(expected_records)[::7])
    some = validate(bundled_store, iris, records=sorted(chosen))

    def of_records(report):
        return Counter(r for r in report.results if rules[r.rule].scope == "record" and r.record in chosen
                       and not r.focus.startswith(iris.base + "relation/"))

    def catalog_wide(report):
        return Counter(r for r in report.results if rules[r.rule].scope == "catalog")

    assert of_records(some) == of_records(bundled_report)
    assert sum(of_records(some).values()) > 1000
    assert catalog_wide(some) == catalog_wide(bundled_report)
