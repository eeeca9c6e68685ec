"""A validation report as the findings kept beside a version (:mod:`kg.findings`), and back.

``kg validate`` over the whole store with our shapes keeps its report as the version's findings
(:func:`keep`); the ingest's last step keeps them too (:mod:`kg.validation.upkeep`). What is kept
is the report's results as plain values, with the rules' severities and messages: a report read
back (:func:`report_of`) has the same results as the one kept, result for result.
"""

from __future__ import annotations

from ..findings import Finding, Findings, RuleInfo, rules_digest, write
from ..store import GraphStore
from ..vocab import Iris
from .report import Result, ValidationReport
from .rules import Rule, load_rules


def findings_of(report: ValidationReport, iris: Iris, made: str) -> Findings:
    """The findings of ``report`` (a run of our shapes), said to be ``made`` so (for readers)."""
    rows = [Finding(r.rule, r.severity, r.record, r.column, r.focus, r.path, r.value, r.component)
            for r in report.results]
    rules = {name: RuleInfo(name, rule.severity, rule.message, rule.scope, rule.kind, rule.path)
             for name, rule in report.rules.items()}
    return Findings(rows, rules, rules_digest(iris.base), made, report.records, report.relations, report.seconds,
                    report.mode)


def report_of(found: Findings, iris: Iris) -> ValidationReport:
    """The validation report the findings were kept from (its results, counts, mode and time)."""
    rules = load_rules(iris)
    for name, info in found.rules.items():  # a rule of the findings that the shapes no longer have
        rules.setdefault(name, Rule(name, "", info.severity, info.message, info.scope, info.path, kind=info.kind))
    results = [Result(f.rule, f.focus, f.path, f.value, f.component, f.severity, f.record, f.column)
               for f in found.rows]
    # kept in the order finish() gives a report, each once: no need to sort them again
    return ValidationReport(results=results, rules=rules, records=found.records, relations=found.relations,
                            seconds=found.seconds, mode=found.mode)


def keep(store: GraphStore, report: ValidationReport, iris: Iris, made: str) -> Findings:
    """``report`` kept as the findings of the version ``store`` reads, where one can be kept (not in
    memory, inside a write session or in a folder that cannot be written); the findings either way."""
    found = findings_of(report, iris, made)
    write(store, found, iris)
    return found
