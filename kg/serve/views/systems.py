"""``/id/system/`` (also ``/id/system``, ``/system/``, ``/system``): the index of systems, ``kg query find``
as a page: its query string is ``find``'s parameters (empty fields left out), its rows sorted by any
column shown (``sort=vendor``, ``sort=-tier``) a page at a time (``offset``, ``limit``,
:mod:`kg.serve.paging`), beside them the facet counts, each value a link that narrows the list
(:mod:`kg.serve.catalog`); ``format=json`` gives the rows, facets, total and next page as JSON,
``format=csv`` (or ``Accept: text/csv``) the table with every column of ``find`` (its facets among
them) as CSV, all of it unless ``offset`` or ``limit`` says which rows, an RDF format the systems'
names and tiers.

Every match is read, not ``find``'s first 1,000 rows: the sort, the count and the facet counts
are over them all (at 9,120 full-shape records every system's row reads in 3.2 s against 0.8 s
for 1,000, warm; the answer cache keeps a page for its generation).

A plain GET form: the page a search gives has an address that can be bookmarked and shared, and
works without script.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Mapping

from ..catalog import NOT_FACETS, TITLES, facet_groups, form_error, href, sort_links, sorted_rows
from ..dispatch import Work
from ..negotiation import ENTITY_OFFERS, GRAPH_ANSWERS, negotiate
from ..pages import Terms, _render
from ..paging import PAGE_PARAMS, Page, link_header
from ..rendering import body_answer, serialise
from ..replies import Reply
from ..request import Request, first, params, path_of

if TYPE_CHECKING:
    from ..service import Service
    from ..worker import Worker

OP = "index"
TABLE_FORMATS = ("json", "csv")  # the index's own formats, besides a page and RDF
_OFFERS = ENTITY_OFFERS + [("csv", "text/csv")]


def respond(service: Service, request: Request) -> Work:
    """The query string is ``find``'s parameters (empty fields left out) and the page's ``offset``
    and ``limit``; ``format=json`` gives the rows, facets, total and next page as JSON."""
    found = params(request)
    fmt = first(found, "format") or negotiate(request.header("Accept"), _OFFERS)
    if fmt is None:
        raise Reply(406, "not-acceptable", "the index comes as " + ", ".join(dict.fromkeys(m for _, m in _OFFERS)))
    if fmt not in TABLE_FORMATS + GRAPH_ANSWERS:
        raise Reply(400, "bad-request", "format must be one of " + ", ".join(("html",) + TABLE_FORMATS + tuple(
            f for f in GRAPH_ANSWERS if f != "html")))
    chosen = {name: values[0] for name, values in found.items() if name != "format" and values and values[0]}
    url = request.base_url + path_of(request)
    shape = {"format": found["format"][0]} if found.get("format") else {}  # kept by the links to the pages
    return Work({"op": OP, "facets": chosen, "format": fmt, "url": url, "shape": shape,
                 "max_bytes": service.config.max_bytes})


def index_page(chosen: Mapping[str, str], found: Any, total: int, base: str, error: str | None = None,
               page: Page | None = None) -> bytes:
    """The systems ``find`` gives for the ``chosen`` parameters (``page`` of them: the first
    :data:`~kg.serve.paging.PAGE_SIZE` by default), with its facet counts as links that narrow the
    list; ``error`` (a parameter refused, with the form's message or ``find``'s) instead."""
    terms = Terms(base)
    page = page or Page()
    every = sorted_rows(found.rows, chosen.get("sort")) if found is not None else []
    shown, more = page.window(every)
    rows = [{"href": terms.href(base + "system/" + str(r["id"])), "name": r.get("name") or r["id"], "id": r["id"],
             "tier": r.get("tier"), "section": r.get("primary_section") or "", "vendor": r.get("vendor_name") or "",
             "open": "yes" if r.get("open_source") else "no", "deployment": r.get("deployment") or "",
             "protocols": r.get("protocol_support") or ""} for r in shown]
    facets = {k: v for k, v in chosen.items() if k not in NOT_FACETS}
    filters = [{"title": TITLES.get(k, k), "value": v, "drop": href(facets, **{k: None})} for k, v in facets.items()]
    text = chosen.get("text", "")
    title = f"Systems matching \u201c{text}\u201d" if text else "Systems"
    window = {"first": page.offset + 1, "last": page.offset + len(shown), "links": page.links(chosen, more),
              "paged": more or page.offset > 0}
    kept = {k: v for k, v in chosen.items() if k not in PAGE_PARAMS}
    return _render("index.html", f"{title} - AI Agent Infrastructure Landscape", heading=title, text=text,
                   hidden={k: v for k, v in kept.items() if k != "text"}, error=error, rows=rows, total=total,
                   found=len(every), window=window, facets=facet_groups(found, kept) if found is not None else [],
                   filters=filters, headings=sort_links(chosen), csv=href({**kept, "format": "csv"}))


def render(worker: Worker, msg: dict) -> dict:
    """The index of systems (in a query worker): ``find``'s rows and facets for the request's
    parameters, a page of rows at a time, as a page, JSON (rows, facets, total, next) or RDF; a
    refused parameter gets the form's message (or ``find``'s), status 400."""
    from pyoxigraph import Literal, Triple

    from ...errors import QueryError
    from ...find import find
    from ...vocab import KG, RDF, SCHEMA

    chosen, fmt = msg["facets"], msg["format"]
    facets = {k: v for k, v in chosen.items() if k not in NOT_FACETS}
    found, error = None, form_error(chosen)
    if error is None:
        try:
            # every match, not find's first 1,000: the sort, the count and the facets are over them all
            found = find(worker.store, {**facets, "limit": str(worker.systems())}, worker.iris)
        except QueryError as err:
            error = str(err)
    if found is None:
        if fmt != "html":
            raise Reply(400, "bad-parameter", error or "refused")
        body = index_page(chosen, None, worker.systems(), worker.iris.base, error)
        return {**body_answer("html", body, msg), "status": 400}
    rows = sorted_rows(found.rows, chosen.get("sort"))
    whole = fmt == "csv" and not any(k in chosen for k in PAGE_PARAMS)  # a CSV is the whole table unless paged
    page = Page(0, max(len(rows), 1)) if whole else Page.read(chosen)
    shown, more = page.window(rows)
    links = page.links({**chosen, **msg.get("shape", {})}, more)
    if fmt == "csv":
        reply = body_answer("csv", _csv(shown), msg)
    elif fmt == "html":
        reply = body_answer("html", index_page(chosen, found, worker.systems(), worker.iris.base, page=page), msg)
    elif fmt == "json":
        document = {"rows": shown, "total": len(rows), "offset": page.offset, "limit": page.limit,
                    "next": msg["url"] + links["next"] if "next" in links else None,
                    "facets": found.as_json()["facets"]}
        reply = {"status": 200, "type": "application/json",
                 "body": json.dumps(document, ensure_ascii=False).encode("utf-8") + b"\n", "headers": {}}
    else:
        triples = [Triple(worker.iris.system(str(r["id"])), p, o) for r in shown for p, o in
                   ((RDF.type, KG.System), (SCHEMA.name, Literal(str(r.get("name") or r["id"]))),
                    (KG.tier, Literal(int(r["tier"]))))]
        reply = body_answer(fmt, serialise(triples, fmt), msg)
    reply["headers"].update(link_header(links))
    return reply


def _csv(rows: list[dict[str, Any]]) -> bytes:
    """The rows as CSV, every column of ``find`` (its facets among them), in its order."""
    import io

    from ...find import columns
    from ...output import write_rows

    out = io.StringIO()
    write_rows(rows, out, "csv", columns())
    return out.getvalue().encode("utf-8")
