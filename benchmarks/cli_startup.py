"""Start-up of the command line: ``kg --help`` and ``kg query --list``, as whole processes.

Each command runs ``--repeats`` times (after one warm-up) in a fresh process; the report
gives min / median / max wall time, and, as the baseline measured in the same run, a bare
``python -c pass`` (the interpreter's own start) and ``python -c "import rdflib"`` and
``python -c "import networkx"`` (what the command line used to load before parsing its
arguments). The floor asked for is a median under 0.3 s for both commands.

    python benchmarks/cli_startup.py [--repeats 5] [--out benchmarks/results/cli.md]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "benchmarks") not in sys.path:
    sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_harness import run_command  # noqa: E402  (a whole process, timed)

FLOOR_SECONDS = 0.3

COMMANDS = {
    "kg --help": [sys.executable, "-m", "kg.cli", "--help"],
    "kg query --list": [sys.executable, "-m", "kg.cli", "query", "--list"],
    "python -c pass (baseline)": [sys.executable, "-c", "pass"],
    "python -c 'import rdflib' (baseline)": [sys.executable, "-c", "import rdflib"],
    "python -c 'import networkx' (baseline)": [sys.executable, "-c", "import networkx"],
}


def wall_times(command: list[str], repeats: int) -> list[float]:
    """Wall seconds of ``repeats`` runs of ``command``, after one warm-up (file cache, .pyc files)."""
    subprocess.run(command, capture_output=True, check=True)
    times = []
    for _ in range(repeats):
        done = run_command(command, cwd=Path.cwd())
        if done["code"]:
            raise subprocess.CalledProcessError(done["code"], command)
        times.append(done["seconds"])
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "cli.md"))
    args = parser.parse_args()
    rows = []
    for name, command in COMMANDS.items():
        times = wall_times(command, args.repeats)
        rows.append((name, min(times), statistics.median(times), max(times)))
    baseline = rows[2][2]
    load = os.getloadavg()[0]
    lines = [
        "# Command-line start-up",
        "",
        f"`python benchmarks/cli_startup.py --repeats {args.repeats}`; {platform.python_version()}, "
        f"{os.cpu_count()} CPUs, 1-minute load {load:.1f} at the end of the run. Wall time of the whole process "
        "(start, import, parse, answer, exit).",
        "",
        "| command | min s | median s | max s | median / bare python |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, low, mid, high in rows:
        lines.append(f"| `{name}` | {low:.3f} | {mid:.3f} | {high:.3f} | {mid / baseline:.1f}x |")
    verdicts = [f"- `{name}`: median {mid:.3f} s, floor {FLOOR_SECONDS} s: **{'holds' if mid < FLOOR_SECONDS else 'missed'}**"
                for name, _, mid, _ in rows[:2]]
    lines += ["", "Floor (issue: `kg --help` and `kg query --list` under 0.3 s):", "", *verdicts, ""]
    Path(args.out).write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
