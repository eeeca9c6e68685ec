"""Inputs that are not regular files (kg.sources.inputs): ``/dev/zero``, a FIFO, ``/dev/stdin`` are
read once as a stream, with stdin's caps (kept in memory up to KEEP_BYTES, spooled beyond it, up to
MAX_STREAM_BYTES); more, or NUL bytes, is one line naming the input, exit 3, in bounded memory.
Every command runs as a real ``kg`` process, under an address-space limit."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from helpers import ENTRY, kg, one_line_error

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
MEMORY_CAP = 2 << 30  # bytes of address space a kg process may map here: kg reads its inputs in far less
KEEP, CAP = 1 << 20, 4 << 20  # the caps lowered, so that a test feeds megabytes, not gigabytes

# The real command with stdin's caps lowered (``-c``: the package PYTHONPATH names, else the installed one).
LOWERED = textwrap.dedent(f"""
    import sys
    from kg.sources import inputs
    inputs.KEEP_BYTES, inputs.MAX_STREAM_BYTES = {KEEP}, {CAP}
    from kg.cli import main
    sys.exit(main(sys.argv[1:]))
""")


def _bounded() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def capped_kg(*args: str, cwd: Path, lowered: bool = False, **options) -> subprocess.CompletedProcess:
    """``kg ARGS`` under the memory cap (``lowered``: its input caps lowered), its spool in ``cwd/tmp``."""
    (cwd / "tmp").mkdir(exist_ok=True)  # where a spool goes: checked empty afterwards
    return kg(*args, cwd=cwd, env={"TMPDIR": str(cwd / "tmp")}, entry=("-c", LOWERED) if lowered else ENTRY,
              preexec_fn=_bounded, text=False, timeout=120, **options)


def five_records() -> bytes:
    catalog = json.loads((DATA / "landscape-site.json").read_text(encoding="utf-8"))
    catalog["records"] = catalog["records"][:5]
    return json.dumps(catalog).encode()


def feed(fifo: Path, data: bytes) -> threading.Thread:
    """A writer that opens ``fifo`` and writes ``data`` (what a reader leaves unread is dropped)."""
    def write() -> None:
        try:
            with open(fifo, "wb") as out:
                out.write(data)
        except BrokenPipeError:
            pass
    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


def test_dev_zero_is_refused_at_once_in_bounded_memory(tmp_path):
    done = capped_kg("ingest", "--store", str(tmp_path / "store"), "/dev/zero", cwd=tmp_path)
    line = one_line_error(done, 3)
    assert "/dev/zero" in line and "NUL bytes" in line


def test_a_fifo_is_read_as_a_stream(tmp_path):
    fifo = tmp_path / "records"
    os.mkfifo(fifo)
    writer = feed(fifo, five_records())
    done = capped_kg("ingest", "--store", str(tmp_path / "store"), str(fifo), cwd=tmp_path, lowered=True)
    writer.join(10)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert "ingested 5 records" in done.stderr.decode()


@pytest.mark.parametrize("how", ["fifo", "stdin"])
def test_a_stream_over_the_cap_is_one_line_exit_3_and_leaves_no_spool(tmp_path, how):
    """Past KEEP_BYTES a stream is spooled to a temporary file; past MAX_STREAM_BYTES it is refused."""
    endless_looking = b"[" + b" " * (2 * CAP)  # valid as far as it goes: only the cap stops it
    store = tmp_path / "store"
    if how == "fifo":
        fifo = tmp_path / "records"
        os.mkfifo(fifo)
        writer = feed(fifo, endless_looking)
        done = capped_kg("ingest", "--store", str(store), str(fifo), cwd=tmp_path, lowered=True)
        writer.join(10)
        name = str(fifo)
    else:
        done = capped_kg("ingest", "--store", str(store), "-", cwd=tmp_path, lowered=True, stdin=endless_looking)
        name = "<stdin>"
    line = one_line_error(done, 3)
    assert line.startswith(f"kg: error: {name}: is a stream of more than {CAP:,} bytes"), line
    assert os.listdir(tmp_path / "tmp") == []  # the spool went with the error
