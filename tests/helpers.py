"""How the tests run ``kg`` and read what it said: one runner for a real process, one in this process.

* ``kg(*args)``: ``python -m kg ARGS`` as a process of its own (the code PYTHONPATH names, else
  the installed one), output captured: the finished process. ``kg_command(*args)`` is its command
  line, for a server started with ``subprocess.Popen``.
* ``in_process(capsys, *args)``: ``kg.cli.main`` in this process: (exit status, stdout, stderr),
  also as ``.returncode``, ``.stdout``, ``.stderr``; a usage error argparse finds (it exits)
  counts as its status.
* ``one_line_error(done, code)``: the one line a failing ``kg`` says (``kg: error: ...``, no
  traceback), after checking its exit status.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from typing import Any, Mapping, NamedTuple, Sequence

from kg.cli import main

ENTRY = ("-m", "kg")


def kg_command(*args: str, entry: Sequence[str] = ENTRY) -> list[str]:
    """The command line of ``kg ARGS`` (``entry``: what the interpreter runs, ``-m kg`` by default)."""
    return [sys.executable, *entry, *args]


def kg(*args: str, cwd: Any = None, env: Mapping[str, str] | None = None, stdin: str | bytes | None = None,
       timeout: float = 600, text: bool = True, entry: Sequence[str] = ENTRY,
       **options: Any) -> subprocess.CompletedProcess:
    """``kg ARGS`` run to its end: ``env`` is added to this process's environment, ``stdin`` fed to
    it; stdout and stderr captured (as text unless ``text`` is False) unless ``options`` route them."""
    if "stdout" not in options and "stderr" not in options:
        options["capture_output"] = True
    return subprocess.run(kg_command(*args, entry=entry), cwd=cwd, env={**os.environ, **env} if env else None,
                          input=stdin, timeout=timeout, text=text, **options)


class Ran(NamedTuple):
    """What ``kg`` did in this process: its exit status and what it wrote."""

    returncode: int
    stdout: str
    stderr: str


def in_process(capsys: Any, *args: str) -> Ran:
    """``kg ARGS`` through ``kg.cli.main`` here; ``capsys`` (pytest's) captures its output, or
    None: it is redirected (for tests that cannot take a function's fixture, as hypothesis's)."""
    if capsys is None:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = _exit_status(args)
        return Ran(code, out.getvalue(), err.getvalue())
    capsys.readouterr()
    code = _exit_status(args)
    said = capsys.readouterr()
    return Ran(code, said.out, said.err)


def _exit_status(args: Sequence[str]) -> int:
    try:
        return main(list(args))
    except SystemExit as exit:
        return 0 if exit.code is None else exit.code if isinstance(exit.code, int) else 1


def one_line_error(done: Any, code: int | None) -> str:
    """The one line of a failing ``kg`` on stderr (``kg: error: ...``, no traceback); its exit
    status must be ``code`` (None: any)."""
    stderr = done.stderr.decode() if isinstance(done.stderr, bytes) else done.stderr
    if code is not None:
        assert done.returncode == code, (done.returncode, stderr[-2000:])
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kg: error: ") and "Traceback" not in stderr, stderr[-2000:]
    return lines[0]
