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
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from ..errors import SourceError
from .json_files import (BULK, LIST_NOTE, MAX_ITEM_BYTES, RECORDS, Batch, NestedTooDeep, TooDeep, batch_from_document,
                         check_start, id_at, oversized, parse_json, shape_error)
from .scanner import ITEM, PLAIN, STRICT, Window, catalog_members, list_items, members
from .whole import read_file

STREAM_MIN_BYTES = 64 * 1024 * 1024  # kg ingest streams catalog files at least this large


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
        window = Window(self.path, self.source, PLAIN)
        try:
            if self.form == "list":
                yield from list_items(window)
                return
            for key, value in members(window):
                if key is ITEM:
                    yield value
        finally:
            window.close()


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
                    yield PLAIN.decode(line)
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
    window = Window(path, source, STRICT)
    try:
        found = catalog_members(window, keep=False)
    finally:
        window.close()
    if found is None:
        return None
    others, count = found
    batch = batch_from_document({**others, "records": []}, source)
    return CatalogStream(source, path, batch.header or {}, count, stamp, batch.companion)


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
    window = Window(path, source, STRICT)
    count, records = 0, False
    try:
        for item in list_items(window):  # one nested too deep is a bad record, set aside later
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
