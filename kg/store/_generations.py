"""A store folder's versions on disk: numbered generations, the pointer to the current one, the locks.

A store folder holds one complete RocksDB store per generation and a small pointer
file naming the current one. A writer builds generation n+1 beside generation n and
switches the pointer with an atomic rename, so every reader opens either the whole
old version or the whole new one, and a writer that is killed or fails leaves only
an unreferenced folder that the next writer removes::

    kg-store/
      generation          the current generation's number ("7\\n"), replaced atomically
      writer.lock         locked exclusively by the one writer, for a whole write
      gen-00000007/       a complete store; nobody writes to it once it is current
      gen-00000007.lock   locked shared by every reader of generation 7 (see kg.store._locks)
      gen-00000008/       the next generation, while a writer builds it
      gen-00000008.new    marks a generation never made current yet (made before its
                          folder, removed once the pointer names it)

A generation is removed (by a writer, under ``writer.lock``) only when it is not
current and no reader holds its lock, and, in a folder without a pointer, only when it
was never current (its ``.new`` marker): a folder that holds a generation that was
current but no readable pointer is a damaged store, refused by every command with the
way to restore it (:func:`damage`), never emptied. This module knows files and locks
only; the RocksDB stores themselves are opened by :mod:`kg.store._handle` and
:mod:`kg.store._session`.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import time
from pathlib import Path

from ..errors import StoreError, safe_text
from ._locks import Lock, lock_exclusive, lock_shared, try_exclusive


POINTER = "generation"
WRITER_LOCK = "writer.lock"
_GENERATION = re.compile(r"^gen-(\d{8})(\.lock|\.new)?$")
# RocksDB's own files: a store folder from before generations holds them at its top
# (its CURRENT file marks it); after its migration they are removed.
_ROCKSDB_FILE = re.compile(r"^(CURRENT|IDENTITY|LOCK|LOG(\.old\.\d+)?|MANIFEST-\d+|OPTIONS-\d+|"
                           r"\d+\.(sst|log|blob)|bulk-.*\.sst|.*\.dbtmp)$")
LEGACY_MARK = "CURRENT"
WRITER_WAIT_S = 30.0  # how long a writer waits for another one to finish


def generation_dir(folder: Path, number: int) -> Path:
    return folder / f"gen-{number:08d}"


def _lock_path(folder: Path, number: int) -> Path:
    return folder / f"gen-{number:08d}.lock"


def _new_mark(folder: Path, number: int) -> Path:
    return folder / f"gen-{number:08d}.new"


def kind(folder: Path) -> str:
    """What ``folder`` is: "generations", "legacy" (a plain store from before
    generations), "missing", "empty", "damaged" (generations that were current, but no
    readable pointer to one: see :func:`damage`) or "foreign" (not a kg store)."""
    if not folder.exists():
        return "missing"
    if damage(folder) is not None:
        return "damaged"
    if (folder / POINTER).is_file():
        return "generations"
    if not folder.is_dir():
        return "foreign"
    names = _names(folder)
    if (folder / LEGACY_MARK).is_file():
        return "legacy"
    # only what a killed first write leaves (its lock, a generation never pointed to)
    return "empty" if all(_is_layout(name) for name in names) else "foreign"


def _names(folder: Path) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError as err:
        raise StoreError(f"cannot read store folder {safe_text(folder)}: {err.strerror or err}") from None


def _is_layout(name: str) -> bool:
    return bool(_GENERATION.match(name)) or name in (WRITER_LOCK, f"{POINTER}.tmp")


def _once_current(folder: Path, names: list[str]) -> list[int]:
    """The generations in ``folder`` (sorted) that may hold a version someone saw: every
    generation folder without a ``.new`` marker, except the copy a migration makes of a
    plain store from before generations (generation 1 beside the plain store's files,
    which are its source)."""
    present = set(names)
    numbers = sorted(int(match.group(1)) for match in map(_GENERATION.match, names)
                     if match and match.group(2) is None and f"{match.group(0)}.new" not in present
                     and (folder / match.group(0)).is_dir())
    if numbers == [1] and LEGACY_MARK in present and (folder / LEGACY_MARK).is_file():
        return []
    return numbers


def damage(folder: Path) -> str | None:
    """Why ``folder`` is a damaged store, with the way to restore it, or None when it is not:
    it holds generations that were current, but no readable pointer naming one of them."""
    for _ in range(10):
        named = current_or_none(folder)
        if named is not None and generation_dir(folder, named).is_dir():
            return None
        numbers = _once_current(folder, _names(folder)) if folder.is_dir() else []
        if current_or_none(folder) == named:
            break  # the same pointer (or none) before and after the listing: a writer did not switch meanwhile
    else:
        return None  # writers switch all the time: a whole store
    if not numbers:
        return None
    whole = [n for n in numbers if (generation_dir(folder, n) / LEGACY_MARK).is_file()] or numbers
    newest = whole[-1]
    if named is not None:
        state = f"names gen-{named:08d}, which is gone"
    else:
        state = "is unreadable" if (folder / POINTER).exists() else "is missing"
    return (f"damaged store {safe_text(folder)}: it holds {len(numbers)} generation(s) but its pointer file "
            f"'{POINTER}' {state}; nothing was changed. The newest whole generation is gen-{newest:08d}: "
            f"restore it with: echo {newest} > {safe_text(folder / POINTER)}")


def refuse_damaged(folder: Path) -> None:
    """Raise the StoreError of :func:`damage` when ``folder`` is a damaged store."""
    damaged = damage(folder)
    if damaged is not None:
        raise StoreError(damaged)


def current_or_none(folder: Path) -> int | None:
    """The number the pointer file names, or None when it is missing, unreadable or corrupt."""
    try:
        text = (folder / POINTER).read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    return int(text) if text.strip().isdigit() else None


def current(folder: Path) -> int:
    """The number of the current generation (0 for a plain store from before generations)."""
    try:
        text = (folder / POINTER).read_text(encoding="ascii", errors="replace")
    except FileNotFoundError:
        refuse_damaged(folder)
        if (folder / LEGACY_MARK).is_file():
            return 0
        raise StoreError(f"no store at {safe_text(folder)}") from None
    except OSError as err:
        raise StoreError(f"cannot read {safe_text(folder / POINTER)}: {err.strerror or err}") from None
    if not text.strip().isdigit():
        raise StoreError(damage(folder) or f"corrupt store {safe_text(folder)}: its generation pointer reads "
                                           f"{safe_text(text, 40)!r}")
    return int(text)


def pointer_stamp(folder: Path) -> tuple[int, int, int, int] | None:
    """What changes whenever the pointer is replaced (its inode, size, times), from one
    stat: cheap enough to check before every request. None without a pointer."""
    try:
        found = os.stat(folder / POINTER)
    except OSError:
        return None
    return found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns


def pointer_version(folder: Path) -> tuple[str, float]:
    """The current generation as the pointer file names it (its text) and when it became current (the
    file's mtime); for a store from before generations, ``legacy-`` and the folder's mtime."""
    try:
        with open(folder / POINTER, "rb") as handle:
            text = handle.read(64).decode("ascii", "replace").strip()
            return text, os.fstat(handle.fileno()).st_mtime
    except OSError:
        found = os.stat(folder)
        return f"legacy-{found.st_mtime_ns}", found.st_mtime


def write_pointer(folder: Path, number: int) -> None:
    """Make ``number`` the current generation: written beside, synced, renamed over."""
    temporary = folder / f"{POINTER}.tmp"
    with open(temporary, "w", encoding="ascii") as handle:
        handle.write(f"{number}\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, folder / POINTER)
    _sync_folder(folder)
    _new_mark(folder, number).unlink(missing_ok=True)  # it is current now: never again safe to remove unseen


def _sync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # Windows opens no folders: the rename still holds
        return
    try:
        os.fsync(fd)
    except OSError:  # some file systems refuse fsync on a folder
        pass
    finally:
        os.close(fd)


def lock_writer(folder: Path, wait_s: float | None = None) -> Lock:
    """The exclusive writer lock of ``folder``, waiting up to ``wait_s`` (default
    ``WRITER_WAIT_S``) for another writer."""
    wait_s = WRITER_WAIT_S if wait_s is None else wait_s
    try:
        return lock_exclusive(folder / WRITER_LOCK, wait_s)
    except TimeoutError:
        raise StoreError(f"the store {safe_text(folder)} is locked by another process that writes to it "
                         f"(waited {wait_s:g} s)") from None
    except OSError as err:
        raise StoreError(f"cannot write to the store {safe_text(folder)}: {err.strerror or err}") from None


def start_generation(folder: Path, number: int) -> None:
    """The ``.new`` marker and the reader lock file of a new generation, made before its
    folder (removed after it): a generation never made current can be told, and removed,
    even where the pointer is gone."""
    _new_mark(folder, number).touch()
    _lock_path(folder, number).touch()


def lock_reader(folder: Path, number: int) -> Lock | None:
    """A shared lock on generation ``number``, or None when it is gone (removed since the
    pointer was read). Opened read-only: this works on read-only media too."""
    try:
        lock = lock_shared(_lock_path(folder, number))  # waits only while a writer removes this generation
    except OSError as err:
        raise StoreError(f"cannot read the store {safe_text(folder)}: {err.strerror or err}") from None
    if lock is not None and not (generation_dir(folder, number) / LEGACY_MARK).is_file():
        lock.release()
        return None
    return lock


def lock_current(folder: Path, attempts: int = 200) -> tuple[int, Lock | None]:
    """The current generation's number and a reader lock on it (None for a plain store
    from before generations). Retried while writers switch and remove generations."""
    for attempt in range(attempts):
        number = current(folder)
        if number == 0:
            return 0, None
        lock = lock_reader(folder, number)
        if lock is not None:
            return number, lock
        if number == current(folder) and generation_dir(folder, number).is_dir() \
                and not _lock_path(folder, number).exists():
            return number, None  # a copied store without its lock files: read it as it is
        time.sleep(0.01)
    raise StoreError(f"cannot open store {safe_text(folder)}: generation {number} keeps vanishing")


def next_number(folder: Path) -> int:
    """A number above the current generation and every generation folder present."""
    numbers = [current(folder)]
    for name in os.listdir(folder):
        match = _GENERATION.match(name)
        if match:
            numbers.append(int(match.group(1)))
    return max(numbers) + 1


def remove_generation(folder: Path, number: int) -> None:
    """Remove a generation that never became current (a failed write), lock file and marker last."""
    shutil.rmtree(generation_dir(folder, number), ignore_errors=True)
    if not generation_dir(folder, number).exists():
        _lock_path(folder, number).unlink(missing_ok=True)
        _new_mark(folder, number).unlink(missing_ok=True)


def clean(folder: Path, keep: int) -> list[int]:
    """Remove every generation but ``keep`` that no reader holds, the leftovers of killed
    or failed writes, and a migrated plain store's old files (only once the pointer
    exists: until then they are the store). Without a pointer only generations never made
    current go: a damaged store is never emptied. Call under the writer lock. Returns the
    generations removed."""
    numbers: set[int] = set()
    names = _names(folder)
    migrated = (folder / POINTER).is_file()
    for name in names:
        match = _GENERATION.match(name)
        if match:
            if int(match.group(1)) != keep:
                numbers.add(int(match.group(1)))
        elif name == f"{POINTER}.tmp" or (migrated and _ROCKSDB_FILE.match(name)):
            _remove(folder / name)
    if not migrated:
        numbers -= set(_once_current(folder, names))
    _new_mark(folder, keep).unlink(missing_ok=True)  # ``keep`` is current: a marker left by a killed switch
    removed = []
    for number in sorted(numbers):
        lock = _try_exclusive(folder, number)
        if lock is False:
            continue  # a reader holds it
        shutil.rmtree(generation_dir(folder, number), ignore_errors=True)
        if not generation_dir(folder, number).exists():
            _lock_path(folder, number).unlink(missing_ok=True)
            _new_mark(folder, number).unlink(missing_ok=True)
            removed.append(number)
        if isinstance(lock, Lock):
            lock.release()
    return removed


def _try_exclusive(folder: Path, number: int) -> Lock | bool:
    """An exclusive lock on a generation's lock file; True when it has none; False when held."""
    return try_exclusive(_lock_path(folder, number))


def _remove(path: Path) -> None:
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    except OSError as err:
        if err.errno not in (errno.ENOENT, errno.EROFS, errno.EACCES):
            raise
