"""The ingest's stages one at a time, on records of the bundled catalog: read-and-check, map-and-gate,
write, history recording, description upkeep, finishing, clean-up, removal, batching, and the one
function that joins them. The expected answers are computed from the JSON."""

from __future__ import annotations

import copy
import json

import pytest

from kg import coverage
from kg.description import ontology_quads, read_description
from kg.errors import InputRejected, RecordError, UsageError
from kg.ingestion import batching, ingest_batches
from kg.ingestion.batching import Batcher, chunk_is_full
from kg.ingestion.cleanup import drop_unused_shared
from kg.ingestion.describe import DescriptionUpkeep
from kg.ingestion.finish import dangling_edges, load_rdf, write_shared_graphs
from kg.ingestion.map_gate import GateError, MapAndGate
from kg.ingestion.pipeline import run_ingest
from kg.ingestion.read_check import Notices, Pending, ReadCheck
from kg.ingestion.recording import HistoryRecording
from kg.ingestion.removal import remove_records, stored_record_ids
from kg.ingestion.report import IngestReport
from kg.ingestion.settings import Options
from kg.ingestion.write import BatchWriter, kept_records
from kg.mapping import record_quads, record_triples
from kg.records import edge_from_json, record_from_json
from kg.sources import read_text
from kg.store import GraphStore
from kg.validation.at_ingest import RuleCheck, SchemaBreak
from kg.vocab import KG, Iris

IRIS = Iris()


def _header(site_catalog: dict) -> dict:
    return {k: v for k, v in site_catalog.items() if k != "records"}


def _catalog_batch(site_catalog: dict, records: list, name: str = "catalog.json"):
    return read_text(json.dumps({**_header(site_catalog), "records": records}), name)


def _gate(notices: Notices, **settings) -> MapAndGate:
    return MapAndGate(IRIS, RuleCheck(IRIS, ontology_quads(IRIS)), notices, **settings)


def _pending(records: list[dict]) -> list[Pending]:
    return [Pending(record_from_json(r), "test.json", i, len(json.dumps(r))) for i, r in enumerate(records)]


# ---------------------------------------------------------------------------
# read and check


def test_read_check_hands_on_good_records_a_chunk_at_a_time_and_supersedes_by_id(site_catalog, site_records):
    records = site_records[:8]
    ids = [r["id"] for r in records]
    first = _catalog_batch(site_catalog, [*records, records[2], {"id": "Bad Id"}])  # a duplicate, a bad id
    later = read_text(json.dumps([records[5]]), "later.json")  # given again in a later input
    notices = Notices()
    read = ReadCheck(notices, (2000, 8 * 1024 * 1024), 3, None)
    handed = [[p.record.id for p in chunk] for chunk in read.pending_batches([first, later])]
    assert handed == [ids[0:3], ids[3:6], ids[6:8] + [ids[5]]]
    assert [(e.source, e.index) for e in notices.errors] == [("catalog.json", 8), ("catalog.json", 9)]
    assert read.superseded == [ids[5]] and read.done == read.total == len(records) + 3
    assert read.catalog_header == _header(site_catalog)


def test_read_check_all_at_once_hands_on_everything_at_the_end_and_an_all_bad_file_keeps_no_header(site_catalog,
                                                                                                  site_records):
    read = ReadCheck(Notices(), (2000, 8 * 1024 * 1024), None, None)
    (chunk,) = read.pending_batches([_catalog_batch(site_catalog, site_records[:20])])
    assert [p.record.id for p in chunk] == [r["id"] for r in site_records[:20]]
    notices = Notices()
    read = ReadCheck(notices, (2000, 8 * 1024 * 1024), None, None)
    assert list(read.pending_batches([_catalog_batch(site_catalog, [{"id": "x"}])], hand_over_at_end=True)) == [[]]
    assert read.catalog_header is None and len(notices.errors) == 1


def test_read_check_caps_a_record_with_too_many_cells(site_catalog, site_records):
    records = copy.deepcopy(site_records[:5])
    cap = max(len(r["cells"]) for r in records)
    records[3]["cells"]["one-more-column"] = {"value": "x", "status": "real-data", "tier": "T3"}
    notices = Notices()
    read = ReadCheck(notices, (cap, 8 * 1024 * 1024), None, None)
    (chunk,) = read.pending_batches([_catalog_batch(site_catalog, records)])
    assert [p.record.id for p in chunk] == [r["id"] for r in records if len(r["cells"]) <= cap]
    (capped,) = notices.errors
    assert (capped.record_id, capped.path) == (records[3]["id"], "cells") and f"{cap + 1:,} cells" in capped.message


def test_read_check_keeps_edges_with_their_header_and_sets_aside_a_structural_break(edges_file):
    edges = edges_file["edges"][:5]
    # isInfluential on an edge that is not a citation: InfluentialOnlyOnCites, a structural rule
    influential = {"source": edges[0]["source"], "target": edges[1]["target"], "type": "built-on",
                   "isInfluential": True}
    header = {k: v for k, v in edges_file.items() if k != "edges"}
    notices = Notices()
    gate = _gate(notices)
    read = ReadCheck(notices, (2000, 8 * 1024 * 1024), None, gate.edge_breaks)
    given = read_text(json.dumps({**header, "edges": [*edges, influential]}), "e.json")
    assert list(read.pending_batches([given])) == []  # no records: nothing handed on
    assert [(e.source, e.target, e.type) for e, _, _ in read.edges] == [
        (e["source"], e["target"], e["type"]) for e in edges]
    assert read.edges_header == header
    (broken,) = notices.errors
    assert isinstance(broken, SchemaBreak) and broken.index == 5 and "InfluentialOnlyOnCites" in str(broken)
    # an edges file with no usable edge leaves the edges (and their header) as they were
    unusable = read_text(json.dumps({"edges": [{**influential, "type": "extends"}]}), "bad.json")
    assert list(read.pending_batches([unusable])) == []
    assert len(read.edges) == len(edges) and read.edges_header == header and len(notices.errors) == 2


# ---------------------------------------------------------------------------
# batching


def test_batches_ramp_up_then_hold_batch_size_records_or_batch_bytes():
    assert batching.RAMP == (50, 100) and batching.BATCH_SIZE == 250
    assert [end - start for start, end in Batcher().slices([1] * 700)] == [50, 100, 250, 250, 50]
    half = batching.BATCH_BYTES // 2
    assert list(Batcher().slices([half] * 3)) == [(0, 2), (2, 3)]
    assert list(Batcher().slices([batching.BATCH_BYTES * 2, 1])) == [(0, 1), (1, 2)]  # one record at least
    assert chunk_is_full(3, 0, 3) and chunk_is_full(1, batching.BATCH_BYTES, 3)
    assert not chunk_is_full(2, 0, 3) and not chunk_is_full(10 ** 6, 10 ** 10, None)


# ---------------------------------------------------------------------------
# map and gate


def test_map_gives_each_record_its_graph_and_quarantines_one_rdf_cannot_express(site_records):
    records = copy.deepcopy(site_records[:4])
    records[2]["cells"]["desc"]["value"] = "half a character: \ud800"
    notices = Notices()
    mapped = _gate(notices).map(_pending(records))
    assert [p.record.id for p, _, _, _ in mapped] == [records[i]["id"] for i in (0, 1, 3)]
    for pending, own, _, triples in mapped:
        assert triples == record_triples(pending.record, IRIS, set())[0]
        assert len(own) == len(triples)
    (error,) = notices.errors
    assert error.record_id == records[2]["id"] and "cannot be expressed in RDF" in error.message


def test_map_describes_each_shared_resource_once_per_run(site_records):
    mapped = _gate(Notices()).map(_pending(site_records[:30]))
    described = [q for _, _, descriptions, _ in mapped for q in descriptions]
    assert len(described) == len(set(described))
    vendors = {o for _, _, _, triples in mapped for _, p, o in triples if p == KG.vendor}
    assert vendors and vendors <= {q.subject for q in described}


def test_check_rules_quarantines_structural_breaks_and_the_gate_holds_back_quality_ones(clean):
    empty_axis = copy.deepcopy(clean)
    empty_axis["id"] = "empty-axis--example-org"
    empty_axis["taxonomy"]["storage"] = []  # TaxonomyStorage: structural
    uncited = copy.deepcopy(clean)
    uncited["id"] = "uncited--example-org"
    t2 = [slug for slug, cell in uncited["cells"].items() if cell["tier"] == "T2"][:2]
    for slug in t2:
        uncited["cells"][slug]["citation"] = None  # T2Citation: quality
    records = [clean, empty_axis, uncited]
    notices = Notices()
    gate = _gate(notices)
    held = gate.check_rules(gate.map(_pending(records)))
    assert held == {empty_axis["id"]} and gate.checked == {r["id"] for r in records}
    (broken,) = notices.errors
    assert isinstance(broken, SchemaBreak) and broken.record_id == empty_axis["id"]
    assert sorted((f.record_id, f.rule) for f in gate.findings) == [(uncited["id"], "T2Citation")] * len(t2)
    # with a gate on warnings the uncited record is held back too, its findings the reasons
    notices = Notices()
    gate = _gate(notices, held_back=("Violation", "Warning"))
    assert gate.check_rules(gate.map(_pending(records))) == {empty_axis["id"], uncited["id"]}
    (held_back,) = [e for e in notices.errors if isinstance(e, GateError)]
    assert held_back.record_id == uncited["id"] and [f.rule for f in held_back.reasons] == ["T2Citation"] * len(t2)
    # keep_invalid: the structural break is a finding, not a quarantine
    notices = Notices()
    gate = _gate(notices, keep_invalid=True)
    assert gate.check_rules(gate.map(_pending(records))) == set() and notices.errors == []
    assert {f.record_id for f in gate.findings} == {empty_axis["id"], uncited["id"]}


def test_a_record_checked_again_keeps_only_its_latest_findings(clean):
    uncited = copy.deepcopy(clean)
    slug = next(slug for slug, cell in uncited["cells"].items() if cell["tier"] == "T2")
    uncited["cells"][slug]["citation"] = None
    gate = _gate(Notices())
    gate.check_rules(gate.map(_pending([uncited])))
    assert [f.rule for f in gate.findings] == ["T2Citation"]
    gate.check_rules(gate.map(_pending([clean])))  # the same id, mended
    assert gate.findings == []


def test_strict_batches_raise_when_any_item_of_the_pass_was_bad(site_records):
    notices = Notices()
    gate = _gate(notices)
    pending = _pending(site_records[:60])
    assert [(len(part), end) for part, _, end in gate.batches(pending, Batcher(), strict=True)] == [(50, 50),
                                                                                                   (10, 60)]
    assert [(len(part), end) for part, _, end in gate.batches(pending, Batcher(), strict=False)] == [(50, 50),
                                                                                                    (10, 60)]
    notices.errors.append(RecordError("x.json", 0, "x", "(record)", "a bad item met earlier in the pass"))
    with pytest.raises(InputRejected):
        next(gate.batches(pending, Batcher(), strict=True))


# ---------------------------------------------------------------------------
# write, history, description upkeep


def test_batch_writer_writes_the_kept_graphs_and_every_shared_description(site_records):
    records = site_records[:3]
    gate = _gate(Notices())
    part = gate.map(_pending(records))
    held = {records[1]["id"]}
    kept = kept_records(part, held)
    assert [p.record.id for p, _ in kept] == [records[0]["id"], records[2]["id"]]
    store = GraphStore()
    writer = BatchWriter(store, IRIS)
    with store.transaction():
        writer.write(part, kept)
        writer.wait()
    shared = [q for _, _, descriptions, _ in part for q in descriptions]
    assert writer.written == {records[0]["id"], records[2]["id"]}
    assert writer.quads_written == sum(len(own) for _, own in kept) + len(shared) == len(store)
    assert not store.has_graph(IRIS.record_graph(records[1]["id"]))
    assert writer.described_now == {q.subject for q in shared}


def test_history_recording_makes_the_changeset_of_the_records_written(site_records):
    records = [record_from_json(r) for r in site_records[:3]]
    store = GraphStore()
    with store.transaction():
        history = HistoryRecording(store, IRIS)
        history.before_write(records)
        for record in records:
            quads, shared = record_quads(record, IRIS, set())
            store.add(quads + shared)
        report = IngestReport(records=3, sources=["a.json"])
        history.finish(report, [], None, None, replace_all=False)
    assert report.changeset is not None and report.changeset.count("added") == 3
    assert sorted(change.record_id for change in report.changeset.records) == sorted(r.id for r in records)
    nothing = IngestReport()
    HistoryRecording(store, IRIS).finish(nothing, [], None, None, replace_all=False)
    assert nothing.changeset is None  # nothing written: no changeset


def test_description_upkeep_tallies_as_the_store_reads_back(site_records, tmp_path):
    records = [record_from_json(r) for r in site_records[:25]]
    upkeep = DescriptionUpkeep(IRIS)
    upkeep.wrote(records)
    assert upkeep.told is not None and upkeep.told.graphs == {IRIS.record_graph(r.id) for r in records}
    store = GraphStore()
    described: set[str] = set()
    for record in records:
        quads, shared = record_quads(record, IRIS, described)
        store.add(quads + shared)
    upkeep.refresh(store)
    told = coverage.read_tally(store, IRIS)
    read_back = DescriptionUpkeep(IRIS)
    read_back.told = None  # told nothing: the description reads the feature cells back from the store
    read_back.refresh(store)
    assert coverage.read_tally(store, IRIS) == told and told
    assert read_description(store, IRIS)["counts"]["System"] == len(records)
    upkeep.wrote(records[:1])  # written twice in one ingest: the tally cannot take it back
    assert upkeep.told is None


# ---------------------------------------------------------------------------
# finishing, clean-up, removal


def test_finishing_writes_the_shared_graphs_and_warns_of_edges_to_records_not_stored(site_catalog, site_records,
                                                                                  edges_file):
    store = GraphStore()
    kept = site_records[:2]
    ingest_batches(store, [_catalog_batch(site_catalog, kept)])
    kind = edges_file["edges"][0]["type"]
    given = [{"source": kept[0]["id"], "target": kept[1]["id"], "type": kind},
             {"source": kept[0]["id"], "target": site_records[5]["id"], "type": kind}]
    edges = [(edge_from_json(e), "e.json", i) for i, e in enumerate(given)]
    report = IngestReport()
    with store.transaction():
        write_shared_graphs(store, IRIS, report, RuleCheck(IRIS, ontology_quads(IRIS)), _header(site_catalog),
                            edges, {"schemaVersion": "1.0.0"})
    assert report.edges == 2 and report.quads_written > 0
    for graph in (IRIS.catalog_graph, IRIS.edges_graph, IRIS.ontology_graph):
        assert store.has_graph(graph)
    relations = {(q.subject, q.object) for q in store.match(None, KG.source, None, IRIS.edges_graph)}
    assert len(relations) == 2
    (warning,) = dangling_edges(store, IRIS, edges)
    assert (warning.index, warning.path) == (1, "target") and site_records[5]["id"] in warning.message
    rdf = record_quads(record_from_json(site_records[9]), IRIS, set())[0]
    report = IngestReport()
    load_rdf(store, rdf, report)
    assert report.rdf_quads == report.quads_written == len(rdf)


def test_clean_up_forgets_the_shared_resources_no_record_points_to(site_records):
    vendors: dict[str, object] = {}
    chosen = []
    for raw in site_records:  # two records of two different vendors
        record = record_from_json(raw)
        vendor = next((o for _, p, o in record_triples(record, IRIS, set())[0] if p == KG.vendor), None)
        if vendor is not None and vendor not in vendors.values():
            vendors[record.id] = vendor
            chosen.append(record)
        if len(chosen) == 2:
            break
    store = GraphStore()
    described: set[str] = set()
    for record in chosen:
        quads, shared = record_quads(record, IRIS, described)
        store.add(quads + shared)
    gone, stays = chosen
    store.remove_graphs([IRIS.record_graph(gone.id)])
    drop_unused_shared(store, IRIS)
    assert not list(store.match(vendors[gone.id], None, None, IRIS.shared_graph))
    assert list(store.match(vendors[stays.id], None, None, IRIS.shared_graph))


def test_removing_records_takes_their_graphs_out_and_counts_again(site_catalog, site_records):
    store = GraphStore()
    ingest_batches(store, [_catalog_batch(site_catalog, site_records[:4])])
    remove_records(store, [site_records[0]["id"]], IRIS)
    assert sorted(stored_record_ids(store, IRIS)) == sorted(r["id"] for r in site_records[1:4])
    assert read_description(store, IRIS)["counts"]["System"] == 3


# ---------------------------------------------------------------------------
# the one function that joins the stages


def test_run_ingest_tells_progress_per_chunk_or_per_batch(site_catalog, site_records):
    told: list[tuple[int, int]] = []
    options = Options(progress=lambda done, total: told.append((done, total)))
    report = run_ingest(GraphStore(), [_catalog_batch(site_catalog, site_records[:7])], IRIS, options, chunk=3)
    assert report.records == 7 and told == [(3, 7), (6, 7), (7, 7)]
    told.clear()
    report = run_ingest(GraphStore(), [_catalog_batch(site_catalog, site_records[:60])], IRIS, options, chunk=None)
    assert report.records == 60 and told == [(50, 60), (60, 60)]


def test_run_ingest_strict_in_chunks_writes_nothing_when_any_item_is_bad(site_catalog, site_records):
    store = GraphStore()
    batch = _catalog_batch(site_catalog, [*site_records[:5], {"id": "Bad Id"}])
    with pytest.raises(InputRejected) as raised:
        run_ingest(store, [batch], IRIS, Options(strict=True), chunk=2)
    assert len(raised.value.errors) == 1 and len(store) == 0


def test_run_ingest_refuses_an_unknown_gate(site_catalog, site_records):
    with pytest.raises(UsageError, match="gate must be one of violation, warning"):
        run_ingest(GraphStore(), [_catalog_batch(site_catalog, site_records[:1])], IRIS, Options(gate="error"),
                   chunk=None)
