"""Findings kept per version (kg.findings): what ``kg validate`` finds, kept beside each version by the
ingest, read back by the named queries ``findings`` and ``findings-matrix``; and the ``stale`` query.

The kept findings are compared, finding for finding (as multisets), with a fresh ``kg validate
--format json`` run as a real process: after a first ingest of the bundled catalog, after an
incremental re-ingest of two changed records, and for a version that kept none (validated on first
need, and said so). Counts and freshness are computed from the catalog JSON (data/), never from our
own SPARQL.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import gc
import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest
from helpers import kg

from kg import findings
from kg.cli import main
from kg.findings import Findings, display_text
from kg.ingestion import ingest_paths
from kg.sources import bundled_paths
from kg.store import GraphStore
from kg.vocab import Iris

ROOT = Path(__file__).resolve().parent.parent
HTTP = re.compile(r"^https?://")


def fresh(store: Path) -> Counter:
    """``kg validate --format json`` of the store, as a real process: its results as a multiset."""
    done = kg("validate", "--store", str(store), "--format", "json")
    assert done.returncode in (0, 1), done.stderr
    return Counter((r["rule"], r["severity"], r["record"], r["column"], r["focus"], r["value"], r["path"])
                   for r in json.loads(done.stdout)["results"])


def kept(store: Path) -> tuple[Counter, Findings]:
    """The findings kept for the store's current version, as a multiset comparable with :func:`fresh`."""
    opened = GraphStore.open_existing(store, read_only=True)
    found = findings.read(opened)
    del opened
    gc.collect()
    assert found is not None, "no findings kept"
    return Counter((f.rule, f.severity, f.record, f.column, display_text(f.focus), display_text(f.value), f.path)
                   for f in found.rows), found


def catalog() -> dict[str, dict]:
    """The bundled records by id, the seed record superseding its site version (as an ingest does)."""
    records = {r["id"]: r for r in json.loads((ROOT / "data" / "landscape-site.json").read_text())["records"]}
    seed = json.loads((ROOT / "data" / "seed-record.json").read_text())
    records[seed["id"]] = seed
    return records


def primary_section(record: dict) -> str:
    """A record's primary section: the site shape's primary listing, or the export shape's ``section``."""
    if isinstance(record.get("section"), str):
        return record["section"]
    return next(s["section"] for s in record["sections"] if isinstance(s, dict) and s.get("primary"))


def t2_without_citation(records: dict[str, dict]) -> Counter:
    """(record, column) of every T2 cell without an http(s) citation: what T2Citation reports."""
    return Counter((rid, slug) for rid, record in records.items() for slug, cell in record["cells"].items()
                   if cell.get("tier") == "T2" and not (isinstance(cell.get("citation"), str)
                                                         and HTTP.match(cell["citation"])))


@pytest.fixture(scope="module")
def history(tmp_path_factory) -> dict:
    """A store of the bundled catalog, then two records changed and ingested again; what was kept and
    what kg validate found after each, and the changed records."""
    folder = tmp_path_factory.mktemp("findings")
    path = folder / "kg-store"
    store = GraphStore(path)
    ingest_paths(store, bundled_paths())
    del store
    gc.collect()
    out: dict = {"path": path}
    out["first"] = (*kept(path), fresh(path))
    records = catalog()
    mem0 = copy.deepcopy(records["mem0--mem0-ai"])
    mem0["cells"]["type"]["citation"] = "https://mem0.ai/"  # one T2Citation less
    mem0["cells"]["license"].update(tier="T1", citation="https://example.org/not-github")  # a T1Citation more
    zep = copy.deepcopy(records["zep-graphiti--getzep-com"])
    zep["cells"]["pros"]["citation"] = "https://www.getzep.com/"
    changed = folder / "changed.json"
    changed.write_text(json.dumps({"records": [mem0, zep]}), encoding="utf-8")
    done = kg("ingest", "--store", str(path), str(changed))
    assert done.returncode == 0, done.stderr
    out["second"] = (*kept(path), fresh(path))
    out["records"] = {**records, mem0["id"]: mem0, zep["id"]: zep}
    return out


def test_kept_after_a_first_ingest_are_kg_validates_findings(history):
    rows, found, validated = history["first"]
    assert rows == validated
    assert found.made == "checked at ingest (a first ingest)"
    t2 = t2_without_citation(catalog())
    assert sum(n for (rule, *_), n in rows.items() if rule == "T2Citation") == sum(t2.values()) == 12242


def test_kept_after_an_incremental_reingest_are_kg_validates_findings(history):
    rows, found, validated = history["second"]
    assert rows == validated
    assert found.made.startswith("validated after an ingest that changed 2 record(s)")
    first = history["first"][0]
    gone, new = first - rows, rows - first
    assert {(rule, record, column) for rule, _, record, column, *_ in gone} == {
        ("T2Citation", "mem0--mem0-ai", "type"), ("T2Citation", "mem0--mem0-ai", "license"),
        ("T2Citation", "zep-graphiti--getzep-com", "pros")}
    assert {(rule, record, column) for rule, _, record, column, *_ in new} == {
        ("T1Citation", "mem0--mem0-ai", "license")}
    t2 = t2_without_citation(history["records"])
    assert sum(n for (rule, *_), n in rows.items() if rule == "T2Citation") == sum(t2.values())


def test_the_findings_query_reads_the_kept_findings(history, capsys):
    path = str(history["path"])
    assert main(["query", "findings", "--store", path, "-p", "limit=100000", "-f", "json"]) == 0
    captured = capsys.readouterr()
    rows = json.loads(captured.out)
    assert "validated now" not in captured.err
    assert Counter((r["rule"], r["severity"], r["id"], r["column"], r["focus"], r["value"], r["path"])
                   for r in rows) == history["second"][0]
    records = history["records"]
    mine = [r for r in rows if r["id"] == "mem0--mem0-ai"]
    assert {r["name"] for r in mine} == {records["mem0--mem0-ai"]["name"]}
    assert {r["section"] for r in mine} == {primary_section(records["mem0--mem0-ai"])}


@pytest.mark.parametrize("given", [{"rule": "T2Citation", "column": "license"}, {"id": "mem0--mem0-ai"},
                                   {"severity": "Warning"}, {"section": "Dedicated memory layers",
                                                             "rule": "T2Citation"}])
def test_the_findings_query_filters_as_asked(history, capsys, given):
    path = str(history["path"])
    words = [w for key, value in given.items() for w in ("-p", f"{key}={value}")]
    assert main(["query", "findings", "--store", path, *words, "-p", "limit=100000", "-f", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    records = history["records"]
    t2 = t2_without_citation(records)
    sections = {rid: primary_section(r) for rid, r in records.items()}
    if "column" in given:
        assert Counter((r["id"], r["column"]) for r in rows) == Counter(
            {k: n for k, n in t2.items() if k[1] == "license"})
    elif "id" in given:
        assert Counter((r["rule"], r["column"]) for r in rows) == Counter(
            {("T2Citation", c): n for (rid, c), n in t2.items() if rid == "mem0--mem0-ai"}
            | {("T1Citation", "license"): 1})
    elif "severity" in given:
        assert rows and {r["severity"] for r in rows} == {"Warning"}
        assert len(rows) == sum(n for (_, severity, *_), n in history["second"][0].items() if severity == "Warning")
    else:
        assert Counter(r["id"] for r in rows) == Counter(
            rid for (rid, _), n in t2.items() for _ in range(n) if sections[rid] == "Dedicated memory layers")


def test_the_matrix_counts_the_findings_by_rule_and_column(history, capsys):
    path = str(history["path"])
    assert main(["query", "findings-matrix", "--store", path, "-f", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    t2 = t2_without_citation(history["records"])
    by_column = Counter()
    for (_, column), n in t2.items():
        by_column[column] += n
    assert {r["key"]: r["findings"] for r in rows if r["rule"] == "T2Citation"} == dict(by_column)
    assert {r["key"]: r["records"] for r in rows if r["rule"] == "T2Citation"} == dict(
        Counter(column for (_, column) in t2))
    assert main(["query", "findings-matrix", "--store", path, "-p", "by=section", "-f", "json"]) == 0
    by_section = json.loads(capsys.readouterr().out)
    assert sum(r["findings"] for r in by_section if r["rule"] == "T2Citation") == sum(t2.values())


def test_a_version_without_kept_findings_is_validated_on_first_need(history, tmp_path, capsys):
    """A copy of a store folder has new inodes: what was kept beside it is out of date, so the first
    reader validates the version, says so, and keeps its findings for the next."""
    copied = tmp_path / "copy"
    shutil.copytree(history["path"], copied)
    words = ["query", "findings", "--store", str(copied), "-p", "id=mem0--mem0-ai", "-f", "json"]
    assert main(words) == 0
    captured = capsys.readouterr()
    assert "no findings were kept for this version of the store: validated now" in captured.err
    expected = Counter(k for k in history["second"][0].elements() if k[2] == "mem0--mem0-ai")
    assert Counter((r["rule"], r["severity"], r["id"], r["column"], r["focus"], r["value"], r["path"])
                   for r in json.loads(captured.out)) == expected
    assert main(words) == 0
    assert "validated now" not in capsys.readouterr().err  # kept by the first need


def test_findings_kept_for_other_rules_are_not_used(history, tmp_path):
    copied = tmp_path / "copy"
    shutil.copytree(history["path"], copied)
    store = GraphStore.open_existing(copied, read_only=True)
    base = Iris().base
    assert findings.read(store) is None  # a copy: out of date
    made = findings.current(store)
    assert made.made_now and made.key == findings.rules_digest(base) != findings.rules_digest(base + "other/")
    assert findings.read(store) == made
    assert findings.write(store, dataclasses.replace(made, key="another digest of the rules"))
    assert findings.read(store) is None
    del store
    gc.collect()


# ---------------------------------------------------------------------------
# stale: verification dates against the catalog JSON


def whole_months(earlier: dt.date, later: dt.date) -> int:
    return (later.year - earlier.year) * 12 + later.month - earlier.month - (later.day < earlier.day)


def stale_from_json(records: dict[str, dict], today: dt.date, months: int, scope: str) -> Counter:
    """(id, column or None, date) of each cell (or record) verified ``months`` whole months or more
    before ``today``: a cell dated by its own ``last_verified_at``, else its record's."""
    found = Counter()
    for rid, record in records.items():
        own = dt.date.fromisoformat(record["last_verified_at"][:10]) if record.get("last_verified_at") else None
        if scope == "records":
            if own is not None and whole_months(own, today) >= months:
                found[(rid, None, own)] += 1
            continue
        for slug, cell in record["cells"].items():
            day = dt.date.fromisoformat(cell["last_verified_at"][:10]) if cell.get("last_verified_at") else own
            if day is not None and whole_months(day, today) >= months:
                found[(rid, slug, day)] += 1
    return found


@pytest.mark.parametrize("scope", ["cells", "records"])
@pytest.mark.parametrize("today, months", [(None, 12), ("2027-05-14", 12), ("2027-05-15", 12),
                                           ("2028-05-14", 24), ("2026-11-15", 6)])
def test_stale_answers_from_the_verification_dates(bundled_store, capsys, scope, today, months):
    words = ["-p", f"months={months}", "-p", f"scope={scope}", "-p", "limit=100000"]
    if today is not None:
        words += ["-p", f"today={today}"]
    assert main(["query", "stale", "--store", str(bundled_store.path), *words, "-f", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    day = dt.date.fromisoformat(today) if today else dt.datetime.now(dt.timezone.utc).date()
    expected = stale_from_json(catalog(), day, months, scope)
    assert Counter((r["id"], r["column"], dt.date.fromisoformat(r["verified"])) for r in rows) == expected
    assert all(r["months"] == whole_months(dt.date.fromisoformat(r["verified"]), day) >= months for r in rows)
    if today in ("2027-05-15", "2028-05-14"):
        assert rows  # the boundary is crossed: 2026-05-14 is 12 whole months before 2027-05-14 and after
