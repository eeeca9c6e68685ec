"""A named query answered onto a stream, as ``kg query`` prints it: rows, a boolean or a graph,
and ``find``'s rows with their facet counts.

The command line's ``kg query`` is this one call; what a name resolved to and the facet counts
of a row format with no room for them go to ``note`` (stderr there), the answer to ``out``.

>>> import io
>>> from kg.store import GraphStore
>>> from kg import queries
>>> out = io.StringIO()
>>> write_answer(GraphStore(), queries.load("find"), {"protocol": "mcp"}, out=out, fmt="json")
>>> out.getvalue()
'{\\n "rows": [],\\n "facets": {...}\\n}\\n'
"""

from __future__ import annotations

import json
from typing import Any, Callable, Mapping, TextIO

from . import find, output, queries
from .vocab import Iris


def shows_facets(query: queries.NamedQuery, fmt: str | None) -> bool:
    """Whether ``query`` is answered in ``fmt`` with the facet counts beside the rows: the
    bundled ``find`` in a row format of kg's own (``sparql-json`` and the graph formats get
    the plain query result)."""
    return (query.name == "find" and query.trusted
            and fmt not in output.GRAPH_FORMATS + ("sparql-json",))


def write_answer(store: Any, query: queries.NamedQuery, params: Mapping[str, str] | None = None,
                 iris: Iris | None = None, *, out: TextIO, fmt: str | None = None,
                 note: Callable[[str], None] = lambda line: None) -> None:
    """Run ``query`` on ``store`` (a GraphStore or an Endpoint) with ``params`` bound and write
    its answer to ``out`` in ``fmt`` (None: the result's default); ``note`` gets each line
    meant for the reader beside the answer."""
    if shows_facets(query, fmt):
        _write_found(find.find(store, params or {}, iris), out, fmt or "table", note)
        return
    notes: list[str] = []
    result = queries.run(store, query, params, iris, notes=notes)
    for line in notes:
        note(f"kg query {query.name}: {line}")
    output.write_result(result, out, fmt)


def _write_found(found: find.Found, out: TextIO, fmt: str, note: Callable[[str], None]) -> None:
    """find's rows and its facet counts: json as {"rows", "facets"}; a table, then a table of
    the counts; csv, tsv and jsonl the rows alone, the counts to ``note`` (a line per facet)."""
    if fmt == "json":
        out.write(json.dumps(found.as_json(), indent=1, ensure_ascii=False) + "\n")
        return
    output.write_rows(found.rows, out, fmt, find.columns())
    if fmt == "table":
        counts = [{"facet": facet, "value": value, "systems": n} for facet, values in found.facets.items()
                  for value, n in values]
        out.write("\n")
        output.write_rows(counts, out, "table", ["facet", "value", "systems"])
        return
    for facet, values in found.facets.items():
        if values:
            note(f"facet {facet}: " + ", ".join(f"{value} ({n})" for value, n in values))
