"""``/changes/<n>`` and ``/diff``: what changed, field by field, as ``kg diff`` prints it.

``/changes/<n>`` is changeset ``n`` (the changes of one ingest, with its time and input files);
``/diff?from=A&to=B`` the changes between the store's versions at two changesets (``0``: before
the first; ``current``: the store now), read from the history as ``kg diff A B`` reads it. Either
narrows to some records with ``id`` (given once per record: their changes and the edges that touch
them). Each changed field shows its old and new value; a cell changed in place, each of its parts
that changed (value, status, claim tier, citation). The Atom feeds' entries link here, and the
pages of ``show`` and ``compare`` at a changeset (``?at=N``) link to the diff from then to now.
``format=json`` gives the changeset as ``kg diff --format json`` does.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Iterable
from urllib.parse import urlencode

from ...errors import UsageError, safe_text
from ...history import Changeset
from ...history.diffing import diff_versions
from ...history.log import changeset_numbers
from ...history.render import field_parts, to_json
from ...vocab import ID_PATTERN
from ..dispatch import Work
from ..pages import _render
from ..rendering import body_answer
from ..replies import Reply
from ..request import Request, first, params, path_of

if TYPE_CHECKING:
    from ..service import Service
    from ..worker import Worker

OP = "changes"
CURRENT = "current"


def _side(word: str | None, name: str) -> str:
    """A side of a diff as given: a changeset number or ``current`` (never a file: this is a server)."""
    if word is None or word == "":
        return CURRENT
    if word == CURRENT or (word.isdigit() and len(word) < 10):
        return word
    raise Reply(400, "bad-parameter", f"{name} must be a changeset number or current")


def respond(service: Service, request: Request) -> Work:
    found = params(request)
    ids = [i for i in found.get("id", []) if i]
    bad = [i for i in ids if not ID_PATTERN.match(i)]
    if bad or len(ids) > 20:
        raise Reply(400, "bad-parameter", "id must be a catalog id (at most 20 of them)")
    fmt = first(found, "format") or "html"
    if fmt not in ("html", "json"):
        raise Reply(400, "bad-parameter", "format must be html or json")
    number = request.path_params.get("number")
    if number is not None:
        if not number.isdigit() or int(number) == 0 or len(number) > 9:
            raise Reply(404, "not-found", "a changeset is a number from 1 (kg log lists them)")
        sides = (str(int(number) - 1), number)
    else:
        sides = (_side(first(found, "from"), "from"), _side(first(found, "to"), "to"))
    return Work({"op": OP, "sides": list(sides), "ids": ids, "format": fmt, "path": path_of(request),
                 "max_bytes": service.config.max_bytes}, vary=False)


def only(changeset: Changeset, ids: Iterable[str]) -> Changeset:
    """``changeset`` narrowed to the records ``ids`` and the edges that touch them (all when none)."""
    wanted = set(ids)
    if not wanted:
        return changeset
    return Changeset(number=changeset.number, started=changeset.started, ended=changeset.ended,
                     inputs=changeset.inputs, version=changeset.version, description=changeset.description,
                     records=[r for r in changeset.records if r.record_id in wanted],
                     edges=[e for e in changeset.edges if {e.edge.get("source"), e.edge.get("target")} & wanted])


def diff_href(old: str | int, new: str | int = CURRENT, ids: Iterable[str] = ()) -> str:
    """The page of the changes from ``old`` to ``new`` (of the records ``ids``)."""
    return "/diff?" + urlencode([("from", str(old)), ("to", str(new))] + [("id", i) for i in ids])


def changeset_href(number: int, ids: Iterable[str] = ()) -> str:
    """The page of changeset ``number`` (of the records ``ids``)."""
    query = urlencode([("id", i) for i in ids])
    return f"/changes/{number}" + (f"?{query}" if query else "")


def _records(changeset: Changeset) -> list[dict[str, Any]]:
    return [{"id": r.record_id, "kind": r.kind, "href": f"/id/system/{r.record_id}",
             "fields": [{"path": d.dotted, "part": part, "old": old, "new": new}
                        for d in r.fields for part, old, new in field_parts(d)]} for r in changeset.records]


def _edges(changeset: Changeset) -> list[dict[str, Any]]:
    rows = []
    for change in changeset.edges:
        edge = change.edge
        before = change.before if isinstance(change.before, dict) else {}
        after = change.after if isinstance(change.after, dict) else {}
        rows.append({"kind": change.kind, "source": edge.get("source"), "type": edge.get("type"),
                     "target": edge.get("target"), "old": before.get("evidence", ""), "new": after.get("evidence", "")})
    return rows


def render(worker: Worker, msg: dict) -> dict:
    """A changeset, or the changes between two versions (in a query worker), as a page or JSON."""
    old, new = msg["sides"]
    numbers = changeset_numbers(worker.store, worker.iris)
    latest = max(numbers, default=0)
    sides = [latest if side == CURRENT else int(side) for side in (old, new)]
    for side in sides:
        if side > latest:
            raise Reply(404, "not-found", f"no changeset {side} in the store (it has "
                        f"{'1..' + str(latest) if latest else 'none'})")
    try:
        changeset = only(diff_versions(worker.store, worker.iris, sides[0], sides[1]), msg["ids"])
    except UsageError as err:
        raise Reply(404, "not-found", safe_text(err, 200)) from None
    if msg["format"] == "json":
        body = json.dumps(to_json(changeset), ensure_ascii=False, indent=1).encode("utf-8") + b"\n"
        return {"status": 200, "type": "application/json", "body": body, "headers": {}}
    one = msg["path"].startswith("/changes/")
    heading = (f"Changeset {sides[1]}" if one else
               f"Changes from {'before the first changeset' if sides[0] == 0 else f'changeset {sides[0]}'} to "
               f"{'now' if new == CURRENT else f'changeset {sides[1]}'}")
    if msg["ids"]:
        heading += " of " + ", ".join(msg["ids"])
    page = _render("changes.html", f"{heading} - AI Agent Infrastructure Landscape", heading=heading,
                   changeset=changeset, summary=changeset.summary if changeset.records or changeset.edges
                   else "no change", records=_records(changeset), edges=_edges(changeset), one=one,
                   number=sides[1], latest=latest, ids=msg["ids"],
                   previous=changeset_href(sides[1] - 1, msg["ids"]) if one and sides[1] > 1 else None,
                   following=changeset_href(sides[1] + 1, msg["ids"]) if one and sides[1] < latest else None,
                   json_href=(changeset_href(sides[1], msg["ids"]) if one else diff_href(old, new, msg["ids"]))
                   + ("&" if one and msg["ids"] or not one else "?") + "format=json",
                   feed="/changes.atom" if len(msg["ids"]) != 1 else f"/id/system/{msg['ids'][0]}/changes.atom")
    return body_answer("html", page, msg)
