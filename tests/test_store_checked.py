"""The damage check runs once per generation (kg.store._checked): a generation sealed by a write is
marked whole and never probed; one without a valid marker is probed at its first read-only open and
marked; a data file changed, truncated, added or removed after sealing is probed again, and damage
found that way is one StoreError, never a query that grows until memory runs out."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from pyoxigraph import Literal, NamedNode, Quad

from kg.errors import StoreError
from kg.store import GraphStore, KeptFileIgnored, _checked, _generations as generations, _handle, kept

EX = "https://example.org/"


@pytest.fixture
def probes(monkeypatch) -> list[Path]:
    """The folders the probe reads, in order (the real probe still runs)."""
    seen: list[Path] = []
    real = _handle.probe

    def counted(store, folder):
        seen.append(Path(folder))
        return real(store, folder)

    monkeypatch.setattr(_handle, "probe", counted)
    return seen


def write(path: Path, count: int, graph: str = "g") -> GraphStore:
    """A write session that adds ``count`` quads to one graph (enough quads: several data files)."""
    store = GraphStore(path)
    g = NamedNode(EX + graph)
    store.add_bulk(Quad(NamedNode(f"{EX}s/{i}"), NamedNode(EX + "p"), Literal(f"value {i}"), g)
                   for i in range(count))
    return store


def current_folder(path: Path) -> Path:
    return generations.generation_dir(path, generations.current(path))


def reads(path: Path) -> int:
    """The quads a read-only open of the store reads."""
    return len(GraphStore.open_existing(path, read_only=True))


def test_a_sealed_generation_is_marked_with_its_data_files_and_never_probed(tmp_path, probes):
    path = tmp_path / "store"
    write(path, 5000)
    folder = current_folder(path)
    marker = json.loads((folder / _checked.MARKER.name).read_text(encoding="utf-8"))
    assert marker["content"] == {"checked": "sealed"}
    tables = sorted(p.name for p in folder.glob("*.sst"))
    assert tables != [] and set(tables) <= set(marker["files"]) and "CURRENT" in marker["files"]
    assert reads(path) == 5000 and reads(path) == 5000
    assert probes == []


def test_a_generation_without_a_marker_is_probed_once_then_remembered(tmp_path, probes):
    path = tmp_path / "store"
    write(path, 3000)
    folder = current_folder(path)
    (folder / _checked.MARKER.name).unlink()  # a store made before markers, or copied without it
    assert reads(path) == 3000
    assert probes == [folder]
    assert json.loads((folder / _checked.MARKER.name).read_text(encoding="utf-8"))["content"]["checked"] == "probed"
    assert reads(path) == 3000 and reads(path) == 3000
    assert probes == [folder]


def test_a_copied_store_is_probed_once(tmp_path, probes):
    import shutil

    path = tmp_path / "store"
    write(path, 2000)
    copy = tmp_path / "copy"
    shutil.copytree(path, copy)  # new files, new inodes: the marker no longer matches
    assert reads(copy) == 2000 and reads(copy) == 2000
    assert probes == [current_folder(copy)]


def test_each_new_generation_is_marked_by_its_writer(tmp_path, probes):
    path = tmp_path / "store"
    store = write(path, 2000)
    first = current_folder(path)
    store.add_bulk([Quad(NamedNode(EX + "s"), NamedNode(EX + "p"), Literal("more"), NamedNode(EX + "h"))] * 3000)
    second = current_folder(path)
    assert second != first
    files = json.loads((second / _checked.MARKER.name).read_text(encoding="utf-8"))["files"]
    assert files == kept.data_files(second)
    assert reads(path) == 2001
    assert probes == []


@pytest.mark.parametrize("damage", ["garble", "truncate", "remove", "add"])
def test_a_data_file_changed_after_sealing_is_probed_again(tmp_path, probes, damage):
    path = tmp_path / "store"
    write(path, 30000)
    folder = current_folder(path)
    largest = max(folder.glob("*.sst"), key=lambda p: p.stat().st_size)
    if damage == "garble":  # data blocks of every big file (the probe reads one index of six)
        for sst in folder.glob("*.sst"):
            if sst.stat().st_size > 65536:
                with open(sst, "r+b") as handle:
                    handle.seek(sst.stat().st_size // 3)
                    handle.write(os.urandom(4096))
    elif damage == "truncate":
        os.truncate(largest, largest.stat().st_size // 2)
    elif damage == "remove":
        largest.unlink()
    else:
        (folder / "999999.sst").write_bytes(b"")
    assert _checked.needs_probe(folder)
    if damage == "add":  # a stray file RocksDB does not use: the probe finds the store whole
        assert reads(path) == 30000 and probes == [folder]
        return
    with pytest.raises(StoreError):  # at the open (a file RocksDB must have) or at the probe
        reads(path)
    assert probes in ([], [folder])
    assert _checked.needs_probe(folder)  # damage found is never remembered as whole


def test_a_marker_that_is_not_ours_or_unreadable_means_a_probe(tmp_path, probes):
    path = tmp_path / "store"
    write(path, 100)
    folder = current_folder(path)
    for text in ("not json", "[1, 2]", '{"files": {}}', "[" * 100_000):
        (folder / _checked.MARKER.name).write_text(text, encoding="utf-8")
        with pytest.warns(KeptFileIgnored):
            assert _checked.needs_probe(folder)
    with pytest.warns(KeptFileIgnored, match="nested more than 32 deep"):
        assert reads(path) == 100 and len(probes) == 1
    assert not _checked.needs_probe(folder)


def test_a_checkpoint_does_not_carry_the_marker(tmp_path):
    path = tmp_path / "store"
    store = write(path, 100)
    store.backup(tmp_path / "snapshot")
    assert not (tmp_path / "snapshot" / _checked.MARKER.name).exists()
