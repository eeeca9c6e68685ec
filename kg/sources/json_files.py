"""JSON documents -> batches of raw catalog items: the strict parser, the shapes, the per-item caps.

Knows bulk catalog files, single per-system export records, JSON Lines streams of
records and edges files. The shape is detected from the content, never from the file
name (``kg.sources.whole`` reads inputs whole with it; ``kg.sources.stream`` a record at a time).

>>> batch = batch_from_document({"schemaVersion": "1", "edges": []}, "edges.json")
>>> batch.kind, batch.header
('edges', {'schemaVersion': '1'})
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from ..errors import SourceError
from ..rdffiles import check_start

BULK = "catalog"
RECORDS = "records"
EDGES = "edges"

EXPECTED = (
    "expected a catalog file ({'schemaVersion', 'generatedAt', 'records': [...]}), "
    "an edges file ({'edges': [...]}), one record ({'id', 'name', 'cells', ...}) "
    "or JSON Lines of records"
)


@dataclass
class Batch:
    """The raw items of one input: ``kind`` is catalog, records or edges."""

    source: str
    kind: str
    items: list[Any]
    header: dict | None = None
    companion: "Batch | None" = None  # the edges of a combined catalog-json document
    note: str | None = None  # what the ingest says about the file's shape (a top-level list)

    def expanded(self) -> list["Batch"]:
        """This batch, then its companion (if any)."""
        return [self] if self.companion is None else [self, self.companion]


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict:
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError(f"duplicate key {key!r}")
        obj[key] = value
    return obj


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"number {text[:40]} is too large")
    return value


MAX_DEPTH = 64  # the catalog needs 6 levels; deeper input is refused, never a RecursionError later


def json_depth(doc: Any) -> int:
    """How deeply lists and objects nest in ``doc`` (a scalar is 0; past ``MAX_DEPTH`` it stops
    at ``MAX_DEPTH + 1``). Level by level: no recursion, and no tuple per value (twice as fast).

    >>> json_depth({"a": [1, {"b": []}]}), json_depth([]), json_depth("x")
    (4, 1, 0)
    """
    depth, level = 0, [doc] if isinstance(doc, (dict, list)) else []
    while level and depth <= MAX_DEPTH:
        depth += 1
        below = []
        for value in level:
            for item in value.values() if isinstance(value, dict) else value:
                if isinstance(item, (dict, list)):
                    below.append(item)
        level = below
    return depth


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:  # beyond Python's limit on digits (4300 by default)
        raise ValueError(f"number {text[:20]}... has {len(text.lstrip('-'))} digits, too many") from None


# The strict rules, shared with the streaming reader (kg.sources.stream).
STRICT_HOOKS: dict[str, Any] = {"object_pairs_hook": _no_duplicate_keys, "parse_constant": _no_constant,
                                "parse_float": _finite, "parse_int": _integer}


class NestedTooDeep(ValueError):
    """A JSON value nests deeper than ``MAX_DEPTH``: the reader may set aside the record it is, or
    read a document again record by record, so that the cap costs only the record that breaks it."""


def parse_json(text: str) -> Any:
    """Strict JSON: no NaN/Infinity, no duplicate keys, no numbers that overflow to infinity,
    no nesting deeper than ``MAX_DEPTH``.

    Raises ``ValueError`` (``json.JSONDecodeError`` for syntax errors, ``NestedTooDeep`` for nesting).

    >>> parse_json('{"a": [1, 2.5, "x"]}')
    {'a': [1, 2.5, 'x']}
    >>> parse_json('[' * 65 + ']' * 65)
    Traceback (most recent call last):
    ...
    kg.sources.json_files.NestedTooDeep: nested more than 64 levels deep
    """
    try:
        doc = json.loads(text, **STRICT_HOOKS)
    except RecursionError:
        raise NestedTooDeep(f"nested more than {MAX_DEPTH} levels deep") from None
    if json_depth(doc) > MAX_DEPTH:
        raise NestedTooDeep(f"nested more than {MAX_DEPTH} levels deep")
    return doc


def decode_json_bytes(data: bytes, source: str) -> str:
    """An input's bytes as text: UTF-8 (a byte order mark dropped), else one line naming the byte."""
    check_start(data, source)
    try:
        return data.decode("utf-8-sig")  # a UTF-8 byte order mark is harmless: drop it
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise SourceError(source, f"is not valid UTF-8 (byte {err.start}, line {line}: "
                                  f"{err.object[err.start:err.start + 1]!r})") from None


def json_problem(err: ValueError) -> str:
    if isinstance(err, json.JSONDecodeError):
        return f"invalid JSON at line {err.lineno} column {err.colno}: {err.msg}"
    return f"invalid JSON: {err}"


# A record of more UTF-8 JSON is set aside (kg.sources.checks). The cap bounds memory (a record is
# parsed, mapped and written whole), it does not judge content: 8 MiB is far beyond a record anyone
# writes by hand (the catalog's largest is about 5 KB; a 1 MiB description goes in), and the ingest's
# batches are weighed by bytes (kg.ingestion.batching.BATCH_BYTES), so a few such records stay bounded too.
MAX_ITEM_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True)
class Oversized:
    """A JSON Lines record too big to read: it stands in for the record (never parsed), and
    the item checks set it aside. ``record_id``: its id as the line's start shows it."""

    size: int
    record_id: str | None


@dataclass(frozen=True)
class TooDeep:
    """A record nested deeper than ``MAX_DEPTH``: it stands in for the record (not kept, perhaps not
    even decodable), and the item checks set it aside. ``record_id``: its id as its start shows it."""

    record_id: str | None


_ID_AT_START = re.compile(r'\s*\{\s*"id"\s*:\s*"([a-z0-9-]{1,200})"')


def id_at(text: str, pos: int = 0) -> str | None:
    """The id of the record whose JSON starts at ``pos`` of ``text``, when its first member shows it."""
    found = _ID_AT_START.match(text, pos)
    return found.group(1) if found else None


def oversized(line: str, limit: int) -> Oversized | None:
    """An ``Oversized`` for a JSON Lines line of more than ``limit`` bytes (None: not too big)."""
    if len(line) * 4 <= limit:  # at most 4 bytes a character: surely small enough, no encoding needed
        return None
    size = len(line.encode("utf-8", "surrogatepass"))
    if size <= limit:
        return None
    return Oversized(size, id_at(line))


def looks_like_json_lines(text: str) -> bool:
    """True when the text has several lines and its first one is a whole object by its braces: JSON Lines
    (read line by line, never parsed whole: a huge line is set aside unread)."""
    first, lines, start = None, 0, 0
    while start < len(text) and lines < 2:  # the first two non-blank lines only, never the whole text
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        line = text[start:end].strip()
        start = end + 1
        if line:
            first = line if first is None else first
            lines += 1
    return lines > 1 and first is not None and first.startswith("{") and first.endswith("}")


def json_lines_batch(text: str, source: str, limit: int = MAX_ITEM_BYTES) -> Batch:
    items: list[Any] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        too_big = oversized(line, limit)
        if too_big is not None:
            items.append(too_big)
            continue
        try:
            items.append(parse_json(line))
        except NestedTooDeep:  # the cap costs this record only
            items.append(TooDeep(id_at(line)))
        except json.JSONDecodeError as err:
            raise SourceError(source, f"invalid JSON Lines at line {number} column {err.colno}: {err.msg}") from None
        except ValueError as err:
            raise SourceError(source, f"invalid JSON Lines at line {number}: {err}") from None
    return Batch(source, RECORDS, items)


_JSON_NAMES = {dict: "an object", list: "a list", str: "a string", int: "a number", float: "a number",
               bool: "true/false", type(None): "null"}


def _shape_problem(doc: Any) -> str:
    """What the document is instead of a catalog, for the error message."""
    if isinstance(doc, dict):
        keys = ", ".join(repr(k) for k in list(doc)[:5]) + (", ..." if len(doc) > 5 else "")
        return f"an object without 'records', 'edges' or 'id' (keys: {keys or 'none'})"
    if isinstance(doc, list):
        return "a list with no record object (an object with an 'id') in it"
    return _JSON_NAMES.get(type(doc), "a value")


KNOWN_MAJORS = (1,)  # the catalog schema's major versions kg reads
_MAJOR = re.compile(r"^\s*[vV]?(\d+)")


def check_schema_version(header: dict, source: str) -> None:
    """Refuse a file whose ``schemaVersion`` has a major version kg does not know (``SourceError``).

    A version without a number in front ("x") is kept as header text: only a version
    that says it is another major one is refused.

    >>> check_schema_version({"schemaVersion": "1.4.0"}, "a.json")
    >>> check_schema_version({"schemaVersion": "2.0.0"}, "a.json")
    Traceback (most recent call last):
    ...
    kg.errors.SourceError: a.json: schemaVersion: '2.0.0' is major version 2; kg reads major version 1 only
    """
    if "schemaVersion" not in header:
        return
    version = header["schemaVersion"]
    if isinstance(version, bool) or not isinstance(version, (str, int, float)):
        raise SourceError(source, f"schemaVersion: must be a version text such as \"1.0.0\", "
                                  f"not {_JSON_NAMES.get(type(version), 'a value')}")
    found = _MAJOR.match(str(version))
    if found is not None and int(found.group(1)[:9]) not in KNOWN_MAJORS:
        known = ", ".join(str(major) for major in KNOWN_MAJORS)
        raise SourceError(source, f"schemaVersion: {str(version)[:40]!r} is major version {int(found.group(1)[:9])}; "
                                  f"kg reads major version {known} only")


def batch_from_document(doc: Any, source: str) -> Batch:
    """Classify a parsed JSON document by its content.

    A document with both ``records`` and ``edges`` (what ``kg export --format
    catalog-json`` writes) is a catalog batch carrying its edges in ``companion``.
    """
    if isinstance(doc, dict):
        if "records" in doc:
            if not isinstance(doc["records"], list):
                raise SourceError(source, f"'records' must be a list, not {_JSON_NAMES.get(type(doc['records']))}")
            if "edges" in doc and not isinstance(doc["edges"], list):
                raise SourceError(source, f"'edges' must be a list, not {_JSON_NAMES.get(type(doc['edges']))}")
            if "edgesHeader" in doc and not isinstance(doc["edgesHeader"], dict):
                raise SourceError(source, "'edgesHeader' must be an object")
            header = {k: v for k, v in doc.items() if k not in ("records", "edges", "edgesHeader")}
            check_schema_version(header, source)
            check_schema_version(doc.get("edgesHeader") or {}, source)
            batch = Batch(source, BULK, doc["records"], header)
            if "edges" in doc:
                batch.companion = Batch(source, EDGES, doc["edges"], doc.get("edgesHeader") or {})
            return batch
        if "edges" in doc and "id" not in doc:
            if not isinstance(doc["edges"], list):
                raise SourceError(source, f"'edges' must be a list, not {_JSON_NAMES.get(type(doc['edges']))}")
            header = {k: v for k, v in doc.items() if k != "edges"}
            check_schema_version(header, source)
            return Batch(source, EDGES, doc["edges"], header)
        if "id" in doc:
            return Batch(source, RECORDS, [doc])
    if isinstance(doc, list) and (not doc or any(isinstance(item, dict) and "id" in item for item in doc)):
        return Batch(source, RECORDS, doc, note=LIST_NOTE if doc else None)  # a bad item is a bad record
    raise shape_error(doc, source)


LIST_NOTE = ("a top-level list of records, not a catalog file ({'schemaVersion', 'records': [...]}): "
             "accepted, without a catalog header")


def shape_error(doc: Any, source: str) -> SourceError:
    """The error of a document that is none of the shapes kg reads."""
    return SourceError(source, f"unknown shape: {_shape_problem(doc)}; {EXPECTED}")
