"""``kg serve`` seen through a real browser: headless Chromium renders the pages.

``kg serve`` runs as a user starts it (a process, a free loopback port) over a store
of the bundled catalog. Chromium loads the index of systems (plain, searched, filtered
by a facet), system pages with their neighbourhood picture, the query page, a named
query's form with its parameters filled in and a results page, takes a screenshot of
each and dumps the DOM it rendered; the DOM must hold what the JSON files say (names,
cells, the systems at the other end of each edge, which systems a search or a facet
finds), all computed here from the JSON files. Set ``KG_SCREENSHOTS=DIR`` to keep the
screenshots for a look.

Needs Chromium (Debian: ``apt-get install -y --no-install-recommends chromium``); the
tests are skipped where there is none (CI installs it).
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import signal
import struct
import subprocess
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest
from helpers import kg_command


CHROMIUM = os.environ.get("KG_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium: apt-get install -y chromium")
WIDTH, HEIGHT = 1280, 2000


class Page(HTMLParser):
    """The text of a rendered page: the h1, the table rows (td cells) under each h2, link texts,
    form fields."""

    def __init__(self, markup: str) -> None:
        super().__init__()
        self.h1 = ""
        self.title = ""
        self.sections: dict[str, list[list[str]]] = {}
        self.links: list[tuple[str, str]] = []
        self.fields: list[tuple[str, str]] = []
        self.textarea = ""
        self.svg = ""  # the inline SVG pictures, as markup
        self.options: dict[str, list[tuple[str, str, bool]]] = {}  # select name -> (value, text, selected)
        self.inputs: dict[str, dict[str, str | None]] = {}  # input name -> its attributes
        self._select: str | None = None
        self._option: tuple[str, bool] | None = None
        self._heading: str | None = None
        self._in: str | None = None
        self._text: list[str] = []
        self._row: list[str] | None = None
        self._href: str | None = None
        self._link_text: list[str] = []
        self.feed(markup)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("h1", "h2", "td", "th", "title", "textarea"):
            self._in, self._text = tag, []
        if tag == "tr":
            self._row = []
        if tag == "a":
            self._href, self._link_text = attrs.get("href"), []
        if tag in ("textarea", "select", "input", "button") and attrs.get("name"):
            self.fields.append((tag, attrs["name"]))
        if tag == "input" and attrs.get("name"):
            self.inputs[attrs["name"]] = attrs
        if tag == "select":
            self._select = attrs.get("name")
            self.options.setdefault(self._select or "", [])
        if tag == "option":
            self._option, self._text = (attrs.get("value") or "", "selected" in attrs), []

    def handle_endtag(self, tag):
        text = " ".join("".join(self._text).split())
        if tag == "option" and self._option is not None and self._select is not None:
            self.options[self._select].append((self._option[0], text, self._option[1]))
            self._option = None
        if tag == self._in:
            if tag == "h1":
                self.h1 = text
            elif tag == "title":
                self.title = self.title or text  # the page's, not an SVG element's
            elif tag == "textarea":
                self.textarea = "".join(self._text)
            elif tag == "h2":
                self._heading = text
                self.sections[text] = []
            elif tag == "td" and self._row is not None:  # header cells (th) are left out
                self._row.append(text)
            self._in = None
        if tag == "tr" and self._row is not None:
            if self._row:  # rows before any h2 (a results page) go under ""
                self.sections.setdefault(self._heading or "", []).append(self._row)
            self._row = None
        if tag == "a" and self._href is not None:
            self.links.append((self._href, " ".join("".join(self._link_text).split())))
            self._href = None

    def handle_data(self, data):
        if self._option is not None:
            self._text.append(data)
        if self._in:
            self._text.append(data)
        if self._href is not None:
            self._link_text.append(data)


def chromium(url: str, profile: Path, *, screenshot: Path | None = None) -> str:
    """The DOM Chromium rendered for ``url`` (and a screenshot, when asked)."""
    args = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
            f"--window-size={WIDTH},{HEIGHT}"]
    if screenshot is not None:
        done = subprocess.run(args + [f"--screenshot={screenshot}", url], capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0 and screenshot.is_file(), done.stderr[-2000:]
    done = subprocess.run(args + ["--dump-dom", url], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "<html" in done.stdout, done.stderr[-2000:]
    return done.stdout


def rendered(url: str, profile: Path, screenshot: Path) -> Page:
    """The page Chromium rendered (its inline SVG kept as markup in ``svg``), screenshot kept."""
    dom = chromium(url, profile, screenshot=screenshot)
    keep(screenshot)
    assert png_size(screenshot) == (WIDTH, HEIGHT)
    page = Page(dom)
    page.svg = "".join(re.findall(r"<svg.*?</svg>", dom, flags=re.S))
    return page


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def keep(screenshot: Path) -> None:
    folder = os.environ.get("KG_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        shutil.copy(screenshot, Path(folder) / screenshot.name)


@pytest.fixture(scope="module")
def server(tmp_path_factory, bundled_store):
    """``kg serve`` over the session's store of the bundled catalog, on a free loopback port."""
    folder = tmp_path_factory.mktemp("browser")
    process = subprocess.Popen(kg_command("serve", "--store", str(bundled_store.path), "--port", "0", "--workers", "2",
                                          "--quiet"), stderr=subprocess.PIPE, text=True)
    try:
        line = process.stderr.readline()
        match = re.search(r"query page (http://127\.0\.0\.1:\d+)/ ", line)
        assert match, line
        yield match.group(1), folder
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=30)


def pick(which: str, edges_file, seed_record) -> str:
    """busiest: the record with the most edges; both: the most edges both ways (min of out
    and in); seed: the seed record (the other input shape, no edges)."""
    if which == "seed":
        return seed_record["id"]
    out, into = Counter(e["source"] for e in edges_file["edges"]), Counter(e["target"] for e in edges_file["edges"])
    if which == "busiest":
        return max(out | into, key=lambda k: (out[k] + into[k], k))
    return max(out, key=lambda k: (min(out[k], into[k]), out[k] + into[k], k))


@pytest.mark.parametrize("which", ["busiest", "both", "seed"])
def test_system_page_in_a_browser(server, which, edges_file, expected_records, seed_record):
    url, folder = server
    system = pick(which, edges_file, seed_record)
    record = expected_records[system]
    shot = folder / f"system-{which}.png"
    page = rendered(f"{url}/id/system/{system}", folder / "profile", shot)
    assert shot.stat().st_size > 50_000

    assert page.h1 == record["name"]
    assert page.title.startswith(record["name"])
    facts = {row[0]: row[1] for row in page.sections["Facts"] if len(row) == 2}
    assert facts["dcterms:identifier"] == system
    assert facts["tier"].split()[0] == str(record["tier"])

    # every cell, with its value and status, as the JSON has them
    cells = {row[0]: row for row in page.sections[f"Cells ({len(record['cells'])})"]}
    assert set(cells) == set(record["cells"])
    for slug, cell in record["cells"].items():
        shown = cells[slug]
        if isinstance(cell.get("value"), str):
            assert shown[1] == " ".join(cell["value"].split()), slug
        assert shown[2] == (cell.get("status") or ""), slug
        assert shown[3] == (cell.get("tier") or ""), slug

    # the systems at the other end of its edges, by name, per edge type
    def other_names(direction: str) -> Counter:
        this, other = ("source", "target") if direction == "outgoing" else ("target", "source")
        return Counter((e["type"], expected_records[e[other]]["name"] if e[other] in expected_records else e[other])
                       for e in edges_file["edges"] if e[this] == system)

    for direction, heading in (("outgoing", "Outgoing edges"), ("incoming", "Incoming edges")):
        expected = other_names(direction)
        title = f"{heading} ({sum(expected.values())})"
        if not expected:
            assert not page.sections.get(title)
            continue
        rows = page.sections[title]
        assert Counter((row[0], row[1]) for row in rows) == expected
    if which != "seed":  # pages with real edge tables to look at
        assert sum(other_names("incoming").values()) >= 10

    # the page opens with description, pros and cons, then the picture, then the facts
    headings = list(page.sections)
    lead = [h for h, slug in (("Description", "desc"), ("Pros", "pros"), ("Cons", "cons"))
            if isinstance(record["cells"].get(slug, {}).get("value"), str)]
    assert headings[:len(lead)] == lead
    neighbours = {e["target"] for e in edges_file["edges"] if e["source"] == system} | {
        e["source"] for e in edges_file["edges"] if e["target"] == system}
    if neighbours:
        assert headings[len(lead):len(lead) + 2] == ["Neighbourhood", "Facts"]
        svg = page.svg
        assert svg.count("<svg") == 1
        assert set(re.findall(r'<a href="/id/system/([^"]+)" class="neighbour">', svg)) == neighbours
        titles = set(re.findall(r"<text [^>]*>[^<]*<title>([^<]*)</title></text>", svg))
        assert {html.unescape(t) for t in titles} == {
            expected_records[n]["name"] if n in expected_records else n for n in neighbours}
        assert len(re.findall(r'<line class="edge"', svg)) == sum(
            1 for e in edges_file["edges"] if system in (e["source"], e["target"]))
    else:
        assert "Neighbourhood" not in headings and "<svg" not in page.svg
    if which == "both":
        assert sum(other_names("outgoing").values()) >= 3


def test_query_page_in_a_browser(server):
    url, folder = server
    shot = folder / "query-page.png"
    page = Page(chromium(url + "/", folder / "profile", screenshot=shot))
    keep(shot)
    assert png_size(shot) == (WIDTH, HEIGHT)
    assert page.h1 == "SPARQL query"
    assert ("textarea", "query") in page.fields and ("select", "format") in page.fields
    assert "SELECT" in page.textarea
    examples = [href for href, _ in page.links if href.startswith("/?example=")]
    from kg.queries import available

    assert {href.split("=", 1)[1] for href in examples} == set(available())


def test_results_page_in_a_browser(server, expected_records):
    url, folder = server
    query = """PREFIX kg: <https://w3id.org/agent-landscape/ontology#>
PREFIX dcterms: <http://purl.org/dc/terms/>
PREFIX schema: <https://schema.org/>
SELECT ?id ?name WHERE { ?system a kg:System ; dcterms:identifier ?id ; schema:name ?name ; kg:tier 5 }
ORDER BY ?id"""
    shot = folder / "results.png"
    page = Page(chromium(f"{url}/sparql?{urlencode({'query': query, 'format': 'html'})}", folder / "profile",
                         screenshot=shot))
    keep(shot)
    expected = sorted((rid, r["name"]) for rid, r in expected_records.items() if int(r["tier"]) == 5)
    assert len(expected) == 13
    assert page.h1 == "Results"
    assert [tuple(row) for row in page.sections[""]] == expected


# ---------------------------------------------------------------------------
# The index of systems: search and facets


def listed(page: Page) -> list[str]:
    return [href.rsplit("/", 1)[-1] for href, _ in page.links if href.startswith("/id/system/") and href != "/id/system/"]


def fold(text: str) -> str:
    import unicodedata

    bare = "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))
    return " ".join(bare.split()).lower()


def holds(record: dict, text: str) -> bool:
    """find's text facet and the search query's text: one words matcher (tests/searching.py)."""
    import searching

    return searching.match(text, record["id"], record) is not None


search_holds = holds


def facet_links(page: Page, param: str) -> dict[str, str]:
    """The index's links that set one find parameter: value -> link text ("value (n)")."""
    from urllib.parse import parse_qs

    return {parse_qs(href[1:])[param][0]: text for href, text in page.links
            if href.startswith("?") and param in parse_qs(href[1:]) and len(parse_qs(href[1:])) == 1}


def test_index_in_a_browser(server, expected_records):
    url, folder = server
    page = rendered(f"{url}/id/system/?limit=1000", folder / "profile", folder / "index.png")
    assert page.h1 == "Systems"
    assert sorted(listed(page)) == sorted(expected_records)
    assert ("input", "text") in page.fields
    tiers = facet_links(page, "tier")
    for tier in range(1, 6):
        count = sum(1 for r in expected_records.values() if r["tier"] == tier)
        assert tiers[str(tier)] == f"{tier} ({count})"


def test_search_in_a_browser(server, expected_records):
    url, folder = server
    page = rendered(f"{url}/id/system/?text=graph&limit=1000", folder / "profile", folder / "index-search.png")
    want = {i for i, r in expected_records.items() if holds(r, "graph")}
    assert len(want) > 20 and set(listed(page)) == want
    assert page.inputs["text"]["value"] == "graph"


def test_a_facet_in_a_browser(server, expected_records):
    """The primary-section facet: its link for a section lists the records in a section of that name."""
    url, folder = server
    index = Page(chromium(f"{url}/id/system/?text=memory", folder / "profile"))

    def names(record: dict) -> set[str]:  # the site shape has dicts, the seed shape plain names
        return {s["section"] if isinstance(s, dict) else s for s in record["sections"]}

    from urllib.parse import parse_qs

    links = {parse_qs(href[1:])["section"][0]: href for href, _ in index.links  # the text kept, a section added
             if href.startswith("?") and set(parse_qs(href[1:])) == {"text", "section"}}
    label = sorted(links)[0]
    page = rendered(f"{url}/id/system/{links[label]}&limit=1000", folder / "profile", folder / "index-facet.png")
    want = {i for i, r in expected_records.items()
            if any(label.lower() in n.lower() for n in names(r)) and holds(r, "memory")}
    assert want and set(listed(page)) == want


def test_query_form_with_parameters_in_a_browser(server, expected_records):
    url, folder = server
    form = rendered(f"{url}/queries/search", folder / "profile", folder / "query-form.png")
    assert form.h1 == "Search systems"
    assert "required" in form.inputs["text"] and form.inputs["tier"]["type"] == "number"
    assert form.inputs["limit"]["value"] == "50" and "required" not in form.inputs["tier"]
    page = rendered(f"{url}/queries/search?{urlencode({'text': 'graph', 'tier': '1', 'run': '1'})}",
                    folder / "profile", folder / "query-results.png")
    assert page.inputs["text"]["value"] == "graph" and page.inputs["tier"]["value"] == "1"
    want = {i for i, r in expected_records.items() if r["tier"] == 1 and search_holds(r, "graph")}
    assert 10 < len(want) < 50
    assert {row[0] for row in page.sections["Results"]} == want
    assert {row[1] for row in page.sections["Results"]} == {expected_records[i]["name"] for i in want}


def _t2_without_citation(record: dict) -> set[str]:
    """The columns of a record's T2 cells without an http(s) citation: what T2Citation reports."""
    return {slug for slug, cell in record["cells"].items() if cell.get("tier") == "T2"
            and not (isinstance(cell.get("citation"), str) and re.match(r"^https?://", cell["citation"]))}


def test_evidence_on_a_system_page_in_a_browser(server, expected_records):
    """mem0's page shows its T2Citation findings next to the cells they concern, the summary counts
    them, and the filter (a plain link) shows only those cells."""
    url, folder = server
    record = expected_records["mem0--mem0-ai"]
    expected = _t2_without_citation(record)
    assert len(expected) == 20
    page = rendered(f"{url}/id/system/mem0--mem0-ai", folder / "profile", folder / "evidence.png")
    cells = page.sections[f"Cells ({len(record['cells'])})"]
    assert {row[0] for row in cells} == set(record["cells"])
    assert {row[0] for row in cells if "T2Citation" in row[7]} == expected
    assert all(row[7].startswith("T2Citation Violation: A T2 cell has an http(s) citation.")
               for row in cells if row[0] in expected)
    summary = {row[0]: row[1] for row in page.sections["Evidence"] if len(row) == 2}
    assert summary["findings"] == f"{len(expected)} {len(expected)} Violation"
    assert summary["findings by rule"] == f"T2Citation {len(expected)}"
    assert summary["oldest verification"].startswith(record["last_verified_at"])
    only = rendered(f"{url}/id/system/mem0--mem0-ai?only=findings", folder / "profile", folder / "evidence-only.png")
    kept = only.sections[f"Cells ({len(expected)} of {len(record['cells'])})"]
    assert {row[0] for row in kept} == expected and all("T2Citation" in row[7] for row in kept)
    filters = dict((text, href) for href, text in page.links if "only=" in href)
    assert filters[f"only cells with findings ({len(expected)})"] == "?only=findings#cells"


def test_findings_dashboard_in_a_browser(server, expected_records):
    """/findings: the rule x column matrix, its T2Citation row summing to what the catalog JSON
    gives, and a count's link opens the records it counts."""
    url, folder = server
    by_column = Counter(slug for record in expected_records.values() for slug in _t2_without_citation(record))
    page = rendered(f"{url}/findings", folder / "profile", folder / "findings.png")
    assert page.h1 == "Findings"
    title = next(h for h in page.sections if h.startswith("Findings by rule and column"))
    row = next(r for r in page.sections[title] if r[0].startswith("T2Citation"))
    counts = [int(n) for n in row[1:]]
    assert counts[0] == sum(counts[1:]) == sum(by_column.values()) == 12242
    links = {href: text for href, text in page.links if href.startswith("/queries/findings?rule=T2Citation&column=")}
    column = "license"
    href = f"/queries/findings?rule=T2Citation&column={column}&limit={by_column[column]}&run=1"
    assert links[href] == str(by_column[column])
    records = rendered(url + href, folder / "profile", folder / "findings-records.png")
    shown = records.sections["Results"]
    assert len(shown) == by_column[column]
    assert {r[0] for r in shown} == {rid for rid, r in expected_records.items() if column in _t2_without_citation(r)}


# ---------------------------------------------------------------------------
# Driven pages: Chromium over the DevTools protocol (its pipe: stdlib only, no WebSocket)


def _onto_3_and_4(read: int, write: int) -> None:
    """In the child: Chromium's pipe ends as its file descriptors 3 (it reads) and 4 (it writes)."""
    read, write = os.dup(read), os.dup(write)  # out of the way of 3 and 4 first
    os.dup2(read, 3)
    os.dup2(write, 4)


class Browser:
    """Headless Chromium driven over ``--remote-debugging-pipe`` (JSON messages, NUL-ended, on
    file descriptors 3 and 4): open a page, evaluate JavaScript in it, type, take screenshots,
    and collect what its console and the Content-Security-Policy reported."""

    def __init__(self, profile: Path) -> None:
        self.json = json
        ours_in, chrome_out = os.pipe()  # Chromium writes on its fd 4
        chrome_in, ours_out = os.pipe()  # Chromium reads on its fd 3
        self.process = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
             f"--window-size={WIDTH},{HEIGHT}", "--remote-debugging-pipe", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=tuple({3, 4, chrome_in, chrome_out}), preexec_fn=lambda: _onto_3_and_4(chrome_in, chrome_out))
        os.close(chrome_in)
        os.close(chrome_out)
        self.reader, self.writer = os.fdopen(ours_in, "rb"), os.fdopen(ours_out, "wb")
        self.counter, self.buffer, self.events, self.session = 0, b"", [], None

    def send(self, method: str, **params):
        self.counter += 1
        message = {"id": self.counter, "method": method, "params": params}
        if self.session and not method.startswith("Target."):
            message["sessionId"] = self.session
        self.writer.write(self.json.dumps(message).encode() + b"\0")
        self.writer.flush()
        while True:
            answer = self._next()
            if answer.get("id") == self.counter:
                assert "error" not in answer, answer
                return answer.get("result", {})
            self.events.append(answer)

    def _next(self) -> dict:
        while b"\0" not in self.buffer:
            chunk = os.read(self.reader.fileno(), 1 << 16)
            assert chunk, "Chromium closed its pipe"
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return self.json.loads(message)

    def open(self, url: str, *, fresh: bool = False) -> None:
        """Open ``url`` in a new tab (``fresh``: in a new browser context, which shares no storage
        with the others, as another person's browser would)."""
        place = {"browserContextId": self.send("Target.createBrowserContext")["browserContextId"]} if fresh else {}
        target = self.send("Target.createTarget", url="about:blank", **place)["targetId"]
        self.session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page.enable", "Runtime.enable", "Log.enable"):
            self.send(domain)
        self.send("Page.navigate", url=url)
        self.wait("document.readyState === 'complete'")

    def eval(self, expression: str):
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        assert "exceptionDetails" not in result, result
        return result["result"].get("value")

    def wait(self, condition: str, seconds: float = 30) -> None:
        import time

        deadline = time.monotonic() + seconds
        while not self.eval(f"!!({condition})"):
            assert time.monotonic() < deadline, f"never true: {condition}"
            time.sleep(0.1)

    def screenshot(self, path: Path) -> None:
        import base64

        path.write_bytes(base64.b64decode(self.send("Page.captureScreenshot", format="png")["data"]))
        keep(path)

    def problems(self) -> list[str]:
        """What the console and the security checks reported as errors (CSP refusals among them)."""
        found = []
        for event in self.events:
            params = event.get("params", {})
            entry = params.get("entry") if event.get("method") == "Log.entryAdded" else None
            if entry and entry.get("level") == "error":
                found.append(entry.get("text", "") + " " + entry.get("url", ""))
            if event.get("method") == "Runtime.exceptionThrown":
                found.append(str(params.get("exceptionDetails", {}).get("text")))
        return found

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (AssertionError, OSError):
            pass
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def browser(server):
    _, folder = server
    driven = Browser(folder / "driven-profile")
    try:
        yield driven
    finally:
        driven.close()


def test_the_walk_index_system_ontology_editor_chart(server, browser, expected_records, find_oracle):
    """The issue's walk: the index (paged) -> a system -> the ontology term of one of its
    properties -> a query in the editor (with completion of an ontology term) -> a chart of its
    results; every step checked against the JSON, nothing refused by the CSP, no script error."""
    url, folder = server
    every = sorted(find_oracle.facts, key=lambda f: (f["tier"], f["name"].lower(), f["id"]))
    browser.open(f"{url}/id/system/")
    ids = browser.eval("[...document.querySelectorAll('table.systems tbody tr td:first-child a')]"
                       ".map(a => a.getAttribute('href').split('/').pop())")
    assert ids == [f["id"] for f in every[:100]]
    browser.screenshot(folder / "walk-1-index.png")
    browser.eval("document.querySelector('a[rel=next]').click()")
    browser.wait("location.search.includes('offset=100')")
    browser.wait("document.readyState === 'complete' && document.querySelector('table.systems')")
    second = browser.eval("[...document.querySelectorAll('table.systems tbody tr td:first-child a')]"
                          ".map(a => a.getAttribute('href').split('/').pop())")
    assert second == [f["id"] for f in every[100:200]]
    # a system of the second page, and the ontology term of its tier property
    system = second[0]
    browser.eval(f"document.querySelector('a[href=\"/id/system/{system}\"]').click()")
    browser.wait(f"location.pathname.endsWith('/{system}') && document.readyState === 'complete'")
    assert browser.eval("document.querySelector('h1').textContent") == expected_records[system]["name"]
    shown = browser.eval("[...document.querySelectorAll('table.kv td:first-child')].map(td => td.textContent)")
    assert "search text" not in shown and "taxonomy text" not in shown and "protocol support text" not in shown
    browser.screenshot(folder / "walk-2-system.png")
    browser.eval("document.querySelector('a[href=\"/ontology#tier\"]').click()")
    browser.wait("location.pathname === '/ontology' && location.hash === '#tier'")
    browser.wait("document.readyState === 'complete' && document.getElementById('tier')")
    assert browser.eval("document.querySelector('#tier h3 a').textContent") == "kg:tier"
    browser.screenshot(folder / "walk-3-ontology.png")
    # the editor: YASGUI from this origin, completing an ontology term
    browser.eval("document.querySelector('header nav a[href=\"/\"]').click()")
    browser.wait("window.kgYasgui && window.kgYasgui.getTab() && window.kgYasgui.getTab().getYasqe()")
    query = ("PREFIX kg: <https://w3id.org/agent-landscape/ontology#>\n"
             "SELECT ?tier (COUNT(?s) AS ?systems) WHERE { ?s kg:tie")
    editor = "window.kgYasgui.getTab().getYasqe()"
    browser.eval(f"{editor}.setValue({json.dumps(query)})")
    browser.eval(f"{editor}.focus(); {editor}.setCursor({{line: 1, ch: 1000}}); {editor}.autocomplete()")
    browser.wait("document.querySelector('.CodeMirror-hints')")
    hints = browser.eval("[...document.querySelectorAll('.CodeMirror-hint')].map(h => h.textContent)")
    assert "kg:tier" in hints, hints
    browser.screenshot(folder / "walk-4-completion.png")
    full = query + "r ?tier } GROUP BY ?tier ORDER BY ?tier"
    browser.eval(f"{editor}.setValue({json.dumps(full)}); {editor}.query().then(() => true, () => true)")
    browser.wait("document.querySelectorAll('.yasr table.dataTable tbody tr').length >= 5")
    rows = browser.eval("[...document.querySelectorAll('.yasr table.dataTable tbody tr')].map(tr =>"
                        " [...tr.querySelectorAll('td')].slice(1).map(td => td.textContent.trim()))")
    want = Counter(r["tier"] for r in expected_records.values())
    number = lambda cell: int(re.match(r'"?(\d+)', cell).group(1))  # noqa: E731 - a cell is "5"^^xsd:integer
    assert [(number(t), number(n)) for t, n in rows] == sorted(want.items())
    browser.eval("window.kgYasgui.getTab().getYasr().selectPlugin('chart')")
    browser.wait("document.querySelectorAll('.kg-chart rect.kg-chart-bar').length === 5")
    bars = browser.eval("[...document.querySelectorAll('.kg-chart .kg-chart-value')].map(t => Number(t.textContent))")
    assert bars == [n for _, n in sorted(want.items())]
    browser.screenshot(folder / "walk-5-chart.png")
    assert browser.problems() == []


def test_errors_are_pages_in_a_browser(server, browser):
    """A 404 and a 400 seen as pages: the status, the site's navigation, the query kept."""
    url, folder = server
    browser.open(f"{url}/id/system/no-such-system")
    assert browser.eval("document.querySelector('h1').textContent") == "404 Not Found"
    assert browser.eval("document.querySelectorAll('header nav a').length") >= 3
    browser.screenshot(folder / "error-404.png")
    bad = "SELECT ?s WHERE { ?s ?p }}"
    browser.open(f"{url}/sparql?{urlencode({'query': bad})}")
    assert browser.eval("document.querySelector('h1').textContent") == "400 Bad Request"
    assert browser.eval("document.querySelector('textarea[name=query]').value") == bad  # the plain form
    browser.wait("window.kgYasgui !== undefined")  # and the editor, over it, holds the same text
    assert browser.eval("window.kgYasgui.getTab().getYasqe().getValue()") == bad
    browser.screenshot(folder / "error-400.png")
    browser.open(f"{url}/id/system/?tier=abc")
    assert browser.eval("document.querySelector('p.error').textContent") == "Tier must be a whole number, such as 1."


# ---------------------------------------------------------------------------
# The editor keeps its tabs, shares a query by link, charts with prefixed names

EDITOR = "window.kgYasgui.getTab().getYasqe()"
EDITOR_READY = "window.kgYasgui && window.kgYasgui.getTab() && window.kgYasgui.getTab().getYasqe()"
PROTOCOL_COUNTS = ("PREFIX kg: <https://w3id.org/agent-landscape/ontology#>\n"
                   "SELECT ?protocol (COUNT(DISTINCT ?s) AS ?systems) WHERE { ?s kg:supportsProtocol ?protocol }\n"
                   "GROUP BY ?protocol ORDER BY ?protocol")


@pytest.fixture
def own_browser(server, tmp_path):
    """A browser with a profile of its own (its storage starts empty)."""
    driven = Browser(tmp_path / "profile")
    try:
        yield driven
    finally:
        driven.close()


def test_a_query_typed_in_the_editor_is_there_after_a_reload(server, own_browser):
    url, folder = server
    browser = own_browser
    browser.open(url + "/")
    browser.wait(EDITOR_READY)
    typed = "SELECT ?s WHERE { ?s a <https://w3id.org/agent-landscape/ontology#Vendor> } LIMIT 3 # typed"
    browser.eval(f"{EDITOR}.setValue(''); {EDITOR}.focus(); true")
    browser.send("Input.insertText", text=typed)  # as a keyboard types it
    assert browser.eval(f"{EDITOR}.getValue()") == typed
    browser.send("Page.reload")  # at once: before the editor loses focus or runs
    browser.wait("document.readyState === 'complete'")
    browser.wait(EDITOR_READY)
    assert browser.eval(f"{EDITOR}.getValue()") == typed
    # a catalog question's "SPARQL" link opens its text in a tab of its own; the typed one stays
    browser.send("Page.navigate", url=url + "/?example=info")
    browser.wait("location.search === '' && document.readyState === 'complete'")
    browser.wait(EDITOR_READY + " && window.kgYasgui.getTab().getName() === 'info'")
    from kg.queries import load

    assert browser.eval(f"{EDITOR}.getValue()") == load("info").shown_text
    values = browser.eval("Object.values(window.kgYasgui._tabs).map(t => t.getPersistedJson().yasqe.value)")
    assert typed in values and len(values) == 2
    browser.screenshot(folder / "editor-tabs.png")
    assert browser.problems() == []


def test_a_share_link_opens_the_query_in_another_browser(server, own_browser):
    url, folder = server
    browser = own_browser
    browser.open(url + "/")
    browser.wait(EDITOR_READY)
    query = PROTOCOL_COUNTS + "  # shared"
    browser.eval(f"window.kgYasgui.getTab().setQuery({json.dumps(query)}); true")
    link = browser.eval("window.kgYasgui.getTab().getShareableLink()")
    assert link.startswith(url + "/#") and "query=" in link
    # another person's browser (no storage shared), the link pointing elsewhere as well
    browser.open(link + "&endpoint=" + quote("http://example.org/sparql"), fresh=True)
    browser.wait(EDITOR_READY)
    assert browser.eval(f"{EDITOR}.getValue()") == query
    assert browser.eval("window.kgYasgui.getTab().getEndpoint()") == url + "/sparql"
    assert browser.eval("Object.keys(window.kgYasgui._tabs).length") == 1
    browser.screenshot(folder / "editor-shared.png")
    assert browser.problems() == []


def test_the_chart_labels_its_bars_with_prefixed_names(server, own_browser, find_oracle):
    """The bars read kg:MCP as the table does (not the IRI cut short), their lengths the counts of
    the systems that support each protocol, from the JSON."""
    url, folder = server
    browser = own_browser
    browser.open(url + "/")
    browser.wait(EDITOR_READY)
    browser.eval(f"{EDITOR}.setValue({json.dumps(PROTOCOL_COUNTS)}); {EDITOR}.query().then(() => true, () => true)")
    browser.wait("document.querySelectorAll('.yasr table.dataTable tbody tr').length === 3")
    table = browser.eval("[...document.querySelectorAll('.yasr table.dataTable tbody tr td:nth-child(2)')]"
                         ".map(td => td.textContent.trim())")
    browser.eval("window.kgYasgui.getTab().getYasr().selectPlugin('chart')")
    browser.wait("document.querySelectorAll('.kg-chart rect.kg-chart-bar').length === 3")
    labels = browser.eval("[...document.querySelectorAll('.kg-chart .kg-chart-label')].map(t => t.textContent)")
    values = browser.eval("[...document.querySelectorAll('.kg-chart .kg-chart-value')].map(t => Number(t.textContent))")
    local = {"a2a": "A2A", "mcp": "MCP", "opentelemetry": "OpenTelemetry"}
    want = {f"kg:{local[p]}": sum(1 for f in find_oracle.facts if f["modes"].get(p) in ("native", "adapter", "client"))
            for p in local}
    assert labels == table == sorted(want)
    assert dict(zip(labels, values)) == want
    browser.screenshot(folder / "editor-chart.png")
    assert browser.problems() == []


def test_the_index_table_starts_beside_the_facets(server, own_browser):
    """The facets are a column beside the table, not a block above it: the table starts near the top."""
    url, folder = server
    browser = own_browser
    browser.open(url + "/id/system/")
    top = browser.eval("document.querySelector('table.systems').getBoundingClientRect().top")
    facets = browser.eval("document.querySelector('aside.facets').getBoundingClientRect().right")
    table = browser.eval("document.querySelector('table.systems').getBoundingClientRect().left")
    assert top < 400 and facets <= table
    browser.screenshot(folder / "index-facets-beside.png")
