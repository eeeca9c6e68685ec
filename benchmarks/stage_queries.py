"""Benchmark stage ``queries``: every named query on the store, cold and warm, each with a time limit.

A query inside the store cannot be interrupted, so a watchdog writes a query past its limit down as
a timeout and ends the process; ``run_queries`` (in the parent) starts another process for the rest.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from pathlib import Path
from typing import Any, Callable

from bench_harness import kg_iris, kg_module, measure, run_child, with_alarm


# what a query needs beyond its required parameters (recommend: a project, in words or as a form)
BEYOND_REQUIRED = {"recommend": {"text": "offline multi agent airgap"}}


def query_params(query: Any, ids: list[str], paper: str | None = None) -> dict[str, str] | None:
    """Values for the required parameters of a named query (None: cannot fill one); ``paper``: a
    record predict-citations can fit (any other id is 'not a paper', an error and no time)."""
    values: dict[str, str] = dict(BEYOND_REQUIRED.get(query.name, {}))
    if query.name == "predict-citations" and paper is not None:
        values["system"] = paper
    id_values = iter(ids)
    names = [p.name for p in query.params]
    for param in query.params:
        if param.name in values:
            continue
        either = getattr(param, "either", None)
        if either in names:  # exactly one of a pair (``or=``): the first of the two is filled
            if names.index(either) < names.index(param.name):
                continue
        elif param.optional or param.default is not None:
            continue
        name = param.name.lower()
        if param.type in ("system", "system-name", "iri") or name in ("id", "a", "b", "system", "source", "target"):
            values[param.name] = next(id_values, ids[0])
        elif param.type == "integer":
            values[param.name] = "2"
        elif param.type == "decimal":
            values[param.name] = "1.5"
        elif param.type == "boolean":
            values[param.name] = "true"
        elif param.type == "date":
            values[param.name] = "2025-01-01"
        elif name == "framework":
            values[param.name] = "SOC 2"
        elif param.type == "string":
            values[param.name] = "memory"
        else:
            return None
    return values


def paper_of(store: Any, today: Any = None) -> str | None:
    """A paper of the store (the first that ``breakouts`` lists on ``today``, the current day by
    default), or None: the one both the queries and the advice stages time."""
    advice = kg_module("kg.advice")
    rows = advice.breakouts(store, limit=1, today=today).rows
    return str(rows[0]["id"]) if rows else None


def query_ids(spec: dict) -> list[str]:
    """Two record ids to bind: the record with most incoming edges (a hub), and the first record."""
    edges = json.loads(Path(spec["edges_file"]).read_text(encoding="utf-8"))["edges"]
    inbound: dict[str, int] = {}
    for edge in edges:
        inbound[edge["target"]] = inbound.get(edge["target"], 0) + 1
    hub = max(sorted(inbound), key=lambda k: inbound[k]) if inbound else None
    with open(spec["catalog"], encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("{\"id\""):
                first = json.loads(line.rstrip().rstrip(","))["id"]
                break
    return [hub or first, first] if hub != first else [hub, first]


WARM_IF_UNDER = 10.0  # seconds: a query whose cold run takes longer is not run again warm


def timed_runs(run_once: Callable[[], int], warm: int, timeout: float | None = None) -> dict:
    """A cold run of ``run_once``, then ``warm`` runs (none after a slow cold one): rows and times."""
    started = time.perf_counter()
    rows = with_alarm(timeout, run_once) if timeout else run_once()
    cold = time.perf_counter() - started
    times = []
    for _ in range(warm if cold < WARM_IF_UNDER else 0):
        started = time.perf_counter()
        with_alarm(timeout, run_once) if timeout else run_once()
        times.append(time.perf_counter() - started)
    return {"rows": rows, "cold_s": cold, "warm_min_s": min(times) if times else None,
            "warm_median_s": statistics.median(times) if times else None}


def stage_queries(spec: dict) -> dict:
    """Every named query (or those of ``spec['only']``), one after the other. Each result is
    appended to ``spec['progress']`` as it comes; a query running past ``spec['query_timeout']``
    is written down as a timeout and the process exits (the parent starts another one for the
    rest: a query inside the store cannot be interrupted)."""
    import threading

    Q = kg_module("kg.queries")
    from kg.store import GraphStore

    store = GraphStore(spec["store"], read_only=True)
    ids = query_ids(spec)
    paper = paper_of(store)
    iris = kg_iris()
    progress = Path(spec["progress"])

    def note(entry: dict) -> None:
        with progress.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(entry) + "\n")

    def run() -> dict:
        for name in spec.get("only") or Q.available():
            query = Q.load(name)
            params = query_params(query, ids, paper)
            if params is None:
                note({"name": name, "skipped": "cannot fill a parameter"})
                continue

            def once() -> int:
                return _consume_ox(Q.run(store, query, params, iris))

            def give_up() -> None:
                note({"name": name, "params": params, "timeout_s": spec["query_timeout"]})
                os._exit(3)

            watchdog = threading.Timer(spec["query_timeout"], give_up)
            watchdog.start()
            try:
                note({"name": name, "params": params, **timed_runs(once, spec["warm"])})
            except Exception as err:  # a query that fails is reported, the others still run
                note({"name": name, "params": params, "error": f"{type(err).__name__}: {err}"})
            finally:
                watchdog.cancel()
        return {}

    return measure(run)


def run_queries(spec: dict, timeout: float, script: Path) -> dict:
    """The queries stage: children until every query has an answer, a timeout or an error."""
    Q = kg_module("kg.queries")
    progress = Path(spec["scratch"]) / f"queries-{os.getpid()}.jsonl"
    names = Q.available()
    per_query: dict[str, Any] = {}
    children = []
    while True:
        remaining = [n for n in names if n not in per_query]
        if not remaining:
            break
        progress.unlink(missing_ok=True)
        out = run_child({**spec, "only": remaining, "progress": str(progress)}, timeout, script)
        children.append(out)
        if progress.exists():
            for line in progress.read_text(encoding="utf-8").splitlines():
                entry = json.loads(line)
                per_query[entry.pop("name")] = entry
        if all(n not in per_query for n in remaining):  # no progress: the child failed
            if not per_query:
                return out
            break
    progress.unlink(missing_ok=True)
    ran = [q for q in per_query.values() if "cold_s" in q]
    cold = sum(q["cold_s"] for q in ran)
    measured = [c for c in children if c.get("wall_s") is not None]
    return {
        "ok": True, "available": True, "wall_s": cold, "cold_total_s": cold,
        "warm_total_s": sum(q["warm_median_s"] or 0 for q in ran) if spec["warm"] else None,
        "cpu_s": sum(c.get("cpu_s", 0) for c in measured), "children_cpu_s": 0.0,
        "peak_rss_mb": max((c.get("peak_rss_mb", 0) for c in measured), default=0), "children_peak_rss_mb": 0,
        "processes": len(children), "queries": len(per_query), "ran": len(ran),
        "timeouts": sorted(n for n, q in per_query.items() if "timeout_s" in q),
        "errors": sorted(n for n, q in per_query.items() if "error" in q),
        "per_query": per_query, "noise": children[-1].get("noise", {}) if children else {},
    }


def _consume_ox(result: Any) -> int:
    """Materialise a pyoxigraph result (every value decoded); the number of rows or triples."""
    from pyoxigraph import QueryBoolean, QuerySolutions

    if isinstance(result, QueryBoolean):
        return int(bool(result))
    n = 0
    if isinstance(result, QuerySolutions) or hasattr(result, "variables"):
        names = [v.value for v in result.variables]
        for row in result:
            for name in names:
                row[name]
            n += 1
        return n
    for _ in result:
        n += 1
    return n
