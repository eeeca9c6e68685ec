"""The four advice tools on every face, as named queries of the registry (kg.advice.tools): ``kg query
NAME`` and ``kg query --list`` (real processes), :func:`kg.query`, a tool of ``kg mcp`` with its input
and output schemas, and a page with a form on ``kg serve``; the errors of each face (an unknown id,
a system that is no paper, an unknown tag: exit 6 / 2, 404 / 400, a tool error), each with
suggestions. On the full-shape catalog. The answers the faces give are compared with the library's
own call (kg.advice, whose rows tests/test_advice_*.py work out by hand from the JSON); the counts
said in a note, with the JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from functools import partial
from typing import Any
from urllib.parse import urlencode

import pytest
from anyio.from_thread import start_blocking_portal
from mcp import Client
from mcp.client.stdio import StdioServerParameters

import kg
from kg import advice, queries
from kg.advice import StructuredForm
from kg.errors import NotFound, QueryError

from helpers import kg as kg_process, one_line_error
from serving import http, kg_serve

TODAY = "2026-07-01"
OPENAI, MISTRAL = "openai-gpt-family-gpt-5-gpt-4o-o3-o4--openai-com", "mistral-large-2-mixtral-family--mistral-ai"
PAPER, NOT_A_PAPER = "adaptive-rag--arxiv-2304-20312", "01agent-yi-family--01agent-com"
TOOLS = ("recommend", "between", "predict-citations", "breakouts")


def flat(answer: advice.Answer) -> list[dict[str, Any]]:
    """The library's rows as a named query's rows: a list of lines as one text, "; " between them."""
    return [{k: "; ".join(v) if isinstance(v, list) else v for k, v in row.items()} for row in answer.rows]


def run_kg(store, *args: str) -> subprocess.CompletedProcess:
    return kg_process("query", *args, "--store", str(store.path), timeout=300)


@pytest.fixture(scope="module")
def expected(full_shape_store) -> dict[str, advice.Answer]:
    return {
        "recommend": advice.recommend(full_shape_store, "offline multi agent airgap for Acme", k=2, today=TODAY),
        "recommend-form": advice.recommend(full_shape_store, form=StructuredForm(shape="multi-agent", scale="production",
                                                                                  cost_ceiling_usd_per_mtok=5),
                                           categories="model", k=3, today=TODAY),
        "between": advice.between(full_shape_store, MISTRAL, OPENAI, use_case="offline-capable", k=4, today=TODAY),
        "predict-citations": advice.predict_citations(full_shape_store, PAPER, today=TODAY),
        "breakouts": advice.breakouts(full_shape_store, limit=2, today=TODAY),
    }


def qualifying(full_shape_catalog) -> int:
    """How many papers the catalog has at all: breakouts can never say more qualify than that."""
    return sum(1 for r in full_shape_catalog["records"]
               if (r["cells"].get("citation-trajectory") or {}).get("status") == "real-data")


# -- the library and the registry ---------------------------------------------------------------------


def test_each_tool_is_a_named_query_of_the_registry():
    for name in TOOLS:
        query = queries.load(name)
        assert query.compute is not None and query.trusted and query.title and query.question and query.returns
        assert queries.header_problems(query) == []
    assert set(TOOLS) <= set(queries.available())
    assert [p.name for p in queries.load("predict-citations").params] == ["system", "today"]
    assert queries.load("between").params[2].choices == advice.USE_CASE_TAGS


def test_the_library_call_answers_as_the_tool(full_shape_store, expected):
    rows = kg.query(full_shape_store, "between", {"low": MISTRAL, "high": OPENAI, "use_case": "offline-capable",
                                                  "k": "4", "today": TODAY})
    assert rows == flat(expected["between"]) and rows
    assert rows.notes == expected["between"].notes
    [row] = kg.query(full_shape_store, "predict-citations", {"system": "Adaptive-RAG", "today": TODAY})  # a name
    assert row == flat(expected["predict-citations"])[0]


def test_the_plan_sends_the_rows_as_values(full_shape_store):
    planned = queries.plan("breakouts", {"limit": "2", "today": TODAY}, full_shape_store)
    assert "VALUES (?_row ?rank ?id" in planned.text and planned.text.rstrip().endswith("LIMIT 2")
    assert any("qualify" in note for note in planned.notes)
    with pytest.raises(QueryError, match="needs a store"):
        queries.plan("breakouts", {}, None)


def test_the_library_errors_are_the_usual_ones(full_shape_store):
    with pytest.raises(NotFound, match="did you mean") as found:
        kg.query(full_shape_store, "between", {"low": "openai-gpt-family--openai-com", "high": MISTRAL})
    assert OPENAI in [c[0] for c in found.value.candidates]
    with pytest.raises(NotFound, match="is not a paper"):
        kg.query(full_shape_store, "predict-citations", {"system": NOT_A_PAPER})
    with pytest.raises(QueryError, match="did you mean offline-capable"):
        kg.query(full_shape_store, "between", {"low": MISTRAL, "high": OPENAI, "use_case": "offline"})


# -- the command line, as real processes --------------------------------------------------------------


def test_the_commands_answer_as_the_library(full_shape_store, expected, full_shape_catalog):
    listed = run_kg(full_shape_store, "--list", "-f", "json")
    assert listed.returncode == 0
    shown = {row["name"]: row for row in json.loads(listed.stdout)}
    assert set(TOOLS) <= set(shown) and "low (system-name) high (system-name)" in shown["between"]["params"]
    text = run_kg(full_shape_store, "recommend", "-p", "text=offline multi agent airgap for Acme", "-p", "k=2",
                  "-p", f"today={TODAY}", "-f", "json")
    assert text.returncode == 0, text.stderr
    assert json.loads(text.stdout) == flat(expected["recommend"]) and len(json.loads(text.stdout)) == 6  # 2 a category
    assert "kg query recommend: words not used: acme" in text.stderr
    form = run_kg(full_shape_store, "recommend", "-p", "shape=multi-agent", "-p", "scale=production", "-p", "cost_max=5",
                  "-p", "categories=model", "-p", "k=3", "-p", f"today={TODAY}", "-f", "json")
    assert form.returncode == 0 and json.loads(form.stdout) == flat(expected["recommend-form"])
    breaking = run_kg(full_shape_store, "breakouts", "-p", "limit=2", "-p", f"today={TODAY}", "-f", "json")
    assert breaking.returncode == 0 and json.loads(breaking.stdout) == flat(expected["breakouts"])
    qualify = expected["breakouts"].facts["qualifying"]
    assert 2 < qualify <= qualifying(full_shape_catalog)
    assert f"{qualify} paper(s) qualify" in breaking.stderr  # and 2 rows shown


@pytest.mark.parametrize("args, code, said", [
    (("between", "-p", "low=nope--x", "-p", f"high={MISTRAL}"), 6, "no system with that id or name 'nope--x'"),
    (("between", "-p", "low=openai-gpt-family--openai-com", "-p", f"high={MISTRAL}"), 6, f"; did you mean: "),
    (("between", "-p", "low=openai-gpt-family--openai-com", "-p", f"high={MISTRAL}"), 6, f"{OPENAI} (OpenAI GPT"),
    (("predict-citations", "-p", f"system={NOT_A_PAPER}"), 6, "is not a paper"),
    (("between", "-p", f"low={MISTRAL}", "-p", f"high={OPENAI}", "-p", "use_case=offline"), 2,
     "did you mean offline-capable?"),
    (("recommend", "-p", "colour=blue"), 2, "has no parameter colour"),
    (("recommend", "-p", "shape=swarm"), 2, "is not one of single-agent"),
    (("recommend",), 2, "needs a project"),
    (("between", "-p", f"low={MISTRAL}"), 2, "needs --param high"),
])
def test_the_command_errors_are_one_line_with_their_exit_code(full_shape_store, args, code, said):
    ran = run_kg(full_shape_store, *args)
    assert said in one_line_error(ran, code) and not ran.stdout


# -- kg mcp --------------------------------------------------------------------------------------------


def test_each_tool_is_an_mcp_tool_with_schemas(full_shape_store, expected):
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "kg", "mcp", "--store", str(full_shape_store.path)])
    with start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(Client(params, mode="legacy")) as client:
            tools = {t.name: t for t in portal.call(client.list_tools).tools}
            call = lambda name, arguments: portal.call(partial(client.call_tool, name, arguments))  # noqa: E731
            assert set(TOOLS) <= set(tools)
            between = tools["between"]
            assert between.input_schema["required"] == ["low", "high"]
            assert between.input_schema["properties"]["use_case"]["enum"] == list(advice.USE_CASE_TAGS)
            assert list(between.output_schema["properties"]["rows"]["items"]["properties"]) == expected["between"].columns
            result = call("between", {"low": MISTRAL, "high": OPENAI, "use_case": "offline-capable", "k": 4,
                                      "today": TODAY})
            assert not result.is_error, result.content[0].text
            assert result.structured_content["rows"] == flat(expected["between"])
            assert result.structured_content.get("notes", []) == expected["between"].notes
            result = call("breakouts", {"limit": 2, "today": TODAY})
            assert result.structured_content["rows"] == flat(expected["breakouts"])
            assert result.structured_content["notes"] == expected["breakouts"].notes  # how many qualify
            for arguments, said in (({"system": NOT_A_PAPER}, "is not a paper"),
                                    ({"system": "adaptive-rag--arxiv-2304-2031"}, f"did you mean: {PAPER} (Adaptive-RAG")):
                refused = call("predict-citations", arguments)
                assert refused.is_error and said in refused.content[0].text
            refused = call("between", {"low": MISTRAL, "high": OPENAI, "use_case": "gpu"})
            assert refused.is_error and "is not one of" in refused.content[0].text


# -- kg serve ------------------------------------------------------------------------------------------


def test_each_tool_is_a_page_with_a_form(full_shape_store, expected):
    with kg_serve(full_shape_store.path) as url:
        for name in TOOLS:
            status, _, page = http("GET", f"{url}/queries/{name}")
            assert status == 200 and b'<form method="get" action="/queries/' + name.encode() in page
        status, _, page = http("GET", f"{url}/queries/between")
        assert b'<select id="p-use_case" name="use_case"><option value="">not given</option>' in page
        asked = {"low": MISTRAL, "high": OPENAI, "use_case": "offline-capable", "k": "4", "today": TODAY}
        status, _, body = http("GET", f"{url}/queries/between?" + urlencode({**asked, "run": "1", "format": "json"}))
        assert status == 200
        bindings = json.loads(body)["results"]["bindings"]
        assert [b["id"]["value"] for b in bindings] == [r["id"] for r in expected["between"].rows]
        status, _, page = http("GET", f"{url}/queries/between?" + urlencode({**asked, "run": "1"}))
        assert status == 200 and all(f"/system/{r['id']}\"".encode() in page for r in expected["between"].rows)
        status, _, page = http("GET", f"{url}/queries/predict-citations?" + urlencode({"system": NOT_A_PAPER,
                                                                                       "run": "1"}))
        assert status == 404 and b"is not a paper" in page
        status, _, page = http("GET", f"{url}/queries/between?" + urlencode({**asked, "use_case": "offline", "run": "1"}))
        assert status == 400 and b"did you mean offline-capable?" in page
        status, _, page = http("GET", f"{url}/queries/recommend?run=1")
        assert status == 400 and b"needs a project" in page
