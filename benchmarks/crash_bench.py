"""Crash safety: SIGKILL ``kg ingest`` at random moments while it replaces every record.

The store starts at version 1 of the catalog (each record's name ends in " [v1]" and
it has a ``crash-marker`` cell "v1"). ``kg ingest`` then writes version 2, where every
record differs (name " [v2]", marker "v2", every text cell value changed, the ``pros``
cell removed), the edges differ (evidence) and the catalog header differs. The
process is killed with SIGKILL after a random delay, many times, each time on a
fresh copy of the version-1 store. After each kill the store must open as it is
(no repair step) and every record graph, the edges graph and the catalog graph must
equal, quad for quad, either its version-1 or its version-2 content: never a mix.
Then the interrupted ingest is run again to completion and the store must be
entirely version 2.

    python benchmarks/crash_bench.py [--kills 50] [--records 912] [--seed 7] [--recover-every 5]
                                     [--out benchmarks/results/crash.md]

``tests/test_crash_safety.py`` runs the same harness with fewer kills.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import platform
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kg.ingestion import BATCH_SIZE, ingest_paths  # noqa: E402
import pyoxigraph  # noqa: E402

from kg.store import GraphStore  # noqa: E402
from kg.vocab import Iris  # noqa: E402

IRIS = Iris()
DATA = ROOT / "data"


def _versioned(record: dict, version: str) -> dict:
    record = copy.deepcopy(record)
    record["name"] = f"{record['name']} [{version}]"
    record["cells"]["crash-marker"] = {"value": version, "citation": None, "status": "real-data", "tier": "T3"}
    if version == "v2":
        for cell in record["cells"].values():
            if isinstance(cell.get("value"), str) and cell is not record["cells"]["crash-marker"]:
                cell["value"] += " [v2]"
        record["cells"].pop("pros", None)  # a cell that v2 no longer has
    return record


def write_versions(folder: Path, records: int) -> dict[str, list[str]]:
    """Version 1 and version 2 of a catalog of ``records`` real records and their edges, as files."""
    site = json.loads((DATA / "landscape-site.json").read_text(encoding="utf-8"))
    edges_file = json.loads((DATA / "landscape.edges.json").read_text(encoding="utf-8"))
    chosen = site["records"][:records]
    ids = {r["id"] for r in chosen}
    edges = [e for e in edges_file["edges"] if e["source"] in ids and e["target"] in ids]
    paths: dict[str, list[str]] = {}
    for version in ("v1", "v2"):
        header = {k: v for k, v in site.items() if k != "records"}
        header["generatedAt"] = f"{header['generatedAt']} {version}"
        catalog = folder / f"catalog-{version}.json"
        catalog.write_text(json.dumps({**header, "records": [_versioned(r, version) for r in chosen]}),
                           encoding="utf-8")
        edge_path = folder / f"edges-{version}.json"
        edge_path.write_text(json.dumps({"schemaVersion": "1.0.0", "edges": [
            dict(e, evidence=f"{e.get('evidence')} [{version}]") for e in edges]}), encoding="utf-8")
        paths[version] = [str(catalog), str(edge_path)]
    return paths


def graphs_of(store: GraphStore) -> dict[str, frozenset[str]]:
    """Quads (as N-Quads text) of every graph that must be all-old or all-new."""
    prefix = IRIS.record_graph_prefix()
    watched = {IRIS.edges_graph.value, IRIS.catalog_graph.value}
    out: dict[str, set[str]] = {}
    for q in store.quads():
        g = q.graph_name.value
        if g.startswith(prefix) or g in watched:
            out.setdefault(g, set()).add(str(q))
    return {g: frozenset(qs) for g, qs in out.items()}


def expected_graphs(paths: dict[str, list[str]]) -> dict[str, dict[str, frozenset[str]]]:
    """Each version's graphs, from a clean in-memory ingest of it."""
    out = {}
    for version, files in paths.items():
        store = GraphStore()
        ingest_paths(store, files, IRIS)
        out[version] = graphs_of(store)
    return out


@dataclass
class Outcome:
    delay: float
    finished_before_kill: bool
    v1: int = 0
    v2: int = 0
    mixed: list[str] = field(default_factory=list)
    open_error: str | None = None
    edges: str = ""
    catalog: str = ""
    recovered: bool | None = None
    ran: float = 0.0
    recovery_s: float | None = None

    @property
    def state(self) -> str:
        if self.open_error or self.mixed:
            return "BROKEN"
        if self.v2 == 0:
            return "all old"
        if self.v1 == 0:
            return "all new" if self.edges == "v2" else "records new, edges and header still old"
        return "records part new, part old"


def classify(path: Path, expected: dict[str, dict[str, frozenset[str]]], outcome: Outcome) -> None:
    try:
        store = GraphStore(path)  # opens as it is: no repair step exists
        found = graphs_of(store)
        store.count("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
    except Exception as err:  # any failure to open or read is a finding
        outcome.open_error = f"{type(err).__name__}: {err}"
        return
    finally:
        store = None
    v1, v2 = expected["v1"], expected["v2"]
    for graph in sorted(set(v1) | set(v2)):
        quads = found.get(graph, frozenset())
        if graph in v1 and quads == v1[graph]:
            state = "v1"
        elif graph in v2 and quads == v2[graph]:
            state = "v2"
        else:
            outcome.mixed.append(graph)
            continue
        if graph == IRIS.edges_graph.value:
            outcome.edges = state
        elif graph == IRIS.catalog_graph.value:
            outcome.catalog = state
        elif state == "v1":
            outcome.v1 += 1
        else:
            outcome.v2 += 1


def ingest_command(files: list[str], store: Path) -> list[str]:
    return [sys.executable, "-m", "kg.cli", "ingest", *files, "--store", str(store)]


def kill_once(base: Path, work: Path, paths: dict[str, list[str]], expected, delay: float,
              recover: bool) -> Outcome:
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(base, work)
    started = time.perf_counter()
    process = subprocess.Popen(ingest_command(paths["v2"], work), cwd=ROOT, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        process.wait(timeout=delay)
        finished = True
    except subprocess.TimeoutExpired:
        os.kill(process.pid, signal.SIGKILL)  # only the process this harness started
        process.wait()
        finished = False
    outcome = Outcome(delay=delay, finished_before_kill=finished)
    outcome.ran = time.perf_counter() - started
    classify(work, expected, outcome)
    if recover and outcome.state != "BROKEN":
        started = time.perf_counter()
        done = subprocess.run(ingest_command(paths["v2"], work), cwd=ROOT, capture_output=True, text=True)
        outcome.recovery_s = time.perf_counter() - started
        after = Outcome(delay=0, finished_before_kill=True)
        classify(work, expected, after)
        outcome.recovered = done.returncode == 0 and after.state == "all new" and after.edges == "v2"
    return outcome


def run(kills: int, records: int, seed: int, folder: Path, recover_every: int = 1,
        window: tuple[float, float] = (0.0, 1.05), log=None) -> tuple[list[Outcome], dict]:
    """Until ``kills`` processes were really killed (at most 3x as many runs), start a
    version-2 ingest and kill it after a delay drawn uniformly from ``window`` (fractions
    of the median time a whole version-2 ingest takes, re-estimated from every completed
    run: the machine's load changes); the store is re-ingested to completion after every
    ``recover_every``-th kill. Runs that finished before their kill are kept in the
    outcomes (``finished_before_kill``) but do not count as kills."""
    paths = write_versions(folder, records)
    expected = expected_graphs(paths)
    base = folder / "store-v1"
    done = subprocess.run(ingest_command(paths["v1"], base), cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    # calibrate: how long a whole version-2 ingest takes here
    calibration = folder / "calibration"
    shutil.copytree(base, calibration)
    started = time.perf_counter()
    done = subprocess.run(ingest_command(paths["v2"], calibration), cwd=ROOT, capture_output=True, text=True)
    durations = [time.perf_counter() - started]
    assert done.returncode == 0, done.stderr
    shutil.rmtree(calibration)
    rng = random.Random(seed)
    outcomes: list[Outcome] = []
    killed = 0
    while killed < kills and len(outcomes) < 3 * kills:
        full = statistics.median(durations)
        delay = rng.uniform(full * window[0], full * window[1])
        outcome = kill_once(base, folder / "work", paths, expected, delay, recover=(killed % recover_every == 0))
        outcomes.append(outcome)
        if outcome.finished_before_kill:
            durations.append(outcome.ran)
        else:
            killed += 1
        if outcome.recovery_s is not None:
            durations.append(outcome.recovery_s)
        if log:
            what = "finished before the kill" if outcome.finished_before_kill else f"kill {killed}/{kills}"
            log(f"{what} at {delay:.2f} s: {outcome.state} (records v1 {outcome.v1}, v2 {outcome.v2}; "
                f"edges {outcome.edges}; catalog {outcome.catalog}; recovered {outcome.recovered})")
    info = {"records": sum(g.startswith(IRIS.record_graph_prefix()) for g in expected["v1"]), "full_ingest_s": statistics.median(durations),
            "durations": durations, "window": window,
            "quads_v1": sum(len(q) for q in expected["v1"].values()),
            "quads_v2": sum(len(q) for q in expected["v2"].values())}
    return outcomes, info


def report(outcomes: list[Outcome], info: dict, args: argparse.Namespace, seconds: float) -> str:
    finished = [o for o in outcomes if o.finished_before_kill]
    outcomes = [o for o in outcomes if not o.finished_before_kill]
    states = Counter(o.state for o in outcomes)
    broken = [o for o in outcomes if o.state == "BROKEN"]
    recovered = [o.recovered for o in outcomes if o.recovered is not None]
    lines = [
        "# Crash safety: SIGKILL during `kg ingest`",
        "",
        f"Command: `python benchmarks/crash_bench.py --kills {args.kills} --records {args.records} "
        f"--seed {args.seed} --recover-every {args.recover_every}`",
        "",
        f"Machine: {platform.machine()}, Python {platform.python_version()}, "
        f"pyoxigraph {pyoxigraph.__version__}; {os.cpu_count()} cores.",
        "",
        f"Setup: an on-disk store holding version 1 of {info['records']} real records and the real edges "
        f"between them; `kg ingest` replaces every record graph, the edges graph and the catalog header with "
        f"version 2 (every record differs). A whole version-2 ingest took {info['full_ingest_s']:.1f} s here "
        f"(median of {len(info['durations'])} complete runs, {min(info['durations']):.1f} to "
        f"{max(info['durations']):.1f} s on this shared machine); each kill lands after a uniform random delay in "
        f"[{info['window'][0]:g}, {info['window'][1]:g}] x the median so far, on a fresh copy of the version-1 "
        f"store. The check compares each graph quad for quad with a clean in-memory ingest of version 1 and of "
        f"version 2 ({info['quads_v1']} and {info['quads_v2']} quads in the watched graphs).",
        "",
        "| state after the kill | kills |",
        "|---|---:|",
    ]
    for state in ("all old", "records part new, part old", "records new, edges and header still old", "all new",
                  "BROKEN"):
        lines.append(f"| {state} | {states.get(state, 0)} |")
    partial = [o for o in outcomes if o.state == "records part new, part old"]
    lines += [
        "",
        f"- Kills: {len(outcomes)} processes really killed (another {len(finished)} runs had already finished "
        f"when their kill came; they are not counted, and were all new: "
        f"{all(o.state == 'all new' for o in finished)}).",
        f"- Graphs that were a mix of old and new: **{sum(len(o.mixed) for o in outcomes)}**; stores that "
        f"failed to open: **{sum(1 for o in outcomes if o.open_error)}**.",
        f"- Part-new states: the records were at v2 in whole batches "
        f"({', '.join(sorted({str(o.v2) for o in partial})) or 'none seen'} records new), as `kg ingest` commits "
        f"records in transactions of {BATCH_SIZE}.",
        f"- Re-running the interrupted ingest afterwards gave an all-new store in "
        f"{sum(1 for r in recovered if r)} of {len(recovered)} tries.",
        f"- Wall time of the whole benchmark: {seconds:.0f} s.",
        "",
        "Scope: process crashes (SIGKILL), not power loss: pyoxigraph writes through RocksDB's write-ahead "
        "log without an fsync per commit, so a power cut can lose the last commits, though the store should "
        "still open consistent. The edges graph, the catalog header and the ontology are replaced together "
        "in one transaction after the records.",
    ]
    if broken:
        lines += ["", "## Broken states", ""]
        lines += [f"- delay {o.delay:.2f} s: {o.open_error or 'mixed graphs: ' + ', '.join(o.mixed[:5])}"
                  for o in broken]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--records", type=int, default=912)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--recover-every", type=int, default=5,
                        help="re-run the interrupted ingest to completion after every Nth kill (default 5)")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "crash.md"))
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="kg-crash-") as tmp:
        outcomes, info = run(args.kills, args.records, args.seed, Path(tmp), recover_every=args.recover_every,
                             log=lambda line: print(line, file=sys.stderr, flush=True))
    text = report(outcomes, info, args, time.perf_counter() - started)
    Path(args.out).write_text(text, encoding="utf-8")
    print(text)
    return 1 if any(o.state == "BROKEN" for o in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())
