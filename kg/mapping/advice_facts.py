"""The cells the catalog's advice tools read, gathered once per record at ingest (kg:adviceCells,
kg:citationCells) so that a question over every system reads one literal a system.

The recommenders (``kg.advice``) read eight cells of every system, their provenance and its
sections; the citation prediction reads three cells of every paper. Read from the cell nodes,
one column after another, that is eight joins over every system (2.7 s at 9,120 records);
gathered here it is one scan. Nothing is interpreted here: the values are the record's own
text, as written, with their statuses; ``kg.advice`` reads them.

>>> from kg.records import Cell, Provenance, Record, SectionListing
>>> r = Record("m", "M", 2, cells={"cost-tier": Cell("cost-tier", "mid", status="estimate")},
...            provenance={"cost-tier": Provenance("cost-tier", source="llm", verified=False)},
...            sections=[SectionListing("Dedicated memory layers", primary=True)])
>>> advice_cells(r)
{'id': 'm', 'name': 'M', 'sections': ['Dedicated memory layers'], 'cells': {'cost-tier': ['mid', 'estimate']}, 'provenance': {'cost-tier': ['llm', False]}}
>>> citation_cells(r) is None
True
"""

from __future__ import annotations

from typing import Any

from .. import normalise
from ..records import Record

ADVICE_COLUMNS = ("use-case-tags", "use-case-anti-tags", "cost-input-usd-per-mtok", "cost-tier",
                  "capability-composite-score", "capability-band", "cost-last-verified", "capability-last-verified")
CITATION_COLUMNS = ("citation-trajectory", "citations", "created")


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _cells(record: Record, columns: tuple[str, ...]) -> dict[str, list[str | None]]:
    """[value, status] of each of ``columns`` the record has with a text value."""
    cells = record.cells if isinstance(record.cells, dict) else {}
    found: dict[str, list[str | None]] = {}
    for slug in columns:
        cell = cells.get(slug)
        if cell is not None and isinstance(cell.value, str):
            found[slug] = [cell.value, _text(cell.status)]
    return found


def advice_cells(record: Record) -> dict[str, Any]:
    """The record's id, name, section names (every listing, in order), the advice columns' [value,
    status] and, for those of them with a provenance entry, [source, verified]."""
    provenance = record.provenance if isinstance(record.provenance, dict) else {}
    return {
        "id": record.id,
        "name": record.name if isinstance(record.name, str) else record.id,
        "sections": [s.section for s in record.sections or () if isinstance(s.section, str)],
        "cells": _cells(record, ADVICE_COLUMNS),
        "provenance": {slug: [_text(item.source), item.verified if isinstance(item.verified, bool) else None]
                       for slug in ADVICE_COLUMNS if (item := provenance.get(slug)) is not None},
    }


def citation_cells(record: Record) -> dict[str, Any] | None:
    """For a record that may be a paper (its citation-trajectory cell holds a JSON list, or its
    citations cell reads "N cites M/yr"): its id, name, tier, primary section and the
    citation columns' [value, status]; None for any other record."""
    cells = _cells(record, CITATION_COLUMNS)
    trajectory = (cells.get("citation-trajectory") or [""])[0] or ""
    counts = (cells.get("citations") or [None])[0]
    if not trajectory.lstrip().startswith("[") and normalise.citation_counts(counts) is None:
        return None
    return {"id": record.id, "name": record.name if isinstance(record.name, str) else record.id,
            "tier": record.tier if isinstance(record.tier, int) else None,
            "section": record.primary_section, "cells": cells}
