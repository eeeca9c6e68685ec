"""Numeric cells (prices, counts, percentages) read as numbers."""

from __future__ import annotations

import re

from .text import READABLE, clean

# "0", "55", "$0.15", "0.15", "$2.50/Mtok", "~1,200", "3 USD per 1M tokens".
_NUMBER_RE = re.compile(
    r"~?\s*(?:US)?\$?\s*(?P<n>[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)\s*"
    r"(?:usd\b)?\s*(?:(?:/|per)\s*(?:1\s*)?(?:m|mtok|million)\s*(?:tok(?:en)?s?)?|%)?",
    re.IGNORECASE,
)


def number(text: str, status: str) -> int | float | None:
    """A numeric cell's value, when the text is essentially one number.

    >>> number("$0.15", "estimate")
    0.15
    >>> number("55", "estimate")
    55
    >>> number("not applicable — OSS plus per-user subscription, no per-token cost", "not-applicable") is None
    True
    """
    cleaned = clean(text)
    if status not in READABLE or not cleaned:
        return None
    m = _NUMBER_RE.fullmatch(cleaned)
    if not m:
        return None
    raw = m.group("n").replace(",", "")
    return float(raw) if "." in raw else int(raw)
