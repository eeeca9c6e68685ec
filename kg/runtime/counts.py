"""What the query workers count, gathered in the server process: running totals that survive a replaced worker.

A worker keeps its own counts (the versions it moved to, the queries it evaluated, those the guard
refused: :attr:`kg.serve.worker.Worker.counts`) and sends its running totals with every answer
(``"counts"``, beside the answer's ``"generation"``). The pool takes them off each answer
(:meth:`WorkerCounts.take`), keeps the latest totals of each live worker, and, when a worker is
killed or replaced, keeps its last totals as those of the retired workers (:meth:`WorkerCounts.retire`),
so that a total over all workers (:meth:`WorkerCounts.totals`, what ``/metrics`` reports) never goes
down. What a worker counted after its last answer (a version it moved to while idle) reaches the
server with its next answer.

>>> counts = WorkerCounts()
>>> counts.take(11, {"status": 200, "counts": {"evaluated": 2}})
{'status': 200}
>>> counts.take(12, {"status": 200, "counts": {"evaluated": 1, "refused": 1}}) and counts.retire(11)
>>> counts.take(13, {"status": 200, "counts": {"evaluated": 1}}) and sorted(counts.totals().items())
[('evaluated', 4), ('refused', 1)]
"""

from __future__ import annotations

import threading
from collections import Counter


class WorkerCounts:
    """The running totals of every worker a pool has had, by worker (its process id)."""

    def __init__(self) -> None:
        self._latest: dict[int, Counter[str]] = {}
        self._retired: Counter[str] = Counter()
        self._lock = threading.Lock()

    def take(self, worker: int, reply: dict) -> dict:
        """``reply`` without the totals it carried, which are kept as ``worker``'s latest."""
        found = reply.pop("counts", None)
        if isinstance(found, dict):
            with self._lock:
                self._latest[worker] = Counter({k: int(v) for k, v in found.items()})
        return reply

    def retire(self, worker: int) -> None:
        """``worker`` is gone: its last totals count as the retired workers'."""
        with self._lock:
            self._retired.update(self._latest.pop(worker, Counter()))

    def totals(self) -> dict[str, int]:
        """Every count over all the workers, live and retired."""
        with self._lock:
            total = Counter(self._retired)
            for latest in self._latest.values():
                total.update(latest)
        return dict(total)
