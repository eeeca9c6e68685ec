"""Small deterministic helpers of the catalog generator: weighted draws, slugs, dates, integer splits.

Every draw goes through a ``random.Random`` passed in; the date strings are cached by ordinal.
"""

from __future__ import annotations

import bisect
import datetime as _dt
import math
import re


class Weighted:
    """Sample items by weight with one ``rng.random()`` call (cumulative + bisect)."""

    __slots__ = ("items", "cum", "total")

    def __init__(self, pairs):
        pairs = [(item, float(w)) for item, w in pairs if w > 0]
        if not pairs:
            raise ValueError("Weighted needs at least one positive weight")
        self.items = [p[0] for p in pairs]
        cum, acc = [], 0.0
        for _, w in pairs:
            acc += w
            cum.append(acc)
        self.cum = cum
        self.total = acc

    def __call__(self, rng):
        i = bisect.bisect_right(self.cum, rng.random() * self.total)
        return self.items[i if i < len(self.items) else -1]


def _counted(counter):
    """Counter -> Weighted, in a data-independent (sorted) order."""
    return Weighted(sorted(counter.items(), key=lambda kv: (-kv[1], str(kv[0]))))


def _pick(rng, seq):
    return seq[int(rng.random() * len(seq))]


def _slugify(text: str, limit: int = 64) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    if len(s) > limit:
        cut = s[:limit]
        s = cut.rsplit("-", 1)[0] if "-" in cut else cut
    return s


_DAY0 = _dt.date(2026, 5, 14).toordinal()


_DATES: dict = {}


def _date(ordinal: int) -> str:
    d = _DATES.get(ordinal)
    if d is None:
        d = _DATES[ordinal] = _dt.date.fromordinal(ordinal).isoformat()
    return d


def _ts(minutes: int) -> str:
    return "%sT%02d:%02d:00Z" % (_date(minutes // 1440), (minutes % 1440) // 60, minutes % 60)


def _hex(rng, n: int) -> str:
    return "".join("0123456789abcdef"[int(rng.random() * 16)] for _ in range(n))


def _largest_remainder(total: int, weights):
    """Split ``total`` into integers proportional to ``weights`` (ties by position)."""
    s = float(sum(weights))
    if total <= 0 or s <= 0:
        return [0] * len(weights)
    raw = [total * w / s for w in weights]
    out = [int(math.floor(x)) for x in raw]
    rest = total - sum(out)
    order = sorted(range(len(weights)), key=lambda i: (-(raw[i] - out[i]), i))
    for i in order[:rest]:
        out[i] += 1
    return out
