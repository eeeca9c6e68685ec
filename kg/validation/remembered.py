"""The catalog-wide answers of a generation, worked out once and remembered in a file beside its data.

``kg validate --record ID`` checks a few record graphs and answers every catalog-wide rule
over the whole store (queries/check-*.rq): at 45,600 full-shape records those queries cost
0.4 s, more than a hundred records' own checks. Their answers depend on the generation's
data, which is sealed and never written again, and on the rules; so they are kept beside the
generation (``kg-catalog-rules.json``, a file kept through :mod:`kg.store.kept`, as the words index
and the damage check's marker are): written at the end of an ingest or by the first validation that
finds none, and used while the data files are those they were answered from, the file's content is
the one written (its digest: an answer taken out or rows added by hand make it answered again) and
the rules those they were answered for (a digest of each rule's name, query text, path, component
and severity, and of the base). In memory, inside a write session, or where the folder cannot be
written, the queries run every time.

>>> import tempfile
>>> from pyoxigraph import NamedNode, Quad
>>> from kg.store import GraphStore
>>> folder = tempfile.mkdtemp()
>>> store = GraphStore(folder)
>>> store.add([Quad(NamedNode("https://e.org/a"), NamedNode("https://e.org/p"), NamedNode("https://e.org/b"))])
>>> store = GraphStore.open_existing(folder, read_only=True)
>>> asked = []
>>> answer = lambda: asked.append(1) or {"Rule": [("<https://e.org/a>", None)]}
>>> answers(store, "digest", answer), answers(store, "digest", answer), len(asked)
({'Rule': [('<https://e.org/a>', None)]}, {'Rule': [('<https://e.org/a>', None)]}, 1)
"""

from __future__ import annotations

import hashlib
import json
from typing import Callable, Iterable

from ..store import GraphStore, KeptFile

#: the file beside a generation; its format is bumped when what the file holds changes
KEPT = KeptFile("kg-catalog-rules.json", "2")

Answers = dict[str, list[tuple[str, "str | None"]]]  # rule name -> (focus, value) texts of each result


def digest(parts: Iterable[object]) -> str:
    """A digest of what the answers depend on besides the data (the rules, the base)."""
    return hashlib.sha256(json.dumps(list(parts), sort_keys=True).encode("utf-8")).hexdigest()


def can_remember(store: GraphStore) -> bool:
    """Whether answers can be kept for the version ``store`` reads (not in memory, for a plain old
    store, or inside a write session)."""
    return KEPT.can_keep(store)


def answers(store: GraphStore, key: str, answer: Callable[[], Answers]) -> Answers:
    """The answers remembered for the generation ``store`` reads and ``key`` (a :func:`digest`), or
    ``answer()``, remembered for the next time where the generation's folder can be written."""
    held = KEPT.read(store)
    if isinstance(held, dict) and held.get("key") == key and _well_formed(held.get("answers")):
        return {name: [(focus, value) for focus, value in rows] for name, rows in held["answers"].items()}
    made = answer()
    KEPT.write(store, {"key": key, "answers": made})
    return made


def _well_formed(found: object) -> bool:
    """Whether ``found`` is answers as :func:`answers` writes them (a file edited by hand is not used)."""
    def result(row: object) -> bool:
        return isinstance(row, list) and len(row) == 2 and isinstance(row[0], str) \
            and (row[1] is None or isinstance(row[1], str))

    return isinstance(found, dict) and all(isinstance(name, str) and isinstance(rows, list) and all(map(result, rows))
                                           for name, rows in found.items())
