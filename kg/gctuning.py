"""Python's cyclic garbage collector, run less often while a bulk job allocates.

An ingest makes millions of small objects (parsed JSON, records, terms, quads) that live until
their batch is written; at the default threshold (700 allocations) the collector ran 5,800 times
during a build of 912 generated full-shape records and took 4.5 s of its 31 s of CPU, scanning objects
that were all still alive. At ``THRESHOLD`` it runs about 60 times, in under a second. Nothing
in an ingest depends on a prompt collection: its objects are freed by reference counting.

The threshold is the process's own. The first job in sets it and the last one out puts back the
one it found, so jobs on several threads (``kg serve`` ingesting a push) nest.

>>> import gc
>>> before = gc.get_threshold()
>>> with fewer_collections():
...     gc.get_threshold()[0] == THRESHOLD
True
>>> gc.get_threshold() == before
True
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from typing import Iterator

THRESHOLD = 50_000  # allocations between two collections of the youngest generation

_lock = threading.Lock()
_depth = 0
_found: tuple[int, ...] = ()


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Run the block with the youngest generation collected every ``THRESHOLD`` allocations
    (or less often, when the process already asked for that)."""
    global _depth, _found
    with _lock:
        if _depth == 0:
            _found = gc.get_threshold()
            if _found[0] and _found[0] < THRESHOLD:  # 0: the collector is off; keep it so
                gc.set_threshold(THRESHOLD, *_found[1:])
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                gc.set_threshold(*_found)
