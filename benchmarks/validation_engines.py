#!/usr/bin/env python3
"""kg's SHACL engine against stock pySHACL (and pyrudof): conformance per suite case, and speed.

    python benchmarks/validation_engines.py suite [--out benchmarks/results/validation-suite.md]
    python benchmarks/validation_engines.py speed --store DIR [--pairs 3]
    python benchmarks/validation_engines.py scale --store 912=DIR --store 45600=DIR [--jobs 1] [--runs 5,1]

``suite``: every case of tests/shacl_suite/ (the W3C SHACL Core suite and kg's own cases)
on kg's engine, on stock pySHACL and, when installed, on pyrudof: whether each gives the
expected report (conforms and the multiset of results, as tests/shacl_suite/suite.py compares
them; pyrudof by conforms and its (focus node, component) pairs, its report naming blank
nodes its own way).

``speed``: whole commands in turn, A B A B ...: ``kg validate --store DIR --format json``
against ``benchmarks/stock_pyshacl.py`` on the store's N-Triples dump (one stock pySHACL run,
every shape), the ratio pair by pair; then ``kg validate --record ID``. Load average
stated; CPU and wall seconds of each process (``/usr/bin/time``).

``scale``: ``kg validate`` of full-shape stores (benchmarks/generate.py, then ``kg ingest``):
wall seconds per record and peak RSS (``/usr/bin/time -v``), with ``--jobs`` processes; the
median of ``--runs`` runs of each store, and the ratio of the last store's time per record to the
first's.

The ingest's rule gate against an earlier checkout's: ``benchmarks/gate_bench.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
sys.path.insert(0, str(ROOT / "tests" / "shacl_suite"))
KG = [sys.executable, "-m", "kg"]


def load() -> str:
    return "%.1f" % os.getloadavg()[0]


# ---------------------------------------------------------------------------
# Conformance, case by case


def _ours(case: Any) -> bool:
    import suite
    from kg.shacl import Engine, report_triples

    engine = Engine(case.shapes_graph.triples)
    found = engine.validate(engine.facts(case.data_graph.triples))
    return suite.report_keys(report_triples(found, engine.shapes), case.shapes_graph, case.data_graph) == \
        (case.conforms, case.results)


def _to_oxigraph(graph: Any) -> list[Any]:
    import pyoxigraph
    import rdflib

    def term(t: Any) -> Any:
        if isinstance(t, rdflib.BNode):
            return pyoxigraph.BlankNode(str(t))
        if isinstance(t, rdflib.Literal):
            if t.language:
                return pyoxigraph.Literal(str(t), language=t.language)
            return pyoxigraph.Literal(str(t), datatype=pyoxigraph.NamedNode(str(t.datatype)) if t.datatype else None)
        return pyoxigraph.NamedNode(str(t))
    return [pyoxigraph.Triple(term(s), term(p), term(o)) for s, p, o in graph]


def _stock(case: Any) -> bool:
    import pyshacl
    import rdflib
    import suite

    rdflib.NORMALIZE_LITERALS = False  # the data's own lexical forms: "2011-01-01"^^xsd:dateTime stays as it is
    data = rdflib.Graph().parse(case.data, format="turtle")
    shapes = data if case.shapes == case.data else rdflib.Graph().parse(case.shapes, format="turtle")
    _, report, _ = pyshacl.validate(data, shacl_graph=shapes, inference="none", advanced=False)
    shapes_graph = suite.Graph.from_triples(_to_oxigraph(shapes))
    data_graph = shapes_graph if case.shapes == case.data else suite.Graph.from_triples(_to_oxigraph(data))
    return suite.report_keys(_to_oxigraph(report), shapes_graph, data_graph) == (case.conforms, case.results)


def _rudof(case: Any) -> bool:
    import pyrudof

    engine = pyrudof.Rudof(pyrudof.RudofConfig())
    engine.read_data(str(case.data), merge=False)
    engine.read_shacl(case.shapes.read_text(encoding="utf-8"))
    report = engine.validate_shacl()
    found = {(str(e.focus_node).strip("<>"), str(e.constraint_component).rsplit("#", 1)[-1].rstrip(">"))
             for e in report}
    expected = {(key[0].strip("<>"), key[4].strip("<>").rsplit("#", 1)[-1]) for key, _ in case.results}
    blank = any(k[0].startswith("[") for k in expected)
    return bool(report.conforms) == case.conforms and (blank or found == expected)


def run_suite(out: Path) -> None:
    import suite

    try:
        import pyrudof  # noqa: F401
        engines = {"kg": _ours, "stock pySHACL": _stock, "pyrudof": _rudof}
    except ImportError:
        engines = {"kg": _ours, "stock pySHACL": _stock}
    cases = suite.cases() + suite.cases(suite.HERE / "kg" / "manifest.ttl")
    rows = []
    for case in cases:
        row = {"case": case.name}
        for name, check in engines.items():
            try:
                row[name] = "yes" if check(case) else "no"
            except Exception as error:  # an engine that fails on a case: said, not fatal
                row[name] = f"error ({type(error).__name__})"
        rows.append(row)
    from importlib.metadata import version

    versions = {"stock pySHACL": version("pyshacl"), "pyrudof": version("pyrudof") if "pyrudof" in engines else "-"}
    lines = ["# SHACL Core conformance: kg's engine, stock pySHACL, pyrudof", "",
             f"{len(cases)} cases of `tests/shacl_suite/` (the W3C SHACL Core test suite's {len(suite.cases())}, and "
             f"kg's own {len(cases) - len(suite.cases())}), each compared with its expected report as a "
             f"multiset of results (`python benchmarks/validation_engines.py suite`; "
             f"pySHACL {versions['stock pySHACL']}, "
             f"pyrudof {versions['pyrudof']}: pyrudof by conforms and (focus node, component) pairs; pySHACL with "
             f"rdflib's literal normalisation off, so values keep their lexical forms).", "",
             "| engine | cases agreeing |", "|---|---:|"]
    for name in engines:
        lines.append(f"| {name} | {sum(1 for r in rows if r[name] == 'yes')} of {len(rows)} |")
    lines += ["", "| case | " + " | ".join(engines) + " |", "|---|" + "---|" * len(engines)]
    lines += ["| " + r["case"] + " | " + " | ".join(r[n] for n in engines) + " |" for r in rows]
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out.with_suffix(".json").write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    print("\n".join(lines[:9 + len(engines)]))


# ---------------------------------------------------------------------------
# Whole commands


def timed(command: list[str]) -> dict[str, float]:
    """Wall, CPU seconds and peak RSS (MiB) of one whole command, by /usr/bin/time -v."""
    with tempfile.NamedTemporaryFile("w+", suffix=".time") as log:
        started = time.perf_counter()
        subprocess.run(["/usr/bin/time", "-v", "-o", log.name, *command], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)
        wall = time.perf_counter() - started
        text = Path(log.name).read_text()
    field = lambda name: float(re.search(rf"{name}: ([\d.]+)", text).group(1))  # noqa: E731
    return {"wall_s": round(wall, 2), "cpu_s": round(field(r"User time \(seconds\)") + field(r"System time \(seconds\)"), 2),
            "peak_mib": round(field(r"Maximum resident set size \(kbytes\)") / 1024, 1)}


def run_speed(store: str, pairs: int, record: str) -> dict[str, Any]:
    import pyoxigraph

    from kg.store import GraphStore

    dump = Path(tempfile.mkdtemp()) / "dump.nt"
    with dump.open("wb") as f:
        opened = GraphStore.open_existing(store, read_only=True)
        pyoxigraph.serialize([pyoxigraph.Triple(q.subject, q.predicate, q.object) for q in opened.quads()], f,
                             format=pyoxigraph.RdfFormat.N_TRIPLES)
        del opened
    ours = [*KG, "validate", "--store", store, "--format", "json"]
    stock = [sys.executable, str(ROOT / "benchmarks" / "stock_pyshacl.py"), str(dump)]
    out: dict[str, Any] = {"load_before": load(), "pairs": []}
    timed(ours)  # warm-up: the store's files in the page cache
    for _ in range(pairs):
        a, b = timed(ours), timed(stock)
        out["pairs"].append({"kg": a, "stock": b, "ratio_wall": round(b["wall_s"] / a["wall_s"], 1),
                             "ratio_cpu": round(b["cpu_s"] / a["cpu_s"], 1)})
    out["record"] = [timed([*KG, "validate", "--store", store, "--record", record, "--format", "json"])
                     for _ in range(5)]
    out["load_after"] = load()
    out["median_ratio_wall"] = statistics.median(p["ratio_wall"] for p in out["pairs"])
    out["median_ratio_cpu"] = statistics.median(p["ratio_cpu"] for p in out["pairs"])
    out["median_record_wall_s"] = statistics.median(r["wall_s"] for r in out["record"])
    print(json.dumps(out, indent=1))
    return out


def _read_through(store: Path) -> None:
    """Every file of the store read once, so that each run finds it in the page cache (a warm
    cache, as the whole-command floors ask), whatever ran before."""
    for path in sorted(store.rglob("*")):
        if path.is_file():
            with path.open("rb") as handle:
                while handle.read(1 << 24):
                    pass


def run_scale(stores: list[str], jobs: int, runs: list[int]) -> dict[str, Any]:
    """Each store's ``kg validate`` as a whole command, ``runs`` times a store (in the stores' order;
    the last count for the rest), the median per record: a run of 912 records lasts seconds and a
    burst of the machine's other work moves one run by a fifth, a run of 45,600 lasts minutes."""
    out: dict[str, Any] = {"jobs": jobs, "load_before": load(), "stores": {}}
    for position, entry in enumerate(stores):
        records, path = entry.split("=", 1)
        _read_through(Path(path))
        count = runs[min(position, len(runs) - 1)]
        done = [timed([*KG, "validate", "--store", path, "--format", "json", "--jobs", str(jobs)])
                for _ in range(count)]
        got: dict[str, Any] = {"runs": done, "wall_s": statistics.median(d["wall_s"] for d in done),
                               "cpu_s": statistics.median(d["cpu_s"] for d in done),
                               "peak_mib": max(d["peak_mib"] for d in done)}
        got["ms_per_record_wall"] = round(1000 * got["wall_s"] / int(records), 2)
        got["ms_per_record_cpu"] = round(1000 * got["cpu_s"] / int(records), 2)
        out["stores"][records] = got
    out["load_after"] = load()
    sizes = list(out["stores"])
    if len(sizes) > 1:
        first, last = out["stores"][sizes[0]], out["stores"][sizes[-1]]
        out["ratio_wall"] = round(last["ms_per_record_wall"] / first["ms_per_record_wall"], 3)
        out["ratio_cpu"] = round(last["ms_per_record_cpu"] / first["ms_per_record_cpu"], 3)
    print(json.dumps(out, indent=1))
    return out


def report_section() -> str:
    """The section of benchmarks/REPORT.md on the engine: results/validation-section.md, written by hand
    from the figures above (empty when absent)."""
    path = RESULTS / "validation-section.md"
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", choices=("suite", "speed", "scale"))
    ap.add_argument("--out", type=Path, default=RESULTS / "validation-suite.md")
    ap.add_argument("--store", action="append", default=[])
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--record", default="mem0--mem0-ai")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--runs", default="1", help="scale: runs of each store, in the stores' order (5,1: five of "
                                                  "the first, one of the others); the median counts")
    args = ap.parse_args()
    if args.what == "suite":
        run_suite(args.out)
    elif args.what == "speed":
        found = run_speed(args.store[0], args.pairs, args.record)
        (RESULTS / "validation-speed.json").write_text(json.dumps(found, indent=1) + "\n", encoding="utf-8")
    else:
        found = run_scale(args.store, args.jobs, [int(n) for n in args.runs.split(",")])
        (RESULTS / "validation-scale.json").write_text(json.dumps(found, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
