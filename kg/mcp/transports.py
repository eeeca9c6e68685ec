"""Serving the tools: over stdio (an MCP client starts ``kg mcp``) or streamable HTTP on 127.0.0.1.

Both start the query workers first and stop them last. Over HTTP the SDK's own
protection against DNS rebinding is on (only loopback Host and Origin headers pass),
and the socket is bound before the server starts, so ``port=0`` picks a free port and
:func:`serve_http`'s ``ready`` callback learns the address.
"""

from __future__ import annotations

import socket
from typing import Any, Callable

import anyio
from mcp.server import Server
from mcp.server.stdio import stdio_server

from .config import HTTP_HOST, HTTP_PATH, McpConfig
from .engine import Engine
from .server import Tools, build_server


async def _stdio(server: Server[Any]) -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def serve_stdio(config: McpConfig, ready: Callable[[Tools], None] | None = None) -> None:
    """Answer one MCP client over stdin and stdout until it closes them."""
    with Engine(config) as engine:
        tools = Tools(engine)
        if ready is not None:
            ready(tools)
        anyio.run(_stdio, build_server(tools))


def bind(port: int) -> socket.socket:
    """A listening socket on the loopback address (``port`` 0: a free one)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HTTP_HOST, port))
    except OSError:
        sock.close()
        raise
    return sock


def serve_http(config: McpConfig, port: int, ready: Callable[[Tools, str], None] | None = None) -> None:
    """Serve streamable HTTP at ``http://127.0.0.1:<port>/mcp`` until interrupted."""
    import uvicorn  # a dependency of the MCP SDK

    sock = bind(port)
    try:
        with Engine(config) as engine:
            tools = Tools(engine)
            app = build_server(tools).streamable_http_app(streamable_http_path=HTTP_PATH, host=HTTP_HOST)
            url = f"http://{HTTP_HOST}:{sock.getsockname()[1]}{HTTP_PATH}"
            if ready is not None:
                ready(tools, url)
            uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False)).run(sockets=[sock])
    finally:
        sock.close()
