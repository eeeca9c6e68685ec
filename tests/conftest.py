"""Shared fixtures: the real bundled catalog, ingested once per test session."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import Phase, settings

from kg.ingestion import ingest_paths
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
