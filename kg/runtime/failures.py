"""How a call to the query worker pool fails, and the one answer each failure gets in ``kg serve`` and ``kg mcp``.

A call passes its deadline (its worker is killed), finds no worker free before the deadline, or
loses its worker (killed for memory, or crashed). Both servers say the same thing about each:
``kg serve`` answers the :class:`Refusal`'s status, error name and message as its JSON error,
``kg mcp`` gives ``"<error>: <message>"`` as the tool error.

>>> refusal(PoolBusy(), seconds=10, workers=2, memory_mb=2048).message
'all 2 query workers stayed busy for 10 s; try again'
"""

from __future__ import annotations

import signal
from dataclasses import dataclass, field
from typing import Any


class WorkerTimeout(Exception):
    """The call passed its deadline; the worker was killed."""


class PoolBusy(Exception):
    """No worker became free before the deadline."""


class WorkerDied(Exception):
    """The worker exited during the call (``args[0]``: its return code, when known)."""


POOL_FAILURES = (WorkerTimeout, PoolBusy, WorkerDied)


@dataclass(frozen=True)
class Refusal:
    """The answer to a failed call: an HTTP status, an error name, a message for people, the status's
    own headers and the details a JSON error carries besides the message."""

    status: int
    error: str
    message: str
    headers: dict[str, str] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return f"{self.error}: {self.message}"


def refusal(failed: Exception, seconds: float, workers: int, memory_mb: int) -> Refusal:
    """What to answer for ``failed`` (one of :data:`POOL_FAILURES`), raised by a call that waited
    ``seconds`` on a pool of ``workers`` workers of ``memory_mb`` MiB each."""
    if isinstance(failed, WorkerTimeout):
        return Refusal(504, "timeout", f"the query ran longer than {seconds:g} s and was stopped; narrow it "
                       "(a LIMIT, fewer unbound patterns)", details={"timeoutSeconds": seconds})
    if isinstance(failed, PoolBusy):
        return Refusal(503, "busy", f"all {workers} query workers stayed busy for {seconds:g} s; try again",
                       headers={"Retry-After": "1"})
    if failed.args and failed.args[0] == -signal.SIGABRT:
        return Refusal(500, "out-of-memory", "the query needed more memory than a worker may use "
                       f"({memory_mb} MiB); the worker was replaced")
    return Refusal(500, "worker-died", "the query worker stopped and was replaced")
