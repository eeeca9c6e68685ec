"""The documents the server writes itself: HTML pages rendered from the Jinja2 templates
shipped in ``kg/serve/templates`` (query page, results, system and resource pages) and
the query page (the service description is :mod:`kg.serve.linkeddata`'s).

Every value is escaped (autoescape, with the standard library's ``html.escape``); an
IRI is a link only when it is under the base (a local ``/id/`` path) or http(s). The
pages load nothing from elsewhere: the style sheet is inlined, there is no script but the
query editor's, served from this origin (:mod:`kg.serve.views.static`), and :data:`HTML_HEADERS`
(:data:`EDITOR_HEADERS` on pages with the editor) carries the Content-Security-Policy that says so.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Iterable
from urllib.parse import quote

from markupsafe import Markup
from pyoxigraph import Literal, NamedNode

from ..vocab import ATTRIBUTION, KG, KG_NS, PREFIXES, SCHEMA
from .config import is_web_iri

HTML_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; "
                               "base-uri 'none'; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
}
# pages with the editor (YASGUI, served from /static/ on this origin): its script and style sheet
# from here only, no inline script, no eval; its queries go to this origin's /sparql (connect-src);
# its icons are inline SVG (img-src data:) and it styles its own elements (style-src 'unsafe-inline')
EDITOR_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                               "img-src 'self' data:; connect-src 'self'; form-action 'self'; "
                               "base-uri 'none'; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
}
_LOCAL_SAFE = "/:@!$&'()*+,;=-._~%"
_XSD = "http://www.w3.org/2001/XMLSchema#"
_XSD_STRING = _XSD + "string"
# numbers read as numbers: no datatype note after them
_NUMBERS = {_XSD + t for t in ("integer", "decimal", "double", "float", "int", "long", "short", "byte",
                                "nonNegativeInteger", "positiveInteger", "negativeInteger", "nonPositiveInteger",
                                "unsignedInt", "unsignedLong", "unsignedShort", "unsignedByte", "boolean")}
LEAD_CELLS = (("desc", "Description"), ("pros", "Pros"), ("cons", "Cons"))  # what a system page opens with


def _escape(value: Any) -> Any:
    # Jinja's autoescape would write ' and " as &#39; and &#34;; the pages (and their
    # tests) keep html.escape's entities. Markup is passed through: it is escaped already.
    return value if isinstance(value, Markup) else Markup(html.escape(str(value), quote=True))


@cache
def _templates() -> Any:
    import jinja2

    return jinja2.Environment(loader=jinja2.PackageLoader("kg.serve", "templates"), autoescape=True,
                              finalize=_escape, trim_blocks=True, lstrip_blocks=True,
                              keep_trailing_newline=True, undefined=jinja2.StrictUndefined)


def _render(template: str, title: str, **values: Any) -> bytes:
    text = _templates().get_template(template).render(title=title, attribution=ATTRIBUTION, **values)
    return text.encode("utf-8")


@dataclass(frozen=True)
class Term:
    """One RDF term as a page shows it: an IRI (a link when ``link`` is set, else plain
    text) or a literal with its language or datatype as ``note``."""

    text: str
    iri: bool = False
    link: str | None = None
    external: bool = False  # the link leaves this server: rel="nofollow noopener noreferrer"
    note: str | None = None


class Terms:
    """Turns terms into :class:`Term`: IRIs under the base become local links, other
    http(s) IRIs external links, everything else text. ``labels`` names IRIs."""

    def __init__(self, base: str, labels: dict[str, str] | None = None) -> None:
        self.base = base
        self.labels = labels or {}
        self.pairs = sorted(((k, v) for k, v in {**PREFIXES, "data": base, "sys": base + "system/"}.items()),
                            key=lambda kv: -len(kv[1]))

    def href(self, iri: str) -> str | None:
        """Where a page links ``iri``: a local page for the data's IRIs, our ontology's terms to
        their place on ``/ontology``, other http(s) IRIs as they are, nothing else.

        >>> Terms("https://example.org/").href("https://w3id.org/agent-landscape/ontology#tier")
        '/ontology#tier'
        """
        if iri.startswith(self.base) and len(iri) > len(self.base):
            return "/id/" + quote(iri[len(self.base):], safe=_LOCAL_SAFE)
        if iri.startswith(KG_NS) and len(iri) > len(KG_NS):
            return "/ontology#" + quote(iri[len(KG_NS):], safe=_LOCAL_SAFE)
        if is_web_iri(iri):
            return iri
        return None

    def compact(self, iri: str) -> str:
        """``iri`` as prefix:name when a known namespace holds it.

        >>> Terms("https://example.org/").compact("https://schema.org/name")
        'schema:name'
        """
        for prefix, ns in self.pairs:
            if iri.startswith(ns) and len(iri) > len(ns):
                return f"{prefix}:{iri[len(ns):]}"
        return iri

    def iri(self, iri: str, label: str | None = None) -> Term:
        target = self.href(iri)
        return Term(label or self.labels.get(iri) or self.compact(iri), iri=True, link=target,
                    external=target is not None and not target.startswith("/"))

    def term(self, term: Any, label: str | None = None) -> Term | None:
        if term is None:
            return None
        if isinstance(term, NamedNode):
            return self.iri(term.value, label)
        if isinstance(term, Literal):
            note = None
            if term.language:
                note = f"@{term.language}"
            elif term.datatype.value != _XSD_STRING and term.datatype.value not in _NUMBERS:
                note = self.compact(term.datatype.value)
            return Term(term.value, note=note)
        return Term(str(term))


def plain(value: str) -> Term:
    """Text that is not a term (a column name, an edge type)."""
    return Term(value)


# ---------------------------------------------------------------------------
# Query results


def ask_page(query: str, answer: bool) -> bytes:
    return _render("results.html", "ASK result", query=query, answer=answer, headers=None, window=None)


def solutions_page(query: str, variables: list[str], rows: list, base: str, page: dict | None = None) -> bytes:
    """An HTML table of SELECT rows (``row[variable]`` gives a term or None); with ``page``
    (offset, limit and the parameters its links keep), the rows are the answer's first rows and
    the table shows that page of them, with links to the pages beside it."""
    from .paging import Page

    window = None
    if page is not None:
        at = Page(page["offset"], page["limit"])
        rows, more = at.window(rows)
        capped = more and at.offset + at.limit >= page.get("last", at.offset + at.limit + 1)  # --max-rows reached
        window = {"first": at.offset + 1, "last": at.offset + len(rows), "capped": capped, "total": page.get("total"),
                  "links": at.links(page["params"], more and not capped), "paged": more or at.offset > 0}
    terms = Terms(base)
    return _render("results.html", "Query results", query=query, heading="Results", noun="rows",
                   headers=variables, rows=[[terms.term(row[v]) for v in variables] for row in rows], window=window)


def triples_page(query: str, triples: list, base: str) -> bytes:
    terms = Terms(base)
    rows = [[terms.term(t.subject), terms.term(t.predicate), terms.term(t.object)] for t in triples]
    return _render("results.html", "Query results", query=query, heading="Triples", noun="triples",
                   headers=["subject", "predicate", "object"], rows=rows, window=None)


# ---------------------------------------------------------------------------
# The query page and the service description


def default_query() -> str:
    return (f"PREFIX kg: {NamedNode(KG.iri)}\nPREFIX schema: {NamedNode(SCHEMA.iri)}\n\n"
            "# Systems with native, adapter or client MCP support, best-established first\n"
            "SELECT ?system ?name ?tier WHERE {\n"
            "  ?system a kg:System ; schema:name ?name ; kg:tier ?tier ; kg:supportsProtocol kg:MCP .\n"
            "}\nORDER BY ?tier ?name\nLIMIT 25\n")


def home_page(example: str | None, timeout: float, max_rows: int, base_url: str = "http://127.0.0.1:8000") -> bytes:
    """The query page: a form holding the default query (or the named query ``example``),
    the user's own named queries (``--queries``), the catalog's named questions (each with its
    form) and, apart, the integrity checks; the code snippets name this server as the client
    reached it (``base_url``)."""
    from .. import queries

    text, given = default_query(), False
    own: list[dict[str, str]] = []
    questions: list[dict[str, str]] = []
    checks: list[dict[str, str]] = []
    try:
        names = queries.available()
    except Exception:  # noqa: BLE001 - the page works without examples
        names = []
    for name in names:
        try:
            q = queries.load(name)
        except Exception:  # noqa: BLE001
            continue
        entry = {"href": f"/?example={quote(q.name)}", "form": f"/queries/{quote(q.name)}", "title": q.title or q.name,
                 "question": q.question, "params": ", ".join(p.name for p in q.params)}
        (own if not q.trusted else checks if name.startswith("check-") else questions).append(entry)
        if name == example:
            text, given = q.shown_text, True
    return _render("home.html", "SPARQL query - AI Agent Infrastructure Landscape", text=text, given=given,
                   example=example if given else "", own=own, questions=questions, checks=checks,
                   timeout=f"{timeout:g}", max_rows=max_rows, base_url=base_url,
                   editor_config=editor_config())


@cache
def editor_config() -> str:
    """What the editor completes, as JSON (the page's ``data-config``): the prefixes the catalog
    uses and the ontology's properties and classes (full IRIs), with a few reused terms its
    data states."""
    import json

    from ..ontodoc import load
    from ..ontodoc.ontology import KIND_ANNOTATION, KIND_CLASS, KIND_DATATYPE, KIND_OBJECT
    from ..vocab import DCTERMS, RDF, RDFS, SKOS

    onto = load()
    reused = [SCHEMA.name, SCHEMA.url, RDF.type, RDFS.label, RDFS.comment, SKOS.prefLabel, SKOS.notation,
              DCTERMS.identifier, DCTERMS.isPartOf]
    properties = [t for kind in (KIND_OBJECT, KIND_DATATYPE, KIND_ANNOTATION) for t in onto.of_kind(kind)]
    return json.dumps({"prefixes": {k: v for k, v in PREFIXES.items()},
                       "properties": sorted(set(properties) | {p.value for p in reused}),
                       "classes": sorted(set(onto.of_kind(KIND_CLASS)) | {SKOS.Concept.value})})


# ---------------------------------------------------------------------------
# Entity pages


@dataclass
class SystemFacts:
    """What a system page shows, as read from the store; each table names its IRIs
    with its own labels."""

    system_id: str
    iri: NamedNode
    name: str
    base: str
    facts: list  # quads of the system's own statements
    fact_labels: dict[str, str]
    protocols: list[dict]  # rows: protocol, mode
    protocol_labels: dict[str, str]
    cells: list[dict]  # rows: slug, value?, status?, tier?, citation?, verified?, dated_by?, source_class?
    edges: dict[str, list[dict]]  # "out" / "in": rows of type, other, evidence?, citation?, influential?
    edge_labels: dict[str, str]
    centrality: list  # quads of the analysis graph about the system (literal values)
    centrality_labels: dict[str, str]
    analysis_graph: NamedNode
    history: list[dict] = field(default_factory=list)  # rows: date?, origin, kind?, field?, old?, new?


HISTORY_ROWS = 200  # the newest changes a system page lists (kg query changes gives them all)


# the fields ingest derives for the find and search queries: the index's, not facts to show
INDEX_FIELDS = frozenset(p.value for p in (KG.searchText, KG.protocolSupportText, KG.taxonomyText))


def _pills(terms: Terms, facts: list) -> list[list[Any]]:
    """One row per property (not the derived index fields): its label and its values (sorted)."""
    grouped: dict[str, list[Term | None]] = {}
    shown = (q for q in facts if q.predicate.value not in INDEX_FIELDS)
    for q in sorted(shown, key=lambda q: (q.predicate.value, str(q.object))):
        grouped.setdefault(q.predicate.value, []).append(terms.term(q.object))
    return [[terms.iri(p), values] for p, values in sorted(grouped.items(), key=lambda kv: terms.compact(kv[0]))]


def _edge_rows(terms: Terms, rows: list[dict]) -> list[list[Any]]:
    return [[plain(r["type"].value + (" (influential)" if "influential" in r and r["influential"].value == "true"
                                     else "")),
             terms.term(r["other"]), terms.term(r.get("evidence")), terms.term(r.get("citation"))] for r in rows]


def _picture(page: SystemFacts, others: Terms) -> Markup:
    from .picture import Edge, neighbourhood_svg

    edges = [Edge(r["type"].value, direction == "out", r["other"].value,
                  others.iri(r["other"].value).text, others.href(r["other"].value))
             for direction in ("out", "in") for r in page.edges[direction]]
    return Markup(neighbourhood_svg(page.name, edges)) if edges else Markup("")


def system_page(page: SystemFacts, shown: dict[str, Any]) -> bytes:
    """A system's page; ``shown``: its evidence (:func:`kg.serve.evidence.evidence`): the cells the
    filter keeps, with their findings, and the summary above them."""
    terms = Terms(page.base, page.fact_labels)
    protocols = Terms(page.base, page.protocol_labels)
    centrality = Terms(page.base, page.centrality_labels)
    others = Terms(page.base, page.edge_labels)
    edge_tables = [{"title": title, "other": other, "rows": _edge_rows(others, page.edges[direction])}
                   for direction, title, other in (("out", "Outgoing edges", "target"),
                                                   ("in", "Incoming edges", "source"))]
    by_slug = {r["slug"].value: r for r in page.cells}
    lead = [(title, by_slug[slug]["value"].value) for slug, title in LEAD_CELLS
            if slug in by_slug and "value" in by_slug[slug]]
    return _render(
        "system.html", f"{page.name} - AI Agent Infrastructure Landscape", lead=lead, picture=_picture(page, others),
        system_id=page.system_id, iri=page.iri.value, name=page.name, facts=_pills(terms, page.facts),
        protocols=[[protocols.term(r["protocol"]), protocols.term(r["mode"])] for r in page.protocols],
        centrality=[[centrality.iri(q.predicate.value), centrality.term(q.object)]
                    for q in sorted(page.centrality, key=lambda q: q.predicate.value)],
        analysis_graph=page.analysis_graph.value, edge_tables=edge_tables, evidence=shown,
        history=[[terms.term(r.get(key)) for key in ("date", "origin", "kind", "field", "old", "new")]
                 for r in page.history], history_rows=HISTORY_ROWS)


def resource_page(iri: NamedNode, quads: Iterable[Any], inbound: list, labels: dict[str, str], base: str,
                  more: bool) -> bytes:
    """Any other resource: its statements (with their graph) and what refers to it
    (``inbound``; ``more`` when it was cut short)."""
    terms = Terms(base, labels)
    title = labels.get(iri.value) or terms.compact(iri.value)
    rows = [[terms.iri(q.predicate.value), terms.term(q.object), terms.iri(q.graph_name.value)]
            for q in sorted(quads, key=lambda q: (q.predicate.value, str(q.object)))]
    back = [[terms.term(q.subject), terms.iri(q.predicate.value)]
            for q in sorted(inbound, key=lambda q: (q.predicate.value, q.subject.value))]
    return _render("resource.html", title, iri=iri.value, rows=rows, back=back, more=more)
