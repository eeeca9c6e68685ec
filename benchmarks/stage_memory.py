"""Benchmark stage ``memory-shapes``: the peak RSS of ``kg ingest`` as a user runs it, on every input shape.

Each case is the real command (``python -m kg.cli ingest --store S INPUT...``) run as a child process
into a fresh on-disk store, one case at a time; its peak RSS is the child's own, from ``os.wait4``
(what ``/usr/bin/time -v`` prints as "Maximum resident set size"). Linux counts in it the RSS its
parent had when it started the child, so the inputs are written by another process and the stage's
own process stays small. The inputs hold the size's generated catalog:

* ``lines``: the records as JSON Lines, one a line;
* ``catalog``: the catalog file and its edges file;
* ``list``: the records as one top-level JSON list;
* ``folder``: a folder holding one JSON file a record;
* ``wide``: ``spec['wide_records']`` records of ``spec['wide_cells']`` cells each, as JSON Lines (200 of
  2,000 cells: 45.6 MB, the most cells a record may hold by default).

``spec['cases']``: those shapes only (``--quick``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from bench_harness import BENCH, ROOT, run_command

CASES = ("lines", "catalog", "list", "folder", "wide")
RAN = (0, 5)  # kg's exit codes of an ingest that ran through (5: some records set aside)
PREPARE = "import sys; sys.path.insert(0, sys.argv[1]); import stage_memory; stage_memory.prepare(*sys.argv[2:])"


def catalog_records(catalog: Path) -> list[str]:
    """The records' JSON texts of a catalog ``generate.py`` wrote (one record a line)."""
    with open(catalog, encoding="utf-8") as lines:
        return [text for text in (line.strip().rstrip(",") for line in lines) if text.startswith('{"id"')]


def write_wide(records: list[str], count: int, cells: int, target: Path) -> None:
    """``count`` records of ``cells`` cells each (short values, as a table of many columns has), JSON Lines."""
    with open(target, "w", encoding="utf-8") as out:
        for text in records[:count]:
            record = json.loads(text)
            model = [{k: v for k, v in cell.items() if k in ("value", "citation", "status", "tier")}
                     for cell in record["cells"].values()]
            record["cells"] = {f"c-{i:04d}": dict(model[i % len(model)],
                                                   value=f"{str(model[i % len(model)].get('value'))[:20]} #{i}")
                               for i in range(cells)}
            out.write(json.dumps(record, ensure_ascii=False) + "\n")


def prepare(catalog: str, folder: str, wide_records: str, wide_cells: str) -> None:
    """Every input into ``folder`` (run in a process of its own: see the module's docstring)."""
    out = Path(folder)
    records = catalog_records(Path(catalog))
    (out / "records.jsonl").write_text("".join(text + "\n" for text in records), encoding="utf-8")
    (out / "records-list.json").write_text("[\n" + ",\n".join(records) + "\n]\n", encoding="utf-8")
    each = out / "records"
    each.mkdir()
    for number, text in enumerate(records):
        (each / f"{number:06d}.json").write_text(text + "\n", encoding="utf-8")
    write_wide(records, int(wide_records), int(wide_cells), out / "wide.jsonl")


def _mib(paths: list[Path]) -> float:
    total = 0
    for path in paths:
        total += sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else path.stat().st_size
    return total / 2 ** 20


def stage_memory_shapes(spec: dict) -> dict:
    """Each input shape ingested by ``kg ingest`` into a fresh store: peak RSS, wall seconds, exit code."""
    folder = Path(spec["scratch"]) / "memory"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    try:
        subprocess.run([sys.executable, "-c", PREPARE, str(BENCH), spec["catalog"], str(folder),
                        str(spec["wide_records"]), str(spec["wide_cells"])], check=True)
        inputs = {"lines": [folder / "records.jsonl"], "list": [folder / "records-list.json"],
                  "folder": [folder / "records"], "catalog": [Path(spec["catalog"]), Path(spec["edges_file"])],
                  "wide": [folder / "wide.jsonl"]}
        cases = {}
        for case in spec.get("cases") or CASES:
            store = folder / f"store-{case}"
            done = run_command([sys.executable, "-m", "kg.cli", "ingest", "--store", str(store),
                                *map(str, inputs[case])], cwd=ROOT)
            shutil.rmtree(store, ignore_errors=True)  # the next case has the disk to itself
            cases[case] = {"peak_rss_mb": done["peak_rss_mb"], "seconds": done["seconds"], "code": done["code"],
                           "ran": done["code"] in RAN, "mib": _mib(inputs[case]),
                           "records": int(spec["wide_records"]) if case == "wide" else int(spec["size"])}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return {"cases": cases, "wide_cells": int(spec["wide_cells"]),
            "peak_rss_mb": max(c["peak_rss_mb"] for c in cases.values())}
