"""Serving the tools: over stdio (an MCP client starts ``kg mcp``) or streamable HTTP on 127.0.0.1.

Both start the query workers first and stop them last. Over HTTP the SDK's protection
against DNS rebinding is on, narrowed to this server: the ``Host`` header must name it
(127.0.0.1, localhost or [::1] at its own port) and an ``Origin`` header, when a browser
sends one, must be the server's own origin (those three names at its port) or one the user
listed (``kg mcp --allow-origin``): a page served from another local port cannot drive the
tools. The socket is bound before the server starts, so ``port=0`` picks a free port and
:func:`serve_http`'s ``ready`` callback learns the address.
"""

from __future__ import annotations

import socket
from typing import Any, Callable, Iterable

import anyio
from mcp.server import Server
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings

from ..runtime.listening import listening_socket
from .config import HTTP_HOST, HTTP_PATH, McpConfig
from .store_workers import StoreWorkers
from .server import Tools, build_server


async def _stdio(server: Server[Any]) -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def serve_stdio(config: McpConfig, ready: Callable[[Tools], None] | None = None) -> None:
    """Answer one MCP client over stdin and stdout until it closes them."""
    with StoreWorkers(config) as workers:
        tools = Tools(workers, config.all_tools)
        if ready is not None:
            ready(tools)
        anyio.run(_stdio, build_server(tools))


def bind(port: int) -> socket.socket:
    """A listening socket on the loopback address (``port`` 0: a free one). It listens
    before the address is announced, so a client that connects at once waits in the
    backlog until the server accepts, rather than being refused."""
    return listening_socket(HTTP_HOST, port, backlog=128)


LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def security(port: int, origins: Iterable[str] = ()) -> TransportSecuritySettings:
    """The Host and Origin headers the server at ``port`` accepts: its own names at its own
    port, and the ``origins`` the user listed (already checked by :func:`kg.mcp.config.origin`).

    >>> security(8765, ["https://app.example"]).allowed_origins[-1]
    'https://app.example'
    """
    own = [f"{name}:{port}" for name in LOOPBACK_NAMES]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=own,
                                     allowed_origins=[f"http://{host}" for host in own] + list(origins))


def serve_http(config: McpConfig, port: int, ready: Callable[[Tools, str], None] | None = None) -> None:
    """Serve streamable HTTP at ``http://127.0.0.1:<port>/mcp`` until interrupted."""
    import uvicorn  # a dependency of the MCP SDK

    sock = bind(port)
    try:
        with StoreWorkers(config) as workers:
            tools = Tools(workers, config.all_tools)
            bound = sock.getsockname()[1]
            app = build_server(tools).streamable_http_app(streamable_http_path=HTTP_PATH, host=HTTP_HOST,
                                                          transport_security=security(bound, config.origins))
            url = f"http://{HTTP_HOST}:{bound}{HTTP_PATH}"
            if ready is not None:
                ready(tools, url)
            uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False)).run(sockets=[sock])
    finally:
        sock.close()
