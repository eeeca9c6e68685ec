"""The served index of systems (``/id/system/``) is ``find``: its query string is find's
parameters, its rows and facet counts are find's answer, each facet value a link that narrows
the list, and a refused parameter gets find's own error. Checked in-process (Starlette's test
client over the app) on the bundled catalog, against answers computed from the JSON."""

from __future__ import annotations

import html
import re
from collections import Counter
from urllib.parse import parse_qsl, urlencode

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
    chosen.sort(key=lambda f: find_oracle.order(f, facets))
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
    # a support mode with a protocol chosen is that protocol's (what its link filters), else any protocol's
    if "protocol" in facets:
        assert counts["mode"] == dict(Counter(f["modes"][facets["protocol"]] for f in chosen))
    else:
        assert counts["mode"] == dict(Counter(m for f in chosen for m in set(f["modes"].values())))
    assert counts["open"] == dict(Counter(str(f["open"]).lower() for f in chosen))
    hostable = Counter(str(f["deployment"] in ("self-hosted", "both")).lower() for f in chosen)
    assert counts["selfhost"] == dict(hostable)
    for axis in find_oracle.axes:
        assert counts.get(axis, {}) == dict(Counter(v for f in chosen for v in f["taxonomy"][axis]))
    # and the API's answer
    api = find(bundled_store, facets)
    assert [r["id"] for r in api.rows] == ids
    for param, facet in (("tier", "tier"), ("protocol", "protocol"), ("vendor", "vendor_name"),
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


# the index form's own messages (written here by hand), and find's for a parameter it does not have
@pytest.mark.parametrize("params,message", [
    ({"protocol": "gopher"}, "Protocol must be one of mcp, a2a, opentelemetry."),
    ({"tier": "one"}, "Tier must be a whole number, such as 1."), ({"tier": "abc"}, "Tier must be a whole number, such as 1."),
    ({"open": "maybe"}, "Open source must be true or false."), ({"mode": "x"}, "Support mode must be one of native, "
                                                                "adapter, client, none, not-applicable, unknown."),
    ({"limit": "ten"}, "limit must be a whole number of rows (0 or more), not 'ten'"),
    ({"license": "MIT"}, None),
])
def test_a_refused_parameter_gets_the_forms_message(client, bundled_store, params, message):
    if message is None:
        with pytest.raises(QueryError) as refused:
            find(bundled_store, params)
        message = str(refused.value)
    status, text = page(client, params)
    assert status == 400 and f'<p class="error" role="alert">{html.escape(message)}</p>' in text and listed(text) == []
    assert "invalid literal" not in text and "<form" in text
    answer = client.get("/id/system/?" + urlencode(params), headers={"Accept": "text/turtle"})
    assert answer.status_code == 400 and answer.json() == {"error": "bad-parameter", "message": message}


def total(client, query: str) -> int:
    """The index's total for a query string (its JSON)."""
    answer = client.get("/id/system/" + query + ("&" if "?" in query else "?") + "format=json")
    assert answer.status_code == 200
    return answer.json()["total"]


@pytest.mark.parametrize("facets", [{"open": "true", "selfhost": "true", "protocol": "mcp"}, {"mode": "adapter"},
                                    {"protocol": "a2a", "mode": "native"}, {"tier": "2"}])
def test_every_facet_count_is_what_its_link_finds(client, find_oracle, facets):
    """The issue's example: on open, self-hostable, MCP systems the support modes counted MCP's mode
    (the link filters it), not every protocol's; each count is checked against the JSON, and
    against the list its link gives."""
    shown = facets_shown(page(client, facets)[1])
    assert shown["mode"] and shown["protocol"]
    for param in ("mode", "protocol", "tier", "open"):
        for value, (count, link) in shown.get(param, {}).items():
            if facets.get(param) not in (None, value):
                continue  # another value of a facet already chosen: counted among the rows shown
            want = expected(find_oracle, dict(parse_qsl(link[1:])))[0]
            assert count == len(want) == total(client, link), (param, value)


def test_the_issues_support_mode_counts(client, find_oracle):
    facets = {"open": "true", "selfhost": "true", "protocol": "mcp"}
    ids, chosen = expected(find_oracle, facets)
    counts = {v: n for v, (n, _) in facets_shown(page(client, facets)[1])["mode"].items()}
    assert sum(counts.values()) == len(ids)  # one MCP mode each: the counts add up to the list
    assert counts == dict(Counter(f["modes"]["mcp"] for f in chosen))


def test_the_index_is_paged(client, find_oracle, expected_records):
    """100 rows a page by default, next and previous links (in the page and in Link), the total
    in the JSON; the pages together are the whole list, in find's order."""
    every = expected(find_oracle, {})[0]
    answer = client.get("/id/system/", headers={"Accept": "text/html"})
    assert listed(answer.text) == every[:100]
    assert answer.headers["link"] == '<?offset=100&limit=100>; rel="next"'
    assert '<a href="?offset=100&amp;limit=100" rel="next">' in answer.text
    assert f'<p class="muted" id="count">{len(every)} of {len(expected_records)} systems</p>' in answer.text
    seen, url = [], "/id/system/?limit=250&format=json"
    while url:
        document = client.get(url).json()
        assert document["total"] == len(every) and document["limit"] == 250
        seen += [r["id"] for r in document["rows"]]
        url = document["next"]
    assert seen == every
    last = client.get(f"/id/system/?offset={len(every) - 5}", headers={"Accept": "text/html"})
    assert listed(last.text) == every[-5:] and 'rel="prev"' in last.text and 'rel="next"' not in last.text
    assert "next" not in last.headers["link"]
    # a facet link starts the narrower list at its first page
    assert "offset" not in facets_shown(client.get("/id/system/?offset=100").text)["tier"]["1"][1]


# ---------------------------------------------------------------------------
# sorted by any column shown; the table as CSV


def by_name(find_oracle, facets: dict, descending: bool = False) -> list[str]:
    """The ids find gives for ``facets``, sorted by name (case folded) as the index sorts them: ties
    kept in find's order, the other way with ``descending`` (ties still in find's order)."""
    ids = expected(find_oracle, facets)[0]
    names = {f["id"]: f["name"].casefold() for f in find_oracle.facts}
    return sorted(ids, key=lambda i: names[i], reverse=descending)


def test_the_index_sorts_by_any_column_shown(client, find_oracle, expected_records):
    every = by_name(find_oracle, {})
    status, text = page(client, {"sort": "name", "limit": "1000"})
    assert status == 200 and listed(text) == every
    assert f'<p class="muted" id="count">{len(every)} of {len(expected_records)} systems</p>' in text
    assert '<th aria-sort="ascending"><a href="?sort=-name&amp;limit=1000" data-sort="name">' in text
    assert listed(page(client, {"sort": "-name", "limit": "1000"})[1]) == by_name(find_oracle, {}, True)
    tiers = [expected_records[i]["tier"] for i in listed(page(client, {"sort": "-tier", "limit": "1000"})[1])]
    assert tiers == sorted((r["tier"] for r in expected_records.values()), reverse=True)
    # paged: the second page goes on where the first stopped
    assert listed(page(client, {"sort": "name", "offset": "100"})[1]) == every[100:200]
    # every column shown sorts: its cells in order (empty ones last), the same systems
    for key, column in (("vendor", 3), ("section", 2), ("deployment", 5), ("protocols", 6), ("open", 4)):
        shown = client.get(f"/id/system/?sort={key}&limit=1000&tier=1").text
        cells = [html.unescape(re.sub(r"<[^>]+>", "", row[column])) for row in
                 (re.findall(r"<td[^>]*>(.*?)</td>", tr) for tr in re.findall(r"<tr><td>.*?</tr>", shown))]
        filled = [c.casefold() for c in cells if c]
        assert filled == sorted(filled) and cells == [c for c in cells if c] + [c for c in cells if not c], key
        assert sorted(listed(shown)) == sorted(expected(find_oracle, {"tier": "1"})[0]), key
    # the facets' links keep the order
    assert "sort=name" in facets_shown(text)["tier"]["1"][1]


def test_a_sort_by_no_column_is_refused(client):
    status, text = page(client, {"sort": "price"})
    keys = "name, tier, section, vendor, open, deployment, protocols"
    assert status == 400 and f"Sort by one of the columns: {keys}" in text


def test_the_index_as_csv_sorted(client, find_oracle, expected_records):
    """The issue's check: ``?format=csv&sort=name`` is the whole sorted table, every column of find."""
    import csv
    import io

    from kg.find import columns

    answer = client.get("/id/system/?format=csv&sort=name")
    assert answer.status_code == 200 and answer.headers["content-type"] == "text/csv; charset=utf-8"
    rows = list(csv.DictReader(io.StringIO(answer.text)))
    assert list(rows[0]) == columns()
    assert [r["id"] for r in rows] == by_name(find_oracle, {})
    assert {r["id"]: int(r["tier"]) for r in rows} == {i: r["tier"] for i, r in expected_records.items()}
    assert {r["id"]: r["name"] for r in rows} == {i: r["name"] for i, r in expected_records.items()}
    # with facets, the other way, by Accept
    narrowed = client.get("/id/system/?tier=1&open=true&sort=-name", headers={"Accept": "text/csv"})
    assert [r["id"] for r in csv.DictReader(io.StringIO(narrowed.text))] == by_name(
        find_oracle, {"tier": "1", "open": "true"}, True)
    # paged when asked, with its next page in Link
    first = client.get("/id/system/?format=csv&sort=name&limit=10")
    assert [r["id"] for r in csv.DictReader(io.StringIO(first.text))] == by_name(find_oracle, {})[:10]
    assert first.headers["link"] == '<?sort=name&format=csv&offset=10&limit=10>; rel="next"'
    # and JSON sorts the same way
    document = client.get("/id/system/?format=json&sort=name&limit=1000").json()
    assert [r["id"] for r in document["rows"]] == by_name(find_oracle, {})


def test_a_format_the_index_has_not_is_refused_with_those_it_has(client):
    answer = client.get("/id/system/?format=xlsx")
    assert answer.status_code == 400
    assert answer.json()["message"] == "format must be one of html, json, csv, turtle, jsonld, ntriples, rdfxml"


def test_the_facets_are_beside_the_table(client):
    """The facets are a column of their own before the table (a grid), each group collapsible."""
    text = page(client, {})[1]
    assert text.index('<aside class="facets"') < text.index('<table class="systems">')
    assert re.search(r'<div class="catalog">\s*<aside class="facets"', text)
    assert text.count("<details class=\"facet\"") >= 10


# ---------------------------------------------------------------------------
# past find's default limit (1,000 rows): the sort, the count and the facets are over every match


@pytest.fixture(scope="module")
def grown(tmp_path_factory, bundled_store, site_catalog):
    """The bundled catalog and 120 copies of its tier-3 records named '~ copy N' (last in find's
    order, first when sorted by name descending), so that more than 1,000 systems match."""
    import copy
    import json

    from kg.ingestion import ingest_paths
    from kg.store import GraphStore

    folder = tmp_path_factory.mktemp("grown")
    bundled_store.backup(folder / "store")
    tier3 = [r for r in site_catalog["records"] if r["tier"] == 3][:120]
    copies = []
    for n, record in enumerate(tier3):
        made = copy.deepcopy(record)
        made["id"], made["name"] = f"{record['id']}-copy-{n:03d}", f"~ copy {n:03d}"
        copies.append(made)
    (folder / "copies.json").write_text(json.dumps({"records": copies}), encoding="utf-8")
    store = GraphStore(folder / "store")
    assert not ingest_paths(store, [str(folder / "copies.json")]).quarantined
    names = {r["id"]: r["name"] for r in site_catalog["records"]} | {c["id"]: c["name"] for c in copies}
    tiers = {r["id"]: r["tier"] for r in site_catalog["records"]} | {c["id"]: 3 for c in copies}
    return store, names, tiers


def test_past_a_thousand_systems_the_index_sorts_counts_and_facets_them_all(grown):
    from starlette.testclient import TestClient

    from kg.serve import create_app

    store, names, tiers = grown
    names = {i: n for i, n in names.items() if i in tiers}
    with TestClient(create_app(store.path, workers=1, allowed_hosts=("testserver",))) as client:
        got = client.get("/id/system/?sort=-name&limit=100&format=json").json()
        first = client.get("/id/system/?sort=-name&limit=100", headers={"Accept": "text/html"}).text
    systems = set(names)
    expected_ids = sorted(systems, key=lambda i: names[i].casefold(), reverse=True)
    assert got["total"] == len(systems) > 1000
    assert [r["id"] for r in got["rows"]][:100] == expected_ids[:100]  # the copies, '~ copy 119' first
    assert listed(first) == expected_ids[:100]
    tier_counts = {f["value"]: f["systems"] for f in got["facets"]["tier"]}
    assert tier_counts == {str(t): n for t, n in Counter(tiers.values()).items()}
