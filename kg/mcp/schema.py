"""JSON Schemas of the named-query tools, built from each query's header, and the arguments they take.

A query's ``# param:`` lines give each property its JSON type and format, whether it
is required, its default and its description; the ``# title:``, ``# question:`` and
``# returns:`` lines give the tool its description. Arguments arrive as JSON values and
leave as the text :mod:`kg.queries` checks and binds (never pasted into SPARQL).

>>> from kg.queries import load
>>> schema = input_schema(load("search"))
>>> schema["required"], schema["properties"]["tier"]["type"], schema["properties"]["limit"]["default"]
(['text'], 'integer', 50)
>>> query_params(load("search"), {"text": "memory", "tier": 1})
{'text': 'memory', 'tier': '1'}
>>> query_params(load("search"), {"txt": "memory"})
Traceback (most recent call last):
...
kg.errors.QueryError: search has no argument 'txt'; it takes: text, section, tier, limit
"""

from __future__ import annotations

from typing import Any, Mapping

from ..errors import QueryError, safe_text
from ..queries import NamedQuery, Param
from ..sparql.lexer import projected, query_form
from . import paging

#: JSON Schema of each ``# param:`` type of kg.queries.
PARAM_SCHEMAS: dict[str, dict[str, Any]] = {
    "string": {"type": "string"},
    "integer": {"type": "integer"},
    "decimal": {"type": "number"},
    "boolean": {"type": "boolean"},
    # "today" is a date too (the current one, UTC): JSON Schema's format "date" would refuse it
    "date": {"type": "string", "pattern": r"^(today|\d{4}-\d\d-\d\d)$"},
    "iri": {"type": "string", "format": "iri"},
    # an id's form is said by its description and checked by kg.queries, which answers a wrong one with
    # the ids it is close to (a pattern here would make a client refuse it unexplained, in every tool list)
    "system": {"type": "string"},
    "id": {"type": "string"},
    "system-name": {"type": "string"},
    "vendor": {"type": "string"},
    "period": {"type": "string", "pattern": r"^\d{4}(-Q[1-4]|-\d\d(-\d\d(T[0-9:.]+(Z|[+-]\d\d:?\d\d)?)?)?)?$"},
    "limit": {"type": "integer", "minimum": 0},
    # edge types separated by commas (kg.parameters.relation_predicates)
    "relations": {"type": "string", "pattern": r"^[a-z-]+([\s,]+[a-z-]+)*$"},
}
_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,),
}


def is_check(query: NamedQuery) -> bool:
    """Whether the query is a catalog-wide validation rule (``check-*``: every row is a violation)."""
    return query.name.startswith("check-")


def tool_description(query: NamedQuery) -> str:
    """The tool's description: its question (the title is the tool's own ``title``, not said twice);
    checks say so first. What each column means and the query itself are its resource
    (``kg://query/NAME``), not repeated in every tool list."""
    lines = []
    if is_check(query):
        lines.append("Check (a catalog-wide validation rule of kg validate): every row is a violation; "
                     "no rows means the catalog passes.")
    lines.append(query.question or query.title or f"The named query {query.name}.")
    return " ".join(lines)


def default_value(param: Param) -> Any:
    """A parameter's default as a JSON value of its type ("50" -> 50), or None."""
    if param.default is None:
        return None
    if param.type in ("integer", "limit"):
        return int(param.default)
    if param.type == "decimal":
        return float(param.default)
    if param.type == "boolean":
        return param.default.lower() == "true"
    return param.default


def property_schema(param: Param) -> dict[str, Any]:
    """The JSON Schema of one parameter: its type (and format), description and default."""
    schema = dict(PARAM_SCHEMAS[param.type])
    if param.choices:
        schema["enum"] = list(param.choices)
    if param.doc:
        schema["description"] = param.doc
    default = default_value(param)
    if default is not None:
        schema["default"] = default
    return schema


def input_schema(query: NamedQuery) -> dict[str, Any]:
    """The tool's input schema: an object with one property per parameter, no others (``required``
    said when some are)."""
    schema: dict[str, Any] = {"type": "object", "properties": {p.name: property_schema(p) for p in query.params}}
    required = [p.name for p in query.params if not p.optional]
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema


def _coerced(value: Any, expected: str) -> Any:
    """A number or a boolean given as a string ("1", "true"), as the schema's type; else ``value``
    (clients and models often send every argument as text)."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    try:
        if expected == "integer" and text.lstrip("+-").isdigit():
            return int(text)
        if expected == "number":
            number = float(text)
            return int(number) if number.is_integer() and "." not in text and "e" not in text.lower() else number
    except ValueError:
        return value
    if expected == "boolean" and text.lower() in ("true", "false"):
        return text.lower() == "true"
    return value


def _text(param: Param, value: Any, tool: str) -> str:
    """One argument as the text kg.queries checks; a value of the wrong JSON type is an error
    (a number or boolean given as a string is taken as one)."""
    expected = PARAM_SCHEMAS[param.type]["type"]
    value = _coerced(value, expected)
    fits = isinstance(value, _JSON_TYPES[expected]) and not (expected != "boolean" and isinstance(value, bool))
    if not fits:
        raise QueryError(f"{tool}: argument {param.name} must be a JSON {expected} ({param.type}), "
                         f"got {safe_text(repr(value), 80)}")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and expected == "number":
        return str(int(value))
    return str(value)


def query_params(query: NamedQuery, arguments: Mapping[str, Any] | None) -> dict[str, str]:
    """The tool's arguments as kg.queries parameters (text); unknown names, missing
    required ones and values of the wrong type are errors that say what the tool takes."""
    arguments = dict(arguments or {})
    declared = {p.name: p for p in query.params}
    unknown = [name for name in arguments if name not in declared]
    if unknown:
        takes = ", ".join(declared) or "no arguments"
        raise QueryError(f"{query.name} has no argument {', '.join(repr(safe_text(n, 40)) for n in unknown)}; "
                         f"it takes: {takes}")
    params: dict[str, str] = {}
    for param in query.params:
        value = arguments.get(param.name)
        if value is None:
            if not param.optional:
                raise QueryError(f"{query.name} needs the argument {param.name} ({param.type}): {param.doc}")
            continue
        params[param.name] = _text(param, value, query.name)
    return params


SHOW_FULL = "full"  # the show tool's own argument: the whole record, not its summary


def pages(query: NamedQuery) -> bool:
    """Whether the query's tool answers a page of rows (a SELECT; its parameters leave ``offset`` free)."""
    return query_form(query.text) == "SELECT" and all(p.name != paging.OFFSET for p in query.params)


def page_size(query: NamedQuery) -> int:
    """The rows of a page of the query's tool by default: its own limit's default, at most a page."""
    own = query.limit_param
    default = default_value(own) if own is not None else None
    return paging.PAGE_SIZE if default is None else min(default, paging.PAGE_SIZE)


def tool_input_schema(query: NamedQuery) -> dict[str, Any]:
    """:func:`input_schema`, with ``offset`` (and ``limit`` where the query has no limit of its own)
    for a tool that pages, its limit's default at most a page, and the ``full`` argument of the
    ``show`` tool."""
    schema = input_schema(query)
    properties = schema["properties"]
    if pages(query):
        own = query.limit_param
        if own is None:
            properties[paging.LIMIT] = paging.limit_schema(page_size(query))
        else:
            properties[own.name]["default"] = page_size(query)
        properties[paging.OFFSET] = paging.offset_schema()
    if query.name == "show":
        properties[SHOW_FULL] = {
            "type": "boolean", "default": False,
            "description": "true: every triple of the record and what it points to (100,000 characters and "
                           "more); false: the summary"}
    return schema


def rows_schema(columns: list[str] | None = None) -> dict[str, Any]:
    """The JSON Schema of a page of rows (SELECT): one object per row (a property per column, in
    order) and what a caller pages on. Kept short, for every tool list carries it: the answer's
    ``columns``, ``rowCount`` and ``offset`` (the rows' properties, their count and the offset asked
    for) come too, undeclared."""
    row: dict[str, Any] = {"properties": {c: {} for c in columns or ()}}  # each an object: a SELECT row is
    return {"type": "object", "properties": {
        "rows": {"type": "array", "items": row}, **paging.paging_properties(), "notes": _NOTES}, "required": ["rows"]}


_COUNT = {"type": "integer"}
_NOTES = {"type": "array", "items": {"type": "string"}}  # what a name given was taken to mean
_TERM = {"type": ["string", "number", "integer", "boolean"]}
_TRIPLES = {"type": "array", "items": {"type": "object", "properties": {"subject": _TERM, "predicate": _TERM,
                                                                        "object": _TERM},
                                       "required": ["subject", "predicate", "object"]}}


def output_schema(query: NamedQuery) -> dict[str, Any]:
    """The JSON Schema of the tool's result: a page of rows (SELECT: a property per column), a
    boolean (ASK), triples (CONSTRUCT, DESCRIBE) or, for ``show``, its summary unless ``full``;
    ``notes`` say what a name resolved to."""
    form = query_form(query.text)
    if form == "ASK":
        return {"type": "object", "properties": {"boolean": {"type": "boolean"}}, "required": ["boolean"]}
    if query.name == "show":
        return SHOW_OUTPUT
    if form in ("CONSTRUCT", "DESCRIBE"):
        return {"type": "object", "properties": {
            "triples": _TRIPLES, "tripleCount": _COUNT, "notes": _NOTES},
            "required": ["triples", "tripleCount"]}
    return rows_schema(projected(query.text))


_TEXT = {"type": ["string", "null"]}
#: show's answer: its summary (the default) or, with ``full``, every triple.
SHOW_OUTPUT: dict[str, Any] = {"type": "object", "properties": {
    "name": {"type": "string"}, "description": _TEXT, "id": {"type": "string"}, "tier": _COUNT,
    "sections": {"type": "array"}, "pros": _TEXT, "cons": _TEXT, "cells": {"type": "object"},
    "edges": {"type": "object"}, "summary": {"type": "boolean"}, "wholeTripleCount": _COUNT,
    "triples": {"type": "array"}, "tripleCount": _COUNT}}
