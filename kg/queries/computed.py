"""Named queries answered in Python: declared by a header as a ``.rq`` file is, their rows sent as a VALUES table.

Some questions are not SPARQL's to answer (a model fitted to each paper's citations, a score
over a synonym table), yet they belong with the named queries: listed by ``kg query --list``,
run by ``kg query NAME``, :func:`kg.query`, a page with a form on ``kg serve`` and a tool of ``kg
mcp``. Such a query is declared by :func:`declare`: a header of the same ``# title:``,
``# question:``, ``# param:``, ``# returns:`` lines (so that the forms, the command's help and the
tools' input schemas come from one declaration, and its values are checked, converted and
resolved, an unknown system with close matches, as any query's) and the columns it answers,
with the function that answers it. :class:`Computed` is the registry source of such queries
(:meth:`kg.queries.Registry.add`).

The plan of such a query (:func:`kg.queries.plan`) calls its function on the version with the
values as resolved (text, defaults filled in, a system's name as its id) and sends its rows as
a VALUES table (:func:`answer_text`): the text of the plan is still all of the answer, and
every face runs it as it runs any plan. The function's notes are the plan's notes.

>>> print(answer_text(["id", "why"], [{"id": "x", "why": ["a", "b"]}, {"id": "y", "why": None}]))
SELECT ?id ?why WHERE { VALUES (?_row ?id ?why) { (0 "x" "a; b") (1 "y" UNDEF) } } ORDER BY ?_row
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Protocol

from pyoxigraph import Literal

from ..errors import QueryError
from .named import NamedQuery, parse

LIST_SEPARATOR = "; "  # a list of lines in one cell (rationale, caveats)
_ROW = "_row"  # the variable that keeps the rows in the answer's order


class Answered(Protocol):
    """What a computed query's function returns: its columns, its rows (column -> a JSON value: str,
    int, float, bool, None, or a list of str) and notes for the reader."""

    columns: list[str]
    rows: list[dict[str, Any]]
    notes: list[str]


#: (version, values as resolved: parameter name -> text) -> the answer
Compute = Callable[[Any, Mapping[str, str]], Answered]


def declare(name: str, header: str, columns: Iterable[str], compute: Compute) -> NamedQuery:
    """The query ``name``: its ``header`` (comment lines, as a ``.rq`` file's), the ``columns`` it
    answers (its text is the SELECT of them over an empty VALUES table: what it answers with no
    rows) and ``compute``, which answers it."""
    shown = list(columns)
    variables = " ".join(f"?{c}" for c in shown)
    body = (f"# answer: computed in Python ({compute.__module__}.{compute.__qualname__}); a plan sends its rows as "
            f"a VALUES table\nSELECT {variables} WHERE {{ VALUES ({variables}) {{ }} }}\n")
    declared_in = inspect.getsourcefile(compute)  # its path: the module that declares it, no .rq file
    query = parse(header.rstrip("\n") + "\n" + body, Path(declared_in or f"{name}.rq"), trusted=True)
    query.name, query.compute = name, compute
    return query


def answer_text(columns: list[str], rows: Iterable[Mapping[str, Any]]) -> str:
    """The SELECT of ``columns`` whose solutions are ``rows``, in their order (a VALUES table)."""
    table = " ".join("(" + " ".join([str(number)] + [_term(row.get(c)) for c in columns]) + ")"
                     for number, row in enumerate(rows))
    variables = " ".join(f"?{c}" for c in columns)
    return f"SELECT {variables} WHERE {{ VALUES (?{_ROW} {variables}) {{ {table} }} }} ORDER BY ?{_ROW}"


def _term(value: Any) -> str:
    """A JSON value as a term of a VALUES table (None: UNDEF; a list: its items, one a line, as text)."""
    if value is None:
        return "UNDEF"
    if isinstance(value, (list, tuple)):
        return str(Literal(LIST_SEPARATOR.join(str(item) for item in value)))
    if isinstance(value, (bool, int, float, str)):
        return str(Literal(value))
    return str(Literal(str(value)))


class Computed:
    """A registry source of computed queries (a :class:`kg.queries.Source`)."""

    def __init__(self, queries: Iterable[NamedQuery]) -> None:
        self.queries = {q.name: q for q in queries}
        if any(q.compute is None for q in self.queries.values()):
            raise QueryError("a computed source holds only queries made by kg.queries.declare")

    def names(self) -> list[str]:
        return sorted(self.queries)

    def get(self, name: str) -> NamedQuery | None:
        return self.queries.get(name)

    def holding(self, path: Path) -> NamedQuery | None:
        return None  # no file of the user's is one of these
