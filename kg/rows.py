"""Query rows for scripts: plain Python values typed by their datatypes, and DataFrames.

:func:`kg.query` gives a SELECT's answer as :class:`Rows`: a list of dicts, one per row,
every column of the query in each (``None`` where a variable is unbound), each value
plain Python: ``int`` (the XSD integer types), ``float`` (decimal, double, float),
``bool``, ``datetime.date`` (xsd:date), ``datetime.datetime`` (xsd:dateTime), ``str``
(every other literal), an :class:`IRI` (a ``str``) for an IRI and ``"_:id"`` for a blank
node. A literal that its datatype cannot read stays text. The pyoxigraph terms stay
at hand in :attr:`Rows.terms`; :meth:`Rows.to_pandas` and :meth:`Rows.to_polars` make
a DataFrame when that library is installed (``pip install 'agent-landscape-kg[pandas]'``
or ``[polars]``), of columns it can hold (:mod:`kg.frames`: a dateTime column with zones in
UTC, the zones beside it).

>>> from pyoxigraph import Literal, NamedNode, Variable
>>> from kg.vocab import XSD
>>> rows = Rows.of([Variable("id"), Variable("n"), Variable("on")],
...                [[NamedNode("https://e.org/a"), Literal("3", datatype=XSD.integer),
...                  Literal("2026-01-31", datatype=XSD.date)], [None, Literal("x"), None]])
>>> rows
[{'id': IRI('https://e.org/a'), 'n': 3, 'on': datetime.date(2026, 1, 31)}, {'id': None, 'n': 'x', 'on': None}]
>>> rows.columns, rows.terms[0]["n"].value
(['id', 'n', 'on'], '3')
"""

from __future__ import annotations

import datetime as _dt
import math
from typing import Any, Iterable, Sequence

from pyoxigraph import BlankNode, Literal, NamedNode

from .errors import UsageError
from .frames import frame_columns
from .vocab import XSD

_XSD = XSD.date.value[: -len("date")]
_INTEGERS = {_XSD + t for t in ("integer", "int", "long", "short", "byte", "nonNegativeInteger", "positiveInteger",
                                "nonPositiveInteger", "negativeInteger", "unsignedLong", "unsignedInt",
                                "unsignedShort", "unsignedByte")}
_FLOATS = {_XSD + t for t in ("decimal", "double", "float")}


class IRI(str):
    """An IRI in a row: a ``str`` of its text, that says what it is."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"IRI({str.__repr__(self)})"


def plain(term: Any) -> Any:
    """One pyoxigraph term as a plain Python value (None stays None)."""
    if term is None:
        return None
    if isinstance(term, NamedNode):
        return IRI(term.value)
    if isinstance(term, BlankNode):
        return f"_:{term.value}"
    if not isinstance(term, Literal):
        return str(term)  # an RDF-star triple
    try:
        return _typed(term)
    except ValueError:
        return term.value  # ill-typed: its text


def _typed(term: Literal) -> Any:
    datatype, text = term.datatype.value, term.value
    if datatype in _INTEGERS:
        return int(text)
    if datatype in _FLOATS:
        number = float(text)
        return number if math.isfinite(number) or datatype != _XSD + "decimal" else text
    if datatype == _XSD + "boolean":
        if text not in ("true", "false", "1", "0"):
            raise ValueError(text)
        return text in ("true", "1")
    if datatype == _XSD + "date":
        return _dt.date.fromisoformat(text)
    if datatype == _XSD + "dateTime":
        return _dt.datetime.fromisoformat(text)
    return text


class Rows(list):
    """A SELECT's rows (dicts of plain values, every column in each), with the query's
    columns, the rows as pyoxigraph terms (:attr:`terms`, unbound variables left out)
    and what resolving the parameters chose (:attr:`notes`)."""

    columns: list[str]
    terms: list[dict[str, Any]]
    notes: list[str]

    @classmethod
    def of(cls, variables: Iterable[Any], solutions: Iterable[Sequence[Any]], notes: Sequence[str] = ()) -> "Rows":
        """The rows of ``solutions`` (each a sequence of terms or None, in ``variables``' order)."""
        columns = [getattr(v, "value", v) for v in variables]
        terms = [{n: t for n, t in zip(columns, row) if t is not None} for row in solutions]
        rows = cls({n: plain(row.get(n)) for n in columns} for row in terms)
        rows.columns, rows.terms, rows.notes = columns, terms, list(notes)
        return rows

    def _frame(self) -> dict[str, list]:
        """The DataFrame's columns, in order (:func:`kg.frames.frame_columns`)."""
        order, columns = frame_columns(self.columns, self, getattr(self, "terms", []))
        return {name: columns[name] for name in order}

    def to_pandas(self) -> Any:
        """The rows as a pandas DataFrame, one column a variable (needs pandas); a dateTime column
        with zones is UTC with the zones in ``<name>_tz``, a column of mixed kinds text (:mod:`kg.frames`)."""
        try:
            import pandas
        except ImportError:
            raise UsageError("to_pandas needs pandas: pip install 'agent-landscape-kg[pandas]'") from None
        data = self._frame()
        return pandas.DataFrame(data, columns=list(data))

    def to_polars(self) -> Any:
        """The rows as a polars DataFrame, one column a variable (needs polars); a dateTime column
        with zones is UTC with the zones in ``<name>_tz``, a column of mixed kinds text (:mod:`kg.frames`)."""
        try:
            import polars
        except ImportError:
            raise UsageError("to_polars needs polars: pip install 'agent-landscape-kg[polars]'") from None
        return polars.DataFrame(self._frame(), strict=False)
