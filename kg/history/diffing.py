"""``kg diff``: the changes between two versions of the catalog, each a file or a changeset of a store.

A side is a catalog, records or edges file (read and checked as an ingest reads it), or
a changeset number of the store (``0``: before the first; ``current`` or ``HEAD``: the
store now). Two neighbouring changesets give the stored changeset itself, with its
times and input files; any other pair is diffed from the two versions (the store's
rebuilt by undoing the later changesets, reading only the records they touched).
"""

from __future__ import annotations

import os
from typing import Any, Callable, Union

from ..errors import InputRejected, UsageError, safe_text
from ..records import edge_to_json, record_to_json
from ..sources import BULK, EDGES, ItemChecker, RdfDocument, read_inputs
from ..store import GraphStore
from ..vocab import Iris
from .snapshots import snapshots_at
from .compare import Snapshot, diff_catalogs
from .log import changeset_at, changeset_numbers
from .model import Changeset

CURRENT = ("current", "HEAD")  # the words for the store now

StoreGiven = Union[GraphStore, Callable[[], GraphStore], None]  # a store, or what opens it when a side needs one


def changeset_side(word: str) -> int | None:
    """The changeset number a side names (None: the store now), or UsageError.

    >>> changeset_side("3"), changeset_side("HEAD")
    (3, None)
    """
    if word in CURRENT:
        return None
    if word.isdigit():
        return int(word)
    raise UsageError(f"{safe_text(word, 200)} is neither a file nor a changeset number (or 'current')")


def file_snapshot(path: str) -> Snapshot:
    """The catalog version a catalog, records or edges file holds, its items checked as an
    ingest checks them (a bad one: :class:`InputRejected`; RDF: UsageError)."""
    snapshot, errors, checker = Snapshot(), [], ItemChecker()
    checked: list[Any]
    for given in read_inputs([path], stream_min_bytes=None):
        for part in given.expanded():
            if isinstance(part, RdfDocument):
                raise UsageError(f"{safe_text(path, 200)}: kg diff compares catalog JSON, not RDF")
            checked = list(checker.edges(part) if part.kind == EDGES else checker.records(part))
            errors += [c.error for c in checked if c.item is None and c.error]
            good = [c.item for c in checked if c.item is not None]
            if part.kind == EDGES:
                snapshot.edges = (snapshot.edges or []) + [edge_to_json(e) for e in good]
                snapshot.headers["edges"] = part.header or {}
            else:
                snapshot.records = dict(snapshot.records or {}, **{r.id: record_to_json(r) for r in good})
                if part.kind == BULK:
                    snapshot.headers["catalog"] = part.header
    if errors:
        raise InputRejected(errors)
    return snapshot


def _opened(store: StoreGiven) -> GraphStore:
    if store is None:
        raise UsageError("a changeset side needs a store")
    return store if isinstance(store, GraphStore) else store()


def diff(old: str, new: str, store: StoreGiven = None, iris: Iris | None = None) -> Changeset:
    """The changes from ``old`` to ``new`` (each a file path or a changeset word, see the module).

    ``store`` is the store the changeset sides are read from, or a function that opens it
    (called only when a side is a changeset, so two files need no store at all).
    """
    names = iris or Iris()
    sides = (old, new)
    files = [os.path.exists(word) for word in sides]
    numbers = [None if is_file else changeset_side(word) for word, is_file in zip(sides, files)]
    if all(files):
        return diff_catalogs(file_snapshot(old), file_snapshot(new))
    opened = _opened(store)
    if not any(files):
        return diff_versions(opened, names, numbers[0], numbers[1])
    current = max(changeset_numbers(opened, names), default=0)
    wanted = [current if n is None else n for n, is_file in zip(numbers, files) if not is_file]
    # two store versions: only the records a changeset after the older one touched can differ
    at = snapshots_at(opened, names, wanted)
    return diff_catalogs(*[file_snapshot(word) if is_file else at[current if n is None else n]
                           for word, n, is_file in zip(sides, numbers, files)])


def diff_versions(store: GraphStore, iris: Iris, old: int | None, new: int | None) -> Changeset:
    """The changes from the store's version at changeset ``old`` to that at ``new`` (None: the store
    now; 0: before the first). Two neighbouring changesets give the stored changeset itself, with
    its times and input files; any other pair is diffed from the two versions, reading only the
    records that the changesets after the older one touched."""
    current = max(changeset_numbers(store, iris), default=0)
    first, second = (current if n is None else n for n in (old, new))
    if second == first + 1 and second > 0:
        return changeset_at(store, iris, second)  # with its times and input files
    at = snapshots_at(store, iris, [first, second], touched_only=True)
    return diff_catalogs(at[first], at[second])
