"""Benchmark stage ``validate-vs-pyshacl``: kg's SHACL engine against stock pySHACL, whole commands in turn.

The bundled catalog (``--quick``: the size's catalog) is built by ``kg ingest`` into a store of its
own, and its triples written as N-Triples. Then, ``spec['pairs']`` times in turn: ``kg validate --store
S --format json`` against one stock pySHACL run over the dump with every shape of ``shapes/`` (this
file run as ``python stage_shacl.py --stock DUMP``: pyshacl and rdflib only, nothing of kg, what a user
would run), the ratio pair by pair; each side's number of results is kept (the two must find as
many). Then ``kg validate --record ID`` of one record, ``spec['record_runs']`` times.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench_harness import ROOT, run_command

KG = [sys.executable, "-m", "kg.cli"]
BUNDLED_RECORD = "mem0--mem0-ai"


def stock_run(dump: str) -> None:
    """One stock pySHACL run over ``dump`` with kg's shapes; print its results by source shape as JSON."""
    from collections import Counter

    import pyshacl
    import rdflib

    sh = rdflib.Namespace("http://www.w3.org/ns/shacl#")
    data = rdflib.Graph().parse(dump, format="nt")
    shapes = rdflib.Graph()
    for name in ("kg-shapes.ttl", "kg-cross-shapes.ttl"):
        shapes.parse(ROOT / "shapes" / name, format="turtle")
    conforms, report, _ = pyshacl.validate(data, shacl_graph=shapes, inference="none", advanced=False,
                                           allow_warnings=False)
    counts = Counter(str(report.value(r, sh.sourceShape)).rsplit("#", 1)[-1] for r in report.objects(None, sh.result))
    print(json.dumps({"conforms": conforms, "results": sum(counts.values()), "counts": dict(sorted(counts.items()))}))


def _timed(argv: list[str]) -> tuple[dict[str, Any], Any]:
    """A whole command and the JSON it printed."""
    with tempfile.TemporaryFile() as out:
        done = run_command(argv, stdout=out)
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    return done, json.loads(text) if text.strip().startswith("{") else None


def _build(spec: dict, work: Path) -> tuple[Path, Path, str]:
    """The store (built by ``kg ingest``), its triples as N-Triples, and the record id to check alone."""
    import pyoxigraph

    from kg.store import GraphStore
    from kg.sources import bundled_paths

    quick = bool(spec.get("quick"))
    paths = [spec["catalog"], spec["edges_file"]] if quick else [str(p) for p in bundled_paths()]
    store, dump = work / "store", work / "dump.nt"
    done = subprocess.run([*KG, "ingest", "--store", str(store), *paths], capture_output=True, text=True)
    if done.returncode not in (0, 5):
        raise RuntimeError(f"kg ingest exited {done.returncode}: {done.stderr[-300:]}")
    opened = GraphStore(store, read_only=True)
    with dump.open("wb") as fh:
        pyoxigraph.serialize([pyoxigraph.Triple(q.subject, q.predicate, q.object) for q in opened.quads()], fh,
                             format=pyoxigraph.RdfFormat.N_TRIPLES)
    record = BUNDLED_RECORD
    if quick:
        with open(spec["catalog"], encoding="utf-8") as fh:
            record = next(json.loads(line.rstrip().rstrip(","))["id"] for line in fh if line.startswith('{"id"'))
    return store, dump, record


def stage_validate_vs_pyshacl(spec: dict) -> dict:
    """``kg validate`` and one stock pySHACL run in turn, the ratio pair by pair; then ``kg validate --record``."""
    work = Path(spec["scratch"]) / "shacl"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    try:
        store, dump, record = _build(spec, work)
        ours = [*KG, "validate", "--store", str(store), "--format", "json"]
        stock = [sys.executable, str(Path(__file__).resolve()), "--stock", str(dump)]
        run_command(ours)  # a warm-up: the store's files in the page cache
        pairs = []
        for _ in range(int(spec.get("pairs", 3))):
            (a, found), (b, theirs) = _timed(ours), _timed(stock)
            if b["code"] != 0 or theirs is None:
                raise RuntimeError(f"stock pySHACL exited {b['code']}")
            ours_results = sum((found or {}).get(k) or 0 for k in ("violations", "warnings", "infos"))
            pairs.append({"kg": a, "stock": b, "kg_results": ours_results, "stock_results": theirs["results"],
                          "ratio_wall": b["seconds"] / a["seconds"], "ratio_cpu": b["cpu_s"] / a["cpu_s"]})
        alone = [*KG, "validate", "--store", str(store), "--record", record, "--format", "json"]
        run_command(alone)
        records = [run_command(alone) for _ in range(int(spec.get("record_runs", 5)))]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {"pairs": pairs, "ratio_median": statistics.median(p["ratio_wall"] for p in pairs),
            "ratio_cpu_median": statistics.median(p["ratio_cpu"] for p in pairs),
            "wall_s": statistics.median(p["kg"]["seconds"] for p in pairs),
            "stock_s": statistics.median(p["stock"]["seconds"] for p in pairs),
            "record": record, "record_runs": records,
            "record_median_s": statistics.median(r["seconds"] for r in records),
            "data": "the size's catalog" if spec.get("quick") else "the bundled catalog"}


if __name__ == "__main__":
    if sys.argv[1:2] != ["--stock"] or len(sys.argv) != 3:
        sys.exit("usage: python benchmarks/stage_shacl.py --stock DUMP.nt (run by the validate-vs-pyshacl stage)")
    stock_run(sys.argv[2])
