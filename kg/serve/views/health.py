"""``/health``: whether the server answers, and its workers (how many, idle, timed out, replaced)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..replies import json_reply
from ..request import Request

if TYPE_CHECKING:
    from ..service import Service

CONDITIONAL = False  # never a 304: the workers' state changes without a new generation of the store


def respond(service: Service, request: Request) -> dict:
    pool = service.pool
    return json_reply(200, {"status": "ok", "workers": pool.size, "idle": pool.idle(),
                            "timeouts": pool.timeouts, "replaced": pool.replaced})
