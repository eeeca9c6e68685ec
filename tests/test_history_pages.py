"""The history on the pages and tools: a system page lists the record's own history and the
store's changesets of it; the MCP tool of the ``changes`` query takes its parameters."""

from __future__ import annotations

import copy
import gc
import html
import json
import urllib.request
from pathlib import Path

from kg.ingestion import ingest_paths
from kg.mcp.schema import input_schema
from kg.queries import load
from kg.serve import make_server
from kg.store import GraphStore

ROOT = Path(__file__).resolve().parent.parent


def test_system_page_shows_own_history_and_changesets(tmp_path, seed_record):
    changed = copy.deepcopy(seed_record)
    changed["cells"]["pricing"]["value"] = "changed by the test"
    (tmp_path / "seed2.json").write_text(json.dumps(changed), encoding="utf-8")
    path = tmp_path / "store"
    store = GraphStore(path)
    ingest_paths(store, [str(ROOT / "data" / "seed-record.json")])
    ingest_paths(store, [str(tmp_path / "seed2.json")])
    del store
    gc.collect()
    with make_server(path, port=0, workers=1) as server:
        request = urllib.request.Request(f"{server.url}/id/system/{seed_record['id']}", headers={"Accept": "text/html"})
        with urllib.request.urlopen(request, timeout=60) as response:
            text = response.read().decode("utf-8")
    own = seed_record["history"][0]["changes"][0]
    history = text[text.index("<h2>History"):]
    assert "<h2>History (3)</h2>" in text  # the own entry, the record added, the pricing change
    assert "record history" in history and html.escape(own["to"]) in history
    assert "changeset 2" in history and "changed by the test" in history
    assert html.escape(seed_record["cells"]["pricing"]["value"]) in history


def test_the_changes_tool_takes_the_queries_parameters():
    schema = input_schema(load("changes"))
    assert list(schema["properties"]) == ["since", "after", "system", "column", "kind", "limit"]
    assert schema.get("required", []) == []  # an empty list is left out
