"""A remote endpoint's answer that is not valid SPARQL results is exit 4 naming the endpoint (never an
internal error, never half an answer): ``kg query --endpoint`` and ``kg push``'s count check, as real
processes and, for the many generated shapes, through ``kg.cli.main`` in this process, against a
loopback server of the test's own. Valid answers in JSON, XML and TSV give the rows the store gives.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyoxigraph import QueryResultsFormat

from kg.cli import main
from kg.store import GraphStore

from loopback import loopback  # tests/loopback.py
from helpers import in_process, kg

DATA = Path(__file__).resolve().parent.parent / "data"
JSON_TYPE = "application/sparql-results+json"
XML_TYPE = "application/sparql-results+xml"
TSV_TYPE = "text/tab-separated-values"
SELECT = "SELECT ?a ?b WHERE { ?a ?b ?c }"


ANSWERS: dict[str, tuple[str, bytes]] = {}  # path -> (Content-Type, body) the server answers with


def answer_from_table(handler) -> tuple[int, dict[str, str], bytes]:
    """``ANSWERS[path]`` with 200, or 204 and no body for a path it has none for (an update)."""
    found = ANSWERS.get(handler.path.partition("?")[0])
    return (200, {"Content-Type": found[0]}, found[1]) if found else (204, {}, b"")


@pytest.fixture(scope="module")
def server():
    with loopback(answer_from_table) as running:
        yield running


def assert_store_error(code: int, stdout: str, stderr: str, url: str) -> None:
    """Exit 4, one line naming the endpoint (its query values hidden), nothing on stdout, no secret."""
    assert code == 4, (code, stderr)
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kg: error: "), stderr
    assert f"{url}/sparql?key=***" in lines[0] and "not SPARQL" in lines[0], lines[0]
    assert "SEKRIT" not in stderr and "pa55w0rd" not in stderr and stdout == ""


ISSUE_ANSWER = b'{"head":{"vars":["a"]},"results":{"bindings":[{"a":{"type":"uri","value":5}}]}}'
XML_HEAD = b'<?xml version="1.0"?><sparql xmlns="http://www.w3.org/2005/sparql-results#">'
MALFORMED = {  # one of each kind, each a real process
    "json term value a number": ("SELECT", JSON_TYPE, ISSUE_ANSWER),
    "json binding of an undeclared variable": ("SELECT", JSON_TYPE,
                                               b'{"head":{"vars":["a"]},"results":{"bindings":[{"z":{"type":"uri",'
                                               b'"value":"http://e.org/x"}}]}}'),
    "xml IRI that is not one": ("SELECT", XML_TYPE, XML_HEAD + b'<head><variable name="a"/></head><results><result>'
                                b'<binding name="a"><uri>not an iri</uri></binding></result></results></sparql>'),
    "xml boolean that is not one": ("ASK", XML_TYPE, XML_HEAD + b"<head/><boolean>yes</boolean></sparql>"),
    "xml with a DTD": ("SELECT", XML_TYPE, b'<?xml version="1.0"?><!DOCTYPE sparql [<!ENTITY e "x">]>'
                       b'<sparql xmlns="http://www.w3.org/2005/sparql-results#"><head><variable name="a"/></head>'
                       b'<results><result><binding name="a"><literal>&e;</literal></binding></result></results>'
                       b'</sparql>'),
    "tsv row of the wrong width": ("SELECT", TSV_TYPE, b'?a\t?b\n<http://e.org/x>\n'),
    "tsv term that is not one": ("SELECT", TSV_TYPE, b'?a\t?b\n<http://e.org/x>\t"open\n'),
    "csv, which loses the terms' kinds": ("SELECT", "text/csv", b"a,b\r\nhttp://e.org/x,y\r\n"),
    "a boolean for a SELECT": ("SELECT", JSON_TYPE, b'{"head":{},"boolean":true}'),
    "rows for an ASK": ("ASK", JSON_TYPE, b'{"head":{"vars":["a"]},"results":{"bindings":[]}}'),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_a_malformed_answer_is_exit_4_naming_the_endpoint(server, case):
    form, media_type, body = MALFORMED[case]
    ANSWERS["/sparql"] = (media_type, body)
    text = SELECT if form == "SELECT" else "ASK { ?a ?b ?c }"
    done = kg("query", "--text", text, "--endpoint", server.url + "/sparql?key=SEKRIT", "--user", "u",
              "--password", "pa55w0rd")
    assert_store_error(done.returncode, done.stdout, done.stderr, server.url)


def test_kg_push_refuses_a_malformed_count_answer(server, small_store):
    """The count check after a push reads the remote's answer checked whole: rows that are not
    objects are exit 4 naming the query endpoint, not an internal error."""
    ANSWERS["/sparql"] = (JSON_TYPE, b'{"head":{"vars":["g","n"]},"results":{"bindings":[5]}}')
    done = kg("push", "--store", str(small_store), "--endpoint", server.url + "/sparql?key=SEKRIT",
              "--update-endpoint", server.url + "/update", "--user", "u", env={"KG_PUSH_PASSWORD": "pa55w0rd"})
    assert done.returncode == 4, done.stderr
    assert f"{server.url}/sparql?key=***" in done.stderr and "not SPARQL JSON results" in done.stderr
    assert "SEKRIT" not in done.stderr and "pa55w0rd" not in done.stderr and "Traceback" not in done.stderr


# ---------------------------------------------------------------------------
# many malformed shapes: every mutation of a valid answer that breaks the format


VALID = {"head": {"vars": ["a", "b"]}, "results": {"bindings": [
    {"a": {"type": "uri", "value": "http://e.org/a"}, "b": {"type": "literal", "value": "x", "xml:lang": "en"}},
    {"a": {"type": "bnode", "value": "b0"}, "b": {"type": "literal", "value": "3",
                                                  "datatype": "http://www.w3.org/2001/XMLSchema#integer"}},
    {"b": {"type": "literal", "value": "plain"}}]}}
SMALL_LIST = st.lists(st.integers(), max_size=2)
SMALL_OBJECT = st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)
NOT_TEXT = st.one_of(st.integers(), st.floats(allow_nan=False), st.booleans(), st.none(), SMALL_LIST, SMALL_OBJECT)
NOT_OBJECT = st.one_of(st.integers(), st.text(max_size=5), st.booleans(), st.none(), SMALL_LIST)
NOT_LIST = st.one_of(st.integers(), st.text(max_size=5), st.booleans(), st.none(), SMALL_OBJECT)
KNOWN_TYPES = {"uri", "literal", "bnode", "typed-literal", "triple"}


@st.composite
def malformed_json(draw) -> bytes:
    doc = copy.deepcopy(VALID)
    rows = doc["results"]["bindings"]
    row = draw(st.integers(0, 1))
    name = draw(st.sampled_from(["a", "b"]))
    term = rows[row][name]
    how = draw(st.sampled_from(["field type", "field missing", "unknown type", "row", "bindings", "results", "head",
                                "vars", "var name", "undeclared", "term", "document", "boolean", "cut"]))
    if how == "field type":
        term[draw(st.sampled_from(sorted(term)))] = draw(NOT_TEXT)
    elif how == "field missing":
        del term[draw(st.sampled_from(["type", "value"]))]
    elif how == "unknown type":
        term["type"] = draw(st.text(min_size=1, max_size=8).filter(lambda t: t.lower() not in KNOWN_TYPES))
    elif how == "row":
        rows[row] = draw(NOT_OBJECT)
    elif how == "bindings":
        doc["results"]["bindings"] = draw(NOT_LIST)
    elif how == "results":
        doc["results"] = draw(NOT_OBJECT)
    elif how == "head":
        doc["head"] = draw(NOT_OBJECT)
    elif how == "vars":
        doc["head"]["vars"] = draw(NOT_LIST)
    elif how == "var name":
        doc["head"]["vars"][row] = draw(NOT_TEXT)
    elif how == "undeclared":
        rows[row][draw(st.text(min_size=1, max_size=5).filter(lambda v: v not in ("a", "b")))] = dict(term)
    elif how == "term":
        rows[row][name] = draw(NOT_OBJECT)
    elif how == "document":
        doc = draw(st.one_of(NOT_LIST.filter(lambda v: not isinstance(v, dict)), st.lists(st.integers(), max_size=2)))
    elif how == "boolean":
        doc = {"head": {}, "boolean": draw(NOT_TEXT.filter(lambda v: not isinstance(v, bool)))}
    text = json.dumps(doc).encode()
    if how == "cut":
        text = text[:draw(st.integers(0, len(text) - 1))]
    return text


MALFORMED_XML = st.sampled_from([
    b'<head><variable name="a"/></head><results><result><binding name="a"><uri></uri></binding></result></results>',
    b'<head><variable name="a"/></head><results><result><binding name="z"><uri>http://e.org/x</uri></binding>'
    b'</result></results>',
    b'<head><variable name="a"/></head><results><result><binding name="a"><literal datatype="no iri">x</literal>'
    b'</binding></result></results>',
    b'<head><variable name="a"/></head><results><result><binding name="a"><bnode></bnode></binding></result>'
    b'</results>',
    b'<head><variable/></head><results/>',
    b'<head><variable name="a"/></head><results><result><binding name="a"><unknown>x</unknown></binding></result>'
    b'</results>',
    b'<head/><boolean>maybe</boolean>',
    b'<head><variable name="a"/></head><results><result><binding name="a"><uri>http://e.org/x</uri>',
]).map(lambda inside: (XML_TYPE, XML_HEAD + inside + b"</sparql>"))
MALFORMED_TSV = st.sampled_from([b"?a\t?b\n<http://e.org/x>\n", b"?a\t?b\n<no iri>\t1\n", b'?a\t?b\n"x\t1\n',
                                 b"?a\t?b\n<http://e.org/x>\t1\t2\n", b"a\tb\n1\t2\n", b"?a\t?b\n_:\t1\n",
                                 b'?a\t?b\n"x"^^<no iri>\t1\n']).map(lambda body: (TSV_TYPE, body))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(answer=st.one_of(malformed_json().map(lambda body: (JSON_TYPE, body)), MALFORMED_XML, MALFORMED_TSV))
def test_every_malformed_shape_is_exit_4(server, answer):
    ANSWERS["/sparql"] = answer
    code, stdout, stderr = in_process(None, "query", "--text", SELECT, "--endpoint", server.url + "/sparql?key=SEKRIT",
                                      "--user", "u", "--password", "pa55w0rd")
    assert_store_error(code, stdout, stderr, server.url)


# ---------------------------------------------------------------------------
# valid answers, in each format kg reads, give the store's own rows


@pytest.mark.parametrize("fmt", [QueryResultsFormat.JSON, QueryResultsFormat.XML, QueryResultsFormat.TSV])
def test_valid_answers_in_each_format_give_the_stores_rows(server, small_store, fmt):
    store = GraphStore(small_store, read_only=True)
    text = "SELECT ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o } } ORDER BY ?s ?p ?o LIMIT 400"
    body = store.query(text).serialize(format=fmt)
    ANSWERS["/sparql"] = (fmt.media_type, body)
    remote = kg("query", "--text", text, "--endpoint", server.url + "/sparql", "--format", "csv")
    local = kg("query", "--text", text, "--store", str(small_store), "--format", "csv")
    assert remote.returncode == 0 and local.returncode == 0, remote.stderr + local.stderr
    assert remote.stdout == local.stdout and len(remote.stdout.splitlines()) == 401
