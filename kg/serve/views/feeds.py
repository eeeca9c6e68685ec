"""Atom feeds of what changed: ``/changes.atom`` (the catalog), ``/id/system/<id>/changes.atom`` (one
system), ``/id/section/<section>/changes.atom`` (the systems whose primary section it is).

Each entry is one changeset (one ingest that changed something), newest first: its title says
what it changed, its content lists the field-level changes (each changed field, old -> new; for a
cell, each part that changed, with the cell's citation before and after), and it links to the
changeset's page (``/changes/<n>``, narrowed to the system in a system's feed). The changes are
the ``changes`` named query's rows, so a feed, ``kg query changes`` and ``kg log`` agree. A feed
is valid Atom (RFC 4287: feed and entry ids, titles, dates with their zone, links, the data's
licence as ``rights``) and answers conditional GETs as every page does (its ETag changes with
the store's version).
"""

from __future__ import annotations

import html
from datetime import datetime, timezone
from itertools import groupby
from typing import TYPE_CHECKING, Any, Iterable
from xml.etree import ElementTree as ET

from pyoxigraph import Literal, NamedNode

from ... import queries
from ...errors import safe_text
from ...history import log
from ...queries.tables import primary_sections
from ...vocab import ATTRIBUTION, ID_PATTERN, KG, RDF, SKOS
from ..dispatch import Work
from ..replies import Reply
from ..request import Request, path_of
from .changes import changeset_href

if TYPE_CHECKING:
    from ..service import Service
    from ..worker import Worker

OP = "feed"
ATOM = "http://www.w3.org/2005/Atom"
ATOM_TYPE = "application/atom+xml; charset=utf-8"
ENTRIES = 30  # changesets a feed lists, the newest
SHOWN = 60  # changes an entry lists; its changeset's page lists every one
ROWS = 5000  # rows of the changes query read for one feed


def respond(service: Service, request: Request) -> Work:
    taken = request.path_params
    if "id" in taken:
        scope, key = "system", taken["id"]
        if not ID_PATTERN.match(key):
            raise Reply(404, "not-found", "no such system")
    elif "section" in taken:
        scope, key = "section", taken["section"]
    else:
        scope, key = "catalog", ""
    return Work({"op": OP, "scope": scope, "key": key, "url": request.base_url + path_of(request),
                 "base_url": request.base_url, "max_bytes": service.config.max_bytes}, vary=False)


def _when(value: Any) -> str:
    """An RFC 3339 date and time (the changesets' times are UTC)."""
    if isinstance(value, datetime):
        moment = value if value.tzinfo is not None else value.replace(tzinfo=timezone.utc)
        return moment.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")
    return "1970-01-01T00:00:00Z"


def _shown(value: Any) -> str:
    return "(none)" if value is None else str(value)


def change_lines(rows: Iterable[dict]) -> list[str]:
    """One line of HTML per change row of the ``changes`` query: the record, its field, old -> new, and
    a cell's status, claim tier and citation where they changed (its citation always, when it has one)."""
    lines = []
    for row in rows:
        who = f"<b>{html.escape(str(row['id']))}</b> {html.escape(str(row['kind']))}"
        if row.get("field") is None:
            lines.append(who)
            continue
        text = (f"{who}: <code>{html.escape(str(row.get('path') or row['field']))}</code> "
                f"{html.escape(_shown(row.get('old_value')))} &#8594; {html.escape(_shown(row.get('new_value')))}")
        for part in ("status", "tier"):
            old, new = row.get(f"old_{part}"), row.get(f"new_{part}")
            if old != new:
                text += f"; {part} {html.escape(_shown(old))} &#8594; {html.escape(_shown(new))}"
        old, new = row.get("old_citation"), row.get("new_citation")
        if old != new:
            text += f"; citation {html.escape(_shown(old))} &#8594; {html.escape(_shown(new))}"
        elif new is not None:
            text += f" (citation {html.escape(str(new))})"
        lines.append(text)
    return lines


def _title(number: int, rows: list[dict], scope: str, summary: str | None) -> str:
    if scope == "catalog" and summary:
        return f"changeset {number}: {summary}"
    ids = sorted({str(r["id"]) for r in rows})
    fields = sorted({str(r.get("path") or r["field"]) for r in rows if r.get("field") is not None})
    kinds = sorted({str(r["kind"]) for r in rows})
    what = f"{', '.join(ids[:3])}{' and others' if len(ids) > 3 else ''} {'/'.join(kinds)}"
    return f"changeset {number}: {what}" + (f": {', '.join(fields[:6])}{', ...' if len(fields) > 6 else ''}"
                                            if fields else "")


def _section_name(worker: Worker, key: str) -> str:
    try:
        iri = NamedNode(worker.iris.base + "section/" + key)
    except ValueError:
        raise Reply(404, "not-found", "no such section") from None
    if not worker.store.contains(iri, RDF.type, SKOS.Concept):
        raise Reply(404, "not-found", f"no section {safe_text(key, 80)} in this store")
    found = next(iter(worker.store.match(iri, SKOS.prefLabel, None, None)), None)
    return found.object.value if found is not None and isinstance(found.object, Literal) else key


def feed_rows(worker: Worker, scope: str, key: str, numbers: list[int]) -> tuple[list[dict], str]:
    """The rows of the ``changes`` query a feed holds, newest first, and the feed's subject in words
    (``numbers``: the newest changesets, which the catalog's and a section's feeds list)."""
    store, iris = worker.store, worker.iris
    if scope == "system":
        if not store.contains(iris.system(key), RDF.type, KG.System):
            raise Reply(404, "not-found", f"no system {safe_text(key, 120)} in this store")
        return list(queries.query(store, "changes", {"system": key, "limit": str(ROWS)}, iris)), key
    after = {"after": str(min(numbers) - 1)} if numbers else {}
    rows = list(queries.query(store, "changes", {**after, "limit": str(ROWS)}, iris))
    if scope == "section":
        name = _section_name(worker, key)
        members = {rid for rid, section in primary_sections(store).items() if section == name}
        return [r for r in rows if r["id"] in members], f"the section {name}"
    return rows, "the catalog"


def atom(worker: Worker, msg: dict) -> bytes:
    """The feed of ``msg``'s scope as Atom XML."""
    scope, key, base_url = msg["scope"], msg["key"], msg["base_url"]
    summaries = {row["changeset"]: row["summary"] for row in log(worker.store, worker.iris)[:ENTRIES]}
    rows, subject = feed_rows(worker, scope, key, list(summaries))
    ET.register_namespace("", ATOM)

    def sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
        element = ET.SubElement(parent, f"{{{ATOM}}}{tag}", attrs)
        if text is not None:
            element.text = text
        return element

    feed = ET.Element(f"{{{ATOM}}}feed")
    sub(feed, "id", msg["url"])
    sub(feed, "title", f"What changed in {subject} - AI Agent Infrastructure Landscape")
    sub(feed, "subtitle", "Each entry is one ingest's changeset, field by field (kg log, kg diff)")
    sub(feed, "link", rel="self", href=msg["url"], type="application/atom+xml")
    page = f"{base_url}/id/system/{key}" if scope == "system" else f"{base_url}/changes/{max(summaries, default=1)}"
    sub(feed, "link", rel="alternate", href=page, type="text/html")
    author = sub(feed, "author")
    sub(author, "name", "kg (the ingests of this store)")
    sub(feed, "rights", ATTRIBUTION)
    entries = [(number, list(group)) for number, group in groupby(rows, key=lambda r: r["changeset"])][:ENTRIES]
    sub(feed, "updated", _when(entries[0][1][0]["date"]) if entries else "1970-01-01T00:00:00Z")
    for number, group in entries:
        ids = [key] if scope == "system" else []
        entry = sub(feed, "entry")
        node = worker.iris.changeset(number).value
        sub(entry, "id", node + (f"/record/{key}" if scope == "system" else f"#section-{key}" if scope == "section"
                                  else ""))
        sub(entry, "title", _title(number, group, scope, summaries.get(number)))
        sub(entry, "updated", _when(group[0]["date"]))
        sub(entry, "link", rel="alternate", type="text/html", href=base_url + changeset_href(number, ids))
        lines = change_lines(group[:SHOWN])
        more = len(group) - SHOWN
        content = "<ul>" + "".join(f"<li>{line}</li>" for line in lines) + "</ul>"
        if more > 0:
            content += f"<p>and {more} more: every change is on the changeset's page</p>"
        sub(entry, "content", content, type="html")
    return b'<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(feed, encoding="utf-8", xml_declaration=False) \
        + b"\n"


def render(worker: Worker, msg: dict) -> dict:
    """A feed (in a query worker)."""
    return {"status": 200, "type": ATOM_TYPE, "body": atom(worker, msg), "headers": {}}
