"""Writing query results: one place for every command that prints rows or graphs.

Row formats (``ROW_FORMATS``):

* ``table``: aligned columns for a terminal; long or multi-line values are shortened and
  control characters escaped, IRIs of well-known vocabularies written as ``kg:MCP``;
* ``csv``: RFC 4180 with a header line, values as plain text (as in SPARQL 1.1 CSV results);
* ``tsv``: W3C SPARQL 1.1 Query Results TSV, as the endpoint answers ``text/tab-separated-values``:
  a header of ``?name`` s, every term in its Turtle form (``<iri>``, ``"text"``, ``"fr"@fr``;
  integers, decimals and booleans bare), an unbound value as an empty field;
* ``tab``: tab-separated plain text with a header line (for ``cut`` and ``awk``); tab,
  newline, carriage return and backslash inside a value are written as ``\\t``, ``\\n``,
  ``\\r``, ``\\\\``;
* ``json``: an array of objects, one per row, column name -> value (sqlite-utils style):
  numbers and booleans typed (``xsd:integer`` -> int, ``xsd:decimal``/``double``/``float``
  -> float, ``xsd:boolean`` -> bool), everything else as its text, unbound as ``null``;
* ``jsonl``: the same objects, one JSON object a line;
* ``sparql-json``: W3C SPARQL 1.1 Query Results JSON
  (``{"head": {"vars": ...}, "results": {"bindings": ...}}``), every term with its type.

Graph formats (``GRAPH_FORMATS``, for CONSTRUCT and DESCRIBE): ``turtle`` (with the
project's prefixes), ``jsonld``, ``ntriples``, ``rdfxml``.

Rows may be pyoxigraph ``QuerySolutions`` or any iterable of dicts mapping a column name
to a pyoxigraph term or a plain Python value (str, int, float, bool, None).

>>> import io
>>> out = io.StringIO()
>>> write_rows([{"id": "mem0", "stars": 41200}], out, "csv")
1
>>> out.getvalue().splitlines()
['id,stars', 'mem0,41200']
>>> out = io.StringIO()
>>> _ = write_rows([{"id": Literal("mem0"), "tier": Literal("1", datatype=XSD.integer)}], out, "json")
>>> print(out.getvalue(), end="")
[{"id": "mem0", "tier": 1}]
"""

from __future__ import annotations

import csv
import json
import math
import re
from typing import Any, Iterable, Iterator, Mapping, Sequence, TextIO, TypeVar

from pyoxigraph import (
    BlankNode, Literal, NamedNode, Quad, QueryBoolean, QuerySolutions, QueryTriples, RdfFormat, Triple, serialize,
)

from .errors import UsageError, safe_text
from .vocab import PREFIXES, XSD

ROW_FORMATS = ("table", "csv", "tsv", "tab", "json", "jsonl", "sparql-json")
GRAPH_FORMATS = ("turtle", "jsonld", "ntriples", "rdfxml")
_RDF_FORMATS = {"turtle": RdfFormat.TURTLE, "jsonld": RdfFormat.JSON_LD, "ntriples": RdfFormat.N_TRIPLES,
                "rdfxml": RdfFormat.RDF_XML}
_XSD_STRING = XSD.string.value
_INTEGERS = frozenset(XSD.term(name).value for name in (
    "integer", "int", "long", "short", "byte", "nonNegativeInteger", "positiveInteger", "nonPositiveInteger",
    "negativeInteger", "unsignedInt", "unsignedLong", "unsignedShort", "unsignedByte"))
_FLOATS = frozenset(XSD.term(name).value for name in ("decimal", "double", "float"))
TABLE_WIDTH = 60  # widest column shown in a table

# The analysis projections as graph files (written by kg.analyse.formats): their names,
# formats and file extensions, declared here so that the command line knows them without
# loading NetworkX.
PROJECTIONS = ("systems", "vendors", "licenses", "protocols")
PROJECTION_FORMATS = ("graphml", "gexf", "node-link")
PROJECTION_EXTENSIONS = {"graphml": (".graphml",), "gexf": (".gexf",)}


# ---------------------------------------------------------------------------
# Rows


def _columns(rows: Any, variables: Sequence[str] | None) -> tuple[list[str], Iterable[Mapping[str, Any]]]:
    """Column names and an iterable of dicts, whatever the input."""
    if variables is None and hasattr(rows, "variables"):
        variables = [v.value for v in rows.variables]
    if isinstance(rows, QuerySolutions) or (hasattr(rows, "variables") and not isinstance(rows, (list, tuple))):
        names = list(variables or [])
        return names, ({n: v for n, v in zip(names, row) if v is not None} for row in rows)
    rows = list(rows)
    if variables is None:
        seen: dict[str, None] = {}
        for row in rows:
            seen.update(dict.fromkeys(row))
        variables = list(seen)
    return list(variables), rows


def text(value: Any) -> str:
    """The plain text of a term or value ('' for None), as CSV and TSV write it.

    >>> text(NamedNode("https://example.org/x")), text(Literal("3", datatype=XSD.integer)), text(True)
    ('https://example.org/x', '3', 'true')
    """
    if value is None:
        return ""
    if isinstance(value, (NamedNode, Literal)):
        return value.value
    if isinstance(value, BlankNode):
        return f"_:{value.value}"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else ("NaN" if math.isnan(value) else
                                                           ("INF" if value > 0 else "-INF"))
    return str(value)


def term_json(value: Any) -> dict[str, str] | None:
    """One RDF term (or Python value) as a SPARQL 1.1 JSON results binding.

    >>> term_json(Literal("Mem0"))
    {'type': 'literal', 'value': 'Mem0'}
    >>> term_json(41200)
    {'type': 'literal', 'value': '41200', 'datatype': 'http://www.w3.org/2001/XMLSchema#integer'}
    """
    if value is None:
        return None
    if isinstance(value, NamedNode):
        return {"type": "uri", "value": value.value}
    if isinstance(value, BlankNode):
        return {"type": "bnode", "value": value.value}
    if isinstance(value, Literal):
        out = {"type": "literal", "value": value.value}
        if value.language:
            out["xml:lang"] = value.language
        elif value.datatype.value != _XSD_STRING:
            out["datatype"] = value.datatype.value
        return out
    if isinstance(value, Triple):
        return {"type": "triple", "value": {k: term_json(getattr(value, k))  # type: ignore[dict-item]
                                            for k in ("subject", "predicate", "object")}}
    if isinstance(value, bool):
        return {"type": "literal", "value": text(value), "datatype": XSD.boolean.value}
    if isinstance(value, int):
        return {"type": "literal", "value": str(value), "datatype": XSD.integer.value}
    if isinstance(value, float):
        return {"type": "literal", "value": text(value), "datatype": XSD.double.value}
    return {"type": "literal", "value": str(value)}


def plain_json(value: Any) -> Any:
    """One term (or Python value) as a plain JSON value: numbers and booleans typed,
    everything else as its text.

    >>> plain_json(Literal("3", datatype=XSD.integer)), plain_json(Literal("0.5", datatype=XSD.decimal))
    (3, 0.5)
    >>> plain_json(Literal("true", datatype=XSD.boolean)), plain_json(NamedNode("https://example.org/x"))
    (True, 'https://example.org/x')
    """
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Literal) and not value.language:
        datatype = value.datatype.value
        try:
            if datatype in _INTEGERS:
                return int(value.value)
            if datatype in _FLOATS:
                number = float(value.value)
                return number if math.isfinite(number) else value.value  # JSON has no NaN/INF
        except ValueError:
            return value.value  # an ill-typed literal stays text
        if datatype == XSD.boolean.value and value.value in ("true", "false", "1", "0"):
            return value.value in ("true", "1")
    return text(value)


# an IRI shown as prefix:local where its local part is letters, digits, "-" and "_" (\\w is
# str.isalnum() or "_"): the first namespace that allows it, as the alternatives are tried in order
_PREFIX_NAMES = list(PREFIXES)
_PREFIXED = re.compile("(?:" + "|".join(f"({re.escape(iri)})" for iri in PREFIXES.values()) + r")[\w-]+\Z")


def _compact(value: Any) -> str:
    """Text for a table cell: known namespaces as prefixes, one line, escaped, shortened.

    >>> _compact(NamedNode(PREFIXES["kg"] + "System")), _compact(NamedNode(PREFIXES["kg"] + "a/b"))
    ('kg:System', 'https://w3id.org/agent-landscape/ontology#a/b')
    """
    shown = text(value)
    if isinstance(value, NamedNode):
        found = _PREFIXED.match(shown)  # one pass in C: a table of 45,600 rows spent 1 s here
        if found is not None and found.lastindex is not None:
            shown = f"{_PREFIX_NAMES[found.lastindex - 1]}:{shown[found.end(found.lastindex):]}"
    plain = shown.isprintable() and "  " not in shown and shown[:1] != " " and shown[-1:] != " "
    if plain and len(shown) <= TABLE_WIDTH:  # most cells: nothing to escape, fold or cut
        return shown
    line = shown if plain else " ".join(shown.split())  # one line: runs of white space as one space
    # escaped after the cut (escaping only lengthens): the cell shows TABLE_WIDTH characters at most
    shown = safe_text(line[:TABLE_WIDTH], limit=TABLE_WIDTH)
    return shown if len(line) <= TABLE_WIDTH and len(shown) <= TABLE_WIDTH else shown[:TABLE_WIDTH - 1] + "…"


def _is_number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return True
    return isinstance(value, Literal) and value.datatype.value in (
        XSD.integer.value, XSD.decimal.value, XSD.double.value, XSD.float.value)


def write_rows(rows: Any, out: TextIO, fmt: str = "table", variables: Sequence[str] | None = None) -> int:
    """Write rows in one of ``ROW_FORMATS``; returns the number of rows written."""
    if fmt not in ROW_FORMATS:
        raise UsageError(f"cannot write rows as {fmt}; choose one of {', '.join(ROW_FORMATS)}")
    names, items = _columns(rows, variables)
    if fmt == "sparql-json":
        bindings = [{n: term_json(row[n]) for n in names if row.get(n) is not None} for row in items]
        json.dump({"head": {"vars": names}, "results": {"bindings": bindings}}, out, ensure_ascii=False, indent=1)
        out.write("\n")
        return len(bindings)
    if fmt in ("json", "jsonl"):
        return _plain_objects(names, items, out, lines=fmt == "jsonl")
    if fmt == "csv":
        writer = csv.writer(out, lineterminator="\r\n")
        writer.writerow(names)
        count = 0
        for row in items:
            writer.writerow([text(row.get(n)) for n in names])
            count += 1
        return count
    if fmt in ("tsv", "tab"):
        cell = _w3c_tsv if fmt == "tsv" else _tab
        out.write("\t".join(f"?{n}" if fmt == "tsv" else n for n in names) + "\n")
        count = 0
        for row in items:
            out.write("\t".join(cell(row.get(n)) for n in names) + "\n")
            count += 1
        return count
    return _table(names, list(items), out)


def _plain_objects(names: list[str], items: Iterable[Mapping[str, Any]], out: TextIO, *, lines: bool) -> int:
    """Rows as JSON objects: an array (streamed, a row a line) or JSON Lines."""
    count = 0
    for row in items:
        line = json.dumps({n: plain_json(row.get(n)) for n in names}, ensure_ascii=False)
        if lines:
            out.write(line + "\n")
        else:
            out.write(("[" if count == 0 else ",\n ") + line)
        count += 1
    if not lines:
        out.write("]\n" if count else "[]\n")
    return count


def _tab(value: Any) -> str:
    """A value as plain text for ``tab``, its tabs, line breaks and backslashes escaped."""
    return text(value).replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


_BARE = {XSD.integer.value: re.compile(r"[+-]?[0-9]+"), XSD.decimal.value: re.compile(r"[+-]?[0-9]*\.[0-9]+"),
         XSD.boolean.value: re.compile(r"true|false")}  # written bare in Turtle, so in SPARQL TSV


def term(value: Any) -> Any:
    """A plain Python value as the RDF term SPARQL results give it (a term or None unchanged).

    >>> [str(term(value)) for value in (3, "x", None)]
    ['"3"^^<http://www.w3.org/2001/XMLSchema#integer>', '"x"', 'None']
    """
    if value is None or isinstance(value, (NamedNode, BlankNode, Literal, Triple)):
        return value
    binding = term_json(value)
    assert binding is not None
    return Literal(binding["value"], datatype=NamedNode(binding["datatype"])) if "datatype" in binding \
        else Literal(binding["value"])


def _w3c_tsv(value: Any) -> str:
    """A value as a field of W3C SPARQL TSV: its Turtle form ('' when unbound).

    >>> _w3c_tsv(Literal("a\\tb")), _w3c_tsv(7), _w3c_tsv(NamedNode("https://e.org/x")), _w3c_tsv(None)
    ('"a\\\\tb"', '7', '<https://e.org/x>', '')
    """
    value = term(value)
    if value is None:
        return ""
    if isinstance(value, Literal) and not value.language:
        bare = _BARE.get(value.datatype.value)
        if bare is not None and bare.fullmatch(value.value):
            return value.value
    return str(value).replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")  # N-Triples leaves a tab


def _table(names: list[str], rows: list[Mapping[str, Any]], out: TextIO) -> int:
    cells = [[_compact(row.get(n)) for n in names] for row in rows]
    widths = [max([len(n)] + [len(r[i]) for r in cells]) for i, n in enumerate(names)]
    numeric = [bool(rows) and all(row.get(n) is None or _is_number(row.get(n)) for row in rows) for n in names]

    def line(values: list[str]) -> str:
        return "  ".join(v.rjust(w) if num else v.ljust(w)
                         for v, w, num in zip(values, widths, numeric)).rstrip()

    out.write(line(names) + "\n")
    out.write("  ".join("-" * w for w in widths) + "\n")
    for values in cells:
        out.write(line(values) + "\n")
    out.write(f"({len(rows)} row{'s' if len(rows) != 1 else ''})\n")
    return len(rows)


# ---------------------------------------------------------------------------
# Booleans and graphs


def write_boolean(value: bool, out: TextIO, fmt: str = "table") -> None:
    """An ASK answer: ``true``/``false``; ``json``/``jsonl`` write a JSON boolean,
    ``sparql-json`` the W3C results document."""
    if fmt == "sparql-json":
        json.dump({"head": {}, "boolean": bool(value)}, out)
        out.write("\n")
    elif fmt in ROW_FORMATS:  # "true"/"false" is also the JSON text of the boolean
        out.write(("true" if value else "false") + "\n")
    else:
        raise UsageError(f"an ASK query answers true or false; --format {fmt} does not apply")


def write_graph(triples: Iterable[Triple], out: TextIO, fmt: str = "turtle") -> int:
    """Distinct triples as Turtle (with the project's prefixes), JSON-LD or N-Triples."""
    if fmt not in GRAPH_FORMATS:
        raise UsageError(f"a CONSTRUCT or DESCRIBE query returns a graph; use --format "
                         f"{', '.join(GRAPH_FORMATS)}, not {fmt}")
    distinct = list(dict.fromkeys(xml_safe(triples) if fmt == "rdfxml" else triples))
    kwargs: dict[str, Any] = {"format": _RDF_FORMATS[fmt]}
    if fmt == "turtle":
        kwargs["prefixes"] = _used_prefixes(distinct)
    data = serialize(distinct, None, **kwargs) or b""
    out.write(data.decode("utf-8"))
    return len(distinct)


# XML 1.0 allows tab, newline, carriage return and U+0020 upwards, less the surrogates and
# U+FFFE/U+FFFF. A literal with any other character cannot be written as RDF/XML or SPARQL
# XML results: the output would not be well-formed XML (not even as a character
# reference: &#x1; is forbidden too), and any private encoding would hand the reader a
# different value. So such a write is refused, and the formats that can carry the value
# (Turtle, N-Triples, JSON-LD; JSON, CSV, TSV results) are named.
_T = TypeVar("_T", Triple, Quad)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_forbidden(term: Any) -> str | None:
    """The first character of a literal's value (or of a string) that XML 1.0 forbids, as
    ``U+`` and four hex digits; None when there is none (IRIs, blank nodes and numbers never hold one).

    >>> xml_forbidden(Literal("bell\x07")), xml_forbidden("tab\\tand newline\\n"), xml_forbidden(None)
    ('U+0007', None, None)
    """
    if isinstance(term, Literal):
        term = term.value
    if not isinstance(term, str):
        return None
    bad = _NOT_XML.search(term)
    return f"U+{ord(bad.group()):04X}" if bad else None


def xml_safe_rows(rows: Iterable[Any], variables: Sequence[str]) -> Iterator[Any]:
    """``rows`` (each ``row[name]`` a term or None) unchanged, checked on the way for SPARQL
    XML results: a value holding a character XML 1.0 forbids raises :class:`UsageError`
    naming the variable and the row (counted from 1).

    >>> list(xml_safe_rows([{"x": Literal("ok")}, {"x": Literal("a\x01b")}], ["x"]))
    Traceback (most recent call last):
    ...
    kg.errors.UsageError: cannot write SPARQL XML results: ?x in row 2 holds U+0001, which XML 1.0 forbids; ask for JSON, CSV or TSV results instead
    """
    for number, row in enumerate(rows, 1):
        for name in variables:
            bad = xml_forbidden(row[name])
            if bad:
                raise UsageError(f"cannot write SPARQL XML results: ?{name} in row {number} holds {bad}, which "
                                 "XML 1.0 forbids; ask for JSON, CSV or TSV results instead")
        yield row


def xml_safe(triples: Iterable[_T], what: str = "RDF/XML") -> Iterator[_T]:
    """``triples`` unchanged, checked on the way: a literal holding a character XML 1.0
    forbids raises :class:`UsageError` naming the triple (before anything is written for it).

    >>> list(xml_safe([Triple(NamedNode("https://e.org/s"), NamedNode("https://e.org/p"), Literal("bell\x07"))]))
    Traceback (most recent call last):
    ...
    kg.errors.UsageError: cannot write RDF/XML: the value of <https://e.org/s> <https://e.org/p> holds U+0007, which XML 1.0 forbids; write Turtle, N-Triples or JSON-LD instead
    """
    for triple in triples:
        bad = xml_forbidden(triple.object)
        if bad:
            raise UsageError(f"cannot write {what}: the value of {triple.subject} {triple.predicate} holds "
                             f"{bad}, which XML 1.0 forbids; write Turtle, N-Triples or JSON-LD instead")
        yield triple


def _used_prefixes(triples: list[Triple]) -> dict[str, str]:
    """The project's prefixes that some IRI (or literal datatype) of ``triples`` starts with."""
    iris = set()
    for triple in triples:
        for term in (triple.subject, triple.predicate, triple.object):
            if isinstance(term, NamedNode):
                iris.add(term.value)
            elif isinstance(term, Literal):
                iris.add(term.datatype.value)
    return {prefix: ns for prefix, ns in PREFIXES.items() if any(iri.startswith(ns) for iri in iris)}


def write_result(result: Any, out: TextIO, fmt: str | None = None) -> int | None:
    """Write any query result: rows, an ASK answer, or a graph; ``fmt`` None picks the default
    (``table`` for rows and booleans, ``turtle`` for graphs). Returns the rows/triples written."""
    if isinstance(result, (QueryBoolean, bool)):
        write_boolean(bool(result), out, fmt or "table")
        return None
    if isinstance(result, QueryTriples):
        return write_graph(result, out, fmt or "turtle")
    if fmt in GRAPH_FORMATS:
        raise UsageError(f"a SELECT query returns rows; use --format {', '.join(ROW_FORMATS)}, not {fmt}")
    return write_rows(result, out, fmt or "table")
