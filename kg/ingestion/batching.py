"""Batching: how many pending records a chunk and each mapped-and-written batch hold.

The constants are read when used (``batching.BATCH_SIZE``), so a test may set smaller ones.
"""

from __future__ import annotations

from typing import Iterator

# Records mapped, checked and bulk-loaded together: memory stays bounded and the loads few, and the
# last batch's write (which no mapping overlaps) stays short.
BATCH_SIZE = 250
# The first batches are smaller: the writer waits for the first, and from then on each batch's
# mapping overlaps the write of the one before (the records pending are still taken BATCH_SIZE at a
# time, so which version of a record given twice is written does not change).
RAMP = (50, 100)
# ... and at most this much of their JSON (UTF-8): records with many cells or long texts make batches of
# fewer records, so that what a batch holds while it is mapped and written stays near a batch of full ones
# (250 of 9,120 generated full-shape records: 5 MiB). 200 records of 2,000 cells (45.6 MB) peaked at 3.1 GB
# in batches of 50 and 100 records (2 million quads) before this bound; benchmarks/REPORT.md's memory-shapes
# stage measures it now.
BATCH_BYTES = 6 * 1024 * 1024


def chunk_is_full(count: int, size: int, chunk: int | None) -> bool:
    """True when ``count`` pending records of ``size`` bytes of JSON make a chunk to hand on (``chunk``
    None: never, everything is handed on at the end)."""
    return chunk is not None and (count >= chunk or size >= BATCH_BYTES)


class Batcher:
    """Cuts pending records into batches, counting the batches of one pass: ``RAMP``, then ``BATCH_SIZE``."""

    def __init__(self) -> None:
        self.taken = 0  # batches taken so far

    def next_size(self) -> int:
        """How many records the next batch holds (``RAMP``, then ``BATCH_SIZE``)."""
        return RAMP[self.taken] if self.taken < len(RAMP) else BATCH_SIZE

    def slices(self, sizes: list[int]) -> Iterator[tuple[int, int]]:
        """(start, end) of each batch of the pending records of these ``sizes``, counted as they are taken
        (``next_size`` records, ``BATCH_BYTES`` of JSON, whichever comes first; one record at least)."""
        start, count = 0, len(sizes)
        while start < count:
            end, weight, most = start + 1, sizes[start], min(start + self.next_size(), count)
            while end < most and weight + sizes[end] <= BATCH_BYTES:
                weight += sizes[end]
                end += 1
            self.taken += 1
            yield start, end
            start = end
