"""What the index of systems shows: ``find``'s facets as the page's filters, each value a link
that sets the ``find`` parameter narrowing the list to it.

The index asks nothing of the store itself: its rows and counts are :func:`kg.find.find`'s
answer for the query string's parameters (``find``'s own, bound as ``kg query find`` binds
them). Here they become the page's facet groups.

>>> from kg.find import Found
>>> groups = facet_groups(Found([], {"deployment": [("hosted", 3), ("both", 2), ("self-hosted", 1)]}), {})
>>> [(o["label"], o["count"], o["href"]) for g in groups if g["param"] == "selfhost" for o in g["options"]]
[('not self-hostable', 3, '?selfhost=false'), ('self-hostable', 3, '?selfhost=true')]

A count is what its link finds: the support modes, with a protocol chosen, are that protocol's.

>>> rows = [{"protocol_support": "mcp:native a2a:none"}, {"protocol_support": "mcp:none a2a:native"}]
>>> [(o["value"], o["count"]) for o in facet_groups(Found(rows, {}), {"protocol": "mcp"})[3]["options"]]
[('native', 1), ('none', 1)]
>>> form_error({"tier": "abc"}), form_error({"open": "yes"}), form_error({"tier": "2"})
('Tier must be a whole number, such as 1.', 'Open source must be true or false.', None)

The rows sort by any column the table shows (``sort=vendor``; ``sort=-tier``: the other way), ties
kept in ``find``'s order (tier, then name):

>>> rows = [{"id": "b", "name": "B", "tier": 2}, {"id": "a", "name": "a", "tier": 1}]
>>> [r["id"] for r in sorted_rows(rows, "name")], [r["id"] for r in sorted_rows(rows, "-tier")]
(['a', 'b'], ['b', 'a'])
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Mapping
from urllib.parse import urlencode

from .paging import Page

# (title, find parameter, the facet of kg.find.Found it is counted in)
FACET_GROUPS = (
    ("Open source", "open", "open_source"), ("Self-hostable", "selfhost", "deployment"),
    ("Protocol", "protocol", "protocol"), ("Support mode", "mode", "mode"),
    ("Primary section", "section", "primary_section"), ("Tier", "tier", "tier"),
    ("Vendor", "vendor", "vendor_name"),
    ("Storage", "storage", "storage"), ("Retrieval", "retrieval", "retrieval"),
    ("Persistence", "persistence", "persistence"), ("Update", "update", "update"), ("Unit", "unit", "unit"),
    ("Governance", "governance", "governance"), ("Conflict", "conflict", "conflict"),
)
TITLES = {param: title for title, param, _ in FACET_GROUPS} | {"text": "Text", "limit": "At most"}
# the table's columns: (the sort parameter's value, the heading, the find column it shows)
COLUMNS = (("name", "system", "name"), ("tier", "tier", "tier"), ("section", "primary section", "primary_section"),
           ("vendor", "vendor", "vendor_name"), ("open", "open source", "open_source"),
           ("deployment", "deployment", "deployment"), ("protocols", "protocols", "protocol_support"))
SORT_KEYS = {key: column for key, _, column in COLUMNS}
NOT_FACETS = ("offset", "limit", "sort")  # parameters of the page, not of find
_LABELS = {"open": {"true": "open source", "false": "not open source"},
           "selfhost": {"true": "self-hostable", "false": "not self-hostable"}}
_SELF_HOSTED = ("self-hosted", "both")  # as find's selfhost parameter reads the deployment mode
SUPPORTING = ("native", "adapter", "client")  # find's protocol=P without a mode: P supported in one of these
# the values find takes for its typed parameters (find.rq's header), as the index's form says them
_CHOICES = {"open": ("true", "false"), "selfhost": ("true", "false"), "protocol": ("mcp", "a2a", "opentelemetry"),
            "mode": ("native", "adapter", "client", "none", "not-applicable", "unknown")}


def href(chosen: Mapping[str, str], **change: str | None) -> str:
    """The index's query string with ``change`` applied (None drops a parameter)."""
    params = {**chosen, **change}
    return "?" + urlencode({k: v for k, v in params.items() if v is not None})


def _values(param: str, counts: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """A facet's (parameter value, systems): the deployment modes read as find's selfhost does."""
    if param != "selfhost":
        return counts
    hostable = sum(n for mode, n in counts if mode in _SELF_HOSTED)
    other = sum(n for mode, n in counts if mode not in _SELF_HOSTED)
    found = [("true", hostable), ("false", other)]
    return sorted(((v, n) for v, n in found if n), key=lambda kv: (-kv[1], kv[0]))


def form_error(chosen: Mapping[str, str]) -> str | None:
    """The index form's own message for a value its fields do not take (None when all are good):
    a tier that is not a number, a yes/no that is neither, a choice that is none of them, a page
    (offset, limit) that is not a count of rows."""
    for param, choices in _CHOICES.items():
        value = chosen.get(param)
        if value is not None and value.strip().lower() not in choices:
            if choices == ("true", "false"):
                return f"{TITLES[param]} must be true or false."
            return f"{TITLES[param]} must be one of {', '.join(choices)}."
    tier = chosen.get("tier")
    if tier is not None and not tier.strip().isdigit():
        return "Tier must be a whole number, such as 1."
    sort = chosen.get("sort")
    if sort is not None and sort.lstrip("-") not in SORT_KEYS:
        return f"Sort by one of the columns: {', '.join(SORT_KEYS)} (a leading '-': the other way)."
    try:
        Page.read(chosen)
    except ValueError as err:
        return str(err)
    return None


def _sort_key(value: Any) -> tuple[int, Any]:
    """Numbers as numbers, text folded; an empty cell last."""
    if value is None or value == "":
        return (2, "")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (0, value)
    return (1, str(value).casefold())


def sorted_rows(rows: list[dict[str, Any]], sort: str | None) -> list[dict[str, Any]]:
    """``rows`` sorted by the column ``sort`` names (``-``: descending, empty cells still last);
    ties keep their order. No ``sort``: as they are."""
    if not sort:
        return rows
    column = SORT_KEYS[sort.lstrip("-")]
    descending = sort.startswith("-")
    filled = [r for r in rows if _sort_key(_shown(r, column))[0] < 2]
    empty = [r for r in rows if _sort_key(_shown(r, column))[0] == 2]
    return sorted(filled, key=lambda r: _sort_key(_shown(r, column)), reverse=descending) + empty


def _shown(row: Mapping[str, Any], column: str) -> Any:
    return (row.get("name") or row.get("id")) if column == "name" else row.get(column)


def sort_links(chosen: Mapping[str, str]) -> list[dict[str, Any]]:
    """The table's headings, each a link that sorts by its column (again: the other way), the
    sorted one marked (``aria-sort``)."""
    current = chosen.get("sort") or ""
    kept = {k: v for k, v in chosen.items() if k != "offset"}  # a new order starts at its first page
    headings = []
    for key, title, _ in COLUMNS:
        state = "ascending" if current == key else "descending" if current == f"-{key}" else None
        headings.append({"title": title, "key": key, "state": state,
                         "href": href(kept, sort=f"-{key}" if state == "ascending" else key)})
    return headings


def _readings(row: Mapping[str, Any]) -> dict[str, str]:
    """A row's support mode per protocol (from its ``protocol_support``, "mcp:native a2a:none")."""
    pairs = (part.split(":", 1) for part in str(row.get("protocol_support") or "").split() if ":" in part)
    return {protocol: mode for protocol, mode in pairs}


def _protocol_counts(rows: list[Mapping[str, Any]], chosen: Mapping[str, str]) -> dict[str, list[tuple[str, int]]]:
    """The protocol and support-mode facets counted as their links filter: a mode with a protocol
    chosen is that protocol's mode (any protocol's without); a protocol with a mode chosen is
    supported in that mode (natively, by adapter or as a client without)."""
    protocol, mode = chosen.get("protocol"), chosen.get("mode")
    protocols: Counter[str] = Counter()
    modes: Counter[str] = Counter()
    for row in rows:
        readings = _readings(row)
        protocols.update(p for p, m in readings.items() if (m == mode if mode else m in SUPPORTING))
        modes.update({readings[protocol]} if protocol in readings else set() if protocol else set(readings.values()))
    return {facet: sorted(tally.items(), key=lambda kv: (-kv[1], kv[0]))
            for facet, tally in (("protocol", protocols), ("mode", modes))}


def facet_groups(found: Any, chosen: Mapping[str, str]) -> list[dict[str, Any]]:
    """For each facet: its title, parameter, chosen value and options (value, label, systems
    among the rows, the link that sets it), most systems first as ``find`` counts them."""
    groups = []
    counts = {**found.facets, **_protocol_counts(found.rows, chosen)}
    kept = {k: v for k, v in chosen.items() if k != "offset"}  # a narrower list starts at its first page
    for title, param, facet in FACET_GROUPS:
        options = [{"value": value, "label": _LABELS.get(param, {}).get(value, value), "count": n,
                    "href": href(kept, **{param: value}), "selected": chosen.get(param) == value}
                   for value, n in _values(param, counts.get(facet, []))]
        groups.append({"title": title, "param": param, "chosen": chosen.get(param), "options": options,
                       "drop": href(kept, **{param: None})})
    return groups
