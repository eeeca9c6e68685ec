"""Tests for kg.normalise: cases quoted from the real catalog values, aggregate
checks over all 912 site records, and totality (no function ever raises)."""

from __future__ import annotations

import doctest
import json
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from kg import normalise as nz  # noqa: E402
from kg.normalise import (  # noqa: E402
    OSI_APPROVED,
    SPDX_IDS,
    LicenseInfo,
    VendorInfo,
    compliance_frameworks,
    deployment_kind,
    feature_state,
    first_date,
    github_repo,
    github_stars,
    languages,
    license_is_osi,
    number,
    protocol_mode,
    protocols_in_support_cell,
    publication_venue,
    registrable_domain,
    release_info,
    spdx_license,
    vendor_of,
)

DATA = ROOT / "data"
RD, NA, DF, ND, EST = "real-data", "not-applicable", "depth-floor-reached", "no-data", "estimate"


@pytest.fixture(scope="module")
def records() -> list[dict]:
    return json.loads((DATA / "landscape-site.json").read_text(encoding="utf-8"))["records"]


@pytest.fixture(scope="module")
def seed() -> dict:
    return json.loads((DATA / "seed-record.json").read_text(encoding="utf-8"))


def cells(records: list[dict], slug: str) -> list[tuple[str, str]]:
    return [(r["cells"][slug]["value"], r["cells"][slug]["status"]) for r in records]


def test_doctests_pass() -> None:
    failures, tried = doctest.testmod(nz)
    assert tried > 30
    assert failures == 0


# --------------------------------------------------------------------------- licences


@pytest.mark.parametrize(
    ("text", "status", "kind", "ids", "expression"),
    [
        ("Apache-2.0", RD, "spdx", ("Apache-2.0",), "Apache-2.0"),
        ("Apache 2.0", RD, "spdx", ("Apache-2.0",), "Apache-2.0"),
        ("Apache License 2.0", RD, "spdx", ("Apache-2.0",), "Apache-2.0"),
        ("Apache License, Version 2.0", RD, "spdx", ("Apache-2.0",), "Apache-2.0"),
        ("Apache-2.0 (Core)", RD, "spdx", ("Apache-2.0",), "Apache-2.0"),
        ("MIT", RD, "spdx", ("MIT",), "MIT"),
        ("MIT License", RD, "spdx", ("MIT",), "MIT"),
        ("MIT (R1 + V3 weights)", RD, "spdx", ("MIT",), "MIT"),
        ("BSD-3-Clause", RD, "spdx", ("BSD-3-Clause",), "BSD-3-Clause"),
        ("BSD 3-Clause", RD, "spdx", ("BSD-3-Clause",), "BSD-3-Clause"),
        ("BSD-2-Clause", RD, "spdx", ("BSD-2-Clause",), "BSD-2-Clause"),
        ("GPLv3", RD, "spdx", ("GPL-3.0",), "GPL-3.0"),
        ("GPL-3.0", RD, "spdx", ("GPL-3.0",), "GPL-3.0"),
        ("GPL-2.0 (ALE)", RD, "spdx", ("GPL-2.0",), "GPL-2.0"),
        ("GPL-3.0-or-later", RD, "spdx", ("GPL-3.0-or-later",), "GPL-3.0-or-later"),
        ("AGPL-3.0", RD, "spdx", ("AGPL-3.0",), "AGPL-3.0"),
        ("AGPLv3 + commercial", RD, "spdx", ("AGPL-3.0",), None),
        ("Elastic 2.0", RD, "spdx", ("Elastic-2.0",), "Elastic-2.0"),
        ("CC-BY-NC-4.0", RD, "spdx", ("CC-BY-NC-4.0",), "CC-BY-NC-4.0"),
        ("CC-BY-NC 4.0", RD, "spdx", ("CC-BY-NC-4.0",), "CC-BY-NC-4.0"),
        ("MPL-2.0 (Agno OSS)", RD, "spdx", ("MPL-2.0",), "MPL-2.0"),
        ("Mozilla MPL 2.0", RD, "spdx", ("MPL-2.0",), "MPL-2.0"),
        ("PostgreSQL", RD, "spdx", ("PostgreSQL",), "PostgreSQL"),
        ("NetHack General Public License", RD, "spdx", ("NGPL",), "NGPL"),
        ("MIT OR Apache-2.0", RD, "spdx", ("MIT", "Apache-2.0"), "MIT OR Apache-2.0"),
        ("MIT/Apache-2.0", RD, "spdx", ("MIT", "Apache-2.0"), "MIT OR Apache-2.0"),
        ("Apache-2.0 or MIT", RD, "spdx", ("Apache-2.0", "MIT"), "Apache-2.0 OR MIT"),
        ("The Unlicense", RD, "spdx", ("Unlicense",), "Unlicense"),
        # parts under different terms: ids listed, no single expression
        ("GPL-3.0 (GUI); Apache-2.0 + GPL components", RD, "spdx", ("GPL-3.0", "Apache-2.0"), None),
        ("Apache 2.0 (Yi-34B + base sizes); proprietary (Yi-Large, Yi-Lightning)", RD, "spdx",
         ("Apache-2.0",), None),
        ("MIT (Habitat-Lab); CC-BY-NC (3D scenes)", RD, "spdx", ("MIT",), None),
        # no open licence
        ("Unlicensed", RD, "proprietary", (), None),
        ("no-license", RD, "proprietary", (), None),
        ("Modified MIT (Medium 3.5 weights); Vibe service closed", RD, "proprietary", (), None),
        ("Llama 4 community license (Meta-custom; commercial OK <700M MAU)", RD, "proprietary", (), None),
        ("Jamba Open License", RD, "proprietary", (), None),
        ("NVIDIA Open Model license", RD, "proprietary", (), None),
        ("Sustainable Use License (semi-OSS)", RD, "proprietary", (), None),
        ("Proprietary (Anthropic) — JavaScript runtime open under separate terms", RD, "proprietary", (), None),
        # researched but unclassifiable
        ("Custom", RD, "unknown", (), None),
        ("BSD", RD, "unknown", (), None),
        # not researched / not applicable
        ("not applicable — not OSS", NA, "none", (), None),
        ("searched not found", DF, "none", (), None),
        ("", ND, "none", (), None),
        ("n/a — feature of GitHub Copilot (proprietary); instructions files are user-owned under repo license",
         RD, "none", (), None),
        ("no data — searched arxiv abstract; no specific value reported", RD, "none", (), None),
    ],
)
def test_spdx_license(text, status, kind, ids, expression) -> None:
    assert spdx_license(text, status) == LicenseInfo(kind, ids, expression)


def test_license_info_is_frozen() -> None:
    info = spdx_license("MIT", RD)
    with pytest.raises(AttributeError):
        info.kind = "none"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("text", "osi"),
    [
        ("Apache-2.0", True),
        ("MIT/Apache-2.0", True),
        ("GPL-3.0 (GUI); Apache-2.0 + GPL components", True),
        ("Elastic 2.0", False),
        ("CC-BY-NC-4.0", False),
        ("MIT OR Elastic-2.0", True),  # a choice: one OSI option suffices
        ("MIT AND Elastic-2.0", False),  # both apply: all must be OSI
        ("Unlicensed", False),
        ("Custom", False),
    ],
)
def test_license_is_osi(text: str, osi: bool) -> None:
    assert license_is_osi(spdx_license(text, RD)) is osi


def test_osi_set_covers_emittable_ids() -> None:
    assert OSI_APPROVED <= SPDX_IDS
    for spdx in ("Apache-2.0", "MIT", "BSD-3-Clause", "GPL-3.0", "AGPL-3.0", "MPL-2.0", "NGPL", "PostgreSQL",
                 "Unlicense"):
        assert spdx in OSI_APPROVED
    for spdx in ("Elastic-2.0", "CC-BY-NC-4.0", "SSPL-1.0", "BUSL-1.1"):
        assert spdx in SPDX_IDS and spdx not in OSI_APPROVED


def test_license_on_site_data(records) -> None:
    infos = [(v, spdx_license(v, s)) for v, s in cells(records, "license")]
    emitted = {spdx for _, info in infos for spdx in info.spdx_ids}
    assert emitted <= SPDX_IDS
    for value, info in infos:
        if "Apache" in value:
            assert "Apache-2.0" in info.spdx_ids, value
        if re.search(r"(?<!Modified )\bMIT\b", value):
            assert "MIT" in info.spdx_ids, value
        if value in ("Unlicensed", "no-license"):
            assert info.kind == "proprietary"
        if info.kind == "spdx":
            assert info.spdx_ids
        else:
            assert not info.spdx_ids and info.expression is None
    # Counts verified by reading every value (see module comments for the calls).
    assert Counter(info.kind for _, info in infos) == {"none": 595, "spdx": 282, "proprietary": 29, "unknown": 6}
    ids = Counter(spdx for _, info in infos for spdx in info.spdx_ids)
    assert ids["Apache-2.0"] == 137 and ids["MIT"] == 116 and ids["BSD-3-Clause"] == 8


# --------------------------------------------------------------------------- protocols


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


def test_protocol_modes_on_site_data(records) -> None:
    counts = {}
    for slug in ("mcp-support", "a2a-support", "otel"):
        modes = [(v, s, protocol_mode(v, s)) for v, s in cells(records, slug)]
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


# --------------------------------------------------------------------------- deployment


@pytest.mark.parametrize(
    ("text", "status", "kind"),
    [
        ("Managed-only", RD, "hosted"),
        ("SaaS", RD, "hosted"),
        ("Cloud", RD, "hosted"),
        ("Cloud-managed", RD, "hosted"),
        ("Cloud (terminal runs locally; API in cloud)", RD, "hosted"),
        ("Managed-only via AWS Bedrock; no self-hosting (weights closed)", RD, "hosted"),
        ("Managed-only (browser extension + cloud)", RD, "hosted"),
        ("cloud — Supermemory managed API; no self-host option", RD, "hosted"),
        ("On-prem", RD, "self-hosted"),
        ("local", RD, "self-hosted"),
        ("Self-host (pip install aider-chat)", RD, "self-hosted"),
        ("Self-hosted (private cloud or on-premises); Enterprise managed forthcoming", RD, "self-hosted"),
        ("Self-hosted only (PostgreSQL extension; Azure Database for PostgreSQL ships it managed)", RD, "self-hosted"),
        ("OSS self-hosted (all major clouds); DataStax cloud deprecated; IBM acquisition path unclear", RD,
         "self-hosted"),
        ("Self-host CLI; API calls to OpenAI cloud", RD, "self-hosted"),
        ("local — SQLite + FTS5; zero cloud dependency; no API keys required", RD, "self-hosted"),
        ("Both", RD, "both"),
        ("Both (OSS self-hosted; Hugging Face Inference Endpoints / Enterprise Hub managed)", RD, "both"),
        ("Hybrid", RD, "both"),
        ("Cloud inference + on-robot deployment (websocket streaming)", RD, "both"),
        ("Managed cloud (GCP); on-prem option via open-source Gemma 4", RD, "both"),
        ("cloud (Zep managed) or self-hosted via Graphiti OSS + Neo4j/local graph DB", RD, "both"),
        ("Direct customer pilot", RD, None),
        ("Web + iOS + Android", RD, None),
        ("Trusted-tester via partners; Vertex AI / Cloud planned", RD, None),
        ("not applicable — not a deployable product", NA, None),
        ("searched not found", DF, None),
        ("", ND, None),
    ],
)
def test_deployment_kind(text: str, status: str, kind: str | None) -> None:
    assert deployment_kind(text, status) == kind


def test_deployment_on_site_data(records) -> None:
    kinds = [(v, deployment_kind(v, s)) for v, s in cells(records, "deployment")]
    for value, kind in kinds:
        if value.startswith("Managed-only") and "self-hosted" not in value:
            assert kind == "hosted", value
        if value.startswith("Both"):
            assert kind == "both", value
        if value.startswith(("not applicable", "searched not found")):
            assert kind is None
    assert Counter(kind for _, kind in kinds) == {None: 567, "hosted": 156, "both": 132, "self-hosted": 57}


# --------------------------------------------------------------------------- languages


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("python", ("Python",)),
        ("SDK: Python (agent.memory.steps; CodeAgent/ToolCallingAgent)", ("Python",)),
        ("1.2k★ Python", ("Python",)),
        ("99.9k★ +999/mo Go", ("Go",)),
        ("~55k★, ~2k/mo, Rust", ("Rust",)),
        ("21.1k★ +123/mo C", ("C",)),
        ("9.9k★ Python/C", ("Python", "C")),
        ("700★ C++/Python", ("C++", "Python")),
        ("REST, SDK: Python, JS/TS", ("Python", "JavaScript", "TypeScript")),
        ("REST, gRPC, SDK: Python, Java, Node.js, Go", ("Python", "Java", "JavaScript", "Go")),
        ("REST, SDK: JS, Python, PHP, Go, Ruby, Java, .NET, Swift, Rust",
         ("JavaScript", "Python", "PHP", "Go", "Ruby", "Java", "C#", "Swift", "Rust")),
        ("REST + gRPC + SDK (Python, Node, Go, Java, .NET, Dart); Google AI Studio + Vertex AI",
         ("Python", "JavaScript", "Go", "Java", "C#", "Dart")),
        ("CLI (Go) — TUI", ("Go",)),
        ("REST, SPARQL, SDK: Java, Python, Lisp", ("Java", "Python", "Lisp")),
        ("SDK: R, Julia, Scala, Kotlin, Elixir", ("R", "Julia", "Scala", "Kotlin", "Elixir")),
        ("Python, python, PYTHON", ("Python",)),
        # no false positives from ordinary words
        ("Self-host (Go install)", ()),
        ("ready to go; good to go", ()),
        ("R&D team; Plan C", ()),
        ("Google, Golangish, Rustic, Javanese, Gopher", ()),
        ("HuggingFace Transformers; vLLM; llama.cpp", ()),
        ("325★ Jupyter Notebook", ()),
        ("Web app", ()),
        ("", ()),
    ],
)
def test_languages(text: str, expected: tuple[str, ...]) -> None:
    assert languages(text) == expected


# --------------------------------------------------------------------------- dates and releases

XSD_LEXICAL = {
    "gYear": re.compile(r"\d{4}"),
    "gYearMonth": re.compile(r"\d{4}-(0[1-9]|1[0-2])"),
    "date": re.compile(r"\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])"),
}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2023", ("2023", "gYear")),
        ("2024-10", ("2024-10", "gYearMonth")),
        ("2026-05-29", ("2026-05-29", "date")),
        ("2023 (founded)", ("2023", "gYear")),
        ("2024-Q4", ("2024", "gYear")),
        ("2018-2019 (Storyflow project 2018; Voiceflow formally launched 2019)", ("2018", "gYear")),
        ("Announced 2026-04 (NVIDIA GTC season); GA H2 2026", ("2026-04", "gYearMonth")),
        ("2019-02 (Bard et al. arXiv 1902.00506)", ("2019-02", "gYearMonth")),
        ("RFM-1 (Mar 2024)", ("2024-03", "gYearMonth")),
        ("GR00T N1 (2B) on HuggingFace Mar-2025", ("2025-03", "gYearMonth")),
        ("v0.8.1 (released March 2 2025); v0.8.2 current", ("2025-03-02", "date")),
        ("2024-02-29", ("2024-02-29", "date")),
        ("2024-13", None),
        ("2025-02-30", None),
        ("2023-02-29", None),
        ("arXiv 2405.14573", None),
        ("searched not found", None),
        ("see post date", None),
        ("2026.1.26", None),
        ("", None),
    ],
)
def test_first_date(text: str, expected) -> None:
    assert first_date(text) == expected


def test_dates_on_site_data(records) -> None:
    types = Counter()
    for value, status in cells(records, "created"):
        found = first_date(value)
        types[found[1] if found else None] += 1
        if found:
            assert XSD_LEXICAL[found[1]].fullmatch(found[0])
        if status == RD and re.match(r"\d{4}(-\d\d){0,2}\b", value):
            assert found and value.startswith(found[0]), value
    assert types == {"gYearMonth": 488, "gYear": 377, "date": 28, None: 19}


@pytest.mark.parametrize(
    ("text", "status", "expected"),
    [
        ("v1.26.0 (2026-05-29)", RD, ("v1.26.0", ("2026-05-29", "date"))),
        ("v1.0.8 2026-05-06", RD, ("v1.0.8", ("2026-05-06", "date"))),
        ("3.0.9 2026-04-13", RD, ("3.0.9", ("2026-04-13", "date"))),
        ("v0.6.1 / 2026-05-04", RD, ("v0.6.1", ("2026-05-04", "date"))),
        ("python-v0.7.5 2025-09-30", RD, ("python-v0.7.5", ("2025-09-30", "date"))),
        ("2026.1.26 2026-01-27", RD, ("2026.1.26", ("2026-01-27", "date"))),
        ("LoRA_checkpoint 2023-05-21", RD, ("LoRA_checkpoint", ("2023-05-21", "date"))),
        ("mcp-neo4j-cyphe… 2026-04-10", RD, (None, ("2026-04-10", "date"))),
        ("Yi-Lightning (2024-10)", RD, (None, ("2024-10", "gYearMonth"))),
        ("v0.x ongoing on GitHub", RD, (None, None)),
        ("no releases", RD, (None, None)),
        ("no-release no-release", RD, (None, None)),
        ("no releases (no tagged releases on GitHub as of research date)", RD, (None, None)),
        ("Inactive since 2024", RD, (None, None)),
        ("not applicable — not OSS", NA, (None, None)),
        ("searched not found", DF, (None, None)),
        ("n/a — vendor feature of GitHub Copilot (not a versioned repo)", RD, (None, None)),
    ],
)
def test_release_info(text: str, status: str, expected) -> None:
    assert release_info(text, status) == expected


def test_releases_on_site_data(records) -> None:
    for value, status in cells(records, "latest-release"):
        version, found = release_info(value, status)
        if re.fullmatch(r"v?\d+(\.\d+)+ \d{4}-\d\d-\d\d", value):
            assert version == value.split()[0] and found == (value.split()[1], "date")
        if status != RD:
            assert (version, found) == (None, None)


# --------------------------------------------------------------------------- GitHub


@pytest.mark.parametrize(
    ("text", "citation", "expected"),
    [
        ("huggingface/smolagents — ~28.8k stars", "https://github.com/huggingface/smolagents", ("huggingface", "smolagents")),
        ("huggingface/smolagents — ~28.8k stars", None, ("huggingface", "smolagents")),
        ("871★ +10/mo Python", "https://github.com/WujiangXu/A-mem", ("WujiangXu", "A-mem")),
        ("searched not found", "https://github.com/huggingface/accelerate", ("huggingface", "accelerate")),
        ("x", "https://github.com/modelcontextprotocol/servers/tree/main/src/memory",
         ("modelcontextprotocol", "servers")),
        ("x", "https://github.com/owner/repo.git", ("owner", "repo")),
        ("github.com/01-ai/Yi ~7k+ stars", "https://www.01.ai/", ("01-ai", "Yi")),
        ("github.com/deepseek-ai/DeepSeek-V3 ~94k stars; github.com/deepseek-ai/DeepSeek-R1 ~90k stars",
         "https://www.deepseek.com/", ("deepseek-ai", "DeepSeek-V3")),
        ("9.9k★ (DeusData/codebase-memory-mcp)", None, ("DeusData", "codebase-memory-mcp")),
        ("github.com/toyotaresearchinstitute — multiple repos", "https://github.com/toyotaresearchinstitute", None),
        ("github.com/VapiAI (SDKs only)", "https://github.com/VapiAI", None),
        ("0★ no data — repo unreachable", "https://github.com/copilot/customizing-copilot", None),
        ("searched not found", "https://arxiv.org/abs/2410.21465", None),
        ("not applicable — no GitHub repo", None, None),
        ("n/a", None, None),
        ("", None, None),
    ],
)
def test_github_repo(text: str, citation, expected) -> None:
    assert github_repo(text, citation) == expected


@pytest.mark.parametrize(
    ("text", "stars"),
    [
        ("huggingface/smolagents — ~28.8k stars", 28800),
        ("1.2k★ Python", 1200),
        ("17.1k★ +152/mo Python", 17100),
        ("24★", 24),
        ("24★ Python", 24),
        ("~28k★, Python", 28000),
        ("~55k★, ~2k/mo, Rust", 55000),
        ("github.com/01-ai/Yi ~7k+ stars", 7000),
        ("github.com/NVIDIA/garak (~5k stars)", 5000),
        ("99.9k GitHub stars (FoundationAgents/MetaGPT)", 99900),
        ("github.com/QwenLM/Qwen3 ~30k+ stars; cumulative QwenLM org repos ~80k+ stars", 30000),
        ("1,234 stars", 1234),
        ("0★ no data — repo unreachable", None),
        ("small community repo (<50★), Python", None),
        ("github.com/livekit/agents", None),
        ("searched not found", None),
        ("", None),
    ],
)
def test_github_stars(text: str, stars) -> None:
    assert github_stars(text) == stars


def test_github_on_site_data(records) -> None:
    for r in records:
        gh = r["cells"]["gh"]
        pair = github_repo(gh["value"], gh["citation"])
        m = re.fullmatch(r"https://github\.com/([^/]+)/([^/#?]+).*", gh["citation"] or "")
        if m and m.group(1) != "copilot":
            assert pair == (m.group(1), m.group(2))
        stars = github_stars(gh["value"])
        if gh["status"] != RD:
            assert stars is None
        if "★" in gh["value"] and "no data" not in gh["value"] and "<" not in gh["value"]:
            assert stars is not None and stars > 0, gh["value"]


# --------------------------------------------------------------------------- numbers


@pytest.mark.parametrize(
    ("text", "status", "value"),
    [
        ("0", RD, 0),
        ("55", EST, 55),
        ("$0.15", EST, 0.15),
        ("0.15", RD, 0.15),
        ("$2.50/Mtok", EST, 2.5),
        ("3 USD per 1M tokens", RD, 3),
        ("1,200", RD, 1200),
        ("~40", EST, 40),
        ("55", ND, None),
        ("55", DF, None),
        ("not applicable — OSS plus per-user subscription, no per-token cost", NA, None),
        ("mid", EST, None),
        ("10-20", RD, None),
        ("about 5 integrations", RD, None),
        ("2026-06-29", EST, None),
        ("", RD, None),
    ],
)
def test_number(text: str, status: str, value) -> None:
    result = number(text, status)
    assert result == value
    assert type(result) is type(value)


# --------------------------------------------------------------------------- domains, venues, vendors


@pytest.mark.parametrize(
    ("host", "domain"),
    [
        ("www.getzep.com", "getzep.com"),
        ("docs.aws.amazon.com", "amazon.com"),
        ("WWW.Example.CO.UK", "example.co.uk"),
        ("news.bbc.co.uk", "bbc.co.uk"),
        ("foo.com.au", "foo.com.au"),
        ("a.b.co.jp", "b.co.jp"),
        ("www.sina.com.cn", "sina.com.cn"),
        ("www.ox.ac.uk", "ox.ac.uk"),
        ("microsoft.github.io", "microsoft.github.io"),
        ("eu.36kr.com", "36kr.com"),
        ("deepmind.google", "deepmind.google"),
        ("example.com:8080", "example.com"),
        ("example.com.", "example.com"),
        ("localhost", "localhost"),
        ("", ""),
    ],
)
def test_registrable_domain(host: str, domain: str) -> None:
    assert registrable_domain(host) == domain


@pytest.mark.parametrize(
    ("url", "venue"),
    [
        ("https://arxiv.org/abs/2401.15884", "arXiv"),
        ("https://openreview.net/forum?id=TrjbxzRcnf-", "OpenReview"),
        ("https://aclanthology.org/2025.acl-long.1137/", "ACL Anthology"),
        ("https://doi.org/10.1145/3654777.3676388", "DOI"),
        ("https://dx.doi.org/10.1145/3654777.3676388", "DOI"),
        ("https://dl.acm.org/doi/10.1145/3735633", "ACM Digital Library"),
        ("https://neurips.cc/virtual/2025/poster/116166", "NeurIPS"),
        ("https://proceedings.neurips.cc/paper/2020/x", "NeurIPS"),
        ("https://papers.nips.cc/paper/2017/x", "NeurIPS"),
        ("https://icml.cc/virtual/2025/poster/44196", "ICML"),
        ("https://proceedings.mlr.press/v202/x.html", "PMLR"),
        ("https://www.semanticscholar.org/paper/x", "Semantic Scholar"),
        ("https://huggingface.co/papers/2401.15884", "Hugging Face Papers"),
        ("https://ieeexplore.ieee.org/document/1", "IEEE Xplore"),
        ("https://www.nature.com/articles/s41598-025-10586-x", "Nature"),
        ("https://journals.plos.org/plosone/article?id=10.1371/journal.pone.0316453", "PLOS"),
        ("https://www.mdpi.com/2079-9292/15/6/1232", "MDPI"),
        ("https://huggingface.co/docs/smolagents/tutorials/memory", None),
        ("https://github.com/huggingface/smolagents", None),
        ("https://notarxiv.org/abs/1", None),
        (None, None),
        ("", None),
    ],
)
def test_publication_venue(url, venue) -> None:
    assert publication_venue(url) == venue


@pytest.mark.parametrize(
    ("url", "gh_owner", "expected"),
    [
        ("https://github.com/huggingface/smolagents", None,
         VendorInfo("github.com/huggingface", "huggingface", "github-owner", "https://github.com/huggingface/smolagents")),
        ("https://github.com/Backboard-io", None,
         VendorInfo("github.com/backboard-io", "Backboard-io", "github-owner", "https://github.com/Backboard-io")),
        ("https://gist.github.com/karpathy/442a6bf555914893e9891c11519de94f", None,
         VendorInfo("github.com/karpathy", "karpathy", "github-owner",
                    "https://gist.github.com/karpathy/442a6bf555914893e9891c11519de94f")),
        ("https://microsoft.github.io/autogen/", None,
         VendorInfo("github.com/microsoft", "microsoft", "github-owner", "https://microsoft.github.io/autogen/")),
        ("https://huggingface.co/docs/smolagents/tutorials/memory", "huggingface",
         VendorInfo("huggingface.co", "huggingface.co", "url-domain",
                    "https://huggingface.co/docs/smolagents/tutorials/memory")),
        ("https://www.getzep.com/", None, VendorInfo("getzep.com", "getzep.com", "url-domain", "https://www.getzep.com/")),
        ("https://docs.aws.amazon.com/bedrock/", None,
         VendorInfo("amazon.com", "amazon.com", "url-domain", "https://docs.aws.amazon.com/bedrock/")),
        ("https://arxiv.org/abs/2401.15884", "HuskyInSalt",
         VendorInfo("github.com/huskyinsalt", "HuskyInSalt", "github-owner", "HuskyInSalt")),
        ("https://arxiv.org/abs/2401.15884", None, None),
        ("https://huggingface.co/BAAI/bge-large-en-v1.5", None, None),
        ("https://huggingface.co/lerobot", "huggingface",
         VendorInfo("github.com/huggingface", "huggingface", "github-owner", "huggingface")),
        ("https://x.com/karpathy/status/1707437820045062561", None, None),
        ("https://medium.com/@matrixorigin-database/benchmarking", None, None),
        ("https://www.ycombinator.com/companies/hyperspell", None, None),
        (None, "qywu", VendorInfo("github.com/qywu", "qywu", "github-owner", "qywu")),
        (None, None, None),
        (None, "not an owner!", None),
    ],
)
def test_vendor_of(url, gh_owner, expected) -> None:
    assert vendor_of(url, gh_owner) == expected


def test_vendors_and_venues_on_site_data(records) -> None:
    derived, venues = Counter(), Counter()
    for r in records:
        gh = r["cells"]["gh"]
        pair = github_repo(gh["value"], gh["citation"])
        vendor = vendor_of(r["url"], pair[0] if pair else None)
        venue = publication_venue(r["url"])
        derived[vendor.derived_from if vendor else None] += 1
        venues[venue] += 1
        if vendor:
            assert vendor.key and vendor.name and vendor.source
            assert vendor.key not in ("arxiv.org", "openreview.net", "doi.org", "x.com", "github.io")
            if vendor.derived_from == "url-domain":
                assert vendor.source == r["url"]
        if venue:
            assert vendor is None or vendor.derived_from == "github-owner"
    assert venues[None] == 677 and venues["arXiv"] == 216 and venues["OpenReview"] == 8
    assert derived == {"url-domain": 521, "github-owner": 200, None: 191}


# --------------------------------------------------------------------------- feature columns and compliance


@pytest.mark.parametrize(
    ("text", "status", "state"),
    [
        ("yes", RD, "yes"),
        ("Yes — native LangSmith tracing", RD, "yes"),
        ("native", RD, "yes"),
        ("supported via SDK callback", RD, "yes"),
        ("via OpenTelemetry exporter", RD, "yes"),
        ("built-in", RD, "yes"),
        ("no", RD, "no"),
        ("not supported", RD, "no"),
        ("none", RD, "no"),
        ("planned", RD, "no"),
        ("on the roadmap for 2026", RD, "no"),
        ("coming soon", RD, "no"),
        ("Team says this is planned", RD, "no"),
        ("", ND, "unknown"),
        ("searched not found", DF, "unknown"),
        ("not applicable — library", NA, "unknown"),
        ("not applicable — library", RD, "unknown"),
        ("yes", ND, "unknown"),
        ("depends on deployment", RD, "unknown"),
    ],
)
def test_feature_state(text: str, status: str, state: str) -> None:
    assert feature_state(text, status) == state


@pytest.mark.parametrize(
    ("text", "status", "expected"),
    [
        ("Hugging Face Enterprise: SOC 2 Type II; GDPR premium coverage; continuous security scanning via VirusTotal",
         RD, ("SOC 2", "GDPR")),
        ("SOC2 Type 1, HIPAA BAA available", RD, ("SOC 2", "HIPAA")),
        ("ISO/IEC 27001:2022 certified; SOC 2", RD, ("ISO 27001", "SOC 2")),
        ("ISO27001 and GDPR", RD, ("ISO 27001", "GDPR")),
        ("no SOC 2", RD, ()),
        ("no SOC 2 or HIPAA; GDPR compliant", RD, ("GDPR",)),
        ("SOC 2 Type II in progress; GDPR", RD, ("GDPR",)),
        ("Not SOC 2 certified but GDPR compliant", RD, ("GDPR",)),
        ("HIPAA not supported", RD, ()),
        ("SOC 1 report only", RD, ()),
        ("not applicable — no hosted service", NA, ()),
        ("not applicable — no hosted service", RD, ()),
        ("SOC 2", ND, ()),
        ("", RD, ()),
    ],
)
def test_compliance_frameworks(text: str, status: str, expected: tuple[str, ...]) -> None:
    assert compliance_frameworks(text, status) == expected


# --------------------------------------------------------------------------- the seed record


def test_seed_record(seed) -> None:
    c = seed["cells"]

    def v(slug):
        return c[slug]["value"], c[slug]["status"]

    assert spdx_license(*v("license")) == LicenseInfo("spdx", ("Apache-2.0",), "Apache-2.0")
    assert protocol_mode(*v("mcp-support")) == "adapter"
    assert protocol_mode(*v("a2a-support")) == "none"
    assert protocol_mode(*v("otel")) == "adapter"
    assert protocol_mode(*v("protocol-support")) == "client"
    assert protocols_in_support_cell(c["protocol-support"]["value"]) == {"mcp": "client"}
    assert deployment_kind(*v("deployment")) == "both"
    assert languages(c["sdk-languages"]["value"]) == ("Python",)
    assert languages(c["api-surface"]["value"]) == ("Python",)
    assert languages(c["runtimes"]["value"]) == ("Python",)
    assert first_date(c["created"]["value"]) == ("2024-12", "gYearMonth")
    assert release_info(*v("latest-release")) == ("v1.26.0", ("2026-05-29", "date"))
    assert github_repo(c["gh"]["value"], c["gh"]["citation"]) == ("huggingface", "smolagents")
    assert github_stars(c["gh"]["value"]) == 28800
    assert number(*v("integration-count")) == 0
    assert number(*v("capability-composite-score")) == 55
    assert number(*v("cost-input-usd-per-mtok")) is None
    assert vendor_of(seed["url"], "huggingface").key == "huggingface.co"
    assert publication_venue(seed["url"]) is None
    assert compliance_frameworks(*v("compliance")) == ("SOC 2", "GDPR")
    assert compliance_frameworks(*v("compliance-certifications")) == ()
    feature_slugs = [s for s in c if s.startswith(("obs-", "eval-")) or s.startswith("cost-") and c[s]["status"] == ND]
    assert len(feature_slugs) == 22
    assert {feature_state(*v(s)) for s in feature_slugs} == {"unknown"}
    assert feature_state(*v("webhooks")) == "no"


# --------------------------------------------------------------------------- totality

ODD_STRINGS = [
    "",
    " ",
    "\x00",
    "\x00\x01\x02\n\t\r",
    "\ufeff",
    "\u200b\u200d",
    "💥🚀★★★",
    "日本語のテキスト 2024年",
    "Ελληνικά MIT",
    "٣٤٥",  # Arabic-Indic digits
    "२०२४-१२",  # Devanagari digits
    "(" * 500 + ")" * 3,
    ")(" * 300,
    "a" * 100_000,
    "MIT " * 20_000,
    "2024-" * 5000,
    "github.com/" * 2000,
    "https://[::1",
    "http://user:pw@[::1]:99999/x",
    "https://" + "a." * 300 + "com",
    "☃.net",
    "../../etc/passwd",
    "$",
    "~",
    "1e400",
    "9" * 5000,
    "not applicable",
    "n/a",
    "no",
    "yes",
    "None",
]
STATUSES = [RD, EST, NA, DF, ND, "", "\x00", "weird"]


def _call_everything(text: str, status: str) -> None:
    assert isinstance(spdx_license(text, status), LicenseInfo)
    license_is_osi(spdx_license(text, status))
    assert protocol_mode(text, status) in nz.PROTOCOL_MODES
    assert isinstance(protocols_in_support_cell(text), dict)
    assert deployment_kind(text, status) in (None, "hosted", "self-hosted", "both")
    assert isinstance(languages(text), tuple)
    found = first_date(text)
    if found:
        assert XSD_LEXICAL[found[1]].fullmatch(found[0])
    version, found = release_info(text, status)
    assert version is None or isinstance(version, str)
    github_repo(text, text)
    github_repo(text, None)
    stars = github_stars(text)
    assert stars is None or (isinstance(stars, int) and stars >= 0)
    number(text, status)
    assert isinstance(registrable_domain(text), str)
    publication_venue(text)
    vendor_of(text, text)
    vendor_of(text, None)
    assert feature_state(text, status) in ("yes", "no", "unknown")
    assert isinstance(compliance_frameworks(text, status), tuple)


@pytest.mark.parametrize("text", ODD_STRINGS, ids=range(len(ODD_STRINGS)))
def test_total_on_odd_strings(text: str) -> None:
    for status in STATUSES:
        _call_everything(text, status)


def test_total_on_every_real_value(records, seed) -> None:
    values = {cell["value"] for r in records for cell in r["cells"].values()}
    values |= {c["value"] for c in seed["cells"].values()}
    values |= {r["url"] or "" for r in records}
    for text in values:
        _call_everything(text, RD)


def test_total_on_random_text() -> None:
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies

    @hypothesis.settings(max_examples=300, deadline=None)
    @hypothesis.given(st.text(), st.sampled_from(STATUSES))
    def check(text: str, status: str) -> None:
        _call_everything(text, status)

    check()
