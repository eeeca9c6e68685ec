"""One candidate scored against constraints, as the catalog scores it (its ``scoreOne``).

Each constraint asked for weighs 1: the use-case tags (the share of the asked tags the
candidate has, less 0.5 for each asked tag among its anti-tags), an input cost within the
ceiling, a cost tier at or under the highest asked, a capability band at or over the lowest
asked. The score is their sum over the weight, clamped to [0, 1]. A cell whose value an LLM
wrote and nobody verified is left out of the score (it weighs nothing) and said in a caveat;
a cost or band the candidate lacks weighs nothing. With no weight at all the score is 0, or,
between two anchors, the capability score / 100 (0.5 when that is unknown or unverified).
Verification dates older than ``stale_days`` before ``today`` are caveats; they never change
a score.

>>> from kg.advice.vocabulary import Constraints
>>> p = Profile("x", "X", "memory", ("offline-capable",), ("latency-sensitive",), 2.0, "budget", 70.0,
...             "competent", "2026-01-01", None, frozenset())
>>> scored = score(p, Constraints(tags=("offline-capable", "latency-sensitive"), cost_max=5.0), _dt.date(2026, 3, 1))
>>> scored.score, scored.rationale
(0.5, ['matches use-case tag: offline-capable', 'cost within budget ($2/Mtok ≤ $5/Mtok)'])
>>> scored.caveats
['anti-tag match: latency-sensitive', 'cost data 59d stale (cost-last-verified 2026-01-01)']
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Iterable

from .profiles import Profile, days_since
from .vocabulary import CAPABILITY_BANDS, COST_TIERS, Constraints

STALE_DAYS = 30  # a verification date older than this is a caveat (the catalog's default)


@dataclass
class Scored:
    """A candidate's score in [0, 1], the reasons it scored, and what to be careful of."""

    profile: Profile
    score: float
    rationale: list[str] = field(default_factory=list)
    caveats: list[str] = field(default_factory=list)


def money(number: float) -> str:
    """A number as the catalog prints it: 3 not 3.0, 0.25 as it is."""
    return str(int(number)) if float(number).is_integer() else repr(float(number))


def _excluded(column: str) -> str:
    return f"{column} excluded from ranking — LLM-unverified"


class _Sum:
    """The score's running sum and weight, with its lines."""

    def __init__(self) -> None:
        self.base = 0.0
        self.weight = 0
        self.rationale: list[str] = []
        self.caveats: list[str] = []


def _tags(p: Profile, tags: tuple[str, ...], s: _Sum) -> None:
    if not tags:
        return
    if not p.verified("use-case-tags"):
        s.caveats.append(_excluded("use-case-tags"))
    else:
        matched = [t for t in tags if t in p.tags]
        s.base += len(matched) / len(tags)
        s.weight += 1
        if matched:
            s.rationale.append(f"matches use-case tag{'s' if len(matched) > 1 else ''}: {', '.join(matched)}")
    if not p.verified("use-case-anti-tags"):
        s.caveats.append(_excluded("use-case-anti-tags"))
    else:
        hits = [t for t in tags if t in p.anti_tags]
        if hits:
            s.base -= 0.5 * len(hits)
            s.caveats.append(f"anti-tag match: {', '.join(hits)}")


def _cost(p: Profile, ceiling: float | None, s: _Sum) -> None:
    if ceiling is None:
        return
    if not p.verified("cost-input-usd-per-mtok"):
        s.caveats.append(_excluded("cost-input-usd-per-mtok"))
    elif p.cost is not None:
        if p.cost <= ceiling:
            s.base += 1
            s.rationale.append(f"cost within budget (${money(p.cost)}/Mtok ≤ ${money(ceiling)}/Mtok)")
        else:
            s.caveats.append(f"cost exceeds budget (${money(p.cost)}/Mtok > ${money(ceiling)}/Mtok)")
        s.weight += 1


def _ranked(p: Profile, s: _Sum, column: str, have: str | None, asked: str | None, order: tuple[str, ...],
            at_most: bool, label: str) -> None:
    """The cost-tier ceiling (``at_most``) or the capability-band floor."""
    if asked is None:
        return
    if not p.verified(column):
        s.caveats.append(_excluded(column))
    elif have is not None:
        fits = order.index(have) <= order.index(asked) if at_most else order.index(have) >= order.index(asked)
        sign_in, sign_out = ("≤", ">") if at_most else ("≥", "<")
        if fits:
            s.base += 1
            s.rationale.append(f"{label} {have} {sign_in} {asked}")
        else:
            s.caveats.append(f"{label} {have} {sign_out} requested {asked}")
        s.weight += 1


def _staleness(p: Profile, today: _dt.date, stale_days: int, s: _Sum) -> None:
    for what, column, text in (("cost", "cost-last-verified", p.cost_checked),
                               ("capability", "capability-last-verified", p.capability_checked)):
        if text is None:
            continue
        age = days_since(text, today)
        if age is None:
            s.caveats.append(f"{column} {text.strip()!r} is not a date: its age is unknown")
        elif age > stale_days:
            s.caveats.append(f"{what} data {age}d stale ({column} {text.strip()})")


def score(p: Profile, c: Constraints, today: _dt.date, stale_days: int = STALE_DAYS,
          between: bool = False) -> Scored:
    """``p`` scored against ``c`` (``between``: ranked between two anchors)."""
    s = _Sum()
    _tags(p, c.tags, s)
    _cost(p, c.cost_max, s)
    _ranked(p, s, "cost-tier", p.cost_tier, c.cost_tier_max, COST_TIERS, True, "cost-tier")
    _ranked(p, s, "capability-band", p.band, c.band_min, CAPABILITY_BANDS, False, "capability-band")
    _staleness(p, today, stale_days, s)
    if s.weight:
        value = s.base / s.weight
    elif between:
        verified = p.capability is not None and p.verified("capability-composite-score")
        value = p.capability / 100 if verified and p.capability is not None else 0.5
    else:
        value = 0.0
    return Scored(p, min(1.0, max(0.0, value)), s.rationale, s.caveats)


def ranked(scored: Iterable[Scored], k: int) -> list[Scored]:
    """The best ``k``: score descending, then id (code-point order, as the catalog's)."""
    return sorted(scored, key=lambda s: (-s.score, s.profile.id))[:k]
