"""kg.normalise.protocols: protocol support modes and protocol-support cells."""

from __future__ import annotations

from collections import Counter

import pytest

from kg import normalise as nz
from kg.normalise import protocol_mode, protocols_in_support_cell

RD, NA, DF, ND = "real-data", "not-applicable", "depth-floor-reached", "no-data"


@pytest.mark.parametrize(
    ("text", "status", "mode"),
    [
        ("native (first-party)", RD, "native"),
        ("native (first-party MCP server)", RD, "native"),
        ("native (first-party) — Letta serves & consumes MCP", RD, "native"),
        ("native (first-party) — Mastra MCP server + client", RD, "native"),
        ("Yes — Galileo MCP Server documented; integrates with traces, prompts, datasets", RD, "native"),
        ("Browser Use MCP server (community + first-party)", RD, "native"),
        ("MCP support added 2025 (Copilot Agent Mode)", RD, "native"),
        ("supported (native) — ADK is A2A reference impl", RD, "native"),
        ("supported — Strands A2A server", RD, "native"),
        ("first-class — Prometheus + OTel", RD, "native"),
        ("OpenTelemetry — AgentCore Observability is OTel-based", RD, "native"),
        ("via official adapter — smolagents.MCPClient", RD, "adapter"),
        ("via official adapter — LangChain MCP adapters", RD, "adapter"),
        ("via community port", RD, "adapter"),
        ("community port — third-party MCP wrappers", RD, "adapter"),
        ("Skills can wrap MCP servers via Atlassian Forge bridge; not native", RD, "adapter"),
        ("supported — LangGraph A2A wrappers", RD, "adapter"),
        ("via adapter — Arize Phoenix", RD, "adapter"),
        ("via Prometheus", RD, "adapter"),
        ("native — Cline is an MCP client", RD, "client"),
        ("native (first-party) — Claude apps consume MCP", RD, "client"),
        ("Claude supports MCP servers (caller-side)", RD, "client"),
        ("Composes with MCP tools", RD, "client"),
        ("mcp-client", RD, "client"),
        ("no first-party MCP adapter published as of 2026-05; community connectors may exist.", RD, "none"),
        ("no MCP support advertised — vertical product, no MCP server / client integration documented", RD, "none"),
        ("not documented publicly", RD, "none"),
        ("not supported", RD, "none"),
        ("no", RD, "none"),
        ("no — consumer product", RD, "none"),
        ("planned (Google A2A roadmap)", RD, "none"),
        ("planned", RD, "none"),
        ("coming soon", RD, "none"),
        ("in development", RD, "none"),
        ("unsupported", RD, "none"),
        ("undocumented", RD, "none"),
        ("depth-floor — Aider primarily uses its own tool-call format; MCP support tracked in issues", RD, "none"),
        ("no data — searched langfuse.com, langfuse.com/docs; A2A protocol not advertised", RD, "none"),
        ("searched not found", DF, "none"),
        ("searched not found — no public MCP support documented as of 2026-05", DF, "none"),
        ("not applicable — research paper, no deployed product", NA, "not-applicable"),
        ("n/a — not a product", RD, "not-applicable"),
        ("", ND, "unknown"),
        ("", RD, "unknown"),
        ("Google's own A2A protocol — likely first-party", RD, "unknown"),
    ],
)
def test_protocol_mode(text: str, status: str, mode: str) -> None:
    assert protocol_mode(text, status) == mode


def test_protocol_modes_on_site_data(site_cells) -> None:
    counts = {}
    for slug in ("mcp-support", "a2a-support", "otel"):
        modes = [(v, s, protocol_mode(v, s)) for v, s in site_cells(slug)]
        for value, status, mode in modes:
            assert mode in nz.PROTOCOL_MODES
            if value.lower().startswith(("searched not found", "no ", "no-", "not ", "planned")):
                assert mode in ("none", "not-applicable"), value
            if status == NA:
                assert mode == "not-applicable"
            if mode in ("native", "adapter", "client"):
                assert status == RD
        counts[slug] = Counter(mode for _, _, mode in modes)
    print("protocol modes:", {slug: dict(c) for slug, c in counts.items()})
    assert counts["mcp-support"] == {"not-applicable": 441, "none": 338, "native": 71, "adapter": 49, "client": 13}
    assert counts["a2a-support"] == {"none": 451, "not-applicable": 444, "native": 11, "adapter": 4, "unknown": 2}
    assert counts["otel"] == {"not-applicable": 447, "none": 405, "native": 46, "adapter": 14}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("mcp-client", {"mcp": "client"}),
        ("mcp-server", {"mcp": "native"}),
        ("mcp-client, mcp-server", {"mcp": "native"}),
        ("MCP-Client; A2A; OTel", {"mcp": "client", "a2a": "native", "opentelemetry": "native"}),
        ("opentelemetry", {"opentelemetry": "native"}),
        ("", {}),
        ("none", {}),
        ("grpc, rest", {}),
    ],
)
def test_protocols_in_support_cell(text: str, expected: dict) -> None:
    assert protocols_in_support_cell(text) == expected
