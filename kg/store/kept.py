"""What kg keeps beside a version of the store: files worked out once for a generation, each bound by a
digest to the generation's data files and to its own content, and read with care.

A generation is sealed once it is current: nobody writes its data again. So what kg works out from it
once can be kept in its folder, beside RocksDB's files, and used while those files are the ones it was
worked out from::

    gen-00000007/
      kg-checked.json            the damage check's marker (kg.store._checked)
      kg-catalog-rules.json      the answers of the catalog-wide rules (kg.validation.remembered)
      kg-findings.json           what the validation of the version found (kg.findings)
      kg-words.json              search's words index (kg.textindex): names its database file,
      kg-words.<sha256>.sqlite   whose name is the digest of its bytes

Each kind is a :class:`KeptFile` (JSON) or a :class:`KeptDatabase` (a file another library opens, such
as SQLite's), made by the module that needs it and read and written only through it, with a store
(``KeptFile("kg-findings.json", "1").read(store)``): nobody outside kg.store sees the folder.

A kept JSON file is an envelope::

    {"kept": NAME, "format": F, "files": {DATA FILE: [inode, size, mtime_ns], ...}, "content": ...,
     "digest": SHA-256 of the rest}

``files`` binds it to the generation's data files (their stat: any write, truncation, replacement,
removal or new file since, and any copy of the folder, with its new inodes, makes it out of date: worked
out again, silently, as a file that is not there); ``digest`` binds it to its own content: a file edited
by hand (an answer taken out, rows added) no longer matches and is not used. Its content is read with
care: only a regular file (``os.lstat`` first, then opened without following a link and without waiting,
``O_NONBLOCK``, and checked again by ``fstat``: a FIFO, a device or a socket with the file's name is never
read), at most :data:`MAX_BYTES` bytes, nested at most :data:`MAX_DEPTH` deep (counted before it is
parsed). A file that is there but not whole is ignored, worked out again, and said once as a
:class:`KeptFileIgnored` warning (the command line prints it as one line on stderr); it is replaced by
the next write where the folder can be written.

Whoever can write a generation's folder can change its data files too: the digest tells a kept file
that does not match its content and data, as a damaged or hand-edited one does, not a forgery made with
the same recipe. Where the folder cannot be written (read-only media), nothing is kept and each reader
works everything out again. A checkpoint of a generation copies none of these files; they go with the
folder when it is removed.

>>> import tempfile
>>> from pyoxigraph import NamedNode, Quad
>>> from kg.store import GraphStore
>>> folder = tempfile.mkdtemp()
>>> store = GraphStore(folder)
>>> store.add([Quad(NamedNode("https://e.org/a"), NamedNode("https://e.org/p"), NamedNode("https://e.org/b"))])
>>> NOTES = KeptFile("kg-notes.json", "1")
>>> NOTES.read(store) is None, NOTES.write(store, {"answer": 42}), NOTES.read(store)
(True, True, {'answer': 42})
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

if TYPE_CHECKING:
    from ._graphstore import GraphStore

MAX_BYTES = 64 * 1024 * 1024  # a kept JSON file larger than this is not read (nor written)
MAX_DEPTH = 32  # the kept files nest 6 deep at most; deeper is refused before it is parsed

# RocksDB's files that hold a generation's data: what a kept file is bound to
_DATA_FILE = re.compile(r"^(?:\d+\.(?:sst|log|blob)|MANIFEST-\d+|CURRENT)$")
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)

Files = dict[str, list[int]]  # data file name -> [inode, size, mtime_ns]


class KeptFileIgnored(UserWarning):
    """A file kept beside a generation was there but not whole (its digest, its shape, its size, its
    nesting, or not a regular file): it was ignored and worked out again."""


def data_files(folder: Path) -> Files:
    """The stat of every data file of the RocksDB store in ``folder`` (its tables, logs and manifest)."""
    files: Files = {}
    with os.scandir(folder) as entries:
        for entry in entries:
            if _DATA_FILE.match(entry.name):
                found = entry.stat(follow_symlinks=False)
                files[entry.name] = [found.st_ino, found.st_size, found.st_mtime_ns]
    return files


def _version_folder(store: "GraphStore") -> Path | None:
    """The folder of the generation ``store`` reads, where files can be kept: None in memory, for a
    plain store from before generations, or inside a write session (whose version is not sealed)."""
    return store.version_folder if store.generation != 0 else None


def _ignored(path: Path, why: str) -> None:
    warnings.warn(KeptFileIgnored(f"{path} is ignored ({why}); worked out again"), stacklevel=3)


def _digest(name: str, form: str, files: Files, content: Any) -> str:
    text = json.dumps([name, form, files, content], sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _open_regular(path: Path, limit: int) -> int | None:
    """A file descriptor open on ``path`` when it is a regular file of at most ``limit`` bytes; None when
    it is missing. Raises ValueError (saying why) for anything else: a link, a FIFO, a device, a socket,
    a larger file."""
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(found.st_mode):
        raise ValueError("not a regular file")
    if found.st_size > limit:
        raise ValueError(f"larger than {limit} bytes")
    try:
        fd = os.open(path, _READ_FLAGS)  # never waits for a writer, never follows a link
    except FileNotFoundError:
        return None
    except OSError as err:
        raise ValueError(f"cannot be read: {err.strerror or err}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # replaced since the lstat
        os.close(fd)
        raise ValueError("not a regular file")
    return fd


def _chunks(fd: int, limit: int) -> Iterator[bytes]:
    """The bytes of ``fd`` a chunk at a time; ValueError past ``limit`` bytes (the file grew)."""
    size = 0
    while chunk := os.read(fd, 1 << 20):
        size += len(chunk)
        if size > limit:
            raise ValueError(f"larger than {limit} bytes")
        yield chunk


def _read_regular(path: Path, limit: int) -> bytes | None:
    """The bytes of ``path`` when it is a regular file of at most ``limit`` bytes; None when it is
    missing; ValueError, saying why, for anything else (see :func:`_open_regular`)."""
    fd = _open_regular(path, limit)
    if fd is None:
        return None
    try:
        return b"".join(_chunks(fd, limit))
    finally:
        os.close(fd)


def _digest_regular(path: Path) -> str | None:
    """The SHA-256 of the bytes of ``path`` when it is a regular file (as :func:`_read_regular` reads
    one, a chunk at a time); None when it is missing."""
    fd = _open_regular(path, 1 << 48)
    if fd is None:
        return None
    try:
        digest = hashlib.sha256()
        for chunk in _chunks(fd, 1 << 48):
            digest.update(chunk)
        return digest.hexdigest()
    finally:
        os.close(fd)


_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_BRACKETS = bytes(range(256)).translate(None, b"[]{}")  # every byte but the brackets, to delete


def json_depth(data: bytes) -> int:
    """How deeply the arrays and objects of the JSON text ``data`` nest, counted on its brackets
    outside strings (nothing is parsed, nothing recurses).

    >>> json_depth(b'{"a": [1, {"b": "[[["}]}'), json_depth(b"[" * 100000)
    (3, 100000)
    """
    depth = deepest = 0
    for byte in _STRING.sub(b"", data).translate(None, _BRACKETS):
        depth += 1 if byte in (0x5B, 0x7B) else -1
        deepest = max(deepest, depth)
    return deepest


def _parse_bounded(data: bytes, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON text ``data`` parsed, when it nests at most ``max_depth`` deep; else ValueError."""
    if json_depth(data) > max_depth:
        raise ValueError(f"nested more than {max_depth} deep")
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, RecursionError) as err:
        raise ValueError(str(err)) from None


def _write_whole(folder: Path, name: str, data: bytes) -> bool:
    """``data`` as ``folder/name``, written beside and renamed over (a reader finds a whole file or the
    one before); False where the folder cannot be written."""
    temporary = folder / f"{name}.{os.getpid()}-{threading.get_ident()}.tmp"
    try:
        with open(temporary, "wb") as handle:
            handle.write(data)
        os.replace(temporary, folder / name)
        return True
    except OSError:
        try:
            temporary.unlink(missing_ok=True)
        except OSError:
            pass
        return False


@dataclass(frozen=True)
class KeptFile:
    """One kind of JSON file kept beside each generation: its file ``name`` and the ``format`` of its
    content (a change of format makes the files of the old one out of date)."""

    name: str
    format: str

    def read(self, store: "GraphStore") -> Any | None:
        """The content kept for the generation ``store`` reads, or None: nothing kept, kept for other
        data files or in another format (out of date), or not whole (ignored, with a warning)."""
        folder = _version_folder(store)
        return None if folder is None else self.read_in(folder)

    def write(self, store: "GraphStore", content: Any) -> bool:
        """Keep ``content`` (JSON) for the generation ``store`` reads; False where nothing can be kept."""
        folder = _version_folder(store)
        return folder is not None and self.write_in(folder, content)

    def can_keep(self, store: "GraphStore") -> bool:
        """Whether a file can be kept for the version ``store`` reads (not in memory, for a plain
        store from before generations, or inside a write session)."""
        return _version_folder(store) is not None

    def read_in(self, folder: Path) -> Any | None:
        """:meth:`read` for the generation in ``folder`` (used inside kg.store, before a store is open)."""
        path = folder / self.name
        try:
            data = _read_regular(path, MAX_BYTES)
            if data is None:
                return None
            held = _parse_bounded(data)
        except ValueError as err:
            _ignored(path, str(err))
            return None
        except OSError:
            return None
        if not (isinstance(held, dict) and held.keys() == {"kept", "format", "files", "content", "digest"}):
            _ignored(path, "not a file kg keeps")
            return None
        if held["kept"] != self.name or held["format"] != self.format:
            return None  # another kind's, or another format's: out of date
        try:
            files = data_files(folder)
        except OSError:
            return None
        if held["files"] != files:
            return None  # made from other data files (a copy, another version): out of date
        if held["digest"] != _digest(self.name, self.format, files, held["content"]):
            _ignored(path, "its digest does not match its content")
            return None
        return held["content"]

    def write_in(self, folder: Path, content: Any) -> bool:
        """:meth:`write` for the generation in ``folder``."""
        try:
            files = data_files(folder)
        except OSError:
            return False
        envelope = {"kept": self.name, "format": self.format, "files": files, "content": content,
                    "digest": _digest(self.name, self.format, files, content)}
        data = json.dumps(envelope, ensure_ascii=False, sort_keys=True).encode("utf-8")
        if len(data) > MAX_BYTES or json_depth(data) > MAX_DEPTH:
            return False  # it would not be read back
        return _write_whole(folder, self.name, data)


_VERIFIED: dict[tuple, bool] = {}  # the database files whose digest was checked, by path and stat
_VERIFIED_KEPT = 64


@dataclass(frozen=True)
class KeptDatabase:
    """One kind of file kept beside each generation that another library opens by its path (an SQLite
    database): written once, named by the SHA-256 of its bytes (``kg-words.<digest>.sqlite``), and
    named in a :class:`KeptFile` (``kg-words.json``) that binds it to the generation's data. Only a
    regular file whose bytes match its name is handed out."""

    stem: str  # "kg-words"
    suffix: str  # ".sqlite"
    format: str

    @property
    def _pattern(self) -> re.Pattern[str]:
        """The names of this kind's databases: the stem, the SHA-256 of the bytes, the suffix."""
        return re.compile(re.escape(self.stem) + r"\.[0-9a-f]{64}" + re.escape(self.suffix))

    @property
    def index(self) -> KeptFile:
        return KeptFile(f"{self.stem}.json", self.format)

    def path(self, store: "GraphStore") -> Path | None:
        """The database kept for the generation ``store`` reads, checked; None when there is none (or
        none whole: ignored, with a warning)."""
        folder = _version_folder(store)
        named = None if folder is None else self.index.read_in(folder)
        if folder is None or named is None:
            return None
        name = named.get("file") if isinstance(named, dict) else None
        if not (isinstance(name, str) and self._pattern.fullmatch(name)):
            _ignored(folder / self.index.name, "it names no database of its kind")
            return None
        path = folder / name
        try:
            return path if self._whole(path, name.split(".")[-2]) else None
        except ValueError as err:
            _ignored(path, str(err))
            return None

    def _whole(self, path: Path, digest: str) -> bool:
        """Whether ``path`` is a regular file whose bytes have the SHA-256 ``digest`` (its name); a
        file of the same stat checked before in this process is not read again."""
        try:
            found = os.lstat(path)
        except FileNotFoundError:
            return False  # replaced meanwhile by a newer one: made again
        key = (str(path), found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)
        if _VERIFIED.get(key):
            return True
        found_digest = _digest_regular(path)
        if found_digest is None:
            return False
        if found_digest != digest:
            raise ValueError("its bytes do not match the digest in its name")
        if len(_VERIFIED) >= _VERIFIED_KEPT:
            _VERIFIED.clear()
        _VERIFIED[key] = True
        return True

    def write(self, store: "GraphStore", make: Callable[[Path], None]) -> Path | None:
        """A new database for the generation ``store`` reads: ``make(path)`` writes it at a temporary
        path, then it is renamed to its digest's name and named in the index file; the databases of
        this kind made before are removed. Returns its path, or None where nothing can be kept (or
        ``make`` raised OSError)."""
        folder = _version_folder(store)
        if folder is None:
            return None
        temporary = folder / f"{self.stem}.{os.getpid()}-{threading.get_ident()}.tmp"
        try:
            temporary.unlink(missing_ok=True)
            make(temporary)
            with open(temporary, "rb") as handle:
                digest = hashlib.file_digest(handle, "sha256").hexdigest()
            name = f"{self.stem}.{digest}{self.suffix}"
            os.replace(temporary, folder / name)
        except OSError:
            return None
        finally:
            try:
                temporary.unlink(missing_ok=True)
            except OSError:
                pass
        if not self.index.write_in(folder, {"file": name}):
            return None
        self._remove_others(folder, name)
        return folder / name

    def _remove_others(self, folder: Path, keep: str) -> None:
        """The databases of this kind but ``keep`` (made before, or by another process meanwhile: its
        index then names a file that is gone, which is made again), and a database under the kind's plain
        name (``kg-words.sqlite``: what kg kept before its databases were named by their digest)."""
        pattern = self._pattern
        try:
            with os.scandir(folder) as entries:
                others = [entry.name for entry in entries if entry.name != keep and (
                    pattern.fullmatch(entry.name) or entry.name == self.stem + self.suffix)
                    and entry.is_file(follow_symlinks=False)]
            for other in others:
                (folder / other).unlink(missing_ok=True)
        except OSError:
            pass
