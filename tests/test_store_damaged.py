"""A damaged store (kg.store._generations.damage): a folder that holds generations that were current but
no readable pointer is refused by every command, writers included (exit 4, one line that says how
to restore it), and nothing is deleted; what a killed first write or migration leaves is still
cleared by the next writer. Every command runs as a real ``kg`` process."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import kg, one_line_error

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
COUNT = "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }"


def listing(path: Path) -> list[tuple[str, int]]:
    """Every file under ``path`` with its size: what a command must leave as it was."""
    return sorted((str(p.relative_to(path)), p.stat().st_size if p.is_file() else -1) for p in path.rglob("*"))


def five_records(folder: Path) -> Path:
    """A catalog file of the first five bundled records."""
    catalog = json.loads((DATA / "landscape-site.json").read_text(encoding="utf-8"))
    catalog["records"] = catalog["records"][:5]
    path = folder / "five.json"
    path.write_text(json.dumps(catalog), encoding="utf-8")
    return path


@pytest.fixture
def store(tmp_path) -> Path:
    """A store of two changesets (its current generation is not the first)."""
    path = tmp_path / "store"
    assert kg("ingest", "--store", str(path), str(five_records(tmp_path)), cwd=tmp_path).returncode == 0
    assert kg("ingest", "--store", str(path), str(DATA / "seed-record.json"), cwd=tmp_path).returncode == 0
    return path


def commands(store: Path, tmp_path: Path) -> list[list[str]]:
    """Writers and readers, each given the store."""
    given = ["--store", str(store)]
    return [["ingest", *given, str(DATA / "seed-record.json")],
            ["build", *given, "--no-validate", str(tmp_path / "five.json")],
            ["checkout", *given, "1", "--into", str(tmp_path / "copy")],
            ["info", *given], ["query", *given, "--text", COUNT], ["export", *given, "-f", "nquads"],
            ["log", *given]]


def test_a_store_without_its_pointer_is_refused_by_every_command_and_restored_as_it_says(store, tmp_path):
    before = kg("info", "--store", str(store), "-f", "json", cwd=tmp_path)
    pointer = store / "generation"
    current = int(pointer.read_text(encoding="ascii"))
    pointer.unlink()
    files = listing(store)
    for command in commands(store, tmp_path):
        line = one_line_error(kg(*command, cwd=tmp_path), 4)
        assert "damaged store" in line and "'generation' is missing" in line, (command, line)
        assert f"newest whole generation is gen-{current:08d}" in line
        assert f"echo {current} > {store / 'generation'}" in line
        assert listing(store) == files, command  # nothing deleted, nothing made
    assert not (tmp_path / "copy").exists()
    pointer.write_text(f"{current}\n", encoding="ascii")  # what the message says to do
    after = kg("info", "--store", str(store), "-f", "json", cwd=tmp_path)
    assert after.returncode == 0 and json.loads(after.stdout) == json.loads(before.stdout)
    assert kg("ingest", "--store", str(store), str(tmp_path / "five.json"), cwd=tmp_path).returncode == 0


@pytest.mark.parametrize("text, state", [("x\n", "is unreadable"), ("", "is unreadable"),
                                         ("99\n", "names gen-00000099, which is gone")])
def test_a_corrupt_or_dangling_pointer_is_refused_with_the_way_back(store, tmp_path, text, state):
    pointer = store / "generation"
    current = int(pointer.read_text(encoding="ascii"))
    pointer.write_text(text, encoding="ascii")
    files = listing(store)
    for command in commands(store, tmp_path)[:2] + commands(store, tmp_path)[3:4]:
        line = one_line_error(kg(*command, cwd=tmp_path), 4)
        assert f"'generation' {state}" in line and f"echo {current} >" in line, (command, line)
        assert listing(store) == files, command
    assert (store / f"gen-{current:08d}").is_dir()


KILLED_FIRST_WRITE = textwrap.dedent("""
    import os, signal, sys
    from kg.store import _generations as generations
    from kg.cli import main

    def write_pointer(folder, number):  # the store's first generation, killed before it is current
        os.kill(os.getpid(), signal.SIGKILL)

    generations.write_pointer = write_pointer
    main(sys.argv[1:])
""")


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_what_a_killed_first_write_leaves_is_cleared_by_the_next_writer(tmp_path):
    path = tmp_path / "store"
    killed = subprocess.run([sys.executable, "-c", KILLED_FIRST_WRITE, "ingest", "--store", str(path),
                             str(five_records(tmp_path))], cwd=tmp_path, capture_output=True, timeout=300)
    assert killed.returncode == -signal.SIGKILL
    assert (path / "gen-00000001").is_dir() and not (path / "generation").exists()
    one_line_error(kg("info", "--store", str(path), cwd=tmp_path), 4)  # no store yet: exit 4
    done = kg("ingest", "--store", str(path), str(tmp_path / "five.json"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(os.listdir(path)) == ["gen-00000002", "gen-00000002.lock", "generation", "writer.lock"]


def test_a_plain_store_whose_migration_was_killed_is_migrated_again(store, tmp_path):
    """A plain store from before generations (a checkpoint folder), beside the copy of it that a
    migration killed before its switch left as generation 1: read as it is, then migrated."""
    plain = tmp_path / "plain"
    shutil.copytree(store / f"gen-{int((store / 'generation').read_text()):08d}", plain)
    shutil.copytree(plain, plain / "gen-00000001", ignore=shutil.ignore_patterns("gen-*"))
    (plain / "gen-00000001.lock").touch()
    before = kg("query", "--store", str(plain), "--text", COUNT, "-f", "csv", cwd=tmp_path)
    assert before.returncode == 0, before.stderr
    done = kg("ingest", "--store", str(plain), str(DATA / "seed-record.json"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (plain / "generation").read_text().strip() == "2" and not (plain / "CURRENT").exists()
    assert kg("query", "--store", str(plain), "--text", COUNT, "-f", "csv", cwd=tmp_path).stdout == before.stdout
