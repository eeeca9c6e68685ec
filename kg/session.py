"""A write session on disk: the next generation of a store, built from a checkpoint of the
current one, made current by one switch of the pointer, or thrown away whole.

:class:`kg.store.GraphStore` opens one for each ``transaction()`` on disk and reads and writes
through it; this module holds what a session is and the steps of its life (``begin``,
``seal``, ``switch``, ``discard``). The generations' files and locks are :mod:`kg.generations`'.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from pyoxigraph import Store

from . import generations, streamload
from .errors import StoreError, safe_text
from .storefaults import open_read_only, open_writable, reason
from .writes import Changes


@dataclass
class Session:
    """A write in progress: generation ``number`` open read-write (``store``), under the
    writer lock, seen by the thread that began it and the threads it lends itself to
    (``GraphStore.helping``); other threads read the current version."""
    writer: generations.Lock
    number: int
    store: Store | None
    thread: int
    helpers: set[int] = field(default_factory=set)
    wrote: bool = False
    base: Store | None = None  # the version the session started from (read-only)
    compact: bool = False  # merge the new generation's files before it becomes current
    changes: Changes = field(default_factory=Changes)  # what its writes touched
    build: streamload.BuildLoad | None = None  # it started from an empty store: its one bulk load

    def seen_here(self) -> bool:
        """Whether the calling thread reads this session (its own, or one lent to it)."""
        me = threading.get_ident()
        return me == self.thread or me in self.helpers

    def end_stream(self) -> None:
        """End the session's bulk load, if one runs: after this, its store holds all it was given."""
        if self.build is not None:
            try:
                self.build.end()
            except (OSError, RuntimeError) as err:
                raise StoreError(f"cannot write to the store: {reason(err)}") from None

    def seal(self) -> None:
        """Everything written into the generation's files: the load ended, the log flushed (a
        read-only checkpoint must find it all in the files), the files merged if asked."""
        assert self.store is not None
        try:
            self.end_stream()
            self.store.flush()
            if self.compact:
                self.store.optimize()
        except (OSError, RuntimeError) as err:
            raise StoreError(f"cannot write to the store: {reason(err)}") from None

    def switch(self, folder: Path) -> None:
        """Make the sealed generation the current one: its read-write store closed (the build's
        load holds it too), then the pointer replaced."""
        self.store = self.base = self.build = None
        try:
            generations.write_pointer(folder, self.number)
        except OSError as err:
            raise StoreError(f"cannot write to the store {safe_text(folder)}: {err.strerror or err}") from None

    def discard(self, folder: Path) -> None:
        """Throw the generation away whole and let go of the writer lock."""
        try:
            self.end_stream()  # the loader must let go of the generation before it is removed
        except StoreError:
            pass
        self.store = self.base = self.build = None  # closes the read-write store and the old one
        try:
            generations.remove_generation(folder, self.number)
        finally:
            self.writer.release()


def begin(folder: Path, current: Callable[[int], Store | None], migrate: Callable[[Path], None]) -> Session:
    """A session on the store folder ``folder``: the writer lock, then the next generation as a
    checkpoint of the current one (``current(number)``: a handle already open on that generation,
    or None; ``migrate``: makes a store from before generations generation 1)."""
    writer = generations.lock_writer(folder)
    try:
        generations.refuse_damaged(folder)  # before anything is cleaned: a damaged store is never emptied
        if generations.current(folder) == 0:
            migrate(folder)
        base = generations.current(folder)
        generations.clean(folder, keep=base)
        number = generations.next_number(folder)
        source = current(base)
        if source is None:  # (not ``or``: an empty store is falsy, it has a length)
            source = open_read_only(generations.generation_dir(folder, base))
        target = generations.generation_dir(folder, number)
        try:
            generations.start_generation(folder, number)
            source.backup(str(target))  # hard links: milliseconds
            store = open_writable(target)
        except (OSError, RuntimeError, ValueError) as err:
            generations.remove_generation(folder, number)
            if isinstance(err, StoreError):
                raise
            raise StoreError(f"cannot write to the store {safe_text(folder)}: {reason(err)}") from None
    except BaseException:
        writer.release()
        raise
    # a session that fills an empty store (a build) compacts it: see ``GraphStore.compact``
    empty = next(iter(source), None) is None
    return Session(writer, number, store, threading.get_ident(), base=source, compact=empty,
                   build=streamload.BuildLoad(store) if empty and streamload.available() else None)
