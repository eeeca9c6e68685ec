"""The deadline of a validation: every run of ``kg validate`` stops at one (``--timeout``, default one hour).

Inside the SHACL engine the deadline is checked at each focus node and each nested
check, and a pattern's match is given only the time left (``kg.shacl``). What runs
outside it (stock pySHACL for SHACL-SPARQL shapes and ``--engine pyshacl``, rdflib's
SPARQL, Python's ``re`` inside pySHACL) is stopped by an alarm: in the main thread of a
process that has ``signal.setitimer`` (Unix), ``SIGALRM`` at the deadline raises
``OutOfTime`` in whatever Python code runs, a regular expression's match included (the
``re`` module looks for signals as it backtracks). Elsewhere only the engine's own checks
stop it. Either way the caller gets ``kg.errors.OutOfTime`` (exit 2), never a half report.
"""

from __future__ import annotations

import signal
import threading
import time
from contextlib import contextmanager
from typing import Any, Iterator

from ..errors import OutOfTime
from ..shacl import OutOfTime as EngineOutOfTime

DEFAULT_TIMEOUT = 3600.0  # seconds: a full validation of 45,600 records takes about 11 minutes


class _Alarm(BaseException):
    """Raised by the alarm; a BaseException, so that no ``except Exception`` on the way swallows it."""


@contextmanager
def deadline(seconds: float | None) -> Iterator[float | None]:
    """The ``time.monotonic()`` instant ``seconds`` from now (None: no deadline), with the alarm set where
    one can be; ``OutOfTime`` when the block passes it."""
    if seconds is None:
        yield None
        return
    if not seconds > 0:
        raise OutOfTime(f"a deadline of {seconds:g} s leaves no time (give --timeout a positive number of seconds)")
    at = time.monotonic() + seconds
    alarm = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    armed = [alarm]  # cleared first on the way out: an alarm that rings late does nothing

    def ring(signum: int, frame: Any) -> None:
        if armed[0]:
            raise _Alarm()

    previous: Any = None
    if alarm:
        previous = signal.signal(signal.SIGALRM, ring)
        signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield at
    except (_Alarm, EngineOutOfTime):
        raise OutOfTime(f"the validation did not finish within {seconds:g} s and was stopped "
                        f"(give --timeout more seconds)") from None
    finally:
        armed[0] = False
        if alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
