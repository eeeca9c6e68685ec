"""The command that serves agents: ``kg mcp``, the graph's queries as tools of an MCP server."""

from __future__ import annotations

import argparse
import signal
import sys

from ..errors import StoreError, UsageError
from .common import EXIT_OK, add_queries_option, err, positive, query_folders

_MISSING_SDK = "kg mcp needs the MCP SDK: pip install 'agent-landscape-kg[mcp]'"


def options_mcp(p: argparse.ArgumentParser) -> None:
    from ..mcp.config import DEFAULT_HTTP_PORT, DEFAULT_WORKERS
    from ..runtime.limits import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT

    p.add_argument("--http", action="store_true",
                   help="serve streamable HTTP on 127.0.0.1 (at /mcp) instead of stdio")
    p.add_argument("--port", type=int, default=DEFAULT_HTTP_PORT,
                   help=f"port of --http (default {DEFAULT_HTTP_PORT}; 0 picks a free one)")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                   help=f"stop a query after this long; the tool call is an error (default {DEFAULT_TIMEOUT:g})")
    p.add_argument("--max-rows", type=int, default=DEFAULT_MAX_ROWS, metavar="N",
                   help=f"read at most N rows or triples of one answer; a tool pages through them and says "
                        f"when an answer reached N (truncated) (default {DEFAULT_MAX_ROWS})")
    p.add_argument("--workers", type=int, default=DEFAULT_WORKERS, metavar="N",
                   help=f"query worker processes (default {DEFAULT_WORKERS})")
    p.add_argument("--all-tools", action="store_true",
                   help="list every named query as a tool of its own, plumbing (check-*, select-*) and the "
                        "questions the catalog tool answers included (default: the common questions only)")
    p.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                   help="with --http: also accept browser requests whose Origin is ORIGIN (scheme://host[:port]; "
                        "repeatable; default: only the server's own origin, 127.0.0.1, localhost or [::1] at its port)")
    add_queries_option(p)


def run_mcp(args: argparse.Namespace) -> int:
    if args.store == ":memory:":
        raise UsageError("kg mcp needs a store directory (run 'kg build' first)")
    positive(args.workers, "--workers")
    positive(args.max_rows, "--max-rows")
    try:
        from ..mcp import transports
    except ImportError as error:
        if (error.name or "").split(".")[0] in ("mcp", "mcp_types", "uvicorn"):
            raise UsageError(_MISSING_SDK) from None
        raise
    from ..mcp.config import McpConfig, origin

    if args.allow_origin and not args.http:
        raise UsageError("--allow-origin applies to --http only")
    config = McpConfig(store=args.store, base=args.base, timeout=args.timeout, max_rows=args.max_rows,
                       workers=args.workers, origins=tuple(origin(o) for o in args.allow_origin),
                       all_tools=args.all_tools, queries=tuple(query_folders(args)))
    limits = f"{args.timeout:g} s timeout, max {args.max_rows} rows, read-only"
    if not args.http:
        if sys.stdin.isatty():
            err("kg mcp: note: an MCP client starts this command and talks to it over stdin and stdout "
                "(docs/guide/mcp.md says how); --http serves clients that connect by URL")
        transports.serve_stdio(config, ready=lambda tools: err(
            f"kg mcp: {len(tools.definitions)} tools over stdio ({limits})"))
        return EXIT_OK

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    try:
        transports.serve_http(config, args.port, ready=lambda tools, url: err(
            f"kg mcp: {len(tools.definitions)} tools at {url} (streamable HTTP; {limits}); press Ctrl-C to stop"))
    except KeyboardInterrupt:
        pass
    except OSError as error:
        raise StoreError(f"cannot listen on 127.0.0.1:{args.port}: {error.strerror or error}") from None
    err("kg mcp: stopped")
    return EXIT_OK
