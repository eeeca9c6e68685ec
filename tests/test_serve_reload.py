"""A running ``kg serve`` and ``kg mcp`` see a new ingest, as real processes: whole, and soon.

The store holds the tiny catalog; a second ``kg ingest`` (its own process) gives every
record a new name ending in a marker. While it runs, a client polls a query that counts
the systems and the systems whose name carries the marker: every answer must be the
whole old version (n, 0) or the whole new one (n, n), never a mix, and every request
that starts after the ingest process exited must get the new one (the issue's bound is
2 s). Idle workers must then let go of the old version, so that a later writer can
remove it. Expected counts come from the JSON files. A last test shows, in one process,
that a worker's check between requests is one stat, and what a pinned version holds.
"""

from __future__ import annotations

import copy
import csv
import fcntl
import gc
import io
import json
import os
import re
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from functools import partial
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from pyoxigraph import Literal, Quad, RdfFormat, parse

from kg.store._generations import clean, current, lock_writer
from kg.ingestion import ingest_paths
from kg.store import GraphStore
from kg.vocab import KG, RDF, SCHEMA, Iris
from helpers import kg_command

ROOT = Path(__file__).resolve().parent.parent
MARK = " ~v2"
COUNTS = """PREFIX kg: <https://w3id.org/agent-landscape/ontology#>
PREFIX schema: <https://schema.org/>
SELECT (COUNT(DISTINCT ?s) AS ?all) (COUNT(DISTINCT ?marked) AS ?new) WHERE {
  ?s a kg:System .
  OPTIONAL { ?s schema:name ?name FILTER(STRENDS(STR(?name), "%s")) BIND(?s AS ?marked) }
}""" % MARK
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
BOUND_S = 2.0  # the bound: new data within 2 s of the ingest process exiting


@pytest.fixture(scope="module")
def catalogs(tmp_path_factory, tiny_paths) -> dict[str, Any]:
    """The tiny catalog's paths, the same records renamed with MARK, the number of systems and their names."""
    folder = tmp_path_factory.mktemp("renamed")
    site, seed, _ = (json.loads(Path(p).read_text(encoding="utf-8")) for p in tiny_paths)
    renamed_site = copy.deepcopy(site)
    for record in renamed_site["records"]:
        record["name"] += MARK
    renamed_seed = {**seed, "name": seed["name"] + MARK}
    renamed = [folder / "landscape-site.json", folder / "seed-record.json"]
    renamed[0].write_text(json.dumps(renamed_site, ensure_ascii=False), encoding="utf-8")
    renamed[1].write_text(json.dumps(renamed_seed, ensure_ascii=False), encoding="utf-8")
    names = {r["id"]: r["name"] for r in site["records"]} | {seed["id"]: seed["name"]}
    return {"old": tiny_paths, "new": [str(p) for p in renamed], "systems": len(names),
            "names": set(names.values())}


def fresh_store(folder: Path, paths: list[str]) -> Path:
    store = GraphStore(folder / "kg-store")
    assert not ingest_paths(store, paths).quarantined
    del store  # closed: only the server reads it
    gc.collect()
    return folder / "kg-store"


def reader_holds(store: Path, number: int) -> bool:
    """Whether any process holds a reader lock on generation ``number``."""
    fd = os.open(store / f"gen-{number:08d}.lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def poll_during_ingest(ask: Callable[[], tuple[int, int]], store: Path, paths: list[str]) -> dict[str, Any]:
    """Answers of ``ask`` (started at, answer, finished at) polled before, during and just after a ``kg ingest`` of ``paths`` in its own process; and when that process exited."""
    answers = [(time.monotonic(), ask(), time.monotonic())]
    launched = time.monotonic()
    ingest = subprocess.Popen(kg_command("ingest", "--store", str(store), *paths), env=ENV,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    exited, after = None, 0
    while exited is None or after < 3:  # a few requests begun after it exited
        started = time.monotonic()
        answers.append((started, ask(), time.monotonic()))
        if exited is not None:
            after += 1
        elif ingest.poll() is not None:
            exited = time.monotonic()
    assert ingest.wait() == 0, ingest.stderr.read() if ingest.stderr else ""
    during = sum(1 for started, _, _ in answers if launched < started < exited)
    assert during >= 3, f"only {during} answers while the ingest ran: nothing shows whether they could mix"
    return {"answers": answers, "exited": exited}


def check_versions(run: dict[str, Any], systems: int, reader: str) -> None:
    """The answers of ``reader`` (a key of each answer) were whole, and new soon enough."""
    old, new = (systems, 0), (systems, systems)
    exited = run["exited"]
    answers = [(started, answer[reader], finished) for started, answer, finished in run["answers"]]
    seen = [answer for _, answer, _ in answers]
    assert set(seen) <= {old, new}, f"{reader}: an answer mixed the two versions"
    assert seen[0] == old
    after = [(answer, finished) for started, answer, finished in answers if started > exited]
    assert after and {answer for answer, _ in after} == {new}, \
        f"{reader}: a request begun after the ingest exited read the old version"
    assert after[0][1] <= exited + BOUND_S
    assert seen[seen.index(new):] == [new] * (len(seen) - seen.index(new)), \
        f"{reader}: an answer went back to the old version"


def wait_released(store: Path, number: int) -> None:
    """Wait until no reader holds generation ``number``; fail after 3 s, naming the holders."""
    began = time.monotonic()
    while reader_holds(store, number):
        if time.monotonic() - began > 3.0:
            inode = os.stat(store / f"gen-{number:08d}.lock").st_ino
            holders = {line.split()[4] for line in Path("/proc/locks").read_text().splitlines()
                       if f":{inode} " in line}
            raise AssertionError(f"generation {number} is still held by the processes {sorted(holders)}")
        time.sleep(0.05)


def reclaim(store: Path) -> list[int]:
    """What the next writer removes: the generations no reader holds (kg.store._generations.clean)."""
    writer = lock_writer(store)
    try:
        return clean(store, keep=current(store))
    finally:
        writer.release()


# ---------------------------------------------------------------------------
# kg serve and kg mcp, over one store, during one ingest


def csv_counts(url: str) -> tuple[int, int]:
    request = urllib.request.Request(url + "?" + urllib.parse.urlencode({"query": COUNTS}),
                                     headers={"Accept": "text/csv"})
    with urllib.request.urlopen(request, timeout=10) as response:
        rows = list(csv.DictReader(io.StringIO(response.read().decode("utf-8"))))
    return int(rows[0]["all"]), int(rows[0]["new"])


def index_names(endpoint: str) -> set[str]:
    """The names the index of systems lists (its facet table is cached per version)."""
    url = endpoint.replace("/sparql", "/id/system/?format=ntriples")
    with urllib.request.urlopen(url, timeout=10) as response:
        triples = parse(response.read(), format=RdfFormat.N_TRIPLES)
        return {t.object.value for t in triples if t.predicate == SCHEMA.name}


class McpSession:
    """A ``kg mcp`` process over stdio, driven by the MCP SDK's client; calls are plain functions."""

    def __init__(self, portal: Any, client: Any) -> None:
        self.portal, self.client = portal, client

    def tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = self.portal.call(partial(self.client.call_tool, name, arguments))
        assert not result.is_error, result.content[0].text
        return result.structured_content


@pytest.fixture
def readers(tmp_path, catalogs) -> Iterator[dict[str, Any]]:
    """A store of the tiny catalog, with ``kg serve`` (2 workers) and ``kg mcp`` (1 worker) running over it."""
    from anyio.from_thread import start_blocking_portal
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    store = fresh_store(tmp_path, catalogs["old"])
    server = subprocess.Popen(kg_command("serve", "--store", str(store), "--port", "0", "--workers", "2", "--quiet"),
                              env=ENV, stderr=subprocess.PIPE, text=True)
    params = StdioServerParameters(command=sys.executable, env=ENV,
                                   args=["-m", "kg", "mcp", "--store", str(store), "--workers", "1"])
    try:
        with start_blocking_portal() as portal:
            with portal.wrap_async_context_manager(Client(params, mode="legacy")) as client:
                assert server.stderr is not None
                match = re.search(r"SPARQL endpoint (http://127\.0\.0\.1:\d+/sparql)", server.stderr.readline())
                assert match
                yield {"store": store, "endpoint": match.group(1), "mcp": McpSession(portal, client)}
    finally:
        server.terminate()
        server.communicate(timeout=30)
    assert server.returncode == 0


def test_running_servers_answer_from_the_new_version_whole_and_within_2_s(readers, catalogs, tiny_paths):
    store, endpoint, mcp = readers["store"], readers["endpoint"], readers["mcp"]
    before = current(store)
    seed_id = json.loads(Path(tiny_paths[1]).read_text(encoding="utf-8"))["id"]

    def ask() -> dict[str, tuple[int, int]]:
        """kg serve's workers; kg mcp's worker (sparql) and its own process (describe-system)."""
        served = csv_counts(endpoint)
        row = mcp.tool("sparql", {"query": COUNTS})["rows"][0]
        counted = (int(row["all"]), int(row["new"]))
        renamed = mcp.tool("describe-system", {"id": seed_id})["record"]["name"].endswith(MARK)
        assert renamed or counted[1] == 0, "kg mcp: describe-system, asked after sparql, read an older version"
        return {"kg serve": served, "kg mcp": counted}

    assert index_names(endpoint) == catalogs["names"]
    run = poll_during_ingest(ask, store, catalogs["new"])
    check_versions(run, catalogs["systems"], "kg serve")
    check_versions(run, catalogs["systems"], "kg mcp")
    assert index_names(endpoint) == {name + MARK for name in catalogs["names"]}  # its facet table too
    assert mcp.tool("describe-system", {"id": seed_id})["record"]["name"].endswith(MARK)
    assert current(store) > before
    wait_released(store, before)  # every worker moved, idle ones too, letting go of the old version
    assert before in reclaim(store)  # so the next writer removes it


# ---------------------------------------------------------------------------
# The same, in one process: what a worker and a pinned handle do between requests


def test_a_worker_checks_with_one_stat_and_moves_releasing_the_old_version(tmp_path, catalogs, monkeypatch):
    from kg.store import _generations as generations
    from kg.serve.worker import Worker

    store = fresh_store(tmp_path, catalogs["old"])
    worker = Worker({"store": str(store), "base": "https://w3id.org/agent-landscape/id/"})
    before = worker.store.generation
    real_current = generations.current

    def no_read(folder: Path) -> int:
        raise AssertionError("the pointer was read although its stat had not changed")

    monkeypatch.setattr(generations, "current", no_read)
    assert worker.refresh() is False  # nothing new: a stat, no read, no reopen
    monkeypatch.setattr(generations, "current", real_current)

    writer = GraphStore(store)  # a new version: one more system, named with the marker
    iris, n = Iris(), catalogs["systems"]
    added, graph = iris.system("added--example-org"), iris.record_graph("added--example-org")
    writer.add([Quad(added, RDF.type, KG.System, graph), Quad(added, SCHEMA.name, Literal("Added" + MARK), graph)])
    del writer
    gc.collect()
    pinned = worker.store.pinned()  # a request in flight on the old version (as kg mcp pins one)
    assert worker.refresh() is True and worker.store.generation > before
    assert worker.handle({"op": "query", "query": COUNTS, "solutions": "csv", "graph": None,
                          "max_rows": 10, "max_bytes": 10_000})["body"].split() == [b"all,new", f"{n + 1},1".encode()]
    rows = pinned.select(COUNTS)  # the pinned handle still reads the old version, whole
    assert (int(rows[0]["all"].value), int(rows[0]["new"].value)) == (n, 0)
    assert reader_holds(store, before)
    del pinned, rows
    worker.store.is_stale()  # the next check lets go of what no pinned handle reads
    assert not reader_holds(store, before)
