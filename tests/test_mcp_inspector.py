"""``kg mcp`` driven by the MCP Inspector's CLI (``@modelcontextprotocol/inspector --cli``, npm), a client
nobody here wrote, over stdio and streamable HTTP, on the bundled catalog.

It lists under 20 tools (under 20 KB of JSON) with the plumbing hidden, pages ``search`` with
``has_more``, lists the resource templates and fills the ``compare-systems`` prompt. Completion is the SDK client's to check
(tests/test_mcp_surface.py): the Inspector's CLI has no ``completion/complete`` method. Expected
answers come from the catalog's JSON.

``.ci/run`` installs the Inspector from the npm registry beside Comunica and names its
``mcp-inspector`` in ``KG_MCP_INSPECTOR``; elsewhere the tests look for ``mcp-inspector`` on PATH and
are skipped without it (in CI, a missing Inspector fails them). Nothing is fetched at test time.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from typing import Any

import pytest

from kg.normalise import fold
from serving import kg_mcp_http
from helpers import kg_command

BUDGET_BYTES = 20_000  # as tests/test_mcp_surface.py


@pytest.fixture(scope="module")
def inspector() -> str:
    found = os.environ.get("KG_MCP_INSPECTOR") or shutil.which("mcp-inspector")
    if found:
        return found
    why = "the MCP Inspector is not installed (npm install @modelcontextprotocol/inspector; .ci/run does)"
    if os.environ.get("CI"):
        pytest.fail(why)
    pytest.skip(why)


@pytest.fixture(scope="module")
def stdio(bundled_store) -> list[str]:
    """The command the Inspector starts: kg mcp over stdio on the bundled catalog."""
    return kg_command("mcp", "--store", str(bundled_store.path), "--workers", "1")


def inspect(program: str, target: list[str], *arguments: str) -> Any:
    """The JSON the Inspector's CLI prints for one method called on ``target`` (a command or a URL)."""
    done = subprocess.run([program, "--cli", *target, *arguments], capture_output=True, text=True, timeout=180,
                          check=False)
    assert done.returncode == 0, (done.stdout[-1000:], done.stderr[-2000:])
    return json.loads(done.stdout)


def _check_tools(listed: dict[str, Any]) -> None:
    names = [t["name"] for t in listed["tools"]]
    assert len(names) < 20 and len(json.dumps(listed)) < BUDGET_BYTES, (len(names), len(json.dumps(listed)))
    assert {"search", "show", "catalog", "sparql"} <= set(names)
    assert not [n for n in names if n.startswith(("check-", "select-"))]


def test_the_inspector_over_stdio(inspector, stdio, expected_records):
    _check_tools(inspect(inspector, stdio, "--method", "tools/list"))
    called = inspect(inspector, stdio, "--method", "tools/call", "--tool-name", "search",
                     "--tool-arg", "text=graphiti", "--tool-arg", "limit=2")
    page = called["structuredContent"]
    holding = {rid for rid, r in expected_records.items()
               if "graphiti" in fold(" ".join([rid, r["name"], r["cells"]["desc"]["value"] or "",
                                               r["cells"]["claims"]["value"] or ""]))}
    assert len(holding) > 2 and page["has_more"] is True and page["next_offset"] == 2
    assert page["rowCount"] == 2 and {r["id"] for r in page["rows"]} <= holding


def test_the_inspector_over_streamable_http(inspector, bundled_store):
    with kg_mcp_http(bundled_store.path) as url:
        target = [url, "--transport", "http"]
        templates = inspect(inspector, target, "--method", "resources/templates/list")
        assert {"kg://system/{id}", "kg://query/{name}"} <= {t["uriTemplate"] for t in templates["resourceTemplates"]}
        prompt = inspect(inspector, target, "--method", "prompts/get", "--prompt-name", "compare-systems",
                         "--prompt-args", "system=zep-graphiti--getzep-com", "other=mem0--mem0-ai")
    assert "zep-graphiti--getzep-com and mem0--mem0-ai" in prompt["messages"][0]["content"]["text"]
