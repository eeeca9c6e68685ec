"""Gzip for answers of :data:`GZIP_MIN` bytes or more (and for streamed dumps), for clients whose
``Accept-Encoding`` accepts it, read as RFC 9110 reads it: ``gzip;q=0`` refuses gzip, ``*``
accepts it unless gzip is named apart, no header asks for none.

Starlette's ``GZipMiddleware`` does the compressing; it only looks for the letters "gzip" in the
header, so :class:`AcceptedEncoding`, in front of it, gives it ``gzip`` or no header at all, and
the answer's ETag (:mod:`kg.serve.conditional_get`) reads the same decision.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

GZIP_MIN = 1024  # answers this large or larger are gzipped for clients that accept it


def accepts_gzip(header: str | None) -> bool:
    """Whether an ``Accept-Encoding`` header accepts gzip (with a weight above 0).

    >>> [accepts_gzip(h) for h in ("gzip", "gzip;q=0", "br, gzip; q=0.5", "*", "*, gzip;q=0", "deflate", None)]
    [True, False, True, True, False, False, False]
    """
    weights: dict[str, float] = {}
    for part in (header or "").split(","):
        name, *parameters = part.split(";")
        weight = 1.0
        for parameter in parameters:
            key, _, value = parameter.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        if name.strip():
            weights[name.strip().lower()] = weight
    for coding in ("gzip", "x-gzip", "*"):
        if coding in weights:
            return weights[coding] > 0
    return False


class AcceptedEncoding:
    """ASGI middleware: ``Accept-Encoding`` made ``gzip`` when it accepts gzip, else left out."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = [v for k, v in scope.get("headers", []) if k == b"accept-encoding"]
            headers = [(k, v) for k, v in scope.get("headers", []) if k != b"accept-encoding"]
            if accepts_gzip(", ".join(v.decode("latin-1") for v in given)):
                headers.append((b"accept-encoding", b"gzip"))
            scope = {**scope, "headers": headers}
        await self.app(scope, receive, send)
