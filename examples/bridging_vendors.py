"""Which vendors bridge the research and the product sides of the landscape?

Definitions used here (change them to ask a different question):

* a system is **research** when its primary section is one of papers, benchmarks
  or theory (``RESEARCH_SECTIONS`` below: "Recent method papers ...", "Memory
  benchmarks & evaluation", "Theoretical / informal ..."); every other system is
  **product**;
* a vendor is on the research side when most of its systems are research, else on
  the product side;
* the **vendor graph** folds systems into their vendors: two vendors are linked when
  a system of one has an edge (any type) to a system of the other;
* a vendor's **bridge score** is its betweenness restricted to research -> product
  pairs: the sum, over every pair of a research-side vendor and a product-side
  vendor, of the share of their shortest paths that pass through it
  (``networkx.betweenness_centrality_subset``). A vendor with a high score is a
  crossing point between the two sides.

For each bridge the script prints its systems on each side and its neighbours on
each side. As context it first splits the linked vendors into communities (Louvain,
fixed seed), each called research or product by the majority of its vendors'
systems: the clusters that the bridges connect.

    python examples/bridging_vendors.py --store ./kg-store --top 15

A checkout script: it ships in the repository and the source distribution, not in the
wheel; run it from a checkout with any installed kg (docs/guide/examples.md).

Only the public API is used (``import kg``): ``kg.vendor_graph`` and
``kg.system_graph``; the measures are NetworkX. The store is built from the bundled
catalog when it does not exist yet.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter

import networkx as nx

import kg

RESEARCH_SECTIONS = frozenset({
    "Recent method papers — theorized, no distinct product",
    "Memory benchmarks & evaluation",
    "Theoretical / informal — ideas without a paper",
})
SEED = 20261129


def vendor_sides(systems: nx.Graph) -> dict[str, Counter]:
    """vendor key -> Counter of its systems by side ("research", "product")."""
    sides: dict[str, Counter] = {}
    for _, data in systems.nodes(data=True):
        if data.get("vendor"):
            side = "research" if data.get("section") in RESEARCH_SECTIONS else "product"
            sides.setdefault(data["vendor"], Counter())[side] += 1
    return sides


def side_of(counts: Counter) -> str:
    return "research" if counts["research"] > counts["product"] else "product"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", default="kg-store", help="store directory (default ./kg-store; built if missing)")
    parser.add_argument("--top", type=int, default=15, help="how many bridges to list (default 15)")
    args = parser.parse_args(argv)

    store = kg.open_store(args.store, build=True, read_only=True)
    vendors = kg.vendor_graph(store)
    sides = vendor_sides(kg.system_graph(store))
    side = {vendor: side_of(sides[vendor]) for vendor in vendors}
    research = [v for v in vendors if side[v] == "research"]
    product = [v for v in vendors if side[v] == "product"]
    score = nx.betweenness_centrality_subset(vendors, sources=research, targets=product, normalized=False)

    linked = vendors.subgraph([v for v in vendors if vendors.degree(v)]).copy()
    groups = nx.community.louvain_communities(linked, seed=SEED)
    kind = []
    for members in groups:
        tally = sum((sides[vendor] for vendor in members), Counter())
        kind.append("research" if tally["research"] > tally["product"] else "product")

    print(f"{vendors.number_of_nodes()} vendors ({len(research)} research side, {len(product)} product side), "
          f"{vendors.number_of_edges()} vendor links")
    print(f"{len(groups)} communities among the {linked.number_of_nodes()} linked vendors: "
          f"{kind.count('research')} research, {kind.count('product')} product")
    print("bridges: vendors on shortest research -> product paths, by bridge score\n")
    ranked = sorted((v for v in vendors if score[v] > 0), key=lambda v: (-round(score[v], 9), v))
    print(f"{'score':>7}  {'systems r/p':>11}  {'neighbours r/p':>14}  vendor")
    for vendor in ranked[: args.top]:
        mine = f"{sides[vendor]['research']}/{sides[vendor]['product']}"
        around = Counter(side[n] for n in vendors[vendor])
        theirs = f"{around['research']}/{around['product']}"
        label = vendors.nodes[vendor]["label"]
        name = vendor if label == vendor else f"{label} ({vendor})"
        print(f"{score[vendor]:>7.1f}  {mine:>11}  {theirs:>14}  {name}")
    if len(ranked) > args.top:
        print(f"    ...  ({len(ranked) - args.top} more vendors with a bridge score above 0)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
