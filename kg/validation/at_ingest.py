"""The record-local rules at ingest: each record's quads checked against our shapes, results named by JSON field.

``RuleCheck`` is what the ingest loop calls: the shared descriptions of the run
go in as they are mapped (``add_shared``), then each record's own quads
(``record``), which come back as ``RuleFinding``s: where (file, index, record id,
the JSON field path such as ``cells.type.status``), the rule, its severity and its
message. The rules are the shapes of ``shapes/kg-shapes.ttl``, evaluated by
``kg.validation.core`` (the SHACL engine, ``kg.shacl``), so ingest and ``kg validate`` report the same results.

>>> from kg.validation.report import Result
>>> iris = Iris()
>>> cell = iris.system("mem0--mem0-ai").value + "/cell/type"
>>> field_path(Result("CellStatus", cell, "kg:status", '"verified"', "InConstraintComponent", "Violation",
...                   "mem0--mem0-ai", "type"), iris)
'cells.type.status'
>>> field_path(Result("SystemTier", iris.system("x").value, "kg:tier", None, "", "Violation", "x"), iris)
'tier'
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Any, Iterable
from urllib.parse import unquote

from pyoxigraph import NamedNode
from rdflib import URIRef

from ..errors import RecordError
from ..vocab import DCTERMS, KG, RDFS, SCHEMA, Iris
from .core import CoreShapes, Facts, core_shapes, terms
from .paths import PATH_PREFIXES
from .report import Result, ValidationReport, display_text, finish, rule_blocks
from .rules import STRUCTURAL, Rule, load_rules, shapes_graph

EXAMPLES = 10  # finding lines shown before the summary by rule


class RuleFinding(RecordError):
    """A record breaks a rule of the shapes: where (file, index, record, field path), which rule, how bad.

    Its line (``str``) is made when it is shown: an ingest may have tens of thousands of findings,
    and most are only counted.
    """

    def __init__(self, source: str, index: int | None, record_id: str | None, path: str, rule: Rule,
                 result: Result) -> None:  # no RecordError.__init__: it would make the line now
        Exception.__init__(self)
        self.source, self.index, self.record_id, self.path = source, index, record_id, path
        value = display_text(result.value) if result.value is not None and result.value.startswith('"') else None
        shown = f"; value {value[:80]!r}" if value is not None else ""
        self.message = f"{rule.message} (rule {rule.name}{shown})"
        self.rule = rule.name
        self.severity = result.severity
        self.kind = rule.kind  # structural: ingest quarantines the record; quality: a warning
        self.result = result
        self._line: str | None = None

    def __str__(self) -> str:
        if self._line is None:
            self._line = str(RecordError(self.source, self.index, self.record_id, self.path, self.message))
        return self._line

    def to_json(self) -> dict[str, Any]:
        """One line of ``kg ingest --report``."""
        return {"source": self.source, "index": self.index, "id": self.record_id, "path": self.path,
                "rule": self.rule, "severity": self.severity, "kind": self.kind, "message": self.message,
                "value": display_text(self.result.value), "focus": display_text(self.result.focus)}


class SchemaBreak(RecordError):
    """A record (or edge) that breaks a structural rule of the catalog's schema: quarantined, not written.

    ``reasons``: the findings that set it aside (its structural ones, and with ``--gate`` those that
    severe); the line names the first, then the other rules broken.
    """

    def __init__(self, source: str, index: int | None, record_id: str | None, reasons: list[RuleFinding]) -> None:
        first = reasons[0]
        others = sorted({f.rule for f in reasons[1:]} - {first.rule})
        also = f"; also breaks {', '.join(others)}" if others else ""
        super().__init__(source, index, record_id, first.path,
                         f"breaks a structural rule, so it is not written: {first.message}{also}")
        self.reasons = reasons


def rejecting(found: list[RuleFinding], held: tuple[str, ...] = ()) -> list[RuleFinding]:
    """The findings that set a record aside: every structural one, and (``held``: the severities
    ``--gate`` holds back) the quality ones that severe; structural ones first. None: it goes in."""
    structural = [f for f in found if f.kind == STRUCTURAL]
    if not structural:
        return []
    return structural + [f for f in found if f.kind != STRUCTURAL and f.severity in held]


def _short(iri: str) -> str:
    for name, namespace in PATH_PREFIXES.items():
        if iri.startswith(namespace):
            return f"{name}:{iri[len(namespace):]}"
    return f"<{iri}>"


# The JSON key a predicate stands for, by the kind of node it is stated on.
def _keys(predicates: Iterable[tuple[NamedNode, str]]) -> dict[str, str]:
    return {_short(p.value): key for p, key in predicates}


@lru_cache(maxsize=1)
def _field_tables() -> dict[str, dict[str, str]]:
    from ..mapping.fields import (CELL_FIELDS, EDGE_FIELDS, PROVENANCE_FIELDS, RECORD_FIELDS, SECTION_FIELDS,
                                  TAXONOMY_FIELDS)

    record = _keys((p, key) for _, key, p, _ in RECORD_FIELDS)
    record.update(_keys([(DCTERMS.identifier, "id"), (KG.tier, "tier"), (KG.primarySection, "sections"),
                         (KG.sectionMembership, "sections"), (KG.taxonomyAssignment, "taxonomy"),
                         (KG.license, "cells.license"), (SCHEMA.url, "url")]))
    section = _keys((p, key) for _, key, p, _ in SECTION_FIELDS)
    section[_short(KG.sectionName.value)] = "section"
    edge = _keys((p, key) for _, key, p, _ in EDGE_FIELDS)
    edge.update(_keys([(KG.source, "source"), (KG.target, "target"), (KG.edgeType, "type")]))
    return {"record": record, "edge": edge, "cell": _keys((p, key) for _, key, p, _ in CELL_FIELDS),
            "section": section, "taxonomy": _keys((p, key) for _, key, p, _ in TAXONOMY_FIELDS),
            "provenance": _keys((p, key) for _, key, p, _ in PROVENANCE_FIELDS)}


def field_path(result: Result, iris: Iris, axis: str | None = None) -> str:
    """The JSON field path of the record that a result is about (``cells.<column>.<key>``, ``tier``, ...).

    ``axis``: the taxonomy axis the rule is about, for the rules on ``kg:taxonomyAssignment``.
    """
    tables = _field_tables()
    path = result.path or ""
    if result.column is not None and path.startswith("^"):  # reached from a constant: the cell itself
        return f"cells.{result.column}"
    if result.column is not None:
        key = tables["cell"].get(path)
        return f"cells.{result.column}" + (f".{key}" if key else "")
    if result.focus.startswith(iris.base + "relation/"):  # an edge
        return tables["edge"].get(path, path)
    parts = _parts(result.focus, iris)
    if not parts:
        key = tables["record"].get(path, path)
        return f"{key}.{axis}" if key == "taxonomy" and axis else key
    kind = parts[0]
    if kind == "section" and len(parts) == 2:
        return f"sections[{parts[1]}]" + _dot(tables["section"].get(path))
    if kind == "taxonomy" and len(parts) == 3:
        return f"taxonomy.{parts[1]}[{parts[2]}]" + _dot(tables["taxonomy"].get(path))
    if kind == "provenance" and len(parts) == 2:
        return f"_provenance.{parts[1]}" + _dot(tables["provenance"].get(path))
    if kind == "protocol" and len(parts) == 2:
        return f"cells (the {parts[1]} support read from them)"
    return "/".join(parts) + _dot(path)


def _dot(key: str | None) -> str:
    return f".{key}" if key else ""


def _parts(focus: str, iris: Iris) -> list[str]:
    """The steps of a node's IRI below its system (``["section", "0"]``); [] for the system itself."""
    prefix = iris.system_prefix()
    if not focus.startswith(prefix):
        return []
    return [unquote(step) for step in focus[len(prefix):].split("/")[1:]]


@lru_cache(maxsize=4)
def _axes(base: str) -> dict[str, str]:
    """rule name -> the taxonomy axis its shape names (the scheme IRI under ``base``), for field paths."""
    from .locality import nested

    iris = Iris(base)
    graph = shapes_graph(iris, cross=False)
    scheme = f"{base}scheme/taxonomy/"
    found = {}
    for name, rule in load_rules(iris).items():
        if rule.scope != "record":
            continue
        for shape in nested(graph, URIRef(rule.iri)):
            for node in graph.objects(shape, None):
                if str(node).startswith(scheme):
                    found[name] = unquote(str(node)[len(scheme):])
    return found


class RuleCheck:
    """The record-local rules of one ingest: the shared descriptions accumulate, records are checked one by one.

    ``ontology``: the ontology's quads (its class hierarchy: instances of subclasses are
    instances of the class).
    """

    def __init__(self, iris: Iris, ontology: Iterable[Any] = ()) -> None:
        self.iris = iris
        subclasses = tuple(sorted((q.subject.value, q.object.value) for q in ontology
                                  if q.predicate == RDFS.subClassOf and isinstance(q.subject, NamedNode)
                                  and isinstance(q.object, NamedNode)))
        self.shapes: CoreShapes = core_shapes(iris.base, subclasses)
        self.read = self.shapes.reads
        self.rules = {name: rule for name, rule in load_rules(iris).items() if rule.scope == "record"}
        self.axes = _axes(iris.base)
        self.shared = Facts()
        self.counts: Counter[str] = Counter()

    def add_shared(self, quads: Iterable[Any]) -> None:
        """Shared resources described in this ingest (vendors, columns, licences, concepts)."""
        self.shared.add(quads, self.read, self.shapes.backwards)

    def record(self, quads: Iterable[Any], source: str, index: int | None, record_id: str) -> list[RuleFinding]:
        """The findings of one record's own quads (over the shared resources added so far); an edge's
        quads too (``record_id``: "source -> target")."""
        return self.record_terms(terms(quads), source, index, record_id)

    def record_terms(self, triples: Iterable[tuple[Any, Any, Any]], source: str, index: int | None,
                     record_id: str) -> list[RuleFinding]:
        """As :meth:`record`, from the (subject, predicate, object) the mapping made (``record_triples``)."""
        findings = []
        for result in self.shapes.check(Facts(self.shared).add_terms(triples, self.read, self.shapes.backwards)):
            rule = self.rules.get(result.rule) or Rule(result.rule, "", result.severity, result.rule, "record")
            path = field_path(result, self.iris, self.axes.get(result.rule))
            findings.append(RuleFinding(source, index, record_id, path, rule, result))
            self.counts[result.rule] += 1
        return findings


def summary_text(findings: list[RuleFinding], records: int, iris: Iris, *, width: int = 100) -> str:
    """The findings grouped by rule, as ``kg validate`` shows them (one screen for any number)."""
    rules = {name: rule for name, rule in load_rules(iris).items() if rule.scope == "record"}
    report: ValidationReport = finish([f.result for f in findings], rules, records=records)
    lines = rule_blocks(report, width=width)
    edges = {f.record_id for f in findings if f.result.focus.startswith(iris.base + "relation/")}
    affected = len({f.record_id for f in findings} - edges)
    lines.append(f"rules at ingest: {report.violations} violation(s), {report.warnings} warning(s), "
                 f"{report.count('Info')} info(s) in {affected} of {records} record(s)"
                 + (f" and {len(edges)} edge(s)" if edges else "")
                 + f" ({len(report.by_rule())} of {len(rules)} record-local rules)")
    return "\n".join(lines) + "\n"

