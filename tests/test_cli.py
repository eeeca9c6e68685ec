"""The command line as a new user runs it: build, info, export, exit codes."""

from __future__ import annotations

import io
import json
import sys

from pyoxigraph import NamedNode, RdfFormat, parse

from kg.cli import EXIT_INPUT, EXIT_INTERNAL, EXIT_OK, EXIT_QUARANTINE, EXIT_USAGE, main
from helpers import in_process, kg


def test_build_then_info_and_export(tmp_path, tiny_paths):
    """On the tiny catalog (the bundled one is built by ``kg build`` with no path in
    tests/test_wheel.py, from the checkout and from the wheel); counts from its JSON."""
    records = json.loads(open(tiny_paths[0], encoding="utf-8").read())["records"]
    ids = {r["id"] for r in records} | {json.loads(open(tiny_paths[1], encoding="utf-8").read())["id"]}
    edges = len(json.loads(open(tiny_paths[2], encoding="utf-8").read())["edges"])
    store = str(tmp_path / "kg-store")
    run = kg("build", *tiny_paths, "--store", store)
    assert run.returncode == EXIT_OK, run.stderr
    assert f"ingested {len(ids)} records and {edges} edges from 3 file(s)" in run.stderr
    assert "kg validate: " in run.stderr and "done in " in run.stderr
    assert run.stdout == ""  # summaries go to stderr
    info = kg("info", "--store", store, "--format", "json")
    counts = json.loads(info.stdout)["counts"]
    assert counts["System"] == len(ids) and counts["Relation"] == edges
    out = tmp_path / "catalog.json"
    assert kg("export", "--store", store, "-o", str(out)).returncode == EXIT_OK
    assert {r["id"] for r in json.loads(out.read_text())["records"]} == ids


def test_stdin_and_quarantine(tmp_path, site_catalog):
    good, bad = site_catalog["records"][0], dict(site_catalog["records"][1], tier="high")
    lines = json.dumps(good) + "\n" + json.dumps(bad) + "\n"
    run = kg("ingest", "-", "--store", str(tmp_path / "s"), stdin=lines)
    assert run.returncode == EXIT_QUARANTINE
    assert f"quarantined: <stdin>: [1] {bad['id']}: tier: must be an integer" in run.stderr
    assert "Traceback" not in run.stderr
    assert "ingested 1 records" in run.stderr


def test_strict_rejects_everything(tmp_path, site_catalog):
    bad = dict(site_catalog["records"][1], tier="high")
    lines = json.dumps(site_catalog["records"][0]) + "\n" + json.dumps(bad) + "\n"
    run = kg("ingest", "-", "--strict", "--store", str(tmp_path / "s"), stdin=lines)
    assert run.returncode == EXIT_INPUT and "nothing written" in run.stderr


def test_unreadable_file_is_exit_3_and_writes_nothing(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"records": [', encoding="utf-8")
    assert main(["ingest", str(broken), "--store", str(tmp_path / "s")]) == EXIT_INPUT


def test_usage_errors_are_exit_2():
    assert kg("export", "--format", "nope").returncode == EXIT_USAGE
    assert kg("frobnicate").returncode == EXIT_USAGE


def test_every_command_has_help_with_an_example():
    for command in ("build", "ingest", "export", "info"):
        run = kg(command, "--help")
        assert run.returncode == 0 and "example:" in run.stdout and "--store" in run.stdout


# -- kg query: where the query comes from, and how rows come out ------------------------

COUNT_SYSTEMS = "PREFIX kg: <https://w3id.org/agent-landscape/ontology#>\nSELECT (COUNT(*) AS ?n) WHERE { ?s a kg:System }\n"


def test_query_from_text_stdin_and_sparql_file(bundled_store, capsys, tmp_path, monkeypatch, site_catalog):
    store = str(bundled_store.path)
    expected = len({r["id"] for r in site_catalog["records"]})  # the seed replaces its site version
    assert in_process(capsys, "query", "--text", COUNT_SYSTEMS, "--store", store, "-f", "csv")[1].split() == \
        ["n", str(expected)]
    monkeypatch.setattr("sys.stdin", io.StringIO(COUNT_SYSTEMS))
    assert in_process(capsys, "query", "-", "--store", store, "-f", "csv")[1].split() == ["n", str(expected)]
    query = tmp_path / "count.SPARQL"
    query.write_text(COUNT_SYSTEMS, encoding="utf-8")
    assert in_process(capsys, "query", str(query), "--store", store, "-f", "csv")[1].split() == ["n", str(expected)]
    # a user's query may not reach out, whatever it comes from
    code, _, err = in_process(capsys, "query", "--text",
                              "SELECT * WHERE { SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } }", "--store", store)
    assert code == EXIT_USAGE and "SERVICE" in err


def test_query_json_rows_are_objects(bundled_store, capsys, site_catalog):
    code, out, _ = in_process(capsys, "query", "search", "-p", "text=graph", "-f", "json",
                              "--store", str(bundled_store.path))
    rows = json.loads(out)
    assert code == EXIT_OK and rows and all(isinstance(r, dict) for r in rows)
    names = {r["id"]: r["name"] for r in site_catalog["records"]}
    assert all(names[r["id"]] == r["name"] for r in rows if r["id"] in names)
    assert all(isinstance(r["tier"], int) for r in rows)


def test_query_list_shows_questions_and_typed_parameters(capsys):
    from kg import queries

    code, out, _ = in_process(capsys, "query", "--list", "-f", "json")
    listed = {row["name"]: row for row in json.loads(out)}
    assert code == EXIT_OK and set(listed) == set(queries.available())
    search = queries.load("search")
    assert listed["search"]["question"] == search.question
    for param in search.params:
        assert f"{param.name} ({param.type}" in listed["search"]["params"]
        if param.default is not None:
            assert f"default={param.default}" in listed["search"]["params"]


def test_an_unexpected_failure_is_one_line_and_exit_70(capsys, monkeypatch, tmp_path):
    from kg import queries

    def broken(*args, **kwargs):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(queries, "listing", broken)
    code, _, err = in_process(capsys, "query", "--list")
    assert code == EXIT_INTERNAL == 70
    assert err.count("\n") == 1 and "RuntimeError: simulated bug" in err and "Traceback" not in err
    code, _, err = in_process(capsys, "query", "--list", "--debug")
    assert code == EXIT_INTERNAL and "Traceback" in err


# -- kg export: formats from the extension, one graph, the union ------------------------


def test_export_format_follows_the_extension_in_any_case(bundled_store, capsys, tmp_path):
    store = str(bundled_store.path)
    turtle, rdfxml = tmp_path / "x.TTL", tmp_path / "x.rdf"
    assert in_process(capsys, "export", "-o", str(turtle), "--store", store)[0] == EXIT_OK
    assert in_process(capsys, "export", "-o", str(rdfxml), "--store", store, "--graph",
                      "https://w3id.org/agent-landscape/id/graph/record/mem0--mem0-ai")[0] == EXIT_OK
    triples = {(t.subject, t.predicate, t.object) for t in parse(path=str(turtle), format=RdfFormat.TURTLE)}
    assert len(triples) > 200_000
    graph = {(q.subject, q.predicate, q.object) for q in bundled_store.quads(
        NamedNode("https://w3id.org/agent-landscape/id/graph/record/mem0--mem0-ai"))}
    assert {(t.subject, t.predicate, t.object) for t in parse(path=str(rdfxml), format=RdfFormat.RDF_XML)} == graph
    assert not list(tmp_path.glob(".kg-export-*"))  # written beside, then renamed


def test_export_unknown_graph_is_a_usage_error(bundled_store, capsys):
    code, _, err = in_process(capsys, "export", "-f", "nquads", "--graph", "https://example.org/none",
                              "--store", str(bundled_store.path))
    assert code == EXIT_USAGE and "no such named graph" in err


def test_plain_jsonld_is_read_by_rdflib(bundled_store, capsys, tmp_path):
    import rdflib

    record = "https://w3id.org/agent-landscape/id/graph/record/mem0--mem0-ai"
    out = tmp_path / "mem0.jsonld"
    assert in_process(capsys, "export", "-o", str(out), "--union", "--graph", record,
                      "--store", str(bundled_store.path))[0] == EXIT_OK
    read = rdflib.Graph().parse(out, format="json-ld")
    assert len(read) == len(list(bundled_store.quads(NamedNode(record)))) > 100
