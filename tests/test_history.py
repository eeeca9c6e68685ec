"""What changed: the changesets of a sequence of real ingests, checked against the JSON files.

One on-disk store goes through the sequence once (module scope): the bundled catalog
(a snapshot of the session's bundled store: the site records, the seed record, the
edges), then a modified copy of it (3 cells in 2 records, 1 record's tier, 1 record added, 1
removed with --replace-all, 2 edges changed), then the v0 edges file and the bundled
one again. Every expected change is computed here from the two JSON files.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
from pathlib import Path

import pytest

import kg
from kg.cli import main
from kg.history import changeset_numbers, log
from kg.history.snapshots import catalog_document, snapshots_at
from kg import ingestion
from kg.ingestion import ingest_paths
from kg.store import GraphStore
from kg.vocab import Iris

ROOT = Path(__file__).resolve().parent.parent
SITE, EDGES = ROOT / "data" / "landscape-site.json", ROOT / "data" / "landscape.edges.json"
V0_EDGES = Path("/work/shared/data/history/landscape.edges.v0.json")
if not V0_EDGES.exists():
    V0_EDGES = ROOT.parent / "shared" / "data" / "history" / "landscape.edges.v0.json"

NEW_ID = "zz-history-test--example-org"


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _modified(site: dict, edges: dict) -> tuple[dict, dict, dict]:
    """The second release: what the test changes, and the ids it picked."""
    site, edges = copy.deepcopy(site), copy.deepcopy(edges)
    records = site["records"]
    ends = {e[end] for e in edges["edges"] for end in ("source", "target")}
    a, b = records[0], records[1]
    a["cells"]["license"]["value"] = "Apache-2.0 (changed)"
    a["cells"]["license"]["tier"] = "T1"
    a["cells"]["pricing"]["value"] = "free (changed)"
    a["cells"]["pricing"]["status"] = "real-data"
    b["cells"]["desc"]["value"] += " Changed."
    b["tier"] = 1 if b["tier"] != 1 else 2
    gone = next(r for r in reversed(records) if r["id"] not in ends)
    records.remove(gone)
    added = copy.deepcopy(records[5])
    added["id"], added["name"] = NEW_ID, "History test system"
    records.append(added)
    edges["edges"][0]["evidence"] = "evidence changed by the test"
    edges["edges"][3]["citation"] = "https://example.org/changed"
    return site, edges, {"a": a["id"], "b": b["id"], "gone": gone["id"]}


@pytest.fixture(scope="module")
def sequence(tmp_path_factory, bundled_store, expected_records):
    folder = tmp_path_factory.mktemp("history")
    site = {"records": sorted(expected_records.values(), key=lambda r: r["id"])}
    edges = _load(EDGES)
    site2, edges2, picked = _modified(site, edges)
    (folder / "site2.json").write_text(json.dumps(dict(_load(SITE), records=site2["records"])), encoding="utf-8")
    (folder / "edges2.json").write_text(json.dumps(edges2), encoding="utf-8")
    store_path = str(folder / "kg-store")
    bundled_store.backup(store_path)  # the bundled catalog's ingest, changeset 1, in milliseconds
    store = GraphStore(store_path)
    reports: list = []
    said = io.StringIO()
    with contextlib.redirect_stderr(said):
        assert main(["ingest", "--replace-all", str(folder / "site2.json"), str(folder / "edges2.json"),
                     "--store", store_path]) == 0
    store.reopen()
    reports.append(ingest_paths(store, [str(V0_EDGES)]))
    reports.append(ingest_paths(store, [str(EDGES)]))
    return {"store": store, "path": store_path, "folder": folder, "site": site, "edges": edges, "site2": site2,
            "edges2": edges2, "picked": picked, "reports": reports, "said": said.getvalue()}


def _expected_record_changes(old: dict, new: dict) -> set[tuple]:
    """(id, key path, old, new) for every changed cell and top-level key, from the JSON."""
    before = {r["id"]: r for r in old["records"]}
    after = {r["id"]: r for r in new["records"]}
    out = set()
    for rid in before.keys() & after.keys():
        for key in before[rid].keys() | after[rid].keys():
            if key == "cells":
                for slug in before[rid]["cells"].keys() | after[rid]["cells"].keys():
                    o, n = before[rid]["cells"].get(slug), after[rid]["cells"].get(slug)
                    if o != n:
                        out.add((rid, f"cells.{slug}", json.dumps(o, sort_keys=True), json.dumps(n, sort_keys=True)))
            elif before[rid].get(key) != after[rid].get(key):
                out.add((rid, key, json.dumps(before[rid].get(key)), json.dumps(after[rid].get(key))))
    return out


def _edge_keys(edges: list[dict]) -> dict[tuple, dict]:
    return {(e["source"], e["type"], e["target"]): e for e in edges}


def test_log_lists_one_changeset_per_changing_ingest_newest_first(sequence, capsys):
    capsys.readouterr()
    assert main(["log", "--store", sequence["path"], "-f", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["changeset"] for r in rows] == [4, 3, 2, 1]
    second = rows[2]
    assert (second["records_added"], second["records_removed"], second["records_changed"]) == (1, 1, 2)
    assert second["edges_changed"] == 2 and second["edges_added"] == second["edges_removed"] == 0
    assert second["files"] == "site2.json, edges2.json"
    first = rows[3]
    assert first["records_added"] == len(sequence["site"]["records"]) == 912
    assert first["edges_added"] == len(sequence["edges"]["edges"])


def test_replace_all_says_what_it_removed(sequence):
    said = sequence["said"]
    assert f"--replace-all: removed 1 record(s) missing from the new release: {sequence['picked']['gone']}" in said
    assert "changeset 2: 1 record added, 1 record removed, 2 records changed, 2 edges changed" in said


def test_diff_of_the_two_releases_shows_exactly_the_changed_fields(sequence, capsys):
    expected = _expected_record_changes(sequence["site"], sequence["site2"])
    assert len(expected) == 4  # 3 cells in 2 records, 1 tier
    capsys.readouterr()
    first = sequence["folder"] / "first.json"
    first.write_text(json.dumps(sequence["site"]), encoding="utf-8")
    # the stored changeset; two files; two store versions apart (3 and 4 changed only edges,
    # and 4 gave back release 1's edges: the same record changes, no edge change)
    for old, new in (("1", "2"), (str(first), str(sequence["folder"] / "site2.json")), ("1", "4")):
        assert main(["diff", old, new, "--store", sequence["path"], "-f", "json"]) == 0
        document = json.loads(capsys.readouterr().out)
        if (old, new) == ("1", "4"):
            assert document["edges"] == []
        changed = {(r["id"], ".".join(f["path"]), json.dumps(f.get("before"), sort_keys=True),
                    json.dumps(f.get("after"), sort_keys=True))
                   for r in document["records"] if r["kind"] == "changed" for f in r["fields"]}
        assert changed == expected
        kinds = {r["id"]: r["kind"] for r in document["records"] if r["kind"] != "changed"}
        assert kinds == {NEW_ID: "added", sequence["picked"]["gone"]: "removed"}
    text_code = main(["diff", "1", "2", "--store", sequence["path"]])
    text = capsys.readouterr().out
    assert text_code == 0 and f"+ record {NEW_ID}" in text and f"- record {sequence['picked']['gone']}" in text


def test_a_diff_of_store_versions_reads_only_the_records_changed_between_them(sequence):
    """``touched_only`` snapshots (what ``kg diff A B`` reads for two store versions) hold the
    records some later changeset touched, each as it was then (the diff they give is checked
    against the JSON above: ``kg diff 1 4``)."""
    store, iris, picked = sequence["store"], Iris(), sequence["picked"]
    touched = snapshots_at(store, iris, [1, 2], touched_only=True)  # changeset 2 touched 4 records
    assert set(touched[1].records or {}) == {picked["a"], picked["b"], picked["gone"]}
    assert set(touched[2].records or {}) == {picked["a"], picked["b"], NEW_ID}
    site = {r["id"]: r for r in sequence["site"]["records"]}
    site2 = {r["id"]: r for r in sequence["site2"]["records"]}
    assert touched[1].records == {rid: site[rid] for rid in (picked["a"], picked["b"], picked["gone"])}
    assert touched[2].records == {rid: site2[rid] for rid in (picked["a"], picked["b"], NEW_ID)}
    assert snapshots_at(store, iris, [2, 4], touched_only=True)[2].records == {}  # 3 and 4: edges only


def test_diff_is_deterministic_and_rdf_reads_back(sequence, capsys):
    outputs = []
    for _ in range(2):
        capsys.readouterr()
        main(["diff", "1", "2", "--store", sequence["path"], "-f", "trig"])
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] and "kg:RecordChange" in outputs[0]
    parsed = GraphStore()
    parsed.add(__import__("pyoxigraph").parse(outputs[0].encode(), format=__import__("pyoxigraph").RdfFormat.TRIG))
    assert len(parsed) > 20


def test_changes_query_gives_old_and_new_values_status_tier(sequence):
    rows = kg.query(sequence["store"], "changes", {"after": "1", "kind": "changed"}).terms
    rows = [r for r in rows if r["changeset"].value == "2"]
    a = sequence["picked"]["a"]
    old = {r["id"]: r for r in sequence["site"]["records"]}[a]["cells"]
    new = {r["id"]: r for r in sequence["site2"]["records"]}[a]["cells"]
    license_row = next(r for r in rows if r["id"].value == a and r["path"].value == "cells.license")
    assert license_row["old_value"].value == old["license"]["value"]
    assert license_row["new_value"].value == new["license"]["value"]
    assert (license_row["old_tier"].value, license_row["new_tier"].value) == (old["license"]["tier"], "T1")
    pricing = next(r for r in rows if r["id"].value == a and r["path"].value == "cells.pricing")
    assert (pricing["old_status"].value, pricing["new_status"].value) == (old["pricing"]["status"], "real-data")
    record_rows = {(r["id"].value, r["path"].value) for r in rows if r["field"].value != "edges"}
    assert record_rows == {(rid, path) for rid, path, _, _ in _expected_record_changes(sequence["site"],
                                                                                      sequence["site2"])}
    edge_rows = [r for r in rows if r["field"].value == "edges"]
    old_edges, new_edges = _edge_keys(sequence["edges"]["edges"]), _edge_keys(sequence["edges2"]["edges"])
    expected_edges = {f"{k[1]} {k[2]}" for k in new_edges if new_edges[k] != old_edges.get(k)}
    assert {r["path"].value for r in edge_rows} == expected_edges and len(expected_edges) == 2
    only_b = kg.query(sequence["store"], "changes", {"system": sequence["picked"]["b"], "column": "tier"}).terms
    assert [(r["old_value"].value, r["new_value"].value) for r in only_b] == [
        (str({r["id"]: r for r in sequence["site"]["records"]}[sequence["picked"]["b"]]["tier"]),
         str({r["id"]: r for r in sequence["site2"]["records"]}[sequence["picked"]["b"]]["tier"]))]


def test_v0_edges_then_bundled_edges_is_one_changeset_of_their_difference(sequence):
    store, iris = sequence["store"], Iris()
    third, fourth = sequence["reports"][0].changeset, sequence["reports"][1].changeset
    assert (third.number, fourth.number) == (3, 4)
    v0, bundled = _edge_keys(_load(V0_EDGES)["edges"]), _edge_keys(sequence["edges"]["edges"])
    got = {(e.kind, e.edge["source"], e.edge["type"], e.edge["target"]) for e in fourth.edges}
    expected = {("added",) + k for k in bundled.keys() - v0.keys()}
    expected |= {("removed",) + k for k in v0.keys() - bundled.keys()}
    expected |= {("changed",) + k for k in v0.keys() & bundled.keys() if v0[k] != bundled[k]}
    assert got == expected and len(expected) >= 212
    assert changeset_numbers(store, iris) == [1, 2, 3, 4]


def test_checkout_gives_back_each_release_exactly(sequence):
    store, iris = sequence["store"], Iris()
    at = {n: catalog_document(s) for n, s in snapshots_at(store, iris, [1, 2, 3, 4]).items()}  # as kg checkout N
    assert at[1]["records"] == sequence["site"]["records"]
    assert at[1]["edges"] == sequence["edges"]["edges"]
    assert at[2]["records"] == sorted(sequence["site2"]["records"], key=lambda r: r["id"])
    assert at[2]["edges"] == sequence["edges2"]["edges"]
    assert at[3]["edges"] == _load(V0_EDGES)["edges"]
    assert at[4]["edges"] == sequence["edges"]["edges"]
    # the history graphs stay out of the catalog JSON: the current one is the last release
    assert kg.mapping.catalog_json(store, iris)["records"] == at[4]["records"] == at[2]["records"]


def test_same_input_twice_records_no_second_changeset(tmp_path, tiny_paths):
    store, iris = GraphStore(), Iris()
    assert ingest_paths(store, tiny_paths).changeset is not None
    again = ingest_paths(store, tiny_paths)
    assert again.changeset is None and changeset_numbers(store, iris) == [1]
    assert [row["changeset"] for row in log(store, iris)] == [1]


def test_field_history_answers_the_seed_records_own_history(tiny_store, seed_record):
    entry = seed_record["history"][0]
    change = entry["changes"][0]
    rows = kg.query(tiny_store, "field-history", {"system": seed_record["id"], "column": change["field"]}).terms
    own = [r for r in rows if r["origin"].value == "record history"]
    assert [(r["date"].value, r["previous"].value, r["value"].value, r["source"].value) for r in own] == [
        (entry["date"], change["from"], change["to"], change["source"])]
    assert rows[-1]["origin"].value == "current"
    assert rows[-1]["value"].value == seed_record["cells"][change["field"]]["value"]


def _modified_tiny(tiny_paths: list[str], folder: Path) -> list[str]:
    """The tiny catalog with one cell of its first record changed."""
    site = _load(Path(tiny_paths[0]))
    site["records"][0]["cells"]["desc"]["value"] += " (changed)"
    (folder / "tiny2.json").write_text(json.dumps(site), encoding="utf-8")
    return [str(folder / "tiny2.json"), *tiny_paths[1:]]


def test_streamed_ingest_in_batches_records_the_same_changeset(tmp_path, tiny_paths, monkeypatch):
    from kg.history.render import to_json

    changed = _modified_tiny(tiny_paths, tmp_path)
    found = []
    for stream in (False, True):
        store = GraphStore()
        monkeypatch.setattr(ingestion.batching, "BATCH_SIZE", 3 if stream else 500)  # records arrive 3 at a time
        ingest_paths(store, tiny_paths, stream=stream)
        found.append(to_json(ingest_paths(store, changed, stream=stream).changeset))
    for document in found:
        for key in ("started", "ended"):
            document.pop(key)
    assert found[0] == found[1]
    assert [(r["id"], r["kind"], [f["field"] for f in r["fields"]]) for r in found[0]["records"]] == [
        (_load(Path(tiny_paths[0]))["records"][0]["id"], "changed", ["desc"])]


def _release(paths: list[str]) -> tuple[list[dict], list[dict]]:
    """The records (in id order; a later file's version wins) and edges of a release, from its JSON files."""
    site, seed, edges = (_load(Path(p)) for p in paths)
    records = {r["id"]: r for r in site["records"]}
    records[seed["id"]] = seed
    return [records[rid] for rid in sorted(records)], edges["edges"]


def test_checkout_into_rebuilds_a_store_at_an_earlier_changeset(tmp_path, tiny_paths, tiny_store, capsys):
    source, target = str(tmp_path / "source"), str(tmp_path / "rebuilt")
    changed = _modified_tiny(tiny_paths, tmp_path)
    tiny_store.backup(source)  # the tiny catalog's ingest, changeset 1, in milliseconds
    store, iris = GraphStore(source), Iris()
    ingest_paths(store, changed)
    assert main(["checkout", "1", "--into", target, "--store", source]) == 0
    rebuilt = GraphStore.open_existing(target, read_only=True)
    out = io.BytesIO()
    kg.export(rebuilt, "catalog-json", out)
    document = json.loads(out.getvalue())
    assert (document["records"], document["edges"]) == _release(tiny_paths)
    # the history up to changeset 1, as the source has it: its log ends there, its changes are queryable
    assert changeset_numbers(rebuilt, iris) == [1]
    assert set(rebuilt.quads(iris.changeset_graph(1))) == set(store.quads(iris.changeset_graph(1)))
    capsys.readouterr()
    assert main(["query", "changes", "--store", target, "-f", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {row["changeset"] for row in rows} == {1}
    assert {row["id"] for row in rows if row["field"] is None} == {r["id"] for r in document["records"]}
    # an existing store is replaced only when asked, in one write
    assert main(["checkout", "2", "--into", target, "--store", source]) == 2
    assert changeset_numbers(GraphStore.open_existing(target, read_only=True), iris) == [1]
    assert main(["checkout", "2", "--into", target, "--store", source, "--force"]) == 0
    rebuilt = GraphStore.open_existing(target, read_only=True)
    assert changeset_numbers(rebuilt, iris) == [1, 2]
    assert kg.mapping.catalog_json(rebuilt, iris)["records"] == _release(changed)[0]


def test_the_recorder_reads_only_the_records_it_is_given(tmp_path, tiny_store, tiny_paths, monkeypatch):
    """One changed record costs a look-up of its hash and a read of its own graph: the recorder
    lists neither the store's graphs nor its hashes (it costs what changed, not the catalog)."""
    from kg.history import Recorder
    from kg.records import record_from_json
    from kg.vocab import KG

    tiny_store.backup(tmp_path / "store")
    store, iris = GraphStore(tmp_path / "store"), Iris()
    old = _load(Path(tiny_paths[0]))["records"][0]
    new = copy.deepcopy(old)
    new["cells"]["desc"]["value"] += " (changed)"
    scans, real_match = [], GraphStore.match

    def match(self, s=None, p=None, o=None, g=None):
        if s is None:
            scans.append((p, g))
        return real_match(self, s, p, o, g)

    monkeypatch.setattr(GraphStore, "match", match)
    monkeypatch.setattr(GraphStore, "named_graphs", lambda self: pytest.fail("listed every graph of the store"))
    recorder = Recorder(store, iris)
    recorder.before_write([record_from_json(new)])
    changeset = recorder.finish(["one-record.json"])
    assert set(scans) == {(None, iris.record_graph(old["id"])), (KG.changesetNumber, None)}
    assert [(c.record_id, c.kind, [(f.path, f.before, f.after) for f in c.fields]) for c in changeset.records] == [
        (old["id"], "changed", [(("cells", "desc"), old["cells"]["desc"], new["cells"]["desc"])])]


def test_a_failed_ingest_leaves_no_changeset(tmp_path, tiny_paths, monkeypatch):
    import kg.history.recorder as recorder

    store, iris = GraphStore(tmp_path / "store"), Iris()
    ingest_paths(store, tiny_paths)
    before = len(store)

    def broken(*args, **kwargs):
        raise OSError("disk full (simulated)")

    monkeypatch.setattr(recorder, "changeset_quads", broken)
    with pytest.raises(OSError):
        ingest_paths(store, _modified_tiny(tiny_paths, tmp_path))
    assert changeset_numbers(store, iris) == [1] and len(store) == before


def test_a_store_from_before_changesets_gets_hashes_without_a_changeset(tiny_paths):
    store, iris = GraphStore(), Iris()
    ingest_paths(store, tiny_paths)
    store.remove_graphs([iris.history_index_graph, iris.changeset_graph(1)])
    assert ingest_paths(store, tiny_paths).changeset is None  # every record compared with its stored graph
    assert len(list(store.quads(iris.history_index_graph))) == len(iris.stored_ids(store.named_graphs()))


def test_validation_leaves_the_history_out(tiny_store, iris):
    from kg.validation.parts import part_list

    graphs = [g for _, part in part_list(tiny_store, iris, None, True, 50) for g in part]
    assert graphs and not [g for g in graphs if iris.is_history_graph(g)]
    assert any(iris.is_history_graph(g) for g in tiny_store.named_graphs())


def test_churn_counts_the_changed_columns_and_sections(sequence):
    rows = kg.query(sequence["store"], "churn").terms
    got = {(r["by"].value, r["name"].value): int(r["changes"].value) for r in rows}
    expected: dict[tuple[str, str], int] = {}
    for rid, path, _, _ in _expected_record_changes(sequence["site"], sequence["site2"]):
        key = ("column", path.split(".")[-1])
        expected[key] = expected.get(key, 0) + 1
    records = {r["id"]: r for r in sequence["site2"]["records"]}
    for rid in (sequence["picked"]["a"], sequence["picked"]["b"]):
        section = next(s["section"] for s in records[rid]["sections"] if s.get("primary"))
        expected[("section", section)] = expected.get(("section", section), 0) + 1
    assert got == expected


def _change_key(row: dict) -> tuple:
    return tuple(row[k].value if row.get(k) is not None else None for k in ("changeset", "id", "kind", "field", "path", "old_value", "new_value"))


def _ordered(keys: list[tuple]) -> list[tuple]:
    """Rows in the order the query promises: newest changeset first, then by id and path."""
    return sorted(keys, key=lambda k: (-int(k[0]), k[1], k[4] or "", k[2]))


@pytest.mark.parametrize("limit", [0, 1, 2, 7, 100, 531, 1000, 1600, 5000])
def test_changes_within_a_limit_are_the_first_rows_of_every_change(sequence, limit):
    """Unnarrowed, the query reads only the changes within its limit (a build of 913 records is
    913 of them); the rows are those of every change, narrowed by kind (which reads them all),
    in order, cut at the limit. The four changesets: a build, then 4 records and 2 edges
    changed, then two ingests of edges only (no record counted before the edges they touch)."""
    every = _ordered([_change_key(r) for kind in ("added", "removed", "changed")
                      for r in kg.query(sequence["store"], "changes", {"kind": kind, "limit": "100000"}).terms])
    assert len({k[0] for k in every}) == 4 and len(every) > 1600
    got = [_change_key(r) for r in kg.query(sequence["store"], "changes", {"limit": str(limit)}).terms]
    assert _ordered(got) == got  # the query's own order
    assert got == every[:limit]
    since = kg.query(sequence["store"], "changes", {"after": "2", "limit": str(limit)}).terms
    assert [_change_key(r) for r in since] == [k for k in every if int(k[0]) > 2][:limit]


def test_two_ingests_in_one_session_read_what_the_session_wrote(tmp_path):
    """The recorder reads the edges and the changeset numbers of the version the ingest started
    from only where the session has not written them: a second ingest in the same session is
    changeset 2, and its edges are compared with the first ingest's."""
    edges = _load(EDGES)
    changed = copy.deepcopy(edges)
    changed["edges"][0]["evidence"] = "evidence changed in the same session"
    (tmp_path / "edges2.json").write_text(json.dumps(changed), encoding="utf-8")
    store = GraphStore(tmp_path / "kg-store")
    with store.transaction():
        first = ingest_paths(store, [str(SITE), str(EDGES)])
        second = ingest_paths(store, [str(tmp_path / "edges2.json")])
    assert first.changeset is not None and second.changeset is not None
    assert (first.changeset.number, second.changeset.number) == (1, 2)
    assert changeset_numbers(store, Iris()) == [1, 2]
    assert [(e.kind, e.before, e.after) for e in second.changeset.edges] == [
        ("changed", edges["edges"][0], changed["edges"][0])]
