"""Answers kept per store generation (kg.runtime.answer_cache) in a running ``kg serve``.

The issue's Done-when: a new ingest is seen within 2 s by every worker (here: by every
request begun once the ingest exited, and by each worker asked on its own; idle workers
moving on their own are tests/test_serve_reload.py's), no answer from an old generation is
given after it, and the byte bound of the answers kept holds. Also: the
same request again is answered from memory (no worker asked), a function whose value
changes at each evaluation is evaluated each time, and the cache on its own keeps its
bound, its order and its generation rules. Expected names and counts come from the
catalog JSON files.
"""

from __future__ import annotations

import copy
import gc
import json
import random
import threading
import time
import urllib.parse
from pathlib import Path

import pytest

from kg.ingestion import ingest_paths
from kg.runtime.answer_cache import AnswerCache, Generations, answer_size, request_key
from kg.serve import make_server
from kg.store import GraphStore
from kg.store._generations import current
from serving import http
from helpers import kg

ROOT = Path(__file__).resolve().parent.parent
MARK = " ~renamed"
NAMES = """PREFIX schema: <https://schema.org/>
PREFIX kg: <https://w3id.org/agent-landscape/ontology#>
SELECT ?name WHERE { ?s a kg:System ; schema:name ?name } ORDER BY ?name"""


# ---------------------------------------------------------------------------
# The cache on its own


def reply(size: int, status: int = 200) -> dict:
    return {"status": status, "type": "application/json", "body": b"x" * size, "headers": {"Vary": "Accept"}}


def test_the_byte_bound_holds_whatever_is_put():
    cache = AnswerCache(max_bytes=20_000)
    rng = random.Random(41)
    for i in range(2000):
        cache.put(1, f"key {rng.randrange(300)}", reply(rng.randrange(0, 3000)))
        assert cache.bytes <= cache.max_bytes
    kept = sum(answer_size(key, entry) for key, (entry, _) in cache._entries.items())
    assert kept == cache.bytes <= 20_000
    assert 0 < len(cache) < 300


def test_the_least_recently_used_goes_first():
    one = answer_size("a", reply(1000))
    cache = AnswerCache(max_bytes=8 * one)  # room for 8
    for key in "abcdefgh":
        assert cache.put(7, key, reply(1000))
    assert cache.get(7, "a") is not None  # a is now the most recent
    cache.put(7, "i", reply(1000))
    assert cache.get(7, "b") is None and cache.get(7, "a") is not None and len(cache) == 8


def test_an_answer_over_an_eighth_of_the_bound_is_not_kept():
    cache = AnswerCache(max_bytes=8_000)
    assert not cache.put(1, "big", reply(1_000))
    assert cache.put(1, "small", reply(500))


def test_only_200_answers_are_kept():
    cache = AnswerCache()
    assert not cache.put(1, "k", reply(10, status=422))
    assert cache.get(1, "k") is None


def test_answers_of_one_generation_only_are_held_and_given():
    cache = AnswerCache()
    cache.put(3, "k", reply(10))
    assert cache.get(3, "k") is not None
    assert cache.get(4, "k") is None  # asked under the newer generation: not the old answer
    cache.put(4, "other", reply(10))
    assert cache.get(3, "k") is None and len(cache) == 1  # the old generation's answers are gone
    cache.put(2, "set back", reply(10))  # the store set back to an earlier generation
    assert cache.get(4, "other") is None and cache.get(2, "set back") is not None and len(cache) == 1
    rng = random.Random(7)
    filed: dict[tuple[int, str], bytes] = {}
    for i in range(500):  # whatever the order of puts and gets: an answer only under its own generation
        generation, key = rng.randrange(3), f"k{rng.randrange(5)}"
        body = f"{generation} {i}".encode()
        if rng.random() < 0.5:
            cache.put(generation, key, {**reply(0), "body": body})
            filed[(generation, key)] = body
        else:
            given = cache.get(generation, key)
            assert given is None or given["body"] == filed[(generation, key)]


def test_an_answer_given_is_a_copy():
    cache = AnswerCache()
    cache.put(1, "k", reply(10))
    given = cache.get(1, "k")
    assert given is not None
    given["headers"]["ETag"] = "changed"
    given["status"] = 304
    again = cache.get(1, "k")
    assert again is not None and again["status"] == 200 and "ETag" not in again["headers"]


def test_the_key_is_the_whole_request_in_any_order():
    one = {"op": "query", "query": "ASK {}", "solutions": "json", "named": None, "max_rows": 5}
    assert request_key(one) == request_key(dict(reversed(list(one.items()))))
    assert request_key(one) != request_key({**one, "solutions": "csv"})
    assert request_key(one) != request_key({**one, "query": "ASK { }"})
    assert request_key({**one, "object": object()}) is None


def test_generations_follow_the_pointer(tmp_path, tiny_paths):
    store = GraphStore(tmp_path / "kg-store")
    ingest_paths(store, tiny_paths[:1])
    store.flush()
    generations = Generations(tmp_path / "kg-store")
    first = generations.current()
    assert first == current(tmp_path / "kg-store")
    ingest_paths(store, tiny_paths)
    store.flush()
    assert generations.current() == current(tmp_path / "kg-store") != first
    del store
    assert Generations(tmp_path / "nowhere").current() is None


# ---------------------------------------------------------------------------
# In a running server


@pytest.fixture(scope="module")
def catalogs(tmp_path_factory, tiny_paths) -> dict:
    """The tiny catalog's paths, the same records renamed, and both sets of names."""
    folder = tmp_path_factory.mktemp("renamed")
    site, seed, _ = (json.loads(Path(p).read_text(encoding="utf-8")) for p in tiny_paths)
    renamed_site = copy.deepcopy(site)
    for record in renamed_site["records"]:
        record["name"] += MARK
    renamed = [folder / "landscape-site.json", folder / "seed-record.json"]
    renamed[0].write_text(json.dumps(renamed_site, ensure_ascii=False), encoding="utf-8")
    renamed[1].write_text(json.dumps({**seed, "name": seed["name"] + MARK}, ensure_ascii=False), encoding="utf-8")
    old = sorted(({r["id"]: r["name"] for r in site["records"]} | {seed["id"]: seed["name"]}).values())
    return {"old_paths": tiny_paths, "new_paths": [str(p) for p in renamed], "old": old,
            "new": sorted(name + MARK for name in old)}


@pytest.fixture
def served(tmp_path, catalogs):
    """``kg serve`` (in this process, 2 workers) over a fresh store of the tiny catalog."""
    store = GraphStore(tmp_path / "kg-store")
    assert not ingest_paths(store, catalogs["old_paths"]).quarantined
    del store
    gc.collect()
    server = make_server(tmp_path / "kg-store", port=0, workers=2).start()
    try:
        yield server
    finally:
        server.stop()


def names(server, text: str = NAMES) -> list[str]:
    status, _, body = http("GET", server.url + "/sparql?" + urllib.parse.urlencode({"query": text}),
                           Accept="application/sparql-results+json")
    assert status == 200, body[:300]
    return [row["name"]["value"] for row in json.loads(body)["results"]["bindings"]]


def test_the_same_request_again_is_answered_from_memory(served, catalogs):
    answers = served.pool.answers
    assert names(served) == catalogs["old"]
    hits = answers.hits
    for _ in range(5):
        assert names(served) == catalogs["old"]
    assert answers.hits == hits + 5
    # another representation of the same query is another answer
    status, headers, body = http("GET", served.url + "/sparql?" + urllib.parse.urlencode({"query": NAMES}),
                                 Accept="text/csv")
    assert status == 200 and headers["content-type"].startswith("text/csv")
    assert body.decode("utf-8").splitlines()[1:] == catalogs["old"]


def test_functions_that_change_at_each_evaluation_are_evaluated_each_time(served):
    text = "SELECT (STRUUID() AS ?id) WHERE {}"
    seen = set()
    for _ in range(3):
        status, _, body = http("GET", served.url + "/sparql?" + urllib.parse.urlencode({"query": text}),
                               Accept="application/sparql-results+json")
        assert status == 200
        seen.add(json.loads(body)["results"]["bindings"][0]["id"]["value"])
    assert len(seen) == 3


def every_worker_names(server) -> list[tuple[int | None, list[str]]]:
    """Each worker's own answer to NAMES (never a kept one): the generation it read, the names."""
    msg = {"op": "query", "query": NAMES, "default": None, "named": None, "solutions": "json", "graph": None,
           "max_rows": 1000, "max_bytes": 1 << 20}
    pool, deadline, taken = server.pool, time.monotonic() + 30, []
    try:  # every worker taken from the idle ones, then asked in turn: none answers twice
        while len(taken) < pool.size:
            taken.append(pool._idle.take(deadline))
        answers = [proc.call(msg, deadline) for proc in taken]
    finally:
        for proc in taken:
            pool._idle.put(proc)
    return [(a.get("generation"), [row["name"]["value"] for row in json.loads(a["body"])["results"]["bindings"]])
            for a in answers]


def test_a_new_ingest_is_seen_at_once_and_no_old_answer_after_it(served, catalogs, tmp_path):
    cold = [f"# asked {i}\n{NAMES}" for i in range(16)]
    for text in [NAMES, *cold[:4]]:
        assert names(served, text) == catalogs["old"]  # kept in memory, generation 1
    before = current(tmp_path / "kg-store")
    done = kg("ingest", "--store", str(tmp_path / "kg-store"), *catalogs["new_paths"], env={"PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-500:]
    after = current(tmp_path / "kg-store")
    assert after != before
    # requests begun after the ingest exited, at once and from 8 clients together: the new names only,
    # for the texts answered from memory before and for new ones (which workers answer)
    seen: list[list[str]] = []
    errors: list[BaseException] = []

    def client(texts: list[str]) -> None:
        try:
            for text in texts:
                seen.append(names(served, text))
        except BaseException as err:  # noqa: BLE001 - reported below
            errors.append(err)

    threads = [threading.Thread(target=client, args=([NAMES, cold[i], NAMES, cold[i + 8]],)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and len(seen) == 32
    assert all(answer == catalogs["new"] for answer in seen), "an answer of the old generation after the ingest"
    # every worker reads the new generation within the bound (each asked itself, nothing from memory)
    assert every_worker_names(served) == [(after, catalogs["new"])] * 2
    assert served.pool.answers.generation == after


def test_the_byte_bound_holds_in_a_running_server(served, catalogs):
    answers = served.pool.answers
    texts = [f"# variant {i:02d}\n{NAMES}" for i in range(60)]  # answers of one size
    answers.clear()
    assert names(served, texts[0]) == catalogs["old"] and len(answers) == 1
    answers.max_bytes = 12 * answers.bytes  # room for 12 of them
    for text in texts[1:]:
        assert names(served, text) == catalogs["old"]
        assert answers.bytes <= answers.max_bytes
    bodies = sum(len(entry["body"]) for entry, _ in answers._entries.values())
    assert bodies <= answers.bytes <= answers.max_bytes
    assert len(answers) == 12  # the oldest were let go
    hits = answers.hits
    assert names(served, texts[-1]) == catalogs["old"] and answers.hits == hits + 1  # the newest are kept
    misses = answers.misses
    assert names(served, texts[0]) == catalogs["old"] and answers.misses == misses + 1  # the oldest went
