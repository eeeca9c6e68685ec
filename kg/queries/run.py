"""A plan run on a store or a remote endpoint: pyoxigraph's results (:func:`run`), or plain Python ones.

:func:`query` gives the plain Python ones: rows of Python values, a bool, a list of triples."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any, Iterator, Mapping

from pyoxigraph import QueryBoolean, QuerySolutions, QueryTriples, Variable

from ..rows import Rows
from ..store import GraphStore
from ..vocab import Iris
from .named import NamedQuery
from .plan import Plan, plan

if TYPE_CHECKING:
    from ..remote_query import Endpoint


class LimitedSolutions:
    """SELECT results capped at a number of rows; iterates like ``QuerySolutions``."""

    def __init__(self, solutions: QuerySolutions, limit: int) -> None:
        self.variables: list[Variable] = list(solutions.variables)
        self._rows = itertools.islice(solutions, limit)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._rows)


Result = QuerySolutions | LimitedSolutions | QueryBoolean | QueryTriples


def run_plan(version: "GraphStore | Endpoint", planned: Plan) -> Result:
    """The results of ``planned`` on ``version`` (the one it was planned on): its text sent, its rows
    kept to its limit (the text's LIMIT says so too; a remote that ignores it is held to it here)."""
    result = version.query(planned.text)
    if planned.limit is not None and isinstance(result, QuerySolutions):
        return LimitedSolutions(result, planned.limit)
    return result


def run(store: "GraphStore | Endpoint", name_or_path: str | NamedQuery, params: Mapping[str, str] | None = None,
        iris: Iris | None = None, *, notes: list[str] | None = None) -> Result:
    """Run a named query (or a .rq/.sparql file, a text, or a loaded query) with its parameters bound:
    its :func:`~kg.queries.plan.plan` on ``store``, run.

    Returns pyoxigraph results: SELECT as ``QuerySolutions`` (``LimitedSolutions`` when the
    query has a ``limit`` parameter), ASK as ``QueryBoolean``, CONSTRUCT/DESCRIBE as
    ``QueryTriples``. ``store`` may also be a remote :class:`kg.remote_query.Endpoint`: the same
    plan is made there and its text sent, and the answer comes back in the same types. What
    resolving a name chose is appended to ``notes`` when given.
    """
    planned = plan(name_or_path, params, store, iris)  # bad values fail before the store is asked
    if notes is not None:
        notes.extend(planned.notes)
    return run_plan(store, planned)


def query(store: "GraphStore | Endpoint", name_or_path: str | NamedQuery, params: Mapping[str, str] | None = None,
          iris: Iris | None = None) -> Any:
    """Like :func:`run`, with the results in plain Python containers.

    SELECT: :class:`kg.rows.Rows`, a list of rows, each a dict of every column -> a plain
    Python value (``None`` when unbound; the pyoxigraph terms in ``.terms``, what a name
    resolved to in ``.notes``); ASK: a bool; CONSTRUCT/DESCRIBE: a list of distinct
    triples in result order.

    >>> from kg.store import GraphStore
    >>> query(GraphStore(), "sections")
    []
    """
    notes: list[str] = []
    result = run(store, name_or_path, params, iris, notes=notes)
    if isinstance(result, QueryBoolean):
        return bool(result)
    if isinstance(result, QueryTriples):
        return list(dict.fromkeys(result))
    return Rows.of(result.variables, ([row[v] for v in result.variables] for row in result), notes)
