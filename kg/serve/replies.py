"""Answers as they travel from a worker or a route to the HTTP layer.

An answer is a plain dict (``status``, ``type``, ``body``, ``headers``) that pickles
between processes and that any HTTP server can write out; :class:`Reply` is an answer
decided part-way (usually an error), raised and turned into its JSON body. Headers
that belong to the status (``WWW-Authenticate``, ``Allow``, ``Retry-After``) travel as
real headers, never in the body.
"""

from __future__ import annotations

import json
from typing import Any


class Reply(Exception):
    """An HTTP answer decided inside a worker or a route (usually an error)."""

    def __init__(self, status: int, error: str, message: str, headers: dict[str, str] | None = None,
                 **extra: Any) -> None:
        super().__init__(message)
        self.status, self.error, self.message, self.extra = status, error, message, extra
        self.headers = dict(headers or {})

    def reply(self) -> dict:
        """The answer: the JSON body, and the status's own headers as headers.

        >>> answer = Reply(405, "method-not-allowed", "no", headers={"Allow": "GET"}).reply()
        >>> answer["headers"], answer["body"]
        ({'Allow': 'GET'}, b'{"error": "method-not-allowed", "message": "no"}\\n')
        """
        return json_reply(self.status, {"error": self.error, "message": self.message, **self.extra}, self.headers)


def json_reply(status: int, document: dict, headers: dict | None = None) -> dict:
    """An answer whose body is ``document`` as JSON.

    >>> json_reply(404, {"error": "not-found"})["body"]
    b'{"error": "not-found"}\\n'
    """
    return {"status": status, "type": "application/json",
            "body": json.dumps(document, ensure_ascii=False).encode("utf-8") + b"\n", "headers": headers or {}}


def empty_reply(status: int = 204, headers: dict | None = None) -> dict:
    """An answer without a body (and without a content type)."""
    return {"status": status, "type": "", "body": b"", "headers": headers or {}}
