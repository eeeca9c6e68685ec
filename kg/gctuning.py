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
from typing import Callable, Iterator

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


_frozen = 0  # blocks inside ``out_of_sight``


@contextmanager
def out_of_sight() -> Iterator[Callable[[], None]]:
    """A block whose long-lived objects the collector stops scanning: its ``keep()`` moves every
    object alive at that moment out of the collector's sight (``gc.freeze``), until the last such
    block ends (``gc.unfreeze``: they are collected as usual again). An ingest keeps every record it
    read until its pass ends; scanned again at each full collection, they cost a build of 912
    full-shape records most of its collector's time. A process forked inside the block never scans
    what it inherited.

    >>> import gc
    >>> with out_of_sight() as keep:
    ...     kept = [object()]
    ...     keep()
    ...     gc.get_freeze_count() > 0
    True
    >>> gc.get_freeze_count()
    0
    """
    global _frozen
    with _lock:
        _frozen += 1
    try:
        yield gc.freeze
    finally:
        with _lock:
            _frozen -= 1
            if _frozen == 0:
                gc.unfreeze()
