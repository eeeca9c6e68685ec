"""kg.normalise.github: owner/repository and star counts."""

from __future__ import annotations

import re

import pytest

from kg.normalise import github_repo, github_stars

RD = "real-data"


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


def test_github_on_site_data(site_records) -> None:
    for r in site_records:
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
