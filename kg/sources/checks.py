"""The items of a batch, checked: each raw record or edge becomes a typed one, or a ``RecordError``.

The checks of what a reader hands over, beyond the structure ``kg.records`` checks:
text the graph cannot hold (lone surrogates, NaN, non-JSON values, nesting deeper
than ``MAX_DEPTH``, for items handed over by the API rather than parsed by kg), a
duplicate id in one file, self-edges and duplicate edges; and the warnings about
what goes in but deserves a look (risky link schemes, unknown edge types, an edge
repeated exactly: kept once).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Generic, Iterator, TypeVar

from ..errors import RecordError
from ..records import Edge, Record, edge_from_json, record_from_json
from ..vocab import EDGE_PROPERTIES
from .json_files import MAX_DEPTH, MAX_ITEM_BYTES, Batch, Oversized, TooDeep, json_depth
from .stream import CatalogStream


Item = TypeVar("Item", Record, Edge)


@dataclass
class Checked(Generic[Item]):
    """One item of an input, checked: ``item`` is None when ``error`` says why it was set aside."""

    source: str
    index: int
    item: Item | None = None
    error: RecordError | None = None
    warnings: list[RecordError] = field(default_factory=list)
    size: int = 0  # a record's size as UTF-8 JSON (what the ingest weighs its batches by)
    raw: Any = None  # a good record's JSON as read (what a worker process of the ingest is sent)


MAX_RECORD_CELLS = 2000  # the catalog's records hold about 25 cells
MAX_RECORD_BYTES = MAX_ITEM_BYTES  # as UTF-8 JSON; the catalog's largest record is about 5 KB


class ItemChecker:
    """Checks the items of the inputs of one ingest, in order. It remembers the edges
    seen, so that an edge given twice (in one file or in two) is a duplicate.

    A record with more than ``max_cells`` cells or more than ``max_bytes`` bytes (as
    UTF-8 JSON) is set aside before it is read any further: one such record could
    otherwise take gigabytes to map.
    """

    def __init__(self, *, max_cells: int = MAX_RECORD_CELLS, max_bytes: int = MAX_RECORD_BYTES) -> None:
        # (source, target, type) -> where it was first seen, and its JSON (keys sorted)
        self.edge_keys: dict[tuple[str, str, str], tuple[str, str, str]] = {}
        self.max_cells, self.max_bytes = max_cells, max_bytes

    def records(self, batch: Batch | CatalogStream) -> Iterator[Checked[Record]]:
        """The records of a catalog or records batch; an id met twice in it is an error."""
        seen_here: dict[str, int] = {}
        for index, raw in enumerate(batch.items):
            checked: Checked[Record] = Checked(batch.source, index)
            try:
                if isinstance(raw, Oversized):  # a JSON Lines line the reader left unread
                    raise RecordError(batch.source, index, raw.record_id, "(record)",
                                      f"is {raw.size:,} bytes of JSON, more than the cap of {self.max_bytes:,} "
                                      f"(--max-record-bytes); not read")
                if isinstance(raw, TooDeep):  # a record the reader could not decode: only its nesting is known
                    raise RecordError(batch.source, index, raw.record_id, "(record)",
                                      f"nested more than {MAX_DEPTH} levels deep")
                self._check_cells(raw, batch.source, index)
                size = check_plain_json(raw, batch.source, index)
                if size > self.max_bytes:
                    raise RecordError(batch.source, index, _shown_id(raw), "(record)",
                                      f"is {size:,} bytes of JSON, more than the cap of {self.max_bytes:,} "
                                      f"(--max-record-bytes)")
                record = record_from_json(raw, source=batch.source, index=index)
                if record.id in seen_here:
                    raise RecordError(batch.source, index, record.id, "id",
                                      f"duplicate id (first at [{seen_here[record.id]}] of the same file)")
            except RecordError as err:
                checked.error = err
                yield checked
                continue
            seen_here[record.id] = index
            checked.item, checked.size, checked.raw = record, size, raw
            checked.warnings = record_warnings(record, batch.source, index)
            yield checked

    def _check_cells(self, raw: object, source: str, index: int) -> None:
        cells = raw.get("cells") if isinstance(raw, dict) else None
        if isinstance(cells, dict) and len(cells) > self.max_cells:
            raise RecordError(source, index, _shown_id(raw), "cells",
                              f"{len(cells):,} cells, more than the cap of {self.max_cells:,} (--max-cells)")

    def edges(self, batch: Batch) -> Iterator[Checked[Edge]]:
        """The edges of an edges batch: no self-edge, no edge met before in this ingest. An edge that
        repeats an earlier one exactly (the same JSON) is left out with a warning: the one kept says it all."""
        for index, raw in enumerate(batch.items):
            checked: Checked[Edge] = Checked(batch.source, index)
            try:
                check_plain_json(raw, batch.source, index)
                edge = edge_from_json(raw, source=batch.source, index=index)
                repeated = self._check_edge(edge, batch.source, index, _json_text(raw))
            except RecordError as err:
                checked.error = err
                yield checked
                continue
            if repeated is not None:
                checked.warnings = [repeated]
            else:
                checked.item = edge
                checked.warnings = edge_warnings(edge, batch.source, index)
            yield checked

    def _check_edge(self, edge: Edge, source: str, index: int, text: str) -> RecordError | None:
        """Refuse a self-edge, and an edge whose (source, target, type) came before with other fields;
        the warning for one that came before exactly (``text``: its JSON), else None."""
        where = f"{edge.source} -> {edge.target}"
        if edge.source == edge.target:
            raise RecordError(source, index, where, "target", "self-edge: source and target are the same record")
        if edge.key in self.edge_keys:
            first_source, first, first_text = self.edge_keys[edge.key]
            at = first if first_source == source else f"{first} of {first_source}"
            if first_text == text:
                return RecordError(source, index, where, "(edge)",
                                   f"the same edge as {at}, field for field: kept once")
            raise RecordError(source, index, where, "type", f"duplicate edge ({edge.type}); first seen at {at}")
        self.edge_keys[edge.key] = (source, f"[{index}]", text)
        return None


# ---------------------------------------------------------------------------
# Text the graph cannot hold


def _first_bad_text(value: object, path: str) -> str | None:
    """Path of the first string holding a lone surrogate (not encodable, so not RDF)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return path
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            here = f"{path}.{key}" if path else key
            found = _first_bad_text(key, here) or _first_bad_text(item, here)
            if found:
                return found
    if isinstance(value, list):
        for i, item in enumerate(value):
            found = _first_bad_text(item, f"{path}[{i}]")
            if found:
                return found
    return None


def _shown_id(raw: object) -> str | None:
    """The id of a raw record as messages show it (None when it has no text id)."""
    record_id = raw.get("id") if isinstance(raw, dict) and isinstance(raw.get("id"), str) else None
    return None if record_id is None else record_id.encode("utf-8", "backslashreplace").decode()


def _json_text(raw: object) -> str:
    """An item as JSON text with its keys sorted: two items are the same JSON when these are equal."""
    return json.dumps(raw, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def check_plain_json(raw: object, source: str, index: int) -> int:
    """Refuse what cannot be stored as it is: lone surrogates, NaN/Infinity, non-JSON values,
    nesting deeper than ``MAX_DEPTH`` (items handed over by the API, not parsed by kg).
    Returns the size of the item as UTF-8 JSON."""
    def fail(path: str, message: str) -> RecordError:
        return RecordError(source, index, _shown_id(raw), path, message)

    if json_depth(raw) > MAX_DEPTH:
        raise fail("(record)", f"nested more than {MAX_DEPTH} levels deep")
    try:
        return len(json.dumps(raw, ensure_ascii=False, allow_nan=False).encode("utf-8"))
    except UnicodeEncodeError:
        raise fail(_first_bad_text(raw, "") or "(record)",
                   "holds a lone surrogate (not valid Unicode text)") from None
    except (ValueError, TypeError, RecursionError) as err:
        raise fail("(record)", f"is not plain JSON: {err}") from None


# ---------------------------------------------------------------------------
# Warnings: what goes in, but deserves a look

_SCHEME = re.compile(r"^[\s\x00-\x1f]*([A-Za-z][A-Za-z0-9+.\-]*):(?=\S)")


def link_scheme_problem(text: object) -> str | None:
    """Why a citation or URL is a risky non-web link (``javascript:``, ``file:``, ``data:``, ...).

    It is kept as text (``kg.mapping.iri_or_text`` only makes http(s) IRIs); this only
    explains it. Free text ("see the docs") and http(s) URLs give None.

    >>> link_scheme_problem("javascript:alert(1)")
    "a 'javascript:' link, not http(s); kept as text"
    >>> link_scheme_problem("https://example.org/x") is None, link_scheme_problem("Note: see docs") is None
    (True, True)
    """
    if not isinstance(text, str):
        return None
    match = _SCHEME.match(text)
    if match is None or match.group(1).lower() in ("http", "https"):
        return None
    return f"a '{match.group(1).lower()}:' link, not http(s); kept as text"


def record_warnings(record: Record, source: str, index: int) -> list[RecordError]:
    """The risky links of a record's cell citations. (A url that is not http(s) breaks the structural
    rule SystemUrl: the record is quarantined, with that rule as its reason.)"""
    found = []
    for slug, cell in (record.cells or {}).items():
        problem = link_scheme_problem(cell.citation)
        if problem:
            found.append(RecordError(source, index, record.id, f"cells.{slug}.citation", problem))
    return found


def edge_warnings(edge: Edge, source: str, index: int) -> list[RecordError]:
    where = f"{edge.source} -> {edge.target}"
    found = []
    if edge.type not in EDGE_PROPERTIES:
        found.append(RecordError(source, index, where, "type", f"unknown edge type {edge.type!r}: kept as a "
                                 "relation without a direct link (kg validate reports it)"))
    problem = link_scheme_problem(edge.citation)
    if problem:
        found.append(RecordError(source, index, where, "citation", problem))
    return found
