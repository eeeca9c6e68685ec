"""Stock pySHACL, unpatched: one run over an rdflib graph, its report graph read back as ``Result``s.

``kg validate --engine pyshacl`` (the reference the engine is tested against), and
the user's shapes that use SHACL-SPARQL, run here; store quads become rdflib terms
with ``Converter``.
"""

from __future__ import annotations

import logging
import re
import threading
import warnings
from contextlib import contextmanager
from typing import Any, Iterable, Iterator, Mapping

import pyoxigraph
import rdflib
from rdflib import BNode, Literal as RLiteral, URIRef

from ..errors import SourceError
from ..vocab import SHAPES_NS, Iris
from .paths import SH_NS as _SH
from .paths import path_text
from .report import Owner, Result, make_result, severity_name, term_text

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
        with warnings.catch_warnings():  # "Parsing weird boolean": the same finding, as a warning
            warnings.filterwarnings("ignore", message="Parsing weird boolean", category=UserWarning)
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

    def fill(self, graph: rdflib.Graph, triples: Iterable[Any]) -> None:
        """Add ``triples`` (pyoxigraph triples or quads) to ``graph``."""
        add = graph.store.add  # Graph.add only re-checks the term types, then calls this
        with quiet_ill_formed_literals():
            for t in triples:
                add((self(t.subject), self(t.predicate), self(t.object)), graph, False)



def rule_name(shape: Any, names: Mapping[Any, str]) -> str:
    """The rule a result of ``shape`` reports under: its given name, or our shapes' local name."""
    found = names.get(shape)
    if found is not None:
        return found
    text = str(shape)
    return text[len(SHAPES_NS):] if text.startswith(SHAPES_NS) else text


def stock_results(data: rdflib.Graph, shapes: rdflib.Graph, iris: Iris,
                  names: Mapping[Any, str] | None = None, *, source: str = "the shapes") -> list[Result]:
    """One stock pySHACL run (no inference, SHACL Core and SPARQL, warnings fail) and its results.

    Shapes pySHACL cannot run (it fails the validation, reads sh:pattern as a Python regular
    expression, or recurses past Python's limit) are a ``SourceError`` naming ``source``.
    """
    import pyshacl

    try:
        _, report, _ = pyshacl.validate(data, shacl_graph=shapes, inference="none", advanced=False,
                                        allow_warnings=False)
    except re.error as error:
        raise SourceError(source, f"stock pySHACL cannot run these shapes: {error} (pySHACL reads sh:pattern as "
                                  f"a Python regular expression)") from None
    except RuntimeError as error:  # pySHACL's ReportableRuntimeError and its kin, RecursionError
        raise SourceError(source, f"stock pySHACL cannot run these shapes: {_first_line(error)}") from None
    if not isinstance(report, rdflib.Graph):  # a ValidationFailure, returned
        raise SourceError(source, f"stock pySHACL cannot run these shapes: {_first_line(report)}")
    return results_from_report_graph(report, shapes, iris, names)


def _first_line(error: object) -> str:
    text = str(getattr(error, "message", None) or error).strip()
    return text.splitlines()[0] if text else type(error).__name__


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
            severity_name(str(report.value(node, _SH.resultSeverity))),
        ))
    return results
