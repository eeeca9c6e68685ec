"""What the index of systems shows: ``find``'s facets as the page's filters, each value a link
that sets the ``find`` parameter narrowing the list to it.

The index asks nothing of the store itself: its rows and counts are :func:`kg.find.find`'s
answer for the query string's parameters (``find``'s own, bound as ``kg query find`` binds
them). Here they become the page's facet groups.

>>> from kg.find import Found
>>> groups = facet_groups(Found([], {"deployment": [("hosted", 3), ("both", 2), ("self-hosted", 1)]}), {})
>>> [(o["label"], o["count"], o["href"]) for g in groups if g["param"] == "selfhost" for o in g["options"]]
[('not self-hostable', 3, '?selfhost=false'), ('self-hostable', 3, '?selfhost=true')]
"""

from __future__ import annotations

from typing import Any, Mapping
from urllib.parse import urlencode

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
_LABELS = {"open": {"true": "open source", "false": "not open source"},
           "selfhost": {"true": "self-hostable", "false": "not self-hostable"}}
_SELF_HOSTED = ("self-hosted", "both")  # as find's selfhost parameter reads the deployment mode


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


def facet_groups(found: Any, chosen: Mapping[str, str]) -> list[dict[str, Any]]:
    """For each facet: its title, parameter, chosen value and options (value, label, systems
    among the rows, the link that sets it), most systems first as ``find`` counts them."""
    groups = []
    for title, param, facet in FACET_GROUPS:
        options = [{"value": value, "label": _LABELS.get(param, {}).get(value, value), "count": n,
                    "href": href(chosen, **{param: value}), "selected": chosen.get(param) == value}
                   for value, n in _values(param, found.facets.get(facet, []))]
        groups.append({"title": title, "param": param, "chosen": chosen.get(param), "options": options,
                       "drop": href(chosen, **{param: None})})
    return groups
