"""The version of a store folder that one handle reads: opened with its reader lock, kept on disk
while a thread still reads it, let go of once none does.

A :class:`ReadHandle` reads one generation (:mod:`kg.store._generations`) read-only. ``reopen``
moves it to the current one; the version it read before stays whole until no thread holds its
pyoxigraph ``Store`` any more (a query in flight, a pinned view): only then is its reader lock
released and the next writer may remove it. Making a store folder, and converting a plain store
from before generations into generation 1, happen here too: both end in a handle on the result.

>>> handle = ReadHandle.in_memory()
>>> handle.generation, handle.version_folder, handle.is_stale()
(0, None, False)
"""

from __future__ import annotations

import sys
from pathlib import Path

from pyoxigraph import Store

from ..errors import StoreError, safe_text
from . import _checked as checked
from . import _generations as generations
from ._faults import open_read_only, open_writable, probe, reason
from ._locks import Lock

Stamp = tuple[int, int, int, int]  # what changes when the pointer is replaced (generations.pointer_stamp)


def current_generation(folder: Path) -> int:
    """The number of the store's current generation (0 for a store from before generations)."""
    return generations.current(folder)


def require_existing(folder: Path) -> None:
    """Raise StoreError unless ``folder`` holds a store (reading commands never create one)."""
    found = generations.kind(folder)
    if found == "damaged":
        generations.refuse_damaged(folder)
    if found in ("missing", "empty") or not folder.is_dir():
        raise StoreError(f"no store at {folder}: run 'kg build' or 'kg ingest' first (or pass --store)")


class ReadHandle:
    """A read-only pyoxigraph store (``store``) on generation ``generation`` of ``folder`` (in memory:
    a store of its own, no folder), with the reader locks of the versions it still keeps."""

    def __init__(self, folder: Path | None, read_only: bool, store: Store | None = None, generation: int = 0,
                 stamp: Stamp | None = None) -> None:
        self.folder = folder
        self.read_only = read_only
        self.store = store if store is not None else Store()
        self.generation = generation
        self._stamp = stamp  # the pointer's stat when it was last read
        self._lock: Lock | None = None
        # handles on earlier versions, with their reader locks, until no thread reads them
        self._retired: list[tuple[Store, Lock | None]] = []

    @classmethod
    def in_memory(cls) -> "ReadHandle":
        """A throwaway store in memory (read and written through the same ``store``)."""
        return cls(None, False)

    @classmethod
    def on(cls, store: Store, generation: int) -> "ReadHandle":
        """A read-only view of ``store`` (a write session's starting version), which owns no lock."""
        return cls(None, True, store, generation)

    @classmethod
    def open(cls, folder: Path, read_only: bool) -> "ReadHandle":
        """The current version of the store in ``folder``, made first (generation 1, empty) when
        the folder holds none and ``read_only`` is false."""
        found = generations.kind(folder)
        if found == "damaged":
            generations.refuse_damaged(folder)
        if found in ("missing", "empty") and not read_only:
            _create(folder)
        elif found in ("missing", "empty"):
            raise StoreError(f"no store at {safe_text(folder)}")
        elif found == "foreign":
            raise StoreError(f"cannot open store {safe_text(folder)}: not a kg store (no generation pointer, "
                             f"no store files)")
        handle = cls(folder, read_only)
        handle.open_current()
        return handle

    def pinned(self) -> "ReadHandle":
        """A read-only handle on this version that keeps it whatever ``reopen`` does later (the
        reference on ``store`` is what keeps its reader lock: see ``_release_unheld``)."""
        return ReadHandle(self.folder, True, self.store, self.generation, self._stamp)

    @property
    def version_folder(self) -> Path | None:
        """The folder of the version read (None in memory)."""
        if self.folder is None:
            return None
        return generations.generation_dir(self.folder, self.generation) if self.generation else self.folder

    def is_stale(self) -> bool:
        """Whether a newer version than this one has become current: one stat of the pointer file while
        it is unchanged. Also lets go of earlier versions that nobody reads any more."""
        if self.folder is None:
            return False
        if self._retired:
            self._release_unheld()
        stamp = generations.pointer_stamp(self.folder)
        if stamp is not None and stamp == self._stamp:
            return False
        stale = generations.current(self.folder) != self.generation
        if not stale:
            self._stamp = stamp  # taken before the read: a switch after it changes the stamp again
        return stale

    def reopen(self) -> bool:
        """Read the current version from now on, if a newer one exists; True if it did."""
        if not self.is_stale():
            return False
        self.open_current()
        return True

    def open_current(self) -> None:
        """Read the current generation: a read-only store on it, its reader lock taken (the previous
        version's kept until nobody reads it)."""
        assert self.folder is not None
        stamp = generations.pointer_stamp(self.folder)  # before the pointer is read (see is_stale)
        number, lock = generations.lock_current(self.folder)
        folder = generations.generation_dir(self.folder, number) if number else self.folder
        try:
            store = open_read_only(folder)
            if self.read_only:
                _check(store, folder, number)
        except StoreError:
            if lock is not None:
                lock.release()
            raise
        self._retire()
        self.store, self._lock, self.generation, self._stamp = store, lock, number, stamp

    def _retire(self) -> None:
        """Keep the current store's reader lock until no other thread reads through the store (its
        generation must not be removed under a query in flight); release the locks of earlier
        stores that nobody holds any more."""
        if self._lock is not None:
            self._retired.append((self.store, self._lock))
            self._lock = None
        self._release_unheld()

    def _release_unheld(self) -> None:
        """Release the reader locks of earlier versions that nobody reads any more."""
        held = []
        for store, lock in self._retired:
            # 3 references: this list's tuple, the loop variable, getrefcount's argument
            if sys.getrefcount(store) > 3 + (store is self.store):
                held.append((store, lock))
            elif lock is not None:
                lock.release()
        self._retired = held

    def migrate_if_legacy(self) -> None:
        """Make a plain store from before generations generation 1, under the writer lock (another
        process may have done it meanwhile), and read it from now on."""
        assert self.folder is not None
        if generations.current(self.folder) != 0:
            return
        writer = generations.lock_writer(self.folder)
        try:
            generations.refuse_damaged(self.folder)  # before anything is cleaned: a damaged store is never emptied
            if generations.current(self.folder) == 0:
                self._migrate(self.folder)
        finally:
            writer.release()

    def _migrate(self, folder: Path) -> None:
        """A checkpoint of the plain store, then the pointer; its old files go at the next clean."""
        self.store = Store()  # let go of the read-only handle on the old files
        generations.clean(folder, keep=0)  # what a killed migration left (never current)
        try:
            old = open_writable(folder)  # read-write: its log is replayed and flushed into the copy
            generations.start_generation(folder, 1)
            old.flush()
            old.backup(str(generations.generation_dir(folder, 1)))
            del old
            generations.write_pointer(folder, 1)
        except (OSError, RuntimeError, ValueError) as err:
            generations.remove_generation(folder, 1)
            self.open_current()
            if isinstance(err, StoreError):
                raise
            raise StoreError(f"cannot convert the store {safe_text(folder)}: {reason(err)}") from None
        self.open_current()


def _check(store: Store, folder: Path, number: int) -> None:
    """The damage check of a version opened to read: the probe, once per generation (a plain store
    from before generations, which has no marker, at every open); see :mod:`kg.store._checked`."""
    if number and not checked.needs_probe(folder):
        return
    probe(store, folder)
    if number:
        checked.mark(folder, "probed")


def _create(folder: Path) -> None:
    """A new store folder whose generation 1 is an empty store."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise StoreError(f"cannot create store {safe_text(folder)}: {err.strerror or err}") from None
    writer = generations.lock_writer(folder)
    try:
        if generations.kind(folder) != "empty":
            return  # another process made it meanwhile (a damaged store is refused when it is opened)
        generations.clean(folder, keep=0)  # what a killed creation left (generations never current)
        generations.start_generation(folder, 1)
        store = open_writable(generations.generation_dir(folder, 1))
        store.flush()
        del store
        checked.mark(generations.generation_dir(folder, 1), "sealed")
        generations.write_pointer(folder, 1)
    except (OSError, StoreError) as err:
        generations.remove_generation(folder, 1)
        if isinstance(err, StoreError):
            raise
        raise StoreError(f"cannot create store {safe_text(folder)}: {err.strerror or err}") from None
    finally:
        writer.release()

