"""The evidence on a system page: each cell's claim with what backs it and what is wrong with it.

Each cell shows its status, claim tier, citation (a link when it is one), verification date with
its age, provenance (the record's ``_provenance`` entry for the column, the cell's source class),
and its findings inline: the rule (a link to its documentation on ``/findings``), the severity,
the message and the value found wrong. Above the cells, a summary: the findings by severity and
by rule, the claims by status and by claim tier, the oldest verification, how many cells are
stale. Two filters, plain links with a query string (no script): ``?only=findings`` (the cells
with findings) and ``?only=stale`` (the cells verified at least ``months`` months ago, 12 by
default; 12 and 24 are the catalog's maintenance thresholds). The findings are those kept beside
the version (:mod:`kg.findings`); a cell's age is counted in whole months to ``today``, as the
``stale`` named query counts it.
"""

from __future__ import annotations

import datetime as _dt
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Mapping
from urllib.parse import quote, urlencode

from ..findings import SEVERITIES, Finding, Findings, display_text
from .pages import Term, Terms
from .replies import Reply

STALE_MONTHS = (12, 24)  # the catalog's maintenance thresholds: stale after a year, badly after two
ONLY = ("findings", "stale")


def rule_href(rule: str) -> str:
    """Where a rule's documentation is: its entry on the findings dashboard."""
    return "/findings#rule-" + quote(rule, safe="")


@dataclass(frozen=True)
class Chosen:
    """What a system page's query string asks: ``only`` (None, ``findings`` or ``stale``) and the
    stale threshold in months."""

    only: str | None = None
    months: int = STALE_MONTHS[0]

    @classmethod
    def read(cls, given: Mapping[str, str]) -> "Chosen":
        """The filter of a request's parameters (``only``, ``months``); 400 for a bad value."""
        only = given.get("only") or None
        if only is not None and only not in ONLY:
            raise Reply(400, "bad-parameter", f"only must be one of {', '.join(ONLY)}")
        months = given.get("months") or str(STALE_MONTHS[0])
        if not months.isdigit() or not 0 < int(months) <= 1200:
            raise Reply(400, "bad-parameter", "months must be a whole number of months from 1 to 1200")
        return cls(only, int(months))

    def query(self, **changed: Any) -> str:
        """The query string of this filter with ``changed`` (None drops a parameter)."""
        values = {"only": self.only, "months": str(self.months) if self.months != STALE_MONTHS[0] else None}
        values.update(changed)
        kept = {k: v for k, v in values.items() if v is not None}
        return "?" + urlencode(kept) if kept else "?"


def whole_months(earlier: _dt.date, later: _dt.date) -> int:
    """Whole months from ``earlier`` to ``later``: a month counts once its day of the month is
    reached (as queries/stale.rq counts them).

    >>> whole_months(_dt.date(2026, 5, 14), _dt.date(2027, 5, 14)), whole_months(_dt.date(2026, 1, 31),
    ...                                                                          _dt.date(2026, 2, 28))
    (12, 0)
    """
    return (later.year - earlier.year) * 12 + later.month - earlier.month - (later.day < earlier.day)


def age_text(months: int) -> str:
    """An age in whole months as people say it.

    >>> age_text(0), age_text(1), age_text(14), age_text(24)
    ('under a month', '1 month', '1 year 2 months', '2 years')
    """
    if months < 1:
        return "under a month"
    years, rest = divmod(months, 12)
    parts = ([f"{years} year{'s' * (years != 1)}"] if years else []) + ([f"{rest} month{'s' * (rest != 1)}"]
                                                                       if rest else [])
    return " ".join(parts)


def _date(term: Any) -> _dt.date | None:
    try:
        return _dt.date.fromisoformat(term.value[:10]) if term is not None else None
    except ValueError:
        return None


def _value(row: Mapping[str, Any], key: str) -> str | None:
    term = row.get(key)
    return None if term is None else term.value


def _finding(found: Findings, row: Finding) -> dict[str, Any]:
    return {"rule": row.rule, "href": rule_href(row.rule), "severity": row.severity,
            "message": found.message(row.rule), "value": display_text(row.value), "path": row.path}


def _provenance(entry: Mapping[str, Any] | None, cell: Mapping[str, Any]) -> str:
    """The cell's provenance in words: its ``_provenance`` entry (source, verified or not, author or
    model) and its source class."""
    parts = []
    if entry:
        source = _value(entry, "source")
        verified = _value(entry, "verified")
        who = _value(entry, "author") or _value(entry, "model")
        if source:
            parts.append(source + (" (verified)" if verified == "true" else " (not verified)" if verified else ""))
        if who:
            parts.append(f"by {who}")
    source_class = _value(cell, "source_class")
    if source_class:
        parts.append(f"source class {source_class}")
    return "; ".join(parts)


def evidence(cells: Iterable[Mapping[str, Any]], provenance: Mapping[str, Mapping[str, Any]], found: Findings,
             record: str, today: _dt.date, chosen: Chosen, terms: Terms) -> dict[str, Any]:
    """What the page shows of a record's evidence: ``summary``, ``filters``, ``rows`` (the cells the
    filter keeps, each with its findings), ``other`` (findings about no cell) and ``note`` (how the
    findings were made)."""
    mine = found.of_record(record)
    by_column: dict[str, list[Finding]] = {}
    for row in mine:
        if row.column is not None:
            by_column.setdefault(row.column, []).append(row)
    every = []
    for cell in cells:
        slug = cell["slug"].value
        verified = _date(cell.get("verified"))
        months = whole_months(verified, today) if verified is not None else None
        citation = cell.get("citation")
        every.append({
            "column": slug, "anchor": "cell-" + quote(slug, safe=""), "value": _value(cell, "value") or "",
            "status": _value(cell, "status") or "", "tier": _value(cell, "tier") or "",
            "citation": terms.term(citation) if citation is not None else None,
            "verified": verified.isoformat() if verified is not None else "", "dated_by": _value(cell, "dated_by"),
            "age": age_text(months) if months is not None else "", "months": months,
            "stale": months is not None and months >= chosen.months,
            "provenance": _provenance(provenance.get(slug), cell),
            "findings": [_finding(found, r) for r in by_column.get(slug, [])]})
    rows = [r for r in every if chosen.only is None or (chosen.only == "findings" and r["findings"])
            or (chosen.only == "stale" and r["stale"])]
    return {"summary": _summary(every, mine, found), "rows": rows, "filters": _filters(every, chosen),
            "other": [{**_finding(found, r), "focus": display_text(r.focus)} for r in mine if r.column is None],
            "note": _note(found), "chosen": chosen, "total": len(every)}


def _summary(every: list[dict[str, Any]], mine: list[Finding], found: Findings) -> dict[str, Any]:
    severities = Counter(r.severity for r in mine)
    rules = Counter((r.rule, r.severity) for r in mine)
    dated = [r for r in every if r["months"] is not None]
    oldest = max(dated, key=lambda r: (r["months"], r["verified"]), default=None)
    return {
        "findings": len(mine),
        "severities": [(s, severities[s]) for s in SEVERITIES if severities[s]]
        + [(s, n) for s, n in sorted(severities.items()) if s not in SEVERITIES],
        "rules": [{"rule": rule, "severity": severity, "count": n, "href": rule_href(rule),
                   "message": found.message(rule)}
                  for (rule, severity), n in sorted(rules.items(), key=lambda kv: (-kv[1], kv[0]))],
        "status": sorted(Counter(r["status"] or "(none)" for r in every).items(), key=lambda kv: (-kv[1], kv[0])),
        "tier": sorted(Counter(r["tier"] or "(none)" for r in every).items()),
        "oldest": None if oldest is None else {
            "date": oldest["verified"], "age": oldest["age"],
            "columns": [r["column"] for r in dated if r["verified"] == oldest["verified"]]},
        "undated": len(every) - len(dated),
        "stale": [(months, sum(1 for r in dated if r["months"] >= months)) for months in STALE_MONTHS],
    }


def _filters(every: list[dict[str, Any]], chosen: Chosen) -> list[dict[str, Any]]:
    """The filter links: every cell, the cells with findings, the stale cells at each threshold."""
    links = [{"label": "all cells", "href": chosen.query(only=None, months=None), "count": len(every),
              "current": chosen.only is None},
             {"label": "only cells with findings", "href": chosen.query(only="findings", months=None),
              "count": sum(1 for r in every if r["findings"]), "current": chosen.only == "findings"}]
    thresholds = sorted(set(STALE_MONTHS) | {chosen.months})
    for months in thresholds:
        links.append({"label": f"only stale ({age_text(months)} or older)",
                      "href": chosen.query(only="stale", months=str(months) if months != STALE_MONTHS[0] else None),
                      "count": sum(1 for r in every if r["months"] is not None and r["months"] >= months),
                      "current": chosen.only == "stale" and chosen.months == months})
    return links


def _note(found: Findings) -> str:
    if found.made_now:
        return (f"No findings were kept for this version of the store: it was validated now, for this page "
                f"({found.seconds:.1f} s). kg ingest, kg build and kg validate keep them.")
    return f"Findings of this version of the store, kept beside it ({found.made})."


__all__ = ["Chosen", "STALE_MONTHS", "Term", "age_text", "evidence", "rule_href", "whole_months"]
