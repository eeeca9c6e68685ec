"""kg mcp on the bundled catalog, as the official MCP SDK client sees it over stdio and streamable HTTP.

What an agent meets first: a short tool list (under 20 tools and 20 KB of JSON), resource
templates it can address (``kg://system/{id}``, ``kg://query/{name}``, ...), completion of prompt
and template arguments from the store, answers a page at a time with ``has_more``, and ``show``
leading with a system's name and description. Expected answers come from the catalog's JSON
(data/), never from SPARQL. One stdio session and one HTTP server serve the module.
"""

from __future__ import annotations

import json
import sys
from functools import partial
from pathlib import Path
from typing import Any, Iterator

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import PromptReference, ResourceTemplateReference

from kg.normalise import fold
from serving import kg_mcp_http

ROOT = Path(__file__).resolve().parent.parent
BUDGET_BYTES = 20_000  # tools/list, as JSON, by default (issue 53: under 20 KB; the four advice tools included)
TEMPLATES = {"kg://system/{id}", "kg://query/{name}", "kg://vendor/{key}", "kg://section/{name}",
             "kg://shapes/{name}", "kg://findings/{id}"}


class Talk:
    """One client held open in a portal's event loop; its calls are plain functions."""

    def __init__(self, portal: BlockingPortal, client: Client) -> None:
        self.portal, self.client = portal, client

    def __call__(self, method: str, *args: Any, **kwargs: Any) -> Any:
        return self.portal.call(partial(getattr(self.client, method), *args, **kwargs))

    def ok(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = self("call_tool", tool, arguments)
        assert not result.is_error, result.content[0].text
        return result.structured_content


@pytest.fixture(scope="module", params=["stdio", "http"])
def talk(request, bundled_store) -> Iterator[Talk]:
    """A client of ``kg mcp`` over the bundled catalog, over stdio, then over streamable HTTP."""
    if request.param == "stdio":
        target: Any = StdioServerParameters(command=sys.executable, args=["-m", "kg", "mcp", "--store",
                                                                         str(bundled_store.path), "--workers", "1"])
        with start_blocking_portal() as portal:
            with portal.wrap_async_context_manager(Client(target, mode="legacy")) as client:
                yield Talk(portal, client)
        return
    with kg_mcp_http(bundled_store.path) as url:
        with start_blocking_portal() as portal:
            with portal.wrap_async_context_manager(Client(url)) as client:
                yield Talk(portal, client)


def test_the_default_tool_list_is_short(talk):
    listed = talk("list_tools")
    size = len(json.dumps(listed.model_dump(mode="json", by_alias=True, exclude_none=True)))
    names = [t.name for t in listed.tools]
    assert len(names) < 20 and size < BUDGET_BYTES, (len(names), size)
    assert {"search", "show", "related", "compare", "catalog", "sparql", "analyze"} <= set(names)
    assert not [n for n in names if n.startswith(("check-", "select-"))]


def test_resource_templates_are_listed_and_read(talk, expected_records):
    templates = {t.uri_template: t for t in talk("list_resource_templates").resource_templates}
    assert set(templates) == TEMPLATES
    assert templates["kg://system/{id}"].mime_type == "application/json"
    [content] = talk("read_resource", "kg://system/zep-graphiti--getzep-com").contents
    summary = json.loads(content.text)
    record = expected_records["zep-graphiti--getzep-com"]
    assert (summary["name"], summary["description"]) == (record["name"], record["cells"]["desc"]["value"])
    [query] = talk("read_resource", "kg://query/search").contents
    assert query.text == (ROOT / "queries" / "search.rq").read_text(encoding="utf-8")


def _named(records: dict[str, dict], text: str) -> set[str]:
    """The ids whose id or name holds ``text`` (case and accents aside)."""
    return {rid for rid, r in records.items() if fold(text) in fold(rid) or fold(text) in fold(r["name"])}


def test_compare_systems_completes_system_from_zep(talk, expected_records):
    prompt = PromptReference(type="ref/prompt", name="compare-systems")
    completed = talk("complete", prompt, {"name": "system", "value": "zep"}).completion
    expected = _named(expected_records, "zep")
    assert len(expected) == 3 and set(completed.values) == expected and completed.total == 3
    assert completed.values[0].startswith("zep")  # an id that starts with the text comes first
    other = talk("complete", prompt, {"name": "other", "value": "Mem0"}).completion
    assert set(other.values) == _named(expected_records, "mem0")


def test_template_arguments_complete_from_the_store(talk, expected_records):
    def complete(uri: str, name: str, value: str) -> list[str]:
        return talk("complete", ResourceTemplateReference(type="ref/resource", uri=uri),
                    {"name": name, "value": value}).completion.values

    assert set(complete("kg://system/{id}", "id", "graphiti")) == _named(expected_records, "graphiti")
    bundled = {p.stem for p in (ROOT / "queries").glob("*.rq")}
    assert set(complete("kg://query/{name}", "name", "check-")) == {n for n in bundled if n.startswith("check-")}
    sections = {s["section"] for r in expected_records.values() for s in r["sections"] if isinstance(s, dict)}
    assert set(complete("kg://section/{name}", "name", "Dedicated")) == {s for s in sections
                                                                        if "dedicated" in s.lower()}
    assert "getzep.com" in complete("kg://vendor/{key}", "key", "getzep")
    shapes = {p.stem for p in (ROOT / "shapes").glob("*.ttl")}
    assert set(complete("kg://shapes/{name}", "name", "")) == shapes


def test_search_pages_with_has_more(talk, expected_records):
    """Every system matches the empty text: the tier-1 systems, 100 a page, each once, in order."""
    tier_one = {rid for rid, r in expected_records.items() if r["tier"] == 1}
    pages, offset = [], 0
    while True:
        page = talk.ok("search", {"text": "", "tier": 1, "limit": 100, "offset": offset})
        pages.append(page)
        if not page["has_more"]:
            break
        offset = page["next_offset"]
    assert [p["has_more"] for p in pages] == [True] * (len(pages) - 1) + [False] and len(pages) > 1
    ids = [r["id"] for p in pages for r in p["rows"]]
    assert len(ids) == len(set(ids)) and set(ids) == tier_one
    assert pages[-1]["total"] == len(tier_one) and pages[-1]["truncated"] is False
    whole = talk.ok("search", {"text": "", "tier": 1, "limit": 1000})
    assert [r["id"] for r in whole["rows"]] == ids


def test_show_leads_with_the_name_and_the_description(talk, expected_records):
    record = expected_records["mem0--mem0-ai"]
    result = talk("call_tool", "show", {"id": "mem0--mem0-ai"})
    text = result.content[0].text
    assert text.startswith(json.dumps({"name": record["name"], "description": record["cells"]["desc"]["value"]},
                                      ensure_ascii=False)[:-1] + ", ")
    for hidden in ("kg:searchText", "searchText", "protocolSupportText", "taxonomyText", "/cell/"):
        assert hidden not in text
