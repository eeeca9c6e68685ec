"""A remote endpoint's answer checked as SPARQL results before a row of it is used.

pyoxigraph reads SPARQL results lazily: a term of the wrong type (``"value": 5``), a missing
field, a binding of an undeclared variable or a row of the wrong width is met only while the
rows are iterated, long after the request, where it used to end ``kg query --endpoint`` as an
internal error (exit 70). Here the whole answer is read once, in the format its
``Content-Type`` names (JSON when it names none kg reads: the format asked for; XML also
checked for what pyoxigraph's reader lets pass, a binding without a term or an empty IRI,
and refused with a DTD), and the kind of answer is compared with the query's form (a SELECT
answered with a boolean, or an ASK
with rows, is no answer). Anything wrong is one :class:`~kg.errors.StoreError` line (exit 4)
naming the endpoint, its credentials and query values hidden. CSV is refused: it loses the
terms' kinds (an IRI and a string read the same), so the rows could not be the store's.

>>> checked_solutions(b'{"head":{"vars":["a"]},"results":{"bindings":[{"a":{"type":"uri","value":5}}]}}',
...                   "application/sparql-results+json", "SELECT", "http://h/sparql")
Traceback (most recent call last):
...
kg.errors.StoreError: http://h/sparql sent an answer that is not SPARQL JSON results: Term value must be a string
>>> [row["a"]["value"] for row in binding_rows(b'{"head":{"vars":["a"]},"results":{"bindings":'
...                                            b'[{"a":{"type":"literal","value":"x"}}]}}', "", "http://h/q")]
['x']
"""

from __future__ import annotations

from typing import Any, Iterable
from xml.parsers import expat

from pyoxigraph import (BlankNode, Literal, NamedNode, QueryBoolean, QueryResultsFormat, QuerySolutions,
                        parse_query_results)

from .errors import StoreError
from .redaction import redact, redact_text

_NAMES = {QueryResultsFormat.JSON: "JSON", QueryResultsFormat.XML: "XML", QueryResultsFormat.TSV: "TSV",
          QueryResultsFormat.CSV: "CSV"}


def results_format(media_type: str) -> QueryResultsFormat:
    """The results format ``media_type`` (a Content-Type header) names; JSON when none kg reads."""
    try:
        found = QueryResultsFormat.from_media_type(media_type.strip()) if media_type.strip() else None
    except ValueError:
        found = None
    return found or QueryResultsFormat.JSON


def checked_solutions(body: bytes, media_type: str, form: str, source: str,
                      secrets: Iterable[str] = ()) -> QuerySolutions | QueryBoolean:
    """``body`` read as the SPARQL results of a ``form`` query (SELECT or ASK) from ``source``
    (the endpoint's URL): every row read once to check it, then the answer returned afresh.
    Raises ``StoreError`` naming ``source`` when it is not such results."""
    fmt = results_format(media_type)
    _read_all(body, fmt, form, source, secrets)
    return parse_query_results(body, format=fmt)  # checked whole above: iterating it cannot fail


def binding_rows(body: bytes, media_type: str, source: str, secrets: Iterable[str] = ()) -> list[dict[str, dict]]:
    """A SELECT's rows in the shape of SPARQL JSON bindings (variable -> ``{"type", "value"}``;
    unbound variables left out), checked whole first (see :func:`checked_solutions`)."""
    fmt = results_format(media_type)
    rows = _read_all(body, fmt, "SELECT", source, secrets)
    return [{name: _binding(term) for name, term in row.items()} for row in rows]


def _read_all(body: bytes, fmt: QueryResultsFormat, form: str, source: str,
              secrets: Iterable[str]) -> list[dict[str, Any]]:
    """Every row of ``body`` (none for a boolean), or a StoreError saying what is wrong."""
    name = _NAMES.get(fmt, str(fmt))

    def refused(reason: str) -> StoreError:
        return StoreError(f"{redact(source)} sent an answer that is not SPARQL {name} results: "
                          f"{redact_text(reason, secrets, 200)}")

    if fmt == QueryResultsFormat.CSV:
        raise refused("CSV results lose the kind of each term (an IRI and a string read the same); "
                      "ask the endpoint for JSON, XML or TSV")
    try:
        if fmt == QueryResultsFormat.XML:
            _check_xml_terms(body)
        result = parse_query_results(body, format=fmt)
        if isinstance(result, QueryBoolean):
            rows: list[dict[str, Any]] = []
        else:
            names = [v.value for v in result.variables]
            rows = [{n: term for n, term in zip(names, solution) if term is not None} for solution in result]
    except (SyntaxError, ValueError, UnicodeDecodeError, expat.ExpatError) as err:
        raise refused(str(err) or type(err).__name__) from None
    if form == "ASK" and not isinstance(result, QueryBoolean):
        raise refused("an ASK query was answered with rows, not a boolean")
    if form != "ASK" and isinstance(result, QueryBoolean):
        raise refused(f"a {form} query was answered with a boolean, not rows")
    return rows


def _check_xml_terms(body: bytes) -> None:
    """What pyoxigraph's XML results reader lets pass: a ``<binding>`` holding no term (read as
    unbound) or two, and an empty ``<uri/>`` or ``<bnode/>``. A DTD is refused outright (kg
    reads none, so no entity is ever expanded). Raises ValueError saying which."""
    parser = expat.ParserCreate(namespace_separator=" ")
    open_elements: list[list[Any]] = []  # [local name, terms inside it, its text]

    def start(name: str, attributes: dict) -> None:
        if open_elements and open_elements[-1][0] == "binding":
            open_elements[-1][1] += 1
        open_elements.append([name.rpartition(" ")[2], 0, []])

    def end(name: str) -> None:
        local, terms, text = open_elements.pop()
        if local == "binding" and terms != 1:
            raise ValueError(f"a <binding> holds {terms} terms, not one")
        if local in ("uri", "bnode") and not "".join(text).strip():
            raise ValueError(f"an empty <{local}>")

    def text(data: str) -> None:
        if open_elements:
            open_elements[-1][2].append(data)

    def doctype(*_: Any) -> None:
        raise ValueError("a document type declaration (kg reads no DTD)")

    parser.StartElementHandler, parser.EndElementHandler = start, end
    parser.CharacterDataHandler, parser.StartDoctypeDeclHandler = text, doctype
    parser.Parse(body, True)


def _binding(term: Any) -> dict[str, str]:
    if isinstance(term, NamedNode):
        return {"type": "uri", "value": term.value}
    if isinstance(term, BlankNode):
        return {"type": "bnode", "value": term.value}
    if isinstance(term, Literal):
        return {"type": "literal", "value": term.value, "datatype": term.datatype.value}
    return {"type": "triple", "value": str(term)}


__all__ = ["binding_rows", "checked_solutions", "results_format"]
