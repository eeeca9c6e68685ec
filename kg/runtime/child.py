"""Inside a child process of the pool: a query worker's loop, or a one-off update.

A child is a fresh Python (:mod:`kg.runtime.pipe` starts it with ``python -c``, not
multiprocessing: the caller's ``__main__`` is never re-imported) that runs :func:`main` and gets
its job as the first message over its socket pair. What it runs comes from the module that
``settings["worker"]`` names (both servers name :mod:`kg.serve.worker`): its ``Worker(settings)``
answers query messages, its ``run_update(settings, text)`` runs an update.

A query worker answers messages until the parent sends None or goes away; while idle it moves to
the store's newest version every ``IDLE_CHECK_S`` (``worker.refresh()``), so an idle worker does
not keep an old version on disk. It exits when the process that started it does.
"""

from __future__ import annotations

import importlib
import os
import threading
import time
from multiprocessing.connection import Connection
from typing import Any

from ..errors import KgError, safe_text

IDLE_CHECK_S = 1.0  # how often an idle worker looks for a newer version of the store


def _limit_memory(megabytes: int) -> None:
    if megabytes <= 0:
        return
    try:
        import resource

        limit = megabytes * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    except (ImportError, ValueError, OSError):
        pass


def _watch_parent(parent: int) -> None:
    def watch() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def _worker_module(settings: dict) -> Any:
    """The module that does a worker's work: the one ``settings["worker"]`` names."""
    return importlib.import_module(settings["worker"])


def _worker_main(conn: Any, settings: dict) -> None:
    """A query worker: answer messages until the parent sends None or goes away."""
    _watch_parent(settings["parent"])
    _limit_memory(settings["memory_mb"])
    try:
        worker = _worker_module(settings).Worker(settings)
    except Exception as err:  # noqa: BLE001 - reported to the parent, which raises StoreError
        conn.send({"ready": False, "error": safe_text(err, 400)})
        return
    conn.send({"ready": True, "pid": os.getpid()})
    while True:
        try:
            if not conn.poll(IDLE_CHECK_S):
                _refresh_idle(worker)
                continue
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        try:
            conn.send(_answer(worker, msg))
        except (OSError, ValueError):
            return


def _answer(worker: Any, msg: dict) -> dict:
    """The worker's answer, with the generation it was read from when the server may give it
    again (``"generation"``, taken off by the pool; see kg.runtime.answer_cache) and the worker's
    running counts (``"counts"``, taken off by the pool; see kg.runtime.counts)."""
    answer = worker.handle(msg)
    keepable = getattr(worker, "keepable", None)
    if keepable is not None and answer.get("status") == 200:
        answer["generation"] = keepable(msg)
    counts = getattr(worker, "counts", None)
    if counts:  # the worker's running totals, gathered by the pool (kg.runtime.counts)
        answer["counts"] = dict(counts)
    return answer


def _refresh_idle(worker: Any) -> None:
    """Move an idle worker to a newer version; a failure waits for the next request,
    which answers it as an error."""
    try:
        worker.refresh()
    except (KgError, OSError, RuntimeError):
        pass


def _update_main(conn: Any, settings: dict, text: str) -> None:
    """The one-off process that runs a SPARQL Update on a writable store."""
    _watch_parent(settings["parent"])
    conn.send(_worker_module(settings).run_update(settings, text))


def main(fd: int) -> None:
    """Entry point of a worker or update process: its job comes as the first message."""
    conn = Connection(fd)
    job = conn.recv()
    if job["role"] == "update":
        _update_main(conn, job["settings"], job["text"])
    else:
        _worker_main(conn, job["settings"])
