"""A named query: a ``.rq`` file's SPARQL and its header (title, question, typed parameters, cost).

Each file starts with a comment header::

    # title: Systems with MCP support
    # question: Which systems support MCP natively, via an adapter or as a client?
    # param: tier (integer, optional) only systems of this tier
    # param: limit (limit, optional, default=50) at most this many rows
    # returns: id, name, tier

A query that must read the whole catalog whatever it is asked says so in a ``# cost:`` line, with
what it was measured to take; the listing, the pages and the MCP tools show it. A text or a file of
the user's is a query too (:func:`from_text`), with whatever header it has; only the queries of a
trusted source (the bundled ones) skip the guard and may have the words index answer for them.

>>> q = from_text("# title: Systems\\nSELECT ?s WHERE { ?s a ?type }")
>>> q.name, q.title, q.form, sorted(q.variables), q.trusted, q.body
('<text>', 'Systems', 'SELECT', ['s', 'type'], False, 'SELECT ?s WHERE { ?s a ?type }')
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Callable

from pyoxigraph import NamedNode

from ..errors import QueryError
from ..parameters import Param, check_default, parse_param, relation_placeholder
from ..sparql.binding import bind_paths
from ..sparql.lexer import query_form, variables

HEADER_KEYS = ("title", "question", "returns")

_COST = re.compile(r"^#\s*cost\s*:", re.IGNORECASE)
_HEADER = re.compile(r"^#\s*(title|question|param|returns|description|cost)\s*:\s*(.*)$", re.IGNORECASE)


@dataclass
class NamedQuery:
    name: str
    path: Path
    text: str
    title: str = ""
    question: str = ""
    returns: str = ""
    params: list[Param] = field(default_factory=list)
    cost: str = ""  # what a query that reads the whole catalog costs, measured (its "# cost:" line)
    trusted: bool = False  # one of kg's own (its source says so): the guard need not check it
    # the function that answers it, for a query answered in Python (kg.queries.computed: its plan sends
    # the rows as a VALUES table); None for a SPARQL query
    compute: Callable[[Any, Any], Any] | None = field(default=None, repr=False, compare=False)

    @cached_property
    def variables(self) -> frozenset[str]:
        """The names of the query's variables (its text lexed once, not at every run)."""
        return frozenset(variables(self.text))

    @cached_property
    def form(self) -> str | None:
        """SELECT, ASK, CONSTRUCT or DESCRIBE (None: not a query)."""
        return query_form(self.text)

    @property
    def body(self) -> str:
        """The text after its header (the comment lines it starts with): what a plan binds and sends."""
        lines = self.text.splitlines(keepends=True)
        start = next((i for i, line in enumerate(lines) if line.strip() and not line.startswith("#")), len(lines))
        return "".join(lines[start:])

    @property
    def shown_text(self) -> str:
        """The text as pages and editors show it: without its ``# cost:`` lines (the benchmarks'
        notes, for the docs and ``kg query --list``, not for readers of a page)."""
        return "".join(line for line in self.text.splitlines(keepends=True) if not _COST.match(line))

    @property
    def limit_param(self) -> Param | None:
        return next((p for p in self.params if p.type == "limit"), None)


def parse(text: str, path: Path, *, trusted: bool = False) -> NamedQuery:
    """The query of a file: its header (the comment lines before the first SPARQL line) and text."""
    query = NamedQuery(name=path.stem, path=path, text=text, trusted=trusted)
    for line in text.splitlines():
        if not line.startswith("#"):
            if line.strip():
                break
            continue
        m = _HEADER.match(line)
        if not m:
            continue
        key, value = m.group(1).lower(), m.group(2).strip()
        if key == "param":
            param = parse_param(value, path.name)
            if any(p.name == param.name for p in query.params):
                raise QueryError(f"{path.name}: parameter {param.name} declared twice")
            query.params.append(param)
        elif key in ("question", "description"):
            query.question = value
        else:
            setattr(query, key, value)
    return query


def from_text(text: str, label: str = "<text>") -> NamedQuery:
    """A query given as text (``kg query --text``, stdin: ``label`` names it in messages)."""
    query = parse(text, Path(label))
    query.name = label
    return query


def _relations_problems(query: NamedQuery, param: Param) -> list[str]:
    """A ``relations`` parameter's default names one edge type whose property the query uses."""
    try:
        placeholder = relation_placeholder(param)
    except QueryError as err:
        return [str(err)]
    probe = bind_paths(query.body, {placeholder: (NamedNode("urn:x-kg:probe"),)})
    return [] if probe != query.body else [f"parameter {param.name}: the query never names {placeholder}"]


def header_problems(query: NamedQuery) -> list[str]:
    """What is missing from a query's header (empty when it is complete)."""
    problems = [f"no '# {key}:' line" for key in HEADER_KEYS if not getattr(query, key)]
    problems += [f"parameter {p.name} has no description" for p in query.params if not p.doc]
    if sum(p.type == "limit" for p in query.params) > 1:
        problems.append("more than one limit parameter")
    used = query.variables
    for p in query.params:
        if p.type == "relations":
            problems += _relations_problems(query, p)
        elif p.type != "limit" and p.variable not in used and query.compute is None:
            problems.append(f"parameter {p.name} is not a variable of the query"
                            + (f" (it binds ?{p.variable})" if p.binds else ""))
        if p.either and p.either not in {o.name for o in query.params}:
            problems.append(f"parameter {p.name}: or={p.either} names no parameter")
        if p.default is not None:
            try:
                check_default(p)
            except QueryError as err:
                problems.append(str(err))
    return problems
