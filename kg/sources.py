"""Input files -> batches of raw catalog items. No RDF here.

Reads bulk catalog files, single per-system export records (and folders of
them), JSON Lines streams of records, edges files, and ``-`` for stdin. The
shape is detected from the content, never from the file name.

>>> batch = read_text('{"schemaVersion": "1", "edges": []}', "edges.json")
>>> batch.kind, batch.header
('edges', {'schemaVersion': '1'})
"""

from __future__ import annotations

import codecs
import json
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from .errors import SourceError
from .resources import resource_dir

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
    """How deeply lists and objects nest in ``doc`` (a scalar is 0). Iterative: no recursion."""
    deepest = 0
    stack = [(doc, 1)] if isinstance(doc, (dict, list)) else []
    while stack:
        value, depth = stack.pop()
        if depth > deepest:
            deepest = depth
            if deepest > MAX_DEPTH:
                break
        items = value.values() if isinstance(value, dict) else value
        stack.extend((item, depth + 1) for item in items if isinstance(item, (dict, list)))
    return deepest


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:  # beyond Python's limit on digits (4300 by default)
        raise ValueError(f"number {text[:20]}... has {len(text.lstrip('-'))} digits, too many") from None


def parse_json(text: str) -> Any:
    """Strict JSON: no NaN/Infinity, no duplicate keys, no numbers that overflow to infinity,
    no nesting deeper than ``MAX_DEPTH``.

    Raises ``ValueError`` (``json.JSONDecodeError`` for syntax errors).

    >>> parse_json('{"a": [1, 2.5, "x"]}')
    {'a': [1, 2.5, 'x']}
    >>> parse_json('[' * 65 + ']' * 65)
    Traceback (most recent call last):
    ...
    ValueError: nested more than 64 levels deep
    """
    try:
        doc = json.loads(text, object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constant,
                         parse_float=_finite, parse_int=_integer)
    except RecursionError:
        raise ValueError(f"nested more than {MAX_DEPTH} levels deep") from None
    if json_depth(doc) > MAX_DEPTH:
        raise ValueError(f"nested more than {MAX_DEPTH} levels deep")
    return doc


_BOMS = (
    (b"\x00\x00\xfe\xff", "UTF-32"), (b"\xff\xfe\x00\x00", "UTF-32"),  # before UTF-16: same start
    (b"\xfe\xff", "UTF-16"), (b"\xff\xfe", "UTF-16"),
)


def _check_start(data: bytes, source: str) -> None:
    """Refuse UTF-16/32 text (by its byte order mark, or NUL bytes in the first 4 KiB)."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            raise SourceError(source, f"is {name} (has a {name} byte order mark); expected UTF-8")
    nul = data.find(0, 0, 4096)
    if nul >= 0:
        # raw NUL bytes are never valid JSON text: most likely UTF-16/32 without a byte order mark
        raise SourceError(source, f"holds NUL bytes (byte {nul}): UTF-16 or UTF-32 without a byte "
                                  "order mark? expected UTF-8")


def _decode(data: bytes, source: str) -> str:
    _check_start(data, source)
    try:
        return data.decode("utf-8-sig")  # a UTF-8 byte order mark is harmless: drop it
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise SourceError(source, f"is not valid UTF-8 (byte {err.start}, line {line}: "
                                  f"{err.object[err.start:err.start + 1]!r})") from None


def _json_problem(err: ValueError) -> str:
    if isinstance(err, json.JSONDecodeError):
        return f"invalid JSON at line {err.lineno} column {err.colno}: {err.msg}"
    return f"invalid JSON: {err}"


def _first_line_is_an_object(text: str) -> bool:
    """True when the first non-blank line is a whole JSON object by itself (JSON Lines)."""
    for line in text.splitlines():
        if line.strip():
            if not line.lstrip().startswith("{"):
                return False
            try:
                return isinstance(parse_json(line), dict)
            except ValueError:
                return False
    return False


def _json_lines(text: str, source: str) -> Batch:
    items: list[Any] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            items.append(parse_json(line))
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
            batch = Batch(source, BULK, doc["records"], header)
            if "edges" in doc:
                batch.companion = Batch(source, EDGES, doc["edges"], doc.get("edgesHeader") or {})
            return batch
        if "edges" in doc and "id" not in doc:
            if not isinstance(doc["edges"], list):
                raise SourceError(source, f"'edges' must be a list, not {_JSON_NAMES.get(type(doc['edges']))}")
            header = {k: v for k, v in doc.items() if k != "edges"}
            return Batch(source, EDGES, doc["edges"], header)
        if "id" in doc:
            return Batch(source, RECORDS, [doc])
    if isinstance(doc, list) and (not doc or any(isinstance(item, dict) and "id" in item for item in doc)):
        return Batch(source, RECORDS, doc)  # a list of records; a bad item is a bad record
    raise SourceError(source, f"unknown shape: {_shape_problem(doc)}; {EXPECTED}")


def read_text(text: str, source: str) -> Batch:
    """One input's text -> a batch (JSON document or JSON Lines)."""
    if not text.strip():
        raise SourceError(source, f"is empty; {EXPECTED}")
    try:
        doc = parse_json(text)
    except ValueError as err:
        # several lines, the first one a whole object: JSON Lines (one record per line)
        if isinstance(err, json.JSONDecodeError) and err.lineno > 1 and _first_line_is_an_object(text):
            return _json_lines(text, source)
        raise SourceError(source, _json_problem(err)) from None
    return batch_from_document(doc, source)


def read_bytes(data: bytes, source: str) -> Batch:
    return read_text(_decode(data, source), source)


def _files_in(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in (".json", ".jsonl", ".ndjson"))


def read_paths(paths: list[str]) -> Iterator[Batch]:
    """Every batch of the given paths: files, folders (their .json/.jsonl files) and ``-``."""
    for name in paths:
        if name == "-":
            yield read_bytes(sys.stdin.buffer.read(), "<stdin>")
            continue
        path = Path(name)
        if path.is_dir():
            files = _files_in(path)
            if not files:
                raise SourceError(name, "folder holds no .json or .jsonl files")
            for file in files:
                yield _read_file(file)
        else:
            yield _read_file(path)


def _read_file(path: Path) -> Batch:
    try:
        data = path.read_bytes()
    except OSError as err:
        raise SourceError(str(path), f"cannot be read: {err.strerror or err}") from None
    return read_bytes(data, str(path))


def bundled_paths() -> list[str]:
    """The catalog bundled with kg (CC-BY-4.0): records, the seed record and the edges."""
    data = resource_dir("data")
    return [str(data / "landscape-site.json"), str(data / "seed-record.json"),
            str(data / "landscape.edges.json")]


# ---------------------------------------------------------------------------
# Streaming: a large bulk catalog file, one record at a time.
#
# ``scan_catalog`` reads the file once with the strict parser (so a file that
# ``read_text`` would refuse is refused before anything is written) and keeps only
# its header and counts; ``CatalogStream.items`` then reads it again, one record at a
# time. Memory stays bounded by the largest record, not the file.

STREAM_MIN_BYTES = 64 * 1024 * 1024  # kg ingest streams catalog files at least this large
_READ_BYTES = 1 << 20
_BLANK = re.compile(r"[ \t\n\r]*")
_STRICT = json.JSONDecoder(object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constant,
                           parse_float=_finite, parse_int=_integer)
_PLAIN = json.JSONDecoder()  # the second reading: the first one proved the strict rules hold
_ITEM = object()      # key of an item of the records list
_RECORDS = object()   # value announcing that the records list starts


class _NotCatalog(Exception):
    """The file is not one JSON object with a 'records' list: the whole-file reader takes it."""


class _Window:
    """Decoded text of a UTF-8 file, a window at a time, decoded one JSON value at a time.

    Errors carry the line and column in the whole file, as ``read_text`` gives them.
    """

    def __init__(self, path: Path, source: str, decoder: json.JSONDecoder) -> None:
        self.source = source
        self.decoder = decoder
        try:
            self.file = open(path, "rb")
        except OSError as err:
            raise SourceError(source, f"cannot be read: {err.strerror or err}") from None
        self.utf8 = codecs.getincrementaldecoder("utf-8-sig")()
        self.text = ""
        self.pos = 0
        self.eof = False
        self.line = 1        # line (in the file) of text[0]
        self.column = 0      # characters before text[0] on that line
        self.bytes_read = 0
        self.newlines_read = 0

    def close(self) -> None:
        self.file.close()

    def read(self, size: int = _READ_BYTES) -> None:
        """Drop the consumed text and append the next ``size`` bytes of the file."""
        consumed = self.text[:self.pos]
        newlines = consumed.count("\n")
        if newlines:
            self.line += newlines
            self.column = len(consumed) - consumed.rfind("\n") - 1
        else:
            self.column += len(consumed)
        try:
            data = self.file.read(size)
        except OSError as err:
            raise SourceError(self.source, f"cannot be read: {err.strerror or err}") from None
        if self.bytes_read == 0:
            _check_start(data, self.source)
        try:
            decoded = self.utf8.decode(data, final=not data)
        except UnicodeDecodeError as err:
            line = self.newlines_read + data.count(b"\n", 0, max(err.start, 0)) + 1
            raise SourceError(self.source, f"is not valid UTF-8 (byte {self.bytes_read + err.start}, line {line}: "
                                           f"{err.object[err.start:err.start + 1]!r})") from None
        self.bytes_read += len(data)
        self.newlines_read += data.count(b"\n")
        self.eof = not data
        self.text = self.text[self.pos:] + decoded
        self.pos = 0

    def peek(self) -> str:
        """The next character that is not white space ('' at the end of the file)."""
        while True:
            self.pos = _BLANK.match(self.text, self.pos).end()
            if self.pos < len(self.text) or self.eof:
                return self.text[self.pos:self.pos + 1]
            self.read()

    def fail(self, message: str, pos: int | None = None) -> SourceError:
        err = json.JSONDecodeError(message, self.text, self.pos if pos is None else pos)
        line = self.line + err.lineno - 1
        column = err.colno + self.column if err.lineno == 1 else err.colno
        return SourceError(self.source, f"invalid JSON at line {line} column {column}: {err.msg}")

    def value(self) -> Any:
        """Decode the next JSON value, reading more of the file while it is cut off."""
        self.peek()
        while True:
            try:
                value, end = self.decoder.raw_decode(self.text, self.pos)
            except json.JSONDecodeError as err:
                cut_off = err.pos >= len(self.text) - 12 or err.msg.startswith("Unterminated string")
                if cut_off and not self.eof:
                    self.read(max(_READ_BYTES, len(self.text) - self.pos))  # doubles: linear in the value
                    continue
                raise self.fail(err.msg, err.pos) from None
            except RecursionError:
                raise SourceError(self.source, f"invalid JSON: nested more than {MAX_DEPTH} levels deep") from None
            except ValueError as err:  # the strict rules: duplicate keys, NaN, huge numbers
                raise SourceError(self.source, _json_problem(err)) from None
            if end == len(self.text) and not self.eof:  # a number may go on in the next window
                self.read(max(_READ_BYTES, len(self.text) - self.pos))
                continue
            self.pos = end
            return value

    def take(self, char: str, message: str) -> None:
        if self.peek() != char:
            raise self.fail(message)
        self.pos += 1


def _members(window: _Window) -> Iterator[tuple[Any, Any]]:
    """The top-level object's members as (key, value); a 'records' list comes as
    ("records", _RECORDS) and then (_ITEM, item) per item. ``_NotCatalog`` when the
    file is not a single JSON object."""
    if window.peek() != "{":
        raise _NotCatalog
    window.pos += 1
    if window.peek() == "}":
        raise _NotCatalog
    seen: set[str] = set()
    while True:
        if window.peek() != '"':
            raise window.fail("Expecting property name enclosed in double quotes")
        key = window.value()
        window.take(":", "Expecting ':' delimiter")
        if key in seen:
            raise SourceError(window.source, f"invalid JSON: duplicate key {key!r}")
        seen.add(key)
        if key == "records" and window.peek() == "[":
            window.pos += 1
            yield key, _RECORDS
            if window.peek() == "]":
                window.pos += 1
            else:
                while True:
                    yield _ITEM, window.value()
                    after = window.peek()
                    window.pos += 1
                    if after == "]":
                        break
                    if after != ",":
                        raise window.fail("Expecting ',' delimiter", window.pos - 1)
        else:
            yield key, window.value()
        after = window.peek()
        window.pos += 1
        if after == "}":
            break
        if after != ",":
            raise window.fail("Expecting ',' delimiter", window.pos - 1)
    if window.peek():
        raise _NotCatalog  # more after the object: JSON Lines, or an error the whole-file reader names


def _stamp(path: Path) -> tuple[int, int]:
    info = path.stat()
    return info.st_size, info.st_mtime_ns


@dataclass
class CatalogStream:
    """A bulk catalog file whose records are read one at a time (see ``scan_catalog``).

    It stands in for a ``Batch`` of kind catalog: ``items`` reads the file again on
    each use and yields its records in order; ``count`` is how many there are.
    """

    source: str
    path: Path
    header: dict
    count: int
    stamp: tuple[int, int]
    companion: Batch | None = None
    kind: str = BULK

    def expanded(self) -> list[Any]:
        """This stream, then its companion edges batch (if any)."""
        return [self] if self.companion is None else [self, self.companion]

    @property
    def items(self) -> Iterator[Any]:
        return self._items()

    def _items(self) -> Iterator[Any]:
        try:
            changed = _stamp(self.path) != self.stamp
        except OSError as err:
            raise SourceError(self.source, f"cannot be read: {err.strerror or err}") from None
        if changed:
            raise SourceError(self.source, "changed while it was being read")
        window = _Window(self.path, self.source, _PLAIN)
        try:
            for key, value in _members(window):
                if key is _ITEM:
                    yield value
        finally:
            window.close()


def scan_catalog(path: str | Path, source: str | None = None) -> CatalogStream | None:
    """Check a bulk catalog file without holding it in memory; None when it is not one.

    The checks are those of ``read_text`` (strict JSON, nesting depth, the header's
    shape), so the same file is refused with the same ``SourceError`` either way.
    """
    path = Path(path)
    source = source or str(path)
    try:
        stamp = _stamp(path)
    except OSError as err:
        raise SourceError(source, f"cannot be read: {err.strerror or err}") from None
    window = _Window(path, source, _STRICT)
    others: dict[str, Any] = {}
    count, listed = 0, False
    try:
        for key, value in _members(window):
            if key is _ITEM:
                if json_depth(value) > MAX_DEPTH - 2:  # the document nests two levels above a record
                    raise SourceError(source, f"invalid JSON: nested more than {MAX_DEPTH} levels deep")
                count += 1
            elif value is _RECORDS:
                listed = True
            else:
                if json_depth(value) > MAX_DEPTH - 1:
                    raise SourceError(source, f"invalid JSON: nested more than {MAX_DEPTH} levels deep")
                others[key] = value
    except _NotCatalog:
        return None
    finally:
        window.close()
    if not listed:
        return None
    batch = batch_from_document({**others, "records": []}, source)
    return CatalogStream(source, path, batch.header or {}, count, stamp, batch.companion)


def read_inputs(paths: list[str], *, stream_min_bytes: int = STREAM_MIN_BYTES) -> list[Batch | CatalogStream]:
    """Every input of ``paths`` like ``read_paths``, but bulk catalog files of at least
    ``stream_min_bytes`` are checked by ``scan_catalog`` and left on disk (stdin never is)."""
    inputs: list[Batch | CatalogStream] = []
    for name in paths:
        path = Path(name)
        if name == "-" or not path.is_dir():
            files = [path]
        else:
            files = _files_in(path)
            if not files:
                raise SourceError(name, "folder holds no .json or .jsonl files")
        for file in files:
            stream = None
            if name != "-" and file.is_file() and file.stat().st_size >= stream_min_bytes:
                stream = scan_catalog(file)
            inputs.extend([stream] if stream is not None else read_paths([str(file) if name != "-" else "-"]))
    return inputs
