"""No command writes a file inside a store it reads or writes, or inside one of its input folders:
every writing option of every command (``-o``, ``--report``, ``--quarantine``, ``--plot``, ``--into``)
is refused before anything is read (exit 2, one line naming the option and the path), however the
path is spelt: relative from another folder, through ``..``, through a symbolic link to the store,
or the store through a link. Real ``kg`` processes on a store of the seed record; the store's
files are compared byte for byte before and after.

``kg export --store S -o S/gen-*/000366.sst`` once wrote over a data file of the current version
(exit 0, the store then unreadable), and ``kg ingest --store S x.json --report S/generation`` over
the pointer file.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from kg.cli.parser import build_parser
from helpers import kg

DATA = Path(__file__).resolve().parent.parent / "data"
SEED = str(DATA / "seed-record.json")


@pytest.fixture(scope="module")
def place(tmp_path_factory) -> Path:
    """A folder holding ``S`` (a store of the seed record), ``L`` (a link to it), ``in/`` (an
    input folder holding the seed record) and ``sub/`` (an empty folder)."""
    folder = tmp_path_factory.mktemp("inside")
    done = kg("ingest", "--store", "S", SEED, cwd=folder)
    assert done.returncode == 0, done.stderr
    (folder / "L").symlink_to("S")
    (folder / "in").mkdir()
    (folder / "in" / "seed.json").write_bytes(Path(SEED).read_bytes())
    (folder / "sub").mkdir()
    return folder


def files(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (relative path -> SHA-256 of its bytes)."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def data_file(place: Path) -> str:
    """A data file of the store's current version, relative to ``place``."""
    current = (place / "S" / "generation").read_text().strip()
    return str(next(p for p in sorted((place / "S").glob(f"gen-*{current}/*.sst"))).relative_to(place))


# (command and arguments, the option refused, where the command runs: "." or a folder under the place)
def cases(place: Path) -> list[tuple[list[str], str, str]]:
    sst = data_file(place)
    return [
        (["export", "--store", "S", "-f", "ntriples", "-o", sst], "-o", "."),
        (["export", "--store", "S", "-f", "ntriples", "-o", "S/generation"], "-o", "."),
        (["export", "--store", "S", "-f", "ntriples", "-o", "S/new.nt"], "-o", "."),
        (["export", "--store", "S", "-f", "ntriples", "-o", "S"], "-o", "."),
        (["export", "--store", "S", "-f", "ntriples", "-o", "sub/../S/generation"], "-o", "."),
        (["export", "--store", "S", "-f", "ntriples", "-o", "L/generation"], "-o", "."),
        (["export", "--store", "L", "-f", "ntriples", "-o", "S/generation"], "-o", "."),
        (["export", "--store", ".", "-f", "ntriples", "-o", "generation"], "-o", "S"),
        (["export", "--store", "..", "-f", "ntriples", "-o", "../generation"], "-o", "sub"),
        (["export", "--store", "../S", "-f", "ntriples", "-o", "../" + sst], "-o", "sub"),
        (["ingest", "--store", "S", SEED, "--report", "S/generation"], "--report", "."),
        (["ingest", "--store", "S", SEED, "--quarantine", sst], "--quarantine", "."),
        (["ingest", "--store", "S", SEED, "--report", "L/findings.jsonl"], "--report", "."),
        (["ingest", "--store", "S", "in", "--report", "in/findings.jsonl"], "--report", "."),
        (["ingest", "--store", "S", "in", "--quarantine", "sub/../in/seed.json"], "--quarantine", "."),
        (["ingest", "--store", "new-store", SEED, "--report", "new-store/findings.jsonl"], "--report", "."),
        (["build", "--store", "S", SEED, "--report", "S/generation"], "--report", "."),
        (["build", "--store", "S", SEED, "--quarantine", "L/q.jsonl"], "--quarantine", "."),
        (["build", "--store", "S", "in", "--quarantine", "in/q.jsonl"], "--quarantine", "."),
        (["analyze", "--store", "S", "--plot", "S/plot.png"], "--plot", "."),
        (["analyze", "--store", "S", "--plot", "S/generation"], "--plot", "."),
        (["analyze", "--store", "S", "--write-back", "--plot", "L/plot.png"], "--plot", "."),
        (["checkout", "--store", "S", "1", "-o", "S/generation"], "-o", "."),
        (["checkout", "--store", "S", "1", "-o", "L/catalog.json"], "-o", "."),
        (["checkout", "--store", "S", "1", "--into", "rebuilt", "-o", "rebuilt/catalog.json"], "-o", "."),
        (["checkout", "--store", "S", "1", "--into", "S/rebuilt"], "--into", "."),
        (["checkout", "--store", "S", "1", "--into", "L"], "--into", "."),
    ]


def test_every_output_inside_a_store_or_an_input_folder_is_refused(place):
    before = files(place)
    for args, option, where in cases(place):
        done = kg(*args, cwd=place / where)
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2 and len(lines) == 1, (args, done.returncode, done.stderr)
        path = args[args.index(option) + 1]
        assert lines[0].startswith(f"kg: error: {option} {path}: is inside the "), (args, lines[0])
        assert done.stdout == "", args
        assert files(place) == before, args  # nothing written, nothing changed: the store as it was
    assert not (place / "new-store").exists() and not (place / "rebuilt").exists()
    export = kg("export", "--store", "S", "-f", "ntriples", cwd=place)
    assert export.returncode == 0 and export.stdout.count("\n") > 1000  # the store still reads whole


def test_the_refusal_comes_before_anything_is_read(place, tmp_path):
    """A missing store (exit 4 when read) and a malformed input (exit 3 when read) are never
    reached: the output is refused first."""
    broken = tmp_path / "broken.json"
    broken.write_text("{ not json", encoding="utf-8")
    missing = kg("export", "--store", str(tmp_path / "none"), "-f", "nquads", "-o", str(tmp_path / "none" / "x.nq"),
                 cwd=tmp_path)
    assert missing.returncode == 2 and "is inside the store" in missing.stderr, missing.stderr
    malformed = kg("ingest", "--store", str(place / "S"), str(broken), "--report", str(place / "S" / "generation"),
                   cwd=tmp_path)
    assert malformed.returncode == 2 and "--report" in malformed.stderr, malformed.stderr
    plot = kg("analyze", "--store", str(tmp_path / "none"), "--plot", str(tmp_path / "none" / "p.png"), cwd=tmp_path)
    assert plot.returncode == 2 and "--plot" in plot.stderr, plot.stderr


def test_an_output_beside_the_store_is_written(place, tmp_path):
    """The same commands writing next to the store (not inside it) work: the rule refuses only inside."""
    done = kg("export", "--store", "S", "-f", "ntriples", "-o", str(tmp_path / "all.nt"), cwd=place)
    assert done.returncode == 0 and (tmp_path / "all.nt").stat().st_size > 0, done.stderr
    plot = kg("analyze", "--store", "S", "--plot", str(tmp_path / "plot.png"), cwd=place)
    assert plot.returncode == 0 and (tmp_path / "plot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", plot.stderr
    assert sorted(os.listdir(tmp_path)) == ["all.nt", "plot.png"]  # no temporary file left


WRITES = {("build", "--report"), ("build", "--quarantine"), ("ingest", "--report"), ("ingest", "--quarantine"),
          ("export", "--output"), ("analyze", "--plot"), ("checkout", "--output"), ("checkout", "--into")}
READS = {("validate", "files"), ("validate", "--shapes"), ("query", "query"), ("ingest", "paths"),
         ("build", "paths"), ("diff", "old"), ("diff", "new"), ("query", "--queries"), ("serve", "--queries"),
         ("mcp", "--queries")}


def test_every_option_that_names_a_file_is_a_known_output_or_input(place):
    """A new option naming a file or a folder must be added here, and to the cases above when it writes."""
    named = set()
    for command, parser in build_parser()._subparsers._group_actions[0].choices.items():  # type: ignore[union-attr]
        for action in parser._actions:
            metavar = str(action.metavar or "")
            if any(word in metavar for word in ("FILE", "DIR", "PATH", "OLD", "NEW")) and action.dest != "store":
                named.add((command, action.option_strings[0] if action.option_strings else action.dest))
    assert named == WRITES | READS, named ^ (WRITES | READS)
    covered = {(args[0], "--output" if option == "-o" else option) for args, option, _ in cases(place)}
    assert covered == WRITES
