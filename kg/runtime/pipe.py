"""One child process seen from the server: started, spoken to over its socket pair, killed.

The protocol: the first message is the child's job (``{"role", "settings", "text"}``, see
:mod:`kg.runtime.child`); a query worker then says it is ready (``{"ready": True}``, or
``{"ready": False, "error": ...}``), and answers each message with one answer. Messages are
pickled by :mod:`multiprocessing.connection`, each after a 4-byte length prefix. A call reads
its answer within its deadline (:class:`~kg.runtime.failures.WorkerTimeout` past it,
:class:`~kg.runtime.failures.WorkerDied` when the pipe closes); from an event loop
(:meth:`ChildProcess.acall`) the answer is awaited, and one over ``INLINE_ANSWER_BYTES`` is
read in a thread, so that the loop is never held while megabytes cross the pipe.
"""

from __future__ import annotations

import os
import socket
import struct
import subprocess
import sys
import time
from multiprocessing.connection import Connection

import anyio

from ..errors import StoreError
from .failures import WorkerDied, WorkerTimeout

# an answer up to this size is read on the event loop at once; a larger one in a thread
INLINE_ANSWER_BYTES = 256 * 1024
# a SPARQL query's message names this op: kg serve's SPARQL view renders it, kg mcp sends it too
QUERY_OP = "query"

# The folder that holds the kg package (a checkout or site-packages): put first on the
# child's PYTHONPATH, so that it imports this same kg even when started from elsewhere.
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_CHILD_CODE = "import sys; from kg.runtime.child import main; main(int(sys.argv[1]))"


class ChildProcess:
    """A child Python process that talks over a socket pair with pickled messages."""

    def __init__(self, settings: dict, role: str = "query", text: str | None = None) -> None:
        ours, theirs = socket.socketpair()
        env = dict(os.environ)
        env["PYTHONPATH"] = _PACKAGE_ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        try:
            self.proc = subprocess.Popen([sys.executable, "-c", _CHILD_CODE, str(theirs.fileno())],
                                         pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, env=env)
        finally:
            theirs.close()
        self.sock = ours  # kept to wait on from an event loop and to peek at an answer's size
        self.conn = Connection(os.dup(ours.fileno()))
        self.conn.send({"role": role, "settings": settings, "text": text})

    def alive(self) -> bool:
        return self.proc.poll() is None

    def wait_ready(self, timeout: float) -> None:
        try:
            if not self.conn.poll(timeout):
                self.kill()
                raise StoreError("a query worker did not start in time")
            msg = self.conn.recv()
        except (EOFError, OSError):
            self.kill()
            raise StoreError("a query worker exited while starting") from None
        if not msg.get("ready"):
            self.kill()
            raise StoreError(msg.get("error") or "a query worker could not start")

    def call(self, msg: dict | None, deadline: float) -> dict:
        try:
            if msg is not None:
                self.conn.send(msg)
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self.conn.poll(remaining):
                raise WorkerTimeout()
            return self.conn.recv()
        except (EOFError, OSError):
            raise WorkerDied() from None

    async def acall(self, msg: dict, deadline: float) -> dict:
        """:meth:`call` from an event loop: the answer awaited, not waited for in a thread."""
        try:
            self.conn.send(msg)  # a worker between calls is reading: a message never waits long
            answered = False
            with anyio.move_on_after(deadline - time.monotonic()):
                await anyio.wait_readable(self.sock)
                answered = True
            if not answered:
                raise WorkerTimeout()
            if self.answer_is_large():
                return await anyio.to_thread.run_sync(self.conn.recv)
            return self.conn.recv()
        except (EOFError, OSError):
            raise WorkerDied() from None

    def answer_is_large(self) -> bool:
        """Whether the answer waiting on the pipe is over INLINE_ANSWER_BYTES (its length prefix,
        as multiprocessing.connection writes it, peeked at; a prefix not all there yet counts as large)."""
        try:
            head = self.sock.recv(4, socket.MSG_PEEK | socket.MSG_DONTWAIT)
        except BlockingIOError:  # woken with nothing to read: the thread's read waits for it
            return True
        return len(head) < 4 or not 0 <= struct.unpack("!i", head)[0] <= INLINE_ANSWER_BYTES

    def kill(self) -> None:
        try:
            self.proc.kill()
            self.proc.wait(5)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.conn.close()
        self.sock.close()

    def close(self) -> None:
        try:
            self.conn.send(None)
            self.proc.wait(2)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            pass
        self.kill()
