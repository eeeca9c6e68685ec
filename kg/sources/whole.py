"""A JSON input read whole: text, bytes, a file or paths -> batches (strict JSON, the shape from the content).

A catalog or a top-level list nested deeper than ``MAX_DEPTH`` is read again record by record
(``scanner.deep_document``), so one record that deep costs itself, not its neighbours.

>>> batch = read_text('{"schemaVersion": "1", "edges": []}', "edges.json")
>>> batch.kind, batch.header
('edges', {'schemaVersion': '1'})
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Iterator

from ..errors import SourceError
from .json_files import (EXPECTED, MAX_ITEM_BYTES, Batch, NestedTooDeep, batch_from_document, decode_json_bytes,
                         json_lines_batch, json_problem, looks_like_json_lines, parse_json)
from .scanner import deep_document


def read_text(text: str, source: str, limit: int = MAX_ITEM_BYTES) -> Batch:
    """One input's text -> a batch (JSON document or JSON Lines; a JSON Lines record of more than
    ``limit`` bytes is left unread, as an ``Oversized``)."""
    if not text.strip():
        raise SourceError(source, f"is empty; {EXPECTED}")
    if looks_like_json_lines(text):
        return json_lines_batch(text, source, limit)
    try:
        doc = parse_json(text)
    except NestedTooDeep as err:
        found = deep_document(text, source)  # a catalog or list read record by record: one deep record costs itself
        if found is None:
            raise SourceError(source, json_problem(err)) from None
        return found
    except ValueError as err:
        raise SourceError(source, json_problem(err)) from None
    return batch_from_document(doc, source)


def read_bytes(data: bytes, source: str, limit: int = MAX_ITEM_BYTES) -> Batch:
    return read_text(decode_json_bytes(data, source), source, limit)


JSON_SUFFIXES = (".json", ".jsonl", ".ndjson")


def json_files_in(folder: Path) -> list[Path]:
    """The JSON files under ``folder`` (at any depth), in name order."""
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in JSON_SUFFIXES)


def read_paths(paths: list[str]) -> Iterator[Batch]:
    """Every batch of the given paths: files, folders (their .json/.jsonl files) and ``-``."""
    for name in paths:
        if name == "-":
            yield read_bytes(sys.stdin.buffer.read(), "<stdin>")
            continue
        path = Path(name)
        if path.is_dir():
            files = json_files_in(path)
            if not files:
                raise SourceError(name, "folder holds no .json or .jsonl files")
            for file in files:
                yield read_file(file)
        else:
            yield read_file(path)


def read_file(path: Path, source: str | None = None, limit: int = MAX_ITEM_BYTES) -> Batch:
    """One JSON file, read whole, as a batch (``source``: its name in messages; ``limit``: see ``read_text``)."""
    source = source or str(path)
    try:
        data = path.read_bytes()
    except OSError as err:
        raise SourceError(source, f"cannot be read: {err.strerror or err}") from None
    return read_bytes(data, source, limit)
