"""The files kept beside a generation (kg.store.kept) are trusted only as written, by the commands
themselves (``python -m kg`` in a process of its own): an answer taken out of or rows added to
kg-catalog-rules.json do not change ``kg validate --record``'s answer; a kept file nested 100,000
deep does not make ``kg info``, ``kg query`` or ``kg validate`` fail; a FIFO in a kept file's place
does not hang search. Each ignored file is said once on stderr.

Expected answers from the catalog JSON: the catalog-wide rules' results are the edges whose source
or target is no record (tests/test_remembered.py works them out), search's rows the systems whose
text holds the words (tests/searching.py, the matcher written from its definition)."""

from __future__ import annotations

import gc
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import tiny_catalog
from kg import textindex
from kg.ingestion import ingest_paths
from kg.store import GraphStore
from kg.validation import validate
from kg.vocab import Iris
from test_remembered import EDGE_RULES, expected_edge_results, with_dangling_edges

import searching  # tests/searching.py
from helpers import kg

RECORD = "mem0--mem0-ai"
RULES = "kg-catalog-rules.json"
MARKER = "kg-checked.json"
DEEP = "[" * 100_000 + "]" * 100_000


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> dict:
    """The tiny catalog with two dangling edges (two catalog-wide violations), ingested once."""
    folder = tmp_path_factory.mktemp("kept")
    paths = tiny_catalog(folder / "tiny")
    dangling = with_dangling_edges(paths, folder)
    store = GraphStore(folder / "store")
    ingest_paths(store, [paths[0], paths[1], dangling])
    del store
    gc.collect()
    records = {r["id"]: r for r in json.loads(Path(paths[0]).read_text(encoding="utf-8"))["records"]}
    seed = json.loads(Path(paths[1]).read_text(encoding="utf-8"))
    records[seed["id"]] = seed
    return {"store": folder / "store", "rules": expected_edge_results(paths, dangling), "records": records}


@pytest.fixture
def store(template, tmp_path) -> Path:
    """A copy of the template store whose kept files are those of the copy (a copy's are out of date
    until a reader makes them again: its damage marker, its catalog-wide answers, its words index)."""
    path = tmp_path / "store"
    shutil.copytree(template["store"], path)
    reader = GraphStore.open_existing(path, read_only=True)
    validate(reader, Iris(), records=[RECORD])
    textindex.open_index(reader).close()
    names = {p.name for p in _generation(path).iterdir()}
    assert {MARKER, RULES} <= names and any(name.startswith("kg-words.") for name in names)
    del reader
    gc.collect()
    return path


def _generation(store: Path) -> Path:
    return next(p for p in store.iterdir() if p.is_dir() and p.name.startswith("gen-"))


def _rule_results(run: subprocess.CompletedProcess) -> set[tuple[str, str, str]]:
    return {(r["rule"], r["focus"], r["value"]) for r in json.loads(run.stdout)["results"] if r["rule"] in EDGE_RULES}


def _said_once(run: subprocess.CompletedProcess, name: str) -> None:
    lines = [line for line in run.stderr.splitlines() if name in line]
    assert len(lines) == 1 and lines[0].startswith("kg: warning: ") and "worked out again" in lines[0], run.stderr


def _answers(path: Path) -> tuple[dict, dict]:
    """The kept file's JSON and the answers in it (rule -> [[focus, value], ...])."""
    held = json.loads(path.read_text(encoding="utf-8"))
    return held, held.get("content", held)["answers"]


def _with_answers(held: dict, answers: dict) -> dict:
    if "content" in held:
        return {**held, "content": {**held["content"], "answers": answers}}
    return {**held, "answers": answers}


@pytest.mark.parametrize("edit", ["an answer taken out", "rows added"])
def test_an_edited_answer_file_does_not_change_the_record_check(template, store, edit):
    before = kg("validate", "--store", str(store), "--record", RECORD, "-f", "json")
    assert before.returncode == 1 and _rule_results(before) == template["rules"] and len(template["rules"]) == 2
    path = _generation(store) / RULES
    held, answers = _answers(path)
    if edit == "an answer taken out":
        edited = {**answers, "RelationSourceIsSystem": []}
    else:
        fake = [[f"https://w3id.org/agent-landscape/id/relation/fake-{i}", None] for i in range(1000)]
        edited = {**answers, "RelationTargetIsSystem": answers["RelationTargetIsSystem"] + fake}
    path.write_text(json.dumps(_with_answers(held, edited)), encoding="utf-8")
    after = kg("validate", "--store", str(store), "--record", RECORD, "-f", "json")
    assert after.returncode == before.returncode and _rule_results(after) == template["rules"]
    assert json.loads(after.stdout)["violations"] == json.loads(before.stdout)["violations"]
    _said_once(after, RULES)
    again = kg("validate", "--store", str(store), "--record", RECORD, "-f", "json")  # made again, whole
    assert _rule_results(again) == template["rules"] and RULES not in again.stderr


@pytest.mark.parametrize("name", [MARKER, RULES])
def test_a_kept_file_nested_100000_deep_is_ignored(template, store, name):
    commands = {"info": ("info", "-f", "json"), "query": ("query", "sections", "-f", "json"),
                "validate": ("validate", "--record", RECORD, "-f", "json")}
    before = {key: kg(*words, "--store", str(store)) for key, words in commands.items()}
    (_generation(store) / name).write_text(DEEP, encoding="utf-8")
    for key, words in commands.items():
        run = kg(*words, "--store", str(store))
        assert run.returncode == before[key].returncode != 70, run.stderr
        if key == "validate":
            assert _rule_results(run) == template["rules"]
        else:
            assert json.loads(run.stdout) == json.loads(before[key].stdout)
    assert (_generation(store) / name).stat().st_size < len(DEEP)  # made again by the first command that read it


@pytest.mark.parametrize("name", ["kg-words.sqlite", "database", "kg-words.json", MARKER])
def test_a_fifo_in_a_kept_file_s_place_does_not_hang_search(template, store, name):
    folder = _generation(store)
    if name == "database":  # the words index's database itself
        name = next(p.name for p in folder.glob("kg-words.*.sqlite"))
    (folder / name).unlink(missing_ok=True)
    os.mkfifo(folder / name)
    run = kg("query", "search", "-p", "text=memory", "-p", "limit=1000", "--store", str(store), "-f", "json",
             timeout=60)
    assert run.returncode == 0, run.stderr
    want = [rid for _, rid, _ in searching.ranked("memory", template["records"])]
    assert want and [row["id"] for row in json.loads(run.stdout)] == want
    if name != "kg-words.sqlite":  # the name kg used before: never opened, nothing to say
        _said_once(run, name)
    if name in (MARKER, "kg-words.json"):
        assert (folder / name).is_file()  # made again in its place
