"""Validation parts on a Dask distributed cluster: the run's setup sent once, the parts as they are made.

``kg validate --scheduler ADDRESS`` sends the parts to the workers of the Dask
scheduler at ADDRESS (``tcp://host:8786``, see ``kg.cluster``) instead of a local
process pool. The store never leaves this machine: the run's setup goes to every
worker once, each part travels as its triples, and its results come back as
``Result`` objects. Our shapes: a part is some record graphs (``kg.validation.records``);
the user's: a slice of the focus nodes (``kg.validation.dask_own``).
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Iterable

from ..cluster import run_parts
from .report import Result

Part = tuple[list[Result], float]  # a part's results and its CPU seconds
_CHECKERS: dict[str, Any] = {}  # what the latest run made in this worker process
_ONE_AT_A_TIME = threading.Lock()


def run_state(run: str, make: Callable[[], Any]) -> Any:
    """What ``make`` gives, made once per run in this worker process (an earlier run's is dropped)."""
    with _ONE_AT_A_TIME:
        found = _CHECKERS.get(run)
        if found is None:
            _CHECKERS.clear()
            found = _CHECKERS[run] = make()
        return found


def check_on_cluster(address: str, setup: Any, tasks: Iterable[Any], add: Callable[[Part], None],
                     func: Callable[[str, Any, Any], Part]) -> int:
    """``func(run, setup, task)`` for each of ``tasks`` (each sent as soon as it is made) on the cluster at
    ``address``, calling ``add`` with each part's results as it finishes; returns the worker threads."""
    _, threads = run_parts(address, func, setup, tasks, add)
    return threads
