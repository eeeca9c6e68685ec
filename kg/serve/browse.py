"""The browsing pages: the index of systems (``find``'s rows and facets) and the form of each named
query (its fields typed from the query's header), rendered from the packaged templates.

Both are plain GET forms: the page a search or a query gives has an address that can be
bookmarked and shared, and works without script.
"""

from __future__ import annotations

from typing import Any, Mapping
from urllib.parse import quote, urlencode

from .catalog import TITLES, facet_groups, href
from .pages import Term, Terms, _render

# named query parameter type -> the form field (<input> attributes) that takes it
FIELDS = {
    "string": {"type": "text"}, "integer": {"type": "number", "step": "1"},
    "decimal": {"type": "number", "step": "any"}, "date": {"type": "date"}, "iri": {"type": "url"},
    "system": {"type": "text"}, "id": {"type": "text"}, "system-name": {"type": "text"},
    "period": {"type": "text", "pattern": r"\d{4}(-Q[1-4]|-\d\d(-\d\d(T[0-9:.]+(Z|[+-]\d\d:?\d\d)?)?)?)?",
               "placeholder": "YYYY, YYYY-Qn, YYYY-MM or YYYY-MM-DD"},
    "limit": {"type": "number", "step": "1", "min": "0"},
}


def index_page(chosen: Mapping[str, str], found: Any, total: int, base: str, error: str | None = None) -> bytes:
    """The systems ``find`` gives for the ``chosen`` parameters, with its facet counts as links
    that narrow the list; ``error`` (a parameter refused as ``kg query find`` refuses it) instead."""
    terms = Terms(base)
    rows = [{"href": terms.href(base + "system/" + str(r["id"])), "name": r.get("name") or r["id"], "id": r["id"],
             "tier": r.get("tier"), "section": r.get("primary_section") or "", "vendor": r.get("vendor_name") or "",
             "open": "yes" if r.get("open_source") else "no", "deployment": r.get("deployment") or "",
             "protocols": r.get("protocol_support") or ""} for r in (found.rows if found is not None else [])]
    filters = [{"title": TITLES.get(k, k), "value": v, "drop": href(chosen, **{k: None})} for k, v in chosen.items()]
    text = chosen.get("text", "")
    title = f"Systems matching \u201c{text}\u201d" if text else "Systems"
    return _render("index.html", f"{title} - AI Agent Infrastructure Landscape", heading=title, text=text,
                   hidden={k: v for k, v in chosen.items() if k != "text"}, error=error, rows=rows, total=total,
                   facets=facet_groups(found, chosen) if found is not None else [], filters=filters)


def _id_link(terms: Terms, term: Any) -> Any:
    """A catalog id (the ``id`` column of the named queries) as a link to its system page."""
    from ..vocab import is_record_id

    shown = terms.term(term)
    if shown is not None and shown.note is None and is_record_id(shown.text):
        return Term(shown.text, iri=True, link=terms.href(terms.base + "system/" + shown.text))
    return shown


def _field(param: Any, values: Mapping[str, str]) -> dict:
    attrs = dict(FIELDS.get(param.type, {"type": "text"}))
    value = values.get(param.name, param.default if param.default is not None else "")
    return {"name": param.name, "type": param.type, "doc": param.doc, "required": not param.optional,
            "default": param.default, "value": value, "attrs": attrs, "boolean": param.type == "boolean"}


def query_page(query: Any, values: Mapping[str, str], error: str | None, result: dict | None, base: str,
               base_url: str) -> bytes:
    """A named query's form; ``result`` (rows, a boolean or triples) shown under it when run."""
    terms = Terms(base)
    table = None
    if result is not None and "rows" in result:
        table = {"headers": result["variables"], "noun": "row(s)",
                 "rows": [[_id_link(terms, row[v]) if v == "id" else terms.term(row[v]) for v in result["variables"]]
                          for row in result["rows"]]}
    elif result is not None and "triples" in result:
        table = {"headers": ["subject", "predicate", "object"], "noun": "triple(s)",
                 "rows": [[terms.term(t.subject), terms.term(t.predicate), terms.term(t.object)]
                          for t in result["triples"]]}
    given = {k: v for k, v in values.items()}
    csv = f"{base_url}/queries/{quote(query.name)}?" + urlencode({**given, "run": "1", "format": "csv"})
    return _render("query.html", f"{query.title or query.name} - AI Agent Infrastructure Landscape", query=query,
                   fields=[_field(p, values) for p in query.params], error=error, table=table,
                   answer=None if result is None else result.get("boolean"), ran=result is not None,
                   check=query.name.startswith("check-"), csv=csv)
