"""The benchmark harness at CI size: ``benchmarks/run.py --sizes 60 --repeats 1 --quick``.

It runs every stage once on a 60-record full-shape catalog (the rdflib baseline on a
subset), so the benchmark code keeps working. The checks are on the shape and sanity
of the results, never on timings. 60 is small enough to be cheap and large enough for
every stage to run as it does in the real runs: the re-ingest and revalidation of the
changed records (20 in --quick: a subset of the catalog), the baseline subset, a catalog
that is not clean.

Also, without running stages: the harness's whole-command timing and a stage process's failure and
timeout, the committed report rendered again from its raw results byte for byte, and every module of
benchmarks/ within 500 lines with a docstring.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"
RUN = BENCH / "run.py"
SIZE = 60  # records of the generated catalog


def _bench_module(name: str):
    """A module of benchmarks/ (they import each other by their plain names)."""
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    return importlib.import_module(name)


def _load_run():
    spec = importlib.util.spec_from_file_location("bench_run", RUN)
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_run"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    run = _load_run()
    out = tmp_path_factory.mktemp("bench")
    argv = ["--sizes", str(SIZE), "--repeats", "1", "--quick", "--silent", "--work", str(out / "work"),
            "--out", str(out), "--report", str(out / "REPORT.md"), "--plot", str(out / "plot.png")]
    assert run.main(argv) == 0
    (results_file,) = out.glob("run-*.json")
    return run, json.loads(results_file.read_text(encoding="utf-8")), out


def _only(results: dict, stage: str) -> dict:
    runs = [r for r in results["runs"] if r["stage"] == stage]
    assert len(runs) == 1, f"{stage}: {len(runs)} runs"
    run = runs[0]
    assert run["ok"] and run["available"], f"{stage}: {run.get('error') or run.get('note')}"
    assert run["size"] == SIZE and run["repeat"] == 0
    return run


def _sane(run: dict) -> None:
    assert 0 < run["wall_s"] < 3600
    assert run["cpu_s"] + run["children_cpu_s"] > 0  # the stage did work, in its own process or its workers
    assert 20 < run["peak_rss_mb"] < 16000  # a Python process with kg loaded, well under the machine
    noise = run["noise"]
    assert noise["child_elapsed_s"] >= run["wall_s"] * 0.99
    assert noise["others_cpu_share"] is None or 0 <= noise["others_cpu_share"] <= 1


def test_the_data_is_the_generated_full_shape_catalog(quick):
    _, results, _ = quick
    data = results["data"][str(SIZE)]
    assert data["records"] == SIZE and 0 < data["edges"] < SIZE  # the catalog's ratio: 528 edges to 912 records
    assert data["catalog_bytes"] > SIZE * 10_000  # full-shape records: ~20 KB each


def _quick_stages(run) -> list[str]:
    return [s for s in run.OUR_STAGES if not s.startswith("export-")] + [
        f"export-{fmt}" for fmt in run.QUICK_EXPORT_FORMATS]


def test_every_stage_of_ours_ran_once_with_sane_numbers(quick):
    run, results, _ = quick
    for stage in _quick_stages(run):
        _sane(_only(results, stage))


def test_ingest_wrote_the_whole_catalog(quick):
    _, results, _ = quick
    ingest = _only(results, "ingest")
    data = results["data"][str(SIZE)]
    assert ingest["records"] == SIZE and ingest["edges"] == data["edges"] and ingest["quarantined"] == 0
    assert ingest["quads"] > SIZE * 900  # about a thousand quads per full-shape record
    assert ingest["streamed"] is False  # a few MB: read whole (files from 64 MiB are streamed)
    assert ingest["store_bytes"] > 0


def test_validation_and_the_incremental_run(quick):
    _, results, _ = quick
    full = _only(results, "validate-full")
    # the generated catalogs are not clean (benchmarks/REPORT.md's runs found 159 violations
    # in the 912-record one): a validation that finds none has not run
    assert full["records"] == SIZE and 0 < full["violations"] <= full["results"]
    run, _, _ = quick
    assert run.QUICK_CHANGED < SIZE and results["meta"]["args"]["changed"] == run.QUICK_CHANGED
    assert _only(results, "reingest-100")["records"] == run.QUICK_CHANGED
    incremental = _only(results, "validate-incremental")
    assert incremental["records"] == run.QUICK_CHANGED


def test_every_export_format_wrote_bytes(quick):
    run, results, _ = quick
    assert set(run.QUICK_EXPORT_FORMATS) < set(run.EXPORT_FORMATS)
    sizes = {fmt: _only(results, f"export-{fmt}")["bytes"] for fmt in run.QUICK_EXPORT_FORMATS}
    assert all(size > 1_000_000 for size in sizes.values()), sizes
    assert sizes["turtle"] < _only(results, "floor-ntriples")["bytes"] * SIZE / run.QUICK_SUBSET  # prefixes, grouping


def test_every_named_query_has_an_answer(quick):
    _, results, _ = quick
    from kg.queries import available

    queries = _only(results, "queries")
    per_query = queries["per_query"]
    assert sorted(per_query) == available()
    answered = {name: q for name, q in per_query.items() if "cold_s" in q}
    assert len(answered) >= 0.8 * len(per_query)
    assert all(isinstance(q["rows"], int) and q["cold_s"] > 0 and q["warm_median_s"] is not None
               for q in answered.values())
    assert sum(q["rows"] > 0 for q in answered.values()) >= len(answered) // 2  # most questions have answers
    assert answered["info"]["rows"] > 0
    assert queries["wall_s"] == pytest.approx(sum(q["cold_s"] for q in answered.values()))


def test_analyse_scored_the_systems(quick):
    _, results, _ = quick
    analyse = _only(results, "analyse")
    assert analyse["nodes"] == SIZE and analyse["edges"] > 0


def test_baselines_ran(quick):
    run, results, _ = quick
    ingest = _only(results, "ingest")
    floor = _only(results, "floor-ntriples")
    _sane(floor)
    # the floor writes the records' and the relations' triples; the store also holds the
    # ontology, the catalog header and the dataset description
    subset = run.QUICK_SUBSET
    assert floor["limit"] == subset < SIZE
    assert 0.9 * ingest["quads"] * subset / SIZE < floor["triples"] <= ingest["quads"]
    for stage in ("rdflib-ingest", "rdflib-validate", "rdflib-exports", "rdflib-queries"):
        stage_run = _only(results, stage)
        _sane(stage_run)
        assert stage_run["limit"] == subset  # --quick: the rdflib pipeline on a subset
    assert _only(results, "rdflib-ingest")["quads"] > subset * 900
    assert all("bytes" in got or "timeout_s" in got for got in _only(results, "rdflib-exports")["formats"].values())


def test_the_report_and_plot_are_written(quick):
    run, results, out = quick
    report = (out / "REPORT.md").read_text(encoding="utf-8")
    for stage in _quick_stages(run):
        assert f"| {stage} |" in report
    assert "## Floors" in report and "## Reproduce" in report
    assert (out / "plot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # a subset run decides no floor
    assert all(check["holds"] is None for check in run.floors(results))


def test_merge_replaces_only_the_stages_run_again(tmp_path):
    run = _load_run()
    earlier = {"meta": {"command": "first", "machine": {}}, "data": {"912": {"records": 912}}, "profiles": {},
               "runs": [{"size": 912, "stage": "ingest", "wall_s": 1.0}, {"size": 912, "stage": "export-jsonld", "ok": False},
                        {"size": 9120, "stage": "export-jsonld", "ok": False}]}
    later = {"meta": {"command": "again", "started": "t0", "finished": "t1", "machine": {"git_commit": "abc"}},
             "data": {"912": {"records": 912}}, "profiles": {},
             "runs": [{"size": 912, "stage": "export-jsonld", "ok": True}]}
    first = tmp_path / "run-1.json"
    first.write_text(json.dumps(earlier), encoding="utf-8")
    merged = json.loads(run.merge_results(first, later, tmp_path / "merged.json").read_text(encoding="utf-8"))
    assert [(r["size"], r["stage"], r.get("ok"), r.get("rerun", False)) for r in merged["runs"]] == [
        (912, "ingest", None, False), (9120, "export-jsonld", False, False), (912, "export-jsonld", True, True)]
    (rerun,) = merged["meta"]["reruns"]
    assert rerun["command"] == "again" and rerun["git_commit"] == "abc" and rerun["stages"] == ["export-jsonld at 912"]


def test_the_scale_floors_are_decided_on_the_runs_at_912_and_45600():
    run = _load_run()

    def entry(stage, size, wall, cpu=None, rss=100, **more):
        return {"stage": stage, "size": size, "wall_s": wall, "cpu_s": cpu if cpu is not None else wall, "ok": True,
                "peak_rss_mb": rss, **more}

    queries = {"fast": {"cold_s": 0.5}, "slow": {"cold_s": 3.0}}
    results = {"meta": {"args": {"changed": 100}}, "data": {"912": {}, "45600": {}}, "runs": [
        entry("reingest-100", 912, 6.0), entry("reingest-100", 45600, 9.6),  # 1.6x: over the floor
        entry("validate-incremental", 912, 3.0), entry("validate-incremental", 45600, 3.6),  # 1.2x
        entry("store-dump-nquads", 45600, 100.0), entry("export-nquads", 45600, 120.0),
        entry("export-jsonld", 45600, 210.0), entry("ingest", 912, 15.0), entry("bulk-load", 912, 10.0),
        entry("bulk-load-merged", 912, 12.0),
        entry("queries", 45600, 3.5, per_query=queries, rss=5000)]}
    checks = {c["floor"]: c for c in run.floors(results)}
    assert checks["re-ingest of 100 changed records, per record: at 45,600 within 1.5x of 912"]["holds"] is False
    assert checks["revalidation of 100 changed records, per record: at 45,600 within 1.5x of 912"]["holds"] is True
    assert checks["export nquads at 45,600 records within 1.3x of the store's own N-Quads dump"]["holds"] is True
    assert checks["export jsonld at 45,600 records within 2x of the store's own N-Quads dump"]["holds"] is False
    ingest = checks["ingest at 912 records within 1.5x of pyoxigraph's bulk_load of the same quads"]
    assert ingest["holds"] is True and "= 1.50x" in ingest["value"]
    assert "bulk_load then optimize (the merged store a build leaves), 12.0 s: 1.25x" in ingest["value"]
    slow = checks["every named query at 45,600 records under 1 s"]
    assert slow["holds"] is False and "1 of 2 under" in slow["value"] and "slow 3.00 s" in slow["value"]
    assert checks["peak RSS under 4 GB for every stage at 45,600"]["holds"] is False


def test_the_memory_benchmark_runs_every_input_shape_as_a_user_would(tmp_path):
    """benchmarks/jsonl_memory.py at a tiny size: it runs the real ``kg ingest`` on every shape and writes
    its report (the floors are for 9,120 records; nothing here checks a figure)."""
    spec = importlib.util.spec_from_file_location("bench_memory", ROOT / "benchmarks" / "jsonl_memory.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path / "memory.md"
    module.main(["--records", "12", "--wide-records", "2", "--wide-cells", "30", "--out", str(out)])
    text = out.read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| input")]
    assert len(rows) == len(module.CASES)
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert int(cells[-1]) in module.RAN and float(cells[3]) > 20, row  # it ran; a peak was measured


def test_the_harness_times_a_whole_command_with_its_exit_code_and_peak_rss():
    """``bench_harness.run_command`` (the whole-command timing of jsonl_memory.py and cli_startup.py): the child's
    own peak RSS from ``os.wait4``, and a command past its time limit killed and said to be."""
    harness = _bench_module("bench_harness")
    done = harness.run_command([sys.executable, "-c", "import sys; b = b'x' * (150 * 2**20); sys.exit(3)"])
    assert done["code"] == 3 and done["timed_out"] is False
    assert 150 < done["peak_rss_mb"] < 2000 and 0 < done["seconds"] < 120 and done["cpu_s"] > 0
    slow = harness.run_command([sys.executable, "-c", "import time; time.sleep(60)"], timeout=0.5)
    assert slow["timed_out"] is True and slow["code"] < 0 and slow["seconds"] < 30


def test_a_stage_process_reports_a_failure_and_a_timeout(tmp_path):
    """``run_child`` runs one stage in ``bench_stages.py --child SPEC``: a stage that fails comes back as a result
    with the error, a process past its limit as a timeout, each with the machine's load around it."""
    harness, stages = _bench_module("bench_harness"), _bench_module("bench_stages")
    failed = harness.run_child({"stage": "no-such-stage"}, 120, stages.SCRIPT)
    assert failed["ok"] is False and failed["error"].startswith("KeyError") and "traceback" in failed
    assert failed["noise"]["child_elapsed_s"] > 0 and failed["noise"]["load1_before"] >= 0
    late = harness.run_child({"stage": "no-such-stage"}, 0.001, stages.SCRIPT)
    assert late["ok"] is False and late["error"] == "timeout after 0 s"
    assert set(stages.STAGES) >= set(stages.OUR_STAGES) | set(stages.STORE_STAGES)


def test_the_report_renders_again_from_its_raw_results(tmp_path):
    """benchmarks/REPORT.md is what ``run.py --report-only`` renders from the raw results it names, byte for byte
    (every table and sentence of the report; the plot's file name as committed)."""
    run = _load_run()
    committed = (BENCH / "REPORT.md").read_text(encoding="utf-8")
    source = re.search(r"raw results: `([^`]+)`", committed).group(1)
    report = tmp_path / "REPORT.md"
    argv = ["--report-only", str(ROOT / source), "--report", str(report),
            "--plot", str(tmp_path / "plot_time_per_record.png")]
    assert run.main(argv) == 0
    assert report.read_text(encoding="utf-8") == committed
    assert (tmp_path / "plot_time_per_record.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_every_benchmark_module_is_small_and_says_what_it_is():
    for path in sorted(BENCH.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert len(text.splitlines()) <= 500, f"{path.name}: {len(text.splitlines())} lines"
        doc = ast.get_docstring(ast.parse(text))
        assert doc and doc.splitlines()[0].strip(), f"{path.name}: no docstring"
