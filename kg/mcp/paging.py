"""Pages of the tools' answers: ``limit`` and ``offset`` read from a call, and the page with ``has_more``.

Every tool that answers rows (or a ``sparql`` graph's triples) answers one page of them: ``limit``
rows after ``offset``, with ``offset``, ``has_more`` (rows follow the page), ``next_offset`` (the
``offset`` of the next page, when there is one), ``total`` (when the whole answer was read, so that
counting cost nothing more) and ``truncated`` (the answer reached the server's row cap, ``kg mcp
--max-rows``: what lies past it cannot be paged to; narrow the question). A worker reads an answer
up to the page and one row more (a named query's own ``limit``, as kg serve's pages read them:
:class:`kg.serve.paging.Page`), or, for an answer read whole anyway, up to the cap; it never
refuses an answer for its size.

>>> page = read_page({"limit": "2", "offset": 1, "text": "x"}, default=50, cap=100, tool="search")
>>> page
Page(offset=1, limit=2)
>>> window({"rows": [1, 2, 3, 4], "rowCount": 4}, page, read=100, cap=100)
{'rows': [2, 3], 'rowCount': 2, 'offset': 1, 'has_more': True, 'truncated': False, 'next_offset': 3, 'total': 4}
>>> "total" in window({"rows": [1, 2, 3, 4], "rowCount": 4}, page, read=4, cap=100)
False
"""

from __future__ import annotations

from typing import Any

from ..errors import QueryError, safe_text
from ..serve.paging import PAGE_PARAMS, Page

PAGE_SIZE = 100  # rows on a page unless the call (or a named query's own limit) says otherwise
OFFSET, LIMIT = PAGE_PARAMS


# The paging arguments go undescribed (and offset's default, 0, unsaid): the server's instructions say once
# how to page (offset=next_offset), and every tool list would carry the same words a dozen times.
def offset_schema() -> dict[str, Any]:
    return {"type": "integer", "minimum": 0}


def limit_schema(default: int) -> dict[str, Any]:
    return {"type": "integer", "minimum": 0, "default": default}


def _whole(value: Any, name: str, tool: str) -> int:
    """A count given as a JSON integer or its text ("100")."""
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise QueryError(f"{tool}: {name} must be a whole number of rows (0 or more), not {safe_text(repr(value), 40)}")
    return value


def read_page(arguments: dict[str, Any], default: int, cap: int, tool: str, limit: str = LIMIT) -> Page:
    """The page a call asks for, its ``limit`` (or the argument named ``limit``) and ``offset`` taken
    out of ``arguments``; a limit past the row cap is an error that says the cap."""
    size = arguments.pop(limit, None)
    start = arguments.pop(OFFSET, None)
    page = Page(0 if start is None else _whole(start, OFFSET, tool),
                default if size is None else _whole(size, limit, tool))
    if page.limit > cap:
        raise QueryError(f"{tool}: {limit} must be at most {cap}, the rows this server reads of one answer "
                         "(kg mcp --max-rows)")
    return page


def window(answer: dict[str, Any], page: Page, read: int, cap: int, items: str = "rows",
           count: str = "rowCount") -> dict[str, Any]:
    """The page of ``answer`` (whose ``items`` are its first rows, at most ``read`` of them: all of
    them when fewer came) with what a caller needs to page on."""
    every = answer[items]
    shown, more = page.window(every)
    out = {**answer, items: shown, count: len(shown), OFFSET: page.offset, "has_more": more,
           "truncated": len(every) >= cap}
    if more:
        out["next_offset"] = page.offset + len(shown)
    if len(every) < read:  # fewer rows came than were asked for: the whole answer is here
        out["total"] = len(every)
    return out


def paging_properties() -> dict[str, Any]:
    """The output schema's properties of a page (what they mean: the tools' instructions); the offset
    asked for, which the page repeats, goes undeclared."""
    count, flag = {"type": "integer"}, {"type": "boolean"}
    return {"has_more": flag, "next_offset": count, "total": count, "truncated": flag}
