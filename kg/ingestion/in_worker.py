"""Inside a worker process of the record pass: units of records rebuilt from their JSON, mapped, checked
against the record-local rules and written as N-Quads text, answered to the parent
(``kg.ingestion.workers`` forks the workers and reads the answers).

A worker answers each record of a unit with the quarantine line of one that cannot be expressed in
RDF, or (its count of quads, the shared descriptions it made, its findings, its content hash); the
graphs' N-Quads texts follow the answers, one message each, as they are (no pickling of megabytes).
A worker ignores Ctrl-C (the parent's to handle), closes every descriptor it inherited but its own
pipes (so that each sees the end of its input when the parent dies, and holds none of the store's
files) and ends with ``os._exit``: never the parent's clean-up.
"""

from __future__ import annotations

import gc
import os
import signal
import time
import traceback
from multiprocessing.connection import Connection
from typing import Any

from ..description import ontology_quads
from ..errors import RecordError
from ..gctuning import THRESHOLD
from ..history import content_hash
from ..records import record_from_json, record_to_json
from ..validation.at_ingest import RuleCheck
from ..vocab import Iris
from .map_gate import map_record
from .read_check import Pending


def worker_main(tasks_fd: int, results_fd: int, base: str) -> None:
    """A forked worker: answer units until the parent sends None or goes away; never returns."""
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
        _close_fds_but(tasks_fd, results_fd)
        gc.set_threshold(THRESHOLD * 4, 50, 1000)  # short-lived objects; the inherited ones are frozen
        _answer_units(Connection(tasks_fd, writable=False), Connection(results_fd, readable=False), base)
        code = 0
    finally:
        os._exit(code)  # never the parent's clean-up: its store, its files and locks are not ours


def _close_fds_but(*keep: int) -> None:
    """Close every inherited descriptor but stdin, stdout, stderr and ``keep``: the other workers'
    pipes (so that each sees its own end of input when the parent dies) and the store's files."""
    try:
        open_fds = sorted(int(name) for name in os.listdir("/proc/self/fd"))
    except OSError:
        open_fds = list(range(3, 1024))
    for fd in open_fds:
        if fd > 2 and fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass


def _answer_units(tasks: Connection, results: Connection, base: str) -> None:
    iris = Iris(base)
    rules = RuleCheck(iris, ontology_quads(iris))  # the compiled shapes came with the fork
    described: set[str] = set()
    while True:
        try:
            message = tasks.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        unit, items = message
        try:
            answers, texts, seconds = _unit(items, iris, rules, described)
        except BaseException as err:  # noqa: BLE001 - the parent raises it
            _send_failure(results, unit, err)
            return
        try:
            results.send(("done", unit, answers, seconds))
            for text in texts:  # each graph's text as it is: no pickling of megabytes
                results.send_bytes(text)
        except (OSError, ValueError):
            return  # the parent went away


def _unit(items: list[tuple[Any, str, int, int]], iris: Iris, rules: RuleCheck,
          described: set[str]) -> tuple[list[Any], list[bytes], float]:
    """Each item (its JSON, file, index, size) rebuilt, mapped, checked and written as N-Quads text."""
    answers: list[Any] = []
    texts: list[bytes] = []
    seconds = 0.0
    for raw, source, index, size in items:
        record = record_from_json(raw, source=source, index=index)  # as the parent's read gave it
        found = map_record(Pending(record, source, index, size), iris, described)
        if isinstance(found, RecordError):
            answers.append(found)
            continue
        _, own, descriptions, triples = found
        started = time.perf_counter()
        rules.add_shared(descriptions)
        findings = rules.record_terms(triples or [], source, index, record.id)
        seconds += time.perf_counter() - started
        texts.append(own.nquads())
        answers.append((len(own), descriptions, findings, content_hash(record_to_json(record))))
    return answers, texts, seconds


def _send_failure(results: Connection, unit: int, err: BaseException) -> None:
    text = "".join(traceback.format_exception(type(err), err, err.__traceback__))
    try:
        results.send(("failed", unit, err, text))
    except Exception:  # noqa: BLE001 - an error that cannot be pickled: its text will do
        try:
            results.send(("failed", unit, None, text))
        except (OSError, ValueError):
            pass
