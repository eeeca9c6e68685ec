"""A request as the views see it, and the readers of its query string, form and body.

Independent of the HTTP server that carries it: :mod:`kg.serve.asgi` makes a :class:`Request`
of each Starlette request, body read already. A reader that meets what it cannot read raises
:class:`~kg.serve.replies.Reply` (400, or 415 for a body it does not take).
"""

from __future__ import annotations

from typing import Protocol
from urllib.parse import parse_qs, urlsplit

from .replies import Reply


class Request(Protocol):
    """What a view needs from an HTTP request."""

    method: str  # GET (also for HEAD) or POST
    path: str  # the request target: path and query string
    base_url: str  # scheme://host[:port] as the client reached us (no trailing slash)
    path_params: dict[str, str]  # what the route's path pattern took ({name} -> the rest of the path)

    def header(self, name: str) -> str | None: ...

    def body(self) -> bytes:
        """The whole body, within the server's size limit (else raises Reply)."""
        ...


def path_of(request: Request) -> str:
    """The path of the request target (no query string)."""
    return urlsplit(request.path).path


def params(request: Request) -> dict[str, list[str]]:
    """The query string's parameters (at most 64), each with its values."""
    try:
        return parse_qs(urlsplit(request.path).query, keep_blank_values=True, strict_parsing=False,
                        errors="strict", max_num_fields=64)
    except (ValueError, UnicodeDecodeError):
        raise Reply(400, "bad-request", "the query string is not valid UTF-8 form data") from None


def first(found: dict[str, list[str]], *names: str) -> str | None:
    """The first value of the first of ``names`` that has one."""
    for name in names:
        if found.get(name):
            return found[name][0]
    return None


def form(body: bytes) -> dict[str, list[str]]:
    """A form body's fields (``application/x-www-form-urlencoded``)."""
    try:
        return parse_qs(body.decode("utf-8"), keep_blank_values=True, errors="strict", max_num_fields=64)
    except (ValueError, UnicodeDecodeError):
        raise Reply(400, "bad-request", "the form body is not valid UTF-8 form data") from None


def content_type(request: Request) -> tuple[str, dict[str, str]]:
    """The body's media type (lower case) and its parameters."""
    raw = request.header("Content-Type") or ""
    main, _, rest = raw.partition(";")
    found = {}
    for part in rest.split(";"):
        if "=" in part:
            k, v = part.split("=", 1)
            found[k.strip().lower()] = v.strip().strip('"').lower()
    return main.strip().lower(), found


def read_text(body: bytes, ctype_params: dict[str, str]) -> str:
    """A text body (a query or an update), which must be UTF-8."""
    charset = ctype_params.get("charset", "utf-8")
    if charset not in ("utf-8", "utf8"):
        raise Reply(415, "unsupported-media-type", "only UTF-8 request bodies are accepted")
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        raise Reply(400, "bad-request", "the body is not valid UTF-8") from None
