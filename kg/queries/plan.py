"""The one plan of a query: the exact text sent to the store, the rows kept, and what it noted on the way.

Every face runs a query through :func:`plan` (``kg query`` and its ``--sparql``, :func:`kg.query`,
the pages and the worker of ``kg serve``, the tools of ``kg mcp``), for a named query, a ``.rq`` or
``.sparql`` file, or a text. Its steps, one way down:

1. the query itself (:mod:`kg.queries.registry`: a name, a file, a text); a query answered in Python
   (:mod:`kg.queries.computed`) is planned by its function after step 3, its rows the text sent;
2. a query of the user's (not one of a trusted source) checked by the guard against the graphs of
   the version (:func:`kg.sparql.guard.check_query`: no SERVICE, no remote FROM, the caps), which
   also says its form and whether it names its own dataset;
3. the values given checked and converted (:func:`kg.parameters.convert`), then those that name
   systems or vendors resolved against the version's indexes (:class:`kg.lookup.Indexes`, handed
   over explicitly): an unknown system is NotFound, a choice among several is a note;
4. the terms bound into the query's text (its header left out) as VALUES
   (:func:`kg.sparql.binding.bind`), never pasted;
5. the words index's step: where the version's words index answers search's ranked hits (the
   group between its two marker comments, :mod:`kg.textindex`), those hits, as a sorted VALUES
   table, take the group's place in the text, under a comment that says so;
6. the kept tables' step: a block of a bundled query that reads rows kept beside the version
   (the findings of its validation, :mod:`kg.queries.tables`) filled with those rows, as a VALUES
   table, under a comment that says so;
7. the row cap of a ``limit`` parameter bound as the outer query's ``LIMIT``
   (:func:`kg.sparql.binding.limited`).

So the text of a plan is what runs, and all of it: printed by ``kg query --sparql`` and given back
to ``kg query --text`` it gives the same rows (tests/test_query_plan.py checks every named query).
The version is one version of the graph: a :class:`kg.store.GraphStore` as it reads now (pinned by
whoever shares it between threads) or a remote :class:`kg.remote_query.Endpoint` (no guard there:
the remote runs what it is sent; no words index).

>>> from kg.store import GraphStore
>>> p = plan("search", {"text": "Graph Memory", "limit": "5"}, GraphStore())
>>> p.limit, p.form, p.notes, "} LIMIT 5" in p.text
(5, 'SELECT', (), True)
>>> '("graph memory")' in p.text
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping

from ..errors import QueryError
from ..lookup import Indexes, resolve_values
from ..parameters import Converted, convert
from ..sparql.binding import bind, bind_paths, limited
from ..sparql.guard import QueryRefused, check_query
from ..store import GraphStore
from ..textindex import ranked_group
from ..vocab import Iris
from . import tables
from .computed import answer_text
from .named import NamedQuery
from .registry import load

if TYPE_CHECKING:
    from ..remote_query import Endpoint

_LIMITED_FORMS = ("SELECT", "CONSTRUCT", "DESCRIBE")


@dataclass(frozen=True)
class Plan:
    """A query made ready to send: ``text`` is exactly what the store is asked."""

    query: NamedQuery
    text: str
    limit: int | None  # the rows kept (also the text's LIMIT, for the forms that take one)
    notes: tuple[str, ...] = ()  # what resolving a name chose, said to the reader
    values: dict[str, str] = field(default_factory=dict)  # the values as resolved (a name as its id)
    form: str = "SELECT"  # SELECT, ASK, CONSTRUCT or DESCRIBE
    dataset: bool = False  # the text names its own dataset (FROM / FROM NAMED)


def plan(query: str | NamedQuery, values: Mapping[str, str] | None, version: "GraphStore | Endpoint | None",
         iris: Iris | None = None) -> Plan:
    """The plan of ``query`` (a :class:`NamedQuery`, or a name, a ``.rq``/``.sparql`` path or a text:
    :func:`kg.queries.load`) with ``values`` (parameter name -> text) on ``version``. Bad values fail
    before the graph is read; a query of the user's that the guard refuses is QueryRefused; a value
    that names no system (or several) is NotFound. ``version`` None plans for no graph in particular
    (another engine given the same text, as the benchmarks' baselines do): ids bound as given,
    unchecked, a name or a vendor refused, no guard and no words index."""
    query = query if isinstance(query, NamedQuery) else load(query)
    iris = iris or Iris()
    converted = convert(query.name, query.params, values or {}, iris, query.variables)
    form, dataset = _checked(query, version)
    if converted.pending and version is not None:
        resolved = resolve_values(Indexes.of(version), query.name, converted.pending, iris)
        converted = converted.with_resolved(resolved, iris)
    elif converted.pending:  # no graph: ids as given, unchecked; a name or a vendor is an error
        converted = converted.with_resolved({name: (given, None) for name, (_, given) in converted.pending.items()},
                                            iris)
    if query.compute is not None:
        return _computed(query, version, converted)
    text = bind_paths(bind(query.body, converted.terms), converted.paths)
    text = _ranked_hits(text, query, version, converted)
    notes = list(converted.notes)
    if query.trusted:  # the kept tables' step: rows kept beside the version, as VALUES (kg.queries.tables)
        text, said = tables.fill(query.name, text, version, converted.values, iris, converted.limit)
        notes += said
    if converted.limit is not None and form in _LIMITED_FORMS:
        text = limited(text, converted.limit)
    return Plan(query, text, converted.limit, tuple(notes), converted.values, form, dataset)


def _computed(query: NamedQuery, version: Any, converted: Converted) -> Plan:
    """The plan of a query answered in Python (:mod:`kg.queries.computed`): its function asked on the
    version with the values as resolved, the rows it answers as the text sent, its notes said."""
    if version is None or query.compute is None:
        raise QueryError(f"{query.name} is answered in Python from a graph: it needs a store or an endpoint")
    answer = query.compute(version, dict(converted.values))
    text = answer_text(answer.columns, answer.rows)
    if converted.limit is not None:
        text = limited(text, converted.limit)
    return Plan(query, text, converted.limit, tuple(converted.notes) + tuple(answer.notes), converted.values)


def _checked(query: NamedQuery, version: Any) -> tuple[str, bool]:
    """The query's form and whether it names its own dataset; a query of the user's run on a store
    of ours is checked by the guard first (pyoxigraph would follow its SERVICE and remote FROM)."""
    if isinstance(version, GraphStore) and not query.trusted:
        try:
            checked = check_query(query.text, {g.value for g in version.named_graphs()})
        except QueryRefused as err:
            raise QueryRefused(f"{query.path}: {err}") from None
        return checked.form, checked.has_dataset
    if query.form not in _LIMITED_FORMS + ("ASK",):
        raise QueryError(f"{query.path}: not a SPARQL query (SELECT, ASK, CONSTRUCT or DESCRIBE), nor the name "
                         "of one (kg query --list names them)")
    return query.form, False


_RANKED_MARK = "# -- ranked hits:"
_RANKED = re.compile(rf"^[ \t]*{_RANKED_MARK}.*?^[ \t]*# -- end of the ranked hits --[^\n]*$", re.M | re.S)
_FROM_INDEX = ("# -- ranked hits: the words index of this version answered them (kg.textindex), in search.rq's "
               "order, the first {limit} --\n  ")


def _ranked_hits(text: str, query: NamedQuery, version: Any, converted: Converted) -> str:
    """The words index's step: search's ranked hits, where the index of the version answers them, in
    place of their group (after binding: the table is data, with nothing in it for the binder to read)."""
    # the marker first: every named query passes here, and only search has ranked hits
    if not (_RANKED_MARK in query.text and query.trusted and isinstance(version, GraphStore)):
        return text
    found = _RANKED.search(text)
    group = None if found is None else ranked_group(version, converted.terms, converted.limit)
    if found is None or group is None:
        return text
    shown = "all" if converted.limit is None else str(converted.limit)
    return (text[:found.start()] + "  " + _FROM_INDEX.format(limit=shown) + group
            + "\n  # -- end of the ranked hits --" + text[found.end():])
