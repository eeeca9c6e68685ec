"""Streaming a large bulk catalog: the same checks and the same graph as reading it whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import kg.ingestion.entry as ingest
import kg.sources as sources
import kg.sources.scanner as scanner
from kg.errors import InputRejected, SourceError
from kg.sources import CatalogStream, read_inputs, read_text, scan_catalog
from kg.store import GraphStore
from kg.vocab import Iris

DOCUMENTS = [
    '{"schemaVersion": "1", "records": [{"id": "a"}, {"id": "b", "x": [1, 2.5e3, -7, true, null]}], "tail": {"k": 1}}',
    '{"records": []}',
    '{"records": [ ] , "a" : 1 }',
    '{\n"records": [\n{"id": "a"},\n{"id": "b",\n"x": 1,,}\n]}',
    '{"records": [}',
    '{"records": [1,]}',
    '{"records": [1 2]}',
    '{"records": [1], }',
    '{"records": [1] "a": 2}',
    '{"records": 3}',
    '{"a": 1, "a": 2, "records": []}',
    '{"records": [{"id": "a", "id": "b"}]}',
    '{"records": [NaN]}',
    '{"records": [1e999]}',
    '{"records": [1' + "0" * 5000 + ']}',
    '{"records": ["abc\x01"]}',
    '{"records": ["\\u12"]}',
    '{"records": [' + "[" * 62 + "]" * 62 + "]}",
    '{"records": [' + "[" * 63 + "]" * 63 + "]}",
    '{"h": ' + "[" * 63 + "]" * 63 + ', "records": []}',
    '{"h": ' + "[" * 64 + "]" * 64 + ', "records": []}',
    '{"records": [' + "[" * 3000 + "]" * 3000 + "]}",
    '{"records": [{"id": "a"}], "edges": [{"source": "a"}], "edgesHeader": {"v": 1}}',
    '{"records": [], "edges": 3}',
    '{"records": [{"id": "\u00e9\u20ac\U0001F600", "n": 123456789012345678901234567890}]}',
    '{"records": [1',
    '{"records": ["abc',
    '{"records": [12',
    '{"records": [' + ",".join(f'{{"id": "r{i}", "t": "{"x" * (i % 97)}"}}' for i in range(300)) + "]}",
    '{"records": [' + ",".join("12345" for _ in range(2000)) + "]}",
]


def _whole(text: str):
    try:
        batch = read_text(text, "f.json")
    except SourceError as err:
        return ("error", str(err))
    companion = batch.companion and (batch.companion.kind, batch.companion.items, batch.companion.header)
    return ("ok", batch.kind, batch.header, batch.items, companion)


def _streamed(path: Path):
    try:
        stream = scan_catalog(path, "f.json")
    except SourceError as err:
        return ("error", str(err))
    if stream is None:
        return None
    companion = stream.companion and (stream.companion.kind, stream.companion.items, stream.companion.header)
    return ("ok", stream.kind, stream.header, list(stream.items), companion)


@pytest.mark.parametrize("window", [1, 3, 64, 1 << 20])
def test_streamed_reading_equals_whole_file_reading(tmp_path, monkeypatch, window):
    """Every document: the same items and header, or the same error message (line and column
    in the whole file), whatever the window size."""
    monkeypatch.setattr(scanner, "_READ_BYTES", window)
    compared = 0
    for number, text in enumerate(DOCUMENTS):
        path = tmp_path / f"doc{number}.json"
        path.write_text(text, encoding="utf-8")
        got = _streamed(path)
        if got is None:  # not one object with a records list: read whole, as before
            assert _whole(text)[0] == "error" or _whole(text)[1] != "catalog"
            continue
        assert got == _whole(text), text[:60]
        compared += 1
    assert compared >= len(DOCUMENTS) - 3


@pytest.mark.parametrize("data,needle", [
    (b'{"records": ["\xff"]}', "not valid UTF-8 (byte 14, line 1"),
    (b'{"records": [\n"ok",\n"\xc3"]}', "not valid UTF-8 (byte 21, line 3"),
    ('{"records": []}'.encode("utf-16"), "UTF-16"),
    (b'{"records": [1, 2\x00]}', "NUL bytes"),
])
def test_bad_bytes_give_the_whole_file_readers_message(tmp_path, monkeypatch, data, needle):
    monkeypatch.setattr(scanner, "_READ_BYTES", 5)
    path = tmp_path / "bad.json"
    path.write_bytes(data)
    with pytest.raises(SourceError) as streamed:
        scan_catalog(path)
    with pytest.raises(SourceError) as whole:
        list(sources.read_paths([str(path)]))
    assert needle in str(streamed.value) and str(streamed.value) == str(whole.value)


def test_utf8_byte_order_mark_is_dropped(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b'\xef\xbb\xbf{"records": [{"id": "a"}]}')
    assert list(scan_catalog(path).items) == [{"id": "a"}]


def test_other_shapes_stream_as_json_lines_or_are_read_whole_again(tmp_path, site_catalog, seed_record, edges_file):
    for name, doc in (("seed.json", seed_record), ("edges.json", edges_file)):
        (tmp_path / name).write_text(json.dumps(doc), encoding="utf-8")
    (tmp_path / "lines.jsonl").write_text("\n".join(json.dumps(r) for r in site_catalog["records"][:3]) + "\n")
    for name in ("seed.json", "edges.json", "lines.jsonl"):
        assert scan_catalog(tmp_path / name) is None
    inputs = read_inputs([str(tmp_path)], stream_min_bytes=0)
    assert [(type(item).__name__, getattr(item, "form", None)) for item in inputs] == [
        ("CatalogStream", "whole"), ("CatalogStream", "lines"), ("CatalogStream", "whole")]
    assert [item.count for item in inputs] == [len(edges_file["edges"]), 3, 1]
    assert [r["id"] for r in inputs[1].items] == [r["id"] for r in site_catalog["records"][:3]]


def test_a_file_changed_between_the_readings_is_refused(tmp_path):
    path = tmp_path / "cat.json"
    path.write_text('{"records": [{"id": "a"}]}', encoding="utf-8")
    stream = scan_catalog(path)
    path.write_text('{"records": [{"id": "a"}, {"id": "b"}]}', encoding="utf-8")
    with pytest.raises(SourceError, match="changed while it was being read"):
        list(stream.items)


def _quads(store: GraphStore) -> list[str]:
    """Every quad but the changesets' (two stores built one after the other differ in their times)."""
    return sorted(str(q) for q in store.quads() if not Iris().is_history_graph(q.graph_name))


def _summary(report) -> tuple:
    return (report.records, report.edges, report.quads_written, sorted(report.superseded),
            sorted(str(e) for e in report.quarantined), sorted(str(w) for w in report.warnings))


def test_streamed_ingest_of_the_bundled_catalog_equals_the_whole_ingest(bundled_ingest):
    """The seed record (a later file) supersedes its site version in both. The whole ingest is
    the session's bundled store (its files are below the streaming size: read whole)."""
    paths = sources.bundled_paths()
    assert all(Path(p).stat().st_size < ingest.STREAM_MIN_BYTES for p in paths)
    whole, first = bundled_ingest
    streamed = GraphStore()
    second = ingest.ingest_paths(streamed, paths, stream=True)
    assert _summary(first) == _summary(second)
    assert first.superseded == ["smolagents-memory--huggingface-co"]
    assert _quads(whole) == _quads(streamed)
    # the rules' findings too: those of the superseded version, written first when streamed, are dropped
    assert sorted(f.result.key for f in first.findings) == sorted(f.result.key for f in second.findings)
    assert first.checked == second.checked == 912


@pytest.mark.parametrize("on_disk", [False, True], ids=["in-memory", "on-disk"])
def test_streamed_ingest_with_bad_records_duplicates_and_supersedes(tmp_path, monkeypatch, site_catalog,
                                                                    seed_record, edges_file, on_disk):
    """Small chunks, so a superseded record is written before its new version arrives (on disk, by
    the writer thread, in the same write session: its old quads must go)."""
    monkeypatch.setattr(ingest.batching, "BATCH_SIZE", 7)
    records = [dict(r) for r in site_catalog["records"][:40]]
    records[3] = {"id": "Bad Id", "name": "x"}                   # quarantined
    records[5] = {**records[4], "name": "same id, same file"}     # duplicate in one file
    later = {**records[10], "name": "a later version"}            # supersedes records[10]
    catalog = {**{k: v for k, v in site_catalog.items() if k != "records"}, "records": records,
               "edges": edges_file["edges"][:30], "edgesHeader": {"schemaVersion": "1"}}
    (tmp_path / "a.json").write_text(json.dumps(catalog), encoding="utf-8")
    (tmp_path / "b.json").write_text(json.dumps([later, seed_record]), encoding="utf-8")
    paths = [str(tmp_path / "a.json"), str(tmp_path / "b.json")]
    whole, streamed = GraphStore(), GraphStore(tmp_path / "store" if on_disk else None)
    first = ingest.ingest_paths(whole, paths, stream=False)
    second = ingest.ingest_paths(streamed, paths, stream=True)
    # the superseded version was written (then replaced): more quads written, the same graph
    assert _summary(first)[:2] + _summary(first)[3:] == _summary(second)[:2] + _summary(second)[3:]
    assert second.quads_written > first.quads_written
    assert len(first.quarantined) == 2 and first.superseded == [records[10]["id"]]
    assert _quads(whole) == _quads(streamed)
    names = [row["n"].value for row in streamed.select(
        "SELECT ?n WHERE { ?s <http://purl.org/dc/terms/identifier> ?id ; <https://schema.org/name> ?n }",
        {"id": __import__("pyoxigraph").Literal(records[10]["id"])})]
    assert names == ["a later version"]


def test_strict_streamed_ingest_writes_nothing_when_a_record_is_bad(tmp_path, site_catalog):
    records = site_catalog["records"][:20] + [{"id": "Bad Id"}]
    path = tmp_path / "cat.json"
    path.write_text(json.dumps({"records": records}), encoding="utf-8")
    store = GraphStore()
    with pytest.raises(InputRejected):
        ingest.ingest_paths(store, [str(path)], strict=True, stream=True)
    assert len(store) == 0


def test_an_unreadable_streamed_file_changes_nothing(tmp_path, site_catalog):
    text = json.dumps(site_catalog)
    path = tmp_path / "cat.json"
    path.write_text(text[:-50] + "}" + text[-50:], encoding="utf-8")  # broken near the end
    store = GraphStore()
    with pytest.raises(SourceError, match="invalid JSON at line 1"):
        ingest.ingest_paths(store, [str(path)], stream=True)
    assert len(store) == 0


def test_large_catalog_files_are_streamed_by_default(tmp_path, monkeypatch, site_catalog):
    path = tmp_path / "cat.json"  # 30 real records: the size that counts is the one set below
    path.write_text(json.dumps({**site_catalog, "records": site_catalog["records"][:30]}), encoding="utf-8")
    used = []
    real = ingest.ingest_inputs
    monkeypatch.setattr(ingest, "ingest_inputs", lambda *a, **k: used.append(a[1]) or real(*a, **k))
    monkeypatch.setattr(ingest, "STREAM_MIN_BYTES", path.stat().st_size + 1)
    ingest.ingest_paths(GraphStore(), [str(path)])
    assert used == []
    monkeypatch.setattr(ingest, "STREAM_MIN_BYTES", path.stat().st_size)
    report = ingest.ingest_paths(GraphStore(), [str(path)])
    assert [type(i) for i in used[0]] == [CatalogStream] and report.records == 30


def test_strict_lists_every_bad_item_whole_or_streamed(tmp_path, site_catalog):
    records = site_catalog["records"][:8] + [{"id": "Bad Id"}] + site_catalog["records"][8:12] + [{"id": "x"}]
    path = tmp_path / "cat.json"
    path.write_text(json.dumps({"records": records, "edges": [{"source": "a", "target": "a", "type": "cites"}]}),
                    encoding="utf-8")
    rejected = []
    for stream in (False, True):
        store = GraphStore()
        with pytest.raises(InputRejected) as err:
            ingest.ingest_paths(store, [str(path)], strict=True, stream=stream)
        assert len(store) == 0
        rejected.append(sorted(str(e) for e in err.value.errors))
    assert len(rejected[0]) == 3 and rejected[0] == rejected[1]


def _records_three_ways(folder: Path, records: list[dict]) -> dict[str, Path]:
    """The same records as JSON Lines, as a top-level list and as a folder of one record a file."""
    lines, listed, many = folder / "r.jsonl", folder / "r.json", folder / "many"
    lines.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    listed.write_text(json.dumps(records), encoding="utf-8")
    many.mkdir()
    for i, record in enumerate(records):
        (many / f"{i:03d}.json").write_text(json.dumps(record), encoding="utf-8")
    return {"lines": lines, "list": listed, "folder": many}


def test_json_lines_lists_and_folders_streamed_give_the_graph_read_whole(tmp_path, monkeypatch, site_catalog):
    """Streamed in chunks of 4 records (and a folder kept in memory for one file only), the same graph."""
    monkeypatch.setattr(ingest.batching, "BATCH_SIZE", 4)
    monkeypatch.setattr(sources.inputs, "KEEP_BYTES", 3000)
    records = site_catalog["records"][:10]
    for name, path in _records_three_ways(tmp_path, records).items():
        inputs = read_inputs([str(path)], stream_min_bytes=0)
        assert all(isinstance(item, CatalogStream) for item in inputs[1:]), name  # beyond the first: read again
        whole, streamed = GraphStore(), GraphStore()
        first = ingest.ingest_paths(whole, [str(path)], stream=False)
        second = ingest.ingest_paths(streamed, [str(path)], stream=True)
        assert first.records == second.records == 10, name
        assert _quads(whole) == _quads(streamed), name
        assert [str(w) for w in first.warnings] == [str(w) for w in second.warnings], name


def test_large_stdin_is_spooled_to_a_temporary_file_and_streamed(tmp_path, monkeypatch, site_catalog):
    import io
    import os

    monkeypatch.setattr(sources.inputs, "KEEP_BYTES", 1000)
    records = site_catalog["records"][:5]
    data = "".join(json.dumps(r) + "\n" for r in records).encode("utf-8")
    monkeypatch.setattr("sys.stdin", type("Stdin", (), {"buffer": io.BytesIO(data)})())
    (stream,) = read_inputs(["-"])
    assert isinstance(stream, CatalogStream) and stream.form == "lines" and stream.source == "<stdin>"
    assert [r["id"] for r in stream.items] == [r["id"] for r in records]
    spooled = stream.spool.name
    assert os.path.exists(spooled)
    stream.spool.close()
    assert not os.path.exists(spooled)  # nothing left behind
