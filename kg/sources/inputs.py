"""Paths -> inputs: which reader reads which path (JSON whole or streamed, or RDF).

Every input is read and checked here, before the caller writes anything: an
unreadable file among good ones changes nothing. Memory stays bounded whatever the
input: JSON files are kept in memory between that check and the write only while
they total under ``KEEP_BYTES``; beyond, each is read again when its turn comes
(large ones one record at a time, ``kg.sources.stream``). A stream (stdin, or a path
that is not a regular file: a FIFO, ``/dev/stdin``, a device) is read once: kept in
memory up to ``KEEP_BYTES``, beyond that spooled to a temporary file, up to
``MAX_STREAM_BYTES``; more is refused, and so is a stream that starts with NUL bytes.
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import IO

from pyoxigraph import NamedNode

from ..errors import SourceError
from ..rdffiles import check_start
from ..resources import resource_dir
from . import rdf
from .json_files import Batch
from .rdf import RdfDocument, rdf_format, rdf_format_for_path, read_rdf_bytes, read_rdf_file
from .json_files import MAX_ITEM_BYTES
from .whole import json_files_in, read_bytes, read_file, read_paths
from .stream import STREAM_MIN_BYTES, CatalogStream, scan_file, scan_whole

Input = Batch | CatalogStream | RdfDocument
KEEP_BYTES = 16 * 1024 * 1024  # JSON kept in memory from the check to the write, over all files
MAX_STREAM_BYTES = 2 * 1024 * 1024 * 1024  # stdin, a FIFO, a device: more is refused (a regular file has no cap)
_COPY_BYTES = 1 << 20


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
            inputs.append(_stream_input(sys.stdin.buffer, "<stdin>", budget, limit))
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
    if source is None and _is_stream(file):
        return _path_stream(file, budget, limit)
    size = file.stat().st_size if file.is_file() else 0
    if stream_min_bytes is not None and file.is_file() and size >= stream_min_bytes:
        return scan_file(file, source, limit)
    if not budget.keep(size):
        return scan_whole(file, source, limit)
    return read_file(file, source, limit)


def _is_stream(file: Path) -> bool:
    """Whether ``file`` exists and is not a regular file (a FIFO, a device): read once, as stdin is."""
    try:
        return not stat.S_ISREG(os.stat(file).st_mode)
    except OSError:
        return False  # the reader says what is wrong with it


def _path_stream(file: Path, budget: _Budget, limit: int) -> Input:
    try:
        handle = open(file, "rb")
    except OSError as err:
        raise SourceError(str(file), f"cannot be read: {err.strerror or err}") from None
    with handle:
        return _stream_input(handle, str(file), budget, limit)


def _stream_input(stream: IO[bytes], source: str, budget: _Budget, limit: int) -> Input:
    """A stream (stdin, a FIFO, a device) read once: whole when it fits ``KEEP_BYTES`` (or when
    nothing is streamed), else spooled to a temporary file and streamed from there; refused
    beyond ``MAX_STREAM_BYTES`` or when it starts with NUL bytes (``/dev/zero``)."""
    head = _read(stream, source, KEEP_BYTES + 1)
    check_start(head, source)  # before anything more is read
    if len(head) <= KEEP_BYTES:
        return read_bytes(head, source, limit)
    if budget.left is None:
        return read_bytes(head + _read(stream, source, MAX_STREAM_BYTES + 1 - len(head), capped=True),
                          source, limit)
    spool = tempfile.NamedTemporaryFile(prefix="kg-stdin-", suffix=".json")
    try:
        spool.write(head)
        _copy(stream, spool, source, MAX_STREAM_BYTES - len(head))
        spool.flush()
        found = _file_input(Path(spool.name), 0, None, _Budget(0), limit, source)
    except BaseException:
        spool.close()  # the spool goes at once, not when it is collected
        raise
    if isinstance(found, CatalogStream):
        found.spool = spool  # removed when the stream is dropped
    else:
        spool.close()
    return found


def _read(stream: IO[bytes], source: str, size: int, capped: bool = False) -> bytes:
    """Up to ``size`` bytes of ``stream``; with ``capped``, reading all ``size`` is the cap error."""
    try:
        data = stream.read(size)
    except OSError as err:
        raise SourceError(source, f"cannot be read: {err.strerror or err}") from None
    if capped and len(data) >= size:
        raise _too_long(source)
    return data


def _copy(stream: IO[bytes], spool: IO[bytes], source: str, left: int) -> None:
    """The rest of ``stream`` into ``spool``, at most ``left`` bytes (more is the cap error)."""
    while True:
        data = _read(stream, source, _COPY_BYTES)
        if not data:
            return
        if len(data) > left:
            raise _too_long(source)
        spool.write(data)
        left -= len(data)


def _too_long(source: str) -> SourceError:
    return SourceError(source, f"is a stream of more than {MAX_STREAM_BYTES:,} bytes, the cap on stdin, FIFOs and "
                               "devices (kg.sources.inputs.MAX_STREAM_BYTES): save it to a file and give its path")


def _rdf_input(name: str, fmt: str, graph: NamedNode | None) -> RdfDocument:
    if name == "-":
        data = sys.stdin.buffer.read(rdf.MAX_RDF_BYTES + 1)  # more than the cap is refused: read no further
        return RdfDocument.read("<stdin>", fmt, read_rdf_bytes(data, "<stdin>", fmt, graph=graph))
    if Path(name).is_dir():
        raise SourceError(name, "is a folder; an RDF format applies to files (and '-') only")
    return RdfDocument.read(name, fmt, read_rdf_file(name, fmt, graph=graph))
