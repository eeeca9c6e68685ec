"""The named graphs and IRI patterns that ``Iris`` mints, read by calling it with placeholders.

>>> [name for name, _, _ in named_graphs()][:3]
['record_graph', 'changeset_graph', 'push_staging']
"""

from __future__ import annotations

import re

from pyoxigraph import NamedNode

from ..vocab import DEFAULT_BASE, KG, KG_NS, PROV, SKOS, VOID, Iris

# Named graphs and IRI patterns: descriptions of the Iris attributes, factual from kg/ingestion/ and
# kg/mapping/. A new attribute of Iris without a description here fails tests/test_ontodoc.py.
GRAPH_NOTES = {
    "record_graph": "one per record: the system, its cells, section listings, taxonomy assignments, provenance, "
                    "history and typed-layer triples; re-ingesting a record replaces its graph",
    "shared_graph": "resources shared by many records: columns, section and taxonomy concepts and their schemes, "
                    "vendors, publication venues, licences",
    "edges_graph": "the edges: a direct triple per edge (kg:builtOn, ...) and a kg:Relation node with its "
                   "evidence; plus the edges file's kg:SourceFile header",
    "catalog_graph": "the catalog file's kg:SourceFile header",
    "ontology_graph": "this ontology (ontology/kg.ttl)",
    "dataset_graph": "the VoID / DCAT description of the dataset (triples, entities per class), rebuilt after "
                     "each ingest",
    "analysis_graph": "graph measures written by kg analyze --write-back (kg:betweenness, kg:pageRank, ...)",
    "changeset_graph": "one per ingest that changed the store (kg.history): the kg:Changeset activity, its input "
                       "files, a kg:RecordChange per record added, removed or changed with its kg:FieldChange nodes, "
                       "a kg:EdgeChange per edge; never rewritten",
    "push_staging": "on a remote store only, never in kg's own: where kg push gathers a graph too large for one "
                    "request before moving it into place in one request; one that an interrupted push left "
                    "holds part of that graph, and the next push of it (--resume, a re-run, or --prune) replaces "
                    "or drops it",
    "history_index_graph": "the kg:contentHash of every record graph (SHA-256 of the record's canonical JSON), so "
                           "that an ingest diffs only the records that changed",
}
NODE_NOTES = {
    "dataset": ("Dataset", VOID.Dataset),
    "catalog_source": ("Catalog source file", KG.SourceFile),
    "edges_source": ("Edges source file", KG.SourceFile),
    "sections_scheme": ("Scheme of catalog sections", SKOS.ConceptScheme),
    "proprietary_license": ("Proprietary licence", KG.License),
    "unknown_license": ("Unknown licence", KG.License),
}
_PLACEHOLDER = re.compile(r"zq([a-z]+)zq")


def _ph(name: str) -> str:
    return f"zq{name}zq"


def iri_patterns() -> list[tuple[str, str, str, str | None]]:
    """(what, IRI pattern, how it is minted, class IRI or None) for the data IRIs, from ``Iris``.

    Patterns use ``{base}`` for the configurable base and ``{name}`` for the parts that vary.

    >>> [p for p in iri_patterns() if p[0] == "System"][0][:2]
    ('System', '{base}system/{id}')
    """
    iris = Iris(DEFAULT_BASE)
    system = iris.system(_ph("id"))
    entry = iris.part(system, "history", _ph("i"))
    changeset = iris.changeset(_ph("n"))  # type: ignore[arg-type]  # a placeholder for the number
    record_change = iris.part(changeset, "record", _ph("id"))
    minted = [
        ("System", system, "Iris.system(id)", KG.System),
        ("Cell", iris.part(system, "cell", _ph("column")), "Iris.part(system, 'cell', column)", KG.Cell),
        ("Provenance entry", iris.part(system, "provenance", _ph("column")),
         "Iris.part(system, 'provenance', column)", KG.Provenance),
        ("Section membership", iris.part(system, "section", _ph("i")), "Iris.part(system, 'section', i)",
         KG.SectionMembership),
        ("Taxonomy assignment", iris.part(system, "taxonomy", _ph("axis"), _ph("i")),
         "Iris.part(system, 'taxonomy', axis, i)", KG.TaxonomyAssignment),
        ("Protocol support", iris.part(system, "protocol", _ph("protocol")),
         "Iris.part(system, 'protocol', protocol)", KG.ProtocolSupport),
        ("Feature summary", iris.part(system, "features", _ph("family")), "Iris.part(system, 'features', family)",
         KG.FeatureSummary),
        ("History entry", entry, "Iris.part(system, 'history', i)", KG.HistoryEntry),
        ("Field change", iris.part(entry, "change", _ph("j")), "Iris.part(entry, 'change', j)", KG.FieldChange),
        ("Extra field", iris.part(NamedNode("urn:" + _ph("node")), "extra", _ph("key")),
         "Iris.part(node, 'extra', key)", KG.ExtraField),
        ("Column", iris.column(_ph("column")), "Iris.column(column)", KG.Column),
        ("Section concept", iris.section(_ph("name")), "Iris.section(name)", SKOS.Concept),
        ("Taxonomy axis scheme", iris.axis_scheme(_ph("axis")), "Iris.axis_scheme(axis)", SKOS.ConceptScheme),
        ("Taxonomy concept", iris.taxonomy_concept(_ph("axis"), _ph("value")), "Iris.taxonomy_concept(axis, value)",
         SKOS.Concept),
        ("Vendor", iris.vendor(_ph("key")), "Iris.vendor(key)", KG.Vendor),
        ("Publication venue", iris.venue(_ph("name")), "Iris.venue(name)", KG.PublicationVenue),
        ("SPDX licence", iris.spdx_license(_ph("spdx")), "Iris.spdx_license(spdx)", KG.License),
        ("Relation", iris.relation(_ph("source"), _ph("type"), _ph("target")), "Iris.relation(source, type, target)",
         KG.Relation),
        ("Changeset", changeset, "Iris.changeset(n)", KG.Changeset),
        ("Record change", record_change, "Iris.part(changeset, 'record', id)", KG.RecordChange),
        ("Field change of a changeset (a kg:FieldChange)", iris.part(record_change, "change", _ph("j")),
         "Iris.part(record change, 'change', j)", None),
        ("File header change", iris.part(changeset, "header", _ph("name")), "Iris.part(changeset, 'header', name)",
         KG.FieldChange),
        ("Edge change", iris.part(changeset, "edge", _ph("k")), "Iris.part(changeset, 'edge', k)", KG.EdgeChange),
        ("Input file of a changeset", iris.part(changeset, "input", _ph("i")), "Iris.part(changeset, 'input', i)",
         PROV.Entity),
        ("Class partition", iris.class_partition(NamedNode(KG_NS + _ph("class"))), "Iris.class_partition(cls)", None),
        ("Feature tally of a family", iris.feature_tally(_ph("family")), "Iris.feature_tally(family)", KG.FeatureTally),
        ("Feature tally of a column", iris.feature_tally(_ph("family"), iris.column(_ph("column"))),
         "Iris.feature_tally(family, column)", KG.FeatureTally),
    ]
    for name, value in sorted(vars(iris).items()):
        if isinstance(value, NamedNode) and not name.endswith("_graph"):
            what, cls = NODE_NOTES.get(name, (name, None))
            minted.append((what, value, f"Iris.{name}", cls))

    def pattern(node: NamedNode) -> str:
        text = node.value.replace("urn:" + _ph("node"), _ph("node"))
        if text.startswith(DEFAULT_BASE):
            text = "{base}" + text[len(DEFAULT_BASE):]
        return _PLACEHOLDER.sub(r"{\1}", text)

    return [(what, pattern(node), how, cls.value if cls is not None else None) for what, node, how, cls in minted]


def named_graphs() -> list[tuple[str, str, str]]:
    """(Iris attribute, graph IRI pattern, what it holds) for every named graph ``Iris`` mints."""
    iris = Iris(DEFAULT_BASE)
    graphs = [("record_graph", iris.record_graph(_ph("id"))),
              ("changeset_graph", iris.changeset_graph(_ph("n"))),  # type: ignore[arg-type]
              ("push_staging", iris.push_staging(iris.base + "graph/" + _ph("graph")))]
    graphs += [(name, value) for name, value in sorted(vars(iris).items())
               if isinstance(value, NamedNode) and name.endswith("_graph")]
    return [(name, _PLACEHOLDER.sub(r"{\1}", "{base}" + node.value[len(DEFAULT_BASE):]), GRAPH_NOTES.get(name, ""))
            for name, node in graphs]
