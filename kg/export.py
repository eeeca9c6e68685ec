"""Store -> files: RDF serialisations, compact JSON-LD, and the catalog JSON rebuilt from the graph.

Triple formats (Turtle, N-Triples) hold the union of all named graphs; dataset
formats (N-Quads, TriG, JSON-LD) keep the named graphs. Every output carries the
catalog's CC-BY-4.0 attribution (in the dataset description graph, and as a
header comment where the format has comments).
"""

from __future__ import annotations

import io
import json
from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import IO, Any

import pyoxigraph
from pyoxigraph import Literal, NamedNode, Quad, Triple

from .mapping import catalog_json, write_catalog_json  # noqa: F401 (catalog_json: part of this module's API)
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


def union_triples(store: GraphStore) -> Iterator[Triple]:
    """Every distinct triple of every named graph, in the store's (stable) order.

    The engine removes duplicates while it streams (a CONSTRUCT result is a set), so
    memory holds encoded terms, not a Python object per triple.
    """
    return iter(store.query("CONSTRUCT { ?s ?p ?o } WHERE { GRAPH ?g { ?s ?p ?o } }", union=False))


def export_rdf(store: GraphStore, fmt: str, output: IO[bytes], iris: Iris) -> None:
    """Write the graph in an RDF format (see ``RDF_FORMATS``)."""
    if fmt == "jsonld":
        write_jsonld(store, output, iris)
        return
    output.write(_attribution_comment())
    if FORMATS[fmt].supports_datasets:
        store.dump(output, fmt, prefixes=prefixes(iris))
    else:
        pyoxigraph.serialize(union_triples(store), output, format=FORMATS[fmt], prefixes=prefixes(iris))


def export(store: GraphStore, fmt: str, output: IO[bytes], iris: Iris | None = None) -> None:
    """Write the whole graph to ``output`` in ``fmt`` (one of ``EXPORT_FORMATS``)."""
    iris = iris or Iris()
    if fmt == "catalog-json":
        write_catalog_json(store, output, iris)
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


def _jsonld_names(iris: Iris) -> tuple[dict[str, Any], list[tuple[str, str]], dict[str, tuple[str, bool]]]:
    """The context, its namespaces (longest first) and the term name of each property IRI."""
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
    return context, pairs, terms


def _jsonld_graph(quads: Iterable[Quad], graph_iri: str, pairs: list[tuple[str, str]],
                  terms: dict[str, tuple[str, bool]]) -> dict[str, Any]:
    """One named graph as a JSON-LD graph object: nodes by IRI, properties by name."""
    subjects: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for q in quads:
        subjects[q.subject.value][q.predicate.value].append(q.object)  # the store's (stable) order
    nodes = []
    for subject in sorted(subjects):
        node: dict[str, Any] = {"@id": _compact(subject, pairs)}
        for predicate in sorted(subjects[subject]):
            objects = subjects[subject][predicate]
            if predicate == RDF.type.value:
                node["@type"] = [_compact(o.value, pairs) for o in objects]
                continue
            name, as_id = terms.get(predicate, (_compact(predicate, pairs), False))
            node[name] = [_jsonld_value(o, as_id, pairs) for o in objects]
        nodes.append(node)
    return {"@id": _compact(graph_iri, pairs), "@graph": nodes}


def write_jsonld(store: GraphStore, output: IO[bytes], iris: Iris) -> None:
    """The dataset as compact JSON-LD: inline context (never a remote one), one entry per
    named graph, written graph by graph (memory: the largest graph, not the dataset)."""
    context, pairs, terms = _jsonld_names(iris)
    output.write(b'{\n "@context": ' + json.dumps(context, ensure_ascii=False, indent=1).encode()
                 + b',\n "@graph": [')
    for i, graph in enumerate(store.named_graphs()):
        entry = _jsonld_graph(store.quads(graph), graph.value, pairs, terms)
        output.write((b",\n" if i else b"\n") + json.dumps(entry, ensure_ascii=False, indent=1).encode())
    output.write(b"\n ]\n}\n")


def jsonld_bytes(store: GraphStore, iris: Iris) -> bytes:
    """``write_jsonld`` into bytes (for small stores: one resource's description)."""
    buffer = io.BytesIO()
    write_jsonld(store, buffer, iris)
    return buffer.getvalue()


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
