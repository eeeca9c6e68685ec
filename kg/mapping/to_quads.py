"""Records -> quads: the faithful layer and the typed layer of each record's named graph.

``record_quads`` turns one ``Record`` into the quads of its own named graph:

* the faithful layer keeps every input field (cells as ``kg:Cell`` nodes, sections,
  taxonomy, history, provenance, unknown keys as ``kg:ExtraField``), enough for
  ``kg.mapping.from_quads.record_from_quads`` to rebuild the record exactly;
* the typed layer reads the cells into shared resources and typed values for
  querying (vendor, licences, protocol support, deployment, dates, numbers).

Every node has a stable IRI derived from the record id; no blank nodes.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Protocol

from pyoxigraph import Literal, NamedNode, Quad

from .. import normalise
from ..records import MISSING, Edge, Record
from ..vocab import (
    DCTERMS, DEPLOYMENT_MODES, EDGE_PROPERTIES, KG, PROTOCOLS, RDF, RDFS, SCHEMA, SKOS, SUPPORT_MODES,
    TAXONOMY_AXES, XSD, Iris, segment,
)
from .fields import (
    CELL_EXPECTED, CELL_FIELDS, CHANGE_FIELDS, EDGE_FIELDS, HISTORY_FIELDS, LIFECYCLE_FIELDS,
    PROVENANCE_FIELDS, RECORD_FIELDS, SECTION_EXPECTED, SECTION_FIELDS, TAXONOMY_EXPECTED, TAXONOMY_FIELDS,
    TRUE, FALSE, FieldSpec, Term, decimal_literal, escape_key, json_literal, value_literal,
)

Triple = tuple[NamedNode, NamedNode, Term]  # (subject, predicate, object) of a record graph
# Feature columns whose cells get a yes / no / unknown state (the coverage question).
FEATURE_FAMILIES = {"obs-": "observability", "cost-": "cost", "eval-": "eval"}
NOT_FEATURES = frozenset({
    "cost-input-usd-per-mtok", "cost-output-usd-per-mtok", "cost-tier", "cost-pricing-model",
    "cost-last-verified",
})
PROTOCOL_COLUMNS = {"mcp-support": "mcp", "a2a-support": "a2a", "otel": "opentelemetry"}
NUMBER_COLUMNS = {
    "integration-count": KG.integrationCount,
    "capability-composite-score": KG.capabilityScore,
    "cost-input-usd-per-mtok": KG.costInputPerMTok,
    "cost-output-usd-per-mtok": KG.costOutputPerMTok,
}
POSITIVE_MODES = frozenset({"native", "adapter", "client"})
ASSESSED_MODES = POSITIVE_MODES | {"none"}  # a reading of researched data that found support or its absence
RESEARCHED = frozenset({normalise.REAL_DATA, normalise.ESTIMATE})  # statuses that hold research, not a placeholder
# statuses of a feature cell that was looked into (depth-floor-reached: searched, not found)
LOOKED_INTO = frozenset({normalise.REAL_DATA, normalise.ESTIMATE, "depth-floor-reached"})


def feature_family(column_slug: str) -> str | None:
    """observability, cost or eval for a feature column; None for every other column."""
    if column_slug in NOT_FEATURES:
        return None
    for prefix, family in FEATURE_FAMILIES.items():
        if column_slug.startswith(prefix):
            return family
    return None


class Described(Protocol):
    """The shared resources already described in a run (a ``set`` of IRIs will do)."""

    def __contains__(self, iri: object) -> bool: ...

    def add(self, iri: str) -> None: ...


class _Writer:
    """Collects the quads of one named graph, and descriptions of shared resources.

    Shared resources (columns, concepts, vendors, licences, venues) are described once
    in the shared graph rather than in every record graph that points to them.
    """

    def __init__(self, graph: NamedNode, shared_graph: NamedNode | None = None,
                 described: Described | None = None) -> None:
        self.graph = graph
        self.shared_graph = shared_graph or graph
        self.triples: list[Triple] = []  # the graph's, made into quads at the end (``quads``)
        self.shared: list[Quad] = []
        self.described: Described = described if described is not None else set()

    def first_time(self, node: NamedNode) -> bool:
        """True the first time a shared resource is met (so it is described once)."""
        if node.value in self.described:
            return False
        self.described.add(node.value)
        return True

    def add(self, s: NamedNode, p: NamedNode, o: Term) -> None:
        self.triples.append((s, p, o))

    @property
    def quads(self) -> list[Quad]:
        return in_graph(self.triples, self.graph)

    def describe(self, s: NamedNode, p: NamedNode, o: Term) -> None:
        self.shared.append(Quad(s, p, o, self.shared_graph))

    def fields(self, node: NamedNode, obj: Any, table: Iterable[FieldSpec],
               expected: frozenset[str] = frozenset()) -> None:
        """One triple per field. For ``expected`` keys (present in every catalog object of
        this kind) null is the default and absence is marked; for the others, the reverse."""
        for attr, key, predicate, encode in table:
            value = getattr(obj, attr)
            if value is MISSING:
                if key in expected:
                    self.add(node, KG.absentKey, Literal(key))
            elif value is None:
                if key not in expected:
                    self.add(node, KG.nullKey, Literal(key))
            else:
                self.add(node, predicate, encode(value))

    def extra(self, iris: Iris, node: NamedNode, extra: dict, prefix: str = "") -> None:
        for key, value in extra.items():
            name = prefix + key
            item = iris.part(node, "extra", segment(name))
            self.add(node, KG.extraField, item)
            self.add(item, RDF.type, KG.ExtraField)
            self.add(item, KG.key, Literal(name))
            self.add(item, KG.jsonValue, json_literal(value))

    def container(self, node: NamedNode, key: str, value: Any) -> bool:
        """Record null / empty containers; True when there are items to write."""
        if value is MISSING:
            return False
        if value is None:
            self.add(node, KG.nullKey, Literal(key))
            return False
        if not value:
            self.add(node, KG.emptyKey, Literal(key))
            return False
        return True


# ---------------------------------------------------------------------------
# Record -> quads


def record_quads(record: Record, iris: Iris,
                 described: Described | None = None) -> tuple[list[Quad], list[Quad]]:
    """The quads of ``record``'s named graph (faithful plus typed layer), and the
    descriptions of the shared resources it points to (for the shared graph).

    ``described`` holds the IRIs of shared resources already described in this run.
    """
    triples, shared = record_triples(record, iris, described)
    return in_graph(triples, iris.record_graph(record.id)), shared


def in_graph(triples: list[Triple], graph: NamedNode) -> list[Quad]:
    """The quads of these (subject, predicate, object) in ``graph``."""
    return [Quad(s, p, o, graph) for s, p, o in triples]


def record_triples(record: Record, iris: Iris,
                   described: Described | None = None) -> tuple[list[Triple], list[Quad]]:
    """As :func:`record_quads`, with the record graph's triples as (subject, predicate, object): the
    terms themselves, for the rules at ingest to index (``Facts.add_terms``) before they are quads."""
    w = _Writer(iris.record_graph(record.id), iris.shared_graph, described)
    s = iris.system(record.id)
    w.add(s, RDF.type, KG.System)
    w.add(s, DCTERMS.identifier, Literal(record.id))
    w.add(s, SCHEMA.name, Literal(record.name))
    w.add(s, RDFS.label, Literal(record.name))
    w.add(s, KG.tier, value_literal(record.tier))
    w.fields(s, record, RECORD_FIELDS)
    _sections(w, iris, s, record)
    _taxonomy(w, iris, s, record)
    _cells(w, iris, s, record)
    _provenance(w, iris, s, record)
    _lifecycle(w, iris, s, record)
    _history(w, iris, s, record)
    w.extra(iris, s, {escape_key(k): v for k, v in record.extra.items()})
    _typed_layer(w, iris, s, record)
    return w.triples, w.shared


def _sections(w: _Writer, iris: Iris, s: NamedNode, record: Record) -> None:
    if not w.container(s, "sections", record.sections):
        return
    primary = record.primary_section
    for i, listing in enumerate(record.sections or ()):
        m = iris.part(s, "section", str(i))
        concept = iris.section(listing.section)
        w.add(s, KG.sectionMembership, m)
        w.add(m, RDF.type, KG.SectionMembership)
        w.add(m, KG.position, value_literal(i))
        w.add(m, KG.sectionName, Literal(listing.section))
        w.add(m, KG.section, concept)
        if listing.as_name:
            w.add(m, KG.givenAsName, TRUE)
        else:
            w.fields(m, listing, SECTION_FIELDS, SECTION_EXPECTED)
        w.extra(iris, m, listing.extra)
        w.add(s, KG.section, concept)
        if w.first_time(concept):
            w.describe(concept, RDF.type, SKOS.Concept)
            w.describe(concept, SKOS.prefLabel, Literal(listing.section))
            w.describe(concept, SKOS.inScheme, iris.sections_scheme)
    if primary is not None:
        w.add(s, KG.primarySection, iris.section(primary))
    if w.first_time(iris.sections_scheme):
        w.describe(iris.sections_scheme, RDF.type, SKOS.ConceptScheme)
        w.describe(iris.sections_scheme, RDFS.label, Literal("Catalog sections", language="en"))


def _taxonomy(w: _Writer, iris: Iris, s: NamedNode, record: Record) -> None:
    if not w.container(s, "taxonomy", record.taxonomy):
        return
    _taxonomy_text(w, s, record)
    for axis, values in (record.taxonomy or {}).items():
        scheme = iris.axis_scheme(axis)
        if not values:
            w.add(s, KG.emptyKey, Literal(f"taxonomy.{axis}"))
        for i, item in enumerate(values):
            t = iris.part(s, "taxonomy", segment(axis), str(i))
            concept = iris.taxonomy_concept(axis, item.value)
            w.add(s, KG.taxonomyAssignment, t)
            w.add(t, RDF.type, KG.TaxonomyAssignment)
            w.add(t, KG.axis, scheme)
            if i:  # position 0 is the default: most axes hold one value
                w.add(t, KG.position, value_literal(i))
            w.add(t, KG.taxonomyValue, Literal(item.value))
            w.add(t, KG.concept, concept)
            w.fields(t, item, TAXONOMY_FIELDS, TAXONOMY_EXPECTED)
            w.extra(iris, t, item.extra)
            if axis in TAXONOMY_AXES:
                w.add(s, TAXONOMY_AXES[axis], concept)
            if w.first_time(concept):
                w.describe(concept, RDF.type, SKOS.Concept)
                w.describe(concept, SKOS.prefLabel, Literal(item.value))
                w.describe(concept, SKOS.inScheme, scheme)
        if w.first_time(scheme):
            w.describe(scheme, RDF.type, SKOS.ConceptScheme)
            w.describe(scheme, RDFS.label, Literal(f"Taxonomy axis: {axis}", language="en"))


def _taxonomy_text(w: _Writer, s: NamedNode, record: Record) -> None:
    """find's taxonomy column, derived once here: "axis=value" for the seven axes, "; " between."""
    taxonomy = record.taxonomy if isinstance(record.taxonomy, dict) else {}
    assigned: list[str] = []
    for axis in TAXONOMY_AXES:
        for item in taxonomy.get(axis) or ():
            text = f"{axis}={item.value}"
            if text not in assigned:
                assigned.append(text)
    if assigned:
        w.add(s, KG.taxonomyText, Literal("; ".join(assigned)))


def _cells(w: _Writer, iris: Iris, s: NamedNode, record: Record) -> None:
    if not w.container(s, "cells", record.cells):
        return
    for column_slug, cell in (record.cells or {}).items():
        c = iris.part(s, "cell", segment(column_slug))
        column = iris.column(column_slug)
        w.add(s, KG.cell, c)
        w.add(c, RDF.type, KG.Cell)
        w.add(c, KG.column, column)
        w.fields(c, cell, CELL_FIELDS, CELL_EXPECTED)
        w.extra(iris, c, cell.extra)
        _column(w, column, column_slug)
        family = feature_family(column_slug)
        if family is not None:
            w.add(c, KG.featureState, Literal(normalise.feature_state(_text(cell.value), _text(cell.status))))


def _column(w: _Writer, column: NamedNode, column_slug: str) -> None:
    if not w.first_time(column):
        return
    w.describe(column, RDF.type, KG.Column)
    w.describe(column, DCTERMS.identifier, Literal(column_slug))
    w.describe(column, RDFS.label, Literal(column_slug))
    family = feature_family(column_slug)
    if family is not None:
        w.describe(column, KG.featureFamily, Literal(family))


def _provenance(w: _Writer, iris: Iris, s: NamedNode, record: Record) -> None:
    if not w.container(s, "_provenance", record.provenance):
        return
    for column_slug, item in (record.provenance or {}).items():
        p = iris.part(s, "provenance", segment(column_slug))
        w.add(s, KG.provenance, p)
        w.add(p, RDF.type, KG.Provenance)
        w.add(p, KG.column, iris.column(column_slug))
        w.fields(p, item, PROVENANCE_FIELDS)
        w.extra(iris, p, item.extra)


def _lifecycle(w: _Writer, iris: Iris, s: NamedNode, record: Record) -> None:
    lifecycle = record.lifecycle
    if lifecycle is MISSING:
        return
    if lifecycle is None:
        w.add(s, KG.nullKey, Literal("lifecycle"))
        return
    w.fields(s, lifecycle, LIFECYCLE_FIELDS)
    w.extra(iris, s, lifecycle.extra, prefix="lifecycle.")
    if all(getattr(lifecycle, attr) is MISSING for attr, *_ in LIFECYCLE_FIELDS) and not lifecycle.extra:
        w.add(s, KG.emptyKey, Literal("lifecycle"))


def _history(w: _Writer, iris: Iris, s: NamedNode, record: Record) -> None:
    if not w.container(s, "history", record.history):
        return
    for i, entry in enumerate(record.history or ()):
        h = iris.part(s, "history", str(i))
        w.add(s, KG.historyEntry, h)
        w.add(h, RDF.type, KG.HistoryEntry)
        w.add(h, KG.position, value_literal(i))
        w.fields(h, entry, HISTORY_FIELDS)
        w.extra(iris, h, entry.extra)
        if not w.container(h, "changes", entry.changes):
            continue
        for j, change in enumerate(entry.changes or ()):
            fc = iris.part(h, "change", str(j))
            w.add(h, KG.fieldChange, fc)
            w.add(fc, RDF.type, KG.FieldChange)
            w.add(fc, KG.position, value_literal(j))
            w.fields(fc, change, CHANGE_FIELDS)
            w.extra(iris, fc, change.extra)


# ---------------------------------------------------------------------------
# Typed layer


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _cell_text(record: Record, column_slug: str) -> tuple[str, str, str | None] | None:
    """(value, status, citation) of a cell whose value is text; None when absent."""
    cells = record.cells or {}
    cell = cells.get(column_slug)
    if cell is None or not isinstance(cell.value, str):
        return None
    citation = cell.citation if isinstance(cell.citation, str) else None
    return cell.value, _text(cell.status), citation


def _typed_layer(w: _Writer, iris: Iris, s: NamedNode, record: Record) -> None:
    gh = _cell_text(record, "gh")
    owner = None
    if gh is not None:
        repo = normalise.github_repo(gh[0], gh[2])
        if repo is not None:
            owner = repo[0]
            try:
                w.add(s, KG.githubRepository, NamedNode(f"https://github.com/{repo[0]}/{repo[1]}"))
            except ValueError:
                pass
        stars = normalise.github_stars(gh[0]) if gh[1] == "real-data" else None
        if stars is not None:
            w.add(s, KG.githubStars, value_literal(stars))
    _vendor(w, iris, s, record, owner)
    _search_text(w, s, record)
    _license(w, iris, s, record)
    _protocols(w, iris, s, record)
    _deployment(w, s, record)
    _languages(w, s, record)
    _dates(w, s, record)
    _numbers(w, s, record)
    _compliance(w, s, record)
    _feature_summaries(w, iris, s, record)


def feature_states(record: Record) -> list[tuple[str, str]]:
    """(column slug, feature state) of the record's feature cells, as ``kg:featureState`` states them."""
    return [(column_slug, normalise.feature_state(_text(cell.value), _text(cell.status)))
            for column_slug, cell in _cell_items(record) if feature_family(column_slug) is not None]


def _cell_items(record: Record) -> Iterable[tuple[str, Any]]:
    return record.cells.items() if isinstance(record.cells, dict) else ()


def _feature_summaries(w: _Writer, iris: Iris, s: NamedNode, record: Record) -> None:
    """Per feature family, the system's cells counted by state, derived once here so that the
    questions over every system (eval-orphans) read one node a system, not every cell."""
    families: dict[str, Counter[str]] = {}
    yes_columns: dict[str, list[str]] = {}
    cells = dict(_cell_items(record))
    for column_slug, state in feature_states(record):
        family = feature_family(column_slug) or ""  # never empty: feature_states yields feature columns only
        counts = families.setdefault(family, Counter())
        counts[state] += 1
        counts["researched"] += _text(cells[column_slug].status) in LOOKED_INTO
        if state == "yes":
            yes_columns.setdefault(family, []).append(column_slug)
    for family, counts in sorted(families.items()):
        node = iris.part(s, "features", family)
        w.add(s, KG.featureSummary, node)
        w.add(node, RDF.type, KG.FeatureSummary)
        w.add(node, KG.featureFamily, Literal(family))
        for predicate, key in ((KG.cellsYes, "yes"), (KG.cellsNo, "no"), (KG.cellsUnknown, "unknown"),
                               (KG.cellsResearched, "researched")):
            w.add(node, predicate, value_literal(counts[key]))
        if family in yes_columns:
            w.add(node, KG.yesColumns, Literal(", ".join(sorted(yes_columns[family]))))
        if family == "eval" and not counts["yes"] and counts["researched"] and "observability" in yes_columns:
            # eval-orphans' answer, one fact a system: a scan of these instead of joining summaries
            w.add(node, KG.observabilityWithoutEval, Literal(", ".join(sorted(yes_columns["observability"]))))


def _search_text(w: _Writer, s: NamedNode, record: Record) -> None:
    """The search text, folded once here rather than in every query: the id, then the name,
    description and claims folded (``normalise.fold``), a line each; a field the record lacks,
    or that folds to nothing, is an empty line (ids need no folding: they are lower-case ASCII).
    A folded text holds no line break, so a text asked for is found within one field, and
    the line it is on says which. The search and find queries read one string a system (at
    45,600 records, 0.23 s against 0.45 s for one literal a field)."""
    name = normalise.fold(record.name) if isinstance(record.name, str) else ""
    desc, claims = (normalise.fold(found[0]) if (found := _cell_text(record, slug)) else ""
                    for slug in ("desc", "claims"))
    w.add(s, KG.searchText, Literal("\n".join((record.id, name, desc, claims))))


def _vendor(w: _Writer, iris: Iris, s: NamedNode, record: Record, owner: str | None) -> None:
    url = record.url if isinstance(record.url, str) else None
    venue = normalise.publication_venue(url)
    if venue is not None:
        v = iris.venue(venue)
        w.add(s, KG.publicationVenue, v)
        if w.first_time(v):
            w.describe(v, RDF.type, KG.PublicationVenue)
            w.describe(v, RDFS.label, Literal(venue))
    info = normalise.vendor_of(url, owner)
    if info is None:
        return
    vendor = iris.vendor(info.key)
    w.add(s, KG.vendor, vendor)
    w.add(s, KG.vendorDerivedFrom, Literal(info.derived_from))
    w.add(s, KG.vendorSource, Literal(info.source))
    if w.first_time(vendor):
        w.describe(vendor, RDF.type, KG.Vendor)
        w.describe(vendor, RDFS.label, Literal(info.name))
        w.describe(vendor, KG.vendorKey, Literal(info.key))


def _license(w: _Writer, iris: Iris, s: NamedNode, record: Record) -> None:
    cell = _cell_text(record, "license")
    if cell is None:
        return
    info = normalise.spdx_license(cell[0], cell[1])
    if info.kind == "spdx":
        for spdx_id in info.spdx_ids:
            lic = iris.spdx_license(spdx_id)
            w.add(s, KG.license, lic)
            if w.first_time(lic):
                w.describe(lic, RDF.type, KG.License)
                w.describe(lic, RDFS.label, Literal(spdx_id))
                w.describe(lic, KG.spdxId, Literal(spdx_id))
                w.describe(lic, KG.osiApproved, TRUE if spdx_id in normalise.OSI_APPROVED else FALSE)
        if info.expression and len(info.spdx_ids) > 1:
            w.add(s, KG.licenseExpression, Literal(info.expression))
    elif info.kind in ("proprietary", "unknown"):
        lic = iris.proprietary_license if info.kind == "proprietary" else iris.unknown_license
        w.add(s, KG.license, lic)
        if w.first_time(lic):
            w.describe(lic, RDF.type, KG.License)
            w.describe(lic, RDFS.label, Literal("Proprietary" if info.kind == "proprietary" else "Unknown licence"))
            w.describe(lic, KG.osiApproved, FALSE)


def _protocols(w: _Writer, iris: Iris, s: NamedNode, record: Record) -> None:
    modes: dict[str, tuple[str, str, str]] = {}  # protocol -> (mode, column, the cell's status)
    for column_slug, key in PROTOCOL_COLUMNS.items():
        cell = _cell_text(record, column_slug)
        if cell is not None:
            modes[key] = (normalise.protocol_mode(cell[0], cell[1]), column_slug, cell[1])
    combined = _cell_text(record, "protocol-support")
    if combined is not None and combined[1] in RESEARCHED:
        for key, mode in normalise.protocols_in_support_cell(combined[0]).items():
            if key not in modes or modes[key][0] == "unknown":
                modes[key] = (mode, "protocol-support", combined[1])
    for key, (mode, column_slug, status) in sorted(modes.items()):
        support = iris.part(s, "protocol", key)
        w.add(s, KG.protocolSupport, support)
        w.add(support, RDF.type, KG.ProtocolSupport)
        w.add(support, KG.protocol, PROTOCOLS[key])
        w.add(support, KG.supportMode, SUPPORT_MODES[mode])
        w.add(support, KG.column, iris.column(column_slug))
        # a finding: researched data that says something (protocol-adoption counts these apart)
        w.add(support, KG.assessed, TRUE if status in RESEARCHED and mode in ASSESSED_MODES else FALSE)
        if mode in POSITIVE_MODES:
            w.add(s, KG.supportsProtocol, PROTOCOLS[key])
    if modes:  # find's protocol_support column, derived once here ("mcp:native a2a:none ...")
        w.add(s, KG.protocolSupportText,
              Literal(" ".join(f"{key}:{modes[key][0]}" for key in PROTOCOLS if key in modes)))


def _deployment(w: _Writer, s: NamedNode, record: Record) -> None:
    cell = _cell_text(record, "deployment")
    if cell is not None:
        kind = normalise.deployment_kind(cell[0], cell[1])
        if kind is not None:
            w.add(s, KG.deploymentMode, DEPLOYMENT_MODES[kind])


def _languages(w: _Writer, s: NamedNode, record: Record) -> None:
    found: list[str] = []
    for column_slug in ("sdk-languages", "api-surface", "gh"):
        cell = _cell_text(record, column_slug)
        if cell is not None and cell[1] in RESEARCHED:
            found += [lang for lang in normalise.languages(cell[0]) if lang not in found]
    for lang in found:
        w.add(s, SCHEMA.programmingLanguage, Literal(lang))


def _date_quads(w: _Writer, s: NamedNode, found: "normalise.Period", written: NamedNode, start: NamedNode,
                end: NamedNode) -> None:
    """A date as written (xsd:gYear, xsd:gYearMonth, xsd:date; a quarter as its text, which
    XSD cannot type) and the first and last day it covers, for comparisons at its precision."""
    xsd_type = found.xsd_type
    w.add(s, written, Literal(found.text, datatype=XSD.term(xsd_type)) if xsd_type else Literal(found.text))
    w.add(s, start, Literal(found.start.isoformat(), datatype=XSD.date))
    w.add(s, end, Literal(found.end.isoformat(), datatype=XSD.date))


def _dates(w: _Writer, s: NamedNode, record: Record) -> None:
    created = _cell_text(record, "created")
    if created is not None and created[1] in RESEARCHED:
        found = normalise.created_date(created[0])  # the start of the first date or range
        if found is not None:
            _date_quads(w, s, found, KG.created, KG.createdStart, KG.createdEnd)
    release = _cell_text(record, "latest-release")
    if release is not None:
        version, when = normalise.release_info(release[0], release[1])  # the end of the latest
        if version:
            w.add(s, KG.latestVersion, Literal(version))
        if when is not None:
            _date_quads(w, s, when, KG.latestReleaseDate, KG.latestReleaseStart, KG.latestReleaseEnd)


def _numbers(w: _Writer, s: NamedNode, record: Record) -> None:
    for column_slug, predicate in NUMBER_COLUMNS.items():
        cell = _cell_text(record, column_slug)
        if cell is None:
            continue
        number = normalise.number(cell[0], cell[1])
        literal = decimal_literal(number) if number is not None else None
        if literal is not None:
            w.add(s, predicate, literal)


def _compliance(w: _Writer, s: NamedNode, record: Record) -> None:
    found: list[str] = []
    for column_slug in ("compliance", "compliance-certifications"):
        cell = _cell_text(record, column_slug)
        if cell is not None:
            found += [f for f in normalise.compliance_frameworks(cell[0], cell[1]) if f not in found]
    for framework in found:
        w.add(s, KG.complianceFramework, Literal(framework))


# ---------------------------------------------------------------------------
# Edges and source files


def relation_quads(edge: Edge, position: int, iris: Iris) -> list[Quad]:
    """The relation node of one edge and, for a known type, its direct triple."""
    w = _Writer(iris.edges_graph)
    source, target = iris.system(edge.source), iris.system(edge.target)
    r = iris.relation(edge.source, edge.type, edge.target)
    w.add(r, RDF.type, KG.Relation)
    w.add(r, KG.source, source)
    w.add(r, KG.target, target)
    w.add(r, KG.edgeType, Literal(edge.type))
    w.add(r, KG.position, value_literal(position))
    w.fields(r, edge, EDGE_FIELDS)
    w.extra(iris, r, edge.extra)
    prop = EDGE_PROPERTIES.get(edge.type)
    if prop is not None:
        w.add(r, KG.edgeProperty, prop)
        w.add(source, prop, target)
    return w.quads


def source_file_quads(node: NamedNode, graph: NamedNode, kind: str, header: dict) -> list[Quad]:
    """The header of a catalog or edges file, kept so the file can be rebuilt."""
    w = _Writer(graph)
    w.add(node, RDF.type, KG.SourceFile)
    w.add(node, KG.sourceKind, Literal(kind))
    w.add(node, KG.header, json_literal(header))
    return w.quads
