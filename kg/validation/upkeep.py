"""The findings of each new version kept current: after an ingest, and on first need.

An ingest ends with a new version; its findings (:mod:`kg.findings`) are made then, at the
cost of the change, not of the catalog: the findings of the version the ingest started from,
brought up to date for the records its changeset added, changed or removed and for the
catalog-wide rules (:func:`kg.validation.revalidate`, what ``kg validate --record`` does). A
first ingest into an empty store keeps the results of the rules at ingest (every record and edge
it wrote was checked by them, with the engine and shapes of ``kg validate``) with the answers of
the catalog-wide rules. A version with no findings before it or a change that can reach every record (the
edges, RDF files loaded as they are) is validated in full; a file header changed alone changes
nothing (no shape reads one). An ingest that
changed nothing keeps the findings it started from. A failure here never fails the ingest,
which is whole and sealed: the first reader of the version validates it instead
(:func:`validated_now`, the front door's :data:`kg.findings.MAKER`).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ..errors import KgError
from ..findings import KEPT, Findings, read
from ..store import GraphStore
from ..vocab import KG, RDF, Iris
from .kept import keep, report_of
from .report import ValidationReport
from .records import check_records
from .report import finish
from .rules import load_rules
from .runs import check_catalog_rules, counts, revalidate, validate

if TYPE_CHECKING:
    from ..ingestion.report import IngestReport


def _first_ingest(store: GraphStore, iris: Iris, report: "IngestReport", started: float) -> ValidationReport:
    """The validation report of a first ingest's version: the rules at ingest checked each record and
    edge it wrote (:mod:`kg.validation.at_ingest`, the engine and shapes of ``kg validate``), so
    only the catalog-wide rules are answered here (remembered beside the version already)."""
    rules = load_rules(iris)
    # a record given again in a later file may have been checked in both versions: checked here again
    again = set(report.superseded)
    relation = iris.base + "relation/"
    results = [f.result for f in report.findings if f.result.record not in again or f.result.focus.startswith(relation)]
    if again:
        results += check_records(store, iris, ids=sorted(again), with_rest=False, jobs=1).results
    results += check_catalog_rules(store, iris, rules, remember=True)
    records, relations = counts(store, iris)
    return finish(results, rules, records=records, relations=relations,
                  seconds=report.rule_seconds + time.perf_counter() - started, mode="split")


def validated_now(store: GraphStore, iris: Iris) -> Findings:
    """The version ``store`` reads validated in full, its findings kept where they can be."""
    return keep(store, validate(store, iris), iris, "validated in full on first need")


def kept_report(store: GraphStore, iris: Iris) -> ValidationReport:
    """The validation report of the version ``store`` reads: its kept findings, or a validation now."""
    found = read(store, iris)
    return report_of(found, iris) if found is not None else report_of(validated_now(store, iris), iris)


class FindingsUpkeep:
    """The ingest's hook: made before the ingest (it reads the findings of the version the ingest
    starts from), told at the end what the ingest did (:meth:`after`)."""

    def __init__(self, store: GraphStore, iris: Iris | None = None) -> None:
        self.store, self.iris = store, iris or Iris()
        self.keeps = KEPT.can_keep(store)  # not inside a caller's write session, nor in memory
        self.before = read(store, self.iris) if self.keeps and store.generation else None
        self.empty = self.keeps and not store.contains(None, RDF.type, KG.System)

    def after(self, report: "IngestReport") -> None:
        """Keep the findings of the version the ingest made (nothing where none can be kept)."""
        if not (self.keeps and KEPT.can_keep(self.store)):
            return
        try:
            self._keep(report)
        except (KgError, OSError):
            pass  # the ingest is whole and sealed; its first reader validates it instead

    def _keep(self, report: "IngestReport") -> None:
        before, store, iris, changeset = self.before, self.store, self.iris, report.changeset
        started = time.perf_counter()
        if self.empty and not (report.rdf_quads or report.quarantined):
            # a first ingest: every record and edge now in the store was checked by the rules at ingest
            keep(store, _first_ingest(store, iris, report, started), iris, "checked at ingest (a first ingest)")
        elif before is not None and changeset is None and not report.rdf_quads:
            keep(store, report_of(before, iris), iris, before.made)  # the same data: the same findings
        elif before is None or report.rdf_quads or changeset is None or changeset.edges:  # (no shape reads a header)
            keep(store, validate(store, iris), iris, "validated in full after an ingest")
        else:
            changed = sorted({change.record_id for change in changeset.records})
            again = revalidate(report_of(before, iris), store, changed, iris)
            again.seconds = time.perf_counter() - started
            keep(store, again, iris, f"validated after an ingest that changed {len(changed)} record(s): "
                 "those records and the catalog-wide rules checked again")
