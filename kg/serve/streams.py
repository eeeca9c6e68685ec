"""Answers streamed from the store's own dump: ``GET /store`` and the Graph Store reads of whole graphs.

A dump is not a worker's answer. The bundled catalog's is about 60 MB of N-Quads, which the
store writes in seconds but which no query deadline or answer cap should cut: so a dump has no
``--timeout`` and no ``--max-bytes``, and it keeps no query worker busy. Instead:

- it reads one version of the store: a read-only handle opened for this dump reads the version
  current when it opened, whatever ingests land meanwhile, and keeps it on disk until the dump ends;
- the store writes it in a thread (pyoxigraph's writer lets go of the GIL), :data:`CHUNK_BYTES`
  at a time, each chunk handed to the event loop with backpressure: the thread waits while the
  client is slow to read, stops when the client goes away, and stops when the client has taken
  nothing for ``STREAM_STALL_SECONDS`` (60 s);
- at most ``streams_per_client`` dumps per client address (2) and ``streams`` in all (8) are
  streamed at once (:class:`kg.serve.service.StreamSlots`); one more is answered 503 with
  ``Retry-After``, as a connection past the connection caps is;
- what can be refused is checked before the first byte (a graph the store does not hold: 404;
  a value RDF/XML cannot hold: 406), so the status tells; a fault after the first byte ends the
  connection without the closing chunk, so a client never takes a cut dump for a whole one.
"""

from __future__ import annotations

import io
import threading
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any, AsyncIterator, Callable, cast

import anyio
import anyio.from_thread
import anyio.lowlevel

from ..errors import StoreError, safe_text
from .config import STREAM_STALL_SECONDS
from .replies import Reply

if TYPE_CHECKING:
    from ..store import GraphStore
    from .service import Service

CHUNK_BYTES = 256 * 1024  # the store's writes gathered into chunks this large (gzipped in a thread)
_BUFFERED = 4  # chunks waiting for the client at most


@dataclass(frozen=True)
class Stream:
    """A dump to stream: ``check(store)`` refuses what it must before the first byte (raising
    Reply), ``write(store, output)`` writes the dump; ``media_type`` and ``headers`` are the answer's."""

    media_type: str
    write: Callable[[GraphStore, IO[bytes]], None]
    check: Callable[[GraphStore], None] | None = None
    headers: dict[str, str] = field(default_factory=dict)


class StreamCut(Exception):
    """The dump failed after its first byte: the connection ends without the closing chunk."""


class _Stopped(Exception):
    """The client went away, or took nothing for too long: the dump stops."""


class _Outlet(io.RawIOBase):
    """The file the store writes the dump into: chunks handed to the event loop, with backpressure."""

    def __init__(self, send: Any, token: Any, stall: float) -> None:
        super().__init__()
        self._send, self._token, self._stall = send, token, stall
        self._pending = bytearray()
        self.failed: str | None = None  # why the dump stopped after its first byte

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self._pending += data
        if len(self._pending) >= CHUNK_BYTES:
            self.push()
        return len(data)

    def push(self) -> None:
        """Hand what is gathered to the loop (waiting while the client is slow to read)."""
        if self._pending:
            chunk = bytes(self._pending)
            self._pending.clear()
            self.hand(chunk)

    def hand(self, item: Any) -> None:
        try:
            anyio.from_thread.run(self._send_within, item, token=self._token)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, TimeoutError, RuntimeError):
            raise _Stopped() from None

    async def _send_within(self, item: Any) -> None:
        with anyio.fail_after(self._stall):
            await self._send.send(item)

    def end(self) -> None:
        """Close the loop's side (the answer ends; with ``failed`` set, without its closing chunk)."""
        try:
            anyio.from_thread.run_sync(self._send.close, token=self._token)
        except RuntimeError:  # the loop is gone (the server stopped)
            pass


@dataclass(frozen=True)
class _Start:
    """The first item of a dump: its error answer, or None when the dump follows."""

    refused: dict | None


def _produce(service: Service, stream: Stream, outlet: _Outlet, head: bool) -> None:
    """In a thread: open the store's current version, check, then write the dump into ``outlet``."""
    from ..store import GraphStore

    store = None
    try:
        try:
            store = GraphStore.open_existing(service.config.store, read_only=True)
            if stream.check is not None:
                stream.check(store)
        except Reply as refused:
            outlet.hand(_Start(refused.reply()))
            return
        except StoreError as err:
            outlet.hand(_Start(Reply(503, "store-unavailable", safe_text(err, 400)).reply()))
            return
        outlet.hand(_Start(None))
        if not head:
            stream.write(store, cast(IO[bytes], outlet))
            outlet.push()
    except _Stopped:
        outlet.failed = "the client went away or stopped reading"
    except Exception as err:  # noqa: BLE001 - a fault after the first byte cuts the connection
        outlet.failed = safe_text(err, 300)
    finally:
        del store  # the version read is let go of
        outlet.end()


async def start(service: Service, stream: Stream, client: str, head: bool = False) -> dict | AsyncIterator[bytes]:
    """Begin streaming ``stream`` for ``client``: its error answer when it is refused before the
    first byte, else the chunks of the dump (none for HEAD)."""
    slots = service.streams
    assert slots is not None
    if not slots.take(client):
        raise Reply(503, "busy", f"a client may read {slots.per_client} dumps at once and the server "
                    f"{slots.total}; try again when one has ended", headers={"Retry-After": "5"})
    send, receive = anyio.create_memory_object_stream[Any](max_buffer_size=_BUFFERED)
    outlet = _Outlet(send, anyio.lowlevel.current_token(), STREAM_STALL_SECONDS)

    def run() -> None:
        try:
            _produce(service, stream, outlet, head)
        finally:
            slots.give_back(client)

    threading.Thread(target=run, daemon=True, name="kg-serve-dump").start()
    try:
        first = await receive.receive()
    except anyio.EndOfStream:
        first = _Start(Reply(500, "internal-error", outlet.failed or "the dump did not start").reply())
    if first.refused is not None:
        receive.close()
        return first.refused
    return _chunks(receive, outlet)


async def _chunks(receive: Any, outlet: _Outlet) -> AsyncIterator[bytes]:
    async with receive:  # closed early (the client went away): the thread's next hand-over stops it
        async for chunk in receive:
            yield chunk
    if outlet.failed is not None:
        raise StreamCut(outlet.failed)
