"""``/queries/<name>``: the form of each named query (its fields typed from the query's header),
rendered from the packaged templates; with ``run``, a page of its results under it (``offset``,
``limit``, :mod:`kg.serve.paging`), or with ``format``, the page alone (JSON, XML, CSV, TSV).

A plain GET form: the page a query gives has an address that can be bookmarked and shared, and
works without script.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping
from urllib.parse import quote, urlencode

from ... import queries
from ...errors import KgError
from ...parameters import today
from ..dispatch import Work
from ..pages import Term, Terms, _render
from ..paging import PAGE_PARAMS, Page, link_header
from ..rendering import body_answer, boolean_answer, solutions_answer
from ..replies import Reply
from ..request import Request, first, params
from .changes import diff_href

if TYPE_CHECKING:
    from ..service import Service
    from ..worker import Worker

OP = "named"

# named query parameter type -> the form field (<input> attributes) that takes it
FIELDS = {
    "string": {"type": "text"}, "integer": {"type": "number", "step": "1"},
    "decimal": {"type": "number", "step": "any"}, "date": {"type": "date"}, "iri": {"type": "url"},
    "system": {"type": "text"}, "id": {"type": "text"}, "system-name": {"type": "text"},
    "period": {"type": "text", "pattern": r"\d{4}(-Q[1-4]|-\d\d(-\d\d(T[0-9:.]+(Z|[+-]\d\d:?\d\d)?)?)?)?",
               "placeholder": "YYYY, YYYY-Qn, YYYY-MM or YYYY-MM-DD"},
    "limit": {"type": "number", "step": "1", "min": "0"},
    "relations": {"type": "text", "placeholder": "runtime-dependency,built-on"},
}


def _id_link(terms: Terms, term: Any) -> Any:
    """A catalog id (the ``id`` column of the named queries) as a link to its system page."""
    from ...vocab import is_record_id

    shown = terms.term(term)
    if shown is not None and shown.note is None and is_record_id(shown.text):
        return Term(shown.text, iri=True, link=terms.href(terms.base + "system/" + shown.text))
    return shown


def _field(param: Any, values: Mapping[str, str]) -> dict:
    attrs = dict(FIELDS.get(param.type, {"type": "text"}))
    value = values.get(param.name, param.default if param.default is not None else "")
    return {"name": param.name, "type": param.type, "doc": param.doc, "required": not param.optional,
            "default": param.default, "value": value, "attrs": attrs,
            "options": ("true", "false") if param.type == "boolean" else param.choices}


def query_page(query: Any, values: Mapping[str, str], error: str | None, result: dict | None, base: str,
               base_url: str, page: Page | None = None, links: Mapping[str, str] | None = None,
               notes: list[str] | None = None, at: dict | None = None) -> bytes:
    """A named query's form; ``result`` (rows, a boolean or triples: ``page`` of its rows, with
    the ``links`` to the pages beside it, and the ``notes`` on what a name was taken to mean)
    shown under it when run; ``at``: the changeset the records were read at, and the diff from
    then to now."""
    terms = Terms(base)
    table = None
    if result is not None and "rows" in result:
        table = {"headers": result["variables"], "noun": "rows",
                 "rows": [[_id_link(terms, row[v]) if v == "id" else terms.term(row[v]) for v in result["variables"]]
                          for row in result["rows"]]}
    elif result is not None and "triples" in result:
        table = {"headers": ["subject", "predicate", "object"], "noun": "triples",
                 "rows": [[terms.term(t.subject), terms.term(t.predicate), terms.term(t.object)]
                          for t in result["triples"]]}
    given = {**values, **({"at": str(at["number"])} if at else {})}
    csv = f"{base_url}/queries/{quote(query.name)}?" + urlencode({**given, "run": "1", "format": "csv"})
    page = page or Page()
    shown = len(table["rows"]) if table is not None else 0
    total = result.get("total") if result is not None else None
    window = {"first": page.offset + 1, "last": page.offset + shown, "paged": bool(links),
              "links": dict(links or {}), "total": total}
    return _render("query.html", f"{query.title or query.name} - AI Agent Infrastructure Landscape", query=query,
                   fields=[_field(p, values) for p in query.params], error=error, table=table,
                   answer=None if result is None else result.get("boolean"), ran=result is not None,
                   check=query.name.startswith("check-"), csv=csv, window=window, notes=notes or [], at=at,
                   takes_at=query.name in AT_CHANGESET)


def _page_size(query: Any, values: Mapping[str, str], params: Mapping[str, str]) -> Page:
    """The page of a named query's rows a request asks for: ``limit`` is the query's own limit
    parameter where it has one (its default when not given), else the page's size."""
    own = query.limit_param
    if own is None:
        return Page.read(params)
    size = values.get(own.name, own.default)
    return Page.read({"offset": params.get("offset", ""), "limit": "" if size is None else str(size)})


def respond(service: Service, request: Request) -> Work:
    """A named query's form; with ``run``, a page of its results under it (``offset``, ``limit``),
    or, with ``format``, the page alone."""
    found = params(request)
    values = {k: v[0] for k, v in found.items() if k not in ("run", "format", "at") and v}
    at = first(found, "at") or None
    if at is not None and not (at.isdigit() and len(at) < 10 and int(at) > 0):
        raise Reply(400, "bad-parameter", "at must be a changeset number (kg log lists them)")
    fmt = first(found, "format") or "html"
    if fmt not in ("html", "json", "xml", "csv", "tsv"):
        raise Reply(400, "bad-request", "format must be html, json, xml, csv or tsv")
    config = service.config
    name = request.path_params["name"]
    msg: dict[str, Any] = {"op": OP, "name": name, "values": values, "run": "run" in found, "at": at,
                           "format": fmt, "base_url": request.base_url, "max_rows": config.max_rows,
                           "max_bytes": config.max_bytes}
    if _counts_to_today(name, values):
        msg["today"] = today().isoformat()  # its answer changes with the day: so does its ETag
    return Work(msg, vary=False)


def _counts_to_today(name: str, values: Mapping[str, str]) -> bool:
    """Whether the named query's answer depends on the day: a date parameter given, or left, as ``today``."""
    try:
        declared = queries.load(name).params
    except KgError:  # an unknown name: the worker answers it
        return False
    return any(p.type == "date" and values.get(p.name, p.default or "") == "today" for p in declared)


def render(worker: Worker, msg: dict) -> dict:
    """A named query's form (in a query worker); with ``run``, a page of its results under it
    (or, with ``format``, the page alone, its next page in the ``Link`` header)."""
    from ...errors import NotFound, QueryError, UsageError, safe_text

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
    at = msg.get("at")
    notes: list[str] = []
    page = Page()
    if msg["run"]:
        try:
            page = _page_size(query, values, paging)
            if page.reach > msg["max_rows"]:
                raise QueryError(f"offset and limit reach past row {msg['max_rows']}, the most this server "
                                 "reads of one answer (its --max-rows)")
            run = {**values, own.name: str(page.reach)} if own is not None else values
            version = worker.store if at is None else _version_at(worker, query, values, int(at))
            planned = queries.plan(query, run, version, worker.iris)  # an unknown system: 404
            # the form shows the values resolved (a system's name as its id), its limit as given
            values = {k: v if own is not None and k == own.name else planned.values.get(k, v)
                      for k, v in values.items()}
            notes = list(planned.notes)
        except NotFound as err:
            error, status = str(err), 404
            if fmt != "html":
                raise Reply(404, "not-found", error, candidates=[c[0] for c in err.candidates]) from None
        except (QueryError, UsageError, ValueError) as err:  # a bad value, or one a computed query refuses
            error = str(err).replace("needs --param ", "needs the parameter ")  # said for the CLI
            if fmt != "html":
                raise Reply(400, "bad-parameter", error) from None
        else:
            # the plan's text is kg's own, checked as it was made: the worker runs it as planned
            # a page counts the rows after it (within --max-rows) for its "rows 1-100 of 250"; the
            # query's own limit parameter is its LIMIT, so there the rows read are all there are
            inner = {**msg, "query": planned.text, "planned": {"form": planned.form, "dataset": planned.dataset},
                     "solutions": fmt, "graph": "turtle" if fmt == "html" else None, "row_cap": page.reach,
                     "render": False, "count_to": msg["max_rows"] if fmt == "html" and own is None else None}
            result = worker.query(inner) if at is None else run_at(version, planned, page.reach, msg["max_rows"])
            if "rows" in result:
                result["rows"], more = page.window(result["rows"])
                shape = {"run": "1", **({"format": fmt} if fmt != "html" else {})}
                links = page.links({**values, **paging, **shape}, more)
            if fmt != "html":
                return _results_reply(worker, result, fmt, {**msg, "query": planned.text}, links)
    then = None if at is None else {"number": int(at), "diff": diff_href(int(at), "current", _ids(query, values))}
    body = query_page(query, values, error, result, worker.iris.base, msg["base_url"], page, links, notes, then)
    reply = body_answer("html", body, msg)
    reply["status"] = status if error else 200
    reply["headers"].update(link_header(links))
    return reply


#: the named queries whose page takes ``at`` (a changeset): they read only the records they name
AT_CHANGESET = ("show", "compare")


def _ids(query: Any, values: Mapping[str, str]) -> list[str]:
    """The catalog ids a query's values name (its ``id`` and ``system`` parameters)."""
    return [values[p.name] for p in query.params if p.type in ("id", "system") and values.get(p.name)]


def _version_at(worker: Worker, query: Any, values: Mapping[str, str], number: int) -> Any:
    """A store of the records ``query`` names as they were right after changeset ``number``."""
    from ...errors import QueryError, UsageError
    from ...history.at import records_at

    if query.name not in AT_CHANGESET:
        raise QueryError(f"at (a changeset) is taken by {' and '.join(AT_CHANGESET)}, which read only the "
                         "records they name")
    try:
        return records_at(worker.store, worker.iris, number, _ids(query, values))
    except UsageError as err:
        raise QueryError(str(err)) from None


def run_at(version: Any, planned: Any, cap: int, max_rows: int) -> dict:
    """A plan's answer on a store of records at a changeset, as :meth:`Worker.query` gives it to a
    view (rows, a boolean or triples, as terms)."""
    from itertools import islice

    from pyoxigraph import QueryBoolean, QuerySolutions

    result = queries.run_plan(version, planned)
    if isinstance(result, QueryBoolean):
        return {"boolean": bool(result)}
    if isinstance(result, (QuerySolutions, queries.LimitedSolutions)):
        variables = [v.value for v in result.variables]
        return {"variables": variables, "rows": list(islice(result, min(cap, max_rows)))}
    return {"triples": list(islice(result, max_rows))}


def _results_reply(worker: Worker, result: dict, fmt: str, msg: dict, links: Mapping[str, str]) -> dict:
    """A page of a named query's results in a results format, its next page in ``Link``."""
    if "rows" in result:
        reply = solutions_answer(result["variables"], result["rows"], fmt, msg, worker.iris.base)
    elif "boolean" in result:
        reply = boolean_answer(result["boolean"], fmt, msg)
    else:
        raise Reply(406, "not-acceptable", "this query gives a graph: ask /sparql for it as Turtle or JSON-LD")
    reply["headers"].update(link_header(links))
    return reply
