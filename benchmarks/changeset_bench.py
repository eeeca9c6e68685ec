"""Changeset benchmark: what recording a changeset adds to a re-ingest, and how big it is.

At each catalog size (full-shape records from ``benchmarks/generate.py``) a base store
is built once (its first changeset adds every record). Then a file holding 100 of its
records, each with one cell changed, is ingested into a fresh copy of the base store
(hard links, so every run starts from the same store), alternately with the changeset
(kg as it is) and without it (``kg.ingestion.recording.Recorder`` replaced by a no-op in this
process: no hashes read, no diff, no changeset written). The ratio is the median with
over the median without, measured in the same run. The quads of the changeset of those
100 changed records are counted at each size: they grow with the changes, not with the
catalog.

    python benchmarks/changeset_bench.py [--sizes 912 9120] [--repeats 3] [--out benchmarks/results/changesets.md]
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import generate  # noqa: E402
from bench_data import NoRecorder  # noqa: E402

import kg.ingestion as ingestion  # noqa: E402
from kg.history import changeset_numbers  # noqa: E402
from kg.store import GraphStore  # noqa: E402
from kg.vocab import Iris  # noqa: E402

CHANGED = 100


def _changed_records(catalog_file: Path, out: Path) -> None:
    """A records file: every (n // 100)-th record of the catalog, one cell value changed."""
    records = json.loads(catalog_file.read_text(encoding="utf-8"))["records"]
    step = max(1, len(records) // CHANGED)
    picked = [copy.deepcopy(r) for r in records[::step][:CHANGED]]
    for record in picked:
        slug = sorted(record["cells"])[0]
        record["cells"][slug]["value"] = f"{record['cells'][slug].get('value')} (changed by the benchmark)"
    out.write_text(json.dumps({"records": picked}), encoding="utf-8")


def _link_copy(source: Path, target: Path) -> None:
    shutil.copytree(source, target, copy_function=os.link)


def _timed_ingest(base: Path, work: Path, changed: Path, with_changeset: bool) -> tuple[float, int]:
    if work.exists():
        shutil.rmtree(work)
    _link_copy(base, work)
    store = GraphStore(work)
    ingestion.recording.Recorder = ingestion.recording.__dict__["_Recorder"] if with_changeset else NoRecorder  # type: ignore
    started = time.perf_counter()
    report = ingestion.ingest_paths(store, [str(changed)])
    seconds = time.perf_counter() - started
    quads = 0
    if with_changeset:
        assert report.changeset is not None and report.changeset.count("changed") == CHANGED, report.changeset
        iris = Iris()
        quads = sum(1 for _ in store.quads(iris.changeset_graph(changeset_numbers(store, iris)[-1])))
    del store
    return seconds, quads


def build(size: int, folder: Path) -> dict:
    """Generate ``size`` records and build the base store from them, once: with ``--work``, a base
    store built by an earlier run (its ``built-SIZE.json`` beside it) is reused as it is."""
    mark = folder / f"built-{size}.json"
    if mark.is_file():
        return dict(json.loads(mark.read_text(encoding="utf-8")), reused=True)
    data = folder / f"data-{size}"
    started = time.perf_counter()
    generate.write_catalog(size, data)
    generated = time.perf_counter() - started
    base = folder / f"base-{size}"
    shutil.rmtree(base, ignore_errors=True)
    started = time.perf_counter()
    store = GraphStore(base)
    report = ingestion.ingest_paths(store, [str(data / "catalog.json"), str(data / "edges.json")])
    built = time.perf_counter() - started
    iris = Iris()
    facts = {"records": report.records, "edges": report.edges, "store_quads": len(store), "generate_s": generated,
             "build_s": built, "first_changeset_quads": sum(1 for _ in store.quads(iris.changeset_graph(1))),
             "load": os.getloadavg()[0]}
    del store
    mark.write_text(json.dumps(facts), encoding="utf-8")
    return facts


def measure(size: int, repeats: int, folder: Path) -> dict:
    facts = build(size, folder)
    data, base = folder / f"data-{size}", folder / f"base-{size}"
    changed = folder / f"changed-{size}.json"
    _changed_records(data / "catalog.json", changed)
    times: dict[bool, list[float]] = {True: [], False: []}
    quads = 0
    for _ in range(repeats):
        for with_changeset in (False, True):
            seconds, counted = _timed_ingest(base, folder / "work", changed, with_changeset)
            times[with_changeset].append(seconds)
            quads = counted or quads
    shutil.rmtree(folder / "work", ignore_errors=True)
    with_s, without_s = statistics.median(times[True]), statistics.median(times[False])
    return {**facts, "changeset_quads": quads, "with_s": times[True], "without_s": times[False],
            "with_median_s": with_s, "without_median_s": without_s, "ratio": with_s / without_s}


def _markdown(results: list[dict], repeats: int) -> str:
    lines = [
        "# Changesets: the cost of recording what changed",
        "",
        f"`python benchmarks/changeset_bench.py --sizes {' '.join(str(r['records']) for r in results)} "
        f"--repeats {repeats}` on {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
        f" ({time.strftime('%Y-%m-%d', time.gmtime())}; a machine shared with other jobs, so times are noisy; "
        "the ratio is measured within one run).",
        "",
        f"Each run ingests a file of {CHANGED} records of the catalog, one cell changed in each, into a fresh "
        "copy of the built store; *without* replaces `kg.ingestion.recording.Recorder` by a no-op (the ingest as it was "
        "before changesets). Medians of the repeats, alternating without / with.",
        "",
        "| records | store quads | build (s) | re-ingest of 100 changed, without (s) | with changeset (s) | ratio "
        "| quads of that changeset | quads of the first changeset (all records added) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(f"| {r['records']} | {r['store_quads']} | {r['build_s']:.1f} | {r['without_median_s']:.2f} | "
                     f"{r['with_median_s']:.2f} | {r['ratio']:.2f}x | {r['changeset_quads']} | "
                     f"{r['first_changeset_quads']} |")
    lines += ["", "Every time (s): " + "; ".join(
        f"{r['records']} records: without {', '.join(f'{t:.2f}' for t in r['without_s'])}, with "
        f"{', '.join(f'{t:.2f}' for t in r['with_s'])}" for r in results), ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[912, 9120])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "changesets.md"))
    parser.add_argument("--work", help="folder for the data and stores, kept (default: a temporary one); "
                                       "a base store built there by an earlier run is reused")
    parser.add_argument("--build-only", action="store_true", help="build the base stores in --work, time nothing else")
    args = parser.parse_args(argv)
    ingestion.recording.__dict__["_Recorder"] = ingestion.recording.Recorder
    folder = Path(args.work or tempfile.mkdtemp(prefix="kg-changesets-"))
    folder.mkdir(parents=True, exist_ok=True)
    results = []
    if args.build_only:
        for size in args.sizes:
            print(json.dumps(build(size, folder)), file=sys.stderr)
        return 0
    for size in args.sizes:
        results.append(measure(size, args.repeats, folder))
        print(json.dumps({k: v for k, v in results[-1].items() if not isinstance(v, list)}), file=sys.stderr)
    Path(args.out).write_text(_markdown(results, args.repeats), encoding="utf-8")
    (Path(args.out).with_suffix(".json")).write_text(json.dumps(results, indent=1), encoding="utf-8")
    if not args.work:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
