"""Input files -> batches of raw catalog items. No RDF here.

Reads bulk catalog files, single per-system export records (and folders of
them), JSON Lines streams of records, edges files, and ``-`` for stdin. The
shape is detected from the content, never from the file name.

>>> batch = read_text('{"schemaVersion": "1", "edges": []}', "edges.json")
>>> batch.kind, batch.header
('edges', {'schemaVersion': '1'})
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from .errors import SourceError

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


def parse_json(text: str) -> Any:
    """Strict JSON: no NaN/Infinity, no duplicate keys, no numbers that overflow to infinity."""
    return json.loads(text, object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constant,
                      parse_float=_finite)


def _decode(data: bytes, source: str) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise SourceError(source, "is UTF-16 (has a UTF-16 byte order mark); expected UTF-8")
    try:
        return data.decode("utf-8-sig")  # a UTF-8 byte order mark is harmless: drop it
    except UnicodeDecodeError as err:
        raise SourceError(source, f"is not valid UTF-8 (byte {err.start})") from None


def _parse_document(text: str, source: str) -> Any:
    try:
        return parse_json(text)
    except json.JSONDecodeError as err:
        raise SourceError(source, f"invalid JSON at line {err.lineno} column {err.colno}: {err.msg}") from None
    except ValueError as err:
        raise SourceError(source, f"invalid JSON: {err}") from None
    except RecursionError:
        raise SourceError(source, "invalid JSON: nested too deeply") from None


def _looks_like_json_lines(text: str) -> bool:
    lines = [line for line in text.splitlines() if line.strip()]
    return len(lines) > 1 and all(line.lstrip().startswith("{") for line in lines[:2])


def _json_lines(text: str, source: str) -> Batch:
    items: list[Any] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            items.append(parse_json(line))
        except (ValueError, RecursionError) as err:
            raise SourceError(source, f"line {number}: invalid JSON: {err}") from None
    return Batch(source, RECORDS, items)


def batch_from_document(doc: Any, source: str) -> Batch:
    """Classify a parsed JSON document by its content."""
    if isinstance(doc, dict):
        if "records" in doc:
            if not isinstance(doc["records"], list):
                raise SourceError(source, "'records' must be a list")
            header = {k: v for k, v in doc.items() if k != "records"}
            return Batch(source, BULK, doc["records"], header)
        if "edges" in doc and "id" not in doc:
            if not isinstance(doc["edges"], list):
                raise SourceError(source, "'edges' must be a list")
            header = {k: v for k, v in doc.items() if k != "edges"}
            return Batch(source, EDGES, doc["edges"], header)
        if "id" in doc:
            return Batch(source, RECORDS, [doc])
    if isinstance(doc, list) and all(isinstance(item, dict) and "id" in item for item in doc):
        return Batch(source, RECORDS, doc)
    raise SourceError(source, f"unknown shape: {EXPECTED}")


def read_text(text: str, source: str) -> Batch:
    """One input's text -> a batch (JSON document or JSON Lines)."""
    if not text.strip():
        raise SourceError(source, f"is empty; {EXPECTED}")
    if _looks_like_json_lines(text):
        try:
            doc = parse_json(text)
        except (ValueError, RecursionError):
            return _json_lines(text, source)
        return batch_from_document(doc, source)
    return batch_from_document(_parse_document(text, source), source)


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
    data = Path(__file__).resolve().parent.parent / "data"
    return [str(data / "landscape-site.json"), str(data / "seed-record.json"),
            str(data / "landscape.edges.json")]
