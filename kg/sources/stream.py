"""Large JSON inputs read one record at a time, with the whole-file reader's checks.

``scan_catalog`` (a bulk catalog file), ``scan_list`` (a top-level list of
records) and ``scan_lines`` (JSON Lines) read the file once with the strict parser
(so a file that ``read_text`` would refuse is refused before anything is written)
and keep only its header and counts; ``CatalogStream.items`` then reads it again,
one record at a time. Memory stays bounded by the largest record, not the file.
``scan_whole`` does the same for a small file read whole, so that many of them
(a folder) are never all in memory at once.
"""

from __future__ import annotations

import codecs
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Iterator

from ..errors import SourceError
from .json_files import (BULK, LIST_NOTE, MAX_DEPTH, MAX_ITEM_BYTES, RECORDS, STRICT_HOOKS, Batch, NestedTooDeep,
                         TooDeep, batch_from_document, check_start, id_at, json_depth, json_problem, oversized,
                         parse_json, read_file, shape_error)

STREAM_MIN_BYTES = 64 * 1024 * 1024  # kg ingest streams catalog files at least this large
_READ_BYTES = 1 << 20
_BLANK = re.compile(r"[ \t\n\r]*")
_STRING_OR_BRACKET = re.compile(r'["\[\]{}]')
_STRING_REST = re.compile(r'(?:[^"\\]|\\.)*"', re.DOTALL)  # the rest of a string, its closing quote included
_STRICT = json.JSONDecoder(**STRICT_HOOKS)
_PLAIN = json.JSONDecoder()  # the second reading: the first one proved the strict rules hold
_ITEM = object()      # key of an item of the records list
_RECORDS = object()   # value announcing that the records list starts


def _skip_blank(text: str, pos: int) -> int:
    found = _BLANK.match(text, pos)
    return pos if found is None else found.end()


class _NotCatalog(Exception):
    """The file is not one JSON object with a 'records' list: the whole-file reader takes it."""


class _Window:
    """Decoded text of a UTF-8 file, a window at a time, decoded one JSON value at a time.

    Errors carry the line and column in the whole file, as ``read_text`` gives them.
    """

    def __init__(self, path: Path | None, source: str, decoder: json.JSONDecoder, file: IO[bytes] | None = None) -> None:
        self.source = source
        self.decoder = decoder
        try:
            self.file = file if file is not None else open(path or "", "rb")
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
            check_start(data, self.source)
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
            self.pos = _skip_blank(self.text, self.pos)
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
        try:
            return self._decode()
        except RecursionError:
            raise SourceError(self.source, f"invalid JSON: nested more than {MAX_DEPTH} levels deep") from None

    def item(self) -> Any:
        """The next record of a list: its value, or a ``TooDeep`` for one nested too deep to decode (stepped
        over, so that the cap costs this record only)."""
        self.peek()
        start = self.pos
        try:
            return self._decode()
        except RecursionError:
            self.pos = start
            record_id = id_at(self.text, start)
            self.skip()
            return TooDeep(record_id)

    def skip(self) -> None:
        """Step over the next value (a list or an object) without decoding it: strings whole, brackets counted."""
        depth = 0
        while True:
            found = _STRING_OR_BRACKET.search(self.text, self.pos)
            if found is None:
                self.pos = len(self.text)
                self._more()
                continue
            self.pos = found.end()
            char = found.group()
            if char == '"':
                rest = _STRING_REST.match(self.text, self.pos)
                while rest is None:  # cut off by the window's end: read on (what was read of it is dropped)
                    self._more()
                    rest = _STRING_REST.match(self.text, self.pos)
                self.pos = rest.end()
                continue
            depth += 1 if char in "[{" else -1
            if depth == 0:
                return

    def _more(self) -> None:
        """Read on; at the end of the file, the error of a value cut off."""
        if self.eof:
            raise self.fail("Unterminated value")
        self.read()

    def _decode(self) -> Any:
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
            except ValueError as err:  # the strict rules: duplicate keys, NaN, huge numbers
                raise SourceError(self.source, json_problem(err)) from None
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
                    yield _ITEM, window.item()
                    if _ends(window, "]"):
                        break
        else:
            yield key, window.value()
        if _ends(window, "}"):
            break
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
    header: dict | None
    count: int
    stamp: tuple[int, int]
    companion: Batch | None = None
    kind: str = BULK
    form: str = "catalog"  # catalog, list (a top-level list), lines (JSON Lines) or whole (read whole again)
    note: str | None = None  # what the ingest says about the file's shape (a top-level list)
    spool: Any = None  # the temporary file holding stdin, kept while the stream is used
    limit: int = MAX_ITEM_BYTES  # JSON Lines records bigger than this are left unread (``Oversized``)

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
        if self.form == "whole":
            yield from read_file(self.path, self.source, self.limit).items
            return
        if self.form == "lines":
            yield from _lines(self.path, self.source, strict=False, limit=self.limit)
            return
        window = _Window(self.path, self.source, _PLAIN)
        try:
            if self.form == "list":
                yield from _list_items(window)
                return
            for key, value in _members(window):
                if key is _ITEM:
                    yield value
        finally:
            window.close()


def _list_items(window: _Window) -> Iterator[Any]:
    """The items of a file that is one top-level JSON list."""
    window.take("[", "Expecting value")
    if window.peek() == "]":
        window.pos += 1
    else:
        while True:
            yield window.item()
            if _ends(window, "]"):
                break
    if window.peek():
        raise window.fail("Extra data")


def _lines(path: Path, source: str, *, strict: bool, limit: int) -> Iterator[Any]:
    """The objects of a JSON Lines file, one line at a time (blank lines skipped; a line of more
    than ``limit`` bytes left unread, as an ``Oversized``)."""
    try:
        file = open(path, "rb")
    except OSError as err:
        raise SourceError(source, f"cannot be read: {err.strerror or err}") from None
    with file:
        for number, raw in enumerate(file, start=1):
            if number == 1:
                check_start(raw, source)
                raw = raw[3:] if raw.startswith(codecs.BOM_UTF8) else raw
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise SourceError(source, f"is not valid UTF-8 (line {number}: "
                                          f"{err.object[err.start:err.start + 1]!r})") from None
            if not line.strip():
                continue
            too_big = oversized(line.rstrip("\r\n"), limit)
            if too_big is not None:
                yield too_big
                continue
            if not strict:
                try:
                    yield _PLAIN.decode(line)
                except RecursionError:
                    yield TooDeep(id_at(line))
                continue
            try:
                yield parse_json(line)
            except NestedTooDeep:  # set aside as a bad record: the cap costs this line only
                yield TooDeep(id_at(line))
            except json.JSONDecodeError as err:
                raise SourceError(source, f"invalid JSON Lines at line {number} column {err.colno}: "
                                          f"{err.msg}") from None
            except ValueError as err:
                raise SourceError(source, f"invalid JSON Lines at line {number}: {err}") from None


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
    try:
        found = _catalog_members(window, keep=False)
    finally:
        window.close()
    if found is None:
        return None
    others, count = found
    batch = batch_from_document({**others, "records": []}, source)
    return CatalogStream(source, path, batch.header or {}, count, stamp, batch.companion)


def _catalog_members(window: _Window, *, keep: bool) -> tuple[dict[str, Any], Any] | None:
    """The members of a catalog document but its records, and its records (``keep``) or their count;
    None when it is not a catalog. A record nested deeper than ``MAX_DEPTH`` is kept or counted as a
    record (the item checks set it aside); any other member that deep fails the whole file."""
    others: dict[str, Any] = {}
    records: list[Any] = []
    count, listed = 0, False
    try:
        for key, value in _members(window):
            if key is _ITEM:
                count += 1
                if keep:
                    records.append(value)
            elif value is _RECORDS:
                listed = True
            else:
                if json_depth(value) > MAX_DEPTH - 1:
                    raise SourceError(window.source, f"invalid JSON: nested more than {MAX_DEPTH} levels deep")
                others[key] = value
    except _NotCatalog:
        return None
    if not listed:
        return None
    return others, records if keep else count


def _starts_json_lines(path: Path) -> bool:
    """True when the file has two non-blank lines, the first one a whole object by its braces (as
    ``looks_like_json_lines`` says of a text), reading no more than those lines."""
    first, lines = b"", 0
    try:
        with open(path, "rb") as file:
            for raw in file:
                if raw.strip():
                    first = first or raw.strip().lstrip(codecs.BOM_UTF8)
                    lines += 1
                    if lines > 1:
                        break
    except OSError:
        return False
    return lines > 1 and first.startswith(b"{") and first.endswith(b"}")


def _first_char(path: Path) -> str:
    try:
        with open(path, "rb") as file:
            head = file.read(4096).lstrip(b" \t\r\n\xef\xbb\xbf")
    except OSError:
        return ""
    return head[:1].decode("latin-1")


def scan_list(path: str | Path, source: str | None = None) -> CatalogStream | None:
    """Check a file that is one top-level list of records without holding it; None when it is not a list."""
    path = Path(path)
    source = source or str(path)
    if _first_char(path) != "[":
        return None
    stamp = _stamp(path)
    window = _Window(path, source, _STRICT)
    count, records = 0, False
    try:
        for item in _list_items(window):  # one nested too deep is a bad record, set aside later
            records = records or (isinstance(item, dict) and "id" in item)
            count += 1
    finally:
        window.close()
    if count and not records:
        raise shape_error([{}], source)
    return CatalogStream(source, path, None, count, stamp, kind=RECORDS, form="list", note=LIST_NOTE)


def scan_lines(path: str | Path, source: str | None = None, limit: int = MAX_ITEM_BYTES) -> CatalogStream | None:
    """Check a JSON Lines file without holding it; None when its first line does not look like a whole
    object (see ``looks_like_json_lines``)."""
    path = Path(path)
    source = source or str(path)
    if not _starts_json_lines(path):
        return None
    stamp = _stamp(path)
    count = sum(1 for _ in _lines(path, source, strict=True, limit=limit))
    return CatalogStream(source, path, None, count, stamp, kind=RECORDS, form="lines", limit=limit)


def deep_document(text: str, source: str) -> Batch | None:
    """A catalog or a top-level list whose text nests deeper than ``MAX_DEPTH``, read record by record:
    a record that deep is kept as found (or as a ``TooDeep``), for the item checks to set aside. None
    when the text is neither (one record, an edges file, a header that deep: the whole file fails)."""
    window = _Window(None, source, _STRICT, io.BytesIO(text.encode("utf-8", "surrogatepass")))
    try:
        if window.peek() == "[":
            items = list(_list_items(window))
            if items and not any(isinstance(item, dict) and "id" in item for item in items):
                return None
            return Batch(source, RECORDS, items, note=LIST_NOTE)
        found = _catalog_members(window, keep=True)
    finally:
        window.close()
    if found is None:
        return None
    others, records = found
    return batch_from_document({**others, "records": records}, source)


def scan_whole(path: str | Path, source: str | None = None, limit: int = MAX_ITEM_BYTES) -> CatalogStream:
    """Check a file not kept in memory until its turn, keeping only its header and count: JSON Lines, a
    catalog or a top-level list are read again record by record (``scan_file``; read whole, 45 MiB of wide
    records took gigabytes), any other file whole."""
    return scan_file(path, source, limit)


def _scan_read_whole(path: str | Path, source: str | None = None, limit: int = MAX_ITEM_BYTES) -> CatalogStream:
    """Check a file read whole (``read_file``), keeping only its header and count: it is read again later."""
    path = Path(path)
    source = source or str(path)
    stamp = _stamp(path)
    batch = read_file(path, source, limit)
    return CatalogStream(source, path, batch.header, len(batch.items), stamp, batch.companion, kind=batch.kind,
                         form="whole", note=batch.note, limit=limit)


def scan_file(path: str | Path, source: str | None = None, limit: int = MAX_ITEM_BYTES) -> CatalogStream:
    """A large JSON file as a stream of its records: JSON Lines, a catalog or a top-level list, else read whole."""
    return (scan_lines(path, source, limit) or scan_catalog(path, source) or scan_list(path, source)
            or _scan_read_whole(path, source, limit))


def _ends(window: _Window, close: str) -> bool:
    """Step over the delimiter after a value: True at ``close`` (the container ends), False
    at a comma; anything else is the error the json module would raise."""
    after = window.peek()
    window.pos += 1
    if after == close:
        return True
    if after != ",":
        raise window.fail("Expecting ',' delimiter", window.pos - 1)
    return False
