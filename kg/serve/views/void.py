"""``/.well-known/void``: the store's VoID description (the one each ingest writes: counts, licence,
attribution), with where to query it (``void:sparqlEndpoint``) and where to take all of it
(``void:dataDump``: ``/store``), in an RDF format, or as a page for a browser."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...vocab import Iris
from .. import linkeddata
from ..dispatch import Blocking, call_worker
from ..negotiation import CONTENT_TYPES, negotiate
from ..pages import HTML_HEADERS
from ..replies import Reply
from ..request import Request, first, params
from . import sparql

if TYPE_CHECKING:
    from ..service import Service


def respond(service: Service, request: Request) -> Blocking:
    return Blocking(_void, (service, request))


def _void(service: Service, request: Request) -> dict:
    """The description in the negotiated RDF format (a page for a client that prefers HTML), read
    from the store by a worker."""
    offers = linkeddata.DESCRIPTION_OFFERS
    fmt = first(params(request), "format")
    chosen = fmt if fmt in {key for key, _ in offers} else negotiate(request.header("Accept") or "", offers)
    if chosen is None:
        raise Reply(406, "not-acceptable", "the VoID description comes as "
                    + ", ".join(dict.fromkeys(m for _, m in offers)))
    iris = Iris(service.config.base)
    text = f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ GRAPH {iris.dataset_graph} {{ ?s ?p ?o }} }}"
    found = call_worker(service, {"op": sparql.OP, "query": text, "solutions": None, "graph": "turtle",
                                  "render": False, "max_rows": 10**9, "max_bytes": service.config.max_bytes})
    if "triples" not in found:
        return found  # the worker's error answer
    body = linkeddata.void_description(found["triples"], iris.dataset.value, request.base_url, chosen, iris.base)
    headers = {**HTML_HEADERS, "Vary": "Accept"} if chosen == "html" else {"Vary": "Accept"}
    return {"status": 200, "type": CONTENT_TYPES[chosen], "headers": headers, "body": body}
