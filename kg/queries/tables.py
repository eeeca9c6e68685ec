"""Kept tables: rows a named query reads from what is kept beside a version, not from its graph.

A bundled query may hold a block::

    # -- kept table: findings --
    VALUES (?order ?id ?rule) { }
    # -- end of the kept table --

Its plan (:func:`kg.queries.plan`) puts in the block's place the rows of the table of that name
for the version it runs on (:data:`TABLES`: the findings kept beside the version,
:mod:`kg.findings`, or counts of them), as a VALUES table of the block's variables under a
comment that says so; the rest of the query (labels, sections, filters, order) runs in the store
as written. So the plan's text is still all that runs: ``kg query findings --sparql`` prints it,
rows and all, and given back to ``kg query --text`` it gives the same rows. A table filters its
rows by the values the query binds where it can (fewer rows in the text; the query's own VALUES
and FILTERs give the same answer either way) and stops at the query's limit (its rows are in
the query's order, ``?order``). Where the step cannot run (a query of the user's, no graph at all)
the block runs as written: no rows; a remote endpoint is refused the query (it has no such rows, and
no rows would read as "none found").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

from pyoxigraph import Literal, NamedNode

from .. import findings
from ..errors import QueryError
from ..store import GraphStore
from ..vocab import DCTERMS, KG, SKOS, XSD, Iris

Term = NamedNode | Literal
Row = dict[str, "Term | None"]


@dataclass
class Table:
    """The rows of a kept table (variable name -> term, None: unbound) and what to tell the reader."""

    rows: list[Row]
    notes: list[str] = field(default_factory=list)
    said: str = ""  # what the rows are, for the comment over them


Maker = Callable[[GraphStore, Mapping[str, str], Iris, "int | None"], Table]

_BLOCK = re.compile(r"^(?P<indent>[ \t]*)# -- kept table: (?P<name>[A-Za-z0-9_-]+) --[^\n]*\n"
                    r"(?P<body>.*?)^[ \t]*# -- end of the kept table --[^\n]*$", re.M | re.S)
_VARIABLES = re.compile(r"VALUES\s*\(((?:\s*\?\w+)+)\s*\)")


def reads_kept(text: str) -> bool:
    """Whether ``text`` holds a kept table's block."""
    return _BLOCK.search(text) is not None


def fill(name: str, text: str, version: Any, values: Mapping[str, str], iris: Iris,
         limit: int | None) -> tuple[str, list[str]]:
    """``text`` (the trusted query ``name``'s, bound) with each kept table's block filled for
    ``version`` (a GraphStore; None, no graph, leaves the blocks as written; a remote endpoint is
    refused the query), and the notes of the tables."""
    if "# -- kept table:" not in text or version is None:
        return text, []
    if not isinstance(version, GraphStore):  # a remote endpoint: refused, never "no rows found"
        if reads_kept(text):
            raise QueryError(f"{name}: reads what is kept beside a local store's version (its validation's "
                             "findings), which a remote endpoint does not have: ask it with --store")
        return text, []
    notes: list[str] = []

    def filled(found: re.Match[str]) -> str:
        make = TABLES.get(found.group("name"))
        variables = _VARIABLES.search(found.group("body"))
        if make is None or variables is None:
            return found.group(0)
        names = variables.group(1).split()
        table = make(version, values, iris, limit)
        notes.extend(table.notes)
        indent = found.group("indent")
        rows = "\n".join(indent + "  (" + " ".join(_text(row.get(n[1:])) for n in names) + ")" for row in table.rows)
        return (f"{indent}# -- kept table: {found.group('name')}: {table.said or 'as kept for this version'}, "
                f"{len(table.rows)} row(s) --\n{indent}VALUES ({' '.join(names)}) {{\n{rows}\n{indent}}}\n"
                f"{indent}# -- end of the kept table --")

    return _BLOCK.sub(filled, text), notes


def _text(term: "Term | None") -> str:
    if term is None:
        return "UNDEF"
    if isinstance(term, Literal) and term.datatype == XSD.integer:
        return term.value  # an integer as SPARQL writes it, not "5"^^<...#integer>: the table is shorter
    return str(term)  # pyoxigraph's serialiser escapes


def term_of(text: str | None) -> "Term | None":
    """A term text as :mod:`kg.findings` keeps it (an IRI as itself, a literal in N-Triples form, a
    blank node as _:id) as a term for a table: a literal parsed back, a blank node as its text."""
    if text is None:
        return None
    if text.startswith('"'):
        shown = findings.display_text(text)
        return Literal(shown if shown is not None else text)
    if text.startswith("_:"):
        return Literal(text)
    try:
        return NamedNode(text)
    except ValueError:
        return Literal(text)


def _matching(found: findings.Findings, values: Mapping[str, str], sections: Mapping[str, str] | None
              ) -> Iterable[tuple[int, findings.Finding]]:
    """The findings (with their place in the kept order) that the query's values keep."""
    rule, column, record, severity = (values.get(k) for k in ("rule", "column", "id", "severity"))
    section = values.get("section")
    rows = found.of_record(record) if record is not None else found.rows
    for order, row in enumerate(rows):
        if ((rule is None or row.rule == rule) and (column is None or row.column == column)
                and (severity is None or row.severity == severity)
                and (section is None or (sections is not None and sections.get(row.record or "") == section))):
            yield order, row


def primary_sections(store: GraphStore) -> dict[str, str]:
    """Each record's id -> the name of its primary section."""
    rows = store.select(f"""SELECT ?id ?section WHERE {{
  ?s a {KG.System} ; {DCTERMS.identifier} ?id ; {KG.primarySection}/{SKOS.prefLabel} ?section }}""")
    return {r["id"].value: r["section"].value for r in rows}


def _first_need(found: findings.Findings) -> list[str]:
    note = findings.first_need_note(found)
    return [note] if note else []


def findings_table(store: GraphStore, values: Mapping[str, str], iris: Iris, limit: int | None) -> Table:
    """``findings``: the kept findings the values keep, in the kept order, at most ``limit``."""
    found = findings.current(store, iris)
    sections = primary_sections(store) if "section" in values else None
    rows: list[Row] = []
    for order, row in _matching(found, values, sections):
        if limit is not None and len(rows) >= limit:
            break
        rows.append({"order": Literal(order), "id": Literal(row.record) if row.record else None,
                     "column": Literal(row.column) if row.column else None, "rule": Literal(row.rule),
                     "severity": Literal(row.severity), "focus": term_of(row.focus), "value": term_of(row.value),
                     "path": Literal(row.path) if row.path else None})
    return Table(rows, _first_need(found), f"the findings kept for this version ({found.made})")


def matrix_table(store: GraphStore, values: Mapping[str, str], iris: Iris, limit: int | None) -> Table:
    """``findings-matrix``: the findings counted by rule and column (or section), with their records."""
    found = findings.current(store, iris)
    by = values.get("by", "column")
    sections = primary_sections(store) if by == "section" else {}
    kept = [row for _, row in _matching(found, values, None)]
    counts: dict[tuple[str, str, str], list[Any]] = {}
    for row in kept:
        key = row.column if by == "column" else sections.get(row.record or "")
        entry = counts.setdefault((row.rule, row.severity, key or ""), [0, set()])
        entry[0] += 1
        if row.record:
            entry[1].add(row.record)
    ordered = sorted(counts.items(), key=lambda kv: (kv[0][0], kv[0][2]))
    rows: list[Row] = [{"order": Literal(order), "rule": Literal(rule), "severity": Literal(severity),
                        "by": Literal(by), "key": Literal(key) if key else None, "findings": Literal(n),
                        "records": Literal(len(records))}
                       for order, ((rule, severity, key), (n, records)) in enumerate(ordered)]
    return Table(rows[:limit] if limit is not None else rows, _first_need(found),
                 f"the findings kept for this version counted by rule and {by} ({found.made})")


def rules_table(store: GraphStore, values: Mapping[str, str], iris: Iris, limit: int | None) -> Table:
    """``rules``: the message of each rule the kept findings were checked against (``limit``: not a
    cap of this table, whose rows the query joins)."""
    found = findings.current(store, iris)
    return Table([{"rule": Literal(name), "message": Literal(info.message)} for name, info in sorted(found.rules.items())],
                 said="the rules' messages")


#: The kept tables by name: what fills a block of a bundled query.
TABLES: dict[str, Maker] = {"findings": findings_table, "findings-matrix": matrix_table, "rules": rules_table}

