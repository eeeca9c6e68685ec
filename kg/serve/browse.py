"""The browsing pages: the index of systems (search and facets) and the form of each named
query (its fields typed from the query's header), rendered from the packaged templates.

Both are plain GET forms: the page a search or a query gives has an address that can be
bookmarked and shared, and works without script.
"""

from __future__ import annotations

from typing import Any, Mapping
from urllib.parse import quote, urlencode

from .catalog import FACETS
from .pages import Term, Terms, _render

FACET_TITLES = {"section": "Section", "tier": "Tier", "protocol": "Protocol", "mode": "Support mode",
                "license": "Licence", "selfhost": "Self-hostable", "vendor": "Vendor"}
# named query parameter type -> the form field (<input> attributes) that takes it
FIELDS = {
    "string": {"type": "text"}, "integer": {"type": "number", "step": "1"},
    "decimal": {"type": "number", "step": "any"}, "date": {"type": "date"}, "iri": {"type": "url"},
    "system": {"type": "text"}, "id": {"type": "text"}, "system-name": {"type": "text"},
    "period": {"type": "text", "pattern": r"\d{4}(-Q[1-4]|-\d\d(-\d\d(T[0-9:.]+(Z|[+-]\d\d:?\d\d)?)?)?)?",
               "placeholder": "YYYY, YYYY-Qn, YYYY-MM or YYYY-MM-DD"},
    "limit": {"type": "number", "step": "1", "min": "0"},
}


def index_page(text: str, chosen: Mapping[str, str], hits: list, counts: dict, total: int, base: str,
               labels: Mapping[str, Mapping[str, str]]) -> bytes:
    """The systems that match the search ``text`` and the ``chosen`` facets, with each
    facet's values and counts."""
    chosen = {k: v for k, v in chosen.items() if v}
    facets: list[dict[str, Any]] = []
    for facet in FACETS:
        options = [{"key": key, "label": label, "count": n} for key, label, n in counts.get(facet, [])]
        if chosen.get(facet) and all(o["key"] != chosen[facet] for o in options):
            options.insert(0, {"key": chosen[facet], "label": chosen[facet], "count": 0})
        facets.append({"name": facet, "title": FACET_TITLES[facet], "options": options,
                       "chosen": chosen.get(facet, "")})
    terms = Terms(base)
    rows = [{"href": terms.href(r.iri), "name": r.name, "id": r.id, "tier": r.tier, "section": r.primary,
             "vendor": ", ".join(sorted(labels["vendor"].get(k, k) for k in r.facets.get("vendor", ()))),
             "license": ", ".join(sorted(labels["license"].get(k, k) for k in r.facets.get("license", ())))}
            for r in hits]
    filters: list[dict[str, Any]] = [{"title": FACET_TITLES[k], "value": next((o["label"] for f in facets if f["name"] == k
                                                        for o in f["options"] if o["key"] == v), v),
                "drop": "?" + urlencode({**({"q": text} if text else {}),
                                         **{n: w for n, w in chosen.items() if n != k}})}
               for k, v in chosen.items()]
    title = f"Systems matching \u201c{text}\u201d" if text else "Systems"
    return _render("index.html", f"{title} - AI Agent Infrastructure Landscape", heading=title, text=text,
                   facets=facets, rows=rows, total=total, filters=filters)


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
