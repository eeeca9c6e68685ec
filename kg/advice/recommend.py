"""Recommend for a project: the catalog's ``recommend_for_project``, on the graph.

:func:`recommend` reads a project as free text (the synonym table of
:mod:`kg.advice.vocabulary`) or as a structured form, and ranks the systems of each category
(memory, harness, model) by :func:`kg.advice.scoring.score`, best first, then by id; ``k``
of each. It reads every system's cells once (:func:`kg.advice.profiles.read_profiles`).
"""

from __future__ import annotations

import datetime as _dt
from typing import Any, Sequence

from ..errors import UsageError
from .answer import Answer, count, day
from .profiles import CATEGORIES, read_profiles
from .scoring import STALE_DAYS, Scored, money, ranked, score
from .vocabulary import Constraints, StructuredForm, form_constraints, parse_text

DEFAULT_K = 5
MOST_K = 200
RECOMMEND_COLUMNS = ["category", "rank", "id", "name", "score", "rationale", "caveats"]


def _categories(asked: Sequence[str] | str | None) -> list[str]:
    if asked is None or asked == "" or asked == []:
        return list(CATEGORIES)
    names = [c.strip().lower() for c in (asked.split(",") if isinstance(asked, str) else asked) if c.strip()]
    unknown = [c for c in names if c not in CATEGORIES]
    if unknown:
        raise UsageError(f"unknown categor{'y' if len(unknown) == 1 else 'ies'} {', '.join(map(repr, unknown))}; "
                         f"the categories are: {', '.join(CATEGORIES)}")
    return list(dict.fromkeys(names))


def _read_request(text: str | None, form: StructuredForm | None) -> tuple[Constraints, dict[str, Any], list[str]]:
    """The constraints asked for, the facts of how they were read, and notes."""
    notes: list[str] = []
    if form is not None and not form.is_empty():
        constraints = form_constraints(form)
        if text:
            notes.append("the structured form was read; the description was not (the form wins, as in the catalog)")
        return constraints, {"read_from": "structured form", "matched_terms": [], "unmatched_terms": []}, notes
    if not text or not text.strip():
        raise UsageError("recommend needs a project: a description (text) or a structured form")
    parsed = parse_text(text)
    if not parsed.constraints.tags:
        notes.append("no use-case tag found in the description: every candidate scores 0 (ranked by id)")
    if parsed.unmatched:
        notes.append(f"words not used: {', '.join(parsed.unmatched)}")
    return parsed.constraints, {"read_from": "description", "matched_terms": parsed.matched,
                                "unmatched_terms": parsed.unmatched}, notes


def _asked(c: Constraints) -> str:
    parts = [f"use-case tags {', '.join(c.tags)}" if c.tags else "",
             f"input cost at most ${money(c.cost_max)}/Mtok" if c.cost_max is not None else "",
             f"cost tier at most {c.cost_tier_max}" if c.cost_tier_max else "",
             f"capability band at least {c.band_min}" if c.band_min else ""]
    return "; ".join(p for p in parts if p) or "nothing"


def recommend(store: Any, text: str | None = None, form: StructuredForm | None = None, *,
              categories: Sequence[str] | str | None = None, k: int = DEFAULT_K,
              today: "_dt.date | str | None" = None, stale_days: int = STALE_DAYS) -> Answer:
    """Ranked candidates for a project, ``k`` per category.

    ``text``: the project in words; ``form``: the structured form (it wins over ``text``);
    ``categories``: memory, harness, model (a list or comma-separated; default all three, in that
    order); ``today``: the date staleness is counted to (default: the current date);
    ``stale_days``: a verification older than this is a caveat. Rows: category, rank (1 is best),
    id, name, score (0-1), rationale and caveats (lists of lines)."""
    constraints, read, notes = _read_request(text, form)
    wanted, k = _categories(categories), count(k, "k", 1, MOST_K)
    when, stale_days = day(today), count(stale_days, "stale_days", 0)
    profiles = read_profiles(store)
    rows: list[dict[str, Any]] = []
    considered = {}
    for category in wanted:
        pool = [p for p in profiles if p.category == category]
        considered[category] = len(pool)
        best = ranked((score(p, constraints, when, stale_days) for p in pool), k)
        rows += [_row(s, rank, category=category) for rank, s in enumerate(best, 1)]
    notes.insert(0, f"asked for: {_asked(constraints)}")
    facts = {"constraints": constraints.as_json(), **read, "categories": wanted, "k": k,
             "today": when.isoformat(), "stale_days": stale_days, "considered": considered}
    return Answer(RECOMMEND_COLUMNS, rows, notes, facts)


def _row(s: Scored, rank: int, category: str) -> dict[str, Any]:
    return {"category": category, "rank": rank, "id": s.profile.id, "name": s.profile.name, "score": s.score,
            "rationale": s.rationale, "caveats": s.caveats}
