"""The listening sockets of the servers kg runs (``kg serve``, ``kg mcp --http``).

A socket listens before its address is announced, so a client that connects at once waits in
the backlog until the server accepts, rather than being refused.
"""

from __future__ import annotations

import socket


def listening_socket(host: str, port: int, *, backlog: int, inheritable: bool = False) -> socket.socket:
    """A TCP socket bound to ``host:port`` (``port`` 0: a free one) and listening."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto IPPROTO_TCP: asyncio then sets TCP_NODELAY on each connection (with proto 0 it does
    # not, and an answer's body would wait ~40 ms behind the client's delayed ACK of its head)
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(backlog)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(inheritable)
    return sock
