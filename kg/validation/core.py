"""kg's shapes on the SHACL engine (``kg.shacl``): compiled once per base, results as kg's ``Result``.

Every run of kg validate and the rules at ingest evaluate SHACL Core with
``kg.shacl.Engine``; this module turns its findings into ``Result`` (the rule
named by the shape, the path as SPARQL text, terms as text). ``core_shapes`` is our
record-local shapes for a base (compiled once per process); ``CoreShapes`` wraps
any shapes graph (the user's too).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, Iterable, Mapping

import pyoxigraph
from pyoxigraph import NamedNode

from ..shacl import Engine, Facts, Finding, path_text, terms
from ..vocab import Iris
from .paths import short_iri
from .pyshacl_run import rule_name
from .report import Owner, Result, make_result, severity_name, term_text
from .rules import shapes_text

__all__ = ["CoreShapes", "Facts", "core_shapes", "our_shapes_triples", "terms"]


class CoreShapes:
    """A shapes graph compiled for the engine, reporting kg ``Result``s.

    ``names``: rule names of shapes (by their rdflib or pyoxigraph term; otherwise our
    shapes' local names); ``subclasses``: (sub, super) class IRIs that hold in all data
    (the ontology); ``skip``: shapes whose targets are checked elsewhere; ``ours``: kg's own shapes,
    whose patterns run in time linear in the value, so that they match without a time limit each.
    """

    def __init__(self, triples: Iterable[Any], iris: Iris, subclasses: Iterable[tuple[str, str]] = (), *,
                 names: Mapping[Any, str] | None = None, skip: Iterable[Any] = (), ours: bool = False) -> None:
        self.engine = Engine(triples, subclasses=[(NamedNode(a), NamedNode(b)) for a, b in subclasses],
                             skip=skip, bounded_patterns=ours)
        self.owner = Owner(iris)
        self.names = {_text(k): v for k, v in (names or {}).items()}
        self.reads = self.engine.reads
        self.backwards = self.engine.backwards
        self._known: dict[Any, tuple[str, str | None, str]] = {}

    def facts(self, triples: Iterable[Any] = (), base: Facts | None = None) -> Facts:
        """A data graph for these shapes (pyoxigraph triples or quads), over ``base``."""
        return self.engine.facts(triples, base)

    def facts_of_terms(self, triples: Iterable[tuple[Any, Any, Any]], base: Facts | None = None) -> Facts:
        """As :meth:`facts`, from (subject, predicate, object) tuples of the predicates the shapes read."""
        return self.engine.facts_of_terms(triples, base)

    def check(self, facts: Facts, focus: Callable[[Any], bool] | None = None, *,
              deadline: float | None = None) -> list[Result]:
        """Every result of the shapes on ``facts`` (of the focus nodes ``focus`` accepts, when given), by the
        ``time.monotonic()`` instant ``deadline`` (``kg.shacl.OutOfTime`` past it)."""
        return [self.result(f) for f in self.engine.validate(facts, focus, deadline=deadline)]

    def name_of(self, shape: Any) -> str:
        """The rule name of a shape (a pyoxigraph or rdflib term)."""
        return self.names.get(_text(shape)) or rule_name(_text(shape), {})

    def result(self, finding: Finding) -> Result:
        """The ``Result`` of one finding (the rule, path and severity texts worked out once a shape)."""
        key = (finding.shape, finding.path, finding.severity)
        known = self._known.get(key)
        if known is None:
            path = finding.path
            text = path_text(self.engine.shapes, path, short_iri) if path is not None else None
            shape = _text(finding.shape)
            known = self._known[key] = (self.names.get(shape) or rule_name(shape, {}), text,
                                        severity_name(finding.severity.value))
        name, text, severity = known
        return make_result(self.owner, name, term_text(finding.focus), text,
                           term_text(finding.value) if finding.value is not None else None, finding.component,
                           severity)


def _text(term: Any) -> str:
    """A shape's term as text, the same for its rdflib and pyoxigraph forms (a blank node as _:id)."""
    if isinstance(term, (pyoxigraph.BlankNode,)) or type(term).__name__ == "BNode":
        return "_:" + (term.value if isinstance(term, pyoxigraph.BlankNode) else str(term))
    return term.value if isinstance(term, pyoxigraph.NamedNode) else str(term)


def our_shapes_triples(iris: Iris, *, cross: bool = False) -> list[Any]:
    """Our shapes (the record-local ones, or the catalog-wide ones) as pyoxigraph triples."""
    return list(pyoxigraph.parse(shapes_text(iris, cross=cross).encode("utf-8"), format=pyoxigraph.RdfFormat.TURTLE))


@lru_cache(maxsize=4)
def core_shapes(base: str, subclasses: tuple[tuple[str, str], ...] = ()) -> CoreShapes:
    """Our record-local shapes for ``base``, compiled (once per process)."""
    iris = Iris(base)
    return CoreShapes(our_shapes_triples(iris), iris, subclasses, ours=True)
