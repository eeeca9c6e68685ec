"""Typed errors of the library. Only ``kg.cli`` turns them into messages and exit codes."""

from __future__ import annotations

from typing import Any


def safe_text(text: object, limit: int = 200) -> str:
    """``text`` made safe for one terminal line: control characters escaped, length capped."""
    shown = str(text)
    if len(shown) > limit:
        shown = shown[:limit] + "..."
    if shown.isprintable():  # most text: one pass in C, nothing to escape
        return shown
    return "".join(
        ch if ch.isprintable() or ch == " " else ch.encode("unicode_escape", "backslashreplace").decode("ascii")
        for ch in shown
    )


class KgError(Exception):
    """Base class of every error ``kg`` raises on purpose."""


class UsageError(KgError):
    """The caller asked for something that cannot be done (unknown query, bad option value)."""


class OutOfTime(UsageError):
    """A run stopped at the deadline it was given (``kg validate --timeout``) before it had an answer."""


class SourceError(KgError):
    """An input file cannot be read as a catalog, a record or an edges file."""

    def __init__(self, source: str, message: str) -> None:
        self.source = source
        self.message = message
        super().__init__(f"{safe_text(source)}: {safe_text(message, 400)}")


class RecordError(KgError):
    """One record or edge breaks the model: says where (file, index, id) and which field path."""

    def __init__(self, source: str, index: int | None, record_id: str | None, path: str, message: str) -> None:
        self.source = source
        self.index = index
        self.record_id = record_id
        self.path = path
        self.message = message
        where = safe_text(source)
        if index is not None:
            where += f": [{index}]"
        if record_id is not None:
            where += f" {safe_text(record_id, 80)}"
        super().__init__(f"{where}: {safe_text(path, 120)}: {safe_text(message, 300)}")

    def __reduce__(self) -> tuple[Any, ...]:
        # an exception pickles as cls(*args), and these take their fields, not their line: rebuilt
        # from both, a finding or a quarantined record crosses to another process (a worker, a cache)
        return _rebuilt, (type(self), self.args, self.__dict__)


def _rebuilt(cls: type[RecordError], args: tuple, state: dict) -> RecordError:
    error = cls.__new__(cls)
    error.args = args
    error.__dict__.update(state)
    return error


class InputRejected(KgError):
    """Strict mode: the input holds bad records, so nothing was written."""

    def __init__(self, errors: list[RecordError]) -> None:
        self.errors = errors
        super().__init__(f"{len(errors)} bad record(s); nothing written (strict mode)")


class WorkerLost(KgError):
    """A worker process of an ingest ended before it answered (killed, out of memory): the ingest
    stops and writes nothing; the store keeps the version it had."""


class StoreError(KgError):
    """The store cannot be opened or written (locked by another process, bad directory)."""


class QueryError(KgError):
    """A SPARQL query is malformed or its parameters do not fit."""


class NotFound(KgError):
    """An id or a name given to a query names no system, or a name matches several: not an
    empty answer. ``candidates`` are close matches (unknown) or every match (ambiguous)."""

    def __init__(self, message: str, candidates: list[tuple[str, str]] | None = None) -> None:
        self.candidates = candidates or []
        super().__init__(message)
