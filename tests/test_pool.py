"""The query worker pool (kg.runtime.pool): answers from worker processes, for callers in
threads (``call``) and on an event loop (``acall``), with deadlines that kill a late worker,
and never an answer given to a call other than the one it answers."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import anyio
import pytest

from kg.runtime.pool import INLINE_ANSWER_BYTES, PoolBusy, WorkerPool, WorkerTimeout

TESTS = str(Path(__file__).resolve().parent)


@pytest.fixture
def pool(monkeypatch):
    # the children import tests/pool_worker.py: its folder goes on their PYTHONPATH
    monkeypatch.setenv("PYTHONPATH", TESTS + (os.pathsep + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else ""))
    made = WorkerPool({"worker": "pool_worker", "parent": os.getpid(), "memory_mb": 0}, size=2)
    made.start()
    yield made
    made.close()


def soon(seconds: float = 20.0) -> float:
    return time.monotonic() + seconds


def test_an_awaited_answer_is_the_answer_to_its_own_message_whatever_its_size(pool):
    sizes = [0, 10, INLINE_ANSWER_BYTES, INLINE_ANSWER_BYTES + 1, 3 * 1024 * 1024]

    async def main() -> list[dict]:
        return [await pool.acall({"echo": n, "size": size}, soon()) for n, size in enumerate(sizes)]

    answers = anyio.run(main)
    assert [a["echo"] for a in answers] == list(range(len(sizes)))
    assert [a["body"] for a in answers] == [bytes([n]) * size for n, size in enumerate(sizes)]
    assert pool.call({"echo": 7, "size": 3}, soon())["body"] == b"\x07" * 3  # the same workers, called from a thread


def test_more_callers_than_workers_each_get_their_own_answer(pool):
    got: dict[int, int] = {}

    async def one(n: int) -> None:
        got[n] = (await pool.acall({"echo": n, "sleep": 0.02, "size": n}, soon()))["echo"]

    async def main() -> None:
        async with anyio.create_task_group() as group:
            for n in range(12):
                group.start_soon(one, n)

    anyio.run(main)
    assert got == {n: n for n in range(12)}
    assert pool.idle() == pool.size


def test_a_late_answer_kills_its_worker_and_reaches_no_later_call(pool):
    async def main() -> dict:
        with pytest.raises(WorkerTimeout):
            await pool.acall({"echo": 1, "sleep": 5.0}, time.monotonic() + 0.3)
        return await pool.acall({"echo": 2}, soon())

    assert anyio.run(main)["echo"] == 2
    assert pool.timeouts == 1
    wait_for_workers(pool)


def test_a_cancelled_call_kills_its_worker_and_its_answer_reaches_no_later_call(pool):
    async def main() -> list[int]:
        with anyio.move_on_after(0.3):  # the client went away while both workers worked
            async with anyio.create_task_group() as group:
                for n in (1, 2):
                    group.start_soon(pool.acall, {"echo": n, "sleep": 1.0}, soon())
        return [(await pool.acall({"echo": n}, soon()))["echo"] for n in (3, 4, 5)]

    assert anyio.run(main) == [3, 4, 5]
    assert pool.replaced <= 2
    wait_for_workers(pool)
    assert pool.replaced == 2


def test_no_worker_free_before_the_deadline_is_busy(pool):
    async def main() -> None:
        async with anyio.create_task_group() as group:
            for n in (1, 2):  # both workers taken for a second
                group.start_soon(pool.acall, {"echo": n, "sleep": 1.0}, soon())
            await anyio.sleep(0.2)
            with pytest.raises(PoolBusy):
                await pool.acall({"echo": 3}, time.monotonic() + 0.2)

    anyio.run(main)
    assert pool.timeouts == 0


def test_an_awaited_call_waits_for_a_worker_that_a_thread_holds(pool):
    threads = [threading.Thread(target=pool.call, args=({"echo": n, "sleep": 0.5}, soon())) for n in (1, 2)]
    for thread in threads:
        thread.start()
    time.sleep(0.2)  # both workers busy with the threads' calls
    began = time.monotonic()
    answer = anyio.run(pool.acall, {"echo": 3}, soon())
    for thread in threads:
        thread.join()
    assert answer["echo"] == 3 and time.monotonic() - began >= 0.2
    assert pool.idle() == pool.size


def wait_for_workers(pool: WorkerPool, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while pool.idle() < pool.size and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pool.idle() == pool.size


@pytest.mark.parametrize("size, large", [(0, False), (INLINE_ANSWER_BYTES - 100, False),
                                         (INLINE_ANSWER_BYTES + 100, True), (8 * 1024 * 1024, True)])
def test_a_large_answer_is_told_by_its_length_before_it_is_read(size, large):
    """An answer over INLINE_ANSWER_BYTES is read in a thread, not on the loop: the length
    prefix that multiprocessing writes is peeked at, and the answer is still read whole."""
    import socket
    from multiprocessing.connection import Connection

    from kg.runtime.pipe import ChildProcess

    ours, theirs = socket.socketpair()
    proc = object.__new__(ChildProcess)
    proc.sock, proc.conn = ours, Connection(os.dup(ours.fileno()))
    sender = Connection(theirs.detach())
    writer = threading.Thread(target=sender.send_bytes, args=(b"x" * size,))
    writer.start()
    time.sleep(0.05)
    try:
        assert proc.answer_is_large() is large
        assert len(proc.conn.recv_bytes()) == size
    finally:
        writer.join()
        proc.conn.close(), ours.close(), sender.close()
