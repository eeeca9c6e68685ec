"""Conditional GET: the validators of GET and HEAD answers (``ETag``, ``Last-Modified``, ``Vary``) and 304.

An answer depends on the store's version and on the request, so its ETag is a hash of
the store's current generation (the number in the store folder's pointer file), the
request target (path and query string) and the negotiated content type. ``Last-Modified``
is the pointer file's mtime: the time the generation was made current, in whole seconds as
HTTP dates are. The generation is read *before* the work, so an ingest that lands during a
request gives the answer the old ETag, and its next revalidation (against the new
generation) gets a 200, never a 304.

An answer that counts ages to today (a system page's evidence, the findings page, a named query
with a ``date`` parameter given as ``today``) also changes with the day: its ETag's hash holds the
day too, and its ``Last-Modified`` is never before that day's midnight (UTC), so a copy from
yesterday is neither matched by its tag nor by its date.
"""

from __future__ import annotations

import hashlib
from datetime import date, datetime, timezone
from email.utils import formatdate, parsedate_to_datetime

from ..store import GraphStore
from .compression import GZIP_MIN, accepts_gzip

VARY = "Accept, Accept-Encoding"


def version(store: str) -> tuple[str, float]:
    """The store's current generation (its pointer's text) and when it became current
    (a store from before generations: its folder's mtime)."""
    return GraphStore.current_version(store)


def validate(reply: dict, target: str, current: tuple[str, float], headers: dict[str, str], head: bool = False,
             streamed: bool = False, day: str | None = None) -> dict:
    """``reply`` (a 200 answer to GET or HEAD; ``streamed``: one whose body is streamed after it;
    ``day``: the ISO date it counted ages to, if any) with ETag, Last-Modified and Vary, or a 304
    when the request's ``If-None-Match`` (or, without one, ``If-Modified-Since``) matches."""
    if reply.get("status") != 200:
        return reply
    generation, mtime = current
    if day:
        generation += "@" + day
        midnight = datetime.combine(date.fromisoformat(day), datetime.min.time(), timezone.utc).timestamp()
        mtime = max(mtime, midnight)
    ctype = str(reply.get("type") or "")
    # the gzip middleware compresses this answer (GZIP_MIN bytes or more, or streamed): another
    # representation, another tag
    large = streamed or len(reply.get("body", b"")) >= GZIP_MIN
    zipped = "gzip" if large and accepts_gzip(headers.get("accept-encoding")) else ""
    digest = hashlib.sha256("\n".join((generation, target, ctype, zipped)).encode("utf-8")).hexdigest()[:32]
    etag = f'"g{generation}-{digest}"'
    # starlette's gzip middleware adds "Accept-Encoding" to Vary itself to every body it sees of GZIP_MIN bytes
    vary = "Accept" if large and not head else VARY
    extra = {"ETag": etag, "Last-Modified": formatdate(int(mtime), usegmt=True), "Vary": vary}
    merged = {**(reply.get("headers") or {}), **extra}
    if _not_modified(etag, mtime, headers):
        keep = {k: v for k, v in merged.items() if k.lower() in ("etag", "last-modified", "vary", "cache-control")}
        return {"status": 304, "type": None, "body": b"", "headers": keep}
    return {**reply, "headers": merged}


def _not_modified(etag: str, mtime: float, headers: dict[str, str]) -> bool:
    """Whether the client's copy is current. ``If-Modified-Since`` is held against ``Last-Modified``
    as sent, in whole seconds: the date sent back gets a 304. (Two generations made in the same
    second have the same date; their ETags differ, and ``If-None-Match``, when sent, decides.)"""
    match = headers.get("if-none-match")
    if match is not None:
        tags = [t.strip() for t in match.split(",")]
        return "*" in tags or any(t.removeprefix("W/") == etag for t in tags)
    since = headers.get("if-modified-since")
    if since:
        try:
            return parsedate_to_datetime(since).timestamp() >= int(mtime)
        except (TypeError, ValueError, IndexError, OverflowError):
            return False
    return False
