"""Parts of a run on a Dask distributed cluster: connect to its scheduler, share once, gather in order.

The ``--scheduler ADDRESS`` of ``kg validate`` and ``kg analyze`` come here: the
caller sends what every part shares once to every worker (``Client.scatter``),
then one task per part; each task runs ``func(run, shared, part)`` on a worker,
where ``run`` names the run so that a worker can keep what it built from
``shared`` for the run's later parts. Dask is the optional extra ``[dask]``;
the workers need the same kg installed as the caller.
"""

from __future__ import annotations

import uuid
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Iterator, TypeVar

from .errors import KgError, UsageError, safe_text

CONNECT_TIMEOUT_S = 10  # how long to wait for the scheduler before giving up
R = TypeVar("R")


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise UsageError("--scheduler needs Dask: pip install 'agent-landscape-kg[dask]'") from None
    return distributed


@contextmanager
def client(address: str) -> Iterator[Any]:
    """A Dask client of the scheduler at ``address``, closed on leaving (a UsageError when unreachable)."""
    distributed = _distributed()
    try:
        connected = distributed.Client(address, timeout=CONNECT_TIMEOUT_S, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise UsageError(f"--scheduler {safe_text(address, 100)}: no Dask scheduler answers there "
                         f"({safe_text(exc, 200)})") from None
    try:
        yield connected
    finally:
        connected.close()


def worker_threads(connected: Any) -> int:
    """The number of threads of the cluster's workers (what runs parts at once)."""
    return sum(int(w.get("nthreads", 1)) for w in connected.scheduler_info().get("workers", {}).values())


def run_parts(address: str, func: Callable[[str, Any, Any], R], shared: Any, parts: Iterable[Any],
              done: Callable[[R], None] | None = None) -> tuple[list[R], int]:
    """``func(run, shared, part)`` for each part on the cluster at ``address``: the results in the
    order of ``parts`` (``done`` is called with each as it finishes), and the workers' thread count.

    Each part is sent as soon as ``parts`` yields it, so the workers start while the rest are made."""
    distributed = _distributed()
    with client(address) as connected:
        threads = worker_threads(connected)
        if threads == 0:
            raise UsageError(f"--scheduler {safe_text(address, 100)}: the Dask scheduler has no workers")
        run = uuid.uuid4().hex
        try:
            handle = connected.scatter(shared, broadcast=True)
            futures = [connected.submit(func, run, handle, part, pure=False) for part in parts]
            order = {future.key: i for i, future in enumerate(futures)}
            results: list[Any] = [None] * len(futures)
            for future in distributed.as_completed(futures, loop=connected.loop):
                results[order[future.key]] = value = future.result()
                if done is not None:
                    done(value)
        except KgError:
            raise
        except (OSError, distributed.client.FutureCancelledError, distributed.scheduler.KilledWorker) as exc:
            raise UsageError(f"--scheduler {safe_text(address, 100)}: the cluster failed to run the parts "
                             f"({type(exc).__name__}: {safe_text(exc, 200)})") from None
    return results, threads
