"""Store -> files: RDF serialisations, compact JSON-LD, and the catalog JSON rebuilt from the graph.

Which graphs go out, by format (``graphs`` selects named graphs, default all of them):

- triple formats (Turtle, N-Triples, RDF/XML): the union of the selected graphs, each
  distinct triple once, in the default graph;
- dataset formats (N-Quads, TriG, JSON-LD): the selected named graphs, each kept as a
  named graph; with ``union`` their triples go into the default graph instead (for
  JSON-LD that is a plain document: one top-level ``@graph`` of nodes, which any JSON-LD
  reader, rdflib's ``Graph().parse`` included, reads as triples).

Every output carries the catalog's CC-BY-4.0 attribution (in the dataset description
graph, and as a header comment where the format has comments).
"""

from __future__ import annotations

import io
import json
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from typing import IO, Any

import pyoxigraph
from pyoxigraph import DefaultGraph, Literal, NamedNode, Quad, QueryTriples, Triple

from .errors import UsageError, safe_text
from .mapping import catalog_json, write_catalog_json  # noqa: F401 (catalog_json: part of this module's API)
from .output import PROJECTION_EXTENSIONS, xml_safe
from .store import FORMATS, GraphStore
from .vocab import ATTRIBUTION, CONTEXT_FILE, KG, PREFIXES, RDF, XSD, Iris

RDF_FORMATS = ("turtle", "ntriples", "nquads", "trig", "jsonld", "rdfxml")
TRIPLE_FORMATS = ("turtle", "ntriples", "rdfxml")
EXPORT_FORMATS = RDF_FORMATS + ("catalog-json",)
EXTENSIONS = {"turtle": (".ttl",), "ntriples": (".nt",), "nquads": (".nq",), "trig": (".trig",),
              "jsonld": (".jsonld",), "rdfxml": (".rdf", ".owl", ".xml"), "catalog-json": (".json",)}
COMMENT_FORMATS = ("turtle", "ntriples", "nquads", "trig")
_RDF_TYPE, _XSD_STRING = RDF.type.value, XSD.string.value


def format_for_path(path: str) -> str | None:
    """The export format a file name implies (by extension, in any case), if any.

    >>> format_for_path("x.TTL"), format_for_path("graph.rdf"), format_for_path("notes.txt")
    ('turtle', 'rdfxml', None)
    """
    lowered = path.lower()
    for fmt, extensions in {**EXTENSIONS, **PROJECTION_EXTENSIONS}.items():
        if lowered.endswith(extensions):
            return fmt
    return None


def prefixes(iris: Iris) -> dict[str, str]:
    """Prefixes for readable output: the vocabularies and the data namespaces."""
    return {**PREFIXES, "sys": iris.base + "system/", "col": iris.base + "column/", "data": iris.base}


def _attribution_comment() -> bytes:
    return (f"# {ATTRIBUTION}\n# Graph built by kg from the catalog data; data licence CC-BY-4.0.\n").encode()


def union_triples(store: GraphStore, graphs: Sequence[NamedNode] | None = None) -> Iterator[Triple]:
    """Every distinct triple of the store (every named graph and the default graph), or
    of the named ``graphs``, in the store's (stable) order.

    The engine removes duplicates while it streams (a CONSTRUCT result is a set), so
    memory holds encoded terms, not a Python object per triple.
    """
    if graphs is None:  # every graph, the default graph included (RDF loaded without a graph name)
        result = store.query("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", union=True)
    else:
        result = store.query("CONSTRUCT { ?s ?p ?o } WHERE { GRAPH ?g { ?s ?p ?o } }", named_graphs=list(graphs))
    assert isinstance(result, QueryTriples)  # a CONSTRUCT answers triples
    return iter(result)


def _selected(store: GraphStore, graphs: Sequence[NamedNode | str] | None) -> list[NamedNode] | None:
    """The named graphs asked for (each must exist), or None for all of them."""
    if graphs is None:
        return None
    chosen = []
    for graph in graphs:
        try:
            node = graph if isinstance(graph, NamedNode) else NamedNode(graph)
        except ValueError:
            raise UsageError(f"--graph {safe_text(graph, 100)}: not an IRI") from None
        if not store.has_graph(node):
            raise UsageError(f"--graph {safe_text(node.value, 100)}: the store has no such named graph "
                             "(kg query info lists them)")
        chosen.append(node)
    return chosen


def export_rdf(store: GraphStore, fmt: str, output: IO[bytes], iris: Iris, *,
               graphs: Sequence[NamedNode | str] | None = None, union: bool = False) -> None:
    """Write the graph in an RDF format (see ``RDF_FORMATS`` and the module docstring)."""
    chosen = _selected(store, graphs)
    merged = union or fmt in TRIPLE_FORMATS
    if fmt == "jsonld":
        if merged:
            write_jsonld_document(union_triples(store, chosen), output, iris)
        else:
            write_jsonld(store, output, iris, graphs=chosen)
        return
    if fmt in COMMENT_FORMATS:
        output.write(_attribution_comment())
    if merged:
        triples: Iterable[Triple] = union_triples(store, chosen)
        if fmt == "rdfxml":
            triples = xml_safe(triples)  # a literal XML forbids is refused
        pyoxigraph.serialize(triples, output, format=FORMATS[fmt], prefixes=prefixes(iris))
    elif chosen is None:
        store.dump(output, fmt, prefixes=prefixes(iris))
    else:
        quads = (quad for graph in chosen for quad in store.quads(graph))
        pyoxigraph.serialize(quads, output, format=FORMATS[fmt], prefixes=prefixes(iris))


def export(store: GraphStore, fmt: str, output: IO[bytes], iris: Iris | None = None, *,
           graphs: Sequence[NamedNode | str] | None = None, union: bool = False) -> None:
    """Write the graph to ``output`` in ``fmt`` (one of ``RDF_FORMATS`` or ``catalog-json``):
    every named graph, or only ``graphs``; ``union`` merges them into the default graph."""
    iris = iris or Iris()
    if fmt == "catalog-json":
        if graphs is not None or union:
            raise UsageError("the catalog JSON is rebuilt from the whole graph; --graph and --union do not apply")
        write_catalog_json(store, output, iris)
    elif fmt in RDF_FORMATS:
        export_rdf(store, fmt, output, iris, graphs=graphs, union=union)
    else:
        raise UsageError(f"cannot export the graph as {safe_text(fmt, 40)}; choose one of "
                         + ", ".join(RDF_FORMATS + ("catalog-json",)))


# ---------------------------------------------------------------------------
# Compact JSON-LD with the kg context of ontology/context.jsonld (kg.ontodoc writes it; pyoxigraph
# writes expanded JSON-LD only)


def _compact(iri: str, pairs: list[tuple[str, str]]) -> str:
    for prefix, ns in pairs:
        if iri.startswith(ns) and len(iri) > len(ns) and not iri[len(ns):].startswith("//"):
            return f"{prefix}:{iri[len(ns):]}"
    return iri


class _Compactor(dict):
    """IRI -> its compact form under the context's namespaces, worked out once per IRI (the same
    predicates, classes and objects recur on every node), for at most ``LIMIT`` IRIs at a time."""

    LIMIT = 100_000  # memory stays bounded however large the dataset

    def __init__(self, pairs: list[tuple[str, str]]) -> None:
        super().__init__()
        self.pairs = pairs

    def __missing__(self, iri: str) -> str:
        if len(self) >= self.LIMIT:
            self.clear()
        self[iri] = found = _compact(iri, self.pairs)
        return found


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


def _jsonld_graph(quads: Iterable[Quad | Triple], graph_iri: str, names: _Compactor,
                  terms: dict[str, tuple[str, bool]]) -> dict[str, Any]:
    """One named graph as a JSON-LD graph object: nodes by IRI, properties by name."""
    pairs = names.pairs
    subjects: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for q in quads:
        node_iri = q.subject
        assert isinstance(node_iri, NamedNode)  # kg's graphs have no blank nodes and no triple terms
        subjects[node_iri.value][q.predicate.value].append(q.object)  # the store's (stable) order
    nodes = []
    for subject in sorted(subjects):
        node: dict[str, Any] = {"@id": _compact(subject, pairs)}  # once each: not worth remembering
        properties = subjects[subject]
        for predicate in sorted(properties):
            objects = properties[predicate]
            if predicate == _RDF_TYPE:
                node["@type"] = [names[o.value] for o in objects]
                continue
            name, as_id = terms.get(predicate) or (names[predicate], False)
            node[name] = [_jsonld_value(o, as_id, names) for o in objects]
        nodes.append(node)
    return {"@id": names[graph_iri], "@graph": nodes}


# the C encoder (json.dumps with indent runs the pure-Python one, 3x slower): one node a line
_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": ")).encode


def _document_start(context: dict[str, Any]) -> bytes:
    return b'{\n "@context": ' + json.dumps(context, ensure_ascii=False, indent=1).encode() + b',\n "@graph": ['


def write_jsonld(store: GraphStore, output: IO[bytes], iris: Iris, *,
                 graphs: Sequence[NamedNode] | None = None) -> None:
    """The dataset as compact JSON-LD: inline context (never a remote one), one entry per
    named graph (its nodes one a line), written graph by graph (memory: the largest graph,
    not the dataset)."""
    context, pairs, terms = _jsonld_names(iris)
    names = _Compactor(pairs)
    output.write(_document_start(context))
    written = 0
    if graphs is None:  # triples of the default graph (RDF loaded without a graph name) as top-level nodes
        for node in _jsonld_graph(store.quads(DefaultGraph()), "", names, terms)["@graph"]:
            output.write((b",\n" if written else b"\n") + _ENCODE(node).encode())
            written += 1
    for graph in graphs if graphs is not None else store.named_graphs():
        entry = _jsonld_graph(store.quads(graph), graph.value, names, terms)
        head = _ENCODE({"@id": entry["@id"]})[:-1]  # '{"@id": "..."' : the graph's nodes follow a line each
        lines = ",\n  ".join(_ENCODE(node) for node in entry["@graph"])
        output.write((b",\n" if written else b"\n") + f'{head}, "@graph": [\n  {lines}\n ]}}'.encode())
        written += 1
    output.write(b"\n ]\n}\n")


def write_jsonld_document(triples: Iterable[Triple], output: IO[bytes], iris: Iris) -> None:
    """Triples as a plain compact JSON-LD document: the inline context and one top-level
    ``@graph`` of nodes (one a line), all in the default graph (memory: every node of ``triples``)."""
    context, pairs, terms = _jsonld_names(iris)
    nodes = _jsonld_graph(triples, "", _Compactor(pairs), terms)["@graph"]
    output.write(_document_start(context))
    for i, node in enumerate(nodes):
        output.write((b",\n" if i else b"\n") + _ENCODE(node).encode())
    output.write(b"\n ]\n}\n")


def jsonld_bytes(store: GraphStore, iris: Iris) -> bytes:
    """``write_jsonld`` into bytes (for small stores: one resource's description)."""
    buffer = io.BytesIO()
    write_jsonld(store, buffer, iris)
    return buffer.getvalue()


def _jsonld_value(term: Any, as_id: bool, names: _Compactor) -> Any:
    if isinstance(term, NamedNode):
        compact = names[term.value]
        return compact if as_id else {"@id": compact}
    if not isinstance(term, Literal):
        raise ValueError(f"unexpected term in the store: {term!r}")
    if term.language:
        return {"@value": term.value, "@language": term.language}
    datatype = term.datatype.value
    if datatype == _XSD_STRING and not as_id:  # a literal under an IRI-coerced term must say it is a value
        return term.value
    return {"@value": term.value, "@type": names[datatype]}
