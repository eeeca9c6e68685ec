"""kg.output: every row and graph format, on real query results of the bundled catalog."""

from __future__ import annotations

import csv
import io
import json

import pytest
import rdflib
from pyoxigraph import Literal, NamedNode, QueryResultsFormat, RdfFormat, parse, parse_query_results

from kg import output, queries
from kg.errors import UsageError
from kg.vocab import XSD


def _rows(store, name, **params):
    return queries.run(store, name, params)


def test_json_is_an_array_of_objects_with_typed_numbers(bundled_store, site_catalog):
    out = io.StringIO()
    count = output.write_rows(_rows(bundled_store, "search", text="graph", tier="1", limit="5"), out, "json")
    rows = json.loads(out.getvalue())
    assert isinstance(rows, list) and len(rows) == count == 5
    tiers = {r["id"]: r["tier"] for r in site_catalog["records"]}
    for row in rows:
        assert row["tier"] == tiers[row["id"]] == 1 and isinstance(row["tier"], int)
        assert set(row) == {"id", "name", "tier", "primary_section", "matched"}


def test_jsonl_is_one_object_a_line(bundled_store):
    out = io.StringIO()
    output.write_rows(_rows(bundled_store, "search", text="graph", limit="7"), out, "jsonl")
    lines = out.getvalue().splitlines()
    assert len(lines) == 7
    assert all(isinstance(json.loads(line), dict) for line in lines)


def test_sparql_json_is_the_w3c_format(bundled_store):
    out = io.StringIO()
    output.write_rows(_rows(bundled_store, "search", text="graph", limit="3"), out, "sparql-json")
    parsed = list(parse_query_results(out.getvalue().encode(), QueryResultsFormat.JSON))
    assert len(parsed) == 3
    assert parsed[0]["tier"].datatype == XSD.integer


def test_json_keeps_unbound_columns_as_null_and_types_booleans():
    out = io.StringIO()
    output.write_rows([{"a": Literal("true", datatype=XSD.boolean)}, {"b": Literal("2.5", datatype=XSD.double)}],
                      out, "json", ["a", "b"])
    assert json.loads(out.getvalue()) == [{"a": True, "b": None}, {"a": None, "b": 2.5}]


def test_empty_json_is_an_empty_array():
    out = io.StringIO()
    assert output.write_rows([], out, "json", ["a"]) == 0
    assert json.loads(out.getvalue()) == []


def test_ill_typed_numbers_stay_text():
    assert output.plain_json(Literal("12a", datatype=XSD.integer)) == "12a"
    assert output.plain_json(Literal("NaN", datatype=XSD.double)) == "NaN"


def test_csv_and_tsv_headers(bundled_store):
    out = io.StringIO()
    output.write_rows(_rows(bundled_store, "sections"), out, "csv")
    table = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert table and set(table[0]) == {"section", "systems", "tier1", "tier2", "tier3", "tier4", "tier5"}


def test_tsv_is_the_w3c_format_the_endpoint_answers(bundled_store):
    """-f tsv writes W3C SPARQL 1.1 TSV, field for field what the endpoint's pyoxigraph writer gives
    (``text/tab-separated-values``); -f tab is the plain tab-separated text."""
    out = io.StringIO()
    count = output.write_rows(_rows(bundled_store, "sections"), out, "tsv")
    endpoint = bundled_store.query(queries.plan("sections", {}, bundled_store).text)
    ours, theirs = out.getvalue().splitlines(), endpoint.serialize(format=QueryResultsFormat.TSV).decode().splitlines()
    assert ours[0] == theirs[0] == "?section\t?systems\t?tier1\t?tier2\t?tier3\t?tier4\t?tier5"
    assert sorted(ours[1:]) == sorted(line for line in theirs[1:] if line) and count == len(ours) - 1 > 5
    plain = io.StringIO()
    output.write_rows(_rows(bundled_store, "search", text="graph", limit="9"), plain, "tab")
    assert plain.getvalue().startswith("id\tname\t") and '"' not in plain.getvalue().splitlines()[1]


def test_tsv_writes_plain_python_values_as_typed_terms():
    rows = [{"n": 3, "ok": True, "x": 0.5, "text": "a\tb\nc", "iri": NamedNode("https://e.org/x"), "none": None,
             "lang": Literal("chat", language="fr")}]
    out = io.StringIO()
    output.write_rows(rows, out, "tsv")
    header, line = out.getvalue().splitlines()
    assert header.split("\t") == ["?n", "?ok", "?x", "?text", "?iri", "?none", "?lang"]
    assert line.split("\t")[:2] == ["3", "true"] and line.count("\t") == 6
    parsed = next(iter(parse_query_results(out.getvalue().encode(), QueryResultsFormat.TSV)))
    assert [parsed[name] for name in ("n", "text", "iri", "none", "lang")] == [
        Literal("3", datatype=XSD.integer), Literal("a\tb\nc"), NamedNode("https://e.org/x"), None,
        Literal("chat", language="fr")]
    assert parsed["x"] == Literal("0.5", datatype=XSD.double)


@pytest.mark.parametrize("fmt,rdf_format", [("turtle", RdfFormat.TURTLE), ("ntriples", RdfFormat.N_TRIPLES),
                                            ("jsonld", RdfFormat.JSON_LD), ("rdfxml", RdfFormat.RDF_XML)])
def test_graph_formats_parse_back(bundled_store, fmt, rdf_format):
    shown = list(queries.run(bundled_store, "show", {"id": "mem0--mem0-ai"}))
    out = io.StringIO()
    count = output.write_graph(shown, out, fmt)
    parsed = {(t.subject, t.predicate, t.object) for t in parse(out.getvalue().encode(), rdf_format)}
    assert parsed == {(t.subject, t.predicate, t.object) for t in shown} and count == len(parsed)


def test_rdfxml_is_read_by_rdflib_too(bundled_store):
    shown = list(queries.run(bundled_store, "show", {"id": "mem0--mem0-ai"}))
    out = io.StringIO()
    output.write_graph(shown, out, "rdfxml")
    assert len(rdflib.Graph().parse(data=out.getvalue(), format="xml")) == len(set(shown))


def test_ask_answers_in_every_row_format():
    for fmt, expected in (("table", "true\n"), ("json", "true\n"), ("jsonl", "true\n")):
        out = io.StringIO()
        output.write_boolean(True, out, fmt)
        assert out.getvalue() == expected
    out = io.StringIO()
    output.write_boolean(False, out, "sparql-json")
    assert json.loads(out.getvalue()) == {"head": {}, "boolean": False}


def test_rows_are_not_graphs():
    with pytest.raises(UsageError):
        output.write_result([{"a": NamedNode("https://example.org/a")}], io.StringIO(), "turtle")


def test_cli_rdfxml_refuses_a_character_xml_forbids_and_writes_nothing(tmp_path, capsys):
    """kg query -f rdfxml on a store holding a literal with U+0001: exit 2, one line, no
    output; the same graph without it parses as XML; N-Triples carries the value."""
    import xml.etree.ElementTree as ElementTree

    from pyoxigraph import Quad

    from kg.cli import main
    from kg.store import GraphStore

    g, s, p = NamedNode("https://example.org/g"), NamedNode("https://example.org/s"), NamedNode("https://example.org/p")
    store = GraphStore(tmp_path / "kg-store")
    store.add([Quad(s, p, Literal("a\x01b"), g), Quad(s, p, Literal("clean <&>"), g)])
    del store
    construct = "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o %s }"
    args = ["query", "--store", str(tmp_path / "kg-store"), "-f"]
    assert main(args + ["rdfxml", "--text", construct % ""]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1
    assert "U+0001" in err and "XML 1.0 forbids" in err
    assert main(args + ["rdfxml", "--text", construct % 'FILTER(STRSTARTS(?o, "clean"))']) == 0
    document = ElementTree.fromstring(capsys.readouterr().out.encode("utf-8"))
    assert [e.text for e in document.iter("{https://example.org/}p")] == ["clean <&>"]
    assert main(args + ["ntriples", "--text", construct % ""]) == 0
    assert "a\\u0001b" in capsys.readouterr().out


def test_graphml_and_gexf_refuse_a_character_xml_forbids(tmp_path, seed_record, capsys):
    """A system whose name holds U+0001: kg export of the systems projection as GraphML or
    GEXF is exit 2 with one line and no file; node-link JSON carries the name exactly."""
    from kg.cli import main
    from kg.ingestion import ingest_paths
    from kg.store import GraphStore

    record = {**seed_record, "name": "Seed\x01Name"}
    source = tmp_path / "record.json"
    source.write_text(json.dumps(record), encoding="utf-8")
    store = GraphStore(tmp_path / "kg-store")
    assert not ingest_paths(store, [str(source)]).quarantined
    del store
    for fmt, name in (("graphml", "systems.graphml"), ("gexf", "systems.gexf")):
        code = main(["export", "--store", str(tmp_path / "kg-store"), "-f", fmt, "--projection", "systems",
                     "-o", str(tmp_path / name)])
        err = capsys.readouterr().err
        assert code == 2 and len(err.strip().splitlines()) == 1 and "U+0001" in err, err
        assert not (tmp_path / name).exists()
    assert main(["export", "--store", str(tmp_path / "kg-store"), "-f", "node-link", "--projection", "systems",
                 "-o", str(tmp_path / "systems.json")]) == 0
    nodes = json.loads((tmp_path / "systems.json").read_text(encoding="utf-8"))["nodes"]
    assert [n["name"] for n in nodes if n["id"] == seed_record["id"]] == ["Seed\x01Name"]


@pytest.mark.parametrize("value", ["x" * 59, "x" * 60, "x" * 61, "a\x01b" * 30, "x" * 58 + "\x01", "x" * 59 + "\x01",
                                   "x" * 60 + "\x01", "word  \n  word\tword " * 20, "\x1b[31m" + "y" * 70, ""])
def test_a_table_cell_is_escaped_then_cut_to_the_table_width(value):
    """Escaped after the cut (faster on long text): the cell is the whole text escaped, cut to TABLE_WIDTH."""
    from kg.errors import safe_text
    from kg.output import TABLE_WIDTH, _compact

    whole = safe_text(" ".join(value.split()), limit=100_000)
    want = whole if len(whole) <= TABLE_WIDTH else whole[:TABLE_WIDTH - 1] + "…"
    assert _compact(Literal(value)) == want
