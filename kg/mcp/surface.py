"""Which registered queries are tools of their own, which the ``catalog`` tool answers, which are plumbing.

Every query of the registry (:data:`kg.queries.REGISTRY`: the bundled folder, and whatever other
source is registered, a user's folder among them) can be called by its name. What ``tools/list``
shows is kept short, for it is read into every agent's context:

- the questions people ask by default are tools of their own: the bundled queries named in
  :data:`FEATURED`, and every query of another source (a user's own queries, kg's queries worked
  out in Python), with no line to add;
- plumbing (``check-*``, the catalog-wide validation rules, and ``select-*``, what kg's own code
  reads) is not listed;
- the other bundled queries, the catalog-wide questions (counts, distributions, the lists of
  open-source or self-hostable systems, what changed, ...), are answered by one tool, ``catalog``,
  whose description names each with its parameters.

With ``kg mcp --all-tools`` every query is listed as a tool of its own, as before.

>>> from kg.queries import load
>>> is_plumbing(load("check-unique-edge")), is_plumbing(load("search")), is_bundled(load("search"))
(True, False, True)
>>> question_line(load("compliant-systems"))
'compliant-systems (framework): Systems that claim a compliance framework'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..queries import QUERIES_DIR, NamedQuery
from . import paging

#: Bundled queries listed as tools of their own; a bundled query added to this tuple becomes one.
FEATURED = ("search", "find", "show", "related", "compare", "substrate-risk")
PLUMBING_PREFIXES = ("check-", "select-")
CATALOG_TOOL = "catalog"


def is_plumbing(query: NamedQuery) -> bool:
    """A validation rule or a query kg's own code reads: listed only with ``--all-tools``."""
    return query.name.startswith(PLUMBING_PREFIXES)


def is_bundled(query: NamedQuery) -> bool:
    """One of the ``.rq`` files kg ships (not a user's, nor one of another source)."""
    return query.path.parent.resolve() == QUERIES_DIR.resolve()


@dataclass(frozen=True)
class Surface:
    """The registered queries, sorted into those listed as tools and those ``catalog`` answers."""

    listed: tuple[NamedQuery, ...]  # tools of their own, in tools/list
    questions: tuple[NamedQuery, ...]  # answered by the catalog tool (its question enum)
    all_tools: bool = False  # everything listed (kg mcp --all-tools)

    @classmethod
    def of(cls, queries: dict[str, NamedQuery], all_tools: bool = False) -> "Surface":
        featured = [queries[name] for name in FEATURED if name in queries]
        others = [q for q in queries.values() if q.name not in FEATURED]
        own = featured + [q for q in others if not is_plumbing(q) and not is_bundled(q)]
        asked = [q for q in others if is_bundled(q) and not is_plumbing(q)]
        rest = [q for q in others if q not in own]
        return cls(tuple(own + rest if all_tools else own), tuple(asked), all_tools)


def question_line(query: NamedQuery) -> str:
    """One line of the catalog tool's description: the name, the parameters (``?`` when optional,
    the limit left to the tool's own) and the title."""
    params = [p.name + ("?" if p.optional else "") for p in query.params if p.type != "limit"]
    shown = f" ({', '.join(params)})" if params else ""
    return f"{query.name}{shown}: {query.title or query.question}"


def catalog_description(questions: tuple[NamedQuery, ...]) -> str:
    return ("Answer one of the catalog's named questions: question is its name, arguments its parameters "
            "(? optional; kg://query/NAME has its header: types, defaults, what each column means). Questions:\n"
            + "\n".join(f"- {question_line(q)}" for q in questions))


def catalog_input_schema(questions: tuple[NamedQuery, ...]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "question": {"type": "string", "enum": [q.name for q in questions],
                         "description": "the question's name (the list in the description)"},
            "arguments": {"type": "object", "description": "the question's parameters, by name"},
            paging.LIMIT: {"type": "integer", "minimum": 0, "description": "default: the question's own limit, "
                           f"else {paging.PAGE_SIZE}"},
            paging.OFFSET: paging.offset_schema(),
        },
        "required": ["question"], "additionalProperties": False,
    }
