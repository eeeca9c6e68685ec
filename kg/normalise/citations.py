"""Citation cells read as numbers: the yearly ``citation-trajectory`` and "N cites M/yr".

The catalog's citation prediction reads a paper's yearly trajectory, a JSON list of
``{"year", "cum", "infl"}`` points, and where that is missing the ``citations`` cell's
"N cites M/yr" together with the year of the ``created`` cell. The catalog writes the
count in several ways; every one is read here (the catalog's own reader took
"1,677 cites 225/yr" for 677 and gave up on "1,234 cites 5,678/yr" and on "·"):

>>> citation_counts("1,677 cites 225/yr")
(1677.0, 225.0)
>>> citation_counts("1.2k cites 0.3k/yr (Semantic Scholar)")
(1200.0, 300.0)
>>> citation_counts("~1234 cites · 56 / yr"), citation_counts("1 cite 1/yr")
((1234.0, 56.0), (1.0, 1.0))
>>> citation_counts("656796 citations (Semantic Scholar)") is None
True
>>> [p.year for p in citation_trajectory('[{"year":2025,"cum":9,"infl":1},{"year":2024,"cum":3,"infl":0}]')]
[2024, 2025]
>>> publication_year("2020 (founded 2020 by ...)"), publication_year("see post date")
(2020, None)
"""

from __future__ import annotations

import json
import math
import re
from typing import NamedTuple

from .text import clean

# one amount: 1234, 1,234 (thousands groups), 1.2, 1.2k; the catalog's "~" and spaces before it
_AMOUNT = r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)\s*(k)?"
_COUNTS = re.compile(
    rf"(?<![\d.,]){_AMOUNT}\s*cites?\b[\s·•|,;:-]*~?\s*{_AMOUNT}\s*/\s*(?:yr|year)\b", re.IGNORECASE)
_YEAR = re.compile(r"(?<!\d)(19|20)\d{2}(?!\d)")
FIRST_YEAR, LAST_YEAR = 1900, 2099  # a trajectory point outside these years is not read


class TrajectoryPoint(NamedTuple):
    """One year of a paper's citation trajectory: cumulative citations, influential ones."""

    year: int
    cum: float
    infl: float


def _amount(number: str, thousands: str | None) -> float:
    value = float(number.replace(",", ""))
    return value * 1000 if thousands else value


def citation_counts(text: object) -> tuple[float, float] | None:
    """(total citations, citations a year) of an "N cites M/yr" cell in any of its written forms,
    else None (also for a count that is not a finite number)."""
    found = _COUNTS.search(clean(text))
    if found is None:
        return None
    total, rate = _amount(found.group(1), found.group(2)), _amount(found.group(3), found.group(4))
    return (total, rate) if math.isfinite(total) and math.isfinite(rate) else None


def _number(value: object) -> float | None:
    """A JSON number (never a bool, never NaN or infinite)."""
    if type(value) is int:  # not isinstance: a bool is no count
        return float(value)
    if type(value) is float and math.isfinite(value):
        return value
    return None


def _point(item: object) -> TrajectoryPoint | None:
    """One item of the JSON list as a point, when its year, count and influential count are numbers in
    range (the catalog's rules: a year of 1900-2099, rounded half up; counts not negative)."""
    if not isinstance(item, dict):
        return None
    year, cum, infl = _number(item.get("year")), _number(item.get("cum")), _number(item.get("infl"))
    if year is None or cum is None or infl is None or not FIRST_YEAR <= year <= LAST_YEAR or cum < 0 or infl < 0:
        return None
    return TrajectoryPoint(math.floor(year + 0.5), cum, infl)


def citation_trajectory(text: object) -> list[TrajectoryPoint]:
    """The readable points of a yearly trajectory cell, sorted by year (stable: points of one year keep
    their order); empty when the text is no JSON list. Items that are not points are left out."""
    if not isinstance(text, str) or not text.lstrip().startswith("["):
        return []
    try:
        items = json.loads(text)
    except ValueError:
        return []
    if not isinstance(items, list):
        return []
    points = [p for p in map(_point, items) if p is not None]
    return sorted(points, key=lambda p: p.year)


def publication_year(text: object) -> int | None:
    """The first year (1950-2099) written in a ``created`` cell, else None."""
    found = _YEAR.search(clean(text))
    if found is None:
        return None
    year = int(found.group(0))
    return year if 1950 <= year <= 2099 else None
