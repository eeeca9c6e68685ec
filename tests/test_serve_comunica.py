"""``kg serve`` asked by Comunica 4 (``@comunica/query-sparql``, npm), a client nobody here wrote:
as a SPARQL endpoint named as such, as a plain URL (Comunica finds the endpoint from the service
description), and through the whole-dataset dump at ``/store`` (Comunica reads the N-Quads and
evaluates the query itself). Answers are checked against the bundled catalog's JSON.

``.ci/run`` installs Comunica from the npm registry and names its ``comunica-sparql`` in
``KG_COMUNICA``; elsewhere the tests look for ``comunica-sparql`` on PATH and are skipped without
it (in CI, a missing Comunica fails them). Nothing is fetched at test time.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from serving import kg_serve

rdflib = pytest.importorskip("rdflib")

KG = "https://w3id.org/agent-landscape/ontology#"
TIER_FIVE = (f"PREFIX kg: <{KG}> PREFIX schema: <https://schema.org/> "
             "SELECT ?system ?name WHERE { ?system a kg:System ; kg:tier 5 ; schema:name ?name }")


def _comunica() -> str:
    found = os.environ.get("KG_COMUNICA") or shutil.which("comunica-sparql")
    if found:
        return found
    why = "Comunica is not installed (npm install @comunica/query-sparql@4; .ci/run does)"
    if os.environ.get("CI"):
        pytest.fail(why)
    pytest.skip(why)


@pytest.fixture(scope="module")
def server(bundled_store):
    comunica = _comunica()
    with kg_serve(bundled_store.path) as url:
        yield comunica, url


def comunica(server, source: str, query: str, media_type: str) -> str:
    program, url = server
    done = subprocess.run([program, source.format(url=url), query, "-t", media_type],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def bindings(text: str) -> list[dict[str, str]]:
    return [{name: term["value"] for name, term in row.items()}
            for row in json.loads(text)["results"]["bindings"]]


@pytest.fixture(scope="module")
def tier_five(expected_records) -> set[str]:
    return {r["name"] for r in expected_records.values() if r["tier"] == 5}


def test_select_from_the_endpoint(server, tier_five):
    rows = bindings(comunica(server, "sparql@{url}/sparql", TIER_FIVE, "application/sparql-results+json"))
    assert {row["name"] for row in rows} == tier_five
    assert all(row["system"].startswith("https://w3id.org/agent-landscape/id/system/") for row in rows)


def test_the_endpoint_found_from_a_plain_url(server, expected_records):
    """No ``sparql@``: Comunica asks the URL what it is and reads our service description."""
    query = f"SELECT (COUNT(?s) AS ?n) WHERE {{ ?s a <{KG}System> }}"
    rows = bindings(comunica(server, "{url}/sparql", query, "application/sparql-results+json"))
    assert int(rows[0]["n"]) == len(expected_records)


def test_construct_and_ask(server, tier_five):
    query = (f"PREFIX kg: <{KG}> PREFIX schema: <https://schema.org/> "
             "CONSTRUCT { ?s schema:name ?n } WHERE { ?s a kg:System ; kg:tier 5 ; schema:name ?n }")
    graph = rdflib.Graph().parse(data=comunica(server, "sparql@{url}/sparql", query, "application/n-triples"),
                                 format="nt")
    assert {str(o) for o in graph.objects(None, rdflib.URIRef("https://schema.org/name"))} == tier_five
    answer = comunica(server, "sparql@{url}/sparql", f"ASK {{ ?s a <{KG}Protocol> }}",
                      "application/sparql-results+json")
    assert json.loads(answer)["boolean"] is True


def test_the_data_dump_read_as_a_file(server, expected_records):
    """``/store`` is the whole dataset as N-Quads: Comunica loads it and counts the record graphs' systems."""
    query = f"SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE {{ GRAPH ?g {{ ?s a <{KG}System> }} }}"
    rows = bindings(comunica(server, "file@{url}/store", query, "application/sparql-results+json"))
    assert int(rows[0]["n"]) == len(expected_records)


def test_the_site_address_answers_its_service_description(server, expected_records):
    """Comunica given the site's own address (``/``, the query page for a browser) asks it for RDF,
    reads the service description there and sends the query to the endpoint it names."""
    query = f"SELECT (COUNT(?s) AS ?n) WHERE {{ ?s a <{KG}System> }}"
    rows = bindings(comunica(server, "{url}/", query, "application/sparql-results+json"))
    assert int(rows[0]["n"]) == len(expected_records)
