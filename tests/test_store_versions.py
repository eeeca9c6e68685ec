"""One version at a time (kg.store, kg.store._generations): readers see the whole old version or the whole
new one; killed, failing or disk-full writers leave the previous version intact, quad for quad, and
nothing behind once the next writer cleaned up; reading never creates or changes a store."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from pyoxigraph import Literal, NamedNode, Quad

from kg.store import _generations as generations
from kg.errors import StoreError
from kg.store import GraphStore
from helpers import kg, kg_command, one_line_error

ROOT = Path(__file__).resolve().parent.parent
GRAPHS = 20
PER_GRAPH = {"v1": 50, "v2": 60}  # every graph differs, and so does the total
TOTAL = {v: GRAPHS * n for v, n in PER_GRAPH.items()}
COUNT = "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }"

# Shared by this process and the writer processes it starts: graph i of version v.
VERSIONS = textwrap.dedent("""
    from pyoxigraph import Literal, NamedNode, Quad
    PER_GRAPH = {"v1": 50, "v2": 60}

    def graph(i, version):
        g = NamedNode(f"https://example.org/graph/{i}")
        return g, [Quad(NamedNode(f"https://example.org/s/{i}/{j}"), NamedNode("https://example.org/p"),
                        Literal(f"{version} {j}"), g) for j in range(PER_GRAPH[version])]
""")
namespace: dict = {}
exec(VERSIONS, namespace)
graph = namespace["graph"]

# A writer process: replaces every graph with version 2 in one session, one graph per batch.
WRITER = VERSIONS + textwrap.dedent("""
    import sys, time
    from kg.store import GraphStore
    store = GraphStore(sys.argv[1])
    pause = float(sys.argv[2])
    print("begin", time.time(), flush=True)
    with store.transaction():
        for i in range(20):
            store.replace_graphs(dict([graph(i, "v2")]))
            time.sleep(pause)
        print("written", time.time(), flush=True)  # the switch comes next, as the session ends
    print("committed", time.time(), flush=True)
""")


def make_store(path: Path, version: str = "v1") -> GraphStore:
    store = GraphStore(path)
    with store.transaction():
        for i in range(GRAPHS):
            store.replace_graphs(dict([graph(i, version)]))
    return store


def dump(path: Path) -> list[str]:
    """The sorted N-Quads of the store's current version (read-only)."""
    store = GraphStore.open_existing(path, read_only=True)
    lines = sorted(str(q) for q in store.quads())
    del store
    return lines


def listing(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


def layout_only(path: Path) -> bool:
    """Only the current generation, its lock, the pointer and the writer lock are left."""
    number = GraphStore.latest_generation(path)
    return sorted(os.listdir(path)) == sorted([generations.POINTER, generations.WRITER_LOCK,
                                                f"gen-{number:08d}", f"gen-{number:08d}.lock"])


def clean_up(path: Path) -> None:
    """What every writer does first."""
    store = GraphStore(path)
    with store.transaction():
        pass
    del store


# -- readers never see a mix -------------------------------------------------------


READER = textwrap.dedent("""
    import os, sys, time
    from kg.store import GraphStore
    path, stop = sys.argv[1], sys.argv[2]
    query = "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }"
    held = GraphStore.open_existing(path, read_only=True)  # long-lived, as a kg serve worker
    end = time.time() + 120
    while time.time() < end and not os.path.exists(stop):  # until the test has seen enough
        fresh = GraphStore.open_existing(path, read_only=True)  # as a kg query
        once = fresh.count(query)
        del fresh
        held.reopen()  # a new version when one became current
        print(time.time(), once, held.count(query), flush=True)
        time.sleep(0.02)
""")


def test_a_reader_never_sees_a_mix_and_sees_the_new_version_within_2_s(tmp_path):
    path = tmp_path / "store"
    make_store(path)
    stop = tmp_path / "stop"
    reader = subprocess.Popen([sys.executable, "-c", READER, str(path), str(stop)], cwd=ROOT,
                              stdout=subprocess.PIPE, text=True)
    first = reader.stdout.readline()  # the reader runs before the writer starts
    writer = subprocess.run([sys.executable, "-c", WRITER, str(path), "0.1"], cwd=ROOT, capture_output=True,
                            text=True, timeout=120)
    assert writer.returncode == 0, writer.stderr
    began, written, committed = (float(line.split()[1]) for line in writer.stdout.splitlines())
    time.sleep(max(0.0, committed + 4 - time.time()))  # the reader reads on until 4 s after the switch
    stop.touch()
    rest, _ = reader.communicate(timeout=120)
    assert reader.returncode == 0
    polls = [(float(t), int(a), int(b)) for t, a, b in (line.split() for line in [first] + rest.splitlines())]
    assert {a for _, a, _ in polls} | {b for _, _, b in polls} == {TOTAL["v1"], TOTAL["v2"]}
    during = [p for p in polls if began < p[0] < written]
    assert len(during) >= 5 and all(a == b == TOTAL["v1"] for _, a, b in during), during  # old while writing
    # every answer 2 s after the switch is the new version, for the fresh and the long-lived reader
    late = [p for p in polls if p[0] > committed + 2]
    assert late and all(a == b == TOTAL["v2"] for _, a, b in late)
    assert dump(path) == sorted(str(q) for i in range(GRAPHS) for q in graph(i, "v2")[1])
    clean_up(path)  # the old version, held by the reader until it reopened, goes with the next write
    assert layout_only(path)


def test_a_held_version_stays_whole_and_is_removed_once_released(tmp_path):
    path = tmp_path / "store"
    writer = make_store(path)
    old = dump(path)
    reader = GraphStore.open_existing(path, read_only=True)
    held = reader.generation
    writer.replace_graphs(dict([graph(0, "v2")]))
    writer.replace_graphs(dict([graph(1, "v2")]))
    assert reader.is_stale() and not writer.is_stale()
    assert sorted(str(q) for q in reader.quads()) == old  # its version, whole
    assert reader.version_folder == generations.generation_dir(path, held)
    assert dump(reader.version_folder) == old  # what worker processes open
    assert generations.generation_dir(path, held).is_dir()  # not removed under a reader
    del reader
    writer.replace_graphs(dict([graph(2, "v2")]))
    assert not generations.generation_dir(path, held).exists() and layout_only(path)


def test_a_session_that_raises_changes_nothing(tmp_path):
    path = tmp_path / "store"
    store = make_store(path)
    before, files, number = dump(path), listing(path), store.generation
    with pytest.raises(ValueError):
        with store.transaction():
            store.replace_graphs(dict([graph(0, "v2")]))
            assert len(store) == TOTAL["v1"] + 10  # the session reads its own writes
            raise ValueError("a failure part-way")
    assert dump(path) == before and listing(path) == files and store.generation == number
    assert len(store) == TOTAL["v1"]
    with store.transaction():  # a session that writes nothing keeps the version
        pass
    assert store.generation == number


def test_a_failed_switch_changes_nothing(tmp_path, monkeypatch):
    path = tmp_path / "store"
    store = make_store(path)
    before, files = dump(path), listing(path)

    def full(folder, number):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(generations, "write_pointer", full)
    with pytest.raises(StoreError, match="No space left"):
        store.replace_graphs(dict([graph(0, "v2")]))
    assert dump(path) == before and listing(path) == files


# -- killed writers ------------------------------------------------------------------


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_a_writer_killed_at_random_points_leaves_the_old_version(tmp_path):
    base = tmp_path / "base"
    make_store(base)
    old = dump(base)
    new = sorted(str(q) for i in range(GRAPHS) for q in graph(i, "v2")[1])
    rng = random.Random(3)
    seen = set()
    for _ in range(5):
        work = tmp_path / "work"
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(base, work)
        writer = subprocess.Popen([sys.executable, "-c", WRITER, str(work), "0.05"], cwd=ROOT,
                                  stdout=subprocess.PIPE, text=True)
        assert writer.stdout.readline().startswith("begin")
        time.sleep(rng.uniform(0.0, 1.0))  # inside the session's 20 batches (>= 1 s)
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait()
        found = dump(work)
        assert found in (old, new)
        seen.add("old" if found == old else "new")
        clean_up(work)
        assert dump(work) == found and layout_only(work)
    assert "old" in seen


KILLED_AT = VERSIONS + textwrap.dedent("""
    import os, signal, sys
    from kg.store import _generations as generations
    from kg.store import GraphStore
    path, where = sys.argv[1], sys.argv[2]
    switch, clean = generations.write_pointer, generations.clean

    def die():
        os.kill(os.getpid(), signal.SIGKILL)

    def write_pointer(folder, number):
        if where == "before-switch":
            die()
        switch(folder, number)
        if where == "after-switch":
            die()

    def cleaning(folder, keep):
        if where == "cleaning" and keep == GraphStore.latest_generation(folder) and cleaning.calls:
            die()
        cleaning.calls += 1
        return clean(folder, keep)

    cleaning.calls = 0
    generations.write_pointer, generations.clean = write_pointer, cleaning
    store = GraphStore(path)
    store.replace_graphs(dict([graph(0, "v2")]))
""")


@pytest.mark.parametrize("where, version", [("before-switch", "old"), ("after-switch", "new"),
                                            ("cleaning", "new")])
def test_a_writer_killed_around_the_switch(tmp_path, where, version):
    path = tmp_path / "store"
    make_store(path)
    reader = GraphStore.open_existing(path, read_only=True)  # an old generation still held
    old = dump(path)
    done = subprocess.run([sys.executable, "-c", KILLED_AT, str(path), where], cwd=ROOT, capture_output=True)
    assert done.returncode == -signal.SIGKILL
    new = sorted(set(old) - {str(q) for q in graph(0, "v1")[1]} | {str(q) for q in graph(0, "v2")[1]})
    assert dump(path) == (old if version == "old" else new)
    del reader
    clean_up(path)
    assert layout_only(path)


# -- disk full, read-only media --------------------------------------------------------


def _mount(*args: str) -> None:
    done = subprocess.run(["mount", *args], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount here ({done.stderr.strip() or done.returncode}): needs root")


@pytest.fixture
def small_disk(tmp_path):
    """An 8 MB tmpfs."""
    if sys.platform != "linux" or shutil.which("mount") is None:
        pytest.skip("tmpfs needs Linux and mount")
    folder = tmp_path / "small"
    folder.mkdir()
    _mount("-t", "tmpfs", "-o", "size=8m", "tmpfs", str(folder))
    yield folder
    subprocess.run(["umount", "-l", str(folder)], check=False)


def test_disk_full_leaves_the_old_version_and_no_files(small_disk):
    path = small_disk / "store"
    make_store(path)
    before, files = dump(path), listing(path)
    used = shutil.disk_usage(small_disk).used
    # the bundled catalog needs far more than 8 MB
    done = kg("ingest", *[str(ROOT / "data" / name) for name in ("landscape-site.json", "landscape.edges.json")],
              "--store", str(path), timeout=300)
    line = one_line_error(done, 4)
    assert "space" in line.lower(), line
    assert dump(path) == before and listing(path) == files
    assert shutil.disk_usage(small_disk).used <= used + 64 * 1024
    clean_up(path)
    assert dump(path) == before and layout_only(path)


@pytest.fixture
def read_only_copy(tmp_path):
    """A store, and the same folder bound read-only elsewhere."""
    if sys.platform != "linux" or shutil.which("mount") is None:
        pytest.skip("a read-only bind mount needs Linux and mount")
    source = tmp_path / "store"
    make_store(source)
    target = tmp_path / "read-only"
    target.mkdir()
    _mount("--bind", str(source), str(target))
    done = subprocess.run(["mount", "-o", "remount,ro,bind", str(target)], capture_output=True)
    if done.returncode != 0:
        subprocess.run(["umount", str(target)], check=False)
        pytest.skip("cannot remount read-only here")
    yield source, target
    subprocess.run(["umount", "-l", str(target)], check=False)


def test_read_only_media_read_and_refuse_writes(read_only_copy):
    source, target = read_only_copy
    before, files = dump(source), listing(source)
    assert dump(target) == before
    assert kg("info", "--store", str(target)).returncode == 0
    done = kg("export", "--format", "nquads", "--store", str(target))
    assert done.returncode == 0, done.stderr
    exported = sorted(line.removesuffix(" .") for line in done.stdout.splitlines() if line and line[0] != "#")
    assert exported == before
    query = kg("query", "--text", COUNT, "--store", str(target))
    assert query.returncode == 0 and str(TOTAL["v1"]) in query.stdout, query.stderr
    line = one_line_error(kg("ingest", str(ROOT / "data" / "seed-record.json"), "--store", str(target)), 4)
    assert "read-only" in line.lower(), line
    assert dump(source) == before and listing(source) == files


# -- corrupt, missing and foreign stores -----------------------------------------------


def _largest_sst(path: Path) -> Path:
    folder = generations.generation_dir(path, GraphStore.latest_generation(path))
    return max(folder.glob("*.sst"), key=lambda p: p.stat().st_size)


# The command runs under a small Python that reports its children's peak RSS: measured on a
# child of the (large) test process itself, the peak would include the pages the child shares
# with it between fork and exec.
_MEASURE = ("import resource, subprocess, sys; done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, done.returncode)")


def _peak_rss_mb(command: list[str]) -> tuple[int, str, int]:
    done = subprocess.run([sys.executable, "-c", _MEASURE, *command], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    peak_kb, code = done.stdout.split()
    return int(code), done.stderr, int(peak_kb) // 1024


@pytest.mark.parametrize("damage", ["truncate", "garble", "garble-data", "pointer"])
def test_a_corrupt_store_is_one_line_exit_4_in_bounded_memory(tmp_path, damage):
    path = tmp_path / "store"
    store = make_store(path)
    if damage == "garble-data":  # big files, damaged in data blocks only: RocksDB opens them (a query
        # counting over them grew without bound before the open read a whole index)
        store.add(Quad(NamedNode(f"https://example.org/s/{i}"), NamedNode("https://example.org/p"),
                       Literal(f"value {i}"), NamedNode("https://example.org/big")) for i in range(30000))
    del store
    if damage == "truncate":
        sst = _largest_sst(path)
        os.truncate(sst, sst.stat().st_size // 2)
    elif damage == "garble":  # every file of data: whatever a command reads is damaged
        for sst in _largest_sst(path).parent.glob("*.sst"):
            with open(sst, "r+b") as handle:
                handle.seek(sst.stat().st_size // 3)
                handle.write(os.urandom(min(4096, sst.stat().st_size // 3)))
    elif damage == "garble-data":
        for sst in _largest_sst(path).parent.glob("*.sst"):
            if sst.stat().st_size > 65536:
                with open(sst, "r+b") as handle:
                    handle.seek(sst.stat().st_size // 3)
                    handle.write(os.urandom(4096))
    else:
        (path / generations.POINTER).write_text("\x00garbage", encoding="latin-1")
    files = listing(path)
    for command in (["export", "--format", "nquads"], ["query", "--text", COUNT]):
        code, stderr, rss = _peak_rss_mb(kg_command(*command, "--store", str(path)))
        assert code == 4, (command, stderr)
        lines = stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("kg: error: "), stderr
        assert rss < 500, f"{command}: {rss} MB"
    with pytest.raises(StoreError):
        found = GraphStore.open_existing(path, read_only=True)
        sorted(str(q) for q in found.quads())
    assert listing(path) == files


def test_missing_and_foreign_folders_are_refused_and_left_alone(tmp_path):
    missing = tmp_path / "missing"
    for command in (["info"], ["export", "--format", "nquads"], ["query", "--text", COUNT]):
        one_line_error(kg(*command, "--store", str(missing)), 4)
    assert not missing.exists()
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine", encoding="utf-8")
    line = one_line_error(kg("info", "--store", str(foreign)), 4)
    assert "not a kg store" in line
    one_line_error(kg("ingest", str(ROOT / "data" / "seed-record.json"), "--store", str(foreign)), 4)
    with pytest.raises(StoreError, match="not a kg store"):
        GraphStore(foreign)
    assert listing(foreign) == ["notes.txt"]
    with pytest.raises(StoreError, match="no store"):
        GraphStore(missing, read_only=True)
    assert not missing.exists()


def test_a_plain_store_from_before_generations_is_read_as_is_and_migrated_on_first_write(tmp_path):
    plain = tmp_path / "plain"
    make_store(tmp_path / "store").backup(plain)  # a checkpoint is a plain RocksDB folder
    before, files = dump(plain), listing(plain)
    assert GraphStore.latest_generation(plain) == 0 and len(before) == TOTAL["v1"]
    assert kg("info", "--store", str(plain)).returncode == 0
    assert dump(plain) == before and listing(plain) == files  # reading changed nothing
    store = GraphStore(plain)
    store.add([Quad(NamedNode("https://example.org/x"), NamedNode("https://example.org/p"), Literal("new"),
                    NamedNode("https://example.org/graph/new"))])
    assert store.generation == 2 and layout_only(plain)
    assert len(dump(plain)) == TOTAL["v1"] + 1 and set(before) <= set(dump(plain))


def test_bare_writes_outside_a_session_each_make_a_version(tmp_path):
    path = tmp_path / "store"
    store = GraphStore(path)
    assert store.generation == 1 and len(store) == 0
    store.add(graph(0, "v1")[1])
    store.update("DELETE WHERE { GRAPH ?g { ?s ?p \"v1 0\" } }")
    store.add_bulk(graph(1, "v1")[1])
    store.remove_graphs([graph(1, "v1")[0]])
    assert store.generation == 5 and len(store) == PER_GRAPH["v1"] - 1 and layout_only(path)
    reader = GraphStore(path, read_only=True)
    with pytest.raises(StoreError, match="read-only"):
        reader.add(graph(2, "v1")[1])
    assert GraphStore.latest_generation(path) == 5
