"""The generated catalogs and their on-disk stores, made once per size and reused by the benchmarks.

``catalog(work, size)`` is ``bench_catalogs.ensure_data`` (``benchmarks/generate.py``, cached while the
generator is unchanged); ``store(work, size)`` ingests it into ``WORK/stores/gen-SIZE`` with
``kg.ingestion`` in a child process, once (a stamp file says it is complete).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import bench_catalogs as catalogs  # noqa: E402  (ensure_data, DEFAULT_SEED, DEFAULT_WORK)
import bench_harness  # noqa: E402

machine_line = bench_harness.machine_line  # a report's header line (dask_bench, export_bench)

DEFAULT_WORK = catalogs.DEFAULT_WORK

INGEST = r"""
import json, sys, time
from kg.ingestion import ingest_paths
from kg.store import GraphStore
started = time.perf_counter()
store = GraphStore(sys.argv[1])
report = ingest_paths(store, sys.argv[2:])
print(json.dumps({"records": report.records, "quads": len(store), "seconds": time.perf_counter() - started}))
"""


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def catalog(work: Path, size: int) -> dict[str, Any]:
    """The generated catalog of ``size`` records (``bench_catalogs.ensure_data``)."""
    return catalogs.ensure_data(work, size, catalogs.DEFAULT_SEED, log)


def store(work: Path, size: int) -> tuple[Path, dict[str, Any]]:
    """The on-disk store of the catalog of ``size`` records, and what its ingest reported."""
    data = catalog(work, size)
    folder = work / "stores" / f"gen-{size}"
    stamp = folder.parent / f"gen-{size}.json"
    expected = {"catalog_bytes": data["catalog_bytes"], "generator": catalogs.generator_digest()}
    if stamp.is_file() and folder.is_dir():
        found = json.loads(stamp.read_text())
        if {k: found.get(k) for k in expected} == expected:
            return folder, found
    shutil.rmtree(folder, ignore_errors=True)
    folder.parent.mkdir(parents=True, exist_ok=True)
    log(f"ingesting {size} records into {folder} ...")
    done = subprocess.run([sys.executable, "-c", INGEST, str(folder), data["catalog"], data["edges_file"]],
                          capture_output=True, text=True, check=True, cwd=ROOT)
    found = {**json.loads(done.stdout), **expected}
    stamp.write_text(json.dumps(found))
    log(f"  ingested in {found['seconds']:.0f} s ({found['quads']:,} quads)")
    return folder, found


class NoRecorder:
    """Stands in for ``kg.ingestion.recording.Recorder``: an ingest that records no changeset (the ingest as
    it was before changesets), to measure what the history costs."""

    removed: list[str] = []

    def __init__(self, *args: object) -> None:
        pass

    def before_write(self, records: object) -> None:
        pass

    def finish(self, *args: object, **kwargs: object) -> None:
        return None
