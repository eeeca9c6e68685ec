"""Records -> the typed layer: cells read into shared resources and typed values for querying.

Vendor, publication venue, licences, protocol support, deployment, languages, dates,
numbers, compliance, the search text and the per-family feature summaries, each derived
once here (``typed_layer``) so that the queries read one fact a system.
"""

from __future__ import annotations

from collections import Counter

from pyoxigraph import Literal, NamedNode

from .. import normalise
from ..records import Record
from ..vocab import DEPLOYMENT_MODES, KG, PROTOCOLS, RDF, RDFS, SCHEMA, SUPPORT_MODES, XSD, Iris
from .advice_facts import advice_cells, citation_cells
from .features import cell_items, feature_family, feature_states, text_or_empty
from .fields import TRUE, FALSE, decimal_literal, json_literal, value_literal
from .graph_writer import GraphWriter

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


def _cell_text(record: Record, column_slug: str) -> tuple[str, str, str | None] | None:
    """(value, status, citation) of a cell whose value is text; None when absent."""
    cells = record.cells or {}
    cell = cells.get(column_slug)
    if cell is None or not isinstance(cell.value, str):
        return None
    citation = cell.citation if isinstance(cell.citation, str) else None
    return cell.value, text_or_empty(cell.status), citation


def typed_layer(w: GraphWriter, iris: Iris, s: NamedNode, record: Record) -> None:
    """The typed layer of ``record`` (its system node ``s``) into ``w``."""
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
    _advice(w, s, record)


def _advice(w: GraphWriter, s: NamedNode, record: Record) -> None:
    """The cells the advice tools read, one literal a system (and one a paper): kg.mapping.advice_facts."""
    w.add(s, KG.adviceCells, json_literal(advice_cells(record)))
    papers = citation_cells(record)
    if papers is not None:
        w.add(s, KG.citationCells, json_literal(papers))


def _feature_summaries(w: GraphWriter, iris: Iris, s: NamedNode, record: Record) -> None:
    """Per feature family, the system's cells counted by state, derived once here so that the
    questions over every system (eval-orphans) read one node a system, not every cell."""
    families: dict[str, Counter[str]] = {}
    yes_columns: dict[str, list[str]] = {}
    cells = dict(cell_items(record))
    for column_slug, state in feature_states(record):
        family = feature_family(column_slug) or ""  # never empty: feature_states yields feature columns only
        counts = families.setdefault(family, Counter())
        counts[state] += 1
        counts["researched"] += text_or_empty(cells[column_slug].status) in LOOKED_INTO
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


def _search_text(w: GraphWriter, s: NamedNode, record: Record) -> None:
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


def _vendor(w: GraphWriter, iris: Iris, s: NamedNode, record: Record, owner: str | None) -> None:
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


def _license(w: GraphWriter, iris: Iris, s: NamedNode, record: Record) -> None:
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


def _protocols(w: GraphWriter, iris: Iris, s: NamedNode, record: Record) -> None:
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


def _deployment(w: GraphWriter, s: NamedNode, record: Record) -> None:
    cell = _cell_text(record, "deployment")
    if cell is not None:
        kind = normalise.deployment_kind(cell[0], cell[1])
        if kind is not None:
            w.add(s, KG.deploymentMode, DEPLOYMENT_MODES[kind])


def _languages(w: GraphWriter, s: NamedNode, record: Record) -> None:
    found: list[str] = []
    for column_slug in ("sdk-languages", "api-surface", "gh"):
        cell = _cell_text(record, column_slug)
        if cell is not None and cell[1] in RESEARCHED:
            found += [lang for lang in normalise.languages(cell[0]) if lang not in found]
    for lang in found:
        w.add(s, SCHEMA.programmingLanguage, Literal(lang))


def _date_quads(w: GraphWriter, s: NamedNode, found: "normalise.Period", written: NamedNode, start: NamedNode,
                end: NamedNode) -> None:
    """A date as written (xsd:gYear, xsd:gYearMonth, xsd:date; a quarter as its text, which
    XSD cannot type) and the first and last day it covers, for comparisons at its precision."""
    xsd_type = found.xsd_type
    w.add(s, written, Literal(found.text, datatype=XSD.term(xsd_type)) if xsd_type else Literal(found.text))
    w.add(s, start, Literal(found.start.isoformat(), datatype=XSD.date))
    w.add(s, end, Literal(found.end.isoformat(), datatype=XSD.date))


def _dates(w: GraphWriter, s: NamedNode, record: Record) -> None:
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


def _numbers(w: GraphWriter, s: NamedNode, record: Record) -> None:
    for column_slug, predicate in NUMBER_COLUMNS.items():
        cell = _cell_text(record, column_slug)
        if cell is None:
            continue
        number = normalise.number(cell[0], cell[1])
        literal = decimal_literal(number) if number is not None else None
        if literal is not None:
            w.add(s, predicate, literal)


def _compliance(w: GraphWriter, s: NamedNode, record: Record) -> None:
    found: list[str] = []
    for column_slug in ("compliance", "compliance-certifications"):
        cell = _cell_text(record, column_slug)
        if cell is not None:
            found += [f for f in normalise.compliance_frameworks(cell[0], cell[1]) if f not in found]
    for framework in found:
        w.add(s, KG.complianceFramework, Literal(framework))
