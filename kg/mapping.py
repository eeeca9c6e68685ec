"""Records <-> quads: the two layers of the graph, and the way back to the catalog JSON.

``record_quads`` turns one ``Record`` into the quads of its own named graph:

* the faithful layer keeps every input field (cells as ``kg:Cell`` nodes, sections,
  taxonomy, history, provenance, unknown keys as ``kg:ExtraField``), enough for
  ``record_from_quads`` to rebuild the record exactly;
* the typed layer reads the cells into shared resources and typed values for
  querying (vendor, licences, protocol support, deployment, dates, numbers).

Every node has a stable IRI derived from the record id; no blank nodes.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from collections import defaultdict
from decimal import Decimal, InvalidOperation
from typing import Any, Callable, Iterable
from urllib.parse import unquote

from pyoxigraph import Literal, NamedNode, Quad

from . import normalise
from .records import (
    MISSING, Cell, Edge, FieldChange, HistoryEntry, Lifecycle, Provenance, Record,
    SectionListing, TaxonomyValue,
)
from .vocab import (
    DCTERMS, DEPLOYMENT_MODES, EDGE_PROPERTIES, KG, PROTOCOLS, RDF, RDFS, SCHEMA, SKOS,
    SUPPORT_MODES, TAXONOMY_AXES, XSD, Iris, segment,
)

Term = NamedNode | Literal

# ---------------------------------------------------------------------------
# Literals: JSON values <-> RDF terms, lossless both ways.

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TRUE, _FALSE = Literal(True), Literal(False)


def _valid_date(text: str) -> bool:
    if not _DATE.match(text):
        return False
    try:
        _dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def json_literal(value: Any) -> Literal:
    """Any JSON value as an ``rdf:JSON`` literal (canonical text: sorted keys)."""
    return Literal(json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":")),
                   datatype=RDF.JSON)


def value_literal(value: Any) -> Literal:
    """A JSON scalar as the literal of its own type; lists and objects as ``rdf:JSON``."""
    if isinstance(value, str):
        return Literal(value)
    if isinstance(value, bool):
        return _TRUE if value else _FALSE
    if isinstance(value, int):
        return Literal(str(value), datatype=XSD.integer)
    if isinstance(value, float):
        return Literal(repr(value), datatype=XSD.double)
    return json_literal(value)


def date_literal(text: str) -> Literal:
    """``xsd:date`` when the text is a valid date, else the text as a plain string."""
    return Literal(text, datatype=XSD.date) if _valid_date(text) else Literal(text)


def iri_or_text(text: str) -> Term:
    """An http(s) IRI when the text is a valid one; anything else stays text (never a broken IRI)."""
    if text.startswith(("http://", "https://")):
        try:
            return NamedNode(text)
        except ValueError:
            pass
    return Literal(text)


def json_value(term: Term) -> Any:
    """Inverse of the literal builders above: the JSON value a term stands for."""
    if isinstance(term, NamedNode):
        return term.value
    datatype = term.datatype.value
    if datatype == RDF.JSON.value:
        return json.loads(term.value)
    if datatype == XSD.boolean.value:
        return term.value in ("true", "1")
    if datatype == XSD.integer.value:
        return int(term.value)
    if datatype == XSD.double.value:
        return float(term.value)
    return term.value


def _decimal_literal(number: int | float) -> Literal | None:
    try:
        text = format(Decimal(str(number)), "f")
    except (InvalidOperation, ValueError):
        return None
    return Literal(text, datatype=XSD.decimal)


# ---------------------------------------------------------------------------
# Field tables: (attribute, JSON key, predicate, encoder). One table per object kind
# drives both directions, so writing and reading cannot drift apart.

Encoder = Callable[[Any], Term]
FieldSpec = tuple[str, str, NamedNode, Encoder]

CELL_FIELDS: tuple[FieldSpec, ...] = (
    ("value", "value", KG.value, value_literal),
    ("citation", "citation", KG.citation, iri_or_text),
    ("status", "status", KG.status, Literal),
    ("tier", "tier", KG.claimTier, Literal),
    ("last_verified_at", "last_verified_at", KG.lastVerified, date_literal),
    ("source_class", "source_class", KG.sourceClass, Literal),
)
SECTION_FIELDS: tuple[FieldSpec, ...] = (
    ("subsection", "subsection", KG.subsection, Literal),
    ("primary", "primary", KG.isPrimary, value_literal),
    ("reason", "reason", KG.reason, Literal),
)
TAXONOMY_FIELDS: tuple[FieldSpec, ...] = (
    ("primary", "primary", KG.isPrimary, value_literal),
    ("reason", "reason", KG.reason, Literal),
)
PROVENANCE_FIELDS: tuple[FieldSpec, ...] = (
    ("source", "source", KG.provenanceSource, Literal),
    ("verified", "verified", KG.verified, value_literal),
    ("author", "author", KG.author, Literal),
    ("model_id", "model_id", KG.modelId, Literal),
)
HISTORY_FIELDS: tuple[FieldSpec, ...] = (
    ("date", "date", KG.changeDate, date_literal),
    ("commit", "commit", KG.commit, Literal),
    ("pr", "pr", KG.pullRequest, value_literal),
    ("kind", "kind", KG.changeKind, Literal),
)
CHANGE_FIELDS: tuple[FieldSpec, ...] = (
    ("field", "field", KG.field, Literal),
    ("label", "label", KG.fieldLabel, Literal),
    ("from_value", "from", KG.fromValue, value_literal),
    ("to_value", "to", KG.toValue, value_literal),
    ("source", "source", KG.changeSource, Literal),
)
LIFECYCLE_FIELDS: tuple[FieldSpec, ...] = (
    ("status", "lifecycle.status", KG.lifecycleStatus, Literal),
    ("severity", "lifecycle.severity", KG.lifecycleSeverity, value_literal),
    ("note", "lifecycle.note", KG.lifecycleNote, Literal),
)
RECORD_FIELDS: tuple[FieldSpec, ...] = (
    ("url", "url", SCHEMA.url, iri_or_text),
    ("last_verified_at", "last_verified_at", KG.lastVerified, date_literal),
    ("declared_section", "section", KG.declaredSection, Literal),
    ("decay_cause", "decay_cause", KG.decayCause, Literal),
    ("decay_date", "decay_date", KG.decayDate, date_literal),
    ("decay_evidence", "decay_evidence", KG.decayEvidence, Literal),
    ("family", "family", KG.family, Literal),
    ("page", "page", KG.pageUrl, Literal),
    ("license", "license", KG.recordDataLicense, Literal),
    ("source", "source", KG.recordSource, Literal),
    ("corroboration", "corroboration", KG.corroboration, json_literal),
    ("edges", "edges", KG.recordEdges, json_literal),
)
EDGE_FIELDS: tuple[FieldSpec, ...] = (
    ("evidence", "evidence", KG.evidence, Literal),
    ("citation", "citation", KG.citation, iri_or_text),
    ("is_influential", "isInfluential", KG.isInfluential, value_literal),
)

# Keys every catalog object of a kind carries (see _Writer.fields).
CELL_EXPECTED = frozenset({"value", "citation", "status", "tier"})
SECTION_EXPECTED = frozenset({"subsection", "primary", "reason"})
TAXONOMY_EXPECTED = frozenset({"primary", "reason"})

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


def feature_family(column_slug: str) -> str | None:
    """observability, cost or eval for a feature column; None for every other column."""
    if column_slug in NOT_FEATURES:
        return None
    for prefix, family in FEATURE_FAMILIES.items():
        if column_slug.startswith(prefix):
            return family
    return None


class _Writer:
    """Collects the quads of one named graph, and descriptions of shared resources.

    Shared resources (columns, concepts, vendors, licences, venues) are described once
    in the shared graph rather than in every record graph that points to them.
    """

    def __init__(self, graph: NamedNode, shared_graph: NamedNode | None = None,
                 described: set[str] | None = None) -> None:
        self.graph = graph
        self.shared_graph = shared_graph or graph
        self.quads: list[Quad] = []
        self.shared: list[Quad] = []
        self.described = described if described is not None else set()

    def first_time(self, node: NamedNode) -> bool:
        """True the first time a shared resource is met (so it is described once)."""
        if node.value in self.described:
            return False
        self.described.add(node.value)
        return True

    def add(self, s: NamedNode, p: NamedNode, o: Term) -> None:
        self.quads.append(Quad(s, p, o, self.graph))

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
                 described: set[str] | None = None) -> tuple[list[Quad], list[Quad]]:
    """The quads of ``record``'s named graph (faithful plus typed layer), and the
    descriptions of the shared resources it points to (for the shared graph).

    ``described`` holds the IRIs of shared resources already described in this run.
    """
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
    w.extra(iris, s, {_escape_key(k): v for k, v in record.extra.items()})
    _typed_layer(w, iris, s, record)
    return w.quads, w.shared


def _escape_key(key: str) -> str:
    """Record-level extra keys share the system node with the lifecycle's extras
    ("lifecycle.<key>"): a leading backslash keeps a key like "lifecycle.x" apart."""
    return "\\" + key if key.startswith(("lifecycle.", "\\")) else key


def _unescape_key(key: str) -> str:
    return key[1:] if key.startswith("\\") else key


def _sections(w: _Writer, iris: Iris, s: NamedNode, record: Record) -> None:
    if not w.container(s, "sections", record.sections):
        return
    primary = record.primary_section
    for i, listing in enumerate(record.sections):
        m = iris.part(s, "section", str(i))
        concept = iris.section(listing.section)
        w.add(s, KG.sectionMembership, m)
        w.add(m, RDF.type, KG.SectionMembership)
        w.add(m, KG.position, value_literal(i))
        w.add(m, KG.sectionName, Literal(listing.section))
        w.add(m, KG.section, concept)
        if listing.as_name:
            w.add(m, KG.givenAsName, _TRUE)
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
    for axis, values in record.taxonomy.items():
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


def _cells(w: _Writer, iris: Iris, s: NamedNode, record: Record) -> None:
    if not w.container(s, "cells", record.cells):
        return
    for column_slug, cell in record.cells.items():
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
    for column_slug, item in record.provenance.items():
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
    for i, entry in enumerate(record.history):
        h = iris.part(s, "history", str(i))
        w.add(s, KG.historyEntry, h)
        w.add(h, RDF.type, KG.HistoryEntry)
        w.add(h, KG.position, value_literal(i))
        w.fields(h, entry, HISTORY_FIELDS)
        w.extra(iris, h, entry.extra)
        if not w.container(h, "changes", entry.changes):
            continue
        for j, change in enumerate(entry.changes):
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
    _license(w, iris, s, record)
    _protocols(w, iris, s, record)
    _deployment(w, s, record)
    _languages(w, s, record)
    _dates(w, s, record)
    _numbers(w, s, record)
    _compliance(w, s, record)


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
                w.describe(lic, KG.osiApproved, _TRUE if spdx_id in normalise.OSI_APPROVED else _FALSE)
        if info.expression and len(info.spdx_ids) > 1:
            w.add(s, KG.licenseExpression, Literal(info.expression))
    elif info.kind in ("proprietary", "unknown"):
        lic = iris.proprietary_license if info.kind == "proprietary" else iris.unknown_license
        w.add(s, KG.license, lic)
        if w.first_time(lic):
            w.describe(lic, RDF.type, KG.License)
            w.describe(lic, RDFS.label, Literal("Proprietary" if info.kind == "proprietary" else "Unknown licence"))
            w.describe(lic, KG.osiApproved, _FALSE)


def _protocols(w: _Writer, iris: Iris, s: NamedNode, record: Record) -> None:
    modes: dict[str, tuple[str, str]] = {}
    for column_slug, key in PROTOCOL_COLUMNS.items():
        cell = _cell_text(record, column_slug)
        if cell is not None:
            modes[key] = (normalise.protocol_mode(cell[0], cell[1]), column_slug)
    combined = _cell_text(record, "protocol-support")
    if combined is not None and combined[1] in ("real-data", "estimate"):
        for key, mode in normalise.protocols_in_support_cell(combined[0]).items():
            if key not in modes or modes[key][0] == "unknown":
                modes[key] = (mode, "protocol-support")
    for key, (mode, column_slug) in sorted(modes.items()):
        support = iris.part(s, "protocol", key)
        w.add(s, KG.protocolSupport, support)
        w.add(support, RDF.type, KG.ProtocolSupport)
        w.add(support, KG.protocol, PROTOCOLS[key])
        w.add(support, KG.supportMode, SUPPORT_MODES[mode])
        w.add(support, KG.column, iris.column(column_slug))
        if mode in POSITIVE_MODES:
            w.add(s, KG.supportsProtocol, PROTOCOLS[key])


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
        if cell is not None and cell[1] in ("real-data", "estimate"):
            found += [lang for lang in normalise.languages(cell[0]) if lang not in found]
    for lang in found:
        w.add(s, SCHEMA.programmingLanguage, Literal(lang))


def _typed_date(found: tuple[str, str]) -> Literal:
    return Literal(found[0], datatype=XSD.term(found[1]))


def _dates(w: _Writer, s: NamedNode, record: Record) -> None:
    created = _cell_text(record, "created")
    if created is not None and created[1] in ("real-data", "estimate"):
        found = normalise.first_date(created[0])
        if found is not None:
            w.add(s, KG.created, _typed_date(found))
    release = _cell_text(record, "latest-release")
    if release is not None:
        version, found = normalise.release_info(release[0], release[1])
        if version:
            w.add(s, KG.latestVersion, Literal(version))
        if found is not None:
            w.add(s, KG.latestReleaseDate, _typed_date(found))


def _numbers(w: _Writer, s: NamedNode, record: Record) -> None:
    for column_slug, predicate in NUMBER_COLUMNS.items():
        cell = _cell_text(record, column_slug)
        if cell is None:
            continue
        number = normalise.number(cell[0], cell[1])
        literal = _decimal_literal(number) if number is not None else None
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


# ---------------------------------------------------------------------------
# Quads -> record (the way back)


class _Graph:
    """Index of one graph's triples: subject -> predicate -> objects."""

    def __init__(self, quads: Iterable[Quad]) -> None:
        self.index: dict[str, dict[str, list[Term]]] = defaultdict(lambda: defaultdict(list))
        for q in quads:
            self.index[q.subject.value][q.predicate.value].append(q.object)

    def all(self, node: str, predicate: NamedNode) -> list[Term]:
        return self.index.get(node, {}).get(predicate.value, [])

    def one(self, node: str, predicate: NamedNode) -> Term | None:
        values = self.all(node, predicate)
        return values[0] if values else None

    def strings(self, node: str, predicate: NamedNode) -> set[str]:
        return {t.value for t in self.all(node, predicate)}

    def fields(self, node: str, table: Iterable[FieldSpec],
               expected: frozenset[str] = frozenset()) -> dict[str, Any]:
        """attribute -> value for every field of ``table`` the node has (inverse of _Writer.fields)."""
        nulls = self.strings(node, KG.nullKey)
        absent = self.strings(node, KG.absentKey) if expected else ()
        out: dict[str, Any] = {}
        for attr, key, predicate, _ in table:
            term = self.one(node, predicate)
            if term is not None:
                out[attr] = json_value(term)
            elif key in nulls or (key in expected and key not in absent):
                out[attr] = None
        return out

    def extra(self, node: str, prefix: str = "") -> dict[str, Any]:
        """Extra fields whose key starts with ``prefix`` (prefix removed)."""
        out = {}
        for item in self.all(node, KG.extraField):
            key = self.one(item.value, KG.key).value
            if key.startswith(prefix):
                out[key[len(prefix):]] = json_value(self.one(item.value, KG.jsonValue))
        return out

    def position(self, node: str) -> int:
        term = self.one(node, KG.position)
        return int(term.value) if term is not None else 0

    def ordered(self, node: str, predicate: NamedNode) -> list[str]:
        return sorted((t.value for t in self.all(node, predicate)), key=self.position)

    def container(self, node: str, key: str, empty: Any) -> Any:
        """MISSING, None or the empty container, when the key had no items."""
        if key in self.strings(node, KG.nullKey):
            return None
        if key in self.strings(node, KG.emptyKey):
            return empty
        return MISSING


def _record_extra(g: _Graph, node: str) -> dict[str, Any]:
    return {_unescape_key(k): v for k, v in g.extra(node).items() if not k.startswith("lifecycle.")}


def record_from_quads(quads: Iterable[Quad], iris: Iris, record_id: str) -> Record:
    """Rebuild the ``Record`` stored in one record graph (inverse of ``record_quads``)."""
    g = _Graph(quads)
    s = iris.system(record_id).value
    record = Record(
        id=json_value(g.one(s, DCTERMS.identifier)),
        name=json_value(g.one(s, SCHEMA.name)),
        tier=json_value(g.one(s, KG.tier)),
        **g.fields(s, RECORD_FIELDS),
    )
    record.sections = _read_sections(g, s)
    record.taxonomy = _read_taxonomy(g, s)
    record.cells = _read_cells(g, s)
    record.provenance = _read_provenance(g, s)
    record.lifecycle = _read_lifecycle(g, s)
    record.history = _read_history(g, s)
    record.extra = _record_extra(g, s)
    return record


def _read_sections(g: _Graph, s: str) -> Any:
    members = g.ordered(s, KG.sectionMembership)
    if not members:
        return g.container(s, "sections", [])
    return [
        SectionListing(
            section=g.one(m, KG.sectionName).value,
            as_name=g.one(m, KG.givenAsName) is not None,
            extra=g.extra(m),
            **({} if g.one(m, KG.givenAsName) is not None else g.fields(m, SECTION_FIELDS, SECTION_EXPECTED)),
        )
        for m in members
    ]


def _read_taxonomy(g: _Graph, s: str) -> Any:
    assignments = g.ordered(s, KG.taxonomyAssignment)
    empty_axes = [k[len("taxonomy."):] for k in g.strings(s, KG.emptyKey) if k.startswith("taxonomy.")]
    if not assignments and not empty_axes:
        return g.container(s, "taxonomy", {})
    taxonomy: dict[str, list[TaxonomyValue]] = {axis: [] for axis in empty_axes}
    for t in assignments:
        axis = unquote(g.one(t, KG.axis).value.rsplit("/", 1)[-1])
        taxonomy.setdefault(axis, []).append(
            TaxonomyValue(value=g.one(t, KG.taxonomyValue).value, extra=g.extra(t),
                          **g.fields(t, TAXONOMY_FIELDS, TAXONOMY_EXPECTED))
        )
    return taxonomy


def _column_slug(g: _Graph, node: str) -> str:
    # column IRIs end in the percent-encoded slug (vocab.Iris.column)
    return unquote(g.one(node, KG.column).value.rsplit("/", 1)[-1])


def _read_cells(g: _Graph, s: str) -> Any:
    cells = [t.value for t in g.all(s, KG.cell)]
    if not cells:
        return g.container(s, "cells", {})
    out = {}
    for c in sorted(cells):
        column_slug = _column_slug(g, c)
        out[column_slug] = Cell(slug=column_slug, extra=g.extra(c), **g.fields(c, CELL_FIELDS, CELL_EXPECTED))
    return out


def _read_provenance(g: _Graph, s: str) -> Any:
    entries = [t.value for t in g.all(s, KG.provenance)]
    if not entries:
        return g.container(s, "_provenance", {})
    out = {}
    for p in sorted(entries):
        column_slug = _column_slug(g, p)
        out[column_slug] = Provenance(slug=column_slug, extra=g.extra(p), **g.fields(p, PROVENANCE_FIELDS))
    return out


def _read_lifecycle(g: _Graph, s: str) -> Any:
    if "lifecycle" in g.strings(s, KG.nullKey):
        return None
    fields = g.fields(s, LIFECYCLE_FIELDS)
    extra = g.extra(s, prefix="lifecycle.")
    if fields or extra or "lifecycle" in g.strings(s, KG.emptyKey):
        return Lifecycle(extra=extra, **fields)
    return MISSING


def _read_history(g: _Graph, s: str) -> Any:
    entries = g.ordered(s, KG.historyEntry)
    if not entries:
        return g.container(s, "history", [])
    history = []
    for h in entries:
        changes_nodes = g.ordered(h, KG.fieldChange)
        changes: Any = (
            [FieldChange(extra=g.extra(fc), **g.fields(fc, CHANGE_FIELDS)) for fc in changes_nodes]
            if changes_nodes else g.container(h, "changes", [])
        )
        history.append(HistoryEntry(changes=changes, extra=g.extra(h), **g.fields(h, HISTORY_FIELDS)))
    return history


def edges_from_quads(quads: Iterable[Quad], iris: Iris) -> list[Edge]:
    """Rebuild the edges stored in the edges graph, in their input order."""
    g = _Graph(quads)
    relations = [s for s, preds in g.index.items() if KG.edgeType.value in preds]
    relations.sort(key=lambda r: int(g.one(r, KG.position).value))
    skip = len(iris.system("x").value) - 1
    return [
        Edge(source=g.one(r, KG.source).value[skip:], target=g.one(r, KG.target).value[skip:],
             type=g.one(r, KG.edgeType).value, extra=g.extra(r), **g.fields(r, EDGE_FIELDS))
        for r in relations
    ]


def header_from_quads(quads: Iterable[Quad], node: NamedNode) -> dict | None:
    g = _Graph(quads)
    term = g.one(node.value, KG.header)
    return json_value(term) if term is not None else None
