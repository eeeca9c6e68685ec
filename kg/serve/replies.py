"""Answers as they travel from a worker or a route to the HTTP layer.

An answer is a plain dict (``status``, ``type``, ``body``, ``headers``) that pickles
between processes and that any HTTP server can write out; :class:`Reply` is an answer
decided part-way (usually an error), raised and turned into its JSON body.
"""

from __future__ import annotations

import json
from typing import Any


class Reply(Exception):
    """An HTTP answer decided inside a worker or a route (usually an error)."""

    def __init__(self, status: int, error: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.error, self.message, self.extra = status, error, message, extra

    def reply(self) -> dict:
        return json_reply(self.status, {"error": self.error, "message": self.message, **self.extra})


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
