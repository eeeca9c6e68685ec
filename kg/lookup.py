"""Which system an id or a name given to a query means, checked against the graph first:
an unknown id is :class:`~kg.errors.NotFound` with close matches, never an empty answer.

Two parameter types of the named queries name systems (:mod:`kg.queries`):

- ``id``: a catalog id; it must be the id of a system in the graph;
- ``system-name``: a catalog id, else words of a system's name. An exact id wins, then a
  name equal to the text, then the one name that contains it; a text that several names
  contain is ambiguous, and the error lists them.

Names are compared folded (:func:`fold`): case, runs of white space and diacritics do not
count. Close matches come from :mod:`difflib` over the ids and the folded names. The index
of an on-disk store's version is read once and kept while that version is the one read (a
write makes a new version: see :mod:`kg.store`), so a server or a run of queries
does not read every system's name again for each unknown id.

>>> fold("  Café   Graphiti ")
'cafe graphiti'
>>> index = SystemIndex({"mem0--mem0-ai": "Mem0", "mem0-mcp--mem0-ai": "Mem0 MCP (official)", "zep--getzep-com": "Zep"})
>>> index.resolve("mem0")
'mem0--mem0-ai'
>>> index.resolve("mem")
Traceback (most recent call last):
...
kg.errors.NotFound: 'mem' matches 2 systems; give one of their ids: mem0--mem0-ai (Mem0), mem0-mcp--mem0-ai (Mem0 MCP (official))
>>> index.check_id("mem0--mem0")
Traceback (most recent call last):
...
kg.errors.NotFound: no system with id 'mem0--mem0' in this graph; did you mean: mem0--mem0-ai (Mem0), mem0-mcp--mem0-ai (Mem0 MCP (official))?
"""

from __future__ import annotations

import difflib
import os
import threading
from typing import Any, Callable, Mapping

from .errors import NotFound, safe_text
from .normalise import fold
from .resources import resource

SHOWN = 10  # candidates named in one message
KEPT = 4  # store versions whose index is kept


class SystemIndex:
    """The ids and names of the graph's systems (id -> name)."""

    def __init__(self, names: Mapping[str, str]) -> None:
        self.names = dict(names)
        self._folded = {rid: fold(name) for rid, name in self.names.items()}

    @classmethod
    def read(cls, select: Callable[[str], list[dict[str, Any]]]) -> "SystemIndex":
        """The index read with ``select`` (SPARQL text -> rows), from the select-system-names query;
        the one read before when ``select`` is a store's and reads the same store version."""
        key = _version_key(select)
        with _LOCK:
            kept = _KEPT.get(key) if key is not None else None
        if kept is not None:
            return kept
        rows = select(resource("queries", "select-system-names.rq").read_text(encoding="utf-8"))
        index = cls({r["id"].value: (r["name"].value if "name" in r else r["id"].value) for r in rows})
        if key is not None:
            with _LOCK:
                _KEPT[key] = index
                while len(_KEPT) > KEPT:
                    del _KEPT[next(iter(_KEPT))]  # the oldest
        return index

    def _shown(self, ids: list[str]) -> str:
        listed = ", ".join(f"{rid} ({safe_text(self.names[rid], 60)})" for rid in ids[:SHOWN])
        return listed + (f", and {len(ids) - SHOWN} more" if len(ids) > SHOWN else "")

    def close_matches(self, text: str) -> list[str]:
        """Ids whose id or name is close to ``text``, best first."""
        by_id = difflib.get_close_matches(text, list(self.names), n=5, cutoff=0.6)
        by_name_text = difflib.get_close_matches(fold(text), list(self._folded.values()), n=5, cutoff=0.6)
        by_name = [rid for name in by_name_text for rid, folded in self._folded.items() if folded == name]
        return list(dict.fromkeys(by_id + by_name))[:5]

    def _not_found(self, what: str) -> NotFound:
        close = self.close_matches(what)
        hint = f"; did you mean: {self._shown(close)}?" if close else "; the search query finds ids from words of a name"
        return NotFound(f"no system with id {safe_text(what, 120)!r} in this graph{hint}",
                        [(rid, self.names[rid]) for rid in close])

    def check_id(self, system_id: str) -> str:
        """``system_id`` when it is a system's id; else NotFound with close matches."""
        if system_id in self.names:
            return system_id
        raise self._not_found(system_id)

    def resolve(self, text: str) -> str:
        """The id of the one system ``text`` names (an id, a name, or words of one name)."""
        if text in self.names:
            return text
        wanted = fold(text)
        exact = [rid for rid, name in self._folded.items() if name == wanted]
        matches = exact or [rid for rid, name in self._folded.items() if wanted and wanted in name]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            error = self._not_found(text)
            raise NotFound(str(error).replace("with id", "with that id or name", 1), error.candidates)
        matches.sort()
        raise NotFound(f"{safe_text(text, 120)!r} matches {len(matches)} systems; give one of their ids: "
                       f"{self._shown(matches)}", [(rid, self.names[rid]) for rid in matches])


_KEPT: dict[tuple, SystemIndex] = {}
_LOCK = threading.Lock()


def _version_key(select: Callable[..., Any]) -> tuple | None:
    """What names the store version that ``select`` (a store's bound method) reads, while it
    cannot change: its version folder (an on-disk store's committed generation), with the
    folder's identity on disk (a store removed and built again at the same path reuses the
    folder name); None in memory, inside a write session, or for a store from before
    generations (their content changes in place)."""
    store = getattr(select, "__self__", None)
    folder = getattr(store, "version_folder", None)
    if folder is None or not getattr(store, "generation", 0):
        return None
    try:
        stat = os.stat(folder)
    except OSError:
        return None
    return str(folder), stat.st_dev, stat.st_ino, stat.st_mtime_ns
