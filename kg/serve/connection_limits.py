"""The connection edge under ``kg serve``: uvicorn's h11 protocol with a connection cap per
client and overall, and a deadline on every request.

h11 parses HTTP/1.1 strictly (conflicting or malformed ``Content-Length``, whitespace
before a header's colon, a body read as a body and never as the next request: 400 or one
answer). What uvicorn leaves open is a client that sends slowly: it never times out a
request head that trickles in, and its concurrency limit counts every open connection,
so a few hundred trickling connections would shut everyone out. Here:

- each request must arrive whole (head and body) within ``request_seconds`` of the
  connection's opening or of the end of the previous answer; past that the connection is
  closed, with a 408 when part of a request head had come (an idle connection is just
  closed: it has asked nothing);
- one client address holds at most ``per_client`` connections, and the server at most
  ``total``; a connection past either cap is answered 503 with ``Retry-After`` at once.

The time an answer takes is not limited here: the worker pool's deadline (504) does that.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections import Counter
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

_RECEIVED = (h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.ERROR)


def raw_reply(status: str, error: str, message: str, *headers: str) -> bytes:
    """A whole HTTP/1.1 answer with a JSON body that closes the connection (for use
    before h11 has a request to answer).

    >>> raw_reply("408 Request Timeout", "timeout", "slow").split(b"\\r\\n")[0]
    b'HTTP/1.1 408 Request Timeout'
    """
    body = json.dumps({"error": error, "message": message}).encode() + b"\n"
    head = [f"HTTP/1.1 {status}", "Content-Type: application/json", "X-Content-Type-Options: nosniff",
            *headers, "Connection: close", f"Content-Length: {len(body)}"]
    return ("\r\n".join(head) + "\r\n\r\n").encode("ascii") + body


_BUSY = raw_reply("503 Service Unavailable", "busy", "too many open connections; try again", "Retry-After: 1")


def guarded_protocol(total: int, per_client: int, request_seconds: float) -> type[H11Protocol]:
    """An ``H11Protocol`` subclass (uvicorn's ``http=`` setting) enforcing the caps and the
    request deadline; each call has its own connection counts (one per server)."""
    open_by_client: Counter[str] = Counter()

    class GuardedH11Protocol(H11Protocol):
        _counted = False
        _deadline: asyncio.TimerHandle | None = None
        _heard = False  # bytes of the current request have arrived

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            sock = transport.get_extra_info("socket")
            if sock is not None:  # an answer's head and body go out at once (no Nagle delay)
                try:
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                except OSError:
                    pass
            self._peer = self.client[0] if self.client else ""
            if sum(open_by_client.values()) >= total or open_by_client[self._peer] >= per_client:
                transport.write(_BUSY)
                transport.close()
                return
            open_by_client[self._peer] += 1
            self._counted = True
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._counted:
                self._counted = False
                open_by_client[self._peer] -= 1
                if open_by_client[self._peer] <= 0:
                    del open_by_client[self._peer]
            self._disarm()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            self._heard = True
            super().data_received(data)
            if self.conn.their_state in _RECEIVED:
                self._disarm()  # the request is in: the answer's time is the pool's business

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()  # the next request's clock

        def _arm(self) -> None:
            self._disarm()
            self._heard = False
            self._deadline = self.loop.call_later(request_seconds, self._expired)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _expired(self) -> None:
            self._deadline = None
            if self.conn.their_state in _RECEIVED or self.transport.is_closing():
                return
            if self._heard and self.conn.their_state is h11.IDLE and self.conn.our_state is h11.IDLE:
                self.transport.write(raw_reply("408 Request Timeout", "request-timeout",
                                               f"the request did not arrive within {request_seconds:g} s"))
            self.transport.close()

    return GuardedH11Protocol
