"""What ``benchmarks/serve_vs_oxigraph.py`` measures and reports: the four queries, a run's
numbers, the tables of its results file and its section of benchmarks/REPORT.md."""

from __future__ import annotations

import argparse
import itertools
import os
import platform
import statistics
from dataclasses import dataclass, field
from pathlib import Path

PREFIXES = ("PREFIX kg: <https://w3id.org/agent-landscape/ontology#>\n"
            "PREFIX schema: <https://schema.org/>\nPREFIX dcterms: <http://purl.org/dc/terms/>\n")
QUERIES = {
    "protocol-support": PREFIXES + """SELECT ?protocol ?mode (COUNT(?system) AS ?systems) WHERE {
  ?system kg:protocolSupport ?support . ?support kg:protocol ?protocol ; kg:supportMode ?mode }
GROUP BY ?protocol ?mode ORDER BY ?protocol ?mode""",
    "one-system": PREFIXES + """SELECT ?p ?o WHERE { ?system dcterms:identifier "mem0--mem0-ai" ; ?p ?o }""",
    "mcp-list": PREFIXES + """SELECT ?id ?name WHERE {
  ?system kg:protocolSupport ?support ; dcterms:identifier ?id ; schema:name ?name .
  ?support kg:protocol kg:MCP ; kg:supportMode kg:NativeSupport } ORDER BY ?name LIMIT 50""",
    "name-filter": PREFIXES + """SELECT ?system ?name WHERE { ?system a kg:System ; schema:name ?name
  FILTER(CONTAINS(LCASE(?name), "memory")) } ORDER BY ?name""",
}
ACCEPT = "application/sparql-results+json"
WORKLOADS = ("repeated", "cold")
SIDES = ("oxigraph", "kg")


@dataclass
class Run:
    """One side's run at one number of clients, one workload: answers, latencies, CPU, load."""

    side: str
    workload: str
    clients: int
    requests: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    client_cpu: float = 0.0
    server_cpu: float = 0.0
    load: tuple[float, float] = (0.0, 0.0)

    @property
    def qps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    @property
    def p99_ms(self) -> float:
        ordered = sorted(self.latencies)
        return 1000 * ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] if ordered else 0.0

    @property
    def p50_ms(self) -> float:
        return 1000 * statistics.median(self.latencies) if self.latencies else 0.0


def summary_rows(runs: list[Run], levels: list[int]) -> list[dict]:
    """One row per workload and number of clients: the range over rounds of each side's qps
    and p99, and the ratio kg / Oxigraph of each round (worst and best)."""
    rows = []
    for workload in WORKLOADS:
        for clients in levels:
            mine = [r for r in runs if r.workload == workload and r.clients == clients]
            if not mine:
                continue
            ox = [r for r in mine if r.side == "oxigraph"]
            kg = [r for r in mine if r.side == "kg"]
            ratios = [k.qps / o.qps for o, k in zip(ox, kg) if o.qps]
            rows.append({"workload": workload, "clients": clients, "ox_qps": [r.qps for r in ox],
                         "kg_qps": [r.qps for r in kg], "ratios": ratios, "ox_p99": [r.p99_ms for r in ox],
                         "kg_p99": [r.p99_ms for r in kg], "errors": sum(len(r.errors) for r in mine)})
    return rows


def _span(values: list[float], digits: int = 0) -> str:
    low, high = min(values), max(values)
    text = f"{low:.{digits}f}"
    return text if f"{high:.{digits}f}" == text else f"{text}-{high:.{digits}f}"


def floors_met(row: dict) -> bool:
    """The issue's floors: repeated at least 1.0x with p99 no worse, cold at least 0.8x (every round)."""
    if row["workload"] == "repeated":
        return min(row["ratios"]) >= 1.0 and max(row["kg_p99"]) <= max(row["ox_p99"])
    return min(row["ratios"]) >= 0.8


def cpu_lines(runs: list[Run]) -> list[str]:
    """Server CPU per answer, by workload and side (the median over the runs): where a gap comes from."""
    lines = []
    for workload in WORKLOADS:
        per = {side: [r.server_cpu / r.requests * 1000 for r in runs if r.workload == workload and r.side == side
                      and r.requests] for side in SIDES}
        if all(per.values()):
            lines.append(f"- CPU per answer, {workload}: Oxigraph server {statistics.median(per['oxigraph']):.2f} ms, "
                         f"kg serve {statistics.median(per['kg']):.2f} ms (server and workers, median of the runs)")
    return lines


def table(rows: list[dict]) -> list[str]:
    lines = ["| workload | clients | Oxigraph server qps | kg serve qps | ratio (kg / ox) | p99 ox / kg (ms) | floor |",
             "|---|---:|---:|---:|---:|---:|---|"]
    for row in rows:
        floor = "1.0x, p99 no worse" if row["workload"] == "repeated" else "0.8x"
        met = "met" if floors_met(row) else "**not met**"
        lines.append(f"| {row['workload']} | {row['clients']} | {_span(row['ox_qps'])} | {_span(row['kg_qps'])} | "
                     f"{_span(row['ratios'], 2)}x | {_span(row['ox_p99'], 1)} / {_span(row['kg_p99'], 1)} | "
                     f"{floor}: {met} |")
    return lines


def report(runs: list[Run], rows: list[dict], args: argparse.Namespace, quads: int, started: str) -> str:
    from importlib.metadata import version

    loads = [value for r in runs for value in r.load]
    lines = [
        "# kg serve against the Oxigraph server", "",
        f"Run {started} with `benchmarks/serve_vs_oxigraph.py --seconds {args.seconds:g} --rounds {args.rounds} "
        f"--slice {args.slice:g} --levels {args.levels} --workers {args.workers}`.", "",
        f"- machine: {platform.machine()}, {os.cpu_count()} CPUs shared with other jobs; load average (1 min) "
        f"{min(loads):.1f}-{max(loads):.1f} over the runs (read before and after each); Python "
        f"{platform.python_version()}, pyoxigraph {version('pyoxigraph')}, oxigraph server {version('oxigraph')}",
        f"- data: {'the bundled catalog' if args.store is None else args.store}, {quads} quads, the same N-Quads "
        "in both; `oxigraph serve-read-only --union-default-graph` against `kg serve --workers "
        f"{args.workers}`, both on loopback",
        f"- load: {args.seconds:g} s per run, closed loop, one keep-alive connection per client (threads, "
        "http.client, in one process), the four queries in turn (" + ", ".join(QUERIES) + f"), {ACCEPT}; "
        f"runs interleaved: each round, each number of clients, each workload, the two sides take turns of "
        f"{args.slice:g} s (the side that starts alternating) until each has had {args.seconds:g} s, so both meet "
        "the same background load",
        "- workloads: repeated (the same four texts again) and cold (every text new: a comment with a fresh "
        "number as its first line)",
        "- floors (issue 41): repeated at least 1.0x the Oxigraph server's qps with p99 no worse, cold at "
        "least 0.8x, at 1, 8 and 32 clients, in every round", "",
        *table(rows), "",
        "Each cell gives the range over the rounds; a ratio is kg's qps over Oxigraph's in the same round.", "",
        *cpu_lines(runs), "",
        "## Every run", "",
        "| round | workload | clients | side | requests | qps | p50 (ms) | p99 (ms) | errors | client CPU | "
        "server CPU | load |",
        "|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for index, run in enumerate(runs):
        per_round = len(runs) // max(1, args.rounds)
        lines.append(f"| {index // per_round + 1} | {run.workload} | {run.clients} | {run.side} | {run.requests} | "
                     f"{run.qps:.0f} | {run.p50_ms:.1f} | {run.p99_ms:.1f} | {len(run.errors)} | "
                     f"{run.client_cpu / run.seconds:.0%} | {run.server_cpu / run.seconds:.0%} | "
                     f"{run.load[0]:.1f}-{run.load[1]:.1f} |")
    lines += ["", "CPU columns: CPU seconds per wall second (100% is one core) of the load generator (this "
              "process, all its threads) and of the server (with its worker processes). The client is not the "
              "bottleneck while its share stays well under one core: it is one Python process, so its threads "
              "together can use at most one.", ""]
    for run in runs:
        for sample in run.errors[:3]:
            lines.append(f"- error ({run.side}, {run.workload}, {run.clients} clients): {sample}")
    return "\n".join(lines) + "\n"


REPORT_START, REPORT_END = "<!-- serve-vs-oxigraph -->", "<!-- /serve-vs-oxigraph -->"


def report_section(results: Path) -> str:
    """The section of benchmarks/REPORT.md: the summary table of ``results`` (this script's
    output), between markers so that it can be written again."""
    lines = results.read_text(encoding="utf-8").splitlines()
    run = next((line for line in lines if line.startswith("Run ")), "")
    machine = next((line for line in lines if line.startswith("- machine:")), "")
    first = next(i for i, line in enumerate(lines) if line.startswith("| workload"))
    rows = list(itertools.takewhile(lambda line: line.startswith("|"), lines[first:]))
    cpu = [line for line in lines if line.startswith("- CPU per answer")]
    return "\n".join([REPORT_START, "## The endpoint against the Oxigraph server", "",
                      f"From [`results/serve_vs_oxigraph.md`](results/serve_vs_oxigraph.md) "
                      f"(`benchmarks/serve_vs_oxigraph.py`, run on its own). {run}", "", machine, "", *rows, "",
                      *cpu, *([""] if cpu else []), REPORT_END])


def write_section(report_path: Path, section: str) -> None:
    """Put ``section`` into the report: in place of the marked one, else before "## Reproduce"."""
    text = report_path.read_text(encoding="utf-8")
    if REPORT_START in text and REPORT_END in text:
        head, rest = text.split(REPORT_START, 1)
        text = head + section + rest.split(REPORT_END, 1)[1]
    elif "\n## Reproduce" in text:
        head, rest = text.split("\n## Reproduce", 1)
        text = head + "\n" + section + "\n\n## Reproduce" + rest
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    report_path.write_text(text, encoding="utf-8")
