"""Reads of one pyoxigraph store: SPARQL with values bound (never pasted), rows as dicts, and the
store's faults met while reading raised as one-line ``StoreError`` messages.

>>> from pyoxigraph import NamedNode, Literal, Quad, Store
>>> store = Store()
>>> g = NamedNode("https://example.org/g")
>>> store.add(Quad(g, g, Literal("v"), g))
>>> [row["o"].value for row in select_rows(store, "SELECT ?o WHERE { ?s ?p ?o }", {"s": g})]
['v']
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator, Mapping, TypeVar

from pyoxigraph import QueryBoolean, QuerySolutions, QueryTriples, Store

from ..errors import QueryError, StoreError
from ..sparql.binding import bind
from ..sparql.lexer import has_keyword
from ._faults import is_storage_fault, reason

T = TypeVar("T")
Result = QuerySolutions | QueryBoolean | QueryTriples


def read(action: Callable[..., T], *args: Any) -> T:
    """``action(*args)``, a storage fault raised as StoreError."""
    try:
        return action(*args)
    except (OSError, RuntimeError) as err:
        raise StoreError(f"cannot read the store: {reason(err)}") from None


def checked(items: Iterable[Any], store: Store) -> Iterator[Any]:
    """``items`` (read from ``store``, held while iterating), a storage fault while iterating raised
    as StoreError."""
    try:
        yield from items
    except (OSError, RuntimeError) as err:
        raise StoreError(f"cannot read the store: {reason(err)}") from None


def run_query(store: Store, sparql: str, bindings: Mapping[str, Any] | None = None, *,
              union: bool = True, default_graph: Any = None, named_graphs: Any = None,
              options: Mapping[str, Any] | None = None) -> Result:
    """Run a SPARQL query on ``store`` with ``bindings`` bound as constants (see
    ``GraphStore.query``); a malformed or failing query raises QueryError, a storage fault StoreError."""
    text = bind(sparql, bindings) if bindings else sparql
    kwargs: dict[str, Any] = dict(options or {})
    if default_graph is not None or named_graphs is not None:
        if default_graph is not None:
            kwargs["default_graph"] = default_graph
        if named_graphs is not None:
            kwargs["named_graphs"] = named_graphs
    elif not has_keyword(text, "FROM"):
        # pyoxigraph lets use_default_graph_as_union override a query's FROM clauses
        kwargs["use_default_graph_as_union"] = union
    try:
        return store.query(text, **kwargs)
    except SyntaxError as err:
        raise QueryError(f"malformed SPARQL: {err}") from None
    except (RuntimeError, ValueError, OSError) as err:
        if is_storage_fault(err):
            raise StoreError(f"cannot read the store: {reason(err)}") from None
        raise QueryError(str(err)) from None


def select_rows(store: Store, sparql: str, bindings: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """The rows of a SELECT query on ``store`` as dicts of variable name -> term (unbound left out)."""
    result = run_query(store, sparql, bindings)
    if not isinstance(result, QuerySolutions):
        raise QueryError("expected a SELECT query")
    names = [v.value for v in result.variables]
    try:  # a row read by position: by name, pyoxigraph looks each variable up again
        return [{n: v for n, v in zip(names, row) if v is not None} for row in result]
    except (RuntimeError, OSError) as err:
        if is_storage_fault(err):
            raise StoreError(f"cannot read the store: {reason(err)}") from None
        raise QueryError(str(err)) from None
