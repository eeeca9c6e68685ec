"""The store folder's file locks: one writer at a time (portable, through ``filelock``), and the readers
of a generation, who share its lock file while the writer may remove it only when nobody holds it.

The writer's lock is ``filelock.FileLock``: ``flock`` on Unix, ``LockFileEx`` on Windows. A reader's
lock is a *shared* lock on a generation's lock file, taken on a descriptor opened read-only (read-only
media hold stores too), and the writer probes that file for an exclusive lock before it removes the
generation. ``filelock`` has no shared lock of that kind: its ``ReadWriteLock`` keeps an SQLite
database at the lock path (written at every hold, so not on read-only media, and not the empty lock
files a store folder holds) and its ``SoftReadWriteLock`` keeps marker files that a killed reader
leaves behind. So readers take ``fcntl.flock(LOCK_SH)`` where it exists; where it does not (Windows)
a reader holds its descriptor open without a lock, as before, and the writer's exclusive probe
(``filelock.lock_descriptor``, the same primitive as the writer's lock) finds it free.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> first = lock_exclusive(folder / "writer.lock", wait_s=0)
>>> try:
...     lock_exclusive(folder / "writer.lock", wait_s=0)
... except TimeoutError:
...     print("held by the first")
held by the first
>>> first.release()
>>> lock_exclusive(folder / "writer.lock", wait_s=0).release()
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from pathlib import Path

import filelock

try:
    import fcntl
except ImportError:  # Windows: readers hold no lock (see above)
    fcntl = None  # type: ignore[assignment]

POLL_S = 0.05  # seconds between tries while another process holds a lock


class Lock(ABC):
    """A lock held until ``release`` (or until the process ends, or the object is collected)."""

    @abstractmethod
    def release(self) -> None:
        """Let the lock go (a second call does nothing)."""

    def __del__(self) -> None:
        try:
            self.release()
        except (OSError, TypeError, AttributeError):  # at interpreter exit the process drops its locks anyway
            pass


class _FileLock(Lock):
    """A ``filelock.FileLock`` held by this object (any thread may release it)."""

    def __init__(self, held: filelock.BaseFileLock) -> None:
        self._held: filelock.BaseFileLock | None = held

    def release(self) -> None:
        if self._held is not None:
            held, self._held = self._held, None
            held.release(force=True)


class _DescriptorLock(Lock):
    """A lock held on an open descriptor: closing the descriptor drops it."""

    def __init__(self, fd: int) -> None:
        self._fd: int | None = fd

    def release(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)


def lock_exclusive(path: Path, wait_s: float) -> Lock:
    """The exclusive lock of the file ``path`` (made if missing, never removed), waiting up to ``wait_s``
    seconds for another holder, in this process or another. Raises ``filelock.Timeout`` (a
    ``TimeoutError``) when it stays held, and ``OSError`` when the file cannot be opened."""
    held = filelock.FileLock(path, timeout=wait_s, mode=0o644, thread_local=False, is_singleton=False,
                             preserve_lock_file=True)
    held.acquire(poll_interval=POLL_S)
    return _FileLock(held)


def lock_shared(path: Path) -> Lock | None:
    """A shared lock on the file ``path`` (opened read-only), waiting while someone holds it exclusively;
    None when the file is gone."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    if fcntl is not None:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)
        except BaseException:
            os.close(fd)
            raise
    return _DescriptorLock(fd)


def try_exclusive(path: Path) -> Lock | bool:
    """An exclusive lock on the file ``path`` if nobody holds it; True when the file does not exist
    (nothing to hold), False when it is held."""
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return True
    try:
        taken = filelock.lock_descriptor(fd, blocking=False)
    except BaseException:
        os.close(fd)
        raise
    if not taken:
        os.close(fd)
        return False
    return _DescriptorLock(fd)
