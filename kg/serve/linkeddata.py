"""Linked data about the service itself: the ontology at ``/ontology`` (an HTML page of its
terms, each at ``/ontology#Term``, and its Turtle, JSON-LD, N-Triples or RDF/XML by ``Accept``),
the SPARQL service description of ``/sparql`` and the VoID description at ``/.well-known/void``.

The service description names the dataset that queries read (``sd:defaultDataset``: its
default graph, the union of the named graphs, and each named graph) and links the VoID
description; the VoID description is the one each ingest writes into the store (its counts,
licence and attribution), with where to query it (``void:sparqlEndpoint``) and where to take
all of it (``void:dataDump``: the whole dataset in N-Quads from ``/store``).

>>> offer = ontology_format("text/turtle"); offer
'turtle'
>>> body = service_description("http://h/sparql", False, ["https://e.org/g"], "https://e.org/ds", "turtle")
>>> b"sd:defaultDataset" in body and b"sd:name <https://e.org/g>" in body
True
"""

from __future__ import annotations

from functools import cache
from typing import Any, Iterable

from pyoxigraph import BlankNode, Literal, NamedNode, RdfFormat, Triple, parse, serialize

from ..vocab import KG_NS, ONTOLOGY_FILE, ONTOLOGY_IRI, PREFIXES, RDF, RDFS, VOID
from .negotiation import CONTENT_TYPES, GRAPH_OFFERS, RDF_FORMATS, negotiate
from .pages import HTML_HEADERS, _render
from .replies import Reply

SD = "http://www.w3.org/ns/sparql-service-description#"
FORMATS = "http://www.w3.org/ns/formats/"
RESULT_FORMATS = ("SPARQL_Results_JSON", "SPARQL_Results_XML", "SPARQL_Results_CSV", "SPARQL_Results_TSV",
                  "Turtle", "JSON-LD", "N-Triples", "RDF_XML")
DESCRIPTION_OFFERS = [offer for offer in GRAPH_OFFERS if offer[0] != "html"] + [("html", "text/html")]
# a page first (a browser's */* gets it), then the RDF formats: /ontology, and / (the query page or the
# service description)
PAGE_FIRST_OFFERS = [("html", "text/html"), ("html", "application/xhtml+xml")] + DESCRIPTION_OFFERS[:-1]
VOID_PATH = "/.well-known/void"
DUMP_PATH = "/store"  # GET /store: every graph of the store, as N-Quads (kg.serve.views.graph_store)
# every named graph of the version read (the service description lists them)
NAMED_GRAPHS = "SELECT DISTINCT ?g WHERE { GRAPH ?g { } } ORDER BY ?g"


def ontology_format(accept: str | None, fmt: str | None = None) -> str:
    """The format of ``/ontology`` for a request: ``?format=`` or ``Accept`` (HTML first)."""
    offers = PAGE_FIRST_OFFERS
    if fmt is not None:
        if fmt not in {key for key, _ in offers}:
            raise Reply(400, "bad-request", "format must be html, turtle, jsonld, ntriples or rdfxml")
        return fmt
    chosen = negotiate(accept, offers)
    if chosen is None:
        raise Reply(406, "not-acceptable", "the ontology comes as " + ", ".join(dict.fromkeys(m for _, m in offers)))
    return chosen


@cache
def _ontology_triples() -> list[Triple]:
    return list(parse(path=str(ONTOLOGY_FILE), format=RdfFormat.TURTLE))


def _written(triples: Iterable[Triple], fmt: str) -> bytes:
    prefixes = {k: v for k, v in PREFIXES.items() if k != "sh"} if fmt in ("turtle", "rdfxml") else None
    data = serialize(triples, format=RDF_FORMATS[fmt], prefixes=prefixes)
    assert data is not None
    return data


def _reply(fmt: str, body: bytes, headers: dict[str, str] | None = None) -> dict:
    base = dict(HTML_HEADERS) if fmt == "html" else {}
    return {"status": 200, "type": CONTENT_TYPES[fmt], "body": body, "headers": {**base, **(headers or {}),
                                                                               "Vary": "Accept"}}


def ontology_answer(fmt: str) -> dict:
    """``/ontology`` in ``fmt``: the ontology file's own Turtle, the same triples in the other
    RDF formats, or its documentation page."""
    if fmt == "turtle":
        return _reply(fmt, ONTOLOGY_FILE.read_bytes())
    if fmt == "html":
        return _reply(fmt, ontology_page())
    return _reply(fmt, _written(_ontology_triples(), fmt))


@cache
def ontology_page() -> bytes:
    """The ontology's terms by kind, each under its own anchor (``#System``), with its label,
    comment, domain, range and super-terms; our terms link within the page."""
    from ..ontodoc import load
    from ..ontodoc.ontology import KIND_ANNOTATION, KIND_CLASS, KIND_DATATYPE, KIND_INDIVIDUAL, KIND_OBJECT

    onto = load()

    def ref(term: Any) -> dict[str, str | None]:
        if not isinstance(term, NamedNode):
            return {"text": "(a union or restriction)", "href": None}
        iri = term.value
        href = "#" + iri[len(KG_NS):] if iri.startswith(KG_NS) else iri if iri.startswith("http") else None
        return {"text": onto.curie(iri), "href": href}

    def entry(iri: str) -> dict[str, Any]:
        local = iri[len(KG_NS):]
        relations = [(title, [ref(o) for o in onto.objects(iri, predicate)]) for title, predicate in
                     (("type", RDF.type), ("subclass of", RDFS.subClassOf), ("subproperty of", RDFS.subPropertyOf),
                      ("domain", RDFS.domain), ("range", RDFS.range))]
        return {"id": local, "iri": iri, "curie": onto.curie(iri), "label": onto.label(iri) or local,
                "comment": onto.comment(iri) or "", "relations": [(t, refs) for t, refs in relations if refs]}

    kinds = [("Classes", KIND_CLASS), ("Object properties", KIND_OBJECT), ("Datatype properties", KIND_DATATYPE),
             ("Annotation properties", KIND_ANNOTATION), ("Individuals", KIND_INDIVIDUAL)]
    sections = [{"title": title, "id": kind.replace(" ", "-"), "terms": [entry(i) for i in onto.of_kind(kind)]}
                for title, kind in kinds]
    title = onto.label(onto.ontology_iri()) or "The AI Agent Infrastructure Landscape ontology"
    return _render("ontology.html", f"{title} - AI Agent Infrastructure Landscape", heading=title,
                   iri=ONTOLOGY_IRI, comment=onto.comment(onto.ontology_iri()) or "",
                   sections=[s for s in sections if s["terms"]])


def service_description(url: str, allow_update: bool, graphs: Iterable[str], dataset: str, fmt: str,
                        described: str | None = None) -> bytes:
    """The SPARQL 1.1 service description of the endpoint at ``url``: its languages, formats and
    features, and the dataset it reads (``dataset``: the VoID dataset's IRI), whose default graph
    is the union of the named ``graphs``; with a link to the VoID description. ``described``: the
    address the description is read at, when it is not the endpoint's (``/``): the service is then
    that address's, its ``sd:endpoint`` the endpoint (as clients that are given the site's address,
    Comunica among them, read it)."""
    sd = lambda name: NamedNode(SD + name)  # noqa: E731
    service, ds, default = NamedNode(described or url), NamedNode(dataset), BlankNode()
    site = url.rsplit("/", 1)[0]
    triples = [Triple(service, RDF.type, sd("Service")), Triple(service, sd("endpoint"), NamedNode(url)),
               Triple(service, sd("supportedLanguage"), sd("SPARQL11Query")),
               Triple(service, sd("feature"), sd("UnionDefaultGraph")),
               Triple(service, sd("defaultDataset"), ds), Triple(ds, RDF.type, sd("Dataset")),
               Triple(ds, RDF.type, VOID.Dataset), Triple(ds, RDFS.seeAlso, NamedNode(site + VOID_PATH)),
               Triple(ds, sd("defaultGraph"), default), Triple(default, RDF.type, sd("Graph")),
               Triple(default, RDFS.comment, Literal("the union of the named graphs"))]
    if allow_update:
        triples.append(Triple(service, sd("supportedLanguage"), sd("SPARQL11Update")))
    triples += [Triple(service, sd("resultFormat"), NamedNode(FORMATS + f)) for f in RESULT_FORMATS]
    for graph in graphs:
        node = BlankNode()
        triples += [Triple(ds, sd("namedGraph"), node), Triple(node, RDF.type, sd("NamedGraph")),
                    Triple(node, sd("name"), NamedNode(graph))]
    prefixes = {"sd": SD, "fmt": FORMATS, "void": VOID.iri, "rdfs": RDFS.iri} if fmt in ("turtle", "rdfxml") else None
    data = serialize(triples, format=RDF_FORMATS[fmt], prefixes=prefixes)
    assert data is not None
    return data


def void_description(stated: Iterable[Triple], dataset: str, site: str, fmt: str, base: str = "") -> bytes:
    """The store's VoID description (``stated``: the triples of its description graph) with where
    to query the dataset and where to take all of it, in an RDF format or as a page (``html``:
    ``base``, the data's base IRI, makes its IRIs local links)."""
    ds = NamedNode(dataset)
    extra = [Triple(ds, VOID.sparqlEndpoint, NamedNode(site + "/sparql")),
             Triple(ds, VOID.dataDump, NamedNode(site + DUMP_PATH)),
             Triple(ds, VOID.rootResource, NamedNode(site + "/id/system/")),
             Triple(ds, VOID.vocabulary, NamedNode(KG_NS))]
    triples = list(dict.fromkeys([*stated, *extra]))
    return void_page(triples, ds, base) if fmt == "html" else _written(triples, fmt)


def void_page(triples: list[Triple], dataset: NamedNode, base: str) -> bytes:
    """The VoID description as a page: the dataset's statements first, then each other subject's."""
    from .pages import Terms

    terms = Terms(base)
    subjects: dict[Any, list[Triple]] = {}
    for t in sorted(triples, key=lambda t: (t.subject != dataset, str(t.subject), str(t.predicate), str(t.object))):
        subjects.setdefault(t.subject, []).append(t)
    shown = [{"title": "The dataset" if subject == dataset else _subject_title(terms, subject),
              "rows": [[terms.iri(t.predicate.value), terms.term(t.object)] for t in found]}
             for subject, found in subjects.items()]
    title = "The dataset (VoID)"
    return _render("void.html", f"{title} - AI Agent Infrastructure Landscape", heading=title, iri=dataset.value,
                   subjects=shown)


def _subject_title(terms: Any, subject: Any) -> str:
    return terms.compact(subject.value) if isinstance(subject, NamedNode) else "a part of it"
