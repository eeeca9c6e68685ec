"""The journal of a push: which graphs of this store version one remote store already holds whole.

``kg push`` replaces each graph in one request (or gathers it in a staging graph and moves it
into place in one request), so after an interruption every live graph on the remote side is
whole: the new version or the one it had before. What the remote side cannot say is which of
them are already the new version. The journal says it: a file in the folder of the store's
version (the data it was pushed from), named by a digest of the target URL and mode, one line
per request that the remote store accepted, naming the graphs that request completed. A push
with ``resume=True`` skips those graphs; a push that ends normally removes the journal; a new
version of the store (another ingest) has a folder of its own, so a journal never outlives
the data it speaks of. A line cut short by a kill is ignored (its graphs are sent again:
replacing a graph twice is harmless).

Where there is no folder (an in-memory store) or it cannot be written, there is no journal:
the push still works and says that ``--resume`` will send everything again.

>>> import tempfile
>>> from pathlib import Path
>>> folder = Path(tempfile.mkdtemp())
>>> journal = Journal.begin(folder, "update", "http://h/update")
>>> journal.done(["https://e.org/g1", "https://e.org/g2"])
>>> sorted(Journal.read(folder, "update", "http://h/update"))
['https://e.org/g1', 'https://e.org/g2']
>>> journal.finish(); Journal.read(folder, "update", "http://h/update")
set()
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Iterable

_FORMAT = 1
_PREFIX = "kg-push-"


def journal_path(folder: Path, mode: str, target: str) -> Path:
    """Where the journal of pushes to ``target`` (a URL) in ``mode`` is kept (no secret in its name)."""
    digest = hashlib.sha256(f"{mode}\n{target}".encode("utf-8")).hexdigest()[:20]
    return folder / f"{_PREFIX}{digest}.jsonl"


class Journal:
    """An open journal (appended to after each accepted request); ``None``-safe at the call sites."""

    def __init__(self, path: Path | None) -> None:
        self.path = path

    @classmethod
    def begin(cls, folder: Path | None, mode: str, target: str, *, keep: bool = False) -> "Journal":
        """A journal for a push to ``target``: a new one, or with ``keep`` the one there is
        (a resumed push adds to it). No folder, or one that cannot be written: a journal
        that keeps nothing (``path`` None)."""
        if folder is None:
            return cls(None)
        path = journal_path(folder, mode, target)
        try:
            if not (keep and path.exists()):
                with path.open("w", encoding="utf-8") as out:
                    out.write(json.dumps({"format": _FORMAT, "mode": mode}) + "\n")
        except OSError:
            return cls(None)
        return cls(path)

    @staticmethod
    def read(folder: Path | None, mode: str, target: str) -> set[str]:
        """The graphs an earlier push to ``target`` in ``mode`` completed (empty without a journal)."""
        if folder is None:
            return set()
        try:
            lines = journal_path(folder, mode, target).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            return set()
        done: set[str] = set()
        for line in lines[1:]:
            try:
                graphs = json.loads(line)
            except ValueError:
                continue  # a line cut short: its graphs are sent again
            if isinstance(graphs, list):
                done.update(g for g in graphs if isinstance(g, str))
        return done

    def done(self, graphs: Iterable[str]) -> None:
        """Note that the remote store accepted a request completing ``graphs``."""
        if self.path is None:
            return
        graphs = list(graphs)
        if not graphs:
            return
        try:
            with self.path.open("a", encoding="utf-8") as out:
                out.write(json.dumps(graphs) + "\n")
        except OSError:
            self.path = None  # the push goes on; a later --resume sends these again

    def finish(self) -> None:
        """The push ended normally: nothing is left to resume."""
        if self.path is not None:
            try:
                os.unlink(self.path)
            except OSError:
                pass
