"""What an advice tool answers: rows with stable keys, the notes a reader should see, and the
facts behind them (what was asked, read as), ready for any face (CLI, MCP, pages).

>>> a = Answer(["id", "score"], [{"id": "x", "score": 0.5}], ["read as: offline-capable"], {"k": 5})
>>> a.as_json()
{'columns': ['id', 'score'], 'rows': [{'id': 'x', 'score': 0.5}], 'notes': ['read as: offline-capable'], 'facts': {'k': 5}}
>>> day("2026-06-29"), day(None) == _dt.date.today()
(datetime.date(2026, 6, 29), True)
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Any

from ..errors import UsageError, safe_text


@dataclass
class Answer:
    """``rows``: one dict a row, every key of ``columns`` in each (JSON values: str, int, float,
    bool, None, lists of str); ``notes``: lines for the reader; ``facts``: the answer's context
    as JSON values (constraints read, counts, ranges)."""

    columns: list[str]
    rows: list[dict[str, Any]]
    notes: list[str] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {"columns": self.columns, "rows": self.rows, "notes": self.notes, "facts": self.facts}


def day(value: "_dt.date | str | None", name: str = "today") -> _dt.date:
    """A date given as a date or YYYY-MM-DD (None: the current date); UsageError otherwise."""
    if value is None:
        return _dt.date.today()
    if isinstance(value, _dt.datetime):
        return value.date()
    if isinstance(value, _dt.date):
        return value
    try:
        return _dt.date.fromisoformat(str(value).strip())
    except ValueError:
        raise UsageError(f"{name} must be a date as YYYY-MM-DD, not {safe_text(value, 40)!r}") from None


def count(value: object, name: str, least: int = 1, most: int | None = None) -> int:
    """An integer option checked: at least ``least`` (and at most ``most``); UsageError otherwise."""
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            value = int(str(value).strip())
        except ValueError:
            raise UsageError(f"{name} must be a whole number, not {safe_text(value, 40)!r}") from None
    if value < least or (most is not None and value > most):
        bound = f"{least} to {most}" if most is not None else f"{least} or more"
        raise UsageError(f"{name} must be {bound}, not {value}")
    return value
