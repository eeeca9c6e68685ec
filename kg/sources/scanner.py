"""An incremental JSON scanner: the values of a file too large to hold, read one at a time with the strict checks.

``Window`` holds a slice of the file and decodes one value at a time; ``members``,
``list_items`` and ``catalog_members`` walk an object, a list and a catalog's members;
``deep_document`` reads a document nested too deep for the whole-file parser record by record.
"""

from __future__ import annotations

import codecs
import io
import json
import re
from pathlib import Path
from typing import IO, Any, Iterator

from ..errors import SourceError
from .json_files import (LIST_NOTE, MAX_DEPTH, RECORDS, STRICT_HOOKS, Batch, TooDeep, batch_from_document, check_start,
                         id_at, json_depth, json_problem)

_READ_BYTES = 1 << 20
_BLANK = re.compile(r"[ \t\n\r]*")
_STRING_OR_BRACKET = re.compile(r'["\[\]{}]')
_STRING_REST = re.compile(r'(?:[^"\\]|\\.)*"', re.DOTALL)  # the rest of a string, its closing quote included
STRICT = json.JSONDecoder(**STRICT_HOOKS)
PLAIN = json.JSONDecoder()  # the second reading: the first one proved the strict rules hold
ITEM = object()      # key of an item of the records list
_RECORDS = object()   # value announcing that the records list starts


def _skip_blank(text: str, pos: int) -> int:
    found = _BLANK.match(text, pos)
    return pos if found is None else found.end()


class _NotCatalog(Exception):
    """The file is not one JSON object with a 'records' list: the whole-file reader takes it."""


class Window:
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


def members(window: Window) -> Iterator[tuple[Any, Any]]:
    """The top-level object's members as (key, value); a 'records' list comes as
    ("records", _RECORDS) and then (ITEM, item) per item. ``_NotCatalog`` when the
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
                    yield ITEM, window.item()
                    if _ends(window, "]"):
                        break
        else:
            yield key, window.value()
        if _ends(window, "}"):
            break
    if window.peek():
        raise _NotCatalog  # more after the object: JSON Lines, or an error the whole-file reader names


def list_items(window: Window) -> Iterator[Any]:
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


def catalog_members(window: Window, *, keep: bool) -> tuple[dict[str, Any], Any] | None:
    """The members of a catalog document but its records, and its records (``keep``) or their count;
    None when it is not a catalog. A record nested deeper than ``MAX_DEPTH`` is kept or counted as a
    record (the item checks set it aside); any other member that deep fails the whole file."""
    others: dict[str, Any] = {}
    records: list[Any] = []
    count, listed = 0, False
    try:
        for key, value in members(window):
            if key is ITEM:
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


def deep_document(text: str, source: str) -> Batch | None:
    """A catalog or a top-level list whose text nests deeper than ``MAX_DEPTH``, read record by record:
    a record that deep is kept as found (or as a ``TooDeep``), for the item checks to set aside. None
    when the text is neither (one record, an edges file, a header that deep: the whole file fails)."""
    window = Window(None, source, STRICT, io.BytesIO(text.encode("utf-8", "surrogatepass")))
    try:
        if window.peek() == "[":
            items = list(list_items(window))
            if items and not any(isinstance(item, dict) and "id" in item for item in items):
                return None
            return Batch(source, RECORDS, items, note=LIST_NOTE)
        found = catalog_members(window, keep=True)
    finally:
        window.close()
    if found is None:
        return None
    others, records = found
    return batch_from_document({**others, "records": records}, source)


def _ends(window: Window, close: str) -> bool:
    """Step over the delimiter after a value: True at ``close`` (the container ends), False
    at a comma; anything else is the error the json module would raise."""
    after = window.peek()
    window.pos += 1
    if after == close:
        return True
    if after != ",":
        raise window.fail("Expecting ',' delimiter", window.pos - 1)
    return False
