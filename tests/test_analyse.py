"""kg.analyse: projections from the store, each measure on small hand-checked graphs, and the
catalog's own conventions on the real bundled data, checked against an independent computation
(plain Brandes and k-core peeling on the edges JSON, no networkx)."""

from __future__ import annotations

import csv
import io
import json
import random
from collections import Counter, deque

import networkx as nx
import pytest

from kg import analyse, normalise, queries
from kg.cli import main
from kg.errors import UsageError
from kg.ingestion import ingest_batches
from kg.sources import read_text
from kg.store import GraphStore
from kg.vocab import KG, Iris

HAS_IGRAPH = analyse.backend_name() == "igraph"
BACKENDS = ["networkx", pytest.param("igraph", marks=pytest.mark.skipif(not HAS_IGRAPH, reason="igraph not installed"))]


# ---------------------------------------------------------------------------
# An independent computation of the catalog's centrality conventions (no networkx)


def plain_adjacency(ids: list[str], edges: list[dict]) -> dict[str, set[str]]:
    known = set(ids)
    adj: dict[str, set[str]] = {i: set() for i in ids}
    for e in edges:
        s, t = e["source"], e["target"]
        if s == t or s not in known or t not in known:
            continue
        adj[s].add(t)
        adj[t].add(s)
    return adj


def plain_brandes(adj: dict[str, set[str]]) -> dict[str, float]:
    """Brandes (2001) on an unweighted undirected graph: each unordered pair once."""
    cb = dict.fromkeys(adj, 0.0)
    for s in adj:
        if not adj[s]:
            continue
        stack, pred, sigma, dist = [], {s: []}, {s: 1}, {s: 0}
        queue = deque([s])
        while queue:
            v = queue.popleft()
            stack.append(v)
            for w in adj[v]:
                if w not in dist:
                    dist[w] = dist[v] + 1
                    sigma[w], pred[w] = 0, []
                    queue.append(w)
                if dist[w] == dist[v] + 1:
                    sigma[w] += sigma[v]
                    pred[w].append(v)
        delta = dict.fromkeys(stack, 0.0)
        while stack:
            w = stack.pop()
            for v in pred[w]:
                delta[v] += sigma[v] / sigma[w] * (1 + delta[w])
            if w != s:
                cb[w] += delta[w]
    return {v: c / 2 for v, c in cb.items()}


def plain_cores(adj: dict[str, set[str]]) -> dict[str, int]:
    """k-core numbers by peeling: remove every node of degree <= k, raise k when none is left."""
    degree = {v: len(n) for v, n in adj.items()}
    remaining, core, k = set(adj), {}, 0
    while remaining:
        low = [v for v in remaining if degree[v] <= k]
        if not low:
            k += 1
            continue
        while low:
            v = low.pop()
            if v not in remaining:
                continue
            remaining.discard(v)
            core[v] = k
            for w in adj[v]:
                if w in remaining:
                    degree[w] -= 1
                    if degree[w] <= k:
                        low.append(w)
    return core


def plain_rank(values: dict[str, float]) -> dict[str, int]:
    """Competition rank: 1 + how many values are strictly larger (floats compared at 1e-9)."""
    rounded = {k: round(v, 9) for k, v in values.items()}
    ordered = sorted(rounded.values(), reverse=True)
    first = {}
    for position, value in enumerate(ordered, start=1):
        first.setdefault(value, position)
    return {k: first[v] for k, v in rounded.items()}


@pytest.fixture(scope="module")
def expected(expected_records, edges_file) -> dict:
    ids = sorted(expected_records)
    edges = edges_file["edges"]
    adj = plain_adjacency(ids, edges)
    raw = plain_brandes(adj)
    top = max(raw.values())
    bw = {v: raw[v] / top for v in ids}
    cores = plain_cores(adj)
    max_core = max(cores.values())
    inbound = Counter(e["target"] for e in edges if e["source"] != e["target"])
    inbound = {i: inbound.get(i, 0) for i in ids}
    in_rank, bw_rank = plain_rank(inbound), plain_rank(bw)
    surprise = {i: in_rank[i] - bw_rank[i] for i in ids}
    bridges = sorted((i for i in ids if surprise[i] > 0 and bw[i] > 0),
                     key=lambda i: (-surprise[i], -round(bw[i], 9), i))
    return {
        "ids": ids, "adjacencies": sum(len(n) for n in adj.values()) // 2, "betweenness": bw,
        "cores": cores, "max_core": max_core, "distribution": dict(sorted(Counter(cores.values()).items())),
        "nucleus": sorted((i for i in ids if cores[i] == max_core), key=lambda i: (-round(bw[i], 9), i)),
        "inbound": inbound, "surprise": surprise, "bridges": bridges,
    }


@pytest.fixture(scope="module", params=BACKENDS)
def real(request, bundled_store) -> analyse.Analysis:
    return analyse.analyze(bundled_store, backend=request.param)


def test_real_projection_has_every_record_and_the_collapsed_adjacencies(real, expected, expected_records):
    assert real.node_count == len(expected_records) == 912
    assert set(real.systems) == set(expected["ids"])
    assert real.adjacency_count == expected["adjacencies"]
    assert real.adjacency_count < real.edge_count <= 528  # parallel and reverse edges collapse


def _expected_vendor(record: dict) -> tuple[str, str] | None:
    """The vendor key and name of a JSON record: from its URL, else its GitHub repository's owner."""
    gh = (record.get("cells") or {}).get("gh") or {}
    repo = normalise.github_repo(gh.get("value"), gh.get("citation")) if gh else None
    info = normalise.vendor_of(record.get("url"), repo[0] if repo else None)
    return None if info is None else (info.key, info.name)


def test_the_snapshot_has_each_systems_name_section_and_vendor_as_the_json_gives_them(
        bundled_store, expected_records, site_catalog, seed_record):
    """Ids come from the system IRIs, vendors' keys and names from their own query (select-analysis-vendors).
    A vendor is named as the first record of the input that has it names it."""
    systems = analyse.read_snapshot(bundled_store).systems
    assert sorted(systems) == sorted(expected_records)
    vendor_names: dict[str, str] = {}
    for record in [*site_catalog["records"], seed_record]:
        key, name = _expected_vendor(record) or (None, None)
        if key is not None:
            vendor_names.setdefault(key, name)
    for rid, record in expected_records.items():
        info = systems[rid]
        # the listing marked primary, else the record's declared section (the seed's shape)
        primary = [s["section"] for s in record["sections"] if isinstance(s, dict) and s.get("primary")]
        primary += [record.get("section")]
        key = (_expected_vendor(record) or (None, None))[0]
        assert (info.id, info.name, info.section) == (rid, record["name"], primary[0]), rid
        assert (info.vendor, info.vendor_name) == (key, vendor_names.get(key)), rid
    assert sum(info.vendor is not None for info in systems.values()) > len(systems) // 2  # not a vacuous check


def test_a_system_kg_did_not_mint_keeps_its_iri_as_its_key():
    assert analyse.projections.system_key("https://w3id.org/agent-landscape/id/system/mem0--mem0-ai") == \
        "mem0--mem0-ai"
    assert analyse.projections.system_key("https://example.org/base/system/system/a-b") == "a-b"
    for foreign in ("https://example.org/things#mem0", "https://example.org/system/Not An Id",
                    "https://example.org/system/"):
        assert analyse.projections.system_key(foreign) == foreign


def test_the_snapshot_reads_every_edge_in_one_order_whatever_order_the_store_gives(bundled_store, edges_file):
    """The edges query leaves its order free; the snapshot adds the edges to the graphs by source,
    type and target (the order the measures' tie-breaks and Louvain's seed were fixed with)."""
    relations = analyse.read_snapshot(bundled_store).relations
    assert relations == sorted(relations, key=lambda r: (r[0], r[2], r[1]))
    expected = Counter((e["source"], e["target"], e["type"]) for e in edges_file["edges"])
    assert Counter(relations) == expected  # each typed edge once, as the JSON lists it


def test_real_betweenness_matches_plain_brandes(real, expected):
    got = {i: s.betweenness for i, s in real.systems.items()}
    assert max(abs(got[i] - expected["betweenness"][i]) for i in got) < 1e-9
    assert max(got.values()) == 1.0


def test_real_coreness_and_nucleus_match_peeling(real, expected):
    assert {i: s.coreness for i, s in real.systems.items()} == expected["cores"]
    assert real.max_coreness == expected["max_core"]
    assert real.coreness_distribution == expected["distribution"]
    assert real.nucleus == expected["nucleus"]  # members and order


def test_real_inbound_counts_and_bridge_surprise_list(real, expected):
    assert {i: s.inbound for i, s in real.systems.items()} == expected["inbound"]
    assert {i: s.bridge_surprise for i, s in real.systems.items()} == expected["surprise"]
    assert real.bridge_surprises == expected["bridges"]
    assert [s.id for s in real.ranked("bridge-surprise", 10)] == expected["bridges"][:10]


def plain_pagerank(ids, edges, alpha=0.85, rounds=300):
    weight = Counter((e["source"], e["target"]) for e in edges
                     if e["type"] in analyse.DEPENDENCY_TYPES and e["source"] != e["target"])
    out = Counter()
    for (s, _), w in weight.items():
        out[s] += w
    n = len(ids)
    rank = dict.fromkeys(ids, 1.0 / n)
    for _ in range(rounds):
        dangling = sum(rank[i] for i in ids if out[i] == 0)
        new = dict.fromkeys(ids, (1 - alpha) / n + alpha * dangling / n)
        for (s, t), w in weight.items():
            new[t] += alpha * rank[s] * w / out[s]
        rank = new
    return rank


def test_real_pagerank_matches_plain_power_iteration(real, expected, edges_file):
    want = plain_pagerank(expected["ids"], edges_file["edges"])
    got = {i: s.pagerank for i, s in real.systems.items()}
    assert max(abs(got[i] - want[i]) for i in got) < 1e-7  # networkx stops at a total error of n * 1e-10
    top = sorted(want, key=lambda i: (-want[i], i))[:10]
    assert [s.id for s in real.ranked("pagerank", 10)] == top


def test_real_blast_radius_matches_reverse_search(real, expected, edges_file):
    dependants: dict[str, set[str]] = {i: set() for i in expected["ids"]}
    for e in edges_file["edges"]:
        if e["type"] in analyse.BLAST_TYPES and e["source"] != e["target"]:
            dependants[e["target"]].add(e["source"])
    for node in expected["ids"]:
        seen, todo = set(), [node]
        while todo:
            for d in dependants[todo.pop()]:
                if d not in seen and d != node:
                    seen.add(d)
                    todo.append(d)
        assert real.systems[node].blast_radius == len(seen), node


def test_backends_agree_on_the_real_catalog(bundled_store):
    if not HAS_IGRAPH:
        pytest.skip("igraph not installed")
    a = analyse.analyze(bundled_store, ["betweenness", "coreness"], backend="networkx")
    b = analyse.analyze(bundled_store, ["betweenness", "coreness"], backend="igraph")
    assert a.nucleus == b.nucleus
    assert all(abs(a.systems[i].betweenness - b.systems[i].betweenness) < 1e-12 for i in a.systems)


def test_real_plot_is_a_full_size_png(real, tmp_path):
    image = pytest.importorskip("matplotlib.image")
    path = analyse.plot(real, tmp_path / "centrality.png", top=20)
    pixels = image.imread(path)
    assert pixels.shape[:2] == (1155, 2200)
    assert pixels.std() > 0.05  # not a blank canvas


# ---------------------------------------------------------------------------
# Pure measures on small hand-checked graphs


@pytest.mark.parametrize("backend", BACKENDS)
def test_betweenness_on_path_and_star(backend):
    assert analyse.betweenness(nx.path_graph(4), backend=backend) == {0: 0.0, 1: 2.0, 2: 2.0, 3: 0.0}
    star = nx.star_graph(3)  # centre 0 sits on the 3 leaf-leaf paths
    assert analyse.betweenness(star, backend=backend) == {0: 3.0, 1: 0.0, 2: 0.0, 3: 0.0}
    square = nx.cycle_graph(4)  # two shortest paths between opposite corners: half each
    assert analyse.betweenness(square, backend=backend) == {0: 0.5, 1: 0.5, 2: 0.5, 3: 0.5}


def test_scale_by_max():
    assert analyse.scale_by_max({"a": 4.0, "b": 1.0, "c": 0.0}) == {"a": 1.0, "b": 0.25, "c": 0.0}
    assert analyse.scale_by_max({"a": 0.0}) == {"a": 0.0}


@pytest.mark.parametrize("backend", BACKENDS)
def test_core_numbers_triangle_pendant_isolated(backend):
    g = nx.Graph([("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")])
    g.add_node("e")
    assert analyse.core_numbers(g, backend=backend) == {"a": 2, "b": 2, "c": 2, "d": 1, "e": 0}
    k4 = nx.complete_graph(4)
    assert set(analyse.core_numbers(k4, backend=backend).values()) == {3}


def test_nucleus_order_and_empty():
    cores = {"a": 2, "b": 2, "c": 2, "d": 1}
    assert analyse.nucleus(cores, {"a": 0.0, "b": 0.0, "c": 1.0, "d": 0.5}) == ["c", "a", "b"]
    assert analyse.nucleus({"a": 0, "b": 0}, {}) == []


def test_competition_ranks():
    assert analyse.competition_ranks({"x": 5, "y": 5, "z": 2, "w": 0}) == {"x": 1, "y": 1, "z": 3, "w": 4}
    # float noise does not break a tie
    assert analyse.competition_ranks({"p": 0.1 + 0.2, "q": 0.3}) == {"p": 1, "q": 1}


def test_bridge_surprise_by_hand():
    inbound = {"hub": 5, "b": 0, "c": 1, "d": 1, "e": 0}
    bw = {"hub": 1.0, "b": 0.5, "c": 0.5, "d": 0.0, "e": 0.0}
    # inbound ranks: hub 1, c 2, d 2, b 4, e 4; betweenness ranks: hub 1, b 2, c 2, d 4, e 4
    surprise, listed = analyse.bridge_surprise(inbound, bw)
    assert surprise == {"hub": 0, "b": 2, "c": 0, "d": -2, "e": 0}
    assert listed == ["b"]
    # ties in surprise: betweenness decides, then id
    surprise, listed = analyse.bridge_surprise({"x": 0, "y": 0, "z": 0, "h": 9, "g": 8},
                                               {"x": 0.2, "y": 0.4, "z": 0.2, "h": 0.0, "g": 0.0})
    assert listed == ["y", "x", "z"]


def test_pagerank_by_hand():
    # a -> b <- c, b dangling: p_a = p_c = x, p_b = y, x = 0.05 + 0.85 y / 3, 2x + y = 1
    pr = analyse.pagerank(nx.DiGraph([("a", "b"), ("c", "b")]))
    y = 0.9 / (1 + 2 * 0.85 / 3)
    assert pr["b"] == pytest.approx(y, abs=1e-9)
    assert pr["a"] == pytest.approx((1 - y) / 2, abs=1e-9)
    assert pr["c"] == pytest.approx(pr["a"], abs=1e-9)
    weighted = nx.DiGraph()
    weighted.add_edge("s", "heavy", weight=3)
    weighted.add_edge("s", "light", weight=1)
    pr = analyse.pagerank(weighted)
    assert pr["heavy"] > pr["light"] > pr["s"]
    assert analyse.pagerank(nx.DiGraph()) == {}


def test_communities_split_two_triangles_deterministically():
    g = nx.Graph([("a", "b"), ("b", "c"), ("c", "a"), ("d", "e"), ("e", "f"), ("f", "d"), ("c", "d")])
    g.add_node("z")
    found = analyse.communities(g)
    assert found == {"a": 1, "b": 1, "c": 1, "d": 2, "e": 2, "f": 2, "z": 3}
    assert analyse.communities(g) == found


def test_components_numbered_by_size_then_smallest_member():
    g = nx.Graph([("x", "y"), ("a", "b"), ("b", "c")])
    g.add_node("q")
    assert analyse.components(g) == {"a": 1, "b": 1, "c": 1, "x": 2, "y": 2, "q": 3}
    d = nx.DiGraph([("a", "b"), ("c", "b")])
    assert set(analyse.components(d).values()) == {1}


def test_blast_radius_with_a_cycle():
    # app -> lib: app depends on lib; lib and core depend on each other
    g = nx.DiGraph([("app", "lib"), ("lib", "core"), ("core", "lib"), ("tool", "core")])
    g.add_node("alone")
    assert analyse.blast_radius(g) == {"app": 0, "lib": 3, "core": 3, "tool": 0, "alone": 0}


@pytest.mark.parametrize("seed", range(5))
def test_blast_radius_equals_ancestor_count_on_random_graphs(seed):
    g = nx.gnm_random_graph(60, 110, seed=seed, directed=True)
    assert analyse.blast_radius(g) == {v: len(nx.ancestors(g, v)) for v in g}


@pytest.mark.parametrize("backend", BACKENDS)
def test_sampled_betweenness(backend):
    g = nx.barabasi_albert_graph(300, 2, seed=7)
    exact = analyse.betweenness(g, backend="networkx")
    assert analyse.betweenness(g, sample=300, backend=backend) == pytest.approx(exact)
    estimate = analyse.betweenness(g, sample=100, backend=backend)
    assert estimate == analyse.betweenness(g, sample=100, backend=backend)  # fixed seed
    # NetworkX's own estimator draws the same pivots and gives the same numbers
    nx_estimate = nx.betweenness_centrality(g, k=100, normalized=False, seed=random.Random(analyse.SEED))
    assert max(abs(estimate[v] - nx_estimate[v]) for v in g) < 1e-6
    top = max(exact.values())
    assert max(abs(estimate[v] - exact[v]) for v in g) / top < 0.15
    assert max(exact, key=exact.get) == max(estimate, key=estimate.get)
    with pytest.raises(UsageError):
        analyse.betweenness(g, sample=0, backend=backend)


def test_unknown_names_are_usage_errors():
    with pytest.raises(UsageError):
        analyse.betweenness(nx.DiGraph([(1, 2)]))
    with pytest.raises(UsageError):
        analyse.blast_radius(nx.Graph([(1, 2)]))
    with pytest.raises(UsageError):
        analyse.core_numbers(nx.Graph(), backend="graph-tool")


# ---------------------------------------------------------------------------
# A tiny store, built from JSON through the real ingest

TAXONOMY = {axis: [{"value": "vector", "primary": True, "reason": None}]
            for axis in ("storage", "retrieval", "persistence", "update", "unit", "governance", "conflict")}


def _record(rid, url, section, licence=None, mcp=None):
    cells = {}
    if licence:
        cells["license"] = {"value": licence, "citation": None, "status": "real-data", "tier": "T2"}
    if mcp:
        cells["mcp-support"] = {"value": mcp, "citation": None, "status": "real-data", "tier": "T2"}
    return {"id": rid, "name": rid.upper(), "tier": 2, "url": url, "last_verified_at": "2026-05-14",
            "sections": [{"section": section, "subsection": None, "primary": True, "reason": None}],
            "taxonomy": TAXONOMY, "cells": cells}


TINY_RECORDS = [
    _record("a", "https://a.example.com/", "Apps", "MIT", "yes — native MCP server"),
    _record("b", "https://b.example.com/", "Apps", "Apache-2.0", "no"),
    _record("c", "https://c.org/", "Databases", "proprietary"),
    _record("d", "https://github.com/acme/d", "Libraries"),
    _record("e", None, "Papers"),
    _record("f", "https://github.com/acme/f", "Libraries"),
]


def _edge(source, target, edge_type):
    return {"source": source, "target": target, "type": edge_type, "evidence": "test"}


TINY_EDGES = [
    _edge("a", "b", "runtime-dependency"), _edge("a", "b", "integrates-with"),  # parallel
    _edge("b", "a", "cites"),  # reverse
    _edge("b", "c", "built-on"), _edge("c", "a", "extends"), _edge("d", "c", "runtime-dependency"),
    _edge("f", "d", "forks"), _edge("a", "ghost", "cites"),  # ghost is not a record
]


def _tiny_batches():
    return [read_text(json.dumps({"records": TINY_RECORDS}), "records.json"),
            read_text(json.dumps({"edges": TINY_EDGES}), "edges.json")]


@pytest.fixture()
def tiny() -> GraphStore:
    store = GraphStore()
    report = ingest_batches(store, _tiny_batches())
    assert (report.records, report.edges, report.quarantined) == (6, 8, [])
    return store


def test_system_graph_undirected_collapses_parallel_and_reverse_edges(tiny):
    g = analyse.system_graph(tiny)
    assert sorted(g) == ["a", "b", "c", "d", "e", "f"]
    assert sorted(tuple(sorted(e)) for e in g.edges()) == [("a", "b"), ("a", "c"), ("b", "c"), ("c", "d"), ("d", "f")]
    assert g.edges["a", "b"]["weight"] == 3
    assert sorted(g.edges["a", "b"]["types"]) == ["cites", "integrates-with", "runtime-dependency"]
    assert g.nodes["c"] == {"kind": "system", "name": "C", "section": "Databases", "vendor": "c.org"}


def test_system_graph_directed_and_by_type(tiny):
    d = analyse.system_graph(tiny, directed=True)
    assert d.has_edge("a", "b") and d.has_edge("b", "a")
    assert d.edges["a", "b"]["weight"] == 2 and d.edges["b", "a"]["types"] == ["cites"]
    cites = analyse.system_graph(tiny, ["cites"])
    assert list(cites.edges()) == [("a", "b")]  # a -> ghost is dropped
    with pytest.raises(UsageError):
        analyse.system_graph(tiny, ["depends-on"])


def test_vendor_graph_folds_systems_into_vendors(tiny):
    v = analyse.vendor_graph(tiny)
    assert sorted(v) == ["c.org", "example.com", "github.com/acme"]  # e has no vendor
    assert v.nodes["example.com"]["systems"] == 2 and v.nodes["example.com"]["internal"] == 3
    assert v.nodes["github.com/acme"]["internal"] == 1
    assert v.edges["example.com", "c.org"]["weight"] == 2  # b -> c, c -> a
    assert v.edges["c.org", "github.com/acme"]["weight"] == 1
    assert v.number_of_edges() == 2


def test_bipartite_protocol_and_license_graphs(tiny):
    p = analyse.protocol_graph(tiny)
    assert [(s, t, m) for s, t, m in p.edges(data="mode")] == [("a", KG.MCP.value, "native")]
    assert p.nodes[KG.MCP.value]["label"] == "Model Context Protocol (MCP)"
    assert {n for n, d in p.nodes(data="bipartite") if d == 0} == set("abcdef")
    everything = analyse.protocol_graph(tiny, modes=("native", "none"))
    assert sorted(everything.edges(data="mode")) == [("a", KG.MCP.value, "native"), ("b", KG.MCP.value, "none")]
    lic = analyse.license_graph(tiny)
    pairs = sorted((s, lic.nodes[t]["label"], lic.nodes[t]["osi_approved"]) for s, t in lic.edges())
    assert pairs == [("a", "MIT", True), ("b", "Apache-2.0", True), ("c", "Proprietary", False)]


def test_analyze_tiny_store_by_hand(tiny):
    a = analyse.analyze(tiny, backend="networkx")
    s = a.systems
    assert (a.node_count, a.adjacency_count, a.edge_count) == (6, 5, 7)
    # c joins {a, b} to {d, f}: 4 pairs; d joins f to {a, b, c}: 3 pairs
    assert {i: r.betweenness_raw for i, r in s.items()} == {"a": 0, "b": 0, "c": 4, "d": 3, "e": 0, "f": 0}
    assert s["d"].betweenness == 0.75
    assert {i: r.coreness for i, r in s.items()} == {"a": 2, "b": 2, "c": 2, "d": 1, "e": 0, "f": 1}
    assert a.nucleus == ["c", "a", "b"] and a.coreness_distribution == {0: 1, 1: 2, 2: 3}
    assert {i: r.inbound for i, r in s.items()} == {"a": 2, "b": 2, "c": 2, "d": 1, "e": 0, "f": 0}
    assert {i: r.outbound for i, r in s.items()} == {"a": 3, "b": 2, "c": 1, "d": 1, "e": 0, "f": 1}
    assert s["b"].inbound_by_type == {"integrates-with": 1, "runtime-dependency": 1}
    assert s["a"].outbound_by_type == {"cites": 1, "integrates-with": 1, "runtime-dependency": 1}
    assert {i: r.bridge_surprise for i, r in s.items()} == {"a": -2, "b": -2, "c": 0, "d": 2, "e": 2, "f": 2}
    assert a.bridge_surprises == ["d"]
    # runtime-dependency edges only (a -> b, d -> c): b's built-on edge to c is not a dependency
    assert {i: r.blast_radius for i, r in s.items()} == {"a": 0, "b": 1, "c": 1, "d": 0, "e": 0, "f": 0}
    assert {i: r.component for i, r in s.items()} == {"a": 1, "b": 1, "c": 1, "d": 1, "e": 2, "f": 1}
    edges = [e for e in TINY_EDGES if e["target"] != "ghost"]
    want = plain_pagerank(sorted(s), edges)
    assert {i: r.pagerank for i, r in s.items()} == pytest.approx(want, abs=1e-9)
    assert [r.id for r in a.ranked("betweenness", 2)] == ["c", "d"]


def test_edges_of_a_type_the_vocabulary_does_not_know_still_count():
    store = GraphStore()
    records = [_record("p", "https://p.example.com/", "Apps"), _record("q", "https://q.example.com/", "Apps")]
    ingest_batches(store, [read_text(json.dumps({"records": records}), "r.json"),
                           read_text(json.dumps({"edges": [_edge("p", "q", "mentions")]}), "e.json")])
    a = analyse.analyze(store, ["inbound", "betweenness"])
    assert (a.adjacency_count, a.edge_count, a.edge_types) == (1, 1, ("mentions",))
    assert a.systems["q"].inbound_by_type == {"mentions": 1}
    assert analyse.system_graph(store, []).number_of_edges() == 1  # no types given: all of them


def test_analyze_measure_subset_and_top(tiny):
    a = analyse.analyze(tiny, ["coreness"], top=2)
    assert a.measures == ("coreness",)
    assert a.systems["a"].betweenness is None and a.systems["a"].pagerank is None
    assert a.nucleus == ["c", "a", "b"]  # without betweenness: by neighbours (c has 3), then id
    assert [r.id for r in a.ranked()] == ["a", "b"]
    assert len(a.as_json()["systems"]) == 2
    with pytest.raises(UsageError):
        analyse.analyze(tiny, ["closeness"])
    with pytest.raises(UsageError):
        a.ranked("pagerank")


def test_write_back_replaces_the_analysis_graph(tiny):
    iris = Iris()
    a = analyse.analyze(tiny)
    analyse.write_back(tiny, a, iris)
    rows = list(queries.run(tiny, "select-analysis-ranking", {"minCoreness": "2"}, iris))
    assert [(r["id"].value, float(r["betweenness"].value)) for r in rows] == [("c", 1.0), ("a", 0.0), ("b", 0.0)]
    assert int(rows[0]["blastRadius"].value) == 1  # d runtime-depends on c
    # the analysis graph does not feed back into the projection
    assert analyse.analyze(tiny).systems["c"].betweenness_raw == 4
    analyse.write_back(tiny, analyse.analyze(tiny, ["coreness"]), iris)
    stored = list(tiny.quads(iris.analysis_graph))
    assert {q.predicate.value for q in stored} == {KG.coreness.value, "http://www.w3.org/2000/01/rdf-schema#comment"}
    assert len(stored) == 7
    assert list(queries.run(tiny, "select-analysis-ranking", {}, iris)) == []


# ---------------------------------------------------------------------------
# The command line


@pytest.fixture()
def tiny_dir(tmp_path) -> str:
    (tmp_path / "records.json").write_text(json.dumps({"records": TINY_RECORDS}))
    (tmp_path / "edges.json").write_text(json.dumps({"edges": TINY_EDGES}))
    store = str(tmp_path / "store")
    assert main(["ingest", str(tmp_path / "records.json"), str(tmp_path / "edges.json"), "--store", store]) == 0
    return store


def test_cli_table(tiny_dir, capsys):
    assert main(["analyze", "--store", tiny_dir, "--backend", "networkx"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("6 systems, 5 adjacencies (7 edges); betweenness exact (networkx)")
    assert "coreness: max 2 (0: 1, 1: 2, 2: 3); nucleus: 3 systems" in out
    table = out.split("top 6 by betweenness:\n", 1)[1].splitlines()
    assert table[0].split()[:3] == ["rank", "name", "betweenness"]
    assert table[1].split()[-1] == "c" and table[2].split()[-1] == "d"


def test_cli_csv_and_json(tiny_dir, capsys):
    assert main(["analyze", "--store", tiny_dir, "-m", "bridge-surprise", "-m", "inbound", "-f", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["id"], r["bridge-surprise"], r["inbound"]) for r in rows] == [("d", "2", "1")]
    assert main(["analyze", "--store", tiny_dir, "--format", "json", "--top", "3"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["graph"]["nucleus"] == ["c", "a", "b"] and data["graph"]["adjacencies"] == 5
    assert [s["id"] for s in data["systems"]] == ["c", "d", "a"]
    assert {"betweenness", "coreness", "pagerank", "inbound", "inboundByType", "bridgeSurprise",
            "community", "component", "blastRadius"} <= set(data["systems"][0])


def test_cli_plot_and_write_back(tiny_dir, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    png = tmp_path / "out.png"
    assert main(["analyze", "--store", tiny_dir, "--plot", str(png), "--write-back", "--sample", "3"]) == 0
    err = capsys.readouterr().err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and "wrote plot" in err
    assert "triples to graph" in err
    store = GraphStore(tiny_dir)
    assert len(list(store.quads(Iris().analysis_graph))) > 6


def test_cli_errors(tiny_dir, tmp_path, capsys):
    assert main(["analyze", "--store", tiny_dir, "--top", "0"]) == 2
    assert main(["analyze", "--store", str(tmp_path / "nowhere")]) == 4
    with pytest.raises(SystemExit) as stop:
        main(["analyze", "--store", tiny_dir, "--measure", "closeness"])
    assert stop.value.code == 2
