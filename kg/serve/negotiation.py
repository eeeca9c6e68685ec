"""Content negotiation: which format a request gets, from its ``Accept`` header or a parameter.

Offers are (format key, media type) pairs in the server's order of preference; the
format keys index :data:`CONTENT_TYPES` and the pyoxigraph writers.

>>> negotiate("text/html,application/xml;q=0.9,*/*;q=0.8", SOLUTION_OFFERS)
'html'
>>> negotiate("text/csv", SOLUTION_OFFERS), negotiate("image/png", SOLUTION_OFFERS)
('csv', None)
"""

from __future__ import annotations

from pyoxigraph import QueryResultsFormat, RdfFormat

from ..output import GRAPH_FORMATS
from .replies import Reply

# (format key, media type) in the server's order of preference.
SOLUTION_OFFERS = [
    ("json", "application/sparql-results+json"), ("json", "application/json"),
    ("xml", "application/sparql-results+xml"), ("xml", "application/xml"), ("xml", "text/xml"),
    ("csv", "text/csv"), ("tsv", "text/tab-separated-values"), ("html", "text/html"),
]
GRAPH_OFFERS = [
    ("turtle", "text/turtle"), ("turtle", "application/turtle"), ("turtle", "application/x-turtle"),
    ("turtle", "text/n3"),  # Turtle is N3 (what rdflib and Comunica also ask for): served as Turtle
    ("jsonld", "application/ld+json"), ("jsonld", "application/json"), ("ntriples", "application/n-triples"),
    ("ntriples", "text/plain"), ("rdfxml", "application/rdf+xml"), ("html", "text/html"),
]
ENTITY_OFFERS = [("html", "text/html"), ("html", "application/xhtml+xml")] + [
    offer for offer in GRAPH_OFFERS if offer[0] != "html"]
CONTENT_TYPES = {
    "json": "application/sparql-results+json", "xml": "application/sparql-results+xml",
    "csv": "text/csv; charset=utf-8", "tsv": "text/tab-separated-values; charset=utf-8",
    "html": "text/html; charset=utf-8", "turtle": "text/turtle; charset=utf-8",
    "jsonld": "application/ld+json", "ntriples": "application/n-triples", "rdfxml": "application/rdf+xml",
    "nquads": "application/n-quads", "trig": "application/trig",
}
SOLUTION_FORMATS = ("json", "xml", "csv", "tsv", "html")
GRAPH_ANSWERS = GRAPH_FORMATS + ("html",)  # the formats of a CONSTRUCT or DESCRIBE answer here
RESULT_FORMATS = {"json": QueryResultsFormat.JSON, "xml": QueryResultsFormat.XML,
                  "csv": QueryResultsFormat.CSV, "tsv": QueryResultsFormat.TSV}
RDF_FORMATS = {"turtle": RdfFormat.TURTLE, "ntriples": RdfFormat.N_TRIPLES, "rdfxml": RdfFormat.RDF_XML,
               "jsonld": RdfFormat.JSON_LD, "nquads": RdfFormat.N_QUADS, "trig": RdfFormat.TRIG}
# the whole dataset (GET /store): its graphs kept
DATASET_OFFERS = [("nquads", "application/n-quads"), ("trig", "application/trig")]
# /system/<id>.ttl and the like: a file extension picks the format
ENTITY_EXTENSIONS = ((".ttl", "turtle"), (".jsonld", "jsonld"), (".nt", "ntriples"), (".html", "html"))


def _parse_accept(header: str) -> list[tuple[str, str, float]]:
    ranges = []
    for part in header.split(","):
        pieces = [p.strip() for p in part.split(";")]
        if not pieces[0] or "/" not in pieces[0]:
            continue
        main, sub = (x.strip().lower() for x in pieces[0].split("/", 1))
        q = 1.0
        for param in pieces[1:]:
            if param.lower().startswith("q="):
                try:
                    q = max(0.0, min(1.0, float(param[2:])))
                except ValueError:
                    q = 0.0
        ranges.append((main, sub, q))
    return ranges


def negotiate(accept: str | None, offers: list[tuple[str, str]]) -> str | None:
    """The format key of the best offer for an ``Accept`` header (ties: server order), or None."""
    if not accept or not accept.strip():
        return offers[0][0]
    ranges = _parse_accept(accept)
    best: tuple[float, int, str] | None = None
    for index, (key, media) in enumerate(offers):
        main, sub = media.split("/")
        specificity, quality = -1, 0.0
        for r_main, r_sub, r_q in ranges:
            if (r_main, r_sub) == (main, sub):
                s = 2
            elif r_main == main and r_sub == "*":
                s = 1
            elif (r_main, r_sub) == ("*", "*"):
                s = 0
            else:
                continue
            if s > specificity:
                specificity, quality = s, r_q
        if quality > 0 and (best is None or quality > best[0]):
            best = (quality, index, key)
    return best[2] if best else None


# the names clients put in ``format=`` / ``output=`` / ``results=`` (SPARQLWrapper sends its return
# format's name in all three, beside a correct Accept): (for SELECT/ASK, for CONSTRUCT/DESCRIBE)
FORMAT_NAMES = {
    "json": ("json", "jsonld"), "xml": ("xml", "rdfxml"), "csv": ("csv", None), "tsv": ("tsv", None),
    "html": ("html", "html"), "turtle": (None, "turtle"), "ttl": (None, "turtle"), "n3": (None, "turtle"),
    "jsonld": (None, "jsonld"), "json-ld": (None, "jsonld"), "rdf": (None, "rdfxml"), "rdf+xml": (None, "rdfxml"),
    "rdfxml": (None, "rdfxml"), "rdf/xml": (None, "rdfxml"), "ntriples": (None, "ntriples"),
    "n-triples": (None, "ntriples"), "nt": (None, "ntriples"),
}


def _named_format(fmt: str) -> tuple[str | None, str | None] | None:
    """The formats a ``format`` value names: a name of :data:`FORMAT_NAMES` or a media type."""
    key = fmt.strip().lower()
    if key in FORMAT_NAMES:
        return FORMAT_NAMES[key]
    if "/" in key:
        solutions, graph = negotiate(key, SOLUTION_OFFERS), negotiate(key, GRAPH_OFFERS)
        if solutions is not None or graph is not None:
            return solutions, graph
    return None


def _specific(accept: str | None) -> bool:
    """Whether ``Accept`` names a media type (not only ``*/*``)."""
    return any((main, sub) != ("*", "*") for main, sub, q in _parse_accept(accept or "") if q > 0)


def result_formats(fmt: str | None, accept: str | None) -> tuple[str | None, str | None]:
    """The formats a query result may take, (for SELECT/ASK, for CONSTRUCT/DESCRIBE): from
    the ``format`` (or ``output``, ``results``) parameter when it names a format (a client
    library's name for one, or a media type), the side it leaves open from ``Accept``; a
    ``format`` nobody knows is ignored for an ``Accept`` that names a type, else refused.

    >>> result_formats(None, "text/turtle"), result_formats("json", None)
    ((None, 'turtle'), ('json', 'jsonld'))
    >>> result_formats("rdf+xml", "application/rdf+xml"), result_formats("n3", "text/turtle")
    ((None, 'rdfxml'), (None, 'turtle'))
    >>> result_formats("png", "text/csv"), result_formats("csv", "text/turtle")
    (('csv', None), ('csv', 'turtle'))
    """
    named = None if fmt is None else _named_format(fmt)
    if fmt is not None and named is None and not _specific(accept):
        raise Reply(400, "bad-request", "format must be one of " + ", ".join(SOLUTION_FORMATS + GRAPH_FORMATS)
                    + " (or leave it out and send Accept)")
    if named is not None and _specific(accept):  # the side the name leaves open: from Accept
        solutions, graph = named
        return solutions or negotiate(accept, SOLUTION_OFFERS), graph or negotiate(accept, GRAPH_OFFERS)
    if named is not None:
        return named
    solutions, graph = negotiate(accept, SOLUTION_OFFERS), negotiate(accept, GRAPH_OFFERS)
    if solutions is None and graph is None:
        raise Reply(406, "not-acceptable", "results come as SPARQL JSON, XML, CSV, TSV, HTML "
                    "(SELECT, ASK) or Turtle, JSON-LD, N-Triples, RDF/XML (CONSTRUCT, DESCRIBE)")
    return solutions, graph


def entity_format(rest: str, fmt: str | None, accept: str | None) -> tuple[str, str]:
    """(the entity path without its format extension, the format of its page) for
    ``/id/<rest>``: from an extension of a system path, else ``?format=``, else ``Accept``.

    >>> entity_format("system/mem0--mem0-ai.ttl", None, "text/html")
    ('system/mem0--mem0-ai', 'turtle')
    >>> entity_format("vendor/x", None, None)
    ('vendor/x', 'html')
    """
    for ext, key in ENTITY_EXTENSIONS:
        if rest.startswith("system/") and rest.endswith(ext):
            rest, fmt = rest[:-len(ext)], key
    if fmt is not None and fmt not in GRAPH_ANSWERS:
        raise Reply(400, "bad-request", "format must be html, turtle, jsonld, ntriples or rdfxml")
    if fmt is None:
        fmt = negotiate(accept, ENTITY_OFFERS)
        if fmt is None:
            raise Reply(406, "not-acceptable", "entity pages come as text/html, text/turtle, "
                        "application/ld+json, application/n-triples or application/rdf+xml")
    return rest, fmt
