"""``/metrics``: the server's counters in the Prometheus text format (:mod:`kg.serve.metrics`), with
``kg serve --metrics``; a 404 without it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..replies import Reply
from ..request import Request

if TYPE_CHECKING:
    from ..service import Service

CONDITIONAL = False  # never a 304: the counts change without a new generation of the store


def respond(service: Service, request: Request) -> dict:
    if service.metrics is None:
        raise Reply(404, "not-found", "no such page: /metrics is served when kg serve runs with --metrics")
    body, media_type = service.metrics.exposition()
    return {"status": 200, "type": media_type, "body": body, "headers": {"Cache-Control": "no-store"}}
