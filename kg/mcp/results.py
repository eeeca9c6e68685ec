"""Tool results from query workers' answers: rows as objects, graphs as triples, errors as QueryError.

A worker (:mod:`kg.serve.worker`) answers a SELECT or ASK as SPARQL 1.1 JSON results and a
CONSTRUCT or DESCRIBE as N-Triples; here they become plain JSON: a list of row objects
(numbers and booleans typed by :func:`kg.output.plain_json`, unbound as ``null``), a
boolean, or a list of ``{subject, predicate, object}`` triples. An error answer (refused,
malformed, too large) becomes a :class:`~kg.errors.QueryError` with the worker's message.

>>> body = b'{"head": {"vars": ["id", "tier"]}, "results": {"bindings": [{"id": {"type": "literal", '
>>> body += b'"value": "mem0"}, "tier": {"type": "literal", "value": "1", "datatype": '
>>> body += b'"http://www.w3.org/2001/XMLSchema#integer"}}]}}'
>>> decode({"status": 200, "type": "application/sparql-results+json", "body": body})
{'columns': ['id', 'tier'], 'rows': [{'id': 'mem0', 'tier': 1}], 'rowCount': 1}
>>> decode({"status": 400, "type": "application/json", "body": b'{"error": "refused", "message": "no"}'})
Traceback (most recent call last):
...
kg.errors.QueryError: refused: no
"""

from __future__ import annotations

import json
from typing import Any

from pyoxigraph import QueryBoolean, QueryResultsFormat, QuerySolutions, RdfFormat, parse, parse_query_results

from ..errors import QueryError, safe_text
from ..output import plain_json

#: The formats a worker is asked for: SPARQL JSON results for rows, N-Triples for graphs.
SOLUTIONS_FORMAT = "json"
GRAPH_FORMAT = "ntriples"
_SOLUTIONS_TYPE = "application/sparql-results+json"


def error_message(reply: dict) -> str:
    """The message of a worker's error answer (its JSON body), with its error code."""
    try:
        document = json.loads(reply.get("body") or b"{}")
    except ValueError:
        document = {}
    error, message = document.get("error"), document.get("message")
    text = message or f"the query failed (status {reply.get('status')})"
    return safe_text(f"{error}: {text}" if error else text, 600)


def rows(solutions: QuerySolutions, limit: int | None = None) -> dict[str, Any]:
    """SELECT results as columns and row objects (at most ``limit`` rows)."""
    columns = [v.value for v in solutions.variables]
    out: list[dict[str, Any]] = []
    for solution in solutions:
        if limit is not None and len(out) >= limit:
            break
        out.append({name: plain_json(solution[name]) for name in columns})
    return {"columns": columns, "rows": out, "rowCount": len(out)}


def triples(body: bytes) -> dict[str, Any]:
    """N-Triples as a list of ``{subject, predicate, object}`` objects (literals typed as in rows)."""
    out = [{"subject": plain_json(t.subject), "predicate": plain_json(t.predicate), "object": plain_json(t.object)}
           for t in parse(body, format=RdfFormat.N_TRIPLES)]
    return {"triples": out, "tripleCount": len(out)}


def decode(reply: dict, limit: int | None = None) -> dict[str, Any]:
    """A worker's answer as a tool result (a JSON object); an error answer raises QueryError."""
    if reply.get("status") != 200:
        raise QueryError(error_message(reply))
    body = reply.get("body") or b""
    if reply.get("type", "").startswith(_SOLUTIONS_TYPE):
        result = parse_query_results(body, format=QueryResultsFormat.JSON)
        if isinstance(result, QueryBoolean):
            return {"boolean": bool(result)}
        return rows(result, limit)
    return triples(body)
