"""One pySHACL run over one part: the part's triples as an rdflib graph, the results as ``Result``s.

The calling process runs stock pySHACL (``pyshacl.validate``, its report graph
read back); a worker of the split run may run the sped-up form instead
(``fast=True``: ``kg.validation.speedups``). Both give the same results.
"""

from __future__ import annotations

import logging
import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping

import pyoxigraph
import rdflib
from rdflib import BNode, Literal as RLiteral, URIRef

from ..vocab import RDF, SH, SHAPES_NS, Iris
from .paths import SH_NS as _SH
from .paths import path_text
from .report import Owner, Result, make_result, term_text

if TYPE_CHECKING:
    from .readplan import ReadPlan

_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"


class _IllFormedLiterals(logging.Filter):
    """Drops rdflib's log record (with its traceback) for a literal whose text is not of its datatype
    (``"aldi"^^xsd:integer``): such data is a validation finding (sh:datatype), not a crash report."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Failed to convert Literal lexical form to value")


_QUIET = _IllFormedLiterals()
_quiet_lock = threading.Lock()
_quiet_users = 0


@contextmanager
def quiet_ill_formed_literals() -> Iterator[None]:
    """While rdflib terms are made from data: its ``rdflib.term`` logger says nothing of ill-formed
    literals (a public logging filter, added and removed; other messages still go through)."""
    global _quiet_users
    logger = logging.getLogger("rdflib.term")
    with _quiet_lock:
        _quiet_users += 1
        logger.addFilter(_QUIET)
    try:
        yield
    finally:
        with _quiet_lock:
            _quiet_users -= 1
            if _quiet_users == 0:
                logger.removeFilter(_QUIET)


class Converter:
    """pyoxigraph terms -> rdflib terms, with a cache for the many repeated IRIs and values."""

    def __init__(self) -> None:
        self.cache: dict[Any, Any] = {}

    def __call__(self, term: Any) -> Any:
        found = self.cache.get(term)
        if found is not None:
            return found
        if isinstance(term, pyoxigraph.NamedNode):
            found = URIRef(term.value)
        elif isinstance(term, pyoxigraph.Literal):
            if term.language:
                found = RLiteral(term.value, lang=term.language)
            elif term.datatype.value == _XSD_STRING:
                found = RLiteral(term.value)
            else:
                found = RLiteral(term.value, datatype=URIRef(term.datatype.value))
        else:
            found = BNode(term.value)
        if len(self.cache) < 200_000:
            self.cache[term] = found
        return found

    def fill(self, graph: rdflib.Graph, triples: Iterable[Any], plan: ReadPlan | None = None) -> None:
        """Add ``triples`` (pyoxigraph triples or quads) to ``graph``: those ``plan`` reads, or all."""
        add = graph.store.add  # Graph.add only re-checks the term types, then calls this
        predicates = plan.bulk if plan is not None else None
        classes = plan.classes if plan is not None else None
        rdf_type = RDF.type.value
        with quiet_ill_formed_literals():
            for t in triples:
                p = t.predicate
                if predicates is not None and p.value not in predicates:
                    continue
                if classes is not None and p.value == rdf_type and t.object.value not in classes:
                    continue
                add((self(t.subject), self(p), self(t.object)), graph, False)



def rule_name(shape: Any, names: Mapping[Any, str]) -> str:
    """The rule a result of ``shape`` reports under: its given name, or our shapes' local name."""
    found = names.get(shape)
    if found is not None:
        return found
    text = str(shape)
    return text[len(SHAPES_NS):] if text.startswith(SHAPES_NS) else text


class ShaclEngine:
    """pySHACL over many data graphs with one shapes graph: stock, or sped up (``fast``, workers only)."""

    def __init__(self, shapes: rdflib.Graph, iris: Iris, names: Mapping[Any, str] | None = None, *,
                 fast: bool = False) -> None:
        self.shapes = shapes
        self.iris = iris
        self.owner = Owner(iris)
        self.names = dict(names or {})
        self.fast = fast
        self._run = None
        if fast:
            from .speedups import FastRun

            self._run = FastRun(shapes)
        self._path_texts: dict[Any, str] = {}

    def run(self, data: rdflib.Graph) -> list[Result]:
        """The results of the shapes on ``data``."""
        if self._run is None:
            return stock_results(data, self.shapes, self.iris, self.names)
        return [self._result(triples) for triples in self._run(data)]

    def _result(self, triples: list) -> Result:
        values: dict[str, Any] = {}
        for _, predicate, obj in triples:
            key = str(predicate)[len(SH.iri):]
            if key in values:
                continue
            values[key] = obj[1] if isinstance(obj, tuple) else obj
        path = values.get("resultPath")
        if path is not None:
            if path not in self._path_texts:
                self._path_texts[path] = path_text(self.shapes, path)
            path = self._path_texts[path]
        value = values.get("value")
        return make_result(
            self.owner, rule_name(values["sourceShape"], self.names), term_text(values["focusNode"]), path,
            term_text(value) if value is not None else None,
            str(values["sourceConstraintComponent"]).rsplit("#", 1)[-1],
            str(values["resultSeverity"]).rsplit("#", 1)[-1],
        )


def stock_results(data: rdflib.Graph, shapes: rdflib.Graph, iris: Iris,
                  names: Mapping[Any, str] | None = None) -> list[Result]:
    """One stock pySHACL run (no inference, SHACL Core and SPARQL, warnings fail) and its results."""
    import pyshacl

    _, report, _ = pyshacl.validate(data, shacl_graph=shapes, inference="none", advanced=False,
                                    allow_warnings=False)
    return results_from_report_graph(report, shapes, iris, names)


def results_from_report_graph(report: rdflib.Graph, shapes: rdflib.Graph, iris: Iris,
                              names: Mapping[Any, str] | None = None) -> list[Result]:
    """Results of a W3C validation report graph (what stock pySHACL returns)."""
    owner = Owner(iris)
    names = names or {}
    results = []
    for node in report.objects(None, _SH.result):
        path = report.value(node, _SH.resultPath)
        value = report.value(node, _SH.value)
        results.append(make_result(
            owner, rule_name(report.value(node, _SH.sourceShape), names),
            term_text(report.value(node, _SH.focusNode)),
            path_text(report, path) if path is not None else None,
            term_text(value) if value is not None else None,
            str(report.value(node, _SH.sourceConstraintComponent)).rsplit("#", 1)[-1],
            str(report.value(node, _SH.resultSeverity)).rsplit("#", 1)[-1],
        ))
    return results
