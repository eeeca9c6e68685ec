"""Protocol adoption by tier and by primary section, as tables and a chart (PNG).

A system *supports* a protocol (MCP, A2A, OpenTelemetry) when the catalog reads its
support as native, through an adapter, or as a client; "none found", "not
applicable" and "unknown" do not count. Shares are of all the systems of the tier or
section; a last table (and the chart's footnote) shows, per protocol, how many systems the
catalog assessed (a finding in a researched cell) apart from those it never assessed (not
applicable, searched and not found): a low share can mean "not assessed", not "no support".

    python examples/protocol_adoption.py                          # writes protocol-adoption.png
    python examples/protocol_adoption.py --store ./kg-store --out adoption.png

A checkout script: it ships in the repository and the source distribution, not in the
wheel; run it from a checkout with any installed kg (docs/guide/examples.md).

The rows come from a query file of our own, ``protocol-support-by-system.rq`` (next
to this script), run with ``kg.query`` exactly like the bundled named queries (it
also works on the command line: ``kg query examples/protocol-support-by-system.rq``).
Only the public API is used (``import kg``); the chart needs matplotlib
(``pip install 'agent-landscape-kg[plot]'``). The store is built from the bundled catalog when it
does not exist yet.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

import kg

QUERY = Path(__file__).with_name("protocol-support-by-system.rq")
PROTOCOLS = {"mcp": "MCP", "a2a": "A2A", "opentelemetry": "OpenTelemetry"}
SUPPORTING = {"native", "adapter", "client"}
TIERS = {1: "battle-tested", 2: "established OSS", 3: "peer-reviewed", 4: "preprint", 5: "theoretical"}


ASSESSED: dict[str, dict[str, int]] = {}  # protocol -> {"assessed", "supporting", "not assessed"}


def adoption(store: kg.GraphStore) -> tuple[dict, dict]:
    """(by tier, by section): group -> {"systems": n, protocol: supporting systems}; fills ASSESSED."""
    tier_of, section_of, supports = {}, {}, defaultdict(set)
    ASSESSED.clear()
    for row in kg.query(store, str(QUERY)):  # rows of plain values: str, int (tier), bool (assessed)
        system = row["id"]
        tier_of[system], section_of[system] = row["tier"], row["section"]
        counts = ASSESSED.setdefault(row["protocol"], {"assessed": 0, "supporting": 0, "not assessed": 0})
        counts["assessed" if row["assessed"] else "not assessed"] += 1
        if row["mode"] in SUPPORTING:
            supports[system].add(row["protocol"])
            counts["supporting"] += 1
    by_tier: dict = defaultdict(lambda: dict.fromkeys(["systems", *PROTOCOLS], 0))
    by_section: dict = defaultdict(lambda: dict.fromkeys(["systems", *PROTOCOLS], 0))
    for system in tier_of:
        for group in (by_tier[tier_of[system]], by_section[section_of[system]]):
            group["systems"] += 1
            for protocol in supports[system]:
                group[protocol] += 1
    return dict(sorted(by_tier.items())), dict(by_section)


def share(group: dict, protocol: str) -> float:
    return group[protocol] / group["systems"] if group["systems"] else 0.0


def print_table(title: str, groups: dict, label) -> None:
    print(title)
    names = [label(key) for key in groups]
    width = max(len(n) for n in names)
    print(f"{'':<{width}}  systems  " + "  ".join(f"{name:>13}" for name in PROTOCOLS.values()))
    for name, group in zip(names, groups.values()):
        cells = "  ".join(f"{group[p]:>5} {share(group, p):>6.1%}" for p in PROTOCOLS)
        print(f"{name:<{width}}  {group['systems']:>7}  {cells}")


def draw(by_tier: dict, by_section: dict, path: Path) -> None:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        sys.exit("the chart needs matplotlib: pip install -e '.[plot]' (or pip install matplotlib)")

    figure = Figure(figsize=(15, 11), layout="constrained")
    left, right = figure.subplots(1, 2, width_ratios=[1, 1.15])
    colours = {"mcp": "#4477aa", "a2a": "#ee6677", "opentelemetry": "#228833"}

    width = 0.26
    for offset, protocol in enumerate(PROTOCOLS):
        xs = [tier + (offset - 1) * width for tier in by_tier]
        values = [100 * share(group, protocol) for group in by_tier.values()]
        bars = left.bar(xs, values, width, label=PROTOCOLS[protocol], color=colours[protocol])
        left.bar_label(bars, labels=[str(group[protocol]) for group in by_tier.values()], fontsize=8, padding=2)
    left.set_xticks(list(by_tier), [f"T{tier}\nn = {group['systems']}" for tier, group in by_tier.items()])
    left.set_xlabel("  ·  ".join(f"T{tier} {name}" for tier, name in TIERS.items()), fontsize=8)
    left.set_ylabel("systems supporting the protocol (% of the tier)")
    left.set_title("By tier (bar labels: number of systems)")
    left.legend()
    left.grid(axis="y", alpha=0.3)

    rows = sorted(by_section, key=lambda s: (share(by_section[s], "mcp"), by_section[s]["systems"]))
    grid = [[share(by_section[s], p) for p in PROTOCOLS] for s in rows]
    image = right.imshow(grid, aspect="auto", cmap="Blues", vmin=0, vmax=1)
    for y, section in enumerate(rows):
        for x, protocol in enumerate(PROTOCOLS):
            group = by_section[section]
            right.text(x, y, f"{group[protocol]}/{group['systems']}", ha="center", va="center", fontsize=7,
                       color="white" if share(group, protocol) > 0.6 else "black")
    right.set_xticks(range(len(PROTOCOLS)), list(PROTOCOLS.values()))
    right.set_yticks(range(len(rows)), [s if len(s) <= 48 else s[:47] + "…" for s in rows], fontsize=8)
    right.set_title("By primary section (supporting / systems), most MCP first")
    right.invert_yaxis()
    right.xaxis.tick_top()
    figure.colorbar(image, ax=right, label="share of the section's systems", shrink=0.5)
    figure.text(0.01, 0.005, "assessed vs not assessed (not applicable, searched and not found): " + "; ".join(
        f"{PROTOCOLS[p]} {ASSESSED[p]['supporting']} of {ASSESSED[p]['assessed']} assessed support it, "
        f"{ASSESSED[p]['not assessed']} not assessed" for p in PROTOCOLS if p in ASSESSED), fontsize=8)
    figure.suptitle("Protocol adoption in the AI Agent Infrastructure Landscape "
                    "(native, adapter or client support)\nData: AI Agent Infrastructure Landscape, CC-BY-4.0")
    figure.savefig(path, dpi=100)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", default="kg-store", help="store directory (default ./kg-store; built if missing)")
    parser.add_argument("--out", default="protocol-adoption.png", help="the chart (default protocol-adoption.png)")
    args = parser.parse_args(argv)

    store = kg.open_store(args.store, build=True, read_only=True)
    by_tier, by_section = adoption(store)
    print_table("by tier: systems supporting each protocol (native, adapter or client)",
                by_tier, lambda tier: f"T{tier} {TIERS[tier]}")
    print()
    ordered = dict(sorted(by_section.items(), key=lambda kv: (-share(kv[1], "mcp"), -kv[1]["systems"], kv[0])))
    print_table("by primary section, most MCP first", ordered, str)
    print()
    print("assessed apart: systems with a finding for the protocol, and those never assessed")
    for protocol, name in PROTOCOLS.items():
        c = ASSESSED.get(protocol, {"assessed": 0, "supporting": 0, "not assessed": 0})
        of = c["supporting"] / c["assessed"] if c["assessed"] else 0.0
        print(f"{name:<13}  {c['supporting']:>4} of {c['assessed']:>4} assessed support it ({of:.1%}); "
              f"{c['not assessed']:>4} not assessed")
    draw(by_tier, by_section, Path(args.out))
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
