"""Validation results and the report: grouping, and rendering as text, JSON and a W3C report graph."""

from __future__ import annotations

import textwrap
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterable
from urllib.parse import unquote

import pyoxigraph
import rdflib
from rdflib import BNode, Literal as RLiteral, URIRef

from ..errors import UsageError
from ..findings import display_text
from ..vocab import KG_NS, PREFIXES, RDF, SH, SHAPES_NS, Iris
from .paths import SH_NS as _SH
from .paths import PATH_PREFIXES, path_text, short_iri
from .rules import SEVERITIES, Rule, shapes_graph

FAIL_ON = ("violation", "warning", "info")
_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"


@dataclass(frozen=True, order=True)
class Result:
    """One validation result, in plain values (IRIs as text, literals in N-Triples form).

    ``record`` is the id of the record the result is about (from the focus node,
    or from the value when the focus is not part of a record); ``column`` the cell
    column for results about a cell.
    """

    rule: str
    focus: str
    path: str | None
    value: str | None
    component: str
    severity: str
    record: str | None = field(default=None, compare=False)
    column: str | None = field(default=None, compare=False)

    @property
    def key(self) -> tuple:
        return (self.rule, self.focus, self.path, self.value, self.component, self.severity)


def term_text(term: Any) -> str:
    """A term as text: an IRI as itself, a literal in N-Triples form, a blank node as _:id."""
    if isinstance(term, (URIRef, pyoxigraph.NamedNode)):
        return str(term) if isinstance(term, URIRef) else term.value
    if isinstance(term, RLiteral):
        return _literal_nt(str(term), term.language, str(term.datatype) if term.datatype else None)
    if isinstance(term, pyoxigraph.Literal):
        return _literal_nt(term.value, term.language, term.datatype.value)
    if isinstance(term, (BNode, pyoxigraph.BlankNode)):
        return "_:" + (str(term) if isinstance(term, BNode) else term.value)
    return str(term)


def _literal_nt(value: str, language: str | None, datatype: str | None) -> str:
    text = str(pyoxigraph.Literal(value))
    if language:
        return f"{text}@{language}"
    if datatype and datatype != _XSD_STRING and datatype != "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString":
        return f"{text}^^<{datatype}>"
    return text


def severity_name(iri: str) -> str:
    """A severity as a result names it: sh:Violation as ``Violation``; a custom one by its whole IRI."""
    return iri[len(SH.iri):] if iri.startswith(SH.iri) else iri


class Owner:
    """Finds the record (and the column) a node belongs to, from the IRI scheme of vocab.Iris."""

    def __init__(self, iris: Iris) -> None:
        self.iris = iris
        self.relations = iris.base + "relation/"

    def record(self, text: str | None) -> str | None:
        return self.iris.record_of(text) if text else None

    def column(self, text: str | None) -> str | None:
        return self.iris.cell_column(text) if text else None


def make_result(owner: Owner, rule: str, focus: str, path: str | None, value: str | None,
                component: str, severity: str) -> Result:
    """A ``Result``, with the record and the column it is about found from its terms."""
    record = owner.record(focus) or owner.record(value)
    if record is None and path == "^dcterms:identifier" and focus.startswith('"'):
        record = display_text(focus)  # a repeated id (UniqueSystemIdentifier)
    column = owner.column(focus) or owner.column(value)
    return Result(rule=rule, focus=focus, path=path, value=value, component=component,
                  severity=severity, record=record, column=column)


@dataclass
class ValidationReport:
    """The results of one validation run, with what was checked and how long it took.

    ``shapes``: the user's shapes files when the run checked those instead of ours
    (``shapes_graph``: as parsed, for the result paths of the Turtle report);
    ``notes``: what the reader should know about how the run was made (a whole-graph
    run instead of the split one, stock pySHACL in the workers).
    """

    results: list[Result]
    rules: dict[str, Rule]
    records: int = 0
    relations: int = 0
    seconds: float = 0.0
    mode: str = "split"
    scope: list[str] | None = None  # the record ids checked, when not all
    timings: dict[str, float] = field(default_factory=dict)
    shapes: list[str] | None = None
    notes: list[str] = field(default_factory=list)
    shapes_graph: rdflib.Graph | None = field(default=None, repr=False, compare=False)  # the user's, parsed
    def count(self, severity: str) -> int:
        return sum(1 for r in self.results if r.severity == severity)

    @property
    def violations(self) -> int:
        return self.count("Violation")

    @property
    def warnings(self) -> int:
        return self.count("Warning")

    @property
    def conforms(self) -> bool:
        """SHACL conformance: no result at all."""
        return not self.results

    def fails(self, fail_on: str = "violation") -> bool:
        """True when a result is at least as severe as ``fail_on`` (violation, warning or info)."""
        if fail_on == "never":
            return False
        if fail_on not in FAIL_ON:
            raise UsageError(f"--fail-on must be one of never, {', '.join(FAIL_ON)}")
        worst = SEVERITIES[: FAIL_ON.index(fail_on) + 1]
        return any(r.severity in worst for r in self.results)

    def by_rule(self) -> dict[str, list[Result]]:
        grouped: dict[str, list[Result]] = defaultdict(list)
        for result in self.results:
            grouped[result.rule].append(result)
        return dict(grouped)

    def keys(self) -> set[tuple]:
        return {r.key for r in self.results}

    def to_json(self) -> dict[str, Any]:
        """Machine-readable: a summary and one entry per result."""
        return {
            "conforms": self.conforms,
            "violations": self.violations,
            "warnings": self.warnings,
            "infos": self.count("Info"),
            "records": self.records,
            "relations": self.relations,
            "mode": self.mode,
            "scope": self.scope,
            "seconds": round(self.seconds, 3),
            "shapes": self.shapes,
            "notes": self.notes,
            "counts": {name: n for name, n in sorted(Counter(r.rule for r in self.results).items())},
            "results": [
                {
                    "focus": display_text(r.focus),
                    "record": r.record,
                    "column": r.column,
                    "path": r.path,
                    "value": display_text(r.value),
                    "rule": r.rule,
                    "severity": r.severity,
                    "message": self.rules[r.rule].message if r.rule in self.rules else r.rule,
                    "component": r.component,
                }
                for r in self.results
            ],
        }

    def to_turtle(self, iris: Iris | None = None) -> bytes:
        """The W3C SHACL validation report graph (sh:ValidationReport), as Turtle."""
        return report_graph_turtle(self, iris or Iris())


def report_graph_turtle(report: ValidationReport, iris: Iris) -> bytes:
    shapes = _shapes_of(report, iris)
    sh = SH.iri
    triples: list[pyoxigraph.Triple] = []
    root = pyoxigraph.BlankNode("report")

    def nn(local: str) -> pyoxigraph.NamedNode:
        return pyoxigraph.NamedNode(sh + local)

    def term(text: str) -> Any:
        if text.startswith('"'):
            return next(iter(pyoxigraph.parse(f"<x:s> <x:p> {text} .".encode("utf-8"),
                                              format=pyoxigraph.RdfFormat.N_TRIPLES))).object
        if text.startswith("_:"):
            return pyoxigraph.BlankNode(text[2:])
        return pyoxigraph.NamedNode(text)

    rdf_type = pyoxigraph.NamedNode(RDF.type.value)
    triples.append(pyoxigraph.Triple(root, rdf_type, nn("ValidationReport")))
    triples.append(pyoxigraph.Triple(root, nn("conforms"), pyoxigraph.Literal(report.conforms)))
    path_nodes: dict[str, Any] = {}
    for i, r in enumerate(report.results):
        node = pyoxigraph.BlankNode(f"r{i}")
        rule = report.rules.get(r.rule)
        triples += [
            pyoxigraph.Triple(root, nn("result"), node),
            pyoxigraph.Triple(node, rdf_type, nn("ValidationResult")),
            pyoxigraph.Triple(node, nn("focusNode"), term(r.focus)),
            pyoxigraph.Triple(node, nn("resultSeverity"),
                              pyoxigraph.NamedNode(r.severity) if ":" in r.severity else nn(r.severity)),
            pyoxigraph.Triple(node, nn("sourceConstraintComponent"), nn(r.component)),
            pyoxigraph.Triple(node, nn("sourceShape"), _shape_term(rule, r.rule)),
        ]
        if rule is not None:
            triples.append(pyoxigraph.Triple(node, nn("resultMessage"), pyoxigraph.Literal(rule.message, language="en")))
        if r.value is not None:
            triples.append(pyoxigraph.Triple(node, nn("value"), term(r.value)))
        if r.path is not None:
            if r.path not in path_nodes:
                path_nodes[r.path] = _path_term(shapes, r.rule, r.path, triples)
            triples.append(pyoxigraph.Triple(node, nn("resultPath"), path_nodes[r.path]))
    prefixes = {"sh": sh, "kg": KG_NS, "kgsh": SHAPES_NS, "dcterms": PREFIXES["dcterms"],
                "schema": PREFIXES["schema"], "xsd": PREFIXES["xsd"]}
    return pyoxigraph.serialize(triples, format=pyoxigraph.RdfFormat.TURTLE, prefixes=prefixes) or b""


def _shapes_of(report: ValidationReport, iris: Iris) -> rdflib.Graph:
    if report.shapes_graph is not None:
        return report.shapes_graph
    return shapes_graph(iris) if not report.shapes else rdflib.Graph()


def _shape_term(rule: Rule | None, name: str) -> Any:
    if rule is None:
        return pyoxigraph.NamedNode(SHAPES_NS + name)
    if rule.iri.startswith("_:"):
        return pyoxigraph.BlankNode(rule.iri[2:])
    return pyoxigraph.NamedNode(rule.iri)


def _path_term(shapes: rdflib.Graph, rule: str, text: str, triples: list) -> Any:
    """The path node of ``rule`` (copied from the shapes graph) whose text is ``text``."""
    candidates = [p for s in shapes.subjects(_SH.path, None) for p in shapes.objects(s, _SH.path)
                  if path_text(shapes, p) == text]
    if not candidates:
        iri = _predicate(text)  # a predicate no shape names as a path: sh:closed's result path
        return pyoxigraph.NamedNode(iri) if iri is not None else pyoxigraph.Literal(text)
    return _copy_node(shapes, candidates[0], triples, {})


def _predicate(text: str) -> str | None:
    """The IRI of a path text that is one predicate (``<iri>`` or a prefixed name of the path prefixes)."""
    if text.startswith("<") and text.endswith(">"):
        return text[1:-1]
    name, _, local = text.partition(":")
    return PATH_PREFIXES[name] + local if name in PATH_PREFIXES and local and short_iri(
        PATH_PREFIXES[name] + local) == text else None


_LIST_KEYS = frozenset({str(RDF.first.value), str(RDF.rest.value)})
_PATH_KEYS = frozenset(_SH[key] for key in ("inversePath", "alternativePath", "zeroOrMorePath", "oneOrMorePath",
                                            "zeroOrOnePath"))


def _copy_node(graph: rdflib.Graph, node: Any, triples: list, seen: dict) -> Any:
    """A copy of a path node of the shapes graph: a list's members, or the path's one key (a node that is
    both is read as a list, as the engine reads it)."""
    if isinstance(node, URIRef):
        return pyoxigraph.NamedNode(str(node))
    if isinstance(node, RLiteral):
        return pyoxigraph.Literal(str(node))
    if node in seen:
        return seen[node]
    copy = pyoxigraph.BlankNode()
    seen[node] = copy
    is_list = (node, URIRef(RDF.first.value), None) in graph
    for p, o in graph.predicate_objects(node):
        if (str(p) in _LIST_KEYS) if is_list else (p in _PATH_KEYS):
            triples.append(pyoxigraph.Triple(copy, pyoxigraph.NamedNode(str(p)), _copy_node(graph, o, triples, seen)))
    return copy


def finish(results: Iterable[Result], rules: dict[str, Rule], **kwargs: Any) -> ValidationReport:
    """The report of ``results``, the most severe first, then by rule and record. Alike results are kept, each
    one: SHACL gives a result per value, value pair, constraint and shape reaching a focus node (two sh:class
    constraints a value breaks are two results), and a report is compared as a multiset."""
    ordered = sorted(results, key=lambda r: (SEVERITIES.index(r.severity) if r.severity in SEVERITIES else 9,
                                                     r.rule, r.record or "", r.key))
    return ValidationReport(results=ordered, rules=rules, **kwargs)


# ---------------------------------------------------------------------------
# The text report


def text_report(report: ValidationReport, *, width: int = 100, examples: int = 3) -> str:
    """A report that fits a screen: one block per rule (by column for cell rules), then one summary line."""
    lines: list[str] = []
    what = (f"{report.records} records" if report.scope is None
            else f"{len(report.scope)} record(s) ({', '.join(report.scope[:3])}{', ...' if len(report.scope) > 3 else ''})")
    lines.append(_clip(f"kg validate: {what}, {report.relations} edges, {len(report.rules)} rules; "
                       f"{report.mode} run in {report.seconds:.1f} s", width))
    if report.shapes:
        lines += _wrapped("shapes: ", ", ".join(report.shapes), width, 2)
    for note in report.notes:
        lines += textwrap.wrap(note, width, initial_indent="note: ", subsequent_indent="      ")
    lines += rule_blocks(report, width=width, examples=examples)
    grouped = report.by_rule()
    quiet = [n for n in report.rules if n not in grouped]
    lines.append("")
    lines.append(f"{len(report.rules) - len(quiet)} of {len(report.rules)} rules reported results, "
                 f"the other {len(quiet)} found nothing (every result: --format json).")
    affected = len({r.record for r in report.results if r.record})
    verdict = "OK" if report.conforms else ("FAIL" if report.violations else "WARN")
    lines.append(f"{verdict}: {report.violations} violation(s), {report.warnings} warning(s), "
                 f"{report.count('Info')} info(s) in {affected} record(s)")
    return "\n".join(lines) + "\n"


def rule_blocks(report: ValidationReport, *, width: int = 100, examples: int = 3) -> list[str]:
    """One block of lines per rule that reported results (by column for cell rules), the worst first."""
    lines: list[str] = []
    grouped = report.by_rule()
    order = sorted(grouped, key=lambda n: (SEVERITIES.index(grouped[n][0].severity), -len(grouped[n]), n))
    for name in order:
        found = grouped[name]
        rule = report.rules.get(name)
        message = rule.message if rule else ""
        lines.append("")
        lines.append(_clip(f"{found[0].severity.upper():9} {len(found):6}  {name}: {message}", width))
        components = Counter(r.component.replace("ConstraintComponent", "") for r in found)
        if len(components) > 1:
            lines.append(_clip("                  by check: " + _counts(components), width))
        columns = Counter(r.column for r in found if r.column)
        values = Counter(display_text(r.value) for r in found if r.value is not None)
        if columns:
            lines += _wrapped("                  by column: ", _counts(columns), width, 5)
        elif values and len(values) < len(found):  # a few values repeat: say which
            lines += _wrapped("                  by value: ", _counts(values), width, 2)
        records = sorted({r.record for r in found if r.record})
        shown = ", ".join(records[:examples]) + (f" (+{len(records) - examples} more records)"
                                                 if len(records) > examples else "")
        if records:
            lines.append(_clip(f"                  e.g. {shown}", width))
    return lines


def _counts(counter: Counter) -> str:
    return ", ".join(f"{k} {n}" for k, n in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0])))


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _wrapped(lead: str, text: str, width: int, max_lines: int) -> list[str]:
    items = text.split(", ")
    lines: list[str] = []
    current = lead
    for i, item in enumerate(items):
        piece = item if current.endswith(": ") or current.strip() == "" else ", " + item
        if len(current) + len(piece) > width:
            if len(lines) + 1 == max_lines:
                lines.append(current + f", +{len(items) - i} more")
                return lines
            lines.append(current + ",")
            current = " " * len(lead) + item
        else:
            current += piece
    lines.append(current)
    return lines
