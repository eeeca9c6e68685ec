"""Graph Store Protocol reads (SPARQL 1.1 Graph Store HTTP Protocol, indirect
identification): ``GET /store?graph=IRI`` and ``GET /store?default`` (also on ``/sparql``
without a query), in every RDF format the server writes, chosen by ``Accept``.

``?default`` is the default graph as queries see it: the union of all graphs. A graph
the store does not hold is 404. The answer is held to the server's ``--max-bytes``
(a 422 beyond it), as every other answer is.
"""

from __future__ import annotations

from typing import Any

from pyoxigraph import NamedNode, Triple

from .negotiation import GRAPH_OFFERS, negotiate
from .replies import Reply

# every RDF format the server writes; Turtle first, the default
OFFERS = [offer for offer in GRAPH_OFFERS if offer[0] != "html"]


def request(params: dict[str, list[str]], accept: str | None) -> dict:
    """The worker's message for a GSP read of ``params`` (``graph=IRI`` or ``default``)."""
    graphs = params.get("graph") or []
    if "default" in params and graphs:
        raise Reply(400, "bad-request", "give either 'graph' or 'default', not both")
    if len(graphs) > 1:
        raise Reply(400, "bad-request", "give exactly one 'graph' parameter")
    if "default" not in params and not graphs:
        raise Reply(400, "bad-request", "give ?graph=IRI or ?default")
    fmt = negotiate(accept, OFFERS)
    if fmt is None:
        raise Reply(406, "not-acceptable", "this graph is served as "
                    + ", ".join(dict((m, None) for _, m in OFFERS)))
    return {"op": "graph", "graph": graphs[0] if graphs else None, "format": fmt}


def answer(worker: Any, msg: dict) -> dict:
    """The graph's triples, serialised (in a worker)."""
    iri = msg["graph"]
    if iri is None:
        quads = worker.store.quads()  # the union default graph, as queries see it
    else:
        if iri not in worker.graphs:
            raise Reply(404, "not-found", "this store holds no graph with that IRI")
        quads = worker.store.quads(NamedNode(iri))
    seen: set = set()
    triples = []
    for quad in quads:
        triple = Triple(quad.subject, quad.predicate, quad.object)
        if triple not in seen:
            seen.add(triple)
            triples.append(triple)
    return worker._body(msg["format"], worker._serialise(triples, msg["format"]), msg)
