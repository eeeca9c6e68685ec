"""Benchmark stage ``startup``: the command line's start-up, ``kg --help`` and ``kg query --list``, whole processes.

Each command runs ``spec['runs']`` times after one warm-up (file cache, .pyc files), in a fresh
process; beside them, measured in the same stage, the baselines: a bare ``python -c pass`` (the
interpreter's own start) and ``python -c "import rdflib"`` (what the command line loaded before it
parsed its arguments, once).
"""

from __future__ import annotations

import statistics
import sys
from typing import Any

from bench_harness import run_command

COMMANDS = {
    "kg --help": [sys.executable, "-m", "kg.cli", "--help"],
    "kg query --list": [sys.executable, "-m", "kg.cli", "query", "--list"],
    "python -c pass": [sys.executable, "-c", "pass"],
    "python -c 'import rdflib'": [sys.executable, "-c", "import rdflib"],
}


def stage_startup(spec: dict) -> dict:
    """Min, median and max wall seconds of each command (and of the baselines)."""
    runs = int(spec.get("runs", 5))
    commands: dict[str, Any] = {}
    for name, argv in COMMANDS.items():
        run_command(argv)
        done = [run_command(argv) for _ in range(runs)]
        if any(d["code"] for d in done):
            raise RuntimeError(f"{name} exited {max(d['code'] for d in done)}")
        seconds = [d["seconds"] for d in done]
        commands[name] = {"median_s": statistics.median(seconds), "min_s": min(seconds), "max_s": max(seconds),
                          "cpu_median_s": statistics.median(d["cpu_s"] for d in done)}
    return {"commands": commands, "runs": runs, "wall_s": commands["kg --help"]["median_s"]}
