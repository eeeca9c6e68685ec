"""The browsing pages: the index of systems (``find``'s rows and facets) and the form of each named
query (its fields typed from the query's header), rendered from the packaged templates, and the
answers a query worker gives for them (:func:`index_answer`, :func:`named_answer`), a page of
rows at a time (:mod:`kg.serve.paging`).

Both are plain GET forms: the page a search or a query gives has an address that can be
bookmarked and shared, and works without script.
"""

from __future__ import annotations

import json
from typing import Any, Mapping
from urllib.parse import quote, urlencode

from .catalog import TITLES, facet_groups, form_error, href
from .pages import Term, Terms, _render
from .paging import PAGE_PARAMS, Page, link_header

# named query parameter type -> the form field (<input> attributes) that takes it
FIELDS = {
    "string": {"type": "text"}, "integer": {"type": "number", "step": "1"},
    "decimal": {"type": "number", "step": "any"}, "date": {"type": "date"}, "iri": {"type": "url"},
    "system": {"type": "text"}, "id": {"type": "text"}, "system-name": {"type": "text"},
    "period": {"type": "text", "pattern": r"\d{4}(-Q[1-4]|-\d\d(-\d\d(T[0-9:.]+(Z|[+-]\d\d:?\d\d)?)?)?)?",
               "placeholder": "YYYY, YYYY-Qn, YYYY-MM or YYYY-MM-DD"},
    "limit": {"type": "number", "step": "1", "min": "0"},
}


def index_page(chosen: Mapping[str, str], found: Any, total: int, base: str, error: str | None = None,
               page: Page | None = None) -> bytes:
    """The systems ``find`` gives for the ``chosen`` parameters (``page`` of them: the first
    :data:`~kg.serve.paging.PAGE_SIZE` by default), with its facet counts as links that narrow the
    list; ``error`` (a parameter refused, with the form's message or ``find``'s) instead."""
    terms = Terms(base)
    page = page or Page()
    every = found.rows if found is not None else []
    shown, more = page.window(every)
    rows = [{"href": terms.href(base + "system/" + str(r["id"])), "name": r.get("name") or r["id"], "id": r["id"],
             "tier": r.get("tier"), "section": r.get("primary_section") or "", "vendor": r.get("vendor_name") or "",
             "open": "yes" if r.get("open_source") else "no", "deployment": r.get("deployment") or "",
             "protocols": r.get("protocol_support") or ""} for r in shown]
    facets = {k: v for k, v in chosen.items() if k not in PAGE_PARAMS}
    filters = [{"title": TITLES.get(k, k), "value": v, "drop": href(facets, **{k: None})} for k, v in facets.items()]
    text = chosen.get("text", "")
    title = f"Systems matching \u201c{text}\u201d" if text else "Systems"
    window = {"first": page.offset + 1, "last": page.offset + len(shown), "links": page.links(chosen, more),
              "paged": more or page.offset > 0}
    return _render("index.html", f"{title} - AI Agent Infrastructure Landscape", heading=title, text=text,
                   hidden={k: v for k, v in facets.items() if k != "text"}, error=error, rows=rows, total=total,
                   found=len(every), window=window, facets=facet_groups(found, facets) if found is not None else [],
                   filters=filters)


def index_answer(worker: Any, msg: dict) -> dict:
    """The index of systems (in a query worker): ``find``'s rows and facets for the request's
    parameters, a page of rows at a time, as a page, JSON (rows, facets, total, next) or RDF; a
    refused parameter gets the form's message (or ``find``'s), status 400."""
    from ..errors import QueryError
    from ..find import find
    from ..vocab import KG, RDF, SCHEMA
    from pyoxigraph import Literal, Triple

    chosen, fmt = msg["facets"], msg["format"]
    facets = {k: v for k, v in chosen.items() if k not in PAGE_PARAMS}
    found, error = None, form_error(chosen)
    if error is None:
        try:
            found = find(worker.store, facets, worker.iris)
        except QueryError as err:
            error = str(err)
    if found is None:
        if fmt != "html":
            from .replies import Reply

            raise Reply(400, "bad-parameter", error or "refused")
        body = index_page(chosen, None, worker._systems(), worker.iris.base, error)
        return {**worker._body("html", body, msg), "status": 400}
    page = Page.read(chosen)
    shown, more = page.window(found.rows)
    links = page.links({**chosen, **msg.get("shape", {})}, more)
    if fmt == "html":
        reply = worker._body("html", index_page(chosen, found, worker._systems(), worker.iris.base, page=page), msg)
    elif fmt == "json":
        document = {"rows": shown, "total": len(found.rows), "offset": page.offset, "limit": page.limit,
                    "next": msg["url"] + links["next"] if "next" in links else None,
                    "facets": found.as_json()["facets"]}
        reply = {"status": 200, "type": "application/json",
                 "body": json.dumps(document, ensure_ascii=False).encode("utf-8") + b"\n", "headers": {}}
    else:
        triples = [Triple(worker.iris.system(str(r["id"])), p, o) for r in shown for p, o in
                   ((RDF.type, KG.System), (SCHEMA.name, Literal(str(r.get("name") or r["id"]))),
                    (KG.tier, Literal(int(r["tier"]))))]
        reply = worker._body(fmt, worker._serialise(triples, fmt), msg)
    reply["headers"].update(link_header(links))
    return reply


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
               base_url: str, page: Page | None = None, links: Mapping[str, str] | None = None,
               notes: list[str] | None = None) -> bytes:
    """A named query's form; ``result`` (rows, a boolean or triples: ``page`` of its rows, with
    the ``links`` to the pages beside it, and the ``notes`` on what a name was taken to mean)
    shown under it when run."""
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
    page = page or Page()
    shown = len(table["rows"]) if table is not None else 0
    window = {"first": page.offset + 1, "last": page.offset + shown, "paged": bool(links),
              "links": dict(links or {})}
    return _render("query.html", f"{query.title or query.name} - AI Agent Infrastructure Landscape", query=query,
                   fields=[_field(p, values) for p in query.params], error=error, table=table,
                   answer=None if result is None else result.get("boolean"), ran=result is not None,
                   check=query.name.startswith("check-"), csv=csv, window=window, notes=notes or [])


def _page_size(query: Any, values: Mapping[str, str], params: Mapping[str, str]) -> Page:
    """The page of a named query's rows a request asks for: ``limit`` is the query's own limit
    parameter where it has one (its default when not given), else the page's size."""
    own = query.limit_param
    if own is None:
        return Page.read(params)
    size = values.get(own.name, own.default)
    return Page.read({"offset": params.get("offset", ""), "limit": "" if size is None else str(size)})


def named_answer(worker: Any, msg: dict) -> dict:
    """A named query's form (in a query worker); with ``run``, a page of its results under it
    (or, with ``format``, the page alone, its next page in the ``Link`` header)."""
    from .. import queries
    from ..errors import NotFound, QueryError, UsageError, safe_text
    from .replies import Reply

    try:
        query = queries.load(msg["name"])
    except UsageError:
        raise Reply(404, "not-found", f"no named query {safe_text(msg['name'], 80)}") from None
    own = query.limit_param
    paging = {k: v for k, v in msg["values"].items() if k in PAGE_PARAMS}
    # a form sends its empty fields: an empty optional field is one not given
    optional = {p.name for p in query.params if p.optional or p.type != "string"}
    values = {k: v for k, v in msg["values"].items()
              if (v != "" or k not in optional) and (k not in PAGE_PARAMS or (own is not None and k == own.name))}
    fmt, result, error, status, links = msg["format"], None, None, 400, {}
    notes: list[str] = []
    page = Page()
    if msg["run"]:
        try:
            page = _page_size(query, values, paging)
            if page.reach > msg["max_rows"]:
                raise QueryError(f"offset and limit reach past row {msg['max_rows']}, the most this server "
                                 "reads of one answer (its --max-rows)")
            run = {**values, own.name: str(page.reach)} if own is not None else values
            planned = queries.plan(query, run, worker.store, worker.iris)  # an unknown system: 404
            # the form shows the values resolved (a system's name as its id), its limit as given
            values = {k: v if own is not None and k == own.name else planned.values.get(k, v)
                      for k, v in values.items()}
            notes = list(planned.notes)
        except NotFound as err:
            error, status = str(err), 404
            if fmt != "html":
                raise Reply(404, "not-found", error, candidates=[c[0] for c in err.candidates]) from None
        except (QueryError, ValueError) as err:
            error = str(err).replace("needs --param ", "needs the parameter ")  # said for the CLI
            if fmt != "html":
                raise Reply(400, "bad-parameter", error) from None
        else:
            # the plan's text is kg's own, checked as it was made: the worker runs it as planned
            inner = {**msg, "query": planned.text, "planned": {"form": planned.form, "dataset": planned.dataset},
                     "solutions": fmt, "graph": "turtle" if fmt == "html" else None, "row_cap": page.reach,
                     "render": False}
            result = worker.query(inner)
            if "rows" in result:
                result["rows"], more = page.window(result["rows"])
                shape = {"run": "1", **({"format": fmt} if fmt != "html" else {})}
                links = page.links({**values, **paging, **shape}, more)
            if fmt != "html":
                return _results_reply(worker, result, fmt, {**msg, "query": planned.text}, links)
    body = query_page(query, values, error, result, worker.iris.base, msg["base_url"], page, links, notes)
    reply = worker._body("html", body, msg)
    reply["status"] = status if error else 200
    reply["headers"].update(link_header(links))
    return reply


def _results_reply(worker: Any, result: dict, fmt: str, msg: dict, links: Mapping[str, str]) -> dict:
    """A page of a named query's results in a results format, its next page in ``Link``."""
    if "rows" in result:
        reply = worker._solutions(result["variables"], result["rows"], fmt, msg)
    elif "boolean" in result:
        reply = worker._boolean(result["boolean"], fmt, msg)
    else:
        from .replies import Reply

        raise Reply(406, "not-acceptable", "this query gives a graph: ask /sparql for it as Turtle or JSON-LD")
    reply["headers"].update(link_header(links))
    return reply
