"""The evidence on the pages of ``kg serve``, as real processes spoken to over HTTP: each cell of a
system page with its findings, the summary and the filters; the findings dashboard and its links;
the Atom feeds of the changes (read by feedparser) after an ingest into the served store, the
changeset and diff pages, and ``show``/``compare`` at a changeset.

Expected answers come from the catalog JSON (data/ and the tiny catalog's files): which T2 cells lack
an http(s) citation, the verification dates, what the test changed.
"""

from __future__ import annotations

import copy
import csv
import datetime as dt
import gc
import io
import json
import re
import time
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlencode

import feedparser
import pytest
from helpers import kg
from serving import http, kg_serve

from kg.ingestion import ingest_paths
from kg.store import GraphStore

ROOT = Path(__file__).resolve().parent.parent
HTTP = re.compile(r"^https?://")
MEM0 = "mem0--mem0-ai"


class Cells(HTMLParser):
    """The cells table of a system page: each row's column, and the rules of its findings."""

    def __init__(self, markup: str) -> None:
        super().__init__()
        self.rows: dict[str, list[str]] = {}
        self.current: str | None = None
        self.feed(markup)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "tr" and (attrs.get("id") or "").startswith("cell-"):
            self.current = attrs["id"][len("cell-"):]
            self.rows[self.current] = []
        if tag == "div" and self.current is not None and "finding" in (attrs.get("class") or ""):
            self.rows[self.current].append(attrs["data-rule"])

    def handle_endtag(self, tag):
        if tag == "tr":
            self.current = None


def t2_without_citation(record: dict) -> set[str]:
    return {slug for slug, cell in record["cells"].items() if cell.get("tier") == "T2"
            and not (isinstance(cell.get("citation"), str) and HTTP.match(cell["citation"]))}


def whole_months(earlier: dt.date, later: dt.date) -> int:
    return (later.year - earlier.year) * 12 + later.month - earlier.month - (later.day < earlier.day)


@pytest.fixture(scope="module")
def served(bundled_store):
    with kg_serve(bundled_store.path, "--workers", "2") as url:
        yield url


def page(url: str) -> str:
    status, _, body = http("GET", url, Accept="text/html")
    assert status == 200, body[:500]
    return body.decode("utf-8")


def test_a_system_page_shows_each_cells_findings_beside_it(served, expected_records):
    record = expected_records[MEM0]
    text = page(f"{served}/id/system/{MEM0}")
    cells = Cells(text).rows
    expected = t2_without_citation(record)
    assert len(expected) == 20
    assert set(cells) == set(record["cells"])
    assert {slug for slug, rules in cells.items() if rules} == expected
    assert all(rules == ["T2Citation"] for slug, rules in cells.items() if rules)
    # the summary counts them, and the claims by status and tier, and the oldest verification
    assert f'<span class="count" id="findings-count">{len(expected)}</span>' in text
    assert f'<span class="pill sev-violation">{len(expected)} Violation</span>' in text
    for key in ("status", "tier"):
        for value, n in Counter(c[key] for c in record["cells"].values()).items():
            assert f'<span class="pill">{value} {n}</span>' in text, (key, value)
    assert f"{record['last_verified_at']} (" in text.split('<td>oldest verification</td>')[1][:200]
    assert 'href="/findings#rule-T2Citation"' in text


def test_the_filters_keep_the_cells_with_findings_or_the_stale_ones(served, expected_records):
    record = expected_records[MEM0]
    only = Cells(page(f"{served}/id/system/{MEM0}?only=findings")).rows
    assert set(only) == t2_without_citation(record) and all(only.values())
    today = dt.datetime.now(dt.timezone.utc).date()
    verified = dt.date.fromisoformat(record["last_verified_at"])
    for months in (1, 6, 12, 24):
        stale = Cells(page(f"{served}/id/system/{MEM0}?only=stale&months={months}")).rows
        assert set(stale) == (set(record["cells"]) if whole_months(verified, today) >= months else set()), months
    status, _, body = http("GET", f"{served}/id/system/{MEM0}?only=nonsense", Accept="application/json")
    assert status == 400 and json.loads(body)["error"] == "bad-parameter"


def _t2_by_column(expected_records: dict) -> Counter:
    return Counter(slug for record in expected_records.values() for slug in t2_without_citation(record))


def test_the_dashboard_counts_rule_by_column_and_its_links_open_the_records(served, expected_records):
    expected = _t2_by_column(expected_records)
    status, headers, body = http("GET", f"{served}/findings?format=json")
    assert status == 200 and headers["content-type"].startswith("application/json")
    shown = json.loads(body)
    row = next(r for r in shown["by_column"]["rows"] if r["rule"] == "T2Citation")
    assert row["total"] == sum(expected.values()) == 12242
    counts = {key: cell["count"] for key, cell in zip(shown["by_column"]["keys"], row["cells"]) if cell["count"]}
    assert counts == dict(expected)
    # a count's link: the findings it counts, as a page and as CSV
    link = next(cell["href"] for key, cell in zip(shown["by_column"]["keys"], row["cells"]) if key == "license")
    assert link == "/queries/findings?" + urlencode({"rule": "T2Citation", "column": "license",
                                                    "limit": str(expected["license"]), "run": "1"})
    status, _, body = http("GET", f"{served}{link}&format=csv")
    listed = list(csv.DictReader(io.StringIO(body.decode("utf-8"))))
    assert status == 200 and len(listed) == expected["license"]
    assert {r["id"] for r in listed} == {rid for rid, r in expected_records.items() if "license" in t2_without_citation(r)}
    assert {r["rule"] for r in listed} == {"T2Citation"} and {r["column"] for r in listed} == {"license"}
    html_page = page(f"{served}/findings")
    assert f'href="{link.replace("&", "&amp;")}">{expected["license"]}</a>' in html_page
    assert 'id="rule-T2Citation"' in html_page
    # the rule's total is paged: a Link to the next page
    status, headers, _ = http("GET", f"{served}{row['total_href']}&format=csv")
    assert status == 200 and 'rel="next"' in headers["link"]


def test_the_dashboards_freshness_is_the_stale_querys(served, bundled_store):
    shown = json.loads(http("GET", f"{served}/findings?format=json")[2])
    day = shown["freshness"]["today"]
    for scope, by in (("records", "section"), ("cells", "column")):
        done = kg("query", "stale", "--store", str(bundled_store.path), "-p", f"scope={scope}", "-p", f"today={day}",
                  "-p", "limit=100000", "-f", "json")
        rows = json.loads(done.stdout)
        for months in (12, 24):
            assert shown["freshness"][scope]["total"][str(months)] == sum(r["months"] >= months for r in rows)


def test_pages_answer_conditional_gets(served):
    for path in ("/findings", f"/id/system/{MEM0}?only=findings", "/changes.atom", f"/id/system/{MEM0}/changes.atom"):
        status, headers, _ = http("GET", served + path)
        assert status == 200 and headers.get("etag"), path
        assert http("GET", served + path, **{"If-None-Match": headers["etag"]})[0] == 304, path


def test_a_page_that_counts_ages_is_not_current_the_next_day():
    """The same generation and target: yesterday's tag and date no longer match a page dated today."""
    from email.utils import formatdate

    from kg.serve.conditional_get import validate

    page = {"status": 200, "type": "text/html", "body": b"<p>3 months ago</p>", "headers": {}}
    current = ("7", 1_700_000_000.0)  # made current in November 2023
    yesterday = validate(page, "/findings", current, {}, day="2026-12-06")
    today = validate(page, "/findings", current, {}, day="2026-12-07")
    assert yesterday["headers"]["ETag"] != today["headers"]["ETag"]
    assert today["headers"]["Last-Modified"] == "Mon, 07 Dec 2026 00:00:00 GMT"
    old = {"if-none-match": yesterday["headers"]["ETag"]}
    assert validate(page, "/findings", current, old, day="2026-12-07")["status"] == 200
    since = {"if-modified-since": yesterday["headers"]["Last-Modified"]}
    assert validate(page, "/findings", current, since, day="2026-12-07")["status"] == 200
    assert validate(page, "/findings", current, since, day="2026-12-06")["status"] == 304
    undated = validate(page, "/findings", current, {"if-modified-since": formatdate(current[1], usegmt=True)})
    assert undated["status"] == 304  # an answer that counts no age keeps the generation's date


def test_the_pages_that_count_ages_say_the_day(served):
    """What the server sends its workers for the pages with ages, and for a named query that counts
    to today (stale) against one that does not (search)."""
    from kg.serve import routes
    from kg.serve.asgi import _Request

    def sent(target: str) -> dict:
        path, _, query = target.partition("?")
        route, path_params = routes.route_for(path)
        request = _Request("GET", target, served, {}, b"", path_params)
        return route.view.respond(SimpleNamespace(config=SimpleNamespace(max_rows=10, max_bytes=10_000)),
                                  request).msg

    today = dt.datetime.now(dt.timezone.utc).date().isoformat()
    assert sent("/findings")["today"] == today and sent(f"/id/system/{MEM0}")["today"] == today
    assert sent("/queries/stale?run=1")["today"] == today
    assert sent("/queries/stale?run=1&today=2025-01-01").get("today") is None
    assert sent("/queries/search?run=1&text=graph").get("today") is None


# ---------------------------------------------------------------------------
# feeds, after an ingest into a served store


@pytest.fixture(scope="module")
def changing(tmp_path_factory, tiny_paths):
    """A store of the tiny catalog, served; yields its URL, path and a function that ingests mem0
    changed (tier, the licence cell's value and citation) and waits until the server answers from it."""
    folder = tmp_path_factory.mktemp("feeds")
    path = folder / "kg-store"
    store = GraphStore(path)
    assert not ingest_paths(store, tiny_paths).quarantined
    del store
    gc.collect()
    site = json.loads(Path(tiny_paths[0]).read_text(encoding="utf-8"))
    mem0 = copy.deepcopy(next(r for r in site["records"] if r["id"] == MEM0))
    changed = copy.deepcopy(mem0)
    changed["tier"] = 2
    changed["cells"]["license"].update(value="MIT (changed by the test)", citation="https://example.org/licence")
    (folder / "mem0.json").write_text(json.dumps(changed), encoding="utf-8")
    with kg_serve(path) as url:
        yield {"url": url, "path": path, "before": mem0, "after": changed, "file": folder / "mem0.json",
               "other": next(r["id"] for r in site["records"] if r["id"] != MEM0)}


def feed(url: str):
    status, headers, body = http("GET", url)
    assert status == 200 and headers["content-type"].startswith("application/atom+xml"), body[:300]
    parsed = feedparser.parse(body)
    assert not parsed.bozo, parsed.get("bozo_exception")
    return parsed, headers


def test_feeds_hold_a_new_entry_naming_the_changed_fields(changing):
    url, before, after = changing["url"], changing["before"], changing["after"]
    section = next(s["section"] for s in before["sections"] if s["primary"])
    slug = re.sub(r"[^a-z0-9]+", "-", section.lower()).strip("-")
    feeds = [f"{url}/changes.atom", f"{url}/id/system/{MEM0}/changes.atom", f"{url}/id/section/{slug}/changes.atom"]
    first = [feed(f) for f in feeds]
    assert [len(parsed.entries) for parsed, _ in first] == [1, 1, 1]  # the tiny catalog's one ingest
    done = kg("ingest", "--store", str(changing["path"]), str(changing["file"]))
    assert done.returncode == 0, done.stderr
    deadline = time.monotonic() + 30
    while len(feed(feeds[0])[0].entries) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    for (old, old_headers), address in zip(first, feeds):
        parsed, headers = feed(address)
        assert len(parsed.entries) == 2, address
        newest = parsed.entries[0]
        assert headers["etag"] != old_headers["etag"]
        assert http("GET", address, **{"If-None-Match": old_headers["etag"]})[0] == 200
        assert http("GET", address, **{"If-None-Match": headers["etag"]})[0] == 304
        content = newest.content[0].value
        assert f"<code>tier</code> {before['tier']} &#8594; {after['tier']}" in content
        assert (f"<code>cells.license</code> {before['cells']['license']['value']} &#8594; "
                f"{after['cells']['license']['value']}") in content
        assert f"citation (none) &#8594; {after['cells']['license']['citation']}" in content
        assert "changeset 2" in newest.title
        assert newest.link.endswith("/changes/2" + (f"?id={MEM0}" if "/id/system/" in address else ""))
        assert newest.updated_parsed is not None and parsed.feed.rights.startswith("AI Agent Infrastructure")
    system = feed(feeds[1])[0]
    assert "cells.license" in system.entries[0].title and "tier" in system.entries[0].title
    # the entry's link: the changeset's page, field by field
    text = page(system.entries[0].link)
    assert "<code>cells.license</code>" in text and "MIT (changed by the test)" in text


def test_show_and_compare_at_a_changeset_show_the_record_as_it_was(changing):
    url, before, after = changing["url"], changing["before"], changing["after"]
    other = changing["other"]
    query = {"a": MEM0, "b": other, "run": "1", "format": "csv"}
    then = list(csv.DictReader(io.StringIO(http("GET", f"{url}/queries/compare?{urlencode({**query, 'at': '1'})}")[2]
                                           .decode("utf-8"))))
    now = list(csv.DictReader(io.StringIO(http("GET", f"{url}/queries/compare?{urlencode(query)}")[2].decode("utf-8"))))
    tier = {row["kind"] + "/" + row["field"]: row["a_value"] for row in then}
    assert tier["record/tier"] == str(before["tier"]) and tier["cell/license"] == before["cells"]["license"]["value"]
    tier = {row["kind"] + "/" + row["field"]: row["a_value"] for row in now}
    assert tier["record/tier"] == str(after["tier"]) and tier["cell/license"] == after["cells"]["license"]["value"]
    text = page(f"{url}/queries/show?{urlencode({'id': MEM0, 'run': '1', 'at': '1'})}")
    assert "As the records were right after changeset" in text
    link = re.search(r'<a href="([^"]+)" class="diff">', text).group(1).replace("&amp;", "&")
    assert link == f"/diff?from=1&to=current&id={MEM0}"
    diff = page(url + link)
    assert "MIT (changed by the test)" in diff and "<code>tier</code>" in diff
    status, _, body = http("GET", f"{url}/queries/find?run=1&at=1", Accept="text/html")
    assert status == 400 and b"at (a changeset) is taken by show and compare" in body
