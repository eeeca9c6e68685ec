"""Each system's advice cells read as the catalog's recommender reads them: a :class:`Profile`.

The cells come from one literal a system (kg:adviceCells, gathered at ingest) through the
``select-advice-cells`` query; the profiles of a store version are read once and kept while
that version is the one read (a server answers its next question without reading them again).

Reading rules, the catalog's (its ``recommender.ts``) unless said:

* a value that is empty or starts with "not applicable" / "n/a" is no value;
* tags: the comma-separated list, each trimmed (kg also lower-cases them: "OFFLINE-CAPABLE" is
  offline-capable; the catalog compared them as written);
* cost tier one of free, budget, mid, premium; capability band one of entry, competent,
  frontier (trimmed, any case); anything else is no value;
* the input cost and the capability score as kg's typed layer reads numbers (kg.normalise.number:
  "3.00", "$3.00 / MTok"; the catalog read only a bare number), from researched cells;
* a cell is LLM-unverified when its provenance says source llm and verified false;
* the category from the section names (every listing): "foundation model" in one -> model,
  else "memory" -> memory, else harness, framework, orchestration, agent IDEs, sandbox,
  computer-use or voice agent -> harness; else none.
"""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass
from typing import Any, Iterable

from .. import normalise
from .reading import Kept, literals
from .vocabulary import CAPABILITY_BANDS, COST_TIERS

CATEGORIES = ("memory", "harness", "model")
_HARNESS_WORDS = ("harness", "framework", "orchestration", "agent ides", "sandbox", "computer-use", "voice agent")
SCORED = ("use-case-tags", "use-case-anti-tags", "cost-input-usd-per-mtok", "cost-tier", "capability-composite-score",
          "capability-band")


@dataclass(frozen=True, slots=True)
class Profile:
    """What the recommenders know of one system. A number or word that could not be read is None;
    ``unverified`` names the scored columns whose values an LLM wrote and nobody verified."""

    id: str
    name: str
    category: str | None
    tags: tuple[str, ...]
    anti_tags: tuple[str, ...]
    cost: float | None
    cost_tier: str | None
    capability: float | None
    band: str | None
    cost_checked: str | None  # the cost-last-verified cell's text, as written
    capability_checked: str | None
    unverified: frozenset[str]

    def verified(self, column: str) -> bool:
        return column not in self.unverified


_NONE = ("not applicable", "n/a")


def _texts(cells: dict[str, Any]) -> dict[str, tuple[str, str | None]]:
    """(text, status) of each cell that holds a value: not missing, empty or "not applicable"."""
    found = {}
    for slug, pair in cells.items():
        text = pair[0] if pair else None
        if type(text) is str:
            head = text.lstrip()[:14].lower()
            if head and not head.startswith(_NONE):
                found[slug] = (text, pair[1] if len(pair) > 1 else None)
    return found


def _number(found: tuple[str, str | None] | None) -> float | None:
    if found is None or not isinstance(found[1], str):
        return None
    number = normalise.number(found[0], found[1])
    return None if number is None else float(number)


def _word(found: tuple[str, str | None] | None, allowed: tuple[str, ...]) -> str | None:
    word = found[0].strip().lower() if found is not None else None
    return word if word in allowed else None


def _tags(found: tuple[str, str | None] | None) -> tuple[str, ...]:
    return () if found is None else tuple(t for t in (part.strip().lower() for part in found[0].split(",")) if t)


def category_of(sections: Iterable[str]) -> str | None:
    """memory, harness or model from a system's section names (the catalog's order of precedence)."""
    names = [s.lower() for s in sections if isinstance(s, str)]
    if any("foundation model" in s for s in names):
        return "model"
    if any("memory" in s for s in names):
        return "memory"
    if any(word in s for s in names for word in _HARNESS_WORDS):
        return "harness"
    return None


def profile(found: dict[str, Any]) -> Profile:
    """The profile of one kg:adviceCells object (kg.mapping.advice_facts)."""
    cells = _texts(found.get("cells") or {})
    provenance = found.get("provenance") or {}
    unverified = frozenset(slug for slug in SCORED if (item := provenance.get(slug)) and item[0] == "llm"
                           and item[1] is False)
    text = cells.get
    return Profile(
        id=found["id"], name=found.get("name") or found["id"], category=category_of(found.get("sections") or ()),
        tags=_tags(text("use-case-tags")), anti_tags=_tags(text("use-case-anti-tags")),
        cost=_number(text("cost-input-usd-per-mtok")), cost_tier=_word(text("cost-tier"), COST_TIERS),
        capability=_number(text("capability-composite-score")), band=_word(text("capability-band"), CAPABILITY_BANDS),
        cost_checked=(text("cost-last-verified") or (None,))[0],
        capability_checked=(text("capability-last-verified") or (None,))[0], unverified=unverified)


_KEPT: Kept[list[Profile]] = Kept()


def read_profiles(store: Any) -> list[Profile]:
    """Every system's profile, read with the ``select-advice-cells`` query (``store``: a GraphStore);
    kept for the store version that was read."""
    return _KEPT.get(store, (), lambda: [profile(json.loads(text)) for text in literals(store, "select-advice-cells")])


def days_since(text: str | None, today: _dt.date) -> int | None:
    """Whole days from a YYYY-MM-DD text to ``today`` (None when the text is no such date)."""
    if text is None:
        return None
    try:
        return (today - _dt.date.fromisoformat(text.strip()[:10])).days if len(text.strip()) == 10 else None
    except ValueError:
        return None
