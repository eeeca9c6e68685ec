"""``/update`` (and an update POSTed to ``/sparql``): SPARQL 1.1 Update, only with ``--allow-update`` and
``Authorization: Bearer <token>``, run by the pool in a one-off writable process, one at a time."""

from __future__ import annotations

import hmac
import time
from typing import TYPE_CHECKING

from ...runtime.failures import PoolBusy, WorkerDied, WorkerTimeout
from ..dispatch import Blocking
from ..replies import Reply
from ..request import Request, content_type, form, read_text

if TYPE_CHECKING:
    from ..service import Service


def respond(service: Service, request: Request) -> Blocking:
    """The update the body carries, run in a thread (it waits for its process)."""
    return Blocking(run, (service, request, _update_text(request)))


def _update_text(request: Request) -> str:
    body = request.body()
    ctype, cparams = content_type(request)
    if ctype == "application/sparql-update":
        return read_text(body, cparams)
    if ctype == "application/x-www-form-urlencoded":
        values = form(body).get("update")
        if not values or len(values) != 1:
            raise Reply(400, "bad-request", "give exactly one 'update' parameter")
        return values[0]
    raise Reply(415, "unsupported-media-type",
                "send updates as application/sparql-update or application/x-www-form-urlencoded")


def run(service: Service, request: Request, text: str) -> dict:
    """Run ``text`` when the server takes updates and the request carries its token: 204 once committed."""
    config = service.config
    if not config.allow_update:
        raise Reply(403, "read-only", "this endpoint is read-only (start kg serve with --allow-update "
                    "and a token to accept updates)")
    scheme, _, given = (request.header("Authorization") or "").partition(" ")
    if scheme.lower() != "bearer" or not given.strip():
        raise Reply(401, "unauthorized", "updates need 'Authorization: Bearer <token>'",
                    headers={"WWW-Authenticate": 'Bearer realm="kg"'})
    if not hmac.compare_digest(given.strip().encode(), (config.token or "").encode()):
        raise Reply(401, "unauthorized", "wrong token",
                    headers={"WWW-Authenticate": 'Bearer realm="kg", error="invalid_token"'})
    if len(text) > config.max_request_bytes:
        raise Reply(413, "request-too-large", "the update is too large")
    deadline = time.monotonic() + config.timeout
    try:
        return service.pool.update(text, deadline)
    except WorkerTimeout:
        raise Reply(504, "timeout", f"the update ran longer than {config.timeout:g} s and was "
                    "stopped; it was not committed") from None
    except PoolBusy:
        raise Reply(503, "busy", "queries kept the store busy; try again",
                    headers={"Retry-After": "1"}) from None
    except WorkerDied:
        raise Reply(500, "worker-died", "the update process stopped") from None
