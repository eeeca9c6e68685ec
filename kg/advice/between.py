"""Between two anchors: the catalog's ``between_models``, on the graph.

:func:`between` ranks the systems whose input cost and capability score lie between those of
two anchor systems. Each range comes from the anchors' own cells; a cell an LLM wrote and nobody
verified sets no range (the catalog's code let it) and places no candidate. A candidate is
scored by an asked use-case tag, else by its capability score (:func:`kg.advice.scoring.score`).
"""

from __future__ import annotations

import datetime as _dt
from typing import Any, Iterable

from ..errors import UsageError, safe_text
from ..lookup import Indexes
from .answer import Answer, count, day
from .profiles import Profile, read_profiles
from .scoring import STALE_DAYS, Scored, money, ranked, score
from .vocabulary import Constraints, check_tag

DEFAULT_K, MOST_K = 5, 200
COLUMNS = ["rank", "id", "name", "score", "cost_usd_per_mtok", "capability_score", "rationale", "caveats"]
COST, CAPABILITY = "cost-input-usd-per-mtok", "capability-composite-score"
Span = tuple[float, float]


def _verified(p: Profile, column: str) -> float | None:
    """``p``'s input cost or capability score when it may place (or range) a candidate: known, and not
    an LLM's unverified."""
    value = p.cost if column == COST else p.capability
    return value if value is not None and p.verified(column) else None


def _span(a: Profile, b: Profile, column: str) -> Span | None:
    """The range the anchors' verified values of ``column`` set, None when either has none."""
    low, high = _verified(a, column), _verified(b, column)
    return None if low is None or high is None else (min(low, high), max(low, high))


def _anchor_notes(anchor: Profile, role: str) -> list[str]:
    notes = []
    for column, value in ((COST, anchor.cost), (CAPABILITY, anchor.capability)):
        if value is None:
            notes.append(f"the {role} anchor {anchor.id} has no {column}: it sets no range")
        elif not anchor.verified(column):
            notes.append(f"the {role} anchor {anchor.id}'s {column} ({money(value)}) is LLM-unverified: "
                         "it sets no range")
    return notes


def _inside(value: float | None, span: Span | None) -> bool:
    return span is None or value is None or span[0] <= value <= span[1]


def _placed(profiles: Iterable[Profile], anchors: tuple[str, str], cost: Span | None,
            capability: Span | None) -> list[Profile]:
    """The candidates with a verified cost or capability whose verified values lie in the ranges."""
    pool = []
    for p in profiles:
        own_cost, own_capability = _verified(p, COST), _verified(p, CAPABILITY)
        if p.id in anchors or (own_cost is None and own_capability is None):
            continue
        if _inside(own_cost, cost) and _inside(own_capability, capability):
            pool.append(p)
    return pool


def _anchors(store: Any, profiles: dict[str, Profile], ids: tuple[str, str]) -> tuple[Profile, Profile]:
    for anchor in ids:
        if anchor not in profiles:  # every system has its advice cells: an unknown id, or an old store
            Indexes.of(store).systems().check_id(anchor)
            raise UsageError(f"{safe_text(anchor, 120)} carries no advice cells in this graph (a store built "
                             "before kg:adviceCells: ingest the catalog again)")
    return profiles[ids[0]], profiles[ids[1]]


def between(store: Any, low: str, high: str, *, use_case: str | None = None, k: int = DEFAULT_K,
            today: "_dt.date | str | None" = None, stale_days: int = STALE_DAYS) -> Answer:
    """The systems between two anchors (their ids, in either order) on input cost and capability score.

    A candidate is placed when its known values lie within the anchors' ranges and it has at
    least one of the two; it is scored by ``use_case`` (one of the 8 tags) when given, else by its
    capability score / 100. Rows: rank, id, name, score, cost_usd_per_mtok, capability_score,
    rationale, caveats (a candidate's unverified cell is said there and places it nowhere)."""
    constraints = Constraints(tags=(check_tag(use_case),)) if use_case else Constraints()
    k, when, stale_days = count(k, "k", 1, MOST_K), day(today), count(stale_days, "stale_days", 0)
    profiles = {p.id: p for p in read_profiles(store)}
    a, b = _anchors(store, profiles, (low, high))
    cost, capability = _span(a, b, COST), _span(a, b, CAPABILITY)
    notes = _anchor_notes(a, "low") + _anchor_notes(b, "high")
    pool = _placed(profiles.values(), (low, high), cost, capability) if cost or capability else []
    if not (cost or capability):
        notes.append("neither anchor has a verified input cost or capability score: nothing can be placed between them")
    best = ranked((score(p, constraints, when, stale_days, between=True) for p in pool), k)
    facts = {"anchors": {"low": low, "high": high}, "use_case": constraints.tags[0] if constraints.tags else None,
             "cost_range": list(cost) if cost else None, "capability_range": list(capability) if capability else None,
             "placed": len(pool), "k": k, "today": when.isoformat(), "stale_days": stale_days}
    return Answer(COLUMNS, [_row(s, rank, cost, capability) for rank, s in enumerate(best, 1)], notes, facts)


def _row(s: Scored, rank: int, cost_span: Span | None, cap_span: Span | None) -> dict[str, Any]:
    """A placed candidate's row: why it lies between the anchors, and what did not place it."""
    p, placed, unplaced = s.profile, [], []
    for column, value, span, shown in (
            (COST, p.cost, cost_span, lambda v: f"${money(v)}/Mtok"), (CAPABILITY, p.capability, cap_span, money)):
        if value is None:
            continue
        if not p.verified(column):
            unplaced.append(f"{column} excluded from placement — LLM-unverified")
        elif span is not None:
            placed.append(f"{column} {shown(value)} within {shown(span[0])}-{shown(span[1])}")
    return {"rank": rank, "id": p.id, "name": p.name, "score": s.score, "cost_usd_per_mtok": p.cost,
            "capability_score": p.capability, "rationale": placed + s.rationale, "caveats": unplaced + s.caveats}
