"""The session of the README and the docs runs, and prints what they show: the runner and its checks.

Every ``$ ...`` line of the ``console`` blocks of the README, then of the docs pages
(``docs/``, in the order of ``mkdocs.yml``'s nav: :func:`docs_pages`), runs in order, in
one fresh folder (``examples/`` linked in, as in a checkout), with the ``kg`` and
``python`` the caller names: tests/test_wheel.py runs the session with the installed
wheel's, in a fresh virtual environment outside the checkout, as a new user would. A
command must exit with the status the page gives it (0 unless its comment says
``# exit N``), and every output line the page shows must appear in what it printed, in
the same order; a ``...`` line stands for lines left out. Durations (``2.30 s``), the number of server workers and the
betweenness backend may differ. ``kg serve ... &`` starts the server in the background
on a free port (the README's port 8000 is rewritten) until the block ends.

Then the README's Python example (the ``pycon`` block, :func:`python_example`) runs as
a doctest in the same folder, on the store the session built.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
MKDOCS = ROOT / "mkdocs.yml"
SETUP = ["pip install . && kg build", "pip install -e '.[test]' && python -m pytest -q"]


@dataclass
class Step:
    command: str
    status: int = 0
    expected: list[str] = field(default_factory=list)
    background: bool = False


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)


def steps(block: str) -> list[Step]:
    found: list[Step] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            command, _, comment = line[2:].partition("  #")
            command = command.strip()
            status = re.search(r"\bexit (\d+)", comment)
            background = command.endswith("&")
            found.append(Step(command.rstrip("&").strip(), int(status.group(1)) if status else 0,
                              background=background))
        elif found:
            found[-1].expected.append(line.rstrip())
    return found


def pattern(line: str) -> re.Pattern:
    """An expected output line as a regex: durations, worker counts and the backend may vary."""
    text = re.escape(line)
    text = re.sub(r"\d+(?:\\\.\d+)?\\ s\b", r"[\\d.]+\\ s", text)
    text = text.replace(r"\(2\ workers", r"\(\d+\ workers")
    text = re.sub(r"\\\((?:igraph|networkx)\\\)", r"\\((?:igraph|networkx)\\)", text)
    return re.compile(text + r"\s*")


def check_output(step: Step, printed: str) -> None:
    lines = [line.rstrip() for line in printed.splitlines()]
    position = 0
    for expected in step.expected:
        if expected in ("...", ""):
            continue
        wanted = pattern(expected)
        for index in range(position, len(lines)):
            if wanted.fullmatch(lines[index]):
                position = index + 1
                break
        else:
            raise AssertionError(f"$ {step.command}\nthe docs show a line that was not printed (or not in this order):\n"
                                 f"  {expected}\nprinted:\n{printed[-6000:]}")


def docs_pages() -> list[Path]:
    """The pages of docs/, in the order of mkdocs.yml's nav (pages kept outside docs/ left out)."""
    named = re.findall(r"^\s+- [^:]+: (\S+\.md)$", MKDOCS.read_text(encoding="utf-8"), re.MULTILINE)
    return [DOCS / name for name in named if (DOCS / name).is_file()]


def session_blocks(readme: str, pages: list[Path] | None = None) -> list[str]:
    """The ``console`` blocks of the session: the README's, then each docs page's (``pages``,
    default :func:`docs_pages`)."""
    found = blocks(readme, "console")
    for page in docs_pages() if pages is None else pages:
        found += blocks(page.read_text(encoding="utf-8"), "console")
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def readme() -> str:
    return README.read_text(encoding="utf-8")


def test_the_setup_commands_are_the_two_promised(readme):
    setup = readme.split("## Set up", 1)[1].split("\n## ", 1)[0]
    assert [line.strip() for line in setup.splitlines() if line.startswith("    ")] == SETUP


def test_the_session_shows_each_verb(readme):
    commands = [s.command for block in blocks(readme, "console") for s in steps(block)]
    for verb in ("build", "validate", "query", "analyze", "serve"):
        assert any(c.startswith(f"kg {verb}") for c in commands), verb
    assert sum(c.startswith("kg query") for c in commands) >= 2
    assert any(c.startswith("python examples/") for c in commands)
    assert any(c.startswith("curl ") for c in commands)


def run_session(readme: str, session_dir: Path, env: dict,
                after: Callable[[Step, subprocess.CompletedProcess], None] | None = None,
                pages: list[Path] | None = None) -> None:
    """Run every ``$`` line of the console blocks of the README (its text, ``readme``) and of
    the docs pages (:func:`session_blocks`) in ``session_dir`` (with ``env``: its PATH names the
    ``kg`` and ``python`` to run) and check what each prints; ``after(step, done)`` is called
    after each command that ran in the foreground, before its checks."""
    ran = 0
    for block in session_blocks(readme, pages):
        port = str(free_port())
        server = None
        try:
            for step in steps(block):
                step.command = step.command.replace("127.0.0.1:8000", f"127.0.0.1:{port}")
                step.expected = [line.replace("127.0.0.1:8000", f"127.0.0.1:{port}") for line in step.expected]
                if step.background:
                    assert step.command.startswith("kg serve"), f"only kg serve runs in the background: {step.command}"
                    server = subprocess.Popen(f"{step.command} --port {port}", shell=True, cwd=session_dir, env=env,
                                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                              start_new_session=True)
                    started = [server.stdout.readline(), server.stdout.readline()]
                    check_output(step, "".join(started))
                    ran += 1
                    continue
                done = subprocess.run(step.command, shell=True, cwd=session_dir, env=env, capture_output=True,
                                      text=True, timeout=900)
                if after is not None:
                    after(step, done)
                printed = done.stdout + done.stderr
                assert done.returncode == step.status, (
                    f"$ {step.command}\nexited {done.returncode}, the docs say {step.status}\n{printed[-6000:]}")
                assert "Traceback" not in printed, printed[-6000:]
                check_output(step, printed)
                ran += 1
        finally:
            if server is not None:
                os.killpg(server.pid, signal.SIGTERM)
                rest = server.communicate(timeout=60)[0]
                assert "kg serve: stopped" in rest, rest[-3000:]
    assert ran >= 8
    assert (session_dir / "kg-store").is_dir() and (session_dir / "protocol-adoption.png").is_file()


def python_example(readme: str) -> str:
    """The README's Python API example (its one ``pycon`` block), as a doctest file's text."""
    (example,) = blocks(readme, "pycon")
    return example


def test_the_comparison_notices_a_wrong_line():
    step = Step("kg info", expected=["triples  201827", "...", "Vendor  580"])
    check_output(step, "triples  201827\nCell  19238\nVendor  580\n")
    with pytest.raises(AssertionError):
        check_output(step, "triples  201828\nVendor  580\n")
    with pytest.raises(AssertionError):  # order matters
        check_output(step, "Vendor  580\ntriples  201827\n")
    assert pattern("done in 27.19 s; store at kg-store").fullmatch("done in 3.5 s; store at kg-store")
    assert not pattern("done in 27.19 s; store at kg-store").fullmatch("done in 3.5 s; store at elsewhere")


# ---------------------------------------------------------------------------
# The front door: short, and every console block of the docs in the session


def test_the_readme_is_a_front_door(readme):
    """At most 250 lines; the test suite's duration; the examples said to be checkout scripts."""
    assert len(readme.splitlines()) <= 250
    setup = " ".join(readme.split("## Set up", 1)[1].split("\n## ", 1)[0].split())
    assert "about 10 minutes on 2 cores" in setup
    assert "checkout scripts" in setup and "not in the wheel" in setup
    session = " ".join(readme.split("## A short session", 1)[1].split("\n## ", 1)[0].split())
    assert "needs a checkout" in session  # the python examples/... line
    assert "CC-BY-4.0" in readme.split("## Data licence and attribution", 1)[1]


def test_every_console_block_of_the_docs_is_in_the_session(readme):
    pages = docs_pages()
    assert pages and all(page.is_relative_to(DOCS) for page in pages)
    with_sessions = sorted(page for page in DOCS.rglob("*.md") if blocks(page.read_text(encoding="utf-8"), "console"))
    assert with_sessions and set(with_sessions) <= set(pages), "a docs page with a console block is not in the nav"
    every = blocks(readme, "console") + [b for page in with_sessions for b in blocks(page.read_text(encoding="utf-8"),
                                                                                        "console")]
    assert sorted(session_blocks(readme)) == sorted(every)
    # the history session (kg checkout, kg diff) is in the docs, not in the README
    commands = [s.command for block in session_blocks(readme) for s in steps(block)]
    assert any(c.startswith("kg checkout") for c in commands) and any(c.startswith("kg diff") for c in commands)
