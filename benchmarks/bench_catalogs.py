"""The benchmarks' catalogs: the generated catalog of each size, cached in the work folder, and its changed records.

``ensure_data(work, size, seed, log)`` runs ``benchmarks/generate.py`` once per size and seed (again
only when the generator's code changes: ``generator_digest``) and writes the ``changed`` records the
re-ingest and the incremental revalidation read.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from bench_harness import BENCH, ROOT

GENERATOR = BENCH / "generate.py"
DEFAULT_WORK = Path(tempfile.gettempdir()) / "kg-bench"
DEFAULT_SEED = 20261129
CHANGED = 100  # records changed for the incremental revalidation


def generator_digest() -> str:
    """A digest of the generator's code (``generate.py`` and its ``gen_*.py`` modules): the cache's key."""
    digest = hashlib.sha256()
    for path in [GENERATOR, *sorted(BENCH.glob("gen_*.py"))]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def data_dir(work: Path, size: int) -> Path:
    """The folder of the catalog of ``size`` records."""
    return work / "data" / f"gen-{size}"


def ensure_data(work: Path, size: int, seed: int, log: Callable[[str], None],
                changed_count: int = CHANGED) -> dict[str, Any]:
    """The generated catalog of ``size`` records (made once, reused while the generator is unchanged),
    and ``changed_count`` of its records changed."""
    folder = data_dir(work, size)
    stamp_file = folder / "stamp.json"
    stamp = {"records": size, "seed": seed, "generator": generator_digest()}
    catalog, edges = folder / "catalog.json", folder / "edges.json"
    fresh = (stamp_file.is_file() and json.loads(stamp_file.read_text()) == stamp
             and catalog.is_file() and edges.is_file())
    if not fresh:
        log(f"generating {size} records into {folder} ...")
        shutil.rmtree(folder, ignore_errors=True)
        started = time.perf_counter()
        subprocess.run([sys.executable, str(GENERATOR), "--records", str(size), "--seed", str(seed),
                        "--out", str(folder), "--jobs", "2"], check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        log(f"  generated in {time.perf_counter() - started:.0f} s")
        stamp_file.write_text(json.dumps(stamp))
    changed = folder / f"changed-{changed_count}.json"
    if not changed.is_file() or changed.stat().st_mtime < catalog.stat().st_mtime:
        write_changed_records(catalog, changed, size, changed_count)
    n_edges = sum(1 for line in edges.open(encoding="utf-8") if line.startswith("{\"source\""))
    return {"records": size, "edges": n_edges, "catalog_bytes": catalog.stat().st_size,
            "edges_bytes": edges.stat().st_size, "catalog": str(catalog), "edges_file": str(edges),
            "changed": str(changed)}


def changed_indexes(size: int, count: int = CHANGED) -> list[int]:
    """The positions of the ``count`` changed records, spread over the catalog."""
    step = max(1, size // count)
    return [i * step for i in range(min(count, size))]


def write_changed_records(catalog: Path, out: Path, size: int, count: int = CHANGED) -> None:
    """``count`` records of the catalog spread over it, each with a changed name and tier: the
    input of the re-ingest and the incremental revalidation. The generator writes one record
    per line, so only the chosen lines are parsed."""
    wanted = set(changed_indexes(size, count))
    records, index = [], -1
    with catalog.open(encoding="utf-8") as fh:
        for line in fh:
            if not line.startswith("{\"id\""):
                continue
            index += 1
            if index in wanted:
                record = json.loads(line.rstrip().rstrip(","))
                record["name"] = f"{record['name']} (changed)"
                record["tier"] = record["tier"] % 5 + 1
                records.append(record)
    out.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")


# ---------------------------------------------------------------------------
# Measuring inside a child process
