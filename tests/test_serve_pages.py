"""kg.serve.pages: the HTML pages from the packaged templates, without a server.

The pages over the real store (and a hostile record) are checked through HTTP in
test_serve.py and in a real browser in test_browser.py.
"""

from __future__ import annotations

import importlib.resources
import re
from html.parser import HTMLParser

from pyoxigraph import Literal, NamedNode, Quad, Triple

from kg.serve import pages
from kg.serve.pages import Term, Terms
from kg.vocab import Iris

BASE = Iris().base
HOSTILE = '<script>alert("x")</script> & \'Co\''


class Tags(HTMLParser):
    def __init__(self, markup: str) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []
        self.feed(markup)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += attrs


def test_templates_are_package_data():
    folder = importlib.resources.files("kg.serve") / "templates"
    names = {entry.name for entry in folder.iterdir()}
    assert {"base.html", "macros.html", "home.html", "results.html", "system.html", "resource.html",
            "style.css"} <= names


def test_terms_link_only_local_and_web_iris():
    terms = Terms(BASE, {"https://e.org/x": "Ex"})
    assert terms.iri(BASE + "system/a b") == Term("sys:a b", iri=True, link="/id/system/a%20b")
    assert terms.iri("https://e.org/x") == Term("Ex", iri=True, link="https://e.org/x", external=True)
    for unsafe in ("javascript:alert(1)", "file:///etc/passwd", "https://", "data:text/html,x"):
        assert terms.iri(unsafe).link is None
    assert terms.term(None) is None
    assert terms.term(Literal("hi", language="en")) == Term("hi", note="@en")
    # numbers read as numbers (no xsd:integer tag); other datatypes keep their note
    assert terms.term(Literal("3", datatype=NamedNode("http://www.w3.org/2001/XMLSchema#integer"))) == Term("3")
    assert terms.term(Literal(0.5)) == Term("0.5")
    assert terms.term(Literal("2026-05", datatype=NamedNode("http://www.w3.org/2001/XMLSchema#gYearMonth"))) == Term(
        "2026-05", note="xsd:gYearMonth")
    assert terms.term(Literal("plain")) == Term("plain")


def test_solutions_page_escapes_every_value_as_html_escape_does():
    rows = [{"x": Literal(HOSTILE), "y": NamedNode("javascript:alert(1)")}, {"x": None, "y": NamedNode(BASE + "v")}]
    text = pages.solutions_page("SELECT * { ?x ?y ?z } # </textarea><script>", ["x", "y"], rows, BASE).decode()
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#x27;Co&#x27;" in text
    assert "<span>javascript:alert(1)</span>" in text
    assert '<a href="/id/v">data:v</a>' in text
    assert 'id="count">2 rows<' in text and "<td></td>" in text
    assert "# &lt;/textarea&gt;&lt;script&gt;</textarea>" in text
    page = Tags(text)
    assert "script" not in page.tags and not any(name == "src" for name, _ in page.attrs)


def test_ask_and_triples_pages():
    assert "Answer: <strong>true</strong>" in pages.ask_page("ASK {}", True).decode()
    assert "Answer: <strong>false</strong>" in pages.ask_page("ASK {}", False).decode()
    triples = [Triple(NamedNode(BASE + "s"), NamedNode("https://schema.org/name"), Literal(HOSTILE))]
    text = pages.triples_page("CONSTRUCT WHERE { ?s ?p ?o }", triples, BASE).decode()
    assert "<h1>Triples</h1>" in text and 'id="count">1 triple<' in text and "&lt;script&gt;" in text
    assert '<a href="https://schema.org/name" rel="nofollow noopener noreferrer">schema:name</a>' in text


def test_home_page_has_the_form_and_the_named_queries():
    text = pages.home_page(None, 2.5, 123).decode()
    assert '<form method="post" action="/sparql" accept-charset="utf-8">' in text
    assert "time out after 2.5 s; results over 123 rows" in text
    assert '<option value="html" selected>HTML table</option>' in text
    assert re.search(r'<li><a href="/queries/info">[^<]+</a>.*<a href="/\?example=info">SPARQL</a></li>', text)
    assert "http://127.0.0.1:8000/sparql" in text and "HOST" not in text  # the real base URL in the snippets
    assert "http://example.org:9/sparql" in pages.home_page(None, 1, 1, "http://example.org:9").decode()
    questions, checks = text.split("<h2>Integrity checks</h2>")
    assert "/queries/check-unique-edge" in checks and "/queries/check-" not in questions
    assert "/queries/search" in questions
    assert pages.default_query() in text.replace("&lt;", "<").replace("&gt;", ">")
    assert "void:classPartition ?part" in pages.home_page("info", 10, 10).decode()  # the example, in the editor
    page = Tags(text)
    # the editor's script and style sheet, from this origin only (nothing loaded from elsewhere)
    loaded = [v for k, v in page.attrs if k in ("src", "href") and v and not v.startswith(("/", "?", "#"))]
    assert page.tags.count("script") == 2 and page.tags.count("link") == 1 and loaded == []
    assert ("src", "/static/yasgui/yasgui.min.js") in page.attrs and ("src", "/static/editor.js") in page.attrs


def test_resource_page_marks_a_cut_short_list():
    iri = NamedNode(BASE + "column/license")
    graph = NamedNode(BASE + "graph/ontology")
    quads = [Quad(iri, NamedNode("http://purl.org/dc/terms/identifier"), Literal("license"), graph)]
    inbound = [Quad(NamedNode(BASE + f"cell/{i}"), NamedNode("https://e.org/p"), iri, graph) for i in range(3)]
    text = pages.resource_page(iri, quads, inbound, {}, BASE, more=True).decode()
    assert "<h1>data:column/license</h1>" in text and "Referenced by (3+)" in text
    assert "Referenced by (3)" in pages.resource_page(iri, quads, inbound, {}, BASE, more=False).decode()


def test_the_csp_forbids_scripts_and_other_origins():
    csp = pages.HTML_HEADERS["Content-Security-Policy"]
    assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp and "script-src" not in csp


def test_service_description_says_whether_updates_are_accepted():
    from kg.serve.linkeddata import service_description

    assert b"sd:SPARQL11Update" not in service_description("http://h/sparql", False, [], BASE + "dataset", "turtle")
    assert b"sd:SPARQL11Update" in service_description("http://h/sparql", True, [], BASE + "dataset", "turtle")


def test_neighbourhood_picture_labels_every_neighbour_and_tells_edge_types_apart():
    from kg.serve.picture import STYLES, Edge, neighbourhood_svg

    edges = [Edge("runtime-dependency", True, f"{BASE}system/n{i}", f"N{i} <b>", f"/id/system/n{i}") for i in range(30)]
    edges += [Edge("cites", False, f"{BASE}system/n0", "N0 <b>", "/id/system/n0"),
              Edge("new-type", False, f"{BASE}system/x", HOSTILE, None)]
    svg = neighbourhood_svg(HOSTILE, edges)
    page = Tags(svg)
    assert page.tags.count("svg") == 1 and "script" not in page.tags
    assert page.tags.count("line") == len(edges) + 3  # one per edge, and one per legend entry
    assert page.tags.count("circle") == 31 + 1  # each neighbour once, and the system
    assert svg.count('class="neighbour"') == 31 and svg.count('<a href="/id/system/') == 30
    assert "N7 &lt;b&gt;" in svg and "<b>" not in svg and "<script>" not in svg
    strokes = {kind: re.findall(rf'data-type="{kind}"[^>]*stroke="([^"]+)"', svg) for kind in ("runtime-dependency", "cites")}
    assert set(strokes["runtime-dependency"]) == {STYLES["runtime-dependency"][0]}
    assert set(strokes["cites"]) == {STYLES["cites"][0]} != set(strokes["runtime-dependency"])
    assert "runtime-dependency (30)" in svg and "cites (1)" in svg and "new-type (1)" in svg


def test_query_form_fields_are_typed_from_the_header():
    from kg import queries
    from kg.serve.views import named as browse

    text = browse.query_page(queries.load("search"), {"tier": "2"}, None, None, BASE, "http://h:1").decode()
    assert re.search(r'<input id="p-text" name="text" value="" type="text" required>', text)
    assert re.search(r'<input id="p-tier" name="tier" value="2" step="1" type="number">', text)
    assert re.search(r'<input id="p-limit" name="limit" value="50" min="0" step="1" type="number">', text)
    assert '<form method="get" action="/queries/search"' in text and 'name="run"' in text
    recent = browse.query_page(queries.load("recent"), {}, "needs since", None, BASE, "http://h:1").decode()
    since = re.search(r'<input id="p-since" name="since"[^>]*>', recent).group(0)  # a period: optional text
    assert 'placeholder="YYYY, YYYY-Qn, YYYY-MM or YYYY-MM-DD" type="text"' in since and "required" not in since
    assert 'role="alert">needs since<' in recent
    boolean = browse.query_page(queries.load("select-analysis-protocols"), {}, None, None, BASE, "h").decode()
    assert '<select id="p-every" name="every"><option value="">not given</option>' in boolean
