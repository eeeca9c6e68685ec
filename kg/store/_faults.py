"""How the store's files fail: pyoxigraph's storage errors as one-line ``StoreError`` messages,
and a store folder opened to read or to write with those messages."""

from __future__ import annotations

from pathlib import Path

from pyoxigraph import Store

from ..errors import StoreError, safe_text


def reason(err: BaseException) -> str:
    """pyoxigraph's (RocksDB's) message as one short line."""
    text = str(err).strip().splitlines()
    return safe_text(text[0] if text else type(err).__name__, 300)


def is_storage_fault(err: BaseException) -> bool:
    """Whether pyoxigraph's error is the storage failing (corrupt files, I/O) rather than the query."""
    return isinstance(err, OSError) or str(err).startswith(("Corruption", "IO error"))


def storage_error(err: BaseException) -> StoreError | None:
    """The StoreError for a pyoxigraph error raised while iterating a query's results
    (damaged store files, I/O), or None when ``err`` is something else. For callers that
    iterate :meth:`GraphStore.query` results themselves.

    >>> storage_error(RuntimeError("Corruption: block checksum mismatch\\nmore"))
    StoreError('cannot read the store: Corruption: block checksum mismatch')
    >>> storage_error(RuntimeError("Type error")) is None
    True
    """
    if isinstance(err, (OSError, RuntimeError)) and is_storage_fault(err):
        return StoreError(f"cannot read the store: {reason(err)}")
    return None


def open_read_only(folder: Path) -> Store:
    try:
        return Store.read_only(str(folder))
    except (OSError, RuntimeError, ValueError) as err:
        raise StoreError(f"cannot open store {safe_text(folder)}: {reason(err)}") from None


def probe(store: Store, folder: Path) -> None:
    """Read one whole index of a store opened to read (~70 ms per 200,000 quads): RocksDB
    checks every block it reads, so damaged files mostly show here, as one error, before
    a query meets them. pyoxigraph 0.5's aggregates (COUNT, GROUP BY) retry a failing
    read without end, growing until memory runs out."""
    try:
        len(store)
    except (OSError, RuntimeError) as err:
        raise StoreError(f"corrupt store {safe_text(folder)}: {reason(err)}") from None


def open_writable(folder: Path) -> Store:
    try:
        return Store(str(folder))
    except (OSError, RuntimeError, ValueError) as err:
        raise StoreError(f"cannot write to the store {safe_text(folder)}: {reason(err)}") from None
