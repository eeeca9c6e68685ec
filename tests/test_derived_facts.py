"""The facts derived at ingest for fast queries (kg:searchText, kg:assessed, kg:protocolSupportText,
kg:taxonomyText; kg:observabilityWithoutEval is checked by the eval-orphans tests, which read only
it, against the JSON) agree with the JSON and with the facts they summarise, and follow every
replace of a record."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

from kg import queries
from kg.ingestion import ingest_paths
from kg.store import GraphStore
from kg.vocab import KG, PROTOCOLS, SKOS, TAXONOMY_AXES, Iris

SEARCH_LINES = ("id", "name", "desc", "claims")  # kg:searchText, a field a line
RESEARCHED = {"real-data", "estimate"}
FINDING_MODES = {KG.NativeSupport.value, KG.AdapterSupport.value, KG.ClientSupport.value, KG.NoSupportFound.value}


def folded(text: str) -> str:
    """Folding as people type it away: no accents, one space, lower case (written here
    independently of kg.normalise.fold)."""
    bare = "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))
    return " ".join(bare.split()).lower()


def expected_folded(record: dict) -> dict[str, str]:
    """The id, and the name, description and claims folded, of those that fold to some text."""
    texts = {"name": record.get("name")}
    for slug in ("desc", "claims"):
        texts[slug] = ((record.get("cells") or {}).get(slug) or {}).get("value")
    found = {field: folded(text) for field, text in texts.items() if isinstance(text, str)}
    return {"id": record["id"], **{field: text for field, text in found.items() if text}}


def stored_folded(store: GraphStore, iris: Iris, record_id: str) -> dict[str, str]:
    """The record's kg:searchText read back line by line (empty lines left out)."""
    system, graph = iris.system(record_id), iris.record_graph(record_id)
    [text] = [q.object.value for q in store.match(system, KG.searchText, None, graph)]
    lines = text.split("\n")
    assert len(lines) == len(SEARCH_LINES), text
    return {field: line for field, line in zip(SEARCH_LINES, lines) if line}


def test_the_folded_fields_are_the_json_fields_folded(bundled_store, iris, records):
    for record_id, record in records.items():
        assert stored_folded(bundled_store, iris, record_id) == expected_folded(record), record_id


def test_a_reading_is_assessed_when_its_cell_holds_research_that_says_something(bundled_store, iris, records):
    column_slug = {c.value: c.value.rsplit("/", 1)[-1] for c in
                   {q.object for q in bundled_store.match(None, KG.column, None) if "/protocol/" in q.subject.value}}
    seen = {True: 0, False: 0}
    for q in bundled_store.match(None, KG.assessed, None):
        support, record_id = q.subject, q.subject.value.split("/system/", 1)[1].split("/", 1)[0]
        column = next(bundled_store.match(support, KG.column, None)).object.value
        mode = next(bundled_store.match(support, KG.supportMode, None)).object.value
        cell = records[record_id]["cells"].get(column_slug[column]) or {}
        want = cell.get("status") in RESEARCHED and mode in FINDING_MODES
        assert (q.object.value == "true") == want, (record_id, column_slug[column], cell.get("status"), mode)
        seen[want] += 1
    supports = sum(1 for _ in bundled_store.match(None, KG.protocolSupport, None))
    assert sum(seen.values()) == supports and seen[True] and seen[False]  # every reading has the fact


def test_the_protocol_text_spells_out_the_protocol_readings(bundled_store, iris, records):
    protocols = {node.value: key for key, node in PROTOCOLS.items()}
    readings: dict[str, dict[str, str]] = {}
    for q in bundled_store.match(None, KG.protocolSupport, None):
        protocol = next(bundled_store.match(q.object, KG.protocol, None)).object.value
        mode_node = next(bundled_store.match(q.object, KG.supportMode, None)).object
        mode = next(bundled_store.match(mode_node, SKOS.notation, None)).object.value
        readings.setdefault(q.subject.value, {})[protocols[protocol]] = mode
    texts = {q.subject.value: q.object.value for q in bundled_store.match(None, KG.protocolSupportText, None)}
    assert set(texts) == set(readings) and len(texts) > 800
    for system, modes in readings.items():
        assert texts[system] == " ".join(f"{key}:{modes[key]}" for key in PROTOCOLS if key in modes)


def test_the_taxonomy_text_lists_the_json_taxonomy_in_axis_order(bundled_store, iris, records):
    texts = {q.subject.value: q.object.value for q in bundled_store.match(None, KG.taxonomyText, None)}
    for record_id, record in records.items():
        taxonomy = record.get("taxonomy") or {}
        want = list(dict.fromkeys(f"{axis}={item['value']}" for axis in TAXONOMY_AXES
                                  for item in taxonomy.get(axis) or []))
        assert texts.get(iris.system(record_id).value, "").split("; ") == (want or [""]), record_id


def test_the_derived_facts_follow_a_replace(tiny_paths, tmp_path):
    store, iris = GraphStore(), Iris()
    ingest_paths(store, tiny_paths)
    seed = json.loads(Path(tiny_paths[1]).read_text(encoding="utf-8"))
    record = seed["records"][0] if "records" in seed else seed
    record_id = record["id"]
    found = lambda text: {r["id"] for r in queries.query(store, "search", {"text": text})}  # noqa: E731
    assert record_id in found("barebones")
    record["name"] = "Smolagents Mémoire"
    record["cells"]["desc"]["value"] = "A  Zürich-made   framework."
    record["cells"]["mcp-support"]["status"] = "not-applicable"
    record["cells"]["mcp-support"]["value"] = "not applicable — wrong section"
    record["taxonomy"]["storage"] = [{"value": "graph", "primary": True, "reason": None}]
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(seed, ensure_ascii=False), encoding="utf-8")
    ingest_paths(store, [str(changed)])
    assert stored_folded(store, iris, record_id) == expected_folded(record)
    assert record_id in found("zurich-made framework") and record_id in found("memoire")
    assert record_id not in found("barebones")  # the old description's words are gone with it
    mcp = iris.system(record_id).value + "/protocol/mcp"
    assert [q.object.value for q in store.match(None, KG.assessed, None) if q.subject.value == mcp] == ["false"]
    system = iris.system(record_id)
    assert [q.object.value for q in store.match(system, KG.protocolSupportText, None)] == [
        "mcp:not-applicable a2a:none opentelemetry:adapter"]
    assert [q.object.value for q in store.match(system, KG.taxonomyText, None)][0].startswith("storage=graph; ")
    assert record_id in {r["id"] for r in queries.query(store, "find", {"storage": "graph"})}


ADVICE = ("use-case-tags", "use-case-anti-tags", "cost-input-usd-per-mtok", "cost-tier", "capability-composite-score",
          "capability-band", "cost-last-verified", "capability-last-verified")


def test_the_advice_cells_are_the_json_cells(full_shape_store, full_shape_catalog, iris):
    """kg:adviceCells holds each record's own advice cells, statuses, provenance and section names; kg:citationCells
    is on exactly the records whose trajectory is a JSON list or whose citations cell reads "N cites M/yr"."""
    papers = 0
    for record in full_shape_catalog["records"]:
        system, graph = iris.system(record["id"]), iris.record_graph(record["id"])
        [advice] = [json.loads(q.object.value) for q in full_shape_store.match(system, KG.adviceCells, None, graph)]
        provenance = record.get("_provenance") or {}
        assert advice == {
            "id": record["id"], "name": record["name"], "sections": [s["section"] for s in record["sections"]],
            "cells": {slug: [record["cells"][slug]["value"], record["cells"][slug]["status"]] for slug in ADVICE
                      if isinstance(record["cells"].get(slug, {}).get("value"), str)},
            "provenance": {slug: [provenance[slug]["source"], provenance[slug]["verified"]] for slug in ADVICE
                           if slug in provenance}}, record["id"]
        cells = record["cells"]
        maybe = (cells["citation-trajectory"]["value"] or "").startswith("[") or \
            re.search(r"\d\s*cites?\b.*/\s*yr", cells["citations"]["value"] or "") is not None
        found = [json.loads(q.object.value) for q in full_shape_store.match(system, KG.citationCells, None, graph)]
        assert len(found) == maybe, record["id"]
        if found:
            papers += 1
            assert found[0]["cells"] == {s: [cells[s]["value"], cells[s]["status"]] for s in
                                         ("citation-trajectory", "citations", "created")}
            assert (found[0]["tier"], found[0]["section"]) == (record["tier"], next(
                s["section"] for s in record["sections"] if s["primary"]))
    assert papers == 120 + 104 + sum(  # the yearly and monthly trajectories, and "N cites M/yr" without either
        1 for r in full_shape_catalog["records"] if not (r["cells"]["citation-trajectory"]["value"] or "").startswith("[")
        and re.search(r"cites?\b", r["cells"]["citations"]["value"] or ""))
