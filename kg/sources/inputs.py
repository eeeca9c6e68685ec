"""Paths -> inputs: which reader reads which path (JSON whole or streamed, or RDF).

Every input is read and checked here, before the caller writes anything: an
unreadable file among good ones changes nothing. Memory stays bounded whatever the
input: JSON files are kept in memory between that check and the write only while
they total under ``KEEP_BYTES``; beyond, each is read again when its turn comes
(large ones one record at a time, ``kg.sources.stream``), and stdin beyond it is
spooled to a temporary file first.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from pyoxigraph import NamedNode

from ..errors import SourceError
from ..resources import resource_dir
from . import rdf
from .json_files import Batch, json_files_in, read_paths
from .rdf import RdfDocument, rdf_format, rdf_format_for_path, read_rdf_bytes, read_rdf_file
from .json_files import MAX_ITEM_BYTES, read_bytes, read_file
from .stream import STREAM_MIN_BYTES, CatalogStream, scan_file, scan_whole

Input = Batch | CatalogStream | RdfDocument
KEEP_BYTES = 16 * 1024 * 1024  # JSON kept in memory from the check to the write, over all files


def bundled_paths() -> list[str]:
    """The catalog bundled with kg (CC-BY-4.0): records, the seed record and the edges."""
    data = resource_dir("data")
    return [str(data / "landscape-site.json"), str(data / "seed-record.json"),
            str(data / "landscape.edges.json")]


def read_inputs(paths: list[str], *, stream_min_bytes: int | None = STREAM_MIN_BYTES,
                rdf: str | None = None, graph: NamedNode | None = None,
                limit: int = MAX_ITEM_BYTES) -> list[Input]:
    """Every input of ``paths`` (files, folders of JSON files, ``-`` for stdin), read and checked.

    JSON files become batches (``read_paths``); bulk catalog files of at least
    ``stream_min_bytes`` (None: never) are checked by ``scan_catalog`` and left on disk
    (stdin never is). Files with an RDF extension, and every path when ``rdf`` names a
    format, are parsed whole into an ``RdfDocument``; ``graph`` is where their triples go
    (see ``read_rdf_file``). ``limit``: JSON Lines records of more bytes are left unread
    (``Oversized``: the item checks set them aside).
    """
    fmt = rdf_format(rdf) if rdf is not None else None
    inputs: list[Input] = []
    budget = _Budget(KEEP_BYTES if stream_min_bytes is not None else None)
    for name in paths:
        if fmt is not None:
            inputs.append(_rdf_input(name, fmt, graph))
            continue
        path = Path(name)
        if name == "-":
            inputs.append(_stdin_input(stream_min_bytes, budget, limit))
            continue
        if path.is_dir():
            files = json_files_in(path)
            if not files:
                raise SourceError(name, "folder holds no .json or .jsonl files")
        else:
            files = [path]
        for file in files:
            inputs.append(_file_input(file, stream_min_bytes, graph, budget, limit))
    return inputs


class _Budget:
    """How many bytes of JSON may still be kept in memory (None: no limit, nothing streamed)."""

    def __init__(self, left: int | None) -> None:
        self.left = left

    def keep(self, size: int) -> bool:
        """True when a file of ``size`` bytes may be kept (and then counts against the budget)."""
        if self.left is None:
            return True
        if size > self.left:
            return False
        self.left -= size
        return True


def _file_input(file: Path, stream_min_bytes: int | None, graph: NamedNode | None, budget: _Budget,
                limit: int, source: str | None = None) -> Input:
    implied = rdf_format_for_path(file) if source is None else None
    if implied is not None:
        return _rdf_input(str(file), implied, graph)
    size = file.stat().st_size if file.is_file() else 0
    if stream_min_bytes is not None and file.is_file() and size >= stream_min_bytes:
        return scan_file(file, source, limit)
    if not budget.keep(size):
        return scan_whole(file, source, limit)
    return read_file(file, source, limit)


def _stdin_input(stream_min_bytes: int | None, budget: _Budget, limit: int) -> Input:
    """Standard input: read whole when it fits the budget, else spooled to a temporary file and streamed."""
    head = sys.stdin.buffer.read(KEEP_BYTES + 1)
    if len(head) <= KEEP_BYTES or budget.left is None:
        rest = sys.stdin.buffer.read() if budget.left is None else b""
        return read_bytes(head + rest, "<stdin>", limit)
    spool = tempfile.NamedTemporaryFile(prefix="kg-stdin-", suffix=".json")
    spool.write(head)
    shutil.copyfileobj(sys.stdin.buffer, spool, 1 << 20)
    spool.flush()
    found = _file_input(Path(spool.name), 0, None, _Budget(0), limit, "<stdin>")
    if isinstance(found, CatalogStream):
        found.spool = spool  # removed when the stream is dropped
    return found


def _rdf_input(name: str, fmt: str, graph: NamedNode | None) -> RdfDocument:
    if name == "-":
        data = sys.stdin.buffer.read(rdf.MAX_RDF_BYTES + 1)  # more than the cap is refused: read no further
        return RdfDocument("<stdin>", fmt, read_rdf_bytes(data, "<stdin>", fmt, graph=graph))
    if Path(name).is_dir():
        raise SourceError(name, "is a folder; an RDF format applies to files (and '-') only")
    return RdfDocument(name, fmt, read_rdf_file(name, fmt, graph=graph))
