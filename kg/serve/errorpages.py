"""Errors as pages: an error answer turned into an HTML page for a client that prefers HTML.

Every error the server sends is a JSON document (``{"error": ..., "message": ...}``, see
:mod:`kg.serve.replies`). A browser (an ``Accept`` that ranks ``text/html`` above
``application/json``) gets the same status as a page instead: the site's navigation, the
message, and for a query's error the query text back in the editor (YASGUI, as on the query
page; the plain form without script), so nothing typed is lost. Every other client gets the JSON exactly as before (``*/*`` alone is JSON).

>>> prefers_html("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
True
>>> prefers_html("*/*"), prefers_html(None), prefers_html("application/sparql-results+json")
(False, False, False)
"""

from __future__ import annotations

import json
from http import HTTPStatus

from .negotiation import CONTENT_TYPES, negotiate
from .pages import EDITOR_HEADERS, HTML_HEADERS, _render, editor_config

_OFFERS = [("json", "application/json"), ("html", "text/html"), ("html", "application/xhtml+xml")]
# headers of an error answer that stay on its page (the status's own, and how the connection ends)
_KEPT = ("allow", "www-authenticate", "retry-after", "connection", "vary")


def prefers_html(accept: str | None) -> bool:
    """Whether ``Accept`` ranks HTML above JSON (ties, and no ``Accept``, are JSON)."""
    return negotiate(accept, _OFFERS) == "html"


def is_error(reply: dict) -> bool:
    """Whether ``reply`` is one of the server's JSON error answers."""
    return reply.get("status", 200) >= 400 and str(reply.get("type") or "").startswith("application/json")


def error_page(reply: dict, query: str | None = None) -> dict:
    """``reply`` (a JSON error answer) as an HTML page with the same status and the status's
    headers; ``query``, when the request carried one, back in the query form."""
    status = reply["status"]
    try:
        document = json.loads(reply.get("body") or b"{}")
    except ValueError:
        document = {}
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "Error"
    details = {k: v for k, v in document.items() if k not in ("error", "message")}
    body = _render("error.html", f"{status} {phrase} - AI Agent Infrastructure Landscape", status=status,
                   phrase=phrase, error=str(document.get("error") or ""), message=str(document.get("message") or ""),
                   details=details, query=query, editor_config=editor_config() if query is not None else "")
    headers = {k: v for k, v in (reply.get("headers") or {}).items() if k.lower() in _KEPT}
    headers.update(EDITOR_HEADERS if query is not None else HTML_HEADERS)
    return {"status": status, "type": CONTENT_TYPES["html"], "body": body, "headers": headers}
