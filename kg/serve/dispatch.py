"""Where a view's answer is made: by a query worker, here in a thread, or streamed from the store.

A view (:mod:`kg.serve.views`) reads the request on the event loop (cheap: no store, no
worker) and says how its answer is made:

- :class:`Work`: one worker's answer to a message (a query, an entity page, the index, a named
  query), awaited on the loop under the server's deadline (:func:`ask_worker`);
- :class:`Blocking`: made here by a function that may block (pages made here, updates, the
  descriptions, which may ask a worker themselves with :func:`call_worker`): run in a thread;
- :class:`kg.serve.streams.Stream`: the store's own dump, streamed (``/store``, Graph Store reads);
- an answer dict, ready at once.

A call to the pool that fails is answered as both servers answer it (:mod:`kg.runtime.failures`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from ..runtime.failures import POOL_FAILURES, refusal
from ..runtime.pipe import QUERY_OP
from .replies import Reply

if TYPE_CHECKING:
    from .service import Service



@dataclass(frozen=True)
class Work:
    """A request whose answer is one worker's answer: the message it sends (its ``op`` names the
    view that renders it, see :func:`kg.serve.routes.renderers`), and whether the answer varies
    with ``Accept`` (the header it then gets)."""

    msg: dict
    vary: bool = True

    def finish(self, reply: dict) -> dict:
        if self.vary:
            reply.setdefault("headers", {})["Vary"] = "Accept"
        return reply


@dataclass(frozen=True)
class Blocking:
    """An answer made here by ``function(*args)``, which may block: it runs in a thread."""

    function: Callable[..., dict]
    args: tuple[Any, ...] = ()

    def run(self) -> dict:
        return self.function(*self.args)


async def ask_worker(service: Service, work: Work) -> dict:
    """The worker's answer to ``work``, awaited on an event loop under the server's deadline."""
    try:
        reply = await service.pool.acall(work.msg, time.monotonic() + service.config.timeout)
    except POOL_FAILURES as failed:
        raise refused(service, failed) from None
    return work.finish(reply)


def call_worker(service: Service, msg: dict) -> dict:
    """A worker's answer to ``msg``, waited for in this thread under the server's deadline."""
    try:
        return service.pool.call(msg, time.monotonic() + service.config.timeout)
    except POOL_FAILURES as failed:
        raise refused(service, failed) from None


def refused(service: Service, failed: Exception) -> Reply:
    """The answer to a call to the pool that failed: past the deadline, no worker free, the worker lost."""
    config = service.config
    said = refusal(failed, config.timeout, service.pool.size, config.worker_memory_mb)
    return Reply(said.status, said.error, said.message, headers=said.headers, **said.details)
