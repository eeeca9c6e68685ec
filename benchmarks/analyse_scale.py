#!/usr/bin/env python3
"""How kg.analyse scales: the time of every measure on synthetic hub-heavy graphs of
10k nodes / 30k edges and 100k nodes / 300k edges (and on the real catalog), and the
time and error of sampled betweenness against exact values at 10k.

    python benchmarks/analyse_scale.py [--sizes 10000,100000] [--out benchmarks/results/analyse.md]

The graphs are deterministic (``random.Random(seed)``): sources and targets are drawn
from Zipf-like weights (a few hubs receive most edges, as in the real catalog, where the
top 1% of records hold 42% of inbound edges), edge types in the real catalog's
proportions, no self-loops, (source, target, type) unique. The measures run through the
same code as ``kg analyze`` (``kg.analyse.analyze_snapshot`` and its functions), on a
``Snapshot`` built in memory, so the store is not part of these timings; the real
catalog row does include reading it from an in-memory store.

Exact betweenness is O(V*E): at 100k nodes it is skipped (igraph alone would need
hours on this machine), and NetworkX's exact betweenness at 10k is extrapolated from
a timed sample (it is the sum of one BFS per source), not run.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import random
import resource
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kg import analyse  # noqa: E402

SEED = 20261129
# the real catalog's edge-type counts (data/landscape.edges.json)
TYPE_MIX = {"cites": 241, "runtime-dependency": 212, "integrates-with": 41, "built-on": 22,
            "competes-with": 4, "extends": 3, "same-team-as": 2, "forks": 2, "succeeds": 1}


def synthetic(n: int, m: int, seed: int = SEED) -> analyse.Snapshot:
    """A deterministic hub-heavy typed graph as a Snapshot (ids n000001...)."""
    rng = random.Random(seed)
    width = len(str(n))
    ids = [f"n{i:0{width}d}" for i in range(n)]
    # Zipf-like popularity: weight 1/(rank+10)^s, shuffled so hubs are spread over ids
    target_w = [1.0 / (r + 10) ** 1.05 for r in range(n)]
    source_w = [1.0 / (r + 10) ** 0.6 for r in range(n)]
    t_order, s_order = ids[:], ids[:]
    rng.shuffle(t_order)
    rng.shuffle(s_order)
    types, type_w = list(TYPE_MIX), list(TYPE_MIX.values())
    seen: set[tuple[str, str, str]] = set()
    relations = []
    while len(relations) < m:
        batch = m - len(relations)
        sources = rng.choices(s_order, weights=source_w, k=batch)
        targets = rng.choices(t_order, weights=target_w, k=batch)
        kinds = rng.choices(types, weights=type_w, k=batch)
        for s, t, k in zip(sources, targets, kinds):
            if s != t and (s, t, k) not in seen and len(relations) < m:
                seen.add((s, t, k))
                relations.append((s, t, k))
    systems = {i: analyse.SystemInfo(id=i, iri="urn:x:" + i, name=i)
               for i in ids}
    return analyse.Snapshot(systems, relations)


def shape(snapshot: analyse.Snapshot) -> str:
    inbound = Counter(t for _, t, _ in snapshot.relations)
    top = sorted(inbound.values(), reverse=True)
    share = sum(top[: max(1, len(snapshot.systems) // 100)]) / len(snapshot.relations)
    return f"max in-degree {top[0]}, top 1% of nodes hold {share:.0%} of inbound edges"


def timed(func, *args, **kwargs):
    gc.collect()
    started = time.perf_counter()
    result = func(*args, **kwargs)
    return time.perf_counter() - started, result


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def spearman(a: dict, b: dict) -> float:
    from scipy.stats import spearmanr

    keys = sorted(a)
    return float(spearmanr([a[k] for k in keys], [b[k] for k in keys]).statistic)


def measure_times(snapshot: analyse.Snapshot, label: str, *, exact: bool, samples: list[int],
                  nx_betweenness: bool) -> dict:
    """Seconds of each measure (igraph and networkx where both apply)."""
    row: dict = {"graph": label}
    t, graph = timed(analyse.project_systems, snapshot)
    row["nodes"], row["adjacencies"], row["edges"] = len(graph), graph.number_of_edges(), len(snapshot.relations)
    row["projection"] = t
    row["inbound+outbound"], _ = timed(analyse.edge_counts, snapshot)
    if exact:
        row["betweenness exact (igraph)"], raw = timed(analyse.betweenness, graph, backend="igraph")
        bw = analyse.scale_by_max(raw)
    for k in samples:
        row[f"betweenness K={k} (igraph)"], est = timed(analyse.betweenness, graph, sample=k, backend="igraph")
        if not exact:
            bw = analyse.scale_by_max(est)
    if nx_betweenness:
        k = 100
        t, _ = timed(analyse.betweenness, graph, sample=k, backend="networkx")
        row[f"betweenness K={k} (networkx)"] = t
        row["betweenness exact (networkx), extrapolated"] = t * len(graph) / k
    inbound, _ = analyse.edge_counts(snapshot)
    row["bridge surprise"], _ = timed(analyse.bridge_surprise, {n: sum(c.values()) for n, c in inbound.items()}, bw)
    row["coreness (igraph)"], cores = timed(analyse.core_numbers, graph, backend="igraph")
    row["coreness (networkx)"], cores_nx = timed(analyse.core_numbers, graph, backend="networkx")
    assert cores == cores_nx
    row["nucleus"], _ = timed(analyse.nucleus, cores, bw)
    directed = analyse.project_systems(snapshot, analyse.DEPENDENCY_TYPES, directed=True)
    row["pagerank (networkx)"], _ = timed(analyse.pagerank, directed)
    row["communities, Louvain (networkx)"], found = timed(analyse.communities, graph)
    g, _, _ = analyse.to_igraph(graph)
    row["communities, Louvain (igraph multilevel, not used)"], _ = timed(g.community_multilevel)
    row["components (networkx)"], _ = timed(analyse.components, graph)
    deps = analyse.project_systems(snapshot, analyse.BLAST_TYPES, directed=True)
    row["blast radius"], radius = timed(analyse.blast_radius, deps)
    row["max blast radius"] = max(radius.values())
    row["communities found"] = max(found.values())
    row["peak RSS MB"] = rss_mb()
    return row


def sampling_error(snapshot: analyse.Snapshot, samples: list[int], nx_samples: list[int]) -> list[dict]:
    graph = analyse.project_systems(snapshot)
    t_exact, raw = timed(analyse.betweenness, graph, backend="igraph")
    exact = analyse.scale_by_max(raw)
    exact_order = sorted(exact, key=lambda n: (-exact[n], n))
    top20, top100 = set(exact_order[:20]), set(exact_order[:100])
    cores = analyse.core_numbers(graph)
    nucleus = analyse.nucleus(cores, exact)
    rows = [{"K": "exact", "library": "igraph", "seconds": t_exact}]
    for k in samples:
        for library in ["igraph"] + (["networkx"] if k in nx_samples else []):
            t, est_raw = timed(analyse.betweenness, graph, sample=k, backend=library)
            if library == "igraph":  # cheap: take the better of two runs (the machine is shared)
                t = min(t, timed(analyse.betweenness, graph, sample=k, backend=library)[0])
            est = analyse.scale_by_max(est_raw)
            # error on the scale of the exact values (exact top node = 1.0)
            scaled = {n: v / max(raw.values()) for n, v in est_raw.items()}
            order = sorted(est, key=lambda n: (-est[n], n))
            rows.append({
                "K": k, "library": library, "seconds": t,
                "max abs error": max(abs(scaled[n] - exact[n]) for n in exact),
                "mean abs error (nodes with exact > 0)": statistics.fmean(
                    abs(scaled[n] - exact[n]) for n in exact if exact[n] > 0),
                "spearman": spearman(exact, est),
                "top-20 overlap": len(top20 & set(order[:20])) / 20,
                "top-100 overlap": len(top100 & set(order[:100])) / 100,
                "same top node": order[0] == exact_order[0],
                "same top-10 order": order[:10] == exact_order[:10],
                # the members come from coreness alone; their order is by betweenness
                "nucleus order kept": analyse.nucleus(cores, est) == nucleus,
            })
    return rows


def real_row() -> dict:
    from kg.ingestion import ingest_paths
    from kg.sources import bundled_paths
    from kg.store import GraphStore

    store = GraphStore()
    ingest_paths(store, bundled_paths())
    row: dict = {"graph": "real catalog"}
    for backend in ("igraph", "networkx"):
        t, analysis = timed(analyse.analyze, store, backend=backend)
        row[f"kg analyze, all measures, from the store ({backend})"] = t
        for key, value in analysis.seconds.items():
            row[f"{key} ({backend})"] = value
    row["nodes"], row["adjacencies"], row["edges"] = analysis.node_count, analysis.adjacency_count, analysis.edge_count
    return row


def fmt(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if value >= 100:
            return f"{value:,.0f}"
        if value >= 1:
            return f"{value:.2f}"
        return f"{value:.3f}" if value >= 0.001 else f"{value:.1e}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def table(rows: list[dict], keys: list[str]) -> str:
    out = ["| " + " | ".join(keys) + " |", "|" + "|".join("---" if i == 0 else "---:" for i in range(len(keys))) + "|"]
    for row in rows:
        out.append("| " + " | ".join(fmt(row.get(k, "–")) for k in keys) + " |")
    return "\n".join(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000", help="node counts (3 edges per node)")
    parser.add_argument("--out", help="write the JSON results here (the report is written by hand)")
    args = parser.parse_args(argv)
    if analyse.backend_name() != "igraph":
        print("this benchmark needs igraph: pip install 'kg[fast]'", file=sys.stderr)
        return 2
    import igraph
    results: dict = {"machine": platform.platform(), "python": platform.python_version(),
                     "networkx": nx.__version__, "igraph": igraph.__version__, "rows": [], "shapes": {}}
    print(f"# {results['machine']}, python {results['python']}, networkx {nx.__version__}, "
          f"igraph {igraph.__version__}", flush=True)
    results["real"] = real_row()
    print(json.dumps(results["real"], default=str), flush=True)
    for n in [int(s) for s in args.sizes.split(",")]:
        snapshot = synthetic(n, 3 * n)
        label = f"{n // 1000}k / {3 * n // 1000}k"
        results["shapes"][label] = shape(snapshot)
        print(label, results["shapes"][label], flush=True)
        big = n > 20000
        row = measure_times(snapshot, label, exact=not big, samples=[100, 500] if big else [100, 500],
                            nx_betweenness=not big)
        print(json.dumps(row, default=str), flush=True)
        results["rows"].append(row)
        if not big:
            results["sampling"] = sampling_error(snapshot, [50, 100, 200, 500, 1000], nx_samples=[100, 500])
            for r in results["sampling"]:
                print(json.dumps(r, default=str), flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
