"""Shared fixtures: the real bundled catalog, ingested once per test session."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import Phase, settings

from kg.ingest import ingest_paths
from kg.sources import bundled_paths
from kg.store import GraphStore
from kg.vocab import Iris

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
def edges_file() -> dict:
    return json.loads((DATA / "landscape.edges.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def iris() -> Iris:
    return Iris()


@pytest.fixture(scope="session")
def bundled_store(tmp_path_factory) -> GraphStore:
    """The bundled catalog (912 records, the seed record, 528 edges) in an on-disk store."""
    store = GraphStore(tmp_path_factory.mktemp("store") / "kg-store")
    report = ingest_paths(store, bundled_paths())
    assert not report.quarantined
    return store


@pytest.fixture(scope="session")
def expected_records(site_catalog, seed_record) -> dict[str, dict]:
    """The input records by id; the seed (a later file) supersedes its site version."""
    records = {r["id"]: r for r in site_catalog["records"]}
    records[seed_record["id"]] = seed_record
    return records


@pytest.fixture(scope="session")
def bundled_report(bundled_store, iris):
    """The split validation of the bundled store (several test files read it; made once)."""
    from kg.validation import validate

    return validate(bundled_store, iris)


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
