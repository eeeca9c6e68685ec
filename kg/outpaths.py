"""Where a command writes a file it was asked for (``-o``, ``--report``, ``--plot``...): checked first, written safely.

What a path names decides how it is written:

* a regular file, or a path that does not exist yet: a temporary file beside it, renamed
  over it once complete (a failed command leaves the old file as it was, or nothing);
* a FIFO, a character device (``/dev/null``, a terminal), ``-`` (standard output) or an open
  descriptor (``/dev/stdout``, ``/dev/fd/N``): written in place, as a stream; never replaced;
* a symbolic link: followed to its target, which is then written as above (the link stays);
* a folder, a block device, a socket, a path in a folder that does not exist, one of the
  command's own input files, or a path inside one of its input folders or inside a store it
  reads or writes (the store folder itself and anything under it: ``-o S/gen-*/000366.sst``
  would destroy a data file of the current version): refused before anything is read
  (``UsageError``: exit 2). "Inside" is judged on the path with its symbolic links resolved
  and ``..`` taken away, and on the folders themselves (device and inode), so a folder named
  in another case on a case-insensitive file system, or reached through a bind mount, is
  the same folder.

A write that fails on the way (a full disk, ``/dev/full``, an I/O error) is one line, exit 2,
and leaves no temporary file behind.

>>> import tempfile, os
>>> folder = tempfile.mkdtemp()
>>> out = output_path(os.path.join(folder, "report.jsonl"), "--report")
>>> out.stream, out.target == os.path.join(os.path.realpath(folder), "report.jsonl")
(False, True)
>>> with writing(out) as handle:
...     _ = handle.write(b"{}\\n")
>>> output_path(folder, "-o")
Traceback (most recent call last):
...
kg.errors.UsageError: -o ...: is a folder; give a file name
"""

from __future__ import annotations

import errno
import os
import stat
import sys
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Iterable, Iterator

from .errors import UsageError, safe_text

STDOUT = "-"
# Failures of the output itself, not of what is written into it: they name the path, never a traceback.
_WRITE_FAILURES = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EROFS})


@dataclass(frozen=True)
class OutputPath:
    """An output checked by :func:`output_path`: ``given`` as the user wrote it, ``target`` where
    the bytes go (a symbolic link's final target), ``stream`` when it is written in place."""

    given: str
    target: str
    stream: bool


def output_path(path: str, option: str = "-o", inputs: Iterable[str] = (),
                stores: Iterable[str] = ()) -> OutputPath:
    """``path`` checked as the output of ``option``: what it names, that it is none of
    ``inputs`` (files or folders the command reads; ``-`` is skipped) and that it is not inside
    one of ``stores`` (the store folders the command reads or writes). Raises ``UsageError``."""
    if path == STDOUT:
        return OutputPath(path, path, True)
    inputs = list(inputs)
    found = _stat(path, option)
    refuse_inside(path, option, [given for given in inputs if given != STDOUT], stores)
    if found is None:  # a new file (or a link to one)
        target = os.path.realpath(path)
        _check_folder(target, path, option)
        return OutputPath(path, target, False)
    if stat.S_ISDIR(found.st_mode):
        raise UsageError(f"{option} {safe_text(path)}: is a folder; give a file name")
    if not (stat.S_ISREG(found.st_mode) or stat.S_ISFIFO(found.st_mode) or stat.S_ISCHR(found.st_mode)):
        raise UsageError(f"{option} {safe_text(path)}: is {_kind(found.st_mode)}; kg writes regular files, "
                         "FIFOs and character devices only")
    if not stat.S_ISCHR(found.st_mode):
        _check_not_input(found, path, option, inputs)
    if stat.S_ISREG(found.st_mode) and not _descriptor(path):
        return OutputPath(path, os.path.realpath(path), False)
    return OutputPath(path, path, True)


def refuse_inside(path: str, option: str, folders: Iterable[str] = (), stores: Iterable[str] = ()) -> None:
    """Refuse ``path`` (exit 2, one line naming ``option``) when it is one of ``stores`` or one of
    ``folders`` (input folders; input files are skipped here) or anything under one of them."""
    target = os.path.realpath(path)
    chain = _ancestors(target)
    for given, what in [(s, "the store") for s in stores] + [(f, "the input folder") for f in folders]:
        if _holds(given, target, chain):
            raise UsageError(f"{option} {safe_text(path)}: is inside {what} {safe_text(given)}; "
                             "write the output elsewhere")


def _ancestors(target: str) -> list[os.stat_result]:
    """The stat of ``target`` (when it exists) and of every folder above it, up to the root."""
    found = []
    current = target
    while True:
        try:
            found.append(os.stat(current))
        except OSError:
            pass  # not there yet: a new file, or a new store's folder
        parent = os.path.dirname(current)
        if parent == current:
            return found
        current = parent


def _holds(folder: str, target: str, chain: list[os.stat_result]) -> bool:
    """Whether ``target`` (a resolved path, ``chain`` its stats upwards) is ``folder`` or under it
    (a store that does not exist yet holds what its path will; an input file holds nothing)."""
    real = os.path.realpath(folder)
    try:
        own: os.stat_result | None = os.stat(folder)
    except OSError:
        own = None
    if own is not None and not stat.S_ISDIR(own.st_mode):
        return False
    if target == real or target.startswith(os.path.join(real, "")):
        return True
    return own is not None and any(os.path.samestat(own, each) for each in chain)


def _descriptor(path: str) -> bool:
    """Whether ``path`` reaches an open file descriptor (``/dev/stdout``, ``/dev/fd/N``,
    ``/proc/self/fd/N``): whatever it names is written in place, through it."""
    current = os.path.abspath(path)
    for _ in range(40):  # the kernel follows at most 40 links
        if current.startswith(("/proc/", "/dev/fd/")):
            return True
        if not os.path.islink(current):
            return False
        current = os.path.normpath(os.path.join(os.path.dirname(current), os.readlink(current)))
    return False


def _stat(path: str, option: str) -> os.stat_result | None:
    """The stat of what ``path`` names (links followed), or None when that does not exist."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as err:
        raise UsageError(f"{option} {safe_text(path)}: cannot be written: {err.strerror or err}") from None


def _check_folder(target: str, path: str, option: str) -> None:
    """A new file's folder must exist (kg makes no folders for it)."""
    folder = os.path.dirname(target) or "."
    if not os.path.isdir(folder):
        raise UsageError(f"{option} {safe_text(path)}: the folder {safe_text(folder)} does not exist")


def _kind(mode: int) -> str:
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _check_not_input(found: os.stat_result, path: str, option: str, inputs: Iterable[str]) -> None:
    """Refuse an output that is one of the input files (the same file, by device and inode)."""
    for given in inputs:
        if given == STDOUT:
            continue
        try:
            source = os.stat(given)
        except OSError:
            continue  # the reader says what is wrong with it
        if os.path.samestat(found, source):
            raise UsageError(f"{option} {safe_text(path)}: is one of the command's inputs "
                             f"({safe_text(given)}); write the output elsewhere")


@contextmanager
def writing(out: OutputPath) -> Iterator[IO[bytes]]:
    """A binary handle on ``out``: standard output, the stream itself, or a temporary file
    renamed over the target once the block ends without an error."""
    if out.target == STDOUT:
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    opener = _opened if out.stream else _replacing
    try:
        with opener(out) as handle:
            yield handle
    except OSError as err:
        if err.errno not in _WRITE_FAILURES:
            raise
        raise UsageError(f"cannot write {safe_text(out.given)}: {err.strerror or err}") from None


@contextmanager
def _opened(out: OutputPath) -> Iterator[IO[bytes]]:
    try:
        handle = open(out.target, "ab")  # appends where a shell's ">>" opened it; a FIFO or a device: in place
    except OSError as err:
        raise UsageError(f"cannot write {safe_text(out.given)}: {err.strerror or err}") from None
    with handle:
        yield handle


@contextmanager
def _replacing(out: OutputPath) -> Iterator[IO[bytes]]:
    """A file written beside the target and renamed onto it once complete: a failure leaves
    no half-written file, and an older file at the target as it was."""
    try:
        handle, temporary = tempfile.mkstemp(prefix=".kg-export-", dir=os.path.dirname(out.target))
    except OSError as err:
        raise UsageError(f"cannot write {safe_text(out.given)}: {err.strerror or err}") from None
    try:
        with os.fdopen(handle, "wb") as file:
            yield file
        os.chmod(temporary, _mode(out.target))
        os.replace(temporary, out.target)
    except BaseException:
        os.unlink(temporary)
        raise


def _mode(target: str) -> int:
    """The permissions of the file replaced, or those ``open()`` gives a new file (not mkstemp's 0600)."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
