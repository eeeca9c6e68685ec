"""The record pass on worker processes (``--jobs``): the store, the changeset and the report are those
of a one-process build, byte for byte, on the bundled catalog and on a generated full-shape one with
bad records; errors, the quarantine, --strict, Ctrl-C and killed processes behave as in one process."""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pyoxigraph import Literal, NamedNode, Quad

from helpers import kg, kg_command
from kg import findings
from kg.description import ontology_quads
from kg.errors import InputRejected, RecordError, UsageError, WorkerLost
from kg.history import recorder
from kg.ingestion import batching, in_worker, ingest_paths, workers
from kg.ingestion.reconcile import Reconcile
from kg.ingestion.read_check import Pending
from kg.records import record_from_json
from kg.sources import bundled_paths
from kg.store import GraphStore
from kg.validation.at_ingest import RuleCheck, summary_text
from kg.vocab import KG, RDF, RDFS, Iris

ROOT = Path(__file__).resolve().parent.parent
IRIS = Iris()
FORK = pytest.mark.skipif(not workers.available(), reason="worker processes need fork (Linux)")
pytestmark = FORK

_spec = importlib.util.spec_from_file_location("landscape_generate_parallel", ROOT / "benchmarks" / "generate.py")
gen = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = gen
_spec.loader.exec_module(gen)


@pytest.fixture(autouse=True)
def _fixed_clock(monkeypatch):
    """One time for every changeset: two builds' changeset graphs then compare quad for quad."""
    monkeypatch.setattr(recorder, "now", lambda: "2026-01-01T00:00:00")


def _generated(folder: Path, records: int, seed: int = 41) -> tuple[Path, Path]:
    catalog, edges = gen.generate_catalog(records, seed=seed)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "catalog.json").write_text(gen.dumps_catalog(catalog), encoding="utf-8")
    (folder / "edges.json").write_text(gen.dumps_edges(edges), encoding="utf-8")
    return folder / "catalog.json", folder / "edges.json"


def _bad_records(catalog: Path) -> list[dict]:
    """Records that exercise every way out: a bad id, a duplicate id, a structural break, a quality
    finding (held back by --gate warning), a later version of an earlier record."""
    records = json.loads(catalog.read_text(encoding="utf-8"))["records"]
    empty_axis = copy.deepcopy(records[3])
    empty_axis["id"] = "empty-axis--example-org"
    empty_axis["taxonomy"]["storage"] = []  # TaxonomyStorage: structural
    uncited = copy.deepcopy(records[4])
    uncited["id"] = "uncited--example-org"
    for cell in uncited["cells"].values():
        if cell.get("tier") == "T2":
            cell["citation"] = None  # T2Citation: quality
    later = copy.deepcopy(records[7])
    later["name"] = later["name"] + " (renamed)"
    return [{**records[0], "id": "Bad Id"}, empty_axis, uncited, later, copy.deepcopy(uncited)]


def _report_of(report) -> dict:
    """Everything an ingest report says, as plain values (the seconds left out)."""
    return {"records": report.records, "edges": report.edges, "quads": report.quads_written,
            "quarantined": [str(e) for e in report.quarantined], "warnings": [str(w) for w in report.warnings],
            "superseded": report.superseded, "removed": report.removed, "checked": report.checked,
            "findings": [f.to_json() for f in report.findings],
            "summary": summary_text(report.findings, report.checked, IRIS),
            "changeset": report.changeset.summary if report.changeset else None}


def _quads(store: GraphStore) -> list[str]:
    return sorted(str(q) for q in store.quads())


def _ingest(store: GraphStore, paths: list[str], jobs: int, **options):
    used: list[int] = []
    original = workers.RecordWorkers.__init__

    def counted(self, count, *args, **kwargs):
        used.append(count)
        original(self, count, *args, **kwargs)

    workers.RecordWorkers.__init__ = counted
    try:
        report = ingest_paths(store, paths, jobs=jobs, **options)
    finally:
        workers.RecordWorkers.__init__ = original
    assert used == ([] if jobs == 1 else [jobs])  # the pass did run where it was asked to
    return report


# ---------------------------------------------------------------------------
# The same store, changeset and report


def test_the_bundled_catalog_on_two_workers_is_the_one_process_build(tmp_path):
    paths = bundled_paths()
    one, two = GraphStore(tmp_path / "one"), GraphStore(tmp_path / "two")
    first, second = _ingest(one, paths, 1), _ingest(two, paths, 2)
    assert _report_of(first) == _report_of(second)
    assert first.records == 912 and first.findings  # the real catalog, with its findings
    assert _quads(one) == _quads(two)
    # the version's findings, kept from the rules at ingest (kg.validation.upkeep): the same rows
    kept = [findings.read(store, IRIS) for store in (one, two)]
    assert kept[0] is not None and kept[1] is not None and kept[0].rows
    assert kept[0].rows == kept[1].rows and kept[0].made == kept[1].made


def test_a_full_shape_catalog_with_bad_records_on_two_workers_is_the_one_process_build(tmp_path):
    catalog, edges = _generated(tmp_path / "data", 170)
    more = tmp_path / "data" / "more.json"
    more.write_text(json.dumps(_bad_records(catalog)), encoding="utf-8")
    paths = [str(catalog), str(more), str(edges)]
    results = {}
    for jobs in (1, 2):
        store = GraphStore(tmp_path / f"store{jobs}")
        report = _ingest(store, paths, jobs, gate="warning")
        results[jobs] = (_report_of(report), _quads(store))
    assert results[1] == results[2]
    report = results[1][0]
    # every way out was taken: read errors, a structural break, the gate, a record given again
    assert any("Bad Id" in line for line in report["quarantined"])
    assert any("duplicate id" in line for line in report["quarantined"])
    assert any("empty-axis--example-org" in line and "structural rule" in line for line in report["quarantined"])
    assert any("uncited--example-org" in line and "held back by the gate" in line for line in report["quarantined"])
    assert report["superseded"] and report["findings"]


def test_a_streamed_catalog_on_two_workers_is_the_one_process_build(tmp_path, monkeypatch):
    """Chunks of the streamed reader, small ones: the workers map a chunk while the next is read, and
    the read stage's lines (bad records between good ones), the gate's and the edges' keep their order."""
    monkeypatch.setattr(batching, "BATCH_SIZE", 25)
    monkeypatch.setattr(batching, "RAMP", (10, 20))
    catalog, edges = _generated(tmp_path / "data", 130, seed=7)
    document = json.loads(catalog.read_text(encoding="utf-8"))
    records = document["records"]
    for position, bad in zip((12, 40, 41, 77, 101), _bad_records(catalog)):
        records.insert(position, bad)  # read errors, a structural break, the gate's, a duplicate id
    catalog.write_text(json.dumps(document), encoding="utf-8")
    results = {}
    for jobs in (1, 2):
        store = GraphStore(tmp_path / f"store{jobs}")
        report = _ingest(store, [str(catalog), str(edges)], jobs, stream=True, gate="warning")
        results[jobs] = (_report_of(report), _quads(store))
    assert results[1] == results[2]
    quarantined = results[1][0]["quarantined"]
    assert len(quarantined) >= 4 and results[1][0]["edges"]


def test_strict_rejects_the_same_items_on_workers(tmp_path):
    catalog, _ = _generated(tmp_path / "data", 60, seed=3)
    more = tmp_path / "data" / "more.json"
    more.write_text(json.dumps(_bad_records(catalog)), encoding="utf-8")
    rejected = {}
    for jobs in (1, 2):
        store = GraphStore(tmp_path / f"store{jobs}")
        with pytest.raises(InputRejected) as caught:
            _ingest(store, [str(catalog), str(more)], jobs, strict=True)
        rejected[jobs] = [str(e) for e in caught.value.errors]
        assert len(store) == 0  # nothing written
    assert rejected[1] == rejected[2] and len(rejected[1]) >= 3


def test_the_command_line_says_the_same_with_any_jobs(tmp_path):
    """``kg ingest --jobs 1`` and ``--jobs 2``: the same lines on stderr, the same quarantine and
    report files, the same N-Quads (the changeset's times aside)."""
    catalog, edges = _generated(tmp_path / "data", 80, seed=5)
    more = tmp_path / "data" / "more.json"
    more.write_text(json.dumps(_bad_records(catalog)), encoding="utf-8")
    said = {}
    for jobs in (1, 2):
        out = tmp_path / f"out{jobs}"
        out.mkdir()
        run = kg("ingest", str(catalog), str(more), str(edges), "--store", str(out / "store"), "--jobs",
                 str(jobs), "--gate", "warning", "--quarantine", str(out / "q.jsonl"), "--report",
                 str(out / "r.jsonl"))
        assert run.returncode == 5, run.stderr  # ingested, some quarantined
        dump = kg("export", "--store", str(out / "store"), "--format", "nquads")
        timeless = sorted(line for line in dump.stdout.splitlines() if "AtTime>" not in line)
        stderr = [line for line in run.stderr.splitlines() if not line.startswith("ingested ")]
        said[jobs] = (stderr, (out / "q.jsonl").read_text(), (out / "r.jsonl").read_text(), timeless)
    assert said[1] == said[2]
    assert said[1][1].count("\n") >= 4 and said[1][2]


# ---------------------------------------------------------------------------
# When the workers start


def test_small_inputs_stay_in_one_process_and_big_ones_use_every_core(monkeypatch):
    monkeypatch.setattr(workers, "cores", lambda: 4)
    small = [Pending(None, "x", i, 1000) for i in range(10)]  # type: ignore[arg-type]
    big = [Pending(None, "x", i, workers.PARALLEL_FROM_BYTES // 10 + 1) for i in range(10)]  # type: ignore[arg-type]
    assert workers.jobs_for(None, small, 10) == 1
    assert workers.jobs_for(None, big, 10) == 4
    # the first chunk of a streamed input: judged by the records the input holds
    assert workers.jobs_for(None, small, 10 * workers.PARALLEL_FROM_BYTES // 1000) == 4
    assert workers.jobs_for(None, small, 100) == 1
    assert workers.jobs_for(2, small, 10) == 2  # asked for: always
    assert workers.jobs_for(1, big, 10) == 1
    assert workers.jobs_for(8, small[:3], 3) == 3  # never more workers than records
    with pytest.raises(UsageError):
        workers.jobs_for(0, small, 10)


def test_units_keep_the_order_and_cap_records_and_bytes():
    pending = [Pending(None, "x", i, 300_000) for i in range(12)]  # type: ignore[arg-type]
    cut = workers.units(pending)
    assert [p.index for unit in cut for p in unit] == list(range(12))
    assert all(sum(p.size for p in unit) <= workers.UNIT_BYTES for unit in cut)
    small = [Pending(None, "x", i, 1000) for i in range(120)]  # type: ignore[arg-type]
    assert [len(u) for u in workers.units(small)] == [workers.UNIT_RECORDS] * 2 + [120 - 2 * workers.UNIT_RECORDS]


# ---------------------------------------------------------------------------
# Failures: a record that cannot be mapped, a bug, a killed worker


def _workers_for(jobs: int = 2) -> tuple[workers.RecordWorkers, RuleCheck]:
    rules = RuleCheck(IRIS, ontology_quads(IRIS))
    return workers.RecordWorkers(jobs, IRIS, rules, set()), rules


def test_a_record_rdf_cannot_express_is_one_line_from_its_worker(site_records):
    records = copy.deepcopy(site_records[:6])
    records[2]["cells"]["desc"]["value"] = "half a character: \ud800"
    pending = [Pending(record_from_json(r), "test.json", i, 1) for i, r in enumerate(records)]
    running, _ = _workers_for()
    try:
        (got,) = running.outcomes(running.start([pending]))
    finally:
        running.close()
    error = got[2]
    assert isinstance(error, RecordError) and str(error).startswith(f"test.json: [2] {records[2]['id']}: (record): ")
    assert "cannot be expressed in RDF" in str(error)
    assert [o[0][0].record.id for i, o in enumerate(got) if i != 2] == [r["id"] for i, r in enumerate(records) if i != 2]


def test_a_bug_in_a_worker_is_raised_here_with_its_traceback(site_records, monkeypatch):
    def broken(pending, iris, described):
        raise TypeError("a bug in the mapping")

    monkeypatch.setattr(in_worker, "map_record", broken)  # the fork inherits it
    running, _ = _workers_for()
    try:
        with pytest.raises(TypeError, match="a bug in the mapping") as caught:
            list(running.outcomes(running.start([[Pending(record_from_json(site_records[0]), "t.json", 0, 1)]])))
    finally:
        running.close(kill=True)
    assert "broken" in str(caught.value.__cause__)  # the worker's traceback, for --debug


def test_a_killed_worker_stops_the_pass_with_worker_lost(site_records):
    running, _ = _workers_for()
    pid = running._workers[0].pid
    os.kill(pid, signal.SIGKILL)
    pending = [Pending(record_from_json(r), "t.json", i, 1) for i, r in enumerate(site_records[:300])]
    others = [w.pid for w in running._workers[1:]]
    try:
        with pytest.raises(WorkerLost, match=rf"worker process {pid} of the ingest was killed by signal 9"):
            list(running.outcomes(running.start([pending])))
    finally:
        running.close(kill=True)
    for child in [pid, *others]:  # every worker gone and reaped
        assert not Path(f"/proc/{child}").exists()


def test_a_worker_reading_a_shared_resource_otherwise_is_checked_here():
    """Should a rule read what records state differently of a shared resource (here: every predicate
    read, so a vendor's label), the records of the worker that described it otherwise are checked again
    in the parent, over the first record's description."""
    rules = RuleCheck(IRIS, ontology_quads(IRIS))
    rules.read = None
    reconcile = Reconcile(IRIS, rules, set())
    vendor = NamedNode(IRIS.base + "vendor/acme")

    def described(label: str) -> list[Quad]:
        return [Quad(vendor, RDF.type, KG.Vendor, IRIS.shared_graph),
                Quad(vendor, RDFS.label, Literal(label), IRIS.shared_graph)]

    assert reconcile.first(described("Acme"), worker=0) == described("Acme")
    assert reconcile.first(described("Acme"), worker=1) == [] and reconcile.tainted == set()
    assert reconcile.first(described("ACME Inc."), worker=2) == [] and reconcile.tainted == {2}


# ---------------------------------------------------------------------------
# Whole commands: Ctrl-C and kill -9, of a worker or of the parent


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry))
    return found


@pytest.fixture(scope="module")
def versions(tmp_path_factory) -> tuple[Path, Path]:
    """A small first version, and a big catalog whose ingest takes long enough to be stopped."""
    folder = tmp_path_factory.mktemp("versions")
    small, _ = _generated(folder / "small", 12, seed=2)
    big, _ = _generated(folder / "big", 500, seed=2)
    return small, big


def _stopped(tmp_path: Path, versions, stop) -> tuple[subprocess.Popen, str, Path]:
    """Ingest the big version over the small one with two workers, ``stop`` it once they run."""
    small, big = versions
    store = tmp_path / "store"
    assert kg("ingest", str(small), "--store", str(store), "--jobs", "1").returncode == 0
    before = sorted(kg("export", "--store", str(store), "--format", "nquads").stdout.splitlines())
    run = subprocess.Popen(kg_command("ingest", str(big), "--store", str(store), "--jobs", "2"),
                           stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 120
    while len(_children(run.pid)) < 2 and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    children = _children(run.pid)
    assert len(children) == 2, "the workers did not start"
    time.sleep(0.3)  # at work on the first units
    stop(run, children)
    _, stderr = run.communicate(timeout=120)
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{c}").exists() and "Z" not in _state(c) for c in children) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [c for c in children if Path(f"/proc/{c}").exists() and "Z" not in _state(c)], "a worker outlived the run"
    after = sorted(kg("export", "--store", str(store), "--format", "nquads").stdout.splitlines())
    assert after == before  # the previous version, whole
    return run, stderr, store


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"


def test_ctrl_c_stops_the_workers_and_writes_nothing(tmp_path, versions):
    run, stderr, _ = _stopped(tmp_path, versions, lambda run, _: os.killpg(run.pid, signal.SIGINT))
    assert run.returncode == 130, stderr
    assert "Traceback" not in stderr


def test_a_worker_killed_stops_the_ingest_with_one_line(tmp_path, versions):
    run, stderr, _ = _stopped(tmp_path, versions, lambda _, children: os.kill(children[0], signal.SIGKILL))
    assert run.returncode == 130, stderr
    (line,) = [line for line in stderr.splitlines() if line.startswith("kg: error:")]
    assert "was killed by signal 9 (SIGKILL)" in line and "nothing was written" in line


def test_the_parent_killed_takes_its_workers_with_it(tmp_path, versions):
    run, _, store = _stopped(tmp_path, versions, lambda run, _: os.kill(run.pid, signal.SIGKILL))
    assert run.returncode == -signal.SIGKILL
    again = kg("ingest", str(versions[1]), "--store", str(store), "--jobs", "2")  # the next writer goes on
    assert again.returncode == 0, again.stderr
