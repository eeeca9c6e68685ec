"""Store -> files: RDF serialisations, compact JSON-LD, and the catalog JSON rebuilt from the graph.

Triple formats (Turtle, N-Triples) hold the union of all named graphs; dataset
formats (N-Quads, TriG, JSON-LD) keep the named graphs. Every output carries the
catalog's CC-BY-4.0 attribution (in the dataset description graph, and as a
header comment where the format has comments).
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import IO, Any

import pyoxigraph
from pyoxigraph import Literal, NamedNode, Quad, Triple

from .mapping import edges_from_quads, header_from_quads, record_from_quads
from .records import edge_to_json, record_to_json
from .store import FORMATS, GraphStore
from .vocab import ATTRIBUTION, CONTEXT_FILE, KG, ONTOLOGY_FILE, OWL, PREFIXES, RDF, XSD, Iris

RDF_FORMATS = ("turtle", "ntriples", "nquads", "trig", "jsonld")
EXPORT_FORMATS = RDF_FORMATS + ("catalog-json",)
EXTENSIONS = {"turtle": ".ttl", "ntriples": ".nt", "nquads": ".nq", "trig": ".trig",
              "jsonld": ".jsonld", "catalog-json": ".json"}
COMMENT_FORMATS = ("turtle", "ntriples", "nquads", "trig")


def format_for_path(path: str) -> str | None:
    """The export format a file name implies (by extension), if any."""
    for fmt, ext in EXTENSIONS.items():
        if path.endswith(ext):
            return fmt
    return None


def prefixes(iris: Iris) -> dict[str, str]:
    """Prefixes for readable output: the vocabularies and the data namespaces."""
    return {**PREFIXES, "sys": iris.base + "system/", "col": iris.base + "column/", "data": iris.base}


def _attribution_comment() -> bytes:
    return (f"# {ATTRIBUTION}\n# Graph built by kg from the catalog data; data licence CC-BY-4.0.\n").encode()


def union_triples(store: GraphStore) -> list[Triple]:
    """Every distinct triple of every named graph, in the store's order (the same
    content always gives the same order; sorting by text cost most of the export)."""
    return list(dict.fromkeys(q.triple for q in store.quads()))


def export_rdf(store: GraphStore, fmt: str, output: IO[bytes], iris: Iris) -> None:
    """Write the graph in an RDF format (see ``RDF_FORMATS``)."""
    if fmt == "jsonld":
        output.write(jsonld_bytes(store, iris))
        return
    output.write(_attribution_comment())
    if FORMATS[fmt].supports_datasets:
        store.dump(output, fmt, prefixes=prefixes(iris))
    else:
        pyoxigraph.serialize(union_triples(store), output, format=FORMATS[fmt], prefixes=prefixes(iris))


# ---------------------------------------------------------------------------
# Catalog JSON


def catalog_json(store: GraphStore, iris: Iris) -> dict[str, Any]:
    """The catalog rebuilt from the graph: header, records (in id order) and edges."""
    header = header_from_quads(store.quads(iris.catalog_graph), iris.catalog_source) or {}
    prefix = iris.record_graph_prefix()
    records = []
    for graph in store.named_graphs():
        if graph.value.startswith(prefix):
            record_id = graph.value[len(prefix):]
            records.append(record_to_json(record_from_quads(store.quads(graph), iris, record_id)))
    edges = [edge_to_json(e) for e in edges_from_quads(store.quads(iris.edges_graph), iris)]
    edges_header = header_from_quads(store.quads(iris.edges_graph), iris.edges_source) or {}
    out: dict[str, Any] = dict(header)
    out.setdefault("license", "CC-BY-4.0")
    out.setdefault("attribution", ATTRIBUTION)
    out["records"] = records
    out["edges"] = edges
    if edges_header:
        out["edgesHeader"] = edges_header
    return out


def export_catalog_json(store: GraphStore, output: IO[bytes], iris: Iris) -> None:
    output.write(json.dumps(catalog_json(store, iris), ensure_ascii=False, indent=1).encode())
    output.write(b"\n")


def export(store: GraphStore, fmt: str, output: IO[bytes], iris: Iris | None = None) -> None:
    """Write the whole graph to ``output`` in ``fmt`` (one of ``EXPORT_FORMATS``)."""
    iris = iris or Iris()
    if fmt == "catalog-json":
        export_catalog_json(store, output, iris)
    else:
        export_rdf(store, fmt, output, iris)


# ---------------------------------------------------------------------------
# Compact JSON-LD with the kg context (pyoxigraph writes expanded JSON-LD only)


def jsonld_context() -> dict[str, Any]:
    """The JSON-LD context: prefixes, plus one term per ontology term (object
    properties coerce to IRIs). ``ontology/context.jsonld`` is this, written out."""
    ontology = list(pyoxigraph.parse(path=str(ONTOLOGY_FILE)))
    object_props = {t.subject.value for t in ontology
                    if t.predicate == RDF.type and t.object == OWL.ObjectProperty}
    terms: dict[str, Any] = {"@version": 1.1}
    terms.update({k: v for k, v in PREFIXES.items() if k != "sh"})
    declared = sorted({t.subject.value for t in ontology if t.subject.value.startswith(KG.iri)})
    for iri in declared:
        local = iri[len(KG.iri):]
        terms[local] = {"@id": f"kg:{local}", "@type": "@id"} if iri in object_props else f"kg:{local}"
    return {"@context": terms}


def _compact(iri: str, pairs: list[tuple[str, str]]) -> str:
    for prefix, ns in pairs:
        if iri.startswith(ns) and len(iri) > len(ns) and not iri[len(ns):].startswith("//"):
            return f"{prefix}:{iri[len(ns):]}"
    return iri


def jsonld_bytes(store: GraphStore, iris: Iris) -> bytes:
    """The dataset as compact JSON-LD: inline context (never a remote one), one entry per graph."""
    context = json.loads(CONTEXT_FILE.read_text(encoding="utf-8"))["@context"]
    context = {**context, "data": iris.base, "sys": iris.base + "system/", "col": iris.base + "column/",
               "spdx": "http://spdx.org/licenses/"}
    # longest namespace first, so data: never shadows sys:
    pairs = sorted(((k, v) for k, v in context.items() if isinstance(v, str) and v.endswith(("/", "#"))),
                   key=lambda kv: -len(kv[1]))
    terms = {}
    for name, definition in context.items():
        if name.startswith("@") or name in dict(pairs):
            continue
        target = definition["@id"] if isinstance(definition, dict) else definition
        terms[f"{KG.iri}{target[3:]}" if target.startswith("kg:") else target] = (
            name, isinstance(definition, dict) and definition.get("@type") == "@id")
    graphs: dict[str, dict[str, dict[str, list]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for q in store.quads():
        graphs[q.graph_name.value][q.subject.value][q.predicate.value].append(q.object)
    out_graphs = []
    for graph_iri in sorted(graphs):
        nodes = []
        for subject in sorted(graphs[graph_iri]):
            node: dict[str, Any] = {"@id": _compact(subject, pairs)}
            for predicate in sorted(graphs[graph_iri][subject]):
                objects = graphs[graph_iri][subject][predicate]  # in the store's (stable) order
                if predicate == RDF.type.value:
                    node["@type"] = [_compact(o.value, pairs) for o in objects]
                    continue
                name, as_id = terms.get(predicate, (_compact(predicate, pairs), False))
                node[name] = [_jsonld_value(o, as_id, pairs) for o in objects]
            nodes.append(node)
        out_graphs.append({"@id": _compact(graph_iri, pairs), "@graph": nodes})
    document = {"@context": context, "@graph": out_graphs}
    return json.dumps(document, ensure_ascii=False, indent=1).encode() + b"\n"


def _jsonld_value(term: Any, as_id: bool, pairs: list[tuple[str, str]]) -> Any:
    if isinstance(term, NamedNode):
        compact = _compact(term.value, pairs)
        return compact if as_id else {"@id": compact}
    if not isinstance(term, Literal):
        raise ValueError(f"unexpected term in the store: {term!r}")
    if as_id:  # a literal under an IRI-coerced term must say it is a value
        if term.language:
            return {"@value": term.value, "@language": term.language}
        return {"@value": term.value, "@type": _compact(term.datatype.value, pairs)}
    if term.language:
        return {"@value": term.value, "@language": term.language}
    if term.datatype == XSD.string:
        return term.value
    return {"@value": term.value, "@type": _compact(term.datatype.value, pairs)}
