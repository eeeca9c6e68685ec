"""Shared fixtures: the real bundled catalog, ingested once per test session, and a tiny
slice of it for per-feature tests.

The tiny catalog is real data too: the first edges of every edge type in the bundled
edges file, every record at either end of them, mem0 and the seed record's site
version, with the seed record itself as a second file (so the newer export shape and a
record given twice are in it). Tests whose point is the real data at full size use the
bundled store; tests of one feature (a format, an option) use the tiny one.
"""

from __future__ import annotations

import copy
import gc
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable, Iterator

import pytest
from hypothesis import Phase, settings

# --import-mode=importlib keeps tests/ off sys.path: the helper modules here (serving.py) are found through it
sys.path.insert(0, str(Path(__file__).resolve().parent))

from kg.ingestion import ingest_paths
from kg.sources import bundled_paths
from kg.store import GraphStore
from kg.vocab import Iris

from engine_servers import OxigraphServer  # tests/engine_servers.py: the real engines of the push tests
from engine_fixtures import jena_build, jena_loaded, oxigraph_loaded, virtuoso_loaded  # noqa: F401 (fixtures)
import searching  # tests/searching.py: the words matcher of search and find, written from its definition

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"

# In CI a failing property is reported as generated, not shrunk: shrinking a large
# catalog can take Hypothesis minutes (once it alone pushed CI past its time limit).
# Run the test locally to get the smallest failing example.
settings.register_profile("ci", phases=[phase for phase in Phase if phase is not Phase.shrink])
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture(scope="session")
def site_catalog() -> dict:
    return json.loads((DATA / "landscape-site.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def seed_record() -> dict:
    return json.loads((DATA / "seed-record.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def site_records(site_catalog) -> list[dict]:
    """The records of data/landscape-site.json (912, the seed record's site version among them)."""
    return site_catalog["records"]


@pytest.fixture(scope="session")
def clean(site_records) -> dict:
    """mem0 with an http(s) citation on every T2 cell: a record that breaks no rule."""
    record = copy.deepcopy(next(r for r in site_records if r["id"] == "mem0--mem0-ai"))
    for cell in record["cells"].values():
        if cell["tier"] == "T2":
            cell["citation"] = "https://mem0.ai/docs"
    return record


@pytest.fixture(scope="session")
def site_cells(site_records) -> Callable[[str], list[tuple[str, str]]]:
    """``site_cells(slug)``: the (value, status) of that cell in every site record."""
    return lambda slug: [(r["cells"][slug]["value"], r["cells"][slug]["status"]) for r in site_records]


@pytest.fixture(scope="session")
def edges_file() -> dict:
    return json.loads((DATA / "landscape.edges.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def iris() -> Iris:
    return Iris()


def shared_folder(tmp_path_factory, name: str) -> Path:
    """A folder that every pytest-xdist worker of this run sees (the parent of the workers'
    basetemps); outside xdist, one in the session's own basetemp."""
    base = tmp_path_factory.getbasetemp()
    return (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / name


def made_once(folder: Path, make: Callable[[Path], object]) -> object:
    """What ``make(folder)`` returned, made by the first worker that asks and read back
    (pickled) by the others: costly artefacts (the bundled store, its validation) are
    built once per test run, not once per worker. ``make`` writes only inside ``folder``."""
    import fcntl
    import pickle
    import shutil

    folder.parent.mkdir(parents=True, exist_ok=True)
    done = folder / "made.pickle"
    with open(folder.parent / f"{folder.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the other workers wait here while one makes it
        try:
            if not done.is_file():
                shutil.rmtree(folder, ignore_errors=True)  # what a worker that died midway left
                folder.mkdir()
                made = make(folder)
                done.write_bytes(pickle.dumps(made))
                return made
            return pickle.loads(done.read_bytes())
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _ingest_bundled(folder: Path):
    store = GraphStore(folder / "kg-store")
    report = ingest_paths(store, bundled_paths())
    assert not report.quarantined
    del store
    gc.collect()
    return report


@pytest.fixture(scope="session")
def bundled_ingest(tmp_path_factory):
    """(store, ingest report) of the bundled catalog (912 records, the seed record, 528 edges), on disk:
    ingested once per test run, read-only (the xdist workers share it)."""
    folder = shared_folder(tmp_path_factory, "bundled")
    report = made_once(folder, _ingest_bundled)
    return GraphStore(folder / "kg-store", read_only=True), report


FULL_SHAPE = Path("/work/shared/data/full-shape")
if not FULL_SHAPE.exists():
    FULL_SHAPE = ROOT.parent / "shared" / "data" / "full-shape"


@pytest.fixture(scope="session")
def full_shape_catalog() -> dict:
    """The 912-record full-shape catalog of ../shared/data/full-shape (the catalog's own cell formats
    for the advice tools: its README), read from its gzip file."""
    import gzip

    with gzip.open(FULL_SHAPE / "landscape.json.gz", "rt", encoding="utf-8") as f:
        return json.load(f)


def _ingest_full_shape(folder: Path, catalog: dict) -> None:
    (folder / "landscape.json").write_text(json.dumps(catalog), encoding="utf-8")
    store = GraphStore(folder / "kg-store")
    report = ingest_paths(store, [str(folder / "landscape.json"), str(FULL_SHAPE / "landscape.edges.json")])
    assert report.records == len(catalog["records"]) and not report.quarantined
    del store
    gc.collect()


@pytest.fixture(scope="session")
def full_shape_store(tmp_path_factory, full_shape_catalog) -> GraphStore:
    """The full-shape catalog and its edges in an on-disk store: ingested once per test run (the
    gzip unzipped into the run's folder: ingest reads plain JSON), read-only."""
    folder = shared_folder(tmp_path_factory, "full-shape")
    made_once(folder, lambda f: _ingest_full_shape(f, full_shape_catalog))
    return GraphStore(folder / "kg-store", read_only=True)


@pytest.fixture(scope="session")
def bundled_store(bundled_ingest) -> GraphStore:
    """The bundled catalog (912 records, the seed record, 528 edges) in an on-disk store."""
    return bundled_ingest[0]


@pytest.fixture(scope="module")
def small_store(tmp_path_factory) -> Path:
    """A writable on-disk store holding only the seed record (no analysis graph), one per test file."""
    path = tmp_path_factory.mktemp("small") / "store"
    store = GraphStore(path)
    ingest_paths(store, [str(DATA / "seed-record.json")])
    store.flush()
    del store
    gc.collect()
    return path


# The longest test files start first, so that the workers of pytest-xdist (a file each,
# --dist loadfile) finish together instead of one of them running a long file at the end.
# (longest first, as measured with --durations on two workers)
LONG_FILES = ("test_engines_virtuoso.py", "test_engines_jena.py", "test_wheel.py", "test_queries.py",
              "test_bad_input.py", "test_crash_safety.py", "test_history.py", "test_benchmarks.py", "test_serve.py",
              "test_queries_remote.py", "test_exports.py", "test_store_versions.py", "test_browser.py",
              "test_shapes_jena.py", "test_push_interrupted.py")


def pytest_collection_modifyitems(items):
    rank = {name: i for i, name in enumerate(LONG_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONG_FILES)))  # stable: the rest keep their order


TINY_EDGES_PER_TYPE = 3
TINY_EXTRA_IDS = ("mem0--mem0-ai", "smolagents-memory--huggingface-co")


def tiny_catalog(folder: Path) -> list[str]:
    """Write the tiny catalog into ``folder``; returns its paths (records, seed, edges)."""
    site = json.loads((DATA / "landscape-site.json").read_text(encoding="utf-8"))
    edges = json.loads((DATA / "landscape.edges.json").read_text(encoding="utf-8"))
    chosen_edges, per_type = [], {}
    for edge in edges["edges"]:
        if per_type.get(edge["type"], 0) < TINY_EDGES_PER_TYPE:
            per_type[edge["type"]] = per_type.get(edge["type"], 0) + 1
            chosen_edges.append(edge)
    ids = {e["source"] for e in chosen_edges} | {e["target"] for e in chosen_edges} | set(TINY_EXTRA_IDS)
    records = [r for r in site["records"] if r["id"] in ids]
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / "landscape-site.json", folder / "seed-record.json", folder / "landscape.edges.json"]
    paths[0].write_text(json.dumps({**site, "records": records}, ensure_ascii=False), encoding="utf-8")
    paths[1].write_text((DATA / "seed-record.json").read_text(encoding="utf-8"), encoding="utf-8")
    paths[2].write_text(json.dumps({**edges, "edges": chosen_edges}, ensure_ascii=False), encoding="utf-8")
    return [str(p) for p in paths]


@pytest.fixture(scope="session")
def tiny_paths(tmp_path_factory) -> list[str]:
    return tiny_catalog(tmp_path_factory.mktemp("tiny"))


@pytest.fixture(scope="session")
def tiny_store(tmp_path_factory, tiny_paths) -> GraphStore:
    """The tiny catalog in an on-disk store."""
    store = GraphStore(tmp_path_factory.mktemp("tiny-store") / "kg-store")
    report = ingest_paths(store, tiny_paths)
    assert not report.quarantined
    return store


@pytest.fixture(scope="session")
def expected_records(site_catalog, seed_record) -> dict[str, dict]:
    """The input records by id; the seed (a later file) supersedes its site version."""
    records = {r["id"]: r for r in site_catalog["records"]}
    records[seed_record["id"]] = seed_record
    return records


@pytest.fixture(scope="session")
def records(expected_records) -> dict[str, dict]:
    """The input records by id (the name the query tests use for ``expected_records``)."""
    return expected_records


@pytest.fixture(scope="session")
def edges(edges_file) -> list[dict]:
    """The bundled edges file's edges."""
    return edges_file["edges"]


@pytest.fixture(scope="session")
def bundled_report(tmp_path_factory, bundled_store, iris):
    """The split validation of the bundled store (several test files read it; made once per test run)."""
    from kg.validation import validate

    return made_once(shared_folder(tmp_path_factory, "bundled-report"), lambda _: validate(bundled_store, iris))


def build_partial_store(folder: Path, site_catalog: dict) -> GraphStore:
    """40 records and every edge: edges to the other 872 records reach the store."""
    records = folder / "records.jsonl"
    records.write_text("".join(json.dumps(r) + "\n" for r in site_catalog["records"][:40]), encoding="utf-8")
    store = GraphStore(folder / "store")
    edges = [p for p in bundled_paths() if p.endswith("edges.json")]
    report = ingest_paths(store, [str(records), *edges])
    assert report.records == 40 and report.edges == 528
    return store


@pytest.fixture(scope="session")
def shared_partial_store(tmp_path_factory, site_catalog) -> GraphStore:
    """The partial store, for tests that only read it (one that changes it builds its own)."""
    return build_partial_store(tmp_path_factory.mktemp("partial"), site_catalog)


@pytest.fixture
def partial_store(tmp_path, site_catalog) -> GraphStore:
    """A partial store of its own, for a test that changes it."""
    return build_partial_store(tmp_path, site_catalog)


@pytest.fixture(scope="session")
def readme_sections() -> tuple[list[str], list[str]]:
    """data/README.md's section names (its table) and the 14 it lists as not canonical."""
    import re

    text = (DATA / "README.md").read_text(encoding="utf-8")
    table = text.split("Records per primary section")[1].split("## Known gaps")[0]
    names = [m.group(1) for m in re.finditer(r"^\| (.+?) \| \d+ \|$", table, re.M)]
    listed = text.split("would reject 341 records: ")[1].split("\n- Record-level")[0]
    non_canonical = [n.strip().rstrip(".") for n in listed.replace("\n", " ").split("; ")]
    return names, non_canonical


@pytest.fixture(scope="session")
def partial_report(shared_partial_store, iris):
    """The split validation of the shared partial store, in this process (jobs=1)."""
    from kg.validation import validate

    return validate(shared_partial_store, iris, jobs=1)


@pytest.fixture(scope="session")
def monolithic_of(iris):
    """The stock pySHACL report (our shapes, one run) of a data file, made once per file."""
    import rdflib

    from kg.validation import validate_monolithic

    made: dict[str, object] = {}

    def report(path: object):
        key = str(path)
        if key not in made:
            made[key] = validate_monolithic(rdflib.Graph().parse(key), iris)
        return made[key]

    return report


@pytest.fixture()
def listener() -> Iterator[tuple[str, list[str]]]:
    """A local HTTP server that records the path of every request it gets and answers 500:
    (its SPARQL URL, the paths). SERVICE, LOAD or a remote FROM must never reach it."""
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            hits.append(self.path)
            self.send_response(500)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_POST = do_GET  # noqa: N815

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/sparql", hits
    finally:
        server.shutdown()
        server.server_close()


# ---------------------------------------------------------------------------
# find's answers computed from the JSON (tests/test_queries_find.py, tests/test_serve_index.py)

FIND_AXES = ("storage", "retrieval", "persistence", "update", "unit", "governance", "conflict")


def _fold(text: str) -> str:
    import unicodedata

    bare = "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))
    return " ".join(bare.split()).lower()


def _text_cell(record: dict, slug: str) -> tuple[str, str] | None:
    cell = (record.get("cells") or {}).get(slug)
    return (cell["value"], cell.get("status") or "") if cell and isinstance(cell.get("value"), str) else None


def _find_facts(rid: str, record: dict) -> dict:
    """What find reads of one record, from its JSON (cell text read with kg.normalise's
    classifiers, the mapping's specification)."""
    from kg import normalise

    license_cell = _text_cell(record, "license")
    open_source = bool(license_cell) and normalise.license_is_osi(normalise.spdx_license(*license_cell))
    deployment_cell = _text_cell(record, "deployment")
    deployment = (normalise.deployment_kind(*deployment_cell) if deployment_cell else None) or "unknown"
    modes = {}
    for slug, key in (("mcp-support", "mcp"), ("a2a-support", "a2a"), ("otel", "opentelemetry")):
        cell = _text_cell(record, slug)
        if cell is not None:
            modes[key] = normalise.protocol_mode(*cell)
    combined = _text_cell(record, "protocol-support")
    if combined is not None and combined[1] in ("real-data", "estimate"):
        for key, mode in normalise.protocols_in_support_cell(combined[0]).items():
            if modes.get(key, "unknown") == "unknown":
                modes[key] = mode
    sections = [s["section"] if isinstance(s, dict) else s for s in record.get("sections") or []]
    taxonomy = {axis: {item["value"] for item in (record.get("taxonomy") or {}).get(axis) or []} for axis in FIND_AXES}
    desc = _text_cell(record, "desc")
    return {"id": rid, "name": record["name"], "tier": record["tier"], "open": open_source, "deployment": deployment,
            "modes": modes, "sections": sections, "taxonomy": taxonomy, "record": record,
            "text": [_fold(rid), _fold(record["name"]), _fold(desc[0]) if desc else ""]}


def _find_matches(f: dict, facets: dict) -> bool:
    """Whether a record's facts (:func:`_find_facts`) pass every facet given, as find means them."""
    if "text" in facets and searching.match(facets["text"], f["id"], f["record"]) is None:
        return False  # the words matcher of search and find (tests/searching.py)
    if "open" in facets and f["open"] != (facets["open"] == "true"):
        return False
    if "selfhost" in facets and (f["deployment"] in ("self-hosted", "both")) != (facets["selfhost"] == "true"):
        return False
    if "protocol" in facets:
        wanted = {facets["mode"]} if "mode" in facets else {"native", "adapter", "client"}
        if f["modes"].get(facets["protocol"]) not in wanted:
            return False
    elif "mode" in facets and facets["mode"] not in f["modes"].values():
        return False
    if "section" in facets and not any(facets["section"].lower() in s.lower() for s in f["sections"]):
        return False
    if "tier" in facets and f["tier"] != int(facets["tier"]):
        return False
    return all(facets[axis] in f["taxonomy"][axis] for axis in FIND_AXES if axis in facets)


def _find_order(f: dict, facets: dict) -> tuple:
    """find's order: by tier and name; with a text, its hits ranked as search ranks them first."""
    rank: tuple = ()
    if facets.get("text") is not None:
        found = searching.match(facets["text"], f["id"], f["record"])
        rank = (0, 0) if found is None else (found[0], -found[1])
    return (*rank, f["tier"], f["name"].lower(), f["id"])


@pytest.fixture(scope="session")
def find_oracle(expected_records):
    """find's answers from the bundled JSON: ``facts`` (one dict per record), ``matches(facts,
    facets)``, ``order(facts, facets)`` (a sort key), ``fold(text)`` and the taxonomy ``axes``."""
    from types import SimpleNamespace

    return SimpleNamespace(facts=[_find_facts(rid, record) for rid, record in expected_records.items()],
                           matches=_find_matches, order=_find_order, fold=_fold, axes=FIND_AXES)


# ---------------------------------------------------------------------------
# a real Oxigraph server (`oxigraph serve`, PyPI oxigraph) for the push and --endpoint tests: tests/engine_servers.py


@pytest.fixture(scope="session")
def oxigraph_server() -> Callable[[Path], OxigraphServer]:
    """Starts ``oxigraph serve`` over a database folder: ``oxigraph_server(path)``; the caller stops it."""
    return OxigraphServer


@pytest.fixture(scope="session")
def graph_counts() -> Callable[[GraphStore], dict[str, int]]:
    """Quads per named graph of a local store: ``graph_counts(store)`` (to compare with a server's)."""
    return lambda store: {g.value: sum(1 for _ in store.quads(g)) for g in store.named_graphs()}
