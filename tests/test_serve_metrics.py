"""``/metrics`` (``kg serve --metrics``): the server's counters in the Prometheus text format, scraped
from a real server and read with the Prometheus client's own parser; each count checked against the
requests this test sent (and the store's generation against the store)."""

from __future__ import annotations

import time

import httpx
import pytest

from serving import kg_serve

parser = pytest.importorskip("prometheus_client.parser")
CARTESIAN = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"
SERVICE = "SELECT * WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } }"


def scrape(url: str) -> dict[tuple[str, tuple], float]:
    """Every sample of ``/metrics``: (name, its labels sorted) -> value."""
    answer = httpx.get(url + "/metrics", timeout=30)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/plain; version=")
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in parser.text_string_to_metric_families(answer.text) for s in family.samples}


def requests_of(samples: dict, route: str, status: int, method: str = "GET") -> float:
    return samples.get(("kg_http_requests_total", (("method", method), ("route", route), ("status", str(status)))), 0)


@pytest.fixture(scope="module")
def served(bundled_store):
    with kg_serve(bundled_store.path, "--metrics", "--timeout", "1") as url:
        yield url


def test_metrics_count_what_the_server_answered(served, bundled_store, expected_records):
    from kg.store import GraphStore

    url = served
    system = sorted(expected_records)[0]
    for _ in range(3):
        assert httpx.get(url + "/", timeout=30).status_code == 200
    for _ in range(2):  # the second answer comes from the answer cache
        assert httpx.get(f"{url}/id/system/{system}", headers={"Accept": "text/turtle"}, timeout=30).status_code == 200
    assert httpx.get(url + "/nowhere", timeout=30).status_code == 404
    assert httpx.get(url + "/sparql", params={"query": SERVICE}, timeout=30).status_code == 400
    assert httpx.get(url + "/sparql", params={"query": "ASK { ?s a ?o }"}, timeout=30).status_code == 200

    samples = scrape(url)
    assert requests_of(samples, "/", 200) == 3
    assert requests_of(samples, "/id/{rest:path}", 200) == 2
    assert requests_of(samples, "unrouted", 404) == 1
    assert requests_of(samples, "/sparql", 400) == 1 and requests_of(samples, "/sparql", 200) == 1
    assert requests_of(samples, "/metrics", 200) == 0  # a scrape is counted once it is answered
    latency = {labels: value for (name, labels), value in samples.items()
               if name == "kg_http_request_duration_seconds_count"}
    assert latency[(("route", "/"),)] == 3 and latency[(("route", "/id/{rest:path}"),)] == 2
    buckets = sorted((float(dict(labels)["le"]), value) for (name, labels), value in samples.items()
                     if name == "kg_http_request_duration_seconds_bucket" and dict(labels)["route"] == "/")
    assert buckets[-1] == (float("inf"), 3) and [v for _, v in buckets] == sorted(v for _, v in buckets)
    assert samples[("kg_answer_cache_hits_total", ())] >= 1
    assert samples[("kg_store_generation", ())] == GraphStore.latest_generation(bundled_store.path)
    assert samples[("kg_workers", ())] == 1
    # counted in the worker, gathered in the server
    assert samples[("kg_worker_queries_refused_total", ())] == 1
    assert samples[("kg_worker_queries_evaluated_total", ())] >= 1
    assert samples[("kg_query_timeouts_total", ())] == 0 and samples[("kg_worker_replacements_total", ())] == 0
    assert requests_of(scrape(url), "/metrics", 200) == 1


def test_a_timeout_and_the_replaced_worker_are_counted(served):
    url = served
    before = scrape(url)
    answer = httpx.get(url + "/sparql", params={"query": CARTESIAN}, timeout=60)
    assert answer.status_code == 504
    deadline = time.monotonic() + 60
    while httpx.get(url + "/health", timeout=30).json()["replaced"] < 1:
        assert time.monotonic() < deadline, "the worker was never replaced"
        time.sleep(0.2)
    after = scrape(url)
    assert after[("kg_query_timeouts_total", ())] == before[("kg_query_timeouts_total", ())] + 1
    assert after[("kg_worker_replacements_total", ())] == before[("kg_worker_replacements_total", ())] + 1
    assert requests_of(after, "/sparql", 504) == 1
    # what the killed worker had counted is kept: the totals never go down
    assert after[("kg_worker_queries_refused_total", ())] >= before[("kg_worker_queries_refused_total", ())]


def test_metrics_are_off_unless_asked_for(bundled_store):
    from starlette.testclient import TestClient

    from kg.serve import create_app

    with TestClient(create_app(bundled_store.path, workers=1, allowed_hosts=("testserver",))) as client:
        answer = client.get("/metrics")
        assert answer.status_code == 404 and "--metrics" in answer.json()["message"]
