"""The report's endpoint: ``kg serve`` against the Oxigraph server (stage ``serve-vs-oxigraph``), its floors and table.

Per workload and number of clients, each side's queries a second and p99 over the rounds, and kg's
qps over Oxigraph's round by round. Floors: the cold mix at least 0.8x at every number of clients
measured (1, 8 and 32 by default), in every round; the repeated mix at least 1x with a p99 no worse.
"""

from __future__ import annotations

import statistics
from typing import Any

from report_summary import check, latest

WORKLOADS = ("repeated", "cold")
COLD_LIMIT, REPEATED_LIMIT = 0.8, 1.0


def summary_rows(result: dict) -> list[dict[str, Any]]:
    """One row per workload and number of clients: each side's qps and p99 per round, the ratios round by round."""
    rows = []
    for workload in WORKLOADS:
        for clients in result["levels"]:
            mine = [r for r in result["runs"] if r["workload"] == workload and r["clients"] == clients]
            ox = {r["round"]: r for r in mine if r["side"] == "oxigraph"}
            kg = {r["round"]: r for r in mine if r["side"] == "kg"}
            rounds = sorted(set(ox) & set(kg))
            if not rounds:
                continue
            rows.append({"workload": workload, "clients": clients, "ox_qps": [ox[n]["qps"] for n in rounds],
                         "kg_qps": [kg[n]["qps"] for n in rounds],
                         "ratios": [kg[n]["qps"] / ox[n]["qps"] for n in rounds if ox[n]["qps"]],
                         "ox_p99": [ox[n]["p99_ms"] or 0 for n in rounds], "kg_p99": [kg[n]["p99_ms"] or 0 for n in rounds],
                         "errors": sum(r["error_count"] for r in mine)})
    return rows


def _span(values: list[float], digits: int = 0) -> str:
    low, high = f"{min(values):.{digits}f}", f"{max(values):.{digits}f}"
    return low if low == high else f"{low}-{high}"


def met(row: dict) -> bool:
    """The row's floor: cold at least 0.8x in every round; repeated at least 1x, p99 no worse, in every round."""
    if not row["ratios"] or row["errors"]:
        return False
    if row["workload"] == "repeated":
        return min(row["ratios"]) >= REPEATED_LIMIT and max(row["kg_p99"]) <= max(row["ox_p99"])
    return min(row["ratios"]) >= COLD_LIMIT


def serve_floors(results: dict) -> list[dict[str, Any]]:
    """The cold mix at least 0.8x the Oxigraph server, the repeated mix at least 1x, at each number of clients."""
    result = latest(results, "serve-vs-oxigraph")
    rows = summary_rows(result) if result else []
    levels = ", ".join(str(n) for n in (result["levels"] if result else (1, 8, 32)))
    out = []
    for workload, floor in (("cold", f"the cold mix (every text new) at {levels} clients at least {COLD_LIMIT:g}x the "
                                     "Oxigraph server's queries a second, every round"),
                            ("repeated", f"the repeated mix at {levels} clients at least {REPEATED_LIMIT:g}x the Oxigraph "
                                         "server's, p99 no worse, every round")):
        mine = [row for row in rows if row["workload"] == workload]
        value = "; ".join(f"{row['clients']} clients {_span(row['ratios'], 2)}x (p99 {_span(row['kg_p99'], 1)} ms "
                          f"against {_span(row['ox_p99'], 1)})" + (f", {row['errors']} errors" if row["errors"] else "")
                          for row in mine)
        out.append(check(floor, value or None, all(met(row) for row in mine)))
    return out


def serve_section(results: dict) -> str:
    """The section: every row's qps, ratio and p99, and the CPU a side spent per answer."""
    result = latest(results, "serve-vs-oxigraph") or next(
        (r for r in results["runs"] if r.get("stage") == "serve-vs-oxigraph" and r.get("ok")), None)
    if not result:
        return ""
    lines = ["## The endpoint against the Oxigraph server", "",
             f"`kg serve --workers {result['workers']}` against `oxigraph serve-read-only --union-default-graph` "
             f"(oxigraph {result['oxigraph_version']}) on the same {result['quads']:,} quads ({result['data']}), both "
             f"on loopback; {result['seconds']:g} s per run, {result['rounds']} rounds, the two sides in turns within "
             "each run; closed-loop clients (threads, one keep-alive connection each) cycling through four catalog "
             "queries; cold: every text new (no answer cache helps), repeated: the same four texts. Both servers gave "
             "the same rows for each query before the load (" + ", ".join(f"{n} {c}" for n, c in result["rows"].items())
             + " rows).", "",
             "| workload | clients | Oxigraph qps | kg serve qps | ratio (kg / ox) | p99 ox / kg (ms) | floor |",
             "|---|---:|---:|---:|---:|---:|---|"]
    for row in summary_rows(result):
        floor = f"{REPEATED_LIMIT:g}x, p99 no worse" if row["workload"] == "repeated" else f"{COLD_LIMIT:g}x"
        lines.append(f"| {row['workload']} | {row['clients']} | {_span(row['ox_qps'])} | {_span(row['kg_qps'])} | "
                     f"{_span(row['ratios'], 2) if row['ratios'] else '–'}x | {_span(row['ox_p99'], 1)} / "
                     f"{_span(row['kg_p99'], 1)} | {floor}: {'met' if met(row) else '**not met**'} |")
    lines.append("")
    for workload in WORKLOADS:
        per = {side: [r["server_cpu"] / r["requests"] * 1000 for r in result["runs"]
                      if r["workload"] == workload and r["side"] == side and r["requests"]] for side in ("oxigraph", "kg")}
        if all(per.values()):
            lines.append(f"- CPU per answer, {workload}: Oxigraph server {statistics.median(per['oxigraph']):.2f} ms, "
                         f"kg serve {statistics.median(per['kg']):.2f} ms (server and its workers, median of the runs)")
    client = [r["client_cpu"] / r["seconds"] for r in result["runs"] if r["seconds"]]
    if client:
        lines.append(f"- the load generator used {max(client):.0%} of a core at most (one Python process): not the "
                     "bottleneck while well under one core")
    return "\n".join(lines + [""])
