"""The damage check of a generation, run once and remembered: a marker kept beside the generation
(:mod:`kg.store.kept`) says its data files were found whole, so that later opens check their stat, not
their blocks.

Why a check at all: a read-only open of a damaged store succeeds, and pyoxigraph 0.5's aggregates
(COUNT, GROUP BY) retry a block that fails its checksum without end, growing until memory runs out.
The probe (:func:`kg.store._faults.probe`) reads one whole index first, so that damage shows as one
error before any query meets it; but it costs ~70 ms per 200,000 quads, 1.4 s at 10 million, on
every open. So it runs once per generation: the writer marks a generation it has just sealed (its
files were written whole by RocksDB itself, which checksums every block it writes), and the first
read-only open of a generation without a valid marker probes it and writes the marker.

The marker (``kg-checked.json``) is a kept file: bound to the stat of every data file of the
generation (inode, size, modification time) and to its own content by a digest. A later open lists
the folder and compares (one stat a file: microseconds): any write, truncation, replacement, removal
or new file since, any copy of the folder (new inodes), and any marker edited by hand, makes it probe
again. Damage that keeps a file's stat (silent media errors, or a write whose modification time was
set back on purpose) is not seen by the stat; the probe never saw all of it either (it reads one
index of six). Where the marker cannot be written (read-only media), every open probes, as before.

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

from pathlib import Path

from .kept import KeptFile

MARKER = KeptFile("kg-checked.json", "2")


def needs_probe(folder: Path) -> bool:
    """Whether the generation in ``folder`` must be probed: no marker, or none that matches its data
    files and its own content."""
    held = MARKER.read_in(folder)
    return not (isinstance(held, dict) and held.get("checked") in ("sealed", "probed"))


def mark(folder: Path, how: str) -> None:
    """Remember that the data files of ``folder`` are whole as they are now (``how``: "sealed" by the
    writer that made them, or "probed" by a reader); where the folder cannot be written (read-only
    media), nothing is remembered and the next open probes."""
    MARKER.write_in(folder, {"checked": how})
