"""``/`` (also ``/index.html``): the query page, with the query editor and the catalog's questions; to a
client that asks for RDF (``Accept: text/turtle``, JSON-LD, N-Triples, RDF/XML), the service description,
as ``/sparql`` gives it, so that a client pointed at the site finds its endpoint (Comunica does)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...vocab import Iris
from .. import linkeddata, pages
from ..dispatch import QUERY_OP, Blocking, call_worker
from ..negotiation import CONTENT_TYPES, negotiate
from ..replies import Reply
from ..request import Request, first, params, path_of

if TYPE_CHECKING:
    from ..service import Service

OFFERS = linkeddata.PAGE_FIRST_OFFERS


def respond(service: Service, request: Request) -> Blocking:
    found = params(request)
    chosen = negotiate(request.header("Accept"), OFFERS)
    if chosen is None:
        raise Reply(406, "not-acceptable", "this page comes as " + ", ".join(dict.fromkeys(m for _, m in OFFERS)))
    if chosen != "html":
        return Blocking(description, (service, request, chosen))
    return Blocking(page, (service, request, first(found, "example")))


def page(service: Service, request: Request, example: str | None) -> dict:
    """The query page (``example``: the catalog question whose text the editor opens with)."""
    body = pages.home_page(example, service.config.timeout, service.config.max_rows, request.base_url)
    return {"status": 200, "type": CONTENT_TYPES["html"], "body": body,
            "headers": {**pages.EDITOR_HEADERS, "Vary": "Accept"}}


def description(service: Service, request: Request, chosen: str) -> dict:
    """The service description of ``/sparql`` in the RDF format ``chosen``, naming the graphs of the
    version the worker reads (also what ``/`` answers a client that asks for RDF)."""
    # every graph, whatever --max-rows says (one short row per graph, our own query)
    graphs_found = call_worker(service, {"op": QUERY_OP, "query": linkeddata.NAMED_GRAPHS, "solutions": "tsv",
                                         "graph": None, "max_rows": 10**9, "max_bytes": service.config.max_bytes})
    if graphs_found.get("status") != 200:
        return graphs_found  # the worker's error answer
    graphs = [line.strip()[1:-1] for line in graphs_found["body"].decode("utf-8").splitlines()[1:]
              if line.startswith("<")]
    dataset = Iris(service.config.base).dataset.value
    endpoint, here = request.base_url + "/sparql", request.base_url + path_of(request)
    body = linkeddata.service_description(endpoint, service.config.allow_update, graphs, dataset, chosen,
                                          None if here == endpoint else here)
    return {"status": 200, "type": CONTENT_TYPES[chosen], "headers": {"Vary": "Accept"}, "body": body}
