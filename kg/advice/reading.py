"""How the advice tools read the graph: a named query's one column of literals, and what is made
from them kept for the store version that was read.

>>> from kg.store import GraphStore
>>> literals(GraphStore(), "select-advice-cells")
[]
>>> made = []
>>> kept = Kept()
>>> kept.get(GraphStore(), (), lambda: made.append(1) or "x"), len(made)   # in memory: nothing is kept
('x', 1)
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Generic, TypeVar

from pyoxigraph import QuerySolutions

from .. import queries
from ..errors import QueryError
from ..store import storage_error

T = TypeVar("T")


def literals(store: Any, name: str) -> list[str]:
    """The text of the first column of every row of the named query ``name`` on ``store``."""
    result = queries.run(store, name)
    if not isinstance(result, (QuerySolutions, queries.LimitedSolutions)):
        raise QueryError(f"{name} is not a SELECT query")
    try:
        return [solution[0].value for solution in result]
    except (RuntimeError, OSError) as err:
        fault = storage_error(err)
        if fault is None:
            raise
        raise fault from None


class Kept(Generic[T]):
    """One thing made from a store version (and the ``extra`` it was made for), kept while that
    version is the one read: a server's next question does not read and parse the graph again.
    One at a time: a newer version (or another ``extra``) replaces it."""

    def __init__(self) -> None:
        self._key: tuple | None = None
        self._value: T | None = None
        self._lock = threading.Lock()

    def get(self, store: Any, extra: tuple, make: Callable[[], T]) -> T:
        version = getattr(store, "version_key", None)  # a GraphStore's; None in memory or remote
        key = None if version is None else (*version, *extra)
        with self._lock:
            if key is not None and key == self._key and self._value is not None:
                return self._value
        value = make()
        if key is not None:
            with self._lock:
                self._key, self._value = key, value
        return value

    def clear(self) -> None:
        with self._lock:
            self._key, self._value = None, None
