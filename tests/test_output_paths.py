"""Where ``-o``, ``--report`` and ``--quarantine`` write (kg.outpaths), as real ``kg`` processes: a
regular file or a new path is replaced whole; a FIFO, a character device, ``-`` and an open
descriptor are written in place; a symbolic link is followed; a folder, a block device, a missing
folder and one of the command's own inputs are refused (exit 2, one line) before anything is read.

The devices are made here, in the test's folder (``os.mknod``, as root): never the system's."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest
from helpers import kg, one_line_error

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
as_root = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="mknod needs root")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    """A store of five records (one changeset) and the catalog file it was made from."""
    folder = tmp_path_factory.mktemp("built")
    catalog = json.loads((DATA / "landscape-site.json").read_text(encoding="utf-8"))
    catalog["records"] = catalog["records"][:5]
    five = folder / "five.json"
    five.write_text(json.dumps(catalog), encoding="utf-8")
    done = kg("ingest", "--store", str(folder / "store"), str(five), cwd=folder)
    assert done.returncode == 0, done.stderr
    return folder / "store", five


def expected_nquads(store: Path, cwd: Path) -> bytes:
    done = kg("export", "--store", str(store), "-f", "nquads", cwd=cwd, text=False)
    assert done.returncode == 0 and done.stdout
    return done.stdout


def character_device(path: Path) -> Path:
    os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # what /dev/null is, made here
    return path


@as_root
def test_a_character_device_is_written_in_place_never_replaced(built, tmp_path):
    store, _ = built
    null = character_device(tmp_path / "null")
    for command in (["checkout", "1"], ["export", "-f", "nquads"]):
        done = kg(*command, "--store", str(store), "-o", str(null), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert stat.S_ISCHR(os.stat(null).st_mode) and os.stat(null).st_rdev == os.makedev(1, 3), command
    assert sorted(os.listdir(tmp_path)) == ["null"]  # no temporary file left beside it


@as_root
def test_a_device_that_refuses_the_write_is_one_line_exit_2_and_stays_a_device(built, tmp_path):
    """``-o /dev/full`` once ended in "internal error" (exit 70): a write the output refuses is
    the output's failure, named in one line."""
    store, _ = built
    full = tmp_path / "full"
    os.mknod(full, stat.S_IFCHR | 0o666, os.makedev(1, 7))  # what /dev/full is, made here
    for command in (["checkout", "1"], ["export", "-f", "nquads"]):
        done = kg(*command, "--store", str(store), "-o", str(full), cwd=tmp_path)
        line = one_line_error(done, 2)
        assert str(full) in line and "No space left on device" in line, line
        assert stat.S_ISCHR(os.stat(full).st_mode) and os.stat(full).st_rdev == os.makedev(1, 7), command
    assert sorted(os.listdir(tmp_path)) == ["full"]


def test_a_fifo_is_written_as_a_stream(built, tmp_path):
    store, _ = built
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with open(tmp_path / "read", "wb") as sink:
        reader = subprocess.Popen(["cat", str(fifo)], stdout=sink)
        try:
            done = kg("export", "--store", str(store), "-f", "nquads", "-o", str(fifo), cwd=tmp_path)
            reader.wait(timeout=30)
        finally:
            if reader.poll() is None:
                reader.kill()  # by its own id: it waits on a FIFO nobody will open again
                reader.wait()
    assert done.returncode == 0, done.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert (tmp_path / "read").read_bytes() == expected_nquads(store, tmp_path)


def test_a_descriptor_and_dash_are_standard_output(built, tmp_path):
    store, five = built
    stdout_link = tmp_path / "stdout"
    stdout_link.symlink_to("/proc/self/fd/1")  # what /dev/stdout is
    with open(tmp_path / "redirected", "wb") as redirected:  # kg ... -o /dev/stdout > redirected
        done = kg("export", "--store", str(store), "-f", "nquads", "-o", str(stdout_link), cwd=tmp_path,
                  stdout=redirected, stderr=subprocess.PIPE)
    assert done.returncode == 0, done.stderr
    assert stdout_link.is_symlink() and (tmp_path / "redirected").read_bytes() == expected_nquads(store, tmp_path)
    report = kg("ingest", "--store", str(tmp_path / "store"), str(five), "--report", "-", cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    assert not (tmp_path / "-").exists()
    findings = [json.loads(line) for line in report.stdout.splitlines()]
    assert findings and all(finding["rule"] for finding in findings)


def test_a_symlink_is_followed_to_its_target(built, tmp_path):
    store, _ = built
    target = tmp_path / "target.nq"
    target.write_text("old\n", encoding="utf-8")
    link = tmp_path / "link.nq"
    link.symlink_to(target.name)
    done = kg("export", "--store", str(store), "-f", "nquads", "-o", str(link), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and os.readlink(link) == target.name
    assert target.read_bytes() == expected_nquads(store, tmp_path)
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to("new.json")
    assert kg("checkout", "1", "--store", str(store), "-o", str(dangling), cwd=tmp_path).returncode == 0
    assert dangling.is_symlink() and json.loads((tmp_path / "new.json").read_text())["records"]


def test_a_folder_or_a_missing_folder_is_one_line_exit_2_before_anything_is_read(built, tmp_path):
    store, five = built
    (tmp_path / "folder").mkdir()
    fresh = tmp_path / "fresh-store"
    cases = [(["export", "--store", str(store), "-f", "nquads", "-o", str(tmp_path / "folder")], "is a folder"),
             (["checkout", "1", "--store", str(store), "-o", str(tmp_path / "folder")], "is a folder"),
             (["ingest", "--store", str(fresh), str(five), "--report", str(tmp_path / "no" / "r.jsonl")],
              "does not exist"),
             (["ingest", "--store", str(fresh), str(five), "--quarantine", str(tmp_path / "folder")], "is a folder"),
             (["export", "--store", str(store), "-f", "nquads", "-o", str(tmp_path / "no" / "x.nq")],
              "does not exist")]
    for command, problem in cases:
        line = one_line_error(kg(*command, cwd=tmp_path), 2)
        assert problem in line, (command, line)
    assert not fresh.exists()  # refused before the store was opened
    assert sorted(os.listdir(tmp_path)) == ["folder"] and not os.listdir(tmp_path / "folder")


@as_root
def test_a_block_device_is_refused(built, tmp_path):
    store, _ = built
    block = tmp_path / "block"
    os.mknod(block, stat.S_IFBLK | 0o600, os.makedev(7, 0))  # never opened: refused by its kind
    line = one_line_error(kg("export", "--store", str(store), "-f", "nquads", "-o", str(block), cwd=tmp_path), 2)
    assert "block device" in line and stat.S_ISBLK(os.stat(block).st_mode)


def test_an_output_that_is_an_input_is_refused_before_anything_is_read(built, tmp_path):
    _, five = built
    given = tmp_path / "in.json"
    given.write_bytes(five.read_bytes())
    alias = tmp_path / "alias.json"
    os.link(given, alias)  # the same file under another name
    fresh = tmp_path / "store"
    for option, path, inputs in (("--quarantine", given, [given]), ("--report", given, [given]),
                                 ("--report", alias, [given]), ("--quarantine", given, [tmp_path])):
        line = one_line_error(kg("ingest", "--store", str(fresh), *map(str, inputs), option, str(path),
                                 cwd=tmp_path), 2)
        said = "is inside the input folder" if inputs == [tmp_path] else "is one of the command's inputs"
        assert said in line, line
        assert given.read_bytes() == five.read_bytes()
    assert not fresh.exists()


def test_a_regular_file_is_replaced_whole_and_keeps_its_mode(built, tmp_path):
    store, _ = built
    out = tmp_path / "out.nq"
    out.write_text("old\n", encoding="utf-8")
    out.chmod(0o640)
    done = kg("export", "--store", str(store), "-f", "nquads", "-o", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == expected_nquads(store, tmp_path)
    assert stat.S_IMODE(out.stat().st_mode) == 0o640 and sorted(os.listdir(tmp_path)) == ["out.nq"]
