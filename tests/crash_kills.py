"""Crash safety: SIGKILL ``kg ingest`` at random moments, during a fresh build or a replace.

The catalog comes in two versions where every record differs: version 1 (each
record's name ends in " [v1]" and it has a ``crash-marker`` cell "v1") and version 2
(name " [v2]", marker "v2", every text cell value changed, the ``pros`` cell
removed, the edges' evidence and the catalog header changed). ``--mode fresh``
builds version 2 into a folder that holds no store; ``--mode replace`` ingests
version 2 over a store holding version 1. The process is killed with SIGKILL after
a random delay, many times, each time from the same starting point. After each kill
the store must be the whole previous version or the whole new one, quad for quad:
every record graph, the edges graph and the catalog graph, and the total number of
quads (for a fresh build the previous version is no store, or an empty one). The
next writer's clean-up (an empty write session) must then leave only the current
generation in the folder. Every few kills the interrupted ingest is run again to
completion and the store must be entirely version 2.

Used by ``tests/test_crash_safety.py`` (a few kills on 60 records, in each mode); ``run(kills=20,
records=912, ...)`` is the whole-catalog run (it was ``benchmarks/crash_bench.py``, a benchmark that is
no speed measure).
"""

from __future__ import annotations

import copy
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from kg.ingestion import ingest_paths
from kg.store import _generations as generations
from kg.store import GraphStore
from kg.vocab import Iris

ROOT = Path(__file__).resolve().parent.parent

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
    total: int | None = None  # quads in the store; None: no store
    total_ok: bool = True
    leftovers: list[str] = field(default_factory=list)
    recovered: bool | None = None
    ran: float = 0.0
    recovery_s: float | None = None

    @property
    def state(self) -> str:
        if self.open_error or self.mixed or not self.total_ok:
            return "BROKEN"
        if self.total is None:
            return "no store"
        if self.v2 == 0 and self.edges != "v2" and self.catalog != "v2":
            return "all old"
        if self.v1 == 0 and self.edges == "v2" and self.catalog == "v2":
            return "all new"
        return "MIXED"


def classify(path: Path, expected: dict, outcome: Outcome) -> None:
    """Compare the store at ``path`` with ``expected["v1"]`` and ``expected["v2"]``
    (graph -> quads; a graph missing from a version is empty in it), and its size
    with ``expected["totals"]`` when given. Reads only: never creates a store."""
    store = None
    try:
        if generations.kind(path) in ("missing", "empty"):
            return  # outcome.total stays None: no store
        store = GraphStore.open_existing(path, read_only=True)
        found = graphs_of(store)
        outcome.total = store.count("SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }")
    except Exception as err:  # any failure to open or read is a finding
        outcome.open_error = f"{type(err).__name__}: {err}"
        return
    finally:
        store = None
    v1, v2 = expected["v1"], expected["v2"]
    for graph in sorted(set(v1) | set(v2)):
        quads = found.get(graph, frozenset())
        if quads == v1.get(graph, frozenset()):
            state = "v1"
        elif quads == v2.get(graph, frozenset()):
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
    totals = expected.get("totals")
    if totals:
        outcome.total_ok = outcome.total in totals.values()


def clean_up(path: Path, outcome: Outcome) -> None:
    """What the next writer does first (an empty write session), then what is left
    in the folder beyond the current generation, its lock, the pointer and the writer lock."""
    if generations.kind(path) == "missing":
        return
    store = GraphStore(path)  # a build killed before its first generation: the writer starts over
    with store.transaction():
        pass
    keep = {generations.POINTER, generations.WRITER_LOCK, f"gen-{store.generation:08d}",
            f"gen-{store.generation:08d}.lock"}
    del store
    outcome.leftovers = sorted(set(os.listdir(path)) - keep)


def ingest_command(files: list[str], store: Path) -> list[str]:
    return [sys.executable, "-m", "kg.cli", "ingest", *files, "--store", str(store)]


def kill_once(base: Path | None, work: Path, paths: dict[str, list[str]], expected, delay: float,
              recover: bool) -> Outcome:
    if work.exists():
        shutil.rmtree(work)
    if base is not None:
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
    if outcome.state != "BROKEN":
        clean_up(work, outcome)
    if recover and outcome.state != "BROKEN":
        started = time.perf_counter()
        done = subprocess.run(ingest_command(paths["v2"], work), cwd=ROOT, capture_output=True, text=True)
        outcome.recovery_s = time.perf_counter() - started
        after = Outcome(delay=0, finished_before_kill=True)
        classify(work, expected, after)
        outcome.recovered = done.returncode == 0 and after.state == "all new"
    return outcome


def run(kills: int, records: int, seed: int, folder: Path, recover_every: int = 1,
        window: tuple[float, float] = (0.0, 1.05), log=None, mode: str = "replace") -> tuple[list[Outcome], dict]:
    """Until ``kills`` processes were really killed (at most 3x as many runs), start a
    version-2 ingest (``mode`` "fresh": into no store; "replace": over version 1) and
    kill it after a delay drawn uniformly from ``window`` (fractions of the median time
    a whole version-2 ingest takes, re-estimated from every completed run: the
    machine's load changes); the store is re-ingested to completion after every
    ``recover_every``-th kill. Runs that finished before their kill are kept in the
    outcomes (``finished_before_kill``) but do not count as kills."""
    paths = write_versions(folder, records)
    expected = expected_graphs(paths)
    base: Path | None = None
    totals = {}
    if mode == "replace":
        base = folder / "store-v1"
        done = subprocess.run(ingest_command(paths["v1"], base), cwd=ROOT, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        totals["v1"] = _total(base)
    else:
        expected["v1"] = {}  # the previous version of a fresh build: nothing
        totals["v1"] = 0
    # calibrate: how long a whole version-2 ingest takes here
    calibration = folder / "calibration"
    if base is not None:
        shutil.copytree(base, calibration)
    started = time.perf_counter()
    done = subprocess.run(ingest_command(paths["v2"], calibration), cwd=ROOT, capture_output=True, text=True)
    durations = [time.perf_counter() - started]
    assert done.returncode == 0, done.stderr
    totals["v2"] = _total(calibration)
    expected["totals"] = totals
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
                f"edges {outcome.edges}; catalog {outcome.catalog}; quads {outcome.total}; "
                f"leftovers {outcome.leftovers}; recovered {outcome.recovered})")
    info = {"records": sum(g.startswith(IRIS.record_graph_prefix()) for g in expected["v2"]),
            "full_ingest_s": statistics.median(durations), "mode": mode,
            "durations": durations, "window": window, "totals": totals,
            "quads_v1": sum(len(q) for q in expected["v1"].values()),
            "quads_v2": sum(len(q) for q in expected["v2"].values())}
    return outcomes, info


def _total(path: Path) -> int:
    store = GraphStore.open_existing(path, read_only=True)
    return store.count("SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }")
