"""``/sparql`` (also ``/query``): the SPARQL 1.1 Protocol's queries, by GET and POST (a form, or
``application/sparql-query``), answered by a worker in the negotiated results format; an update
sent here (:mod:`kg.serve.views.update`); a Graph Store read by ``?graph=`` or ``?default``
(:mod:`kg.serve.views.graph_store`); without a query, the query page for a browser, else the
service description.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import linkeddata
from ..config import MAX_QUERY_CHARS
from ..dispatch import QUERY_OP, Blocking, Work
from ..negotiation import CONTENT_TYPES, negotiate, result_formats
from ..paging import PAGE_PARAMS, Page
from ..replies import Reply
from ..request import Request, content_type, first, form, params, read_text
from . import graph_store, home, update

if TYPE_CHECKING:
    from ..service import Service
    from ..streams import Stream
    from ..worker import Worker

OP = QUERY_OP  # also what kg mcp's messages say: the worker answers them with Worker.query
DEFAULT_GRAPH_FORMAT = "turtle"  # a CONSTRUCT or DESCRIBE whose request names no RDF format


def respond(service: Service, request: Request) -> Work | Blocking | Stream:
    """A query (a worker's answer), a Graph Store read, an update, or the description."""
    found, text = _sparql_request(request)
    if text is not None:
        return Blocking(update.run, (service, request, text))
    queries_ = found.get("query")
    if not queries_ and ("graph" in found or "default" in found):
        return graph_store.read(request, found)
    if not queries_:
        return Blocking(_description, (service, request, first(found, "format")))
    if len(queries_) != 1:
        raise Reply(400, "bad-request", "give exactly one 'query' parameter")
    text = queries_[0]
    if len(text) > MAX_QUERY_CHARS:
        raise Reply(413, "request-too-large", f"the query is longer than {MAX_QUERY_CHARS} characters")
    solutions, graph = result_formats(first(found, "format", "output", "results"), request.header("Accept"))
    # an Accept that names only result types (rdflib's SPARQLStore asking a CONSTRUCT with returnFormat
    # json) gets a graph in the default RDF format, as the Oxigraph server and Fuseki answer it
    graph = graph or DEFAULT_GRAPH_FORMAT
    config = service.config
    msg = {"op": OP, "query": text, "default": found.get("default-graph-uri"),
           "named": found.get("named-graph-uri"), "solutions": solutions, "graph": graph,
           "max_rows": config.max_rows, "max_bytes": config.max_bytes}
    if solutions == "html":  # a page of the rows, never a 422 where the first page can be shown
        msg.update(_html_page(found, config.max_rows))
    return Work(msg)


def render(worker: Worker, msg: dict) -> dict:
    """A query's answer (in a worker)."""
    return worker.query(msg)


def query_text(request: Request) -> str | None:
    """The SPARQL query a request carries (in the URL, a form or the body), for an error page
    to give back; None when it carries none or cannot be read."""
    try:
        found = params(request)
        if request.method == "POST":
            ctype, cparams = content_type(request)
            if ctype == "application/x-www-form-urlencoded":
                found.update(form(request.body()))
            elif ctype == "application/sparql-query":
                return read_text(request.body(), cparams)
    except Reply:
        return None
    return first(found, "query")


def _sparql_request(request: Request) -> tuple[dict[str, list[str]], str | None]:
    """The parameters of a request to ``/sparql`` (the URL's, a form's, a query body as ``query``)
    and the update it carries instead of a query (None for none)."""
    found = params(request)
    if request.method == "POST":
        body = request.body()
        ctype, cparams = content_type(request)
        if ctype == "application/x-www-form-urlencoded":
            fields = form(body)
            if "update" in fields:
                if "query" in fields:
                    raise Reply(400, "bad-request", "give either 'query' or 'update', not both")
                values = fields["update"]
                if len(values) != 1:
                    raise Reply(400, "bad-request", "give exactly one 'update' parameter")
                return found, values[0]
            for key, values in fields.items():
                found.setdefault(key, []).extend(values)
        elif ctype == "application/sparql-query":
            if "query" in found:
                raise Reply(400, "bad-request", "the query is the body; do not also pass 'query' in the URL")
            found["query"] = [read_text(body, cparams)]
        elif ctype == "application/sparql-update":
            return found, read_text(body, cparams)
        else:
            raise Reply(415, "unsupported-media-type",
                        "POST a query as application/x-www-form-urlencoded (query=...) "
                        "or as application/sparql-query")
    if "update" in found:
        raise Reply(400, "bad-request", "updates must be sent by POST to /update")
    return found, None


def _html_page(found: dict[str, list[str]], max_rows: int) -> dict[str, Any]:
    """What the worker needs to show one page of a SELECT's rows as HTML: the rows to read (one
    more than the page: a next page) and the page, with the parameters its links keep."""
    try:
        page = Page.read({k: v[0] for k, v in found.items() if k in PAGE_PARAMS and v})
    except ValueError as err:
        raise Reply(400, "bad-request", str(err)) from None
    most = max_rows - 1 - page.offset  # the page and the row after it within --max-rows
    if most < 1:
        raise Reply(400, "bad-request", f"offset must be below {max_rows - 1}: this server reads at most "
                    f"{max_rows} rows of one answer (its --max-rows); narrow the query instead")
    page = Page(page.offset, min(page.limit, most))
    kept = {k: v[0] for k, v in found.items() if k in ("query", "default-graph-uri", "named-graph-uri") and v}
    # the rows after the page are counted (within --max-rows, none kept) for its "rows 1-100 of 250"
    return {"row_cap": page.reach, "count_to": max_rows,
            "page": {"offset": page.offset, "limit": page.limit, "last": max_rows - 1,
                     "params": {**kept, "format": "html"}}}


def _description(service: Service, request: Request, fmt: str | None) -> dict:
    """``/sparql`` without a query: the query page for a browser, else the service description
    (Turtle, JSON-LD, N-Triples or RDF/XML by ``Accept`` or ``?format=``), naming the graphs
    of the version the worker reads."""
    offers = linkeddata.DESCRIPTION_OFFERS
    chosen = fmt if fmt in {key for key, _ in offers} else negotiate(request.header("Accept") or "", offers)
    if chosen == "html":
        return home.page(service, request, None)
    if chosen is None:
        raise Reply(406, "not-acceptable", "the service description comes as "
                    + ", ".join(dict.fromkeys(m for key, m in offers if key != "html")))
    return home.description(service, request, chosen)
