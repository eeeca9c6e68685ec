"""Completion of prompt and resource-template arguments (``completion/complete``) from the store.

An argument completes with one kind of value, read from the store's current version (and kept
while it is current) or from the registry:

- ``system``: catalog ids, for what a reader types of an id or a name ("zep" gives the ids of
  the systems whose id or name holds it);
- ``target``: a system's id, or a vendor's key (``what-depends-on`` takes either);
- ``vendor``: vendors' keys (registrable domain or github.com/owner), for a key or a name;
- ``section``: section names; ``query``: named queries; ``shape``: the SHACL shapes files.

Values whose id or name starts with the text come first, then those with a word that starts
with it, then those that hold it elsewhere; ties by value. At most :data:`MOST` values are given, with
the total.

>>> ranked("zep", {"zep-graphiti--getzep-com": ["Zep & Graphiti"], "graphiti-mcp-server-zep--getzep-com":
...     ["Graphiti MCP Server (Zep)"], "mem0--mem0-ai": ["Mem0"]})
['zep-graphiti--getzep-com', 'graphiti-mcp-server-zep--getzep-com']
"""

from __future__ import annotations

import re
import threading
from typing import Callable, Iterable, Mapping

from pyoxigraph import Literal

from ..lookup import Indexes
from ..normalise import fold
from ..resources import resource_dir
from ..store import GraphStore
from ..vocab import KG, SKOS

MOST = 100  # values in one completion (the protocol's own maximum)
KINDS = ("system", "target", "vendor", "section", "query", "shape")
_WORD = re.compile(r"[a-z0-9]+")


def _rank(text: str, words: Iterable[str]) -> int | None:
    """0: the id or a name starts with ``text``; 1: one of their words does; 2: one holds it
    elsewhere; None: none does."""
    ranks = []
    for word in words:
        folded = fold(word)
        if folded.startswith(text):
            return 0
        if any(w.startswith(text) for w in _WORD.findall(folded)):
            ranks.append(1)
        elif text in folded:
            ranks.append(2)
    return min(ranks, default=None)


def ranked(given: str, candidates: Mapping[str, Iterable[str]]) -> list[str]:
    """The values of ``candidates`` (value -> the texts it is known by, itself included) that
    ``given`` completes, best first."""
    text = fold(given)
    found = [(rank, value) for value, words in candidates.items()
             if (rank := _rank(text, [value, *words])) is not None]
    return [value for _, value in sorted(found)]


class Completions:
    """The values each kind of argument completes with, read from ``version()`` when first asked
    and kept while ``generation()`` stays the same."""

    def __init__(self, version: Callable[[], GraphStore], query_names: Callable[[], list[str]]) -> None:
        self.version, self.query_names = version, query_names
        self._kept: dict[tuple[str, int], dict[str, list[str]]] = {}
        self._lock = threading.Lock()

    def complete(self, kind: str, given: str) -> tuple[list[str], int]:
        """The first :data:`MOST` values ``given`` completes as a ``kind``, and how many there are."""
        found = ranked(given, self._candidates(kind))
        return found[:MOST], len(found)

    def _candidates(self, kind: str) -> dict[str, list[str]]:
        if kind == "query":
            return {name: [] for name in self.query_names()}
        if kind == "shape":
            return {path.stem: [] for path in sorted(resource_dir("shapes").glob("*.ttl"))}
        if kind == "target":
            return {**self._read("system"), **self._read("vendor")}
        return self._read(kind)

    def _read(self, kind: str) -> dict[str, list[str]]:
        store = self.version()
        key = (kind, store.generation)
        with self._lock:
            if key not in self._kept:
                self._kept = {k: v for k, v in self._kept.items() if k[1] == store.generation}
                self._kept[key] = _READERS[kind](store)
            return self._kept[key]


def _systems(store: GraphStore) -> dict[str, list[str]]:
    return {rid: [name] for rid, name in Indexes.of(store).systems().names.items()}


def _vendors(store: GraphStore) -> dict[str, list[str]]:
    return {key: [name] for key, name in Indexes.of(store).vendors().systems}


def _sections(store: GraphStore) -> dict[str, list[str]]:
    concepts = {q.object for q in store.match(None, KG.section, None)}
    labels = (q.object for concept in concepts for q in store.match(concept, SKOS.prefLabel, None))
    return {label.value: [] for label in labels if isinstance(label, Literal)}


_READERS: dict[str, Callable[[GraphStore], dict[str, list[str]]]] = {
    "system": _systems, "vendor": _vendors, "section": _sections}
