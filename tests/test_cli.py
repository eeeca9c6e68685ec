"""The command line as a new user runs it: build, info, export, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

from kg.cli import EXIT_INPUT, EXIT_OK, EXIT_QUARANTINE, EXIT_USAGE, main


def kg(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kg.cli", *args], capture_output=True, text=True,
                          input=stdin, timeout=300)


def test_build_then_info_and_export(tmp_path):
    store = str(tmp_path / "kg-store")
    run = kg("build", "--store", store)
    assert run.returncode == EXIT_OK, run.stderr
    assert "ingested 912 records and 528 edges" in run.stderr
    assert run.stdout == ""  # summaries go to stderr
    info = kg("info", "--store", store, "--format", "json")
    counts = json.loads(info.stdout)["counts"]
    assert counts["System"] == 912 and counts["Relation"] == 528
    out = tmp_path / "catalog.json"
    assert kg("export", "--store", store, "-o", str(out)).returncode == EXIT_OK
    assert len(json.loads(out.read_text())["records"]) == 912


def test_stdin_and_quarantine(tmp_path, site_catalog):
    good, bad = site_catalog["records"][0], dict(site_catalog["records"][1], tier="high")
    lines = json.dumps(good) + "\n" + json.dumps(bad) + "\n"
    run = kg("ingest", "-", "--store", str(tmp_path / "s"), stdin=lines)
    assert run.returncode == EXIT_QUARANTINE
    assert f"quarantined: <stdin>: [1] {bad['id']}: tier: must be an integer" in run.stderr
    assert "Traceback" not in run.stderr
    assert "ingested 1 records" in run.stderr


def test_strict_rejects_everything(tmp_path, site_catalog):
    bad = dict(site_catalog["records"][1], tier="high")
    lines = json.dumps(site_catalog["records"][0]) + "\n" + json.dumps(bad) + "\n"
    run = kg("ingest", "-", "--strict", "--store", str(tmp_path / "s"), stdin=lines)
    assert run.returncode == EXIT_INPUT and "nothing written" in run.stderr


def test_unreadable_file_is_exit_3_and_writes_nothing(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"records": [', encoding="utf-8")
    assert main(["ingest", str(broken), "--store", str(tmp_path / "s")]) == EXIT_INPUT


def test_usage_errors_are_exit_2():
    assert kg("export", "--format", "nope").returncode == EXIT_USAGE
    assert kg("frobnicate").returncode == EXIT_USAGE


def test_every_command_has_help_with_an_example():
    for command in ("build", "ingest", "export", "info"):
        run = kg(command, "--help")
        assert run.returncode == 0 and "example:" in run.stdout and "--store" in run.stdout
