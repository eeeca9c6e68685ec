"""Memory benchmark: the peak RSS of `kg ingest` as a user runs it, on every input shape, against its floor.

Each case is the real command (the ``kg`` script beside this Python, else ``python -m kg``) run
as a child process into a fresh on-disk store, one case at a time; its peak RSS is the
child's own, from ``os.wait4`` (the figure ``/usr/bin/time -v`` prints as "Maximum resident
set size"). Linux counts in it the RSS its parent had when it started the child (the copy it
ran in before ``exec``), so the inputs are written by another process (``--prepare``) and the
one that measures stays small (a first version that wrote them itself reported 1,796 MB for
every case). The inputs come from ``benchmarks/generate.py``
(full record shape, deterministic):

* ``lines``: the records as JSON Lines, one a line (``kg ingest --store S records.jsonl``);
* ``catalog``: the catalog file and its edges file (``kg ingest --store S catalog.json edges.json``);
* ``list``: the records as one top-level JSON list;
* ``folder``: a folder holding one JSON file a record;
* ``wide``: ``--wide-records`` records of ``--wide-cells`` cells each, as JSON Lines (200 of 2,000
  cells: 45.6 MB, the most cells a record may hold by default).

Floors (issue 37): every shape within 1,536 MB at 9,120 full-shape records, the wide records
within 1,024 MB. The report goes to ``--out`` (markdown); a case over its floor, or one whose
ingest fails, makes the script say so on stderr and exit 1.

This report once said 1,018 MB for JSON Lines at 9,120 records while a user measured 2.2 GB:
it was measured on 2026-12-01, before a build went through one bulk load fed by a named pipe
(kg/streamload.py, 2026-12-02), and nothing ran it again or failed when the bound was lost.

    python benchmarks/jsonl_memory.py [--records 9120] [--wide-records 200] [--wide-cells 2000]
                                      [--cases lines,catalog,list,folder,wide] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "benchmarks") not in sys.path:
    sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_harness import run_command  # noqa: E402  (whole-command timing and peak RSS, os.wait4)

FLOOR_MB = 1536  # every shape at 9,120 full-shape records
WIDE_FLOOR_MB = 1024  # 200 records of 2,000 cells
CASES = ("lines", "catalog", "list", "folder", "wide")
RAN = (0, 5)  # kg's exit codes of an ingest that ran through (5: some records set aside; the report shows how many)


# What the floors came from (issue 37), kept in every report: the figures before the fix, each measured the same
# way on the project machine (2 cores, shared), at commit 27c703a.
HISTORY = """\
Before (commit 27c703a, the same commands): JSON Lines 2,165-2,170 MB (ingest 82-87 s), catalog file + edges
file 2.2 GB (as issue 37 measured it), 200 records of 2,000 cells 3,165 MB. This report said 1,018 MB then: it was measured on
2026-12-01, before a build went through one bulk load fed by a named pipe (kg/streamload.py, 2026-12-02), and
was not run again. Where the memory went, and what bounds it now:

- the build's one load: pyoxigraph's loader parses a million quads before one of its threads (one a core)
  sorts and writes them, so one load of the whole build held three such batches (1.1-1.4 GB of the peak).
  A load now reads about one batch of records (`kg.store._bulkload.LOAD_QUADS`, 250,000 quads) and writes it while
  the next load reads: 2,165 MB -> 885 MB, and no slower (82 s -> 77-84 s).
- the loader's text: a record's N-Quads were kept as `str` (2 bytes a character once one is not Latin-1), then
  encoded and joined into one more copy; now kept as UTF-8 bytes and written to the pipe a graph at a time.
- the wide records: a 45.6 MB file is over the 16 MiB kept in memory, so it was read again whole (every
  record parsed at once), and batches of 50 and 100 records of 2,000 cells made 1-2 million quads each. Such
  a file is now read record by record (`kg.sources.stream.scan_whole`) and batches stop at 6 MiB of JSON
  (`kg.ingestion.batching.BATCH_BYTES`): 3,165 MB -> 704 MB.
"""


def kg_command() -> list[str]:
    """The ``kg`` a user runs: the script installed beside this Python, else ``python -m kg``."""
    script = Path(sys.executable).parent / "kg"
    return [str(script)] if script.exists() else [sys.executable, "-m", "kg"]


def measure(args: list[str], log: Path) -> dict:
    """Run ``kg ARGS`` as a child; its wall time, exit code, peak RSS (MB, its own: ``os.wait4``) and
    the line that says what it ingested."""
    with open(log, "wb") as err:
        done = run_command([*kg_command(), *args], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err)
    text = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    said = [line for line in text if line.startswith("ingested ")] or text[-1:]
    return {"seconds": done["seconds"], "code": done["code"], "peak_rss_mb": done["peak_rss_mb"],
            "said": said[0] if said else ""}


def catalog_records(catalog: Path) -> list[str]:
    """The records' JSON texts of a catalog ``generate.py`` wrote (one record a line)."""
    texts = []
    with open(catalog, encoding="utf-8") as lines:
        for line in lines:
            text = line.strip().rstrip(",")
            if text.startswith('{"id"'):
                texts.append(text)
    return texts


def write_inputs(folder: Path, records: list[str]) -> dict[str, list[Path]]:
    """The same records as JSON Lines, a top-level list and a folder of one file a record."""
    lines, listed, each = folder / "records.jsonl", folder / "records-list.json", folder / "records"
    lines.write_text("".join(text + "\n" for text in records), encoding="utf-8")
    with open(listed, "w", encoding="utf-8") as out:
        out.write("[\n" + ",\n".join(records) + "\n]\n")
    each.mkdir()
    for number, text in enumerate(records):
        (each / f"{number:06d}.json").write_text(text + "\n", encoding="utf-8")
    return {"lines": [lines], "list": [listed], "folder": [each]}


def write_wide(records: list[str], count: int, cells: int, target: Path) -> None:
    """``count`` records of ``cells`` cells each (short values, as a table of many columns has), JSON Lines."""
    with open(target, "w", encoding="utf-8") as out:
        for text in records[:count]:
            record = json.loads(text)
            model = [{k: v for k, v in cell.items() if k in ("value", "citation", "status", "tier")}
                     for cell in record["cells"].values()]
            record["cells"] = {f"c-{i:04d}": dict(model[i % len(model)], value=f"{str(model[i % len(model)].get('value'))[:20]} #{i}")
                               for i in range(cells)}
            out.write(json.dumps(record, ensure_ascii=False) + "\n")


def size_mib(paths: list[Path]) -> float:
    """What ``paths`` (files or folders) hold, in MiB."""
    total = 0
    for path in paths:
        total += sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else path.stat().st_size
    return total / 2 ** 20


def prepare(args: argparse.Namespace, folder: Path) -> None:
    """Write every input into ``folder`` (in a process of its own: see the module's docstring)."""
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "generate.py"), "--records", str(args.records),
                    "--out", str(folder)], check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    records = catalog_records(folder / "catalog.json")
    write_inputs(folder, records)
    write_wide(records, args.wide_records, args.wide_cells, folder / "wide.jsonl")


def run_cases(args: argparse.Namespace, folder: Path) -> list[dict]:
    """Have the inputs written, then run each case in turn; one row of the report each."""
    subprocess.run([sys.executable, __file__, "--prepare", str(folder), "--records", str(args.records),
                    "--wide-records", str(args.wide_records), "--wide-cells", str(args.wide_cells)], check=True)
    inputs = {"lines": [folder / "records.jsonl"], "list": [folder / "records-list.json"],
              "folder": [folder / "records"], "catalog": [folder / "catalog.json", folder / "edges.json"],
              "wide": [folder / "wide.jsonl"]}
    records = sum(1 for _ in open(folder / "records.jsonl", "rb"))
    rows = []
    for case in args.cases:
        store = folder / f"store-{case}"
        found = measure(["ingest", "--store", str(store), *map(str, inputs[case])], folder / f"{case}.log")
        shutil.rmtree(store, ignore_errors=True)  # the next case has the disk to itself
        floor = WIDE_FLOOR_MB if case == "wide" else FLOOR_MB
        found.update(case=case, floor_mb=floor, mib=size_mib(inputs[case]),
                     records=args.wide_records if case == "wide" else records,
                     held=found["code"] in RAN and found["peak_rss_mb"] <= floor)
        print(f"{case}: peak RSS {found['peak_rss_mb']:.0f} MB (floor {floor}), {found['seconds']:.0f} s, "
              f"exit {found['code']}", file=sys.stderr)
        rows.append(found)
    return rows


def report(args: argparse.Namespace, rows: list[dict]) -> str:
    """The markdown report of the rows."""
    shapes = {"lines": "JSON Lines", "catalog": "catalog file + edges file", "list": "top-level list",
              "folder": "folder, one file a record", "wide": f"JSON Lines, {args.wide_cells:,} cells a record"}
    lines = [
        "# Memory benchmark: peak RSS of `kg ingest` on every input shape",
        "",
        f"Command: `python benchmarks/jsonl_memory.py --records {args.records} --wide-records {args.wide_records} "
        f"--wide-cells {args.wide_cells}`: each case is `{' '.join(Path(c).name for c in kg_command())} ingest "
        "--store S INPUT...` as a user runs it, a fresh process into a fresh on-disk store, one case at a time; "
        "peak RSS of the process from `os.wait4` (what `/usr/bin/time -v` reports).",
        "",
        f"Machine: {platform.machine()}, Python {platform.python_version()}, "
        f"{len(os.sched_getaffinity(0))} cores (shared: wall times are indicative only).",
        "",
        "| input | records | MiB | peak RSS MB | floor MB | held | wall s | exit |",
        "|---|---:|---:|---:|---:|---|---:|---:|",
    ]
    for row in rows:
        lines.append(f"| {shapes[row['case']]} | {row['records']:,} | {row['mib']:.1f} | {row['peak_rss_mb']:.0f} | "
                     f"{row['floor_mb']:,} | {'yes' if row['held'] else '**NO**'} | {row['seconds']:.1f} | "
                     f"{row['code']} |")
    lines += ["", "What each ingest said:", ""]
    lines += [f"- {shapes[row['case']]}: {row['said']}" for row in rows]
    lines += ["", HISTORY]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=9120)
    parser.add_argument("--wide-records", type=int, default=200)
    parser.add_argument("--wide-cells", type=int, default=2000)
    parser.add_argument("--cases", default=",".join(CASES), help="which of " + ", ".join(CASES))
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "memory.md"))
    parser.add_argument("--prepare", metavar="DIR", help=argparse.SUPPRESS)  # the inputs only (run_cases)
    args = parser.parse_args(argv)
    if args.prepare:
        prepare(args, Path(args.prepare))
        return 0
    args.cases = [case for case in args.cases.split(",") if case]
    unknown = set(args.cases) - set(CASES)
    if unknown:
        parser.error(f"unknown case(s): {', '.join(sorted(unknown))}")
    with tempfile.TemporaryDirectory(prefix="kg-memory-") as tmp:
        rows = run_cases(args, Path(tmp))
    text = report(args, rows)
    Path(args.out).write_text(text, encoding="utf-8")
    print(text)
    broken = [row for row in rows if not row["held"]]
    for row in broken:
        print(f"FLOOR BROKEN: {row['case']}: peak RSS {row['peak_rss_mb']:.0f} MB against {row['floor_mb']} MB "
              f"(exit {row['code']}: {row['said']})", file=sys.stderr)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
