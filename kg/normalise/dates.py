"""Dates and releases: every date-like cell read as periods that keep the precision written.

A cell such as "2024-12 (announced); 2025-06 (beta)", "aider 0.x rolling (2025-2026)" or
"Qwen 3-Max preview (2025-Q3)" holds *mentions*: a year, a quarter, a month (also "Feb
2025"), a day (also "March 2 2025"), or a range of them ("2018-2019", "Nov-Dec 2024").
Each mention is a :class:`Period` or a pair of them, and each use takes the right end:

- ``created`` is the start of the first mention (the cell's lead value): "2018-2019" -> 2018;
- a latest release is the end of the latest mention: "2025-2026, rolling" -> 2026,
  "(2025-04); ... (2025-Q3)" -> 2025-Q3.

A period keeps its precision (year, quarter, month or day) and knows its first and last
day, so that it compares with another period at its own precision:

>>> p = since_period("2026-05")
>>> (p.precision, p.start.isoformat(), p.end.isoformat())
('month', '2026-05-01', '2026-05-31')
>>> created_date("2026-Q1 (OWASP project page set up Q1 2026)").end.isoformat()
'2026-03-31'
>>> release_date("Claude Code 1.x (2025-2026, rolling)").text
'2026'
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, datetime

from .text import READABLE, clean

PRECISIONS = ("year", "quarter", "month", "day")
_XSD_TYPES = {"year": "gYear", "month": "gYearMonth", "day": "date"}  # a quarter has no XSD type


@dataclass(frozen=True)
class Period:
    """A date at the precision written: its text ("2026", "2026-Q1", "2026-05", "2026-05-29"),
    that precision, and the first and last day it covers."""

    text: str
    precision: str
    start: date
    end: date

    @property
    def xsd_type(self) -> str | None:
        """``gYear``, ``gYearMonth`` or ``date``; None for a quarter (XSD has no quarter type)."""
        return _XSD_TYPES.get(self.precision)


def year(y: int) -> Period:
    return Period(f"{y:04d}", "year", date(y, 1, 1), date(y, 12, 31))


def quarter(y: int, q: int) -> Period:
    last = 3 * q
    return Period(f"{y:04d}-Q{q}", "quarter", date(y, last - 2, 1),
                  date(y, last, calendar.monthrange(y, last)[1]))


def month(y: int, m: int) -> Period:
    return Period(f"{y:04d}-{m:02d}", "month", date(y, m, 1), date(y, m, calendar.monthrange(y, m)[1]))


def day(d: date) -> Period:
    return Period(d.isoformat(), "day", d, d)


def _period(y: int, m: int | None, d: int | None) -> Period | None:
    """The period of a year, year-month or date; None when no such date exists."""
    try:
        if m is None:
            return year(y)
        if d is None:
            return month(y, m) if 1 <= m <= 12 else None
        return day(date(y, m, d))
    except ValueError:  # "2025-02-30"
        return None


@dataclass(frozen=True)
class Mention:
    """One date or range in a cell: where it starts in the text, its first and last period."""

    at: int
    first: Period
    last: Period


_Y = r"(?:19|20)\d\d"
# "2024-12", "2026-05-29", "2023 (founded)". A year must stand alone: "arXiv 2405.14573" holds none.
_ISO_DATE_RE = re.compile(
    rf"(?<![\w.])(?P<y>{_Y})(?:-(?P<m>\d\d)(?:-(?P<d>\d\d))?)?(?=$|[^\w.]|\.(?!\d))", re.ASCII)
# "2018-2019", "2025–2026"
_YEAR_RANGE_RE = re.compile(rf"(?<![\w.])(?P<a>{_Y})\s*[-–—/]\s*(?P<b>{_Y})(?![\w.]|-\d)", re.ASCII)
# "2026-Q1", "2024 Q4", "Q1 2026", "Q3-2024"
_QUARTER_RE = re.compile(
    rf"(?<![\w.])(?:(?P<y>{_Y})[- ]?Q(?P<q>[1-4])|Q(?P<q2>[1-4])[- ](?P<y2>{_Y}))(?![\w.])", re.ASCII)
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
_MON = (r"(?:January|February|March|April|May|June|July|August|September|October|November|December"
        r"|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)")
# "Mar 2024", "Mar-2025", "March 2 2025", "Feb 29, 2024". Capitalised only, so the verb
# "may" never reads as a month.
_NAMED_DATE_RE = re.compile(
    rf"\b(?P<mon>{_MON})\.?(?:[ -](?P<d>\d{{1,2}})(?:st|nd|rd|th)?,?)?[ -](?P<y>{_Y})(?![\w.])", re.ASCII)
# "Nov-Dec 2024", "Feb/Mar 2025", "March-May 2023"
_MONTH_RANGE_RE = re.compile(rf"\b(?P<a>{_MON})\.?\s*[-–/]\s*(?P<b>{_MON})\.?[ -](?P<y>{_Y})(?![\w.])", re.ASCII)


def _found(text: str) -> list[tuple[int, int, Period, Period]]:
    """Every date-like match as (start, end, first period, last period), overlaps included."""
    out: list[tuple[int, int, Period, Period]] = []
    for m in _YEAR_RANGE_RE.finditer(text):
        a, b = int(m.group("a")), int(m.group("b"))
        if a < b:
            out.append((m.start(), m.end(), year(a), year(b)))
    for m in _QUARTER_RE.finditer(text):
        p = quarter(int(m.group("y") or m.group("y2")), int(m.group("q") or m.group("q2")))
        out.append((m.start(), m.end(), p, p))
    for m in _MONTH_RANGE_RE.finditer(text):
        y, a, b = int(m.group("y")), _MONTHS[m.group("a").lower()], _MONTHS[m.group("b").lower()]
        if a < b:
            out.append((m.start(), m.end(), month(y, a), month(y, b)))
    for m in _ISO_DATE_RE.finditer(text):
        found = _period(int(m.group("y")), int(m.group("m")) if m.group("m") else None,
                        int(m.group("d")) if m.group("d") else None)
        if found is not None:
            out.append((m.start(), m.end(), found, found))
    for m in _NAMED_DATE_RE.finditer(text):
        found = _period(int(m.group("y")), _MONTHS[m.group("mon").lower()],
                        int(m.group("d")) if m.group("d") else None)
        if found is not None:
            out.append((m.start(), m.end(), found, found))
    return out


def mentions(text: str) -> list[Mention]:
    """The dates and ranges of ``text`` in reading order; a match inside a longer one (the
    2026 of "2026-Q1", the Dec 2024 of "Nov-Dec 2024") is part of it, not a mention.

    >>> [(m.first.text, m.last.text) for m in mentions("2024-01 (OSS); 2024-Q4 (Enterprise); 2018-2019")]
    [('2024-01', '2024-01'), ('2024-Q4', '2024-Q4'), ('2018', '2019')]
    """
    cleaned = clean(text)
    found = sorted(_found(cleaned), key=lambda f: (f[0], -(f[1] - f[0])))
    kept: list[tuple[int, int, Period, Period]] = []
    for item in found:
        if any(k[0] <= item[0] and item[1] <= k[1] for k in kept):
            continue
        kept.append(item)
    return [Mention(at, first, last) for at, _, first, last in kept]


def created_date(text: str) -> Period | None:
    """When something was created: the start of the cell's first date or range.

    >>> created_date("2018-2019 (Storyflow 2018; Voiceflow launched 2019)").text
    '2018'
    >>> created_date("searched not found") is None
    True
    """
    found = mentions(text)
    return found[0].first if found else None


def release_date(text: str) -> Period | None:
    """The date of a latest release: the end of the latest date or range in the cell
    (ties: the more precise one).

    >>> release_date("Qwen 3 family (2025-04); Qwen 3-Max preview (2025-Q3)").text
    '2025-Q3'
    >>> release_date("Nova Premier (2025); Nova Pro / Lite (2024-12)").text
    '2025'
    """
    found = mentions(text)
    if not found:
        return None
    return max((m.last for m in found), key=lambda p: (p.end, p.start))


def first_date(text: str) -> tuple[str, str] | None:
    """The start of the first date in ``text`` as (text, type): ``date``, ``gYearMonth``,
    ``gYear`` or ``quarter``; impossible dates are skipped.

    >>> first_date("2024-10")
    ('2024-10', 'gYearMonth')
    >>> first_date("v1.26.0 (2026-05-29)")
    ('2026-05-29', 'date')
    >>> first_date("2024-Q4")
    ('2024-Q4', 'quarter')
    >>> first_date("2024-13") is None
    True
    """
    found = created_date(text)
    return None if found is None else (found.text, found.xsd_type or found.precision)


_NO_RELEASE_RE = re.compile(
    r"^(?:no[\s-]*releases?\b|no[\s-]*tagged|inactive\b|not applicable|n/a\b|no data|searched not found)"
)
# GitHub-release shape "<tag> <date>": "v1.0.8 2026-05-06", "n1.7-release 2026-04-18",
# "LoRA_checkpoint 2023-05-21", "v0.6.1 / 2026-05-04".
_TAG_THEN_DATE_RE = re.compile(r"^(?P<tag>\S+)\s+(?:/\s*)?\(?\d{4}-\d\d-\d\d\)?$")
# A leading version: "v1.26.0 (2026-05-29)", "3.0.9 2026-04-13", "V1.2 …".
_LEADING_VERSION_RE = re.compile(r"^(?P<tag>[vV]?\d+(?:\.\d+)+(?:[-+][0-9A-Za-z.]+)?)(?![\w.])")


def release_info(text: str, status: str) -> tuple[str | None, Period | None]:
    """(version, date) from a ``latest-release`` cell; each part may be None.

    A tag the page truncated ("mcp-neo4j-cyphe… 2026-04-10") gives no version.

    >>> version, when = release_info("v1.26.0 (2026-05-29)", "real-data")
    >>> version, when.text, when.precision
    ('v1.26.0', '2026-05-29', 'day')
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
    return version, release_date(cleaned)


# -- the since of a query -------------------------------------------------------------

SINCE_FORMS = "YYYY, YYYY-Qn, YYYY-MM, YYYY-MM-DD or an ISO timestamp (YYYY-MM-DDTHH:MM[:SS][Z|+HH:MM])"
_SINCE_RE = re.compile(r"(?P<y>\d{4})(?:-Q(?P<q>[1-4])|-(?P<m>\d\d)(?:-(?P<d>\d\d))?)?", re.ASCII)
_TIMESTAMP_RE = re.compile(
    r"\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d{1,9})?)?(?:Z|[+-]\d\d:?\d\d)?", re.ASCII | re.IGNORECASE)


def since_period(value: str) -> Period:
    """The period a ``since`` value names, at its own precision; ValueError naming the
    accepted forms for anything else ("20260501", "2026/05", "May 2026").

    A timestamp names its day (the catalog's dates are no finer than days).

    >>> since_period("2026").end.isoformat(), since_period("2026-Q2").start.isoformat()
    ('2026-12-31', '2026-04-01')
    >>> since_period("2026-05-01T10:30:00Z").text
    '2026-05-01'
    >>> since_period("20260501")
    Traceback (most recent call last):
    ...
    ValueError: expected YYYY, YYYY-Qn, YYYY-MM, YYYY-MM-DD or an ISO timestamp (YYYY-MM-DDTHH:MM[:SS][Z|+HH:MM])
    """
    text = value.strip()
    try:
        if _TIMESTAMP_RE.fullmatch(text):
            return day(datetime.fromisoformat(text.replace("z", "Z").replace("Z", "+00:00")).date())
        m = _SINCE_RE.fullmatch(text)
        if m:
            y = int(m.group("y"))
            if m.group("q"):
                return quarter(y, int(m.group("q")))
            found = _period(y, int(m.group("m")) if m.group("m") else None,
                            int(m.group("d")) if m.group("d") else None)
            if found is not None and y >= 1:
                return found
    except ValueError:
        pass
    raise ValueError(f"expected {SINCE_FORMS}")
