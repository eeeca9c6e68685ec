"""Input shapes are detected from content; unknown shapes are clear errors."""

from __future__ import annotations

import json

import pytest

from kg.errors import SourceError
from kg.sources import BULK, EDGES, RECORDS, read_bytes, read_paths, read_text


def test_bulk_catalog_file(site_catalog):
    batch = read_text(json.dumps(site_catalog), "cat.json")
    assert batch.kind == BULK and len(batch.items) == 912
    assert batch.header == {k: v for k, v in site_catalog.items() if k != "records"}


def test_single_export_record(seed_record):
    batch = read_text(json.dumps(seed_record), "seed.json")
    assert batch.kind == RECORDS and batch.items == [seed_record]


def test_edges_file(edges_file):
    batch = read_text(json.dumps(edges_file), "edges.json")
    assert batch.kind == EDGES and len(batch.items) == 528


def test_json_lines(site_catalog):
    lines = "\n".join(json.dumps(r) for r in site_catalog["records"][:3]) + "\n"
    batch = read_text(lines, "r.jsonl")
    assert batch.kind == RECORDS and [r["id"] for r in batch.items] == [r["id"] for r in site_catalog["records"][:3]]


def test_folder_of_records(tmp_path, site_catalog):
    for record in site_catalog["records"][:4]:
        (tmp_path / f"{record['id']}.json").write_text(json.dumps(record), encoding="utf-8")
    batches = list(read_paths([str(tmp_path)]))
    assert sorted(b.items[0]["id"] for b in batches) == sorted(r["id"] for r in site_catalog["records"][:4])


@pytest.mark.parametrize("text,needle", [
    ('{"hello": 1}', "unknown shape"),
    ("[1, 2]", "unknown shape"),
    ("", "is empty"),
    ('{"records": [}', "invalid JSON at line 1"),
    ('{"records": 3}', "'records' must be a list"),
    ('{"id": "a", "id": "b"}', "duplicate key"),
    ('{"records": [NaN]}', "NaN is not valid JSON"),
])
def test_bad_documents_name_the_file_and_the_problem(text, needle):
    with pytest.raises(SourceError) as err:
        read_text(text, "bad.json")
    assert str(err.value).startswith("bad.json: ") and needle in str(err.value)
    assert "\n" not in str(err.value)


def test_utf8_bom_is_accepted_and_utf16_is_refused():
    assert read_bytes(b'\xef\xbb\xbf{"edges": []}', "bom.json").kind == EDGES
    with pytest.raises(SourceError, match="UTF-16"):
        read_bytes('{"edges": []}'.encode("utf-16"), "u16.json")
