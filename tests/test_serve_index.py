"""The served index of systems (``/id/system/``) is ``find``: its query string is find's
parameters, its rows and facet counts are find's answer, each facet value a link that narrows
the list, and a refused parameter gets find's own error. Checked in-process (Starlette's test
client over the app) on the bundled catalog, against answers computed from the JSON."""

from __future__ import annotations

import html
import re
from collections import Counter
from urllib.parse import urlencode

import pytest

from kg.errors import QueryError
from kg.find import find

SUPPORT = ("native", "adapter", "client")


@pytest.fixture(scope="module")
def client(bundled_store):
    from starlette.testclient import TestClient

    from kg.serve import create_app

    with TestClient(create_app(bundled_store.path, workers=1, allowed_hosts=("testserver",))) as test_client:
        yield test_client


def page(client, params: dict) -> tuple[int, str]:
    answer = client.get("/id/system/?" + urlencode(params), headers={"Accept": "text/html"})
    return answer.status_code, answer.text


def listed(text: str) -> list[str]:
    """The ids of the systems in the page's table, in order."""
    return re.findall(r'<tr><td><a href="/id/system/([^"]+)">', text)


def facets_shown(text: str) -> dict[str, dict[str, tuple[int, str]]]:
    """Per facet parameter: value -> (count, the link's query string)."""
    shown = {}
    for param, body in re.findall(r'<details class="facet" data-param="([^"]+)"[^>]*>(.*?)</details>', text, re.S):
        links = re.findall(r'<a href="([^"]+)" data-value="([^"]*)"[^>]*>[^<]* <span class="n">\((\d+)\)</span></a>', body)
        shown[param] = {html.unescape(value): (int(n), html.unescape(href)) for href, value, n in links}
    return shown


def expected(find_oracle, facets: dict) -> tuple[list[str], list[dict]]:
    chosen = [f for f in find_oracle.facts if find_oracle.matches(f, facets)]
    chosen.sort(key=lambda f: (f["tier"], f["name"].lower(), f["id"]))
    return [f["id"] for f in chosen], chosen


@pytest.mark.parametrize("facets", [
    {"open": "true", "selfhost": "true", "protocol": "mcp"},
    {"text": "graph", "storage": "graph", "tier": "1"},
])
def test_the_index_is_find_with_its_counts(client, bundled_store, find_oracle, expected_records, facets):
    status, text = page(client, facets)
    assert status == 200
    ids, chosen = expected(find_oracle, facets)
    assert ids and listed(text) == ids
    assert f'<p class="muted" id="count">{len(ids)} of {len(expected_records)} systems</p>' in text
    shown = facets_shown(text)
    counts = {param: {value: n for value, (n, _) in values.items()} for param, values in shown.items()}
    # the counts, from the JSON
    assert counts["tier"] == {str(k): n for k, n in Counter(f["tier"] for f in chosen).items()}
    assert counts["protocol"] == dict(Counter(p for f in chosen for p, m in f["modes"].items() if m in SUPPORT))
    assert counts["open"] == dict(Counter(str(f["open"]).lower() for f in chosen))
    hostable = Counter(str(f["deployment"] in ("self-hosted", "both")).lower() for f in chosen)
    assert counts["selfhost"] == dict(hostable)
    for axis in find_oracle.axes:
        assert counts.get(axis, {}) == dict(Counter(v for f in chosen for v in f["taxonomy"][axis]))
    # and the API's answer
    api = find(bundled_store, facets)
    assert [r["id"] for r in api.rows] == ids
    for param, facet in (("tier", "tier"), ("protocol", "protocol"), ("mode", "mode"), ("vendor", "vendor_name"),
                         ("section", "primary_section"), *((a, a) for a in find_oracle.axes)):
        assert counts.get(param, {}) == dict(api.facets[facet]), param


def test_a_facet_link_narrows_the_list(client, find_oracle):
    facets = {"open": "true", "selfhost": "true", "protocol": "mcp"}
    shown = facets_shown(page(client, facets)[1])
    value, (count, link) = min(shown["tier"].items())
    assert link == "?" + urlencode({**facets, "tier": value})
    status, text = page(client, {**facets, "tier": value})
    assert status == 200 and listed(text) == expected(find_oracle, {**facets, "tier": value})[0]
    assert len(listed(text)) == count
    # the chosen facet is shown with a link that drops it
    assert f'<a href="?{html.escape(urlencode(facets))}" aria-label="remove this filter">' in text


@pytest.mark.parametrize("params", [{"protocol": "gopher"}, {"tier": "one"}, {"open": "maybe"}, {"license": "MIT"}])
def test_a_refused_parameter_gets_finds_own_error(client, bundled_store, params):
    with pytest.raises(QueryError) as refused:
        find(bundled_store, params)
    status, text = page(client, params)
    assert status == 400 and html.escape(str(refused.value)) in text and listed(text) == []
    answer = client.get("/id/system/?" + urlencode(params), headers={"Accept": "text/turtle"})
    assert answer.status_code == 400 and str(refused.value) in answer.text
