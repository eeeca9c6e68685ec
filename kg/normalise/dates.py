"""Dates and releases: the first date in a cell as an XSD lexical value, release tags and dates."""

from __future__ import annotations

import re
from datetime import date

from .text import READABLE, clean

# "2024-12", "2026-05-29", "2023 (founded)", "2018-2019" (→ 2018), "2024-Q4"
# (→ 2024). A year must stand alone: "arXiv 2405.14573" holds no date.
_ISO_DATE_RE = re.compile(
    r"(?<![\w.])(?P<y>(?:19|20)\d\d)(?:-(?P<m>\d\d)(?:-(?P<d>\d\d))?)?(?=$|[^\w.]|\.(?!\d))",
    re.ASCII,
)
_MONTHS = {
    name: number
    for number, names in enumerate(
        (("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
         ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sept", "sep"),
         ("october", "oct"), ("november", "nov"), ("december", "dec")),
        start=1,
    )
    for name in names
}
# "Mar 2024", "Mar-2025", "March 2 2025", "Feb 29, 2024". Capitalised only, so
# the verb "may" never reads as a month.
_NAMED_DATE_RE = re.compile(
    r"\b(?P<mon>(?:January|February|March|April|May|June|July|August|September|October|November|"
    r"December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec))\.?"
    r"(?:[ -](?P<d>\d{1,2})(?:st|nd|rd|th)?,?)?[ -](?P<y>(?:19|20)\d\d)(?![\w.])",
    re.ASCII,
)


def _valid_date(year: int, month: int | None, day: int | None) -> tuple[str, str] | None:
    if month is None:
        return f"{year:04d}", "gYear"
    if not 1 <= month <= 12:
        return None
    if day is None:
        return f"{year:04d}-{month:02d}", "gYearMonth"
    try:
        return date(year, month, day).isoformat(), "date"
    except ValueError:  # "2025-02-30"
        return None


def first_date(text: str) -> tuple[str, str] | None:
    """The first date in ``text`` as (lexical form, XSD type).

    The type is ``date``, ``gYearMonth`` or ``gYear``; impossible dates are skipped.

    >>> first_date("2024-10")
    ('2024-10', 'gYearMonth')
    >>> first_date("v1.26.0 (2026-05-29)")
    ('2026-05-29', 'date')
    >>> first_date("2024-13") is None
    True
    >>> first_date("searched not found") is None
    True
    """
    cleaned = clean(text)
    candidates: list[tuple[int, tuple[str, str] | None]] = []
    for m in _ISO_DATE_RE.finditer(cleaned):
        month, day = m.group("m"), m.group("d")
        candidates.append(
            (m.start(), _valid_date(int(m.group("y")), int(month) if month else None,
                                    int(day) if day else None))
        )
    for m in _NAMED_DATE_RE.finditer(cleaned):
        day = m.group("d")
        candidates.append(
            (m.start(), _valid_date(int(m.group("y")), _MONTHS[m.group("mon").lower()],
                                    int(day) if day else None))
        )
    candidates.sort(key=lambda c: (c[0], c[1] is None))
    return next((value for _, value in candidates if value is not None), None)


_NO_RELEASE_RE = re.compile(
    r"^(?:no[\s-]*releases?\b|no[\s-]*tagged|inactive\b|not applicable|n/a\b|no data|searched not found)"
)
# GitHub-release shape "<tag> <date>": "v1.0.8 2026-05-06", "n1.7-release 2026-04-18",
# "LoRA_checkpoint 2023-05-21", "v0.6.1 / 2026-05-04".
_TAG_THEN_DATE_RE = re.compile(r"^(?P<tag>\S+)\s+(?:/\s*)?\(?\d{4}-\d\d-\d\d\)?$")
# A leading version: "v1.26.0 (2026-05-29)", "3.0.9 2026-04-13", "V1.2 …".
_LEADING_VERSION_RE = re.compile(r"^(?P<tag>[vV]?\d+(?:\.\d+)+(?:[-+][0-9A-Za-z.]+)?)(?![\w.])")


def release_info(text: str, status: str) -> tuple[str | None, tuple[str, str] | None]:
    """(version, date) from a ``latest-release`` cell; each part may be None.

    A tag the page truncated ("mcp-neo4j-cyphe… 2026-04-10") gives no version.

    >>> release_info("v1.26.0 (2026-05-29)", "real-data")
    ('v1.26.0', ('2026-05-29', 'date'))
    >>> release_info("no releases", "real-data")
    (None, None)
    """
    cleaned = clean(text)
    if status not in READABLE or not cleaned or _NO_RELEASE_RE.match(cleaned.lower()):
        return None, None
    version = None
    shaped = _TAG_THEN_DATE_RE.match(cleaned) or _LEADING_VERSION_RE.match(cleaned)
    if shaped and "…" not in shaped.group("tag") and "..." not in shaped.group("tag"):
        version = shaped.group("tag")
    return version, first_date(cleaned)
