"""The generator's recommendation cells in the catalog's own formats, and their provenance.

The cells the catalog's recommenders read (``recommend_for_project``, ``between_models``):
``use-case-tags`` and ``use-case-anti-tags`` (comma-separated, the catalog's 8-tag vocabulary, the
anti-tags apart from the tags), ``cost-input-usd-per-mtok`` (a number, "$3.00 / MTok" or "not
applicable — ..."), ``cost-tier`` (free, budget, mid, premium: read off the input cost),
``capability-composite-score`` (0-100) and ``capability-band`` (entry, competent, frontier: read off
the score), ``cost-last-verified`` and ``capability-last-verified`` (ISO dates, some stale). Values
lean on the row's category (model, memory, harness, paper, other: from its section). A few values
are odd on purpose, as in the catalog (upper case, padded or unknown tags, "strong", "high", "June
2026"): ``ODD`` lists them. Each populated cell gets a ``_provenance`` entry: human (author,
edited_at) or llm (model_id, generated_at, verified or not).
"""

from __future__ import annotations

from gen_random import Weighted, _date, _pick
from gen_vocabulary import AUTHORS, MODEL_IDS

USE_CASE_TAGS = ("scoped-agentic", "long-running-session", "multi-agent-coordination", "memory-augmented-chat",
                 "code-generation-focused", "analytical-summarization", "latency-sensitive", "offline-capable")
COST_TIERS = ("free", "budget", "mid", "premium")
CAPABILITY_BANDS = ("entry", "competent", "frontier")
# the odd values the generator writes on purpose, slug by slug (the catalog's own data holds such)
ODD = {"cost-tier": ("enterprise", "Free", "Premium", "Mid"), "capability-band": ("strong", "ENTRY", "FRONTIER"),
       "capability-composite-score": ("high",), "use-case-tags": (" coding-assistant",),
       "cost-last-verified": ("June 2026", "2026-06"), "capability-last-verified": ("June 2026", "2026-06")}
PROVENANCE_CELLS = ("use-case-tags", "use-case-anti-tags", "cost-input-usd-per-mtok", "cost-tier",
                    "capability-composite-score", "capability-band")
RESEARCH_NA = "not applicable — research artefact"
OSS_NA = "not applicable — OSS, no per-token cost"

# tag weights by category (the order of USE_CASE_TAGS)
_TAG_WEIGHTS = {
    "model": (2, 2, 2, 3, 5, 5, 4, 2), "memory": (2, 6, 2, 7, 1, 2, 2, 3),
    "harness": (6, 3, 5, 1, 5, 1, 2, 1), "paper": (3, 3, 3, 3, 1, 4, 1, 2), "other": (3, 2, 3, 2, 2, 3, 3, 3),
}
_SCORE_RANGE = {"model": (55, 98), "memory": (22, 85), "harness": (30, 90), "paper": (15, 70), "other": (15, 80)}
_HARNESS_SECTIONS = ("harness", "Agent frameworks", "orchestration", "Computer-use", "Voice agent")


def category(section: str, paperish: bool) -> str:
    """model, memory, harness, paper or other: which candidates a row is for the recommenders."""
    if section.startswith("Foundation models"):
        return "model"
    if paperish:
        return "paper"
    if "memory" in section.lower() and "benchmark" not in section.lower():
        return "memory"
    if any(word in section for word in _HARNESS_SECTIONS):
        return "harness"
    return "other"


def _status(rng, na_texts) -> tuple[str, str] | None:
    """(value, status) of a cell without a value (no data, not applicable), or None for one that has one."""
    r = rng.random()
    if r < 0.07:
        return "", "no-data"
    if r < 0.1:
        return _pick(rng, na_texts), "not-applicable"
    return None


def _tags(rng, weights, count: int, but: frozenset = frozenset()) -> list[str]:
    pool = Weighted([(t, w) for t, w in zip(USE_CASE_TAGS, weights) if t not in but])
    chosen: set[str] = set()
    for _ in range(count * 3):
        if len(chosen) == count:
            break
        chosen.add(pool(rng))
    return sorted(chosen)


def _tag_text(rng, tags: list[str]) -> str:
    r = rng.random()
    if r < 0.02:
        return ",".join(tags).upper()
    if r < 0.03:
        return ", ".join(tags) + "," + ODD["use-case-tags"][0]
    return ", ".join(tags)


def _input_cost(rng, cat: str) -> tuple[str, str, float | None]:
    """(value, status, dollars) of ``cost-input-usd-per-mtok``."""
    rand = rng.random
    r = rand()
    if cat == "paper":
        return (RESEARCH_NA, "not-applicable", None) if r < 0.85 else ("", "no-data", None)
    if cat == "model":
        dollars = round(10 ** (-1.2 + rand() * 2.5), 2)
    elif cat in ("memory", "harness"):
        if r < 0.45:
            return "0", "estimate", 0.0
        if r < 0.6:
            return OSS_NA, "not-applicable", 0.0
        dollars = round(10 ** (-1 + rand() * 2), 2)
    else:
        if r < 0.4:
            return _pick(rng, (OSS_NA, RESEARCH_NA)), "not-applicable", None
        if r < 0.55:
            return "0", "estimate", 0.0
        dollars = round(10 ** (-1.2 + rand() * 2.3), 2)
    if rand() < 0.06:
        return "", "no-data", None
    text = "$%.2f / MTok" % dollars if rand() < 0.08 else "%.2f" % dollars
    return text, "estimate", dollars


def _cost_tier(rng, dollars: float | None, input_status: str) -> tuple[str, str]:
    if dollars is None:
        if input_status == "not-applicable":
            return RESEARCH_NA, "not-applicable"
        return _pick(rng, COST_TIERS), "estimate"
    tier = "free" if dollars == 0 else "budget" if dollars < 1 else "mid" if dollars < 5 else "premium"
    r = rng.random()
    if r < 0.02:
        return tier.capitalize(), "estimate"
    if r < 0.03:
        return ODD["cost-tier"][0], "estimate"
    return tier, "estimate"


def _capability(rng, cat: str) -> tuple[tuple[str, str], tuple[str, str]]:
    """(score cell, band cell): the band read off the score."""
    low, high = _SCORE_RANGE[cat]
    score = low + rng.random() * (high - low)
    band = "entry" if score < 40 else "competent" if score < 75 else "frontier"
    r = rng.random()
    text = ODD["capability-composite-score"][0] if r < 0.01 else "%.1f" % score if r < 0.06 else str(int(score))
    r = rng.random()
    band_text = band.upper() if r < 0.02 else ODD["capability-band"][0] if r < 0.03 else band
    return (text, "estimate"), (band_text, "estimate")


def _verified(rng, date_ord: int) -> tuple[str, str]:
    """A ``*-last-verified`` date: mostly after the row's own, some stale, a few malformed."""
    r = rng.random()
    if r < 0.05:
        return "", "no-data"
    if r < 0.065:
        return _pick(rng, ODD["cost-last-verified"]), "estimate"
    if r < 0.18:
        return _date(date_ord - 200 - int(rng.random() * 400)), "estimate"
    return _date(date_ord + int(rng.random() * 60)), "estimate"


def recommend_cells(rng, cat: str, date_ord: int, na_texts) -> dict[str, tuple[str, str]]:
    """slug -> (value, status) of the recommendation cells of one row."""
    out: dict[str, tuple[str, str]] = {}
    weights = _TAG_WEIGHTS[cat]
    tags = _tags(rng, weights, 1 + int(rng.random() * 3))
    out["use-case-tags"] = _status(rng, na_texts) or (_tag_text(rng, tags), "estimate")
    anti = _tags(rng, tuple(6 - w for w in weights), 1 + int(rng.random() * 3), frozenset(tags))
    out["use-case-anti-tags"] = ("", "no-data") if rng.random() < 0.12 else \
        _status(rng, na_texts) or (", ".join(anti), "estimate")
    value, status, dollars = _input_cost(rng, cat)
    out["cost-input-usd-per-mtok"] = (value, status)
    out["cost-tier"] = _status(rng, na_texts) or _cost_tier(rng, dollars, status)
    score, band = _capability(rng, cat)
    out["capability-composite-score"] = _status(rng, na_texts) or score
    out["capability-band"] = _status(rng, na_texts) or band
    out["cost-last-verified"] = _verified(rng, date_ord)
    out["capability-last-verified"] = _verified(rng, date_ord)
    return out


def recommend_provenance(rng, cells: dict, date_ord: int) -> dict[str, dict]:
    """``_provenance`` entries of the row's populated recommendation cells: one source for most of them."""
    main_human = rng.random() < 0.55
    out = {}
    for slug in PROVENANCE_CELLS:
        if cells[slug]["status"] != "estimate":
            continue
        human = main_human if rng.random() < 0.8 else not main_human
        day = _date(date_ord + 10 + int(rng.random() * 40))
        if human:
            out[slug] = {"source": "human", "verified": True, "author": _pick(rng, AUTHORS), "edited_at": day}
        else:
            out[slug] = {"source": "llm", "verified": rng.random() < 0.32, "generated_at": day,
                         "model_id": _pick(rng, MODEL_IDS)}
    return out
