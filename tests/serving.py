"""Helpers the tests of ``kg serve`` share: the real server on a free port, and one HTTP request."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys

import httpx


@contextlib.contextmanager
def kg_serve(store, *options: str, env: dict | None = None):
    """``python -m kg serve`` (the code on PYTHONPATH) on a free port; yields its base URL and
    stops it (SIGTERM) at the end."""
    process = subprocess.Popen([sys.executable, "-m", "kg", "serve", "--store", str(store), "--port", "0",
                                "--workers", "1", "--quiet", *options],
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True, env={**os.environ, **(env or {})})
    try:
        line = process.stderr.readline() if process.stderr else ""
        found = re.search(r"SPARQL endpoint (http://127\.0\.0\.1:\d+)/sparql", line)
        assert found, line
        yield found.group(1)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()


def http(method: str, url: str, body: bytes = b"", **headers: str) -> tuple[int, dict[str, str], bytes]:
    """One request: its status, headers (lower-case names) and body."""
    reply = httpx.request(method, url, content=body, headers=headers, timeout=30)
    return reply.status_code, {k.lower(): v for k, v in reply.headers.items()}, reply.content
