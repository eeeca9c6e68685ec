"""The record model: both shapes normalise; structural errors name the field path."""

from __future__ import annotations

import copy

import pytest

from kg.errors import RecordError
from kg.records import edge_from_json, edge_to_json, record_from_json, record_to_json


def test_every_real_record_round_trips_through_the_model(site_catalog, seed_record, edges_file):
    for i, raw in enumerate(site_catalog["records"]):
        assert record_to_json(record_from_json(raw, index=i)) == raw
    assert record_to_json(record_from_json(seed_record)) == seed_record
    for raw in edges_file["edges"]:
        assert edge_to_json(edge_from_json(raw)) == raw


def test_both_shapes_give_the_same_primary_section(site_catalog, seed_record):
    site = next(r for r in site_catalog["records"] if r["id"] == seed_record["id"])
    assert record_from_json(site).primary_section == record_from_json(seed_record).primary_section


def test_unknown_keys_are_kept(seed_record):
    raw = copy.deepcopy(seed_record)
    raw["x-new"] = {"a": [1, None]}
    raw["cells"]["brand-new-column"] = {"value": "v", "citation": None, "status": "real-data",
                                        "tier": "T3", "reviewer": "someone"}
    assert record_to_json(record_from_json(raw)) == raw


@pytest.mark.parametrize("mutate,path", [
    (lambda r: r.update(id="Not A Slug"), "id"),
    (lambda r: r.update(tier=True), "tier"),
    (lambda r: r.update(tier="2"), "tier"),
    (lambda r: r.pop("name"), "name"),
    (lambda r: r["cells"]["license"].update(status=3), "cells.license.status"),
    (lambda r: r["taxonomy"]["storage"][0].update(primary="yes"), "taxonomy.storage[0].primary"),
    (lambda r: r["sections"].append(7), "sections[1]"),
])
def test_structural_errors_name_record_and_field(site_catalog, mutate, path):
    raw = copy.deepcopy(site_catalog["records"][0])
    mutate(raw)
    with pytest.raises(RecordError) as err:
        record_from_json(raw, source="in.json", index=0)
    assert err.value.path == path
    assert str(err.value).startswith("in.json: [0]")
