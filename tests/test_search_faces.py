"""Search answers the same rows on every face, for any limit and offset the command line answers: ``kg
query``, a named query's page of ``kg serve`` (``/queries/search?...&limit=400``, ``offset=900``) and
the ``search`` tool of ``kg mcp`` (``limit`` 1000), each a real process over the bundled catalog. The
words index's hits are part of the plan's text, which the query workers run as planned, whatever its
length (a user's text stays under the 64 KiB cap).

Expected rows from the catalog JSON: tests/searching.py, the matcher written from its definition."""

from __future__ import annotations

import json
import sys
from functools import partial

import pytest
from anyio.from_thread import start_blocking_portal
from mcp import Client
from mcp.client.stdio import StdioServerParameters

import searching  # tests/searching.py
from serving import http, kg_serve
from helpers import kg

TEXT = "memory"


@pytest.fixture(scope="module")
def want(records) -> list[str]:
    found = [rid for _, rid, _ in searching.ranked(TEXT, records)]
    assert len(found) == 381  # worked out from the JSON: 378 at a word start, and 3 inside a word (OpenMemory)
    return found


def test_the_command_line_answers_every_hit(bundled_store, want):
    run = kg("query", "search", "-p", f"text={TEXT}", "-p", "limit=1000", "--store", str(bundled_store.path),
             "-f", "json")
    assert run.returncode == 0, run.stderr
    assert [row["id"] for row in json.loads(run.stdout)] == want


def test_a_named_query_page_answers_any_limit_and_offset(bundled_store, want):
    with kg_serve(bundled_store.path) as url:
        for offset, limit in ((0, 400), (900, 50), (300, 50), (0, 1000), (350, 100)):
            status, _, body = http("GET", f"{url}/queries/search?text={TEXT}&run=1&format=json"
                                          f"&offset={offset}&limit={limit}")
            assert status == 200, body[:300]
            ids = [row["id"]["value"] for row in json.loads(body)["results"]["bindings"]]
            assert ids == want[offset:offset + limit], (offset, limit)
        status, _, page = http("GET", f"{url}/queries/search?text={TEXT}&run=1&limit=400")  # the HTML page
        assert status == 200 and all(f"/system/{rid}\"".encode() in page for rid in want)


def test_the_mcp_search_tool_answers_any_limit(bundled_store, want):
    params = StdioServerParameters(command=sys.executable, args=["-m", "kg", "mcp", "--store", str(bundled_store.path)])
    with start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(Client(params, mode="legacy")) as client:
            for limit in (1000, 400, 7):
                result = portal.call(partial(client.call_tool, "search", {"text": TEXT, "limit": limit}))
                assert not result.is_error, result.content[0].text
                assert [row["id"] for row in result.structured_content["rows"]] == want[:limit]
