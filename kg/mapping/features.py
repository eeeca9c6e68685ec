"""Feature columns: which cells are features, their family (observability, cost, eval), their state.

A feature cell gets a yes / no / unknown state (``kg:featureState``, the coverage question);
the typed layer counts them per family (``kg:FeatureSummary``) and ``kg.coverage`` tallies them.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterable

from .. import normalise
from ..records import Cell, Record

# Feature columns whose cells get a yes / no / unknown state (the coverage question).
FEATURE_FAMILIES = {"obs-": "observability", "cost-": "cost", "eval-": "eval"}
NOT_FEATURES = frozenset({
    "cost-input-usd-per-mtok", "cost-output-usd-per-mtok", "cost-tier", "cost-pricing-model",
    "cost-last-verified",
})


@lru_cache(maxsize=1 << 14)  # asked three times a cell; columns are few
def feature_family(column_slug: str) -> str | None:
    """observability, cost or eval for a feature column; None for every other column."""
    if column_slug in NOT_FEATURES:
        return None
    for prefix, family in FEATURE_FAMILIES.items():
        if column_slug.startswith(prefix):
            return family
    return None


def text_or_empty(value: Any) -> str:
    """``value`` when it is text, else the empty string."""
    return value if isinstance(value, str) else ""


def cell_feature_state(cell: Cell) -> str:
    """yes, no or unknown: what a feature cell says (``normalise.feature_state`` of its value and status)."""
    return normalise.feature_state(text_or_empty(cell.value), text_or_empty(cell.status))


def feature_states(record: Record) -> list[tuple[str, str]]:
    """(column slug, feature state) of the record's feature cells, as ``kg:featureState`` states them."""
    return [(column_slug, cell_feature_state(cell))
            for column_slug, cell in cell_items(record) if feature_family(column_slug) is not None]


def cell_items(record: Record) -> Iterable[tuple[str, Any]]:
    """(column slug, cell) of the record's cells; none when its cells are not an object."""
    return record.cells.items() if isinstance(record.cells, dict) else ()
