"""The scripts in examples/ run on the bundled catalog and print the right answers.

Each script runs in a fresh process, as a user would run it. The first one builds the
store itself (it does not exist yet); the others reuse it. The expected answers are
computed here from the JSON files with plain Python and NetworkX, not through the
store or SPARQL. Where the catalog's text must be read (a vendor from a URL, a
protocol support mode from a cell), the test applies the same documented normalising
functions (``kg.normalise``) to the JSON directly.
"""

from __future__ import annotations

import re
import struct
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import networkx as nx
import pytest

from kg import normalise

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
CLAUDE = "anthropic-claude-foundation-models--anthropic-com"
GPT = "openai-gpt-family-gpt-5-gpt-4o-o3-o4--openai-com"
RESEARCH = {"Recent method papers — theorized, no distinct product", "Memory benchmarks & evaluation",
            "Theoretical / informal — ideas without a paper"}


def run(script: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, str(EXAMPLES / script), *args], cwd=cwd, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done


def primary_section(record: dict) -> str:
    if isinstance(record.get("section"), str):  # the per-system export shape (seed record)
        return record["section"]
    return next(s["section"] for s in record["sections"] if s.get("primary"))


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("examples")


@pytest.fixture(scope="module")
def blast_output(workdir) -> str:
    """The first script run: it builds ./kg-store, which does not exist yet."""
    assert not (workdir / "kg-store").exists()
    done = run("blast_radius.py", cwd=workdir)
    assert (workdir / "kg-store").is_dir()
    return done.stdout


def test_every_example_uses_only_the_public_api():
    scripts = sorted(EXAMPLES.glob("*.py"))
    assert len(scripts) >= 3
    for script in scripts:
        text = script.read_text(encoding="utf-8")
        assert re.search(r"^import kg$", text, re.MULTILINE), script.name
        assert not re.search(r"^\s*(from kg[. ]|import kg\.)", text, re.MULTILINE), script.name
        assert '"""' in text.splitlines()[0], f"{script.name} starts with a docstring"
        help_text = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True,
                                   timeout=120)
        assert help_text.returncode == 0 and "--store" in help_text.stdout, script.name


# ---------------------------------------------------------------------------
# (a) blast radius


def expected_dependants(edges_file, records, target: str) -> dict[str, int]:
    graph = nx.DiGraph()
    for edge in edges_file["edges"]:
        if (edge["type"] == "runtime-dependency" and edge["source"] != edge["target"]
                and edge["source"] in records and edge["target"] in records):
            graph.add_edge(edge["source"], edge["target"])
    reverse = graph.reverse()
    lengths = nx.single_source_shortest_path_length(reverse, target)
    return {node: hops for node, hops in lengths.items() if node != target}


def parse_blast(text: str) -> dict[str, dict]:
    """target id -> {"name", "total", "direct", "rows": {id: (hops, name)}}."""
    found: dict[str, dict] = {}
    current = None
    for line in text.splitlines():
        head = re.fullmatch(r"(.+) \(([a-z0-9-]+)\)", line)
        if head and not line.startswith(" "):
            current = found.setdefault(head.group(2), {"name": head.group(1), "rows": {}})
            continue
        counts = re.fullmatch(r"(\d+) systems depend on it \((\d+) directly, (\d+) through others\)", line)
        if counts:
            current["total"], current["direct"], current["indirect"] = map(int, counts.groups())
            continue
        row = re.fullmatch(r"\s*(\d+)  (\S+)\s+(.+?)(?:  \(via (.+)\))?", line)
        if row:
            current["rows"][row.group(2)] = (int(row.group(1)), row.group(3), row.group(4))
    return found


def test_blast_radius_of_claude_and_gpt(blast_output, edges_file, expected_records):
    found = parse_blast(blast_output)
    assert set(found) == {CLAUDE, GPT}
    for target in (CLAUDE, GPT):
        expected = expected_dependants(edges_file, expected_records, target)
        got = found[target]
        assert got["name"] == expected_records[target]["name"]
        assert {node: row[0] for node, row in got["rows"].items()} == expected
        assert got["total"] == len(expected)
        assert got["direct"] == sum(1 for hops in expected.values() if hops == 1)
        for node, (hops, name, via) in got["rows"].items():
            assert name == expected_records[node]["name"]
            assert (via is None) == (hops == 1)
    # the real numbers, so that a change in the data is noticed
    assert (found[CLAUDE]["total"], found[CLAUDE]["direct"]) == (62, 62)
    assert (found[GPT]["total"], found[GPT]["direct"]) == (51, 49)
    # rows are nearest first
    hops = [row[0] for row in found[GPT]["rows"].values()]
    assert hops == sorted(hops)


def test_blast_radius_with_other_edge_types_and_top(blast_output, workdir, edges_file, expected_records):
    done = run("blast_radius.py", "mem0--mem0-ai", "--edge-type", "built-on", "--edge-type", "runtime-dependency",
               "--top", "3", cwd=workdir)
    graph = nx.DiGraph()
    for edge in edges_file["edges"]:
        if edge["type"] in ("built-on", "runtime-dependency") and edge["source"] != edge["target"] \
                and edge["source"] in expected_records and edge["target"] in expected_records:
            graph.add_edge(edge["source"], edge["target"])
    expected = nx.ancestors(graph, "mem0--mem0-ai")
    got = parse_blast(done.stdout)["mem0--mem0-ai"]
    assert got["total"] == len(expected) and len(got["rows"]) == 3
    assert set(got["rows"]) <= expected
    assert f"({len(expected) - 3} more)" in done.stdout


def test_blast_radius_of_an_unknown_id_fails_cleanly(blast_output, workdir):
    done = subprocess.run([sys.executable, str(EXAMPLES / "blast_radius.py"), "no-such-system"], cwd=workdir,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "no system 'no-such-system'" in done.stderr


# ---------------------------------------------------------------------------
# (b) vendors that bridge research and product


def vendor_key(record: dict) -> str | None:
    cells = record.get("cells") or {}
    owner = None
    gh = cells.get("gh")
    if gh and isinstance(gh.get("value"), str):
        citation = gh.get("citation") if isinstance(gh.get("citation"), str) else None
        repo = normalise.github_repo(gh["value"], citation)
        owner = repo[0] if repo else None
    info = normalise.vendor_of(record.get("url") if isinstance(record.get("url"), str) else None, owner)
    return info.key if info else None


def test_bridging_vendors(blast_output, workdir, edges_file, expected_records):
    done = run("bridging_vendors.py", "--top", "15", cwd=workdir)
    vendor = {rid: vendor_key(r) for rid, r in expected_records.items()}
    sides: dict[str, Counter] = defaultdict(Counter)
    for rid, record in expected_records.items():
        if vendor[rid]:
            sides[vendor[rid]]["research" if primary_section(record) in RESEARCH else "product"] += 1
    graph = nx.Graph()
    graph.add_nodes_from(sides)
    for edge in edges_file["edges"]:
        a, b = vendor.get(edge["source"]), vendor.get(edge["target"])
        if a and b and a != b and edge["source"] != edge["target"]:
            graph.add_edge(a, b)
    side = {v: "research" if c["research"] > c["product"] else "product" for v, c in sides.items()}
    research = [v for v in graph if side[v] == "research"]
    product = [v for v in graph if side[v] == "product"]
    score = nx.betweenness_centrality_subset(graph, sources=research, targets=product, normalized=False)
    ranked = sorted((v for v in graph if score[v] > 0), key=lambda v: (-round(score[v], 9), v))

    lines = done.stdout.splitlines()
    assert lines[0] == (f"{graph.number_of_nodes()} vendors ({len(research)} research side, "
                        f"{len(product)} product side), {graph.number_of_edges()} vendor links")
    linked = sum(1 for v in graph if graph.degree(v))
    assert f"among the {linked} linked vendors" in lines[1]
    rows = [re.fullmatch(r"\s*([\d.]+)\s+(\d+)/(\d+)\s+(\d+)/(\d+)\s+(.+)", line) for line in lines]
    rows = [m for m in rows if m]
    assert len(rows) == 15
    for m, key in zip(rows, ranked):
        shown_key = re.search(r"\(([^()]+)\)$", m.group(6))
        assert (shown_key.group(1) if shown_key else m.group(6)) == key
        assert float(m.group(1)) == pytest.approx(score[key], abs=0.051)
        assert (int(m.group(2)), int(m.group(3))) == (sides[key]["research"], sides[key]["product"])
        around = Counter(side[n] for n in graph[key])
        assert (int(m.group(4)), int(m.group(5))) == (around["research"], around["product"])
    assert f"({len(ranked) - 15} more vendors" in done.stdout
    # a bridge touches both sides, and the two model providers are among the top bridges
    assert {"openai.com", "anthropic.com"} <= set(ranked[:15])


# ---------------------------------------------------------------------------
# (c) protocol adoption by tier and section, as a chart


def expected_adoption(records: dict) -> tuple[dict, dict]:
    from kg.mapping import PROTOCOL_COLUMNS  # which cell says what about which protocol

    by_tier: dict = defaultdict(Counter)
    by_section: dict = defaultdict(Counter)
    for record in records.values():
        cells = record.get("cells") or {}
        modes = {}
        for column, protocol in PROTOCOL_COLUMNS.items():
            cell = cells.get(column)
            if cell and isinstance(cell.get("value"), str):
                modes[protocol] = normalise.protocol_mode(cell["value"], cell.get("status") or "")
        combined = cells.get("protocol-support")
        if combined and isinstance(combined.get("value"), str) and combined.get("status") in ("real-data", "estimate"):
            for protocol, mode in normalise.protocols_in_support_cell(combined["value"]).items():
                if modes.get(protocol, "unknown") == "unknown":
                    modes[protocol] = mode
        for group in (by_tier[int(record["tier"])], by_section[primary_section(record)]):
            group["systems"] += 1
            for protocol, mode in modes.items():
                if mode in ("native", "adapter", "client"):
                    group[protocol] += 1
    return by_tier, by_section


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_protocol_adoption_tables_and_chart(blast_output, workdir, expected_records):
    chart = workdir / "adoption.png"
    done = run("protocol_adoption.py", "--out", str(chart), cwd=workdir)
    by_tier, by_section = expected_adoption(expected_records)
    row = re.compile(r"(.+?)\s+(\d+)\s+(\d+)\s+[\d.]+%\s+(\d+)\s+[\d.]+%\s+(\d+)\s+[\d.]+%")
    tiers, sections = {}, {}
    target = tiers
    for line in done.stdout.splitlines():
        if line.startswith("by primary section"):
            target = sections
        m = row.fullmatch(line)
        if m:
            target[m.group(1)] = tuple(int(g) for g in m.groups()[1:])
    assert {int(name.split()[0][1:]): counts for name, counts in tiers.items()} == {
        tier: (c["systems"], c["mcp"], c["a2a"], c["opentelemetry"]) for tier, c in by_tier.items()}
    assert sections == {name: (c["systems"], c["mcp"], c["a2a"], c["opentelemetry"])
                        for name, c in by_section.items()}
    assert sum(c[0] for c in tiers.values()) == len(expected_records) == 912
    mcp_shares = [counts[1] / counts[0] for counts in sections.values()]
    assert mcp_shares == sorted(mcp_shares, reverse=True)
    assert f"wrote {chart}" in done.stderr
    assert png_size(chart) == (1500, 1100)
    assert chart.stat().st_size > 50_000  # bars, a 34-row heat map and their labels, not an empty canvas


# ---------------------------------------------------------------------------
# (d) find as a DataFrame


def test_find_frame_counts_by_section_and_tier(blast_output, workdir, expected_records):
    """kg.query(store, "find").to_pandas() in a script: the counts it prints are the JSON's."""
    pytest.importorskip("pandas")
    done = run("find_frame.py", "--top", "3", cwd=workdir)
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"{len(expected_records)} systems; ")
    sections = Counter(primary_section(r) for r in expected_records.values())
    top = sorted(sections.items(), key=lambda kv: -kv[1])[:3]
    shown = [(int(line.split()[0]), line.split("  ")[-1].strip()) for line in lines[2:5]]
    assert [n for n, _ in shown] == [n for _, n in top]
    assert all(sections[name] == n for n, name in shown)
    tiers = Counter(r["tier"] for r in expected_records.values())
    assert lines[5] == "by tier: " + ", ".join(f"{t}: {tiers[t]}" for t in sorted(tiers))
