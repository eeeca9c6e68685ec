"""The columns a DataFrame is made of, from query rows: each a kind pandas and polars can hold.

A row's values are plain Python (:mod:`kg.rows`), and Python holds what a DataFrame cannot:
``xsd:dateTime`` values with and without a time zone side by side (polars once raised
``ComputeError`` on such a column, later versions make it an opaque ``Object`` column; pandas
makes it ``object``), zones of several offsets, or a column where an integer stands beside a
text. So, column by column:

* a column of ``xsd:dateTime`` values of which at least one has a time zone becomes a column
  of UTC instants (tz-aware, UTC), each zone-aware value converted, and each value without a
  zone taken as UTC (XPath's implicit time zone); beside it, a column ``<name>_tz`` holds the
  zone each value was written with (``"Z"``, ``"+02:00"``) or None where it had none. The two
  together give back every value as written; a column of values without a zone stays as it is;
* a column mixing kinds (numbers and text, dates and booleans...) becomes text: each value's
  lexical form as the endpoint or store gave it (an IRI's text, ``_:id`` for a blank node);
* any other column is passed as it is (numbers, booleans, dates, text, None where unbound).

>>> import datetime as dt
>>> from pyoxigraph import Literal
>>> from kg.vocab import XSD
>>> texts = ["2026-01-01T10:00:00+02:00", "2026-01-01T10:00:00"]
>>> terms = [{"t": Literal(t, datatype=XSD.dateTime)} for t in texts]
>>> names, columns = frame_columns(["t"], [{"t": dt.datetime.fromisoformat(t)} for t in texts], terms)
>>> names, [str(v) for v in columns["t"]], columns["t_tz"]
(['t', 't_tz'], ['2026-01-01 08:00:00+00:00', '2026-01-01 10:00:00+00:00'], ['+02:00', None])
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any, Sequence

from pyoxigraph import Literal

_ZONE = re.compile(r"(Z|[+-]\d\d:\d\d)$")
ZONE_SUFFIX = "_tz"


def frame_columns(names: Sequence[str], rows: Sequence[dict[str, Any]],
                  terms: Sequence[dict[str, Any]]) -> tuple[list[str], dict[str, list]]:
    """The column names and values (in order) of a DataFrame of ``rows`` (plain values), whose
    pyoxigraph terms are ``terms`` (row by row, unbound variables left out)."""
    terms = terms if len(terms) == len(rows) else [{} for _ in rows]  # rows changed since: no lexical forms
    order: list[str] = []
    columns: dict[str, list] = {}
    taken = set(names)
    for name in names:
        values = [row.get(name) for row in rows]
        lexical = [_lexical(row_terms.get(name), value) for row_terms, value in zip(terms, values)]
        kinds = {_kind(v) for v in values if v is not None}
        order.append(name)
        if kinds == {"datetime"} and any(v.tzinfo is not None for v in values if v is not None):
            zone = _free(name + ZONE_SUFFIX, taken)
            columns[name] = [None if v is None else _utc(v) for v in values]
            columns[zone] = [None if v is None or v.tzinfo is None else _zone(text, v)
                             for v, text in zip(values, lexical)]
            order.append(zone)
        elif len(kinds) > 1 and kinds != {"number"}:
            columns[name] = lexical
        else:
            columns[name] = values
    return order, columns


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, _dt.datetime):  # before date: a datetime is a date to isinstance
        return "datetime"
    if isinstance(value, _dt.date):
        return "date"
    return "text"


def _lexical(term: Any, value: Any) -> str | None:
    """A value as text: its literal's lexical form, else the plain value's text (IRIs, ``_:id``)."""
    if value is None:
        return None
    return term.value if isinstance(term, Literal) else str(value)


def _utc(value: _dt.datetime) -> _dt.datetime:
    """The instant in UTC; a value without a zone taken as UTC."""
    if value.tzinfo is None:
        return value.replace(tzinfo=_dt.timezone.utc)
    return value.astimezone(_dt.timezone.utc)


def _zone(text: str | None, value: _dt.datetime) -> str:
    """The zone as written at the end of ``text``, else the value's offset as ``+HH:MM``."""
    found = _ZONE.search(text or "")
    if found:
        return found.group(1)
    offset = value.utcoffset() or _dt.timedelta(0)
    sign = "-" if offset < _dt.timedelta(0) else "+"
    minutes = abs(int(offset.total_seconds())) // 60
    return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def _free(name: str, taken: set[str]) -> str:
    """``name``, or with underscores added until no column has it; then taken."""
    while name in taken:
        name += "_"
    taken.add(name)
    return name


__all__ = ["ZONE_SUFFIX", "frame_columns"]
