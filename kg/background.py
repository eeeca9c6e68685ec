"""One write at a time on a thread beside the caller, so that the next batch is prepared while this one is written.

The store's loader parses and writes N-Quads without holding the GIL, so on two cores
an ingest maps and checks batch n + 1 while batch n goes into the store. Writes stay in
the order they were handed over: a new one starts only when the one before has ended,
and its error, if any, is raised in the caller at the next hand-over or ``wait``.

>>> done = []
>>> writes = BackgroundWrites()
>>> writes.submit(lambda: done.append(1))
>>> writes.submit(lambda: done.append(2))
>>> writes.wait()
>>> done
[1, 2]
>>> writes.submit(lambda: 1 / 0)
>>> writes.wait()
Traceback (most recent call last):
ZeroDivisionError: division by zero
"""

from __future__ import annotations

import threading
from typing import Callable


class BackgroundWrites:
    """At most one write running on its own thread; ``submit`` waits for the one before."""

    def __init__(self) -> None:
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    def submit(self, write: Callable[[], object]) -> None:
        """Start ``write`` once the previous write has ended (raising that one's error instead, if it failed)."""
        self.wait()
        self._thread = threading.Thread(target=self._run, args=(write,), name="kg-store-write", daemon=True)
        self._thread.start()

    def wait(self, raise_error: bool = True) -> None:
        """Block until no write is running; raise the error of a write that failed (unless told not to)."""
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        error, self._error = self._error, None
        if error is not None and raise_error:
            raise error

    def _run(self, write: Callable[[], object]) -> None:
        try:
            write()
        except BaseException as err:  # handed to the caller's thread, which owns the session
            self._error = err
