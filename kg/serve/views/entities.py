"""``/id/<path>`` and ``/system/<id>``: an entity's page, the same IRI answering HTML, Turtle, JSON-LD,
N-Triples or RDF/XML by ``Accept`` (or a file extension, or ``?format=``).

A system's page (``/id/system/<id>``) opens with its description, pros and cons, a picture of its
neighbourhood, then its facts, protocols, edges, cells, history and centrality measures; any other
resource under the base IRI gets its statements and those that point to it. The RDF of a system
is its record's graph and the edges and measures that touch it.
"""

from __future__ import annotations

import json
from datetime import date
from itertools import islice
from typing import TYPE_CHECKING, Any, Iterable

from pyoxigraph import NamedNode, Triple

from ... import findings
from ...errors import safe_text
from ...parameters import today
from ...vocab import KG, RDF, RDFS, SCHEMA, SKOS
from .. import pages
from ..dispatch import Work
from ..evidence import STALE_MONTHS, Chosen, evidence
from ..negotiation import entity_format
from ..rendering import body_answer, serialise
from ..replies import Reply
from ..request import Request, first, params

if TYPE_CHECKING:
    from ..service import Service
    from ..worker import Worker

OP = "entity"
_SYSTEM_PAGE_SKIPS = {KG.cell, KG.taxonomyAssignment, KG.sectionMembership, KG.protocolSupport, KG.provenance,
                      KG.historyEntry, KG.extraField}  # shown in tables of their own, or not at all
_MAX_INBOUND = 500  # statements listed under "Referenced by" on a resource page


def respond(service: Service, request: Request) -> Work:
    """The entity the path names (``/system/<id>`` is ``/id/system/<id>``), in the negotiated format;
    a system's page takes the evidence filters (``only``, ``months``: :mod:`kg.serve.evidence`)."""
    taken = request.path_params
    rest = taken["rest"] if "rest" in taken else "system/" + taken["id"]
    found = params(request)
    rest, fmt = entity_format(rest, first(found, "format"), request.header("Accept"))
    chosen = Chosen.read({k: v[0] for k, v in found.items() if k in ("only", "months") and v})
    # the day ages are counted to: part of the message, so that an answer kept for a version is not
    # given again on another day (kg.runtime.answer_cache)
    return Work({"op": OP, "rest": rest, "format": fmt, "max_bytes": service.config.max_bytes,
                 "only": chosen.only, "months": chosen.months, "today": today().isoformat()})


def _term_text(term: Any) -> str:
    """The lexical value of a literal or IRI (a triple term: its N-Triples text)."""
    return str(term) if isinstance(term, Triple) else term.value


def render(worker: Worker, msg: dict) -> dict:
    """An entity's page or its RDF (in a worker)."""
    from ...vocab import ID_PATTERN

    rest, fmt = msg["rest"], msg["format"]
    system_id = rest[len("system/"):] if rest.startswith("system/") else None
    if system_id is not None and ID_PATTERN.match(system_id):
        iri = worker.iris.system(system_id)
        if not worker.store.contains(iri, RDF.type, KG.System):
            raise Reply(404, "not-found", f"no system {safe_text(system_id, 120)} in this store")
        if fmt == "html":
            facts = _system_facts(worker, system_id, iri)
            chosen = Chosen(msg.get("only"), msg.get("months") or STALE_MONTHS[0])
            shown = evidence(facts.cells, _provenance(worker, iri), findings.current(worker.store, worker.iris),
                             system_id, date.fromisoformat(msg.get("today") or today().isoformat()), chosen,
                             pages.Terms(worker.iris.base))
            return body_answer("html", pages.system_page(facts, shown), msg)
        quads = _system_quads(worker, system_id, iri)
    else:
        iri = _resource(worker, rest)
        quads = list(worker.store.match(iri))
        if fmt == "html":
            return body_answer("html", _resource_page(worker, iri, quads), msg)
    if fmt == "jsonld":
        return body_answer(fmt, _jsonld(worker, quads), msg)
    triples = list(dict.fromkeys(Triple(q.subject, q.predicate, q.object) for q in quads))
    triples.sort(key=lambda t: (t.subject != iri, str(t.subject), str(t.predicate), str(t.object)))
    return body_answer(fmt, serialise(triples, fmt), msg)


def _resource(worker: Worker, rest: str) -> NamedNode:
    """The IRI under the base that ``rest`` (as given, or percent-decoded) names, if the store has it."""
    from urllib.parse import unquote

    for candidate in dict.fromkeys((rest, unquote(rest))):
        try:
            node = NamedNode(worker.iris.base + candidate)
        except ValueError:
            continue
        if worker.store.contains(node):
            return node
    raise Reply(404, "not-found", "no such resource in this store")


def _jsonld(worker: Worker, quads: list) -> bytes:
    from ...exports import jsonld_bytes
    from ...store import GraphStore

    scratch = GraphStore()
    scratch.replace_graphs({}, additions=quads)
    document = json.loads(jsonld_bytes(scratch, worker.iris))
    # One flat graph, like the Turtle: the nodes of every named graph together
    # (a node given twice is merged by JSON-LD processors).
    flat = {"@context": document["@context"],
            "@graph": [node for graph in document["@graph"] for node in graph.get("@graph", [])]}
    return json.dumps(flat, ensure_ascii=False, indent=1).encode("utf-8") + b"\n"


def _system_quads(worker: Worker, system_id: str, iri: Any) -> list:
    s = worker.store
    edges, analysis = worker.iris.edges_graph, worker.iris.analysis_graph
    quads = list(s.match(None, None, None, worker.iris.record_graph(system_id)))
    quads += s.match(iri, None, None, edges)
    quads += s.match(None, None, iri, edges)
    for link in (KG.source, KG.target):
        for q in list(s.match(None, link, iri, edges)):
            quads += s.match(q.subject, None, None, edges)
    quads += s.match(iri, None, None, analysis)
    return list(dict.fromkeys(quads))


def _labels(worker: Worker, iris: Iterable[Any]) -> dict[str, str]:
    labels: dict[str, str] = {}
    for node in iris:
        if not isinstance(node, NamedNode) or node.value in labels:
            continue
        for predicate in (SCHEMA.name, SKOS.prefLabel, RDFS.label):
            found = next(iter(worker.store.match(node, predicate, None, None)), None)
            if found is not None:
                labels[node.value] = _term_text(found.object)
                break
    return labels


def _select(worker: Worker, body: str, system: Any) -> list[dict]:
    return worker.store.select(worker.prefixes + body, {"sys": system})


def _system_facts(worker: Worker, system_id: str, iri: Any) -> pages.SystemFacts:
    facts = [q for q in worker.store.match(iri, None, None, worker.iris.record_graph(system_id))
             if q.predicate not in _SYSTEM_PAGE_SKIPS]
    labels = _labels(worker, [q.predicate for q in facts] + [q.object for q in facts])
    name = labels.get(iri.value) or next((_term_text(q.object) for q in facts if q.predicate == SCHEMA.name), system_id)
    protocols = _select(worker, """
SELECT ?protocol ?mode WHERE { ?sys kg:protocolSupport ?ps . ?ps kg:protocol ?protocol ; kg:supportMode ?mode }
ORDER BY ?protocol""", iri)
    cells = _select(worker, """
SELECT ?slug ?value ?status ?tier ?citation ?verified ?dated_by ?source_class WHERE {
  ?sys kg:cell ?cell . ?cell kg:column ?column . ?column dcterms:identifier ?slug .
  OPTIONAL { ?cell kg:value ?value } OPTIONAL { ?cell kg:status ?status }
  OPTIONAL { ?cell kg:claimTier ?tier } OPTIONAL { ?cell kg:citation ?citation }
  OPTIONAL { ?cell kg:lastVerified ?own } OPTIONAL { ?sys kg:lastVerified ?record }
  OPTIONAL { ?cell kg:sourceClass ?source_class }
  BIND(COALESCE(?own, ?record) AS ?verified)
  BIND(IF(BOUND(?own), "cell", "record") AS ?dated_by)
} ORDER BY ?slug""", iri)
    edges = {}
    for direction, this_end, other_end in (("out", "source", "target"), ("in", "target", "source")):
        edges[direction] = _select(worker, f"""
SELECT ?type ?other ?evidence ?citation ?influential WHERE {{
  ?relation kg:{this_end} ?sys ; kg:{other_end} ?other ; kg:edgeType ?type .
  OPTIONAL {{ ?relation kg:evidence ?evidence }} OPTIONAL {{ ?relation kg:citation ?citation }}
  OPTIONAL {{ ?relation kg:isInfluential ?influential }}
}} ORDER BY ?type ?other""", iri)
    history = _select(worker, f"""
SELECT ?date ?origin ?kind ?field ?old ?new WHERE {{
  ?sys kg:historyEntry ?entry .
  OPTIONAL {{ ?entry kg:changeDate ?date }} OPTIONAL {{ ?entry kg:changeKind ?kind }}
  OPTIONAL {{ ?entry dcterms:isPartOf/kg:changesetNumber ?number }}
  BIND(IF(BOUND(?number), CONCAT("changeset ", STR(?number)), "record history") AS ?origin)
  OPTIONAL {{ ?entry kg:fieldChange ?change . ?change kg:field ?field .
         OPTIONAL {{ ?change kg:fromValue ?old }} OPTIONAL {{ ?change kg:toValue ?new }} }}
}} ORDER BY DESC(STR(?date)) DESC(?number) ?field LIMIT {pages.HISTORY_ROWS}""", iri)
    centrality = [q for q in worker.store.match(iri, None, None, worker.iris.analysis_graph)
                  if not isinstance(q.object, NamedNode)]
    return pages.SystemFacts(
        system_id=system_id, iri=iri, name=name, base=worker.iris.base, facts=facts, fact_labels=labels,
        protocols=protocols, protocol_labels=_labels(worker, [r["protocol"] for r in protocols]
                                                     + [r["mode"] for r in protocols]),
        cells=cells, edges=edges, edge_labels=_labels(worker, [r["other"] for rows in edges.values() for r in rows]),
        centrality=centrality, centrality_labels=_labels(worker, [q.predicate for q in centrality]),
        analysis_graph=worker.iris.analysis_graph, history=history)


def _provenance(worker: Worker, iri: Any) -> dict[str, dict]:
    """The record's ``_provenance`` entries by column slug: source, verified, author, model."""
    rows = _select(worker, """
SELECT ?slug ?source ?verified ?author ?model WHERE {
  ?sys kg:provenance ?p . ?p kg:column/dcterms:identifier ?slug .
  OPTIONAL { ?p kg:provenanceSource ?source } OPTIONAL { ?p kg:verified ?verified }
  OPTIONAL { ?p kg:author ?author } OPTIONAL { ?p kg:modelId ?model }
}""", iri)
    return {r["slug"].value: r for r in rows}


def _resource_page(worker: Worker, iri: NamedNode, quads: list) -> bytes:
    inbound = list(islice(worker.store.match(None, None, iri, None), _MAX_INBOUND))
    labels = _labels(worker, [iri] + [q.predicate for q in quads] + [q.object for q in quads]
                     + [q.subject for q in inbound] + [q.predicate for q in inbound])
    return pages.resource_page(iri, quads, inbound, labels, worker.iris.base, more=len(inbound) == _MAX_INBOUND)
