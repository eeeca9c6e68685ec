"""Helpers the tests of ``kg serve`` and ``kg mcp --http`` share: the real server on a free port, one request."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess

import httpx
from helpers import kg_command


@contextlib.contextmanager
def _running(arguments: list[str], announced: str, env: dict | None = None):
    """``python -m kg ARGUMENTS`` (the code on PYTHONPATH); yields the first group of ``announced`` in
    the first line it writes to stderr (its address), and stops it (SIGTERM) at the end."""
    process = subprocess.Popen(kg_command(*arguments),
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True, env={**os.environ, **(env or {})})
    try:
        line = process.stderr.readline() if process.stderr else ""
        found = re.search(announced, line)
        assert found, line
        yield found.group(1)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()


def kg_serve(store, *options: str, env: dict | None = None):
    """``python -m kg serve`` on a free port; yields its base URL and stops it at the end."""
    return _running(["serve", "--store", str(store), "--port", "0", "--workers", "1", "--quiet", *options],
                    r"SPARQL endpoint (http://127\.0\.0\.1:\d+)/sparql", env)


def kg_mcp_http(store, *options: str):
    """``python -m kg mcp --http`` (one worker) on a free port; yields its URL (``.../mcp``) and stops it."""
    return _running(["mcp", "--http", "--port", "0", "--workers", "1", "--store", str(store), *options],
                    r"(http://127\.0\.0\.1:\d+/mcp)")


def http(method: str, url: str, body: bytes = b"", **headers: str) -> tuple[int, dict[str, str], bytes]:
    """One request: its status, headers (lower-case names) and body."""
    reply = httpx.request(method, url, content=body, headers=headers, timeout=30)
    return reply.status_code, {k.lower(): v for k, v in reply.headers.items()}, reply.content

