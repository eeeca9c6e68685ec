"""Graph Store Protocol reads (SPARQL 1.1 Graph Store HTTP Protocol, indirect
identification): ``GET /store?graph=IRI`` and ``GET /store?default`` (also on ``/sparql``
without a query), in every RDF format the server writes, chosen by ``Accept``.

``?default`` is the default graph as queries see it: the union of all graphs. ``GET /store``
with neither is the whole dataset, every graph kept, in N-Quads (or TriG by ``Accept``): the
VoID description's ``void:dataDump``, with a ``Link`` to its licence. A graph the store does
not hold is 404. The answer is held to the server's ``--max-bytes``
(a 422 beyond it), as every other answer is.
"""

from __future__ import annotations

from typing import Any

from pyoxigraph import NamedNode, Triple, serialize

from ..vocab import CC_BY_4
from .negotiation import DATASET_OFFERS, GRAPH_OFFERS, RDF_FORMATS, negotiate
from .replies import Reply

# every RDF format the server writes; Turtle first, the default
OFFERS = [offer for offer in GRAPH_OFFERS if offer[0] != "html"]


def request(params: dict[str, list[str]], accept: str | None, dataset: bool = False) -> dict:
    """The worker's message for a GSP read of ``params`` (``graph=IRI`` or ``default``; neither,
    with ``dataset``, is the whole dataset)."""
    graphs = params.get("graph") or []
    if "default" in params and graphs:
        raise Reply(400, "bad-request", "give either 'graph' or 'default', not both")
    if len(graphs) > 1:
        raise Reply(400, "bad-request", "give exactly one 'graph' parameter")
    if "default" not in params and not graphs:
        if not dataset:
            raise Reply(400, "bad-request", "give ?graph=IRI or ?default")
        fmt = negotiate(accept, DATASET_OFFERS)
        if fmt is None:
            raise Reply(406, "not-acceptable", "the dataset is served as application/n-quads or application/trig "
                        "(one graph: ?graph=IRI, in Turtle and the other RDF formats)")
        return {"op": "graph", "graph": None, "dataset": True, "format": fmt}
    fmt = negotiate(accept, OFFERS)
    if fmt is None:
        raise Reply(406, "not-acceptable", "this graph is served as "
                    + ", ".join(dict((m, None) for _, m in OFFERS)))
    return {"op": "graph", "graph": graphs[0] if graphs else None, "format": fmt}


def answer(worker: Any, msg: dict) -> dict:
    """The graph's triples, serialised (in a worker)."""
    iri = msg["graph"]
    if msg.get("dataset"):
        data = serialize(worker.store.quads(), format=RDF_FORMATS[msg["format"]])
        assert data is not None
        reply = worker._body(msg["format"], data, msg)
        reply["headers"]["Link"] = f'<{CC_BY_4.value}>; rel="license"'
        return reply
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
