"""Faceted search as a pandas DataFrame: open-source, self-hostable systems, counted by section and tier.

``kg.query`` gives a named query's rows as plain Python values (ints, booleans, dates,
strings); ``.to_pandas()`` makes them a DataFrame, one column a variable of the query.
This script asks ``find`` for the systems that match the facets given (every system
when none is), then prints how many there are per primary section and tier, and the
share of them that are open source.

    python examples/find_frame.py                                   # every system
    python examples/find_frame.py --facet open=true --facet selfhost=true --facet protocol=mcp
    python examples/find_frame.py --store ./kg-store --top 5

A checkout script: it ships in the repository and the source distribution, not in the
wheel; run it from a checkout with any installed kg (docs/guide/examples.md). It needs
pandas (``pip install 'agent-landscape-kg[pandas]'``). The store is built from the
bundled catalog when it does not exist yet.
"""

from __future__ import annotations

import argparse
import sys

import kg


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", default="kg-store", help="store directory (default ./kg-store; built if missing)")
    parser.add_argument("--facet", action="append", default=[], metavar="NAME=VALUE",
                        help="a facet of the find query (repeatable), e.g. open=true, protocol=mcp, tier=1")
    parser.add_argument("--top", type=int, default=10, help="the N sections with the most systems (default 10)")
    args = parser.parse_args(argv)
    facets = dict(item.split("=", 1) for item in args.facet)

    store = kg.open_store(args.store, build=True, read_only=True)
    frame = kg.query(store, "find", {"limit": "100000", **facets}).to_pandas()
    print(f"{len(frame)} systems; {int(frame['open_source'].sum())} open source")
    by_section = frame.groupby("primary_section").agg(systems=("id", "size"), open_source=("open_source", "mean"),
                                                     best_tier=("tier", "min"))
    by_section = by_section.sort_values(["systems", "best_tier"], ascending=[False, True]).head(args.top)
    print(f"{'systems':>7}  {'open':>5}  {'best tier':>9}  primary section")
    for section, systems, open_share, best_tier in by_section.itertuples():
        print(f"{systems:>7}  {open_share:>5.0%}  {best_tier:>9}  {section}")
    tiers = frame["tier"].value_counts().sort_index()
    print("by tier: " + ", ".join(f"{tier}: {count}" for tier, count in tiers.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
