"""The rules: the shapes of ``shapes/`` that report results, with their names, severities and checks.

``kg-shapes.ttl`` holds the rules a record can be checked on alone (its own named
graph plus the shared resources it points to), ``kg-cross-shapes.ttl`` the rules
that need the whole catalog (id uniqueness, edge end points, duplicate edges),
each answered by the SPARQL query ``queries/check-*.rq`` whose ``# shape:`` header
names it. A rule is named by the local name of the shape that reports it.

>>> rules = load_rules()
>>> rules["T2Citation"].severity, rules["T2Citation"].scope
('Violation', 'record')
>>> rules["RelationTargetIsSystem"].check
'check-relation-target'

Each rule is structural or quality (its ``kgsh:ruleKind``): ingest quarantines a record
that breaks a structural rule (one of the catalog schema's MUST rules) and keeps one
that breaks only quality rules, with a warning.

>>> rules["SystemTier"].kind, rules["T2Citation"].kind
('structural', 'quality')
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import rdflib
from rdflib import URIRef

from ..errors import UsageError
from ..queries import QUERIES_DIR
from ..resources import resource_dir
from ..vocab import DEFAULT_BASE, SHAPES_NS, Iris
from .paths import SH_NS as _SH
from .paths import path_text

SHAPES_DIR = resource_dir("shapes")
LOCAL_SHAPES = SHAPES_DIR / "kg-shapes.ttl"
CROSS_SHAPES = SHAPES_DIR / "kg-cross-shapes.ttl"
SEVERITIES = ("Violation", "Warning", "Info")
RULE_KIND = URIRef(SHAPES_NS + "ruleKind")
KINDS = {SHAPES_NS + "Structural": "structural", SHAPES_NS + "Quality": "quality"}
STRUCTURAL, QUALITY = "structural", "quality"


@dataclass(frozen=True)
class Rule:
    """One rule: a shape with a severity and a message.

    ``scope`` is ``record`` (checked per record graph), ``catalog`` (checked by
    the SPARQL query ``check``) or, for the user's own shapes only, ``graph``
    (checked in one pySHACL run over the whole graph). ``kind`` is ``structural`` or ``quality``
    (``kgsh:ruleKind``; the user's own shapes are all ``quality``).
    """

    name: str
    iri: str
    severity: str
    message: str
    scope: str
    path: str | None = None
    check: str | None = None
    component: str | None = None
    kind: str = QUALITY

    @property
    def structural(self) -> bool:
        """True for a MUST rule of the catalog's schema: ingest quarantines a record that breaks it."""
        return self.kind == STRUCTURAL


def shapes_text(iris: Iris | None = None, *, cross: bool = False) -> str:
    """The Turtle text of the record-local shapes (or the catalog-wide ones), for ``iris``' base.

    The shapes name taxonomy schemes under the default base; another base is
    substituted in.
    """
    text = (CROSS_SHAPES if cross else LOCAL_SHAPES).read_text(encoding="utf-8")
    if iris is not None and iris.base != DEFAULT_BASE:
        text = text.replace(DEFAULT_BASE, iris.base)
    return text


def shapes_graph(iris: Iris | None = None, *, local: bool = True, cross: bool = True) -> rdflib.Graph:
    """The shapes as an rdflib graph: the record-local ones, the catalog-wide ones, or both."""
    graph = rdflib.Graph()
    if local:
        graph.parse(data=shapes_text(iris), format="turtle")
    if cross:
        graph.parse(data=shapes_text(iris, cross=True), format="turtle")
    return graph


def _check_headers() -> dict[str, tuple[str, str]]:
    """shape name -> (check query name, constraint component) from queries/check-*.rq headers."""
    found = {}
    for path in sorted(QUERIES_DIR.glob("check-*.rq")):
        header = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.startswith("#"):
                break
            m = re.match(r"^#\s*(shape|component)\s*:\s*(\S+)", line)
            if m:
                header[m.group(1)] = m.group(2)
        if "shape" in header:
            found[header["shape"]] = (path.stem, header.get("component", ""))
    return found


def load_rules(iris: Iris | None = None) -> dict[str, Rule]:
    """Every rule of the shapes, by name (the local name of its shape)."""
    return dict(_rules((iris or Iris()).base))


@lru_cache(maxsize=4)
def _rules(base: str) -> tuple[tuple[str, Rule], ...]:
    iris = Iris(base)
    checks = _check_headers()
    rules: dict[str, Rule] = {}
    for scope, graph in (("record", shapes_graph(iris, cross=False)),
                         ("catalog", shapes_graph(iris, local=False))):
        for shape in graph.subjects(_SH.severity, None):
            if not isinstance(shape, URIRef) or not str(shape).startswith(SHAPES_NS):
                continue
            name = str(shape)[len(SHAPES_NS):]
            message = graph.value(shape, _SH.message)
            path = graph.value(shape, _SH.path)
            check, component = checks.get(name, (None, None))
            if scope == "catalog" and check is None:
                raise UsageError(f"catalog-wide rule {name} has no queries/check-*.rq naming it")
            rules[name] = Rule(
                name=name, iri=str(shape), severity=str(graph.value(shape, _SH.severity)).rsplit("#", 1)[-1],
                message=str(message) if message is not None else name, scope=scope,
                path=path_text(graph, path) if path is not None else None,
                check=check, component=component or None, kind=_kind(graph, shape, name),
            )
    return tuple(sorted(rules.items()))


def _kind(graph: rdflib.Graph, shape: URIRef, name: str) -> str:
    """A rule's kind from its ``kgsh:ruleKind``: every rule of ours must say which it is."""
    kind = KINDS.get(str(graph.value(shape, RULE_KIND)))
    if kind is None:
        raise UsageError(f"rule {name} of shapes/ has no kgsh:ruleKind (kgsh:Structural or kgsh:Quality)")
    return kind
