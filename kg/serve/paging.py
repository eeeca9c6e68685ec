"""Paging: which rows of an answer a page shows (``offset`` and ``limit`` in the query
string), and the links to the next and previous pages.

A page of ``limit`` rows starting after ``offset`` rows is read by asking for one row more
than it shows: that row, when it comes, says there is a next page, without counting them
all. The links keep every other parameter of the request as it was.

>>> page = Page.read({"offset": "100", "limit": "50"})
>>> page, page.window(list(range(300)))[1]
(Page(offset=100, limit=50), True)
>>> page.href({"tier": "1", "offset": "100", "limit": "50"}, +1)
'?tier=1&offset=150&limit=50'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence
from urllib.parse import urlencode

PAGE_SIZE = 100  # rows on a page unless the request (or the named query's limit) says otherwise
MAX_PAGE_SIZE = 10_000
PAGE_PARAMS = ("offset", "limit")


def _whole(params: Mapping[str, str], name: str, default: int, most: int) -> int:
    raw = params.get(name)
    if raw is None or str(raw).strip() == "":
        return default
    text = str(raw).strip()
    if not text.isdigit():
        raise ValueError(f"{name} must be a whole number of rows (0 or more), not {text[:40]!r}")
    if int(text) > most:
        raise ValueError(f"{name} must be at most {most}")
    return int(text)


@dataclass(frozen=True)
class Page:
    """The rows ``offset`` to ``offset + limit`` of an answer."""

    offset: int = 0
    limit: int = PAGE_SIZE

    @classmethod
    def read(cls, params: Mapping[str, str], default: int = PAGE_SIZE, most: int = MAX_PAGE_SIZE) -> "Page":
        """The page a request's parameters ask for; ValueError (a message for the form) for a bad value."""
        return cls(_whole(params, "offset", 0, 10**9), _whole(params, "limit", default, most))

    @property
    def reach(self) -> int:
        """How many rows to read: those before the page, the page, and one more."""
        return self.offset + self.limit + 1

    def window(self, rows: Sequence[Any]) -> tuple[list[Any], bool]:
        """The page's rows of ``rows`` (the answer from its start), and whether more follow."""
        return list(rows[self.offset:self.offset + self.limit]), len(rows) > self.offset + self.limit

    def href(self, params: Mapping[str, str], step: int) -> str:
        """The query string of the next (``step`` +1) or previous (-1) page, the other parameters kept."""
        offset = max(0, self.offset + step * self.limit)
        kept = {k: v for k, v in params.items() if k not in PAGE_PARAMS}
        return "?" + urlencode({**kept, "offset": str(offset), "limit": str(self.limit)})

    def links(self, params: Mapping[str, str], more: bool) -> dict[str, str]:
        """``next`` and ``prev`` query strings of this page (those that exist). A page of no rows
        (``limit=0``) has neither: each would be this page again, and a client following it would loop.

        >>> Page(0, 0).links({}, more=True), Page(50, 0).links({}, more=True)
        ({}, {})
        """
        if self.limit == 0:
            return {}
        found = {}
        if more:
            found["next"] = self.href(params, +1)
        if self.offset > 0:
            found["prev"] = self.href(params, -1)
        return found


def link_header(links: Mapping[str, str]) -> dict[str, str]:
    """The ``Link`` header (RFC 8288) for ``links`` (relation -> URL); empty when there are none.

    >>> link_header({"next": "?offset=100"})
    {'Link': '<?offset=100>; rel="next"'}
    """
    if not links:
        return {}
    return {"Link": ", ".join(f'<{url}>; rel="{rel}"' for rel, url in links.items())}
