"""``/`` (also ``/index.html``): the query page, with the query editor and the catalog's questions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import pages
from ..dispatch import Blocking
from ..negotiation import CONTENT_TYPES
from ..request import Request, first, params

if TYPE_CHECKING:
    from ..service import Service


def respond(service: Service, request: Request) -> Blocking:
    return Blocking(page, (service, request, first(params(request), "example")))


def page(service: Service, request: Request, example: str | None) -> dict:
    """The query page (``example``: the catalog question whose text the editor opens with)."""
    body = pages.home_page(example, service.config.timeout, service.config.max_rows, request.base_url)
    return {"status": 200, "type": CONTENT_TYPES["html"], "body": body, "headers": dict(pages.EDITOR_HEADERS)}
