"""``/findings``: the findings dashboard: the validation kept beside this version, counted.

Two matrices, rule x column and rule x section (the records' primary sections), each count a link
to the findings it counts (the ``findings`` named query's page: paged, and as CSV or JSON with
``format``); the catalog-wide rules (unique ids, edge ends, unique edges) with their subjects;
the freshness of the claims (the ``stale`` named query at the catalog's thresholds, 12 and 24
months, by section and by column, each count a link to its rows); and every rule described, each
at ``/findings#rule-<name>`` (where the findings on a system page link). ``format=json`` gives the
counts as JSON. The counts are those of :mod:`kg.findings` (the ``findings-matrix`` query's), the
freshness that of the ``stale`` query, so the page, ``kg query`` and the MCP tools agree.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import date
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from ... import findings, queries
from ...parameters import today
from ...queries.tables import primary_sections
from ..dispatch import Work
from ..evidence import STALE_MONTHS, rule_href
from ..pages import _render
from ..rendering import body_answer
from ..replies import Reply
from ..request import Request, first, params

if TYPE_CHECKING:
    from ..service import Service
    from ..worker import Worker

OP = "findings"
NO_KEY = "(none)"  # a finding about no cell (or a record in no section): its own column of the matrix


def respond(service: Service, request: Request) -> Work:
    """The dashboard (``format=json``: its counts); the day ages are counted to is part of the
    message, so that an answer kept for a version is not given again on another day."""
    fmt = first(params(request), "format") or "html"
    if fmt not in ("html", "json"):
        raise Reply(400, "bad-parameter", "format must be html or json")
    return Work({"op": OP, "format": fmt, "today": today().isoformat(), "max_bytes": service.config.max_bytes},
                vary=False)


PAGE = 1000  # findings on a page a count links to (more: the page links to the next)


def records_href(count: int, **values: str | None) -> str:
    """The page of the ``count`` findings that a count counts (the ``findings`` named query, run):
    all of them on one page, or :data:`PAGE` a page."""
    given = {k: v for k, v in values.items() if v is not None}
    return "/queries/findings?" + urlencode({**given, "limit": str(min(max(count, 1), PAGE)), "run": "1"})


def stale_href(**values: str | None) -> str:
    return "/queries/stale?" + urlencode({**{k: v for k, v in values.items() if v is not None}, "run": "1"})


def _severity_order(found: findings.Findings, rule: str) -> tuple:
    info = found.rules.get(rule)
    severity = info.severity if info is not None else ""
    return (findings.SEVERITIES.index(severity) if severity in findings.SEVERITIES else 9, rule)


def matrix(found: findings.Findings, by: str, keys: dict[str | None, str | None]) -> dict[str, Any]:
    """The counts of findings by rule and ``by`` (``column``, or ``section``: ``keys`` gives each
    record's), most findings first, each count with the link to its findings."""
    counts = Counter((row.rule, keys.get(row.record) if by == "section" else row.column) for row in found.rows)
    totals = Counter(key for _, key in counts.elements())
    columns = sorted(totals, key=lambda k: (-totals[k], k or "~"))
    per_rule = Counter(rule for rule, _ in counts.elements())
    rules = sorted(per_rule, key=lambda r: (_severity_order(found, r)[0], -per_rule[r], r))
    rows = []
    for rule in rules:
        mine = per_rule[rule]
        cells: list[dict[str, Any]] = [{"count": counts.get((rule, key), 0),
                  # findings about no cell (no section) are listed with the rule's when they are all of it
                  "href": records_href(counts.get((rule, key), 0), rule=rule, **{by: key}) if key is not None
                  else records_href(mine, rule=rule) if counts.get((rule, key)) == mine else None}
                 for key in columns]
        rows.append({"rule": rule, "href": rule_href(rule), "severity": found.rules[rule].severity
                     if rule in found.rules else "", "cells": cells,
                     "total": sum(c["count"] for c in cells), "total_href": records_href(mine, rule=rule)})
    return {"by": by, "keys": [k if k is not None else NO_KEY for k in columns], "rows": rows,
            "totals": [totals[k] for k in columns], "total": sum(totals.values())}


def freshness(worker: Worker, day: str) -> dict[str, Any]:
    """The ``stale`` query's answer at the first threshold (12 months) for records and cells, counted
    by section and by column at each threshold, each count with the link to its rows."""
    found: dict[str, Any] = {"thresholds": list(STALE_MONTHS), "today": day}
    for scope, by in (("records", "section"), ("cells", "column")):
        rows = queries.query(worker.store, "stale", {"scope": scope, "months": str(STALE_MONTHS[0]), "today": day,
                                                     "limit": "10000000"}, worker.iris)
        counted = {months: Counter(row[by] for row in rows if row["months"] >= months) for months in STALE_MONTHS}
        keys = sorted(set(counted[STALE_MONTHS[0]]), key=lambda k: (-counted[STALE_MONTHS[0]][k], str(k)))
        found[scope] = {
            "by": by, "total": {m: sum(c.values()) for m, c in counted.items()},
            "total_href": {m: stale_href(scope=scope, months=str(m), today=day) for m in STALE_MONTHS},
            "rows": [{"key": key or NO_KEY,
                      "counts": [{"count": counted[m][key],
                                  "href": stale_href(scope=scope, months=str(m), today=day, **{by: key})
                                  if key else None} for m in STALE_MONTHS]} for key in keys]}
    return found


def _catalog_wide(found: findings.Findings) -> list[dict[str, Any]]:
    """The catalog-wide rules, each with its findings' subjects (the id repeated, the edge whose end is
    not a record, the edge given twice)."""
    chosen = [info for info in found.rules.values() if info.scope == "catalog"]
    out = []
    for info in sorted(chosen, key=lambda i: i.name):
        rows = [row for row in found.rows if row.rule == info.name]
        out.append({"rule": info.name, "href": rule_href(info.name), "message": info.message,
                    "severity": info.severity, "count": len(rows),
                    "subjects": [{"focus": findings.display_text(r.focus), "value": findings.display_text(r.value),
                                  "record": r.record} for r in rows[:200]], "more": max(0, len(rows) - 200)})
    return out


def _rules(found: findings.Findings) -> list[dict[str, Any]]:
    counts = Counter(row.rule for row in found.rows)
    return [{"rule": info.name, "anchor": "rule-" + info.name, "severity": info.severity, "message": info.message,
             "scope": info.scope, "kind": info.kind, "path": info.path, "count": counts[info.name],
             "href": records_href(counts[info.name], rule=info.name) if counts[info.name] else None}
            for info in sorted(found.rules.values(), key=lambda i: _severity_order(found, i.name))]


def dashboard(worker: Worker, day: str) -> dict[str, Any]:
    """Everything the dashboard shows, as plain values (its JSON, and the page's)."""
    found = findings.current(worker.store, worker.iris)
    sections: dict[str | None, str | None] = {rid: name for rid, name in primary_sections(worker.store).items()}
    severities = Counter(row.severity for row in found.rows)
    return {"made": found.made, "made_now": found.made_now, "note": findings.first_need_note(found),
            "records": found.records, "relations": found.relations, "findings": len(found.rows),
            "severities": {s: severities[s] for s in findings.SEVERITIES if severities[s]},
            "affected": len({row.record for row in found.rows if row.record}),
            "by_column": matrix(found, "column", {}), "by_section": matrix(found, "section", sections),
            "catalog_wide": _catalog_wide(found), "freshness": freshness(worker, day), "rules": _rules(found)}


def render(worker: Worker, msg: dict) -> dict:
    """The dashboard (in a query worker), as a page or as JSON."""
    day = msg.get("today") or today().isoformat()
    date.fromisoformat(day)
    shown = dashboard(worker, day)
    if msg["format"] == "json":
        body = json.dumps(shown, ensure_ascii=False, indent=1).encode("utf-8") + b"\n"
        return {"status": 200, "type": "application/json", "body": body, "headers": {}}
    page = _render("findings.html", "Findings - AI Agent Infrastructure Landscape", **shown)
    return body_answer("html", page, msg)
