"""The split run's parts on a Dask distributed cluster: what a worker does with one part.

``kg validate --scheduler ADDRESS`` sends the parts to the workers of the Dask
scheduler at ADDRESS (``tcp://host:8786``, see ``kg.cluster``) instead of a local
process pool. The store never leaves this machine, and the workers need no access
to it: the run's ``Setup`` (the read plan, the class hierarchy, the user's shapes)
goes to every worker once, then each part travels as its triples in N-Triples
(its record graphs, the shared resources they reach, the lazy triples), and its
results come back as ``Result`` objects. A worker process checks one part at a
time (pySHACL holds the GIL, and the speed-ups patch pySHACL's globals while a
part runs), so workers started with ``--nthreads 1``, one per core, use the cores.
"""

from __future__ import annotations

import threading
from typing import Callable, Iterable

from ..cluster import run_parts
from . import speedups
from .partcheck import PartChecker, Setup, Task
from .report import Result

_CHECKERS: dict[str, PartChecker] = {}  # the checker of the latest run in this worker process
_ONE_AT_A_TIME = threading.Lock()


def check_part(run: str, setup: Setup, task: Task) -> tuple[list[Result], float]:
    """One part on a worker: the run's checker (made on the worker's first part of ``run``), one part at a time."""
    with _ONE_AT_A_TIME:
        checker = _CHECKERS.get(run)
        if checker is None:
            _CHECKERS.clear()  # an earlier run's checker is not needed again
            fast = setup.fast and speedups.supported(speedups.installed_version())
            checker = _CHECKERS[run] = PartChecker(setup, None, fast=fast)
        return checker.check(task)


def check_on_cluster(address: str, setup: Setup, tasks: Iterable[Task],
                     add: Callable[[tuple[list[Result], float]], None]) -> int:
    """Check ``tasks`` (each carrying its triples; each sent as soon as it is made) on the cluster at
    ``address``, calling ``add`` with each part's results as it finishes; returns the number of worker
    threads that ran them."""
    _, threads = run_parts(address, check_part, setup, tasks, add)
    return threads
