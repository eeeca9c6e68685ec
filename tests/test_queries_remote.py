"""kg query NAME --endpoint URL: every named query asked of a real Oxigraph server holding
the bundled catalog gives the same rows as the embedded store; credentials go to the named
endpoint only and a redirect is never followed. One server for the whole file (its graph
is read, never changed).

The server's database is made with Oxigraph's own bulk loader from our N-Quads dump: the
same quads ``kg push`` writes (tests/test_push.py pushes the bundled catalog to a real
server and checks every graph's quads), in a fraction of the time a push takes.
"""

from __future__ import annotations

import base64
import http.server
import threading
from collections import Counter

import pytest
from pyoxigraph import QueryBoolean, QuerySolutions

from kg import queries
from kg.cli import main
from kg.endpoint import Endpoint
from kg.errors import NotFound, StoreError


def _push_tests():
    """tests/test_push.py (its OxigraphServer runs the real ``oxigraph serve``), loaded from its file."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("kg_test_push", Path(__file__).with_name("test_push.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

# parameters for every named query that needs some (the rest run with none)
PARAMS = {
    "compare": {"a": "mem0--mem0-ai", "b": "zep-graphiti--getzep-com"},
    "compliant-systems": {"framework": "SOC 2"},
    "recent": {"since": "2026-Q1", "limit": "30"},
    "related": {"id": "mem0--mem0-ai", "edge_direction": "incoming"},
    "search": {"text": "  Temporal knowledge GRAPH "},
    "show": {"id": "mem0--mem0-ai"},
    "substrate-risk": {"system": "OpenAI GPT family"},
    "coverage": {"by": "feature"},
    "find": {"open": "true", "selfhost": "true", "protocol": "mcp", "section": "memory layers"},
    "field-history": {"system": "smolagents-memory--huggingface-co", "column": "latest-release"},  # the seed record's own history
}
UNORDERED = ("select-analysis-systems", "select-analysis-protocols", "show")  # no ORDER BY: compared as multisets


@pytest.fixture(scope="module")
def remote(tmp_path_factory, bundled_store):
    import subprocess

    folder = tmp_path_factory.mktemp("oxigraph-remote")
    dump = folder / "bundled.nq"
    with dump.open("wb") as out:
        bundled_store.dump(out, "nquads")
    push_tests = _push_tests()
    server_class, binary = push_tests.OxigraphServer, push_tests._oxigraph_binary()
    subprocess.run([binary, "load", "--location", str(folder / "db"), "--file", str(dump)], check=True,
                   capture_output=True, timeout=300)
    server = server_class(folder / "db")
    try:
        yield server
    finally:
        server.stop()


def test_the_server_holds_what_kg_push_would_write(remote, bundled_store):
    """As many quads in as many named graphs as the store: what kg push verifies after pushing."""
    count = "SELECT (COUNT(DISTINCT ?g) AS ?graphs) (COUNT(*) AS ?quads) WHERE { GRAPH ?g { ?s ?p ?o } }"
    here = bundled_store.select(count)[0]
    there = Endpoint(remote.url + "/query").select(count)[0]
    assert (there["graphs"], there["quads"]) == (here["graphs"], here["quads"])
    assert int(here["graphs"].value) > 900


def _settled(name, term):
    """A GROUP_CONCAT of find's taxonomy, whose parts come in no set order, made comparable."""
    if name == "taxonomy" and term is not None:
        return "; ".join(sorted(term.value.split("; ")))
    return term


def answer(result):
    if isinstance(result, QueryBoolean):
        return bool(result)
    if isinstance(result, QuerySolutions) or hasattr(result, "variables"):
        names = [v.value for v in result.variables]
        return names, [tuple(_settled(n, row[n]) for n in names) for row in result]
    return sorted(str(t) for t in result)


@pytest.mark.parametrize("name", queries.available())
def test_every_named_query_gives_the_same_rows_remotely(bundled_store, remote, name):
    params = PARAMS.get(name, {})
    local = answer(queries.run(bundled_store, name, params))
    far = answer(queries.run(Endpoint(remote.url + "/query"), name, params))
    if isinstance(local, tuple) and name in UNORDERED:
        assert local[0] == far[0] and Counter(local[1]) == Counter(far[1])
    else:
        assert far == local
    if name in PARAMS:
        assert local and (not isinstance(local, tuple) or local[1])  # a meaningful comparison


def test_the_command_line_with_endpoint(remote, bundled_store, capsys):
    args = ["query", "substrate-risk", "-p", "system=OpenAI GPT family", "-f", "csv"]
    assert main([*args, "--store", str(bundled_store.path)]) == 0
    here = capsys.readouterr().out
    assert main([*args, "--endpoint", remote.url + "/query"]) == 0
    assert capsys.readouterr().out == here and here.count("\n") > 40
    assert main(["query", "show", "-p", "id=mem0--mem0", "--endpoint", remote.url + "/query"]) == 6
    assert "did you mean: mem0--mem0-ai (Mem0)" in capsys.readouterr().err
    with pytest.raises(NotFound):
        queries.query(Endpoint(remote.url + "/query"), "related", {"id": "no-such-system"})


# ---------------------------------------------------------------------------
# credentials and redirects, against loopback servers of the test's own


class Recorder(http.server.ThreadingHTTPServer):
    """Answers every request with ``answer`` (status, headers, body) and records its headers."""

    def __init__(self, answer):
        self.seen: list[dict] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.server.seen.append(dict(self.headers))
                status, headers, body = answer(self)
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        super().__init__(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server_address[1]}"
        threading.Thread(target=self.serve_forever, daemon=True).start()


@pytest.fixture()
def servers():
    made = []

    def make(answer):
        made.append(Recorder(answer))
        return made[-1]

    yield make
    for server in made:
        server.shutdown()
        server.server_close()


EMPTY_ROWS = b'{"head": {"vars": ["id"]}, "results": {"bindings": []}}'


def test_credentials_go_to_the_named_endpoint(servers):
    endpoint = servers(lambda h: (200, {"Content-Type": "application/sparql-results+json"}, EMPTY_ROWS))
    result = Endpoint(endpoint.url + "/sparql", user="kg", password="s3cret").query("SELECT ?id WHERE { ?s ?p ?id }")
    assert list(result) == []
    assert endpoint.seen[0]["Authorization"] == "Basic " + base64.b64encode(b"kg:s3cret").decode()


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
def test_a_redirect_is_never_followed_with_credentials(servers, code):
    elsewhere = servers(lambda h: (200, {"Content-Type": "application/sparql-results+json"}, EMPTY_ROWS))
    endpoint = servers(lambda h: (code, {"Location": elsewhere.url + "/steal"}, b""))
    with pytest.raises(StoreError, match=f"answered {code} with a redirect to {elsewhere.url}/steal; kg follows no"):
        Endpoint(endpoint.url + "/sparql", user="kg", password="s3cret").query("SELECT ?id WHERE { ?s ?p ?id }")
    assert len(endpoint.seen) == 1 and "Authorization" in endpoint.seen[0]
    assert elsewhere.seen == []  # neither the credentials nor the query went anywhere else


def test_an_unreachable_endpoint_is_one_line_without_the_password():
    with pytest.raises(StoreError, match="cannot reach http://127.0.0.1:9/sparql") as caught:
        Endpoint("http://kg:s3cret@127.0.0.1:9/sparql?key=abc", timeout=2).query("ASK { ?s ?p ?o }")
    assert "s3cret" not in str(caught.value) and "abc" not in str(caught.value)
