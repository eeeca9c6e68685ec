"""Blast radius of a model provider: what depends on it, directly or through others.

If Anthropic changes Claude's terms, or OpenAI retires a GPT model, which systems of
the catalog are hit? A system is hit when it depends on the provider, or on a system
that is hit (the edges are read transitively). "Depends on" has one meaning in kg, the
catalog's: a ``runtime-dependency`` edge (the ``substrate-risk`` query and ``kg analyze``'s
blast-radius count the same dependants; ``--edge-type built-on`` adds what is built on it). The path length is the number of
edges on the shortest path to the provider: 1 means the system depends on it directly.

    python examples/blast_radius.py                       # Anthropic Claude and OpenAI GPT
    python examples/blast_radius.py mem0--mem0-ai --edge-type runtime-dependency
    python examples/blast_radius.py --store ./kg-store --top 10

A checkout script: it ships in the repository and the source distribution, not in the
wheel; run it from a checkout with any installed kg (docs/guide/examples.md).

Only the public API is used (``import kg``): ``kg.system_graph`` gives the systems and
their typed edges as a NetworkX graph; the rest is NetworkX. The store is built from
the bundled catalog when it does not exist yet.
"""

from __future__ import annotations

import argparse
import sys

import networkx as nx

import kg

DEPENDS_ON = ["runtime-dependency"]  # kg's one meaning of "depends on", the catalog's
PROVIDERS = [
    "anthropic-claude-foundation-models--anthropic-com",
    "openai-gpt-family-gpt-5-gpt-4o-o3-o4--openai-com",
]


def dependants(graph: nx.DiGraph, system: str) -> dict[str, int]:
    """Every system that reaches ``system`` along the edges (A -> B: A depends on B),
    with the length of its shortest path there."""
    lengths = nx.single_target_shortest_path_length(graph, system)
    return {node: hops for node, hops in dict(lengths).items() if node != system}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("systems", nargs="*", default=PROVIDERS, metavar="ID",
                        help="catalog ids (default: Anthropic Claude and OpenAI GPT)")
    parser.add_argument("--store", default="kg-store", help="store directory (default ./kg-store; built if missing)")
    parser.add_argument("--edge-type", action="append", metavar="TYPE",
                        help="edge types to follow (repeatable; default runtime-dependency, "
                             "kg's meaning of depends on)")
    parser.add_argument("--top", type=int, help="list only the nearest N dependants of each system")
    args = parser.parse_args(argv)

    store = kg.open_store(args.store, build=True, read_only=True)
    graph = kg.system_graph(store, args.edge_type or DEPENDS_ON, directed=True)
    for number, system in enumerate(args.systems):
        if system not in graph:
            print(f"no system {system!r} in the store (ids look like {PROVIDERS[0]})", file=sys.stderr)
            return 2
        found = dependants(graph, system)
        direct = sum(1 for hops in found.values() if hops == 1)
        rows = sorted(found.items(), key=lambda item: (item[1], graph.nodes[item[0]]["name"].lower(), item[0]))
        if number:
            print()
        print(f"{graph.nodes[system]['name']} ({system})")
        print(f"{len(found)} systems depend on it ({direct} directly, {len(found) - direct} through others)")
        print(f"{'hops':>4}  {'id':<58}  name")
        for node, hops in rows[: args.top]:
            via = ""
            if hops > 1:  # name the systems in between, on one shortest path
                path = nx.shortest_path(graph, node, system)
                via = "  (via " + " -> ".join(path[1:-1]) + ")"
            print(f"{hops:>4}  {node:<58}  {graph.nodes[node]['name']}{via}")
        if args.top is not None and len(rows) > args.top:
            print(f"   ...  ({len(rows) - args.top} more)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
