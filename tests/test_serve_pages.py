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
    assert terms.term(Literal("3", datatype=NamedNode("http://www.w3.org/2001/XMLSchema#integer"))) == Term(
        "3", note="xsd:integer")
    assert terms.term(Literal("plain")) == Term("plain")


def test_solutions_page_escapes_every_value_as_html_escape_does():
    rows = [{"x": Literal(HOSTILE), "y": NamedNode("javascript:alert(1)")}, {"x": None, "y": NamedNode(BASE + "v")}]
    text = pages.solutions_page("SELECT * { ?x ?y ?z } # </textarea><script>", ["x", "y"], rows, BASE).decode()
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#x27;Co&#x27;" in text
    assert "<span>javascript:alert(1)</span>" in text
    assert '<a href="/id/v">data:v</a>' in text
    assert "2 row(s)" in text and "<td></td>" in text
    assert "# &lt;/textarea&gt;&lt;script&gt;</textarea>" in text
    page = Tags(text)
    assert "script" not in page.tags and not any(name == "src" for name, _ in page.attrs)


def test_ask_and_triples_pages():
    assert "Answer: <strong>true</strong>" in pages.ask_page("ASK {}", True).decode()
    assert "Answer: <strong>false</strong>" in pages.ask_page("ASK {}", False).decode()
    triples = [Triple(NamedNode(BASE + "s"), NamedNode("https://schema.org/name"), Literal(HOSTILE))]
    text = pages.triples_page("CONSTRUCT WHERE { ?s ?p ?o }", triples, BASE).decode()
    assert "<h1>Triples</h1>" in text and "1 triple(s)" in text and "&lt;script&gt;" in text
    assert '<a href="https://schema.org/name" rel="nofollow noopener noreferrer">schema:name</a>' in text


def test_home_page_has_the_form_and_the_named_queries():
    text = pages.home_page(None, 2.5, 123).decode()
    assert '<form method="post" action="/sparql" accept-charset="utf-8">' in text
    assert "time out after 2.5 s; results over 123 rows" in text
    assert '<option value="html" selected>HTML table</option>' in text
    assert re.search(r'<li><a href="/\?example=info">', text)
    assert pages.default_query() in text.replace("&lt;", "<").replace("&gt;", ">")
    assert "COUNT(DISTINCT ?entity)" in pages.home_page("info", 10, 10).decode()
    page = Tags(text)
    assert page.tags.count("script") == 0 and page.tags.count("link") == 0  # nothing loaded from elsewhere


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
    assert b"sd:SPARQL11Update" not in pages.service_description("http://h/sparql", False)
    assert b"sd:SPARQL11Update" in pages.service_description("http://h/sparql", True)
