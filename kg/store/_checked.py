"""The damage check of a generation, run once and remembered: a marker in the generation's folder
names the data files that were found whole, so that later opens check their stat, not their blocks.

Why a check at all: a read-only open of a damaged store succeeds, and pyoxigraph 0.5's aggregates
(COUNT, GROUP BY) retry a block that fails its checksum without end, growing until memory runs out.
The probe (:func:`kg.store._faults.probe`) reads one whole index first, so that damage shows as one
error before any query meets it; but it costs ~70 ms per 200,000 quads, 1.4 s at 10 million, on
every open. So it runs once per generation: the writer marks a generation it has just sealed (its
files were written whole by RocksDB itself, which checksums every block it writes), and the first
read-only open of a generation without a valid marker probes it and writes the marker.

The marker (``MARKER``, JSON) lists every ``.sst`` file of the generation with its inode, size and
modification time. A later open lists the folder and compares (one stat a file: microseconds): any
write, truncation, replacement, removal or new file since, and any copy of the folder (new inodes),
makes it probe again. Damage that keeps a file's stat (silent media errors, or a write whose
modification time was set back on purpose) is not seen by the stat; the probe never saw all of it
either (it reads one index of six). Where the marker cannot be written (read-only media), every
open probes, as before. The marker is kg's own file: RocksDB ignores it, a checkpoint of the
generation does not copy it, and it goes with the generation's folder when that is removed.

>>> import tempfile
>>> from pyoxigraph import Store
>>> folder = Path(tempfile.mkdtemp())
>>> Store(str(folder)).flush()
>>> needs_probe(folder)
True
>>> mark(folder, "probed")
>>> needs_probe(folder)
False
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

MARKER = "kg-checked.json"
_DATA_SUFFIX = ".sst"

Files = dict[str, list[int]]  # data file name -> [inode, size, mtime_ns]


def data_files(folder: Path) -> Files:
    """The stat of every data file of the RocksDB store in ``folder``."""
    files: Files = {}
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.name.endswith(_DATA_SUFFIX):
                found = entry.stat(follow_symlinks=False)
                files[entry.name] = [found.st_ino, found.st_size, found.st_mtime_ns]
    return files


def needs_probe(folder: Path) -> bool:
    """Whether the generation in ``folder`` must be probed: no marker, an unreadable one, or data
    files whose stat differs from what it lists."""
    try:
        return read_kept(folder, MARKER, data_files(folder)) is None
    except OSError:
        return True


def mark(folder: Path, how: str) -> None:
    """Remember that the data files of ``folder`` are whole as they are now (``how``: "sealed" by the
    writer that made them, or "probed" by a reader); where the folder cannot be written (read-only
    media), nothing is remembered and the next open probes."""
    try:
        write_kept(folder, MARKER, {"checked": how, "files": data_files(folder)})
    except OSError:
        pass


def read_kept(folder: Path, name: str, files: Files) -> dict | None:
    """kg's own JSON file ``name`` in the generation's ``folder`` (the damage check's marker, the
    remembered catalog-wide answers), when it was made from the data files ``files`` (its "files");
    None when it is missing, unreadable, or of other files."""
    try:
        with open(folder / name, encoding="utf-8") as handle:
            held = json.load(handle)
    except (OSError, ValueError):
        return None
    return held if isinstance(held, dict) and held.get("files") == files else None


def write_kept(folder: Path, name: str, content: dict) -> None:
    """``content`` as kg's own JSON file ``name`` in ``folder``: written beside and renamed over, so a
    reader finds a whole file or none; nothing where the folder cannot be written."""
    temporary = folder / f"{name}.{os.getpid()}-{threading.get_ident()}.tmp"
    try:
        with open(temporary, "w", encoding="utf-8") as handle:
            json.dump(content, handle, ensure_ascii=False, sort_keys=True)
        os.replace(temporary, folder / name)
    except OSError:
        try:
            temporary.unlink(missing_ok=True)
        except OSError:
            pass


def forget(folder: Path) -> None:
    """Drop the marker of ``folder`` (a read met a storage fault: the next open probes again)."""
    try:
        (folder / MARKER).unlink(missing_ok=True)
    except OSError:
        pass
