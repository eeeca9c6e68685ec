"""One bulk load fed batch by batch: a pyoxigraph ``bulk_load`` that reads N-Quads from a pipe.

A build writes its records a batch at a time while it maps the next batch. A
``bulk_load`` call per batch costs more as the store grows: RocksDB merges each call's
files into what is there. A store that starts empty is filled by one call instead. That
call runs on a thread of its own and reads a named pipe without holding the GIL. Each
batch goes into the pipe as N-Quads text, so the caller waits only while the loader is
behind.

>>> import tempfile
>>> from pyoxigraph import NamedNode, Literal, Quad, Store, serialize, RdfFormat
>>> store = Store(tempfile.mkdtemp())
>>> g = NamedNode("https://example.org/g")
>>> load = StreamLoad(store)
>>> for word in ("a", "b"):
...     load.write(serialize([Quad(g, NamedNode("https://example.org/p"), Literal(word), g)], format=RdfFormat.N_QUADS))
>>> load.close()
>>> sorted(q.object.value for q in store)
['a', 'b']
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading
import time
from typing import Any, Mapping, Sequence

from pyoxigraph import Quad, RdfFormat, Store

from ._nquads import forget, texts

PIPE_BYTES = 1 << 20  # the pipe's buffer where the system lets it grow (Linux): fewer switches between threads
OPEN_WAIT = 0.001  # seconds between tries to open the pipe while the loader has not opened it yet
STREAM_FROM = 2000  # quads: a write into an empty store starts the load only above this
# quads a build writes batch by batch before it streams the rest: the loader sorts and writes its
# last chunk (a million quads) only once its input ends, so a small build overlaps better with a
# bulk load per batch (912 full records, a million quads: 17-23 s against 29 s)
STREAM_AFTER = 2_000_000
# quads one load reads before its input ends and the next load begins (the one before writes meanwhile:
# ``BuildLoad._next_load``). pyoxigraph's loader parses a million quads (DEFAULT_BULK_LOAD_BATCH_SIZE)
# before it hands them to one of its threads, one a core, to sort and write: one load of the whole build
# held three such batches at once (2.2 GB peak RSS at 9,120 full records). About one batch of full records
# a load (250 of them: 275,000 quads): 9,120 full records peak at 0.9 GB and load as fast (77 s against 82 s;
# with the same overlap, 600,000 quads a load: 1.8 GB; 350,000: 1.4 GB).
LOAD_QUADS = 250_000
# The loader parses kg's own N-Quads text, written from terms pyoxigraph checked when they were made
# (IRIs, language tags, datatypes) and escaped by pyoxigraph's own serialisation of them, so it skips
# checking them again: 11% less wall and CPU for the load of 9,120 full records' 10 million quads
# (51 s against 57 s). RDF files reach it only as terms their strict parse made (``kg.rdffiles``).
LENIENT = True


def available() -> bool:
    """Whether this system has named pipes (not Windows)."""
    return hasattr(os, "mkfifo")


class StreamLoad:
    """A running ``bulk_load`` into ``store``: ``write`` hands it N-Quads, ``close`` ends the
    input and waits for the load. The loader's error, if any, is raised by the ``write`` or
    ``close`` that finds it. Not for a store in memory (no one calls it on one)."""

    def __init__(self, store: Store) -> None:
        self._folder = tempfile.mkdtemp(prefix="kg-load-")
        self._path = os.path.join(self._folder, "quads.nq")
        os.mkfifo(self._path, 0o600)
        self._error: BaseException | None = None
        self._closed = False
        self._thread = threading.Thread(target=self._load, args=(store,), name="kg-bulk-load", daemon=True)
        self._thread.start()
        try:
            self._pipe = os.fdopen(self._open_pipe(), "wb")
        except BaseException:  # the loader failed, or the caller was interrupted while it started
            self._closed = True
            shutil.rmtree(self._folder, ignore_errors=True)
            raise

    def _load(self, store: Store) -> None:
        try:
            store.bulk_load(path=self._path, format=RdfFormat.N_QUADS, lenient=LENIENT)
        except BaseException as err:  # raised in the writing thread, which owns the session
            self._error = err

    def _open_pipe(self) -> int:
        """The pipe's writing end, once the loader holds its reading end (a plain open would
        wait forever for a loader that failed before it opened the pipe)."""
        while True:
            try:
                fd = os.open(self._path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:  # ENXIO: no reader yet
                if not self._thread.is_alive():
                    self._raise_error()
                    raise RuntimeError("the bulk loader ended before it read anything")
                time.sleep(OPEN_WAIT)
                continue
            os.set_blocking(fd, True)
            if sys.platform == "linux":
                import fcntl

                try:
                    fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
                except OSError:  # a lower system limit: the default buffer works, only slower
                    pass
            return fd

    def write(self, text: bytes) -> None:
        """Hand ``text`` (whole N-Quads lines) to the loader; blocks while its pipe is full."""
        try:
            self._pipe.write(text)
        except BrokenPipeError:  # the loader stopped reading: it failed
            self.close()
            raise RuntimeError("the bulk loader stopped reading") from None

    def end_input(self) -> None:
        """End the input: the loader writes what it read meanwhile (``close`` waits for it)."""
        if not self._pipe.closed:
            try:
                self._pipe.close()
            except BrokenPipeError:  # what was left in Python's buffer found a failed loader
                pass

    def close(self) -> None:
        """End the input, wait for the loader to write everything it read, raise its error."""
        if not self._closed:
            self._closed = True
            self.end_input()
            self._thread.join()
            shutil.rmtree(self._folder, ignore_errors=True)
        self._raise_error()

    def _raise_error(self) -> None:
        error, self._error = self._error, None
        if error is not None:
            raise error


class BuildLoad:
    """The one bulk load of a write session that fills an empty store: the graphs handed to it,
    and the load while it runs (ended by any read or other write of the session, which the store
    asks for with ``end``). Thread-safe: the session's writer thread feeds it, any thread ends it.
    It holds the session's read-write store: the session lets go of it with the store."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.graphs: set[Any] = set()  # the graphs handed over
        self.loaded = 0  # quads the session bulk-loaded batch by batch (the store counts them)
        self._load: StreamLoad | None = None
        self._in_load = 0  # quads handed to the running load
        self._ending: StreamLoad | None = None  # the load before, its input ended, still writing
        self._lock = threading.RLock()

    def take(self, graphs: Mapping[Any, Sequence[Quad]], additions: list[Quad]) -> bool:
        """Hand ``graphs`` (and quads merged into other graphs) to the load, starting it once the session
        has bulk-loaded ``STREAM_AFTER`` quads and for a write of more than ``STREAM_FROM``; False where
        they must be written the usual way (a graph that exists, blank nodes, a small build so far)."""
        with self._lock:
            # the session started empty: a graph exists if it was handed over or written another way
            if any(g in self.graphs or self.store.contains_named_graph(g) for g in graphs):
                self.end()
                return False
            count = sum(len(quads) for quads in graphs.values()) + len(additions)
            if self._load is None and (count <= STREAM_FROM or self.loaded < STREAM_AFTER):
                return False
            parts = [*graphs.values(), additions]
            given = texts(parts)
            if any(b"_:" in text for text in given):  # the parser renames blank nodes: a later write could not find them
                self.end()
                return False
            self.graphs.update(graphs)
            if self._load is None:
                self._load = StreamLoad(self.store)
            for text in given:  # a graph at a time: never all of the batch's text in one more copy
                self._load.write(text)
            del given
            forget(parts)
            self._in_load += count
            if self._in_load >= LOAD_QUADS:
                self._next_load()
        return True

    def _next_load(self) -> None:
        """End the running load's input and let it write while the next one reads; the one before it
        must have finished first, so that at most two run (one writing, one reading: the 2.2 GB of one
        load for everything came from three batches at once)."""
        ending, self._ending = self._ending, None
        if ending is not None:
            ending.close()
        assert self._load is not None
        self._load.end_input()
        self._ending, self._load, self._in_load = self._load, None, 0

    def end(self) -> None:
        """End the load, if one runs: then the store holds everything it was given."""
        with self._lock:
            loads, self._load, self._ending = (self._ending, self._load), None, None
            self._in_load = 0
            try:
                for load in loads:
                    if load is not None:
                        load.close()
            finally:
                for load in loads:  # an error of the first: the other one is still waited for
                    if load is not None:
                        load.close()
