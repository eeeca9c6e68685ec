"""Graph Store Protocol reads (SPARQL 1.1 Graph Store HTTP Protocol, indirect
identification): ``GET /store?graph=IRI`` and ``GET /store?default`` (also on ``/sparql``
without a query), in every RDF format the server writes, chosen by ``Accept``.

``?default`` is the default graph as queries see it: the union of all graphs. ``GET /store``
with neither is the whole dataset, every graph kept, in N-Quads (or TriG by ``Accept``): the
VoID description's ``void:dataDump``, with a ``Link`` to its licence. A graph the store does
not hold is 404. Each is the store's own dump, streamed from one version of the store
(:mod:`kg.serve.streams`): no query deadline and no ``--max-bytes`` hold it, and no worker is
kept from queries while it is sent.
"""

from __future__ import annotations

from functools import partial
from typing import IO, TYPE_CHECKING

from pyoxigraph import NamedNode, QueryTriples

from ...errors import UsageError
from ...output import xml_safe
from ...vocab import CC_BY_4, PREFIXES
from ..negotiation import CONTENT_TYPES, DATASET_OFFERS, GRAPH_OFFERS, RDF_FORMATS, negotiate
from ..replies import Reply
from ..request import Request, params
from ..streams import Stream

if TYPE_CHECKING:
    from ...store import GraphStore
    from ..service import Service

# every RDF format the server writes; Turtle first, the default
OFFERS = [offer for offer in GRAPH_OFFERS if offer[0] != "html"]
_PREFIXES = {k: v for k, v in PREFIXES.items() if k != "sh"}  # as the other answers in Turtle write them
_UNION = "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }"  # the default graph: each triple of every graph, once


def respond(service: Service, request: Request) -> Stream:
    """``/store``: one graph, the default graph, or the whole dataset."""
    return read(request, params(request), dataset=True)


def read(request: Request, found: dict[str, list[str]], dataset: bool = False) -> Stream:
    """The dump a GSP read of ``found`` (``graph=IRI`` or ``default``; neither, with ``dataset``,
    the whole dataset) streams."""
    accept = request.header("Accept")
    graphs = found.get("graph") or []
    if "default" in found and graphs:
        raise Reply(400, "bad-request", "give either 'graph' or 'default', not both")
    if len(graphs) > 1:
        raise Reply(400, "bad-request", "give exactly one 'graph' parameter")
    if "default" not in found and not graphs:
        if not dataset:
            raise Reply(400, "bad-request", "give ?graph=IRI or ?default")
        fmt = negotiate(accept, DATASET_OFFERS)
        if fmt is None:
            raise Reply(406, "not-acceptable", "the dataset is served as application/n-quads or application/trig "
                        "(one graph: ?graph=IRI, in Turtle and the other RDF formats)")
        return Stream(CONTENT_TYPES[fmt], partial(_dataset, fmt), headers={"Link": f'<{CC_BY_4.value}>; rel="license"'})
    fmt = negotiate(accept, OFFERS)
    if fmt is None:
        raise Reply(406, "not-acceptable", "this graph is served as "
                    + ", ".join(dict((m, None) for _, m in OFFERS)))
    if not graphs:
        return Stream(CONTENT_TYPES[fmt], partial(_union, fmt), check=partial(_writable, None, fmt))
    return Stream(CONTENT_TYPES[fmt], partial(_graph, graphs[0], fmt), check=partial(_writable, graphs[0], fmt))


def _dataset(fmt: str, store: GraphStore, output: IO[bytes]) -> None:
    store.dump(output, fmt)


def _graph(iri: str, fmt: str, store: GraphStore, output: IO[bytes]) -> None:
    store.dump(output, fmt, graph=NamedNode(iri), prefixes=_PREFIXES)


def _union(fmt: str, store: GraphStore, output: IO[bytes]) -> None:
    triples = store.query(_UNION, union=True)
    assert isinstance(triples, QueryTriples)
    triples.serialize(output, format=RDF_FORMATS[fmt])


def _writable(iri: str | None, fmt: str, store: GraphStore) -> None:
    """Refuse, before the first byte, a graph the store does not hold (404) and one that RDF/XML
    cannot hold (406: a value with a character XML 1.0 forbids)."""
    graph = None
    if iri is not None:
        try:
            graph = NamedNode(iri)
        except ValueError:
            graph = None
        if graph is None or not store.has_graph(graph):
            raise Reply(404, "not-found", "this store holds no graph with that IRI")
    if fmt == "rdfxml":
        try:
            for _ in xml_safe(store.quads(graph)):
                pass
        except UsageError as err:
            raise Reply(406, "not-xml", str(err)) from None
