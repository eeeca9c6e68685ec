"""Paths -> inputs: which reader reads which path (JSON whole or streamed, or RDF).

Every input is read and checked here, before the caller writes anything: an
unreadable file among good ones changes nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pyoxigraph import NamedNode

from ..errors import SourceError
from ..resources import resource_dir
from . import rdf
from .json_files import Batch, json_files_in, read_paths
from .rdf import RdfDocument, rdf_format, rdf_format_for_path, read_rdf_bytes, read_rdf_file
from .stream import STREAM_MIN_BYTES, CatalogStream, scan_catalog

Input = Batch | CatalogStream | RdfDocument


def bundled_paths() -> list[str]:
    """The catalog bundled with kg (CC-BY-4.0): records, the seed record and the edges."""
    data = resource_dir("data")
    return [str(data / "landscape-site.json"), str(data / "seed-record.json"),
            str(data / "landscape.edges.json")]


def read_inputs(paths: list[str], *, stream_min_bytes: int | None = STREAM_MIN_BYTES,
                rdf: str | None = None, graph: NamedNode | None = None) -> list[Input]:
    """Every input of ``paths`` (files, folders of JSON files, ``-`` for stdin), read and checked.

    JSON files become batches (``read_paths``); bulk catalog files of at least
    ``stream_min_bytes`` (None: never) are checked by ``scan_catalog`` and left on disk
    (stdin never is). Files with an RDF extension, and every path when ``rdf`` names a
    format, are parsed whole into an ``RdfDocument``; ``graph`` is where their triples go
    (see ``read_rdf_file``).
    """
    fmt = rdf_format(rdf) if rdf is not None else None
    inputs: list[Input] = []
    for name in paths:
        if fmt is not None:
            inputs.append(_rdf_input(name, fmt, graph))
            continue
        path = Path(name)
        if name == "-":
            inputs.extend(read_paths(["-"]))
            continue
        if path.is_dir():
            files = json_files_in(path)
            if not files:
                raise SourceError(name, "folder holds no .json or .jsonl files")
        else:
            files = [path]
        for file in files:
            inputs.append(_file_input(file, stream_min_bytes, graph))
    return inputs


def _file_input(file: Path, stream_min_bytes: int | None, graph: NamedNode | None) -> Input:
    implied = rdf_format_for_path(file)
    if implied is not None:
        return _rdf_input(str(file), implied, graph)
    if stream_min_bytes is not None and file.is_file() and file.stat().st_size >= stream_min_bytes:
        stream = scan_catalog(file)
        if stream is not None:
            return stream
    (batch,) = read_paths([str(file)])
    return batch


def _rdf_input(name: str, fmt: str, graph: NamedNode | None) -> RdfDocument:
    if name == "-":
        data = sys.stdin.buffer.read(rdf.MAX_RDF_BYTES + 1)  # more than the cap is refused: read no further
        return RdfDocument("<stdin>", fmt, read_rdf_bytes(data, "<stdin>", fmt, graph=graph))
    if Path(name).is_dir():
        raise SourceError(name, "is a folder; an RDF format applies to files (and '-') only")
    return RdfDocument(name, fmt, read_rdf_file(name, fmt, graph=graph))
