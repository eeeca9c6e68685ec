"""The worker's rendering API: answers of rows, a boolean or triples in the negotiated format, held to a size.

Every answer a worker renders goes through :func:`body_answer`, which refuses one past the
request's ``max_bytes`` (422: never a silent truncation). Rows and booleans are written by
pyoxigraph's own results writers, triples by its RDF writers (RDF/XML only after a check that
every value is allowed in XML 1.0, else 406), HTML by :mod:`kg.serve.pages`. The views that a
worker renders (:mod:`kg.serve.views`) use these and nothing private of the worker.
"""

from __future__ import annotations

import json
from typing import Any

from pyoxigraph import QueryResultsFormat, parse_query_results
from pyoxigraph import serialize as serialize_rdf

from ..errors import UsageError
from ..output import xml_safe, xml_safe_rows
from ..vocab import PREFIXES
from . import pages
from .negotiation import CONTENT_TYPES, RDF_FORMATS, RESULT_FORMATS
from .replies import Reply


def _written(data: bytes | None) -> bytes:
    assert data is not None  # pyoxigraph's writers return the bytes when given no output file
    return data


def results_bytes(results: Any, fmt: str) -> bytes:
    """Parsed query results written in a results format (json, xml, csv, tsv)."""
    return _written(results.serialize(format=RESULT_FORMATS[fmt]))


def xml_checked(check: Any, items: list, *args: Any) -> list:
    """``items`` once ``check`` (kg.output's xml_safe or xml_safe_rows) passed them: a value
    XML 1.0 forbids is refused (406) rather than written as XML that is not well-formed."""
    try:
        return list(check(items, *args))
    except UsageError as err:
        raise Reply(406, "not-xml", str(err)) from None


def body_answer(fmt: str, body: bytes, msg: dict) -> dict:
    """The 200 answer ``body`` in ``fmt``; 422 when it is larger than the request's ``max_bytes``."""
    if len(body) > msg["max_bytes"]:
        raise Reply(422, "result-too-large",
                    f"the result is larger than {msg['max_bytes']} bytes; add LIMIT or narrow the query",
                    maxBytes=msg["max_bytes"])
    headers = dict(pages.HTML_HEADERS) if fmt == "html" else {}
    return {"status": 200, "type": CONTENT_TYPES[fmt], "body": body, "headers": headers}


def boolean_answer(value: bool, fmt: str, msg: dict) -> dict:
    """An ASK query's answer."""
    if fmt == "html":
        return body_answer(fmt, pages.ask_page(msg["query"], value), msg)
    parsed = parse_query_results(json.dumps({"head": {}, "boolean": value}).encode(),
                                 format=QueryResultsFormat.JSON)
    return body_answer(fmt, results_bytes(parsed, fmt), msg)


def solutions_answer(variables: list[str], rows: list, fmt: str, msg: dict, base: str) -> dict:
    """A SELECT query's rows (already within the row cap)."""
    if fmt == "html":
        return body_answer(fmt, pages.solutions_page(msg["query"], variables, rows, base, msg.get("page")), msg)
    if fmt == "xml":
        rows = xml_checked(xml_safe_rows, rows, variables)
    # Re-serialise the rows taken (at most max_rows) with pyoxigraph's own writers,
    # through TSV, whose terms are written by pyoxigraph's term serialiser.
    lines = ["\t".join(f"?{v}" for v in variables)]
    for row in rows:
        lines.append("\t".join("" if row[v] is None else str(row[v]) for v in variables))
    parsed = parse_query_results(("\n".join(lines) + "\n").encode("utf-8"), format=QueryResultsFormat.TSV)
    return body_answer(fmt, results_bytes(parsed, fmt), msg)


def triples_answer(triples: list, fmt: str, msg: dict, base: str) -> dict:
    """A CONSTRUCT or DESCRIBE query's triples."""
    if fmt == "html":
        return body_answer(fmt, pages.triples_page(msg["query"], triples, base), msg)
    return body_answer(fmt, serialise(triples, fmt), msg)


def serialise(triples: list, fmt: str) -> bytes:
    """``triples`` in an RDF format (Turtle and RDF/XML with the catalog's prefixes)."""
    if fmt == "rdfxml":
        triples = xml_checked(xml_safe, triples)
    prefixes = {k: v for k, v in PREFIXES.items() if k != "sh"} if fmt in ("turtle", "rdfxml") else None
    return _written(serialize_rdf(triples, format=RDF_FORMATS[fmt], prefixes=prefixes))
