"""Validators and compression on a real ``kg serve``: an ETag (from the store's generation and
the request) and Last-Modified on every GET and HEAD answer, 304 on revalidation, a new ETag
once an ingest made a new generation current, and gzip that decodes to the plain answer."""

from __future__ import annotations

import gzip
import json
import time
import email.utils
import urllib.parse
from pathlib import Path

import httpx
import pytest
from serving import http, kg_serve
from helpers import kg


ROOT = Path(__file__).resolve().parent.parent
COUNT = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
PATHS = ["/", "/id/system/", "/id/system/smolagents-memory--huggingface-co", "/sparql",
         "/sparql?query=" + urllib.parse.quote(COUNT), "/queries/search"]


@pytest.fixture(scope="module")
def served(small_store):
    with kg_serve(small_store) as url:
        yield url


@pytest.mark.parametrize("path", PATHS)
def test_etag_is_present_stable_and_revalidates(served, path):
    status, headers, body = http("GET", served + path)
    assert status == 200, path
    etag, modified = headers["etag"], headers["last-modified"]
    assert headers["vary"] == "Accept, Accept-Encoding"
    again = http("GET", served + path)[1]
    assert again["etag"] == etag
    status, headers304, body304 = http("GET", served + path, **{"If-None-Match": etag})
    assert status == 304 and body304 == b"" and headers304["etag"] == etag
    assert http("GET", served + path, **{"If-None-Match": '"other"'})[0] == 200
    later = email.utils.formatdate(email.utils.parsedate_to_datetime(modified).timestamp() + 2, usegmt=True)
    assert http("GET", served + path, **{"If-Modified-Since": later})[0] == 304
    # the Last-Modified sent back is current (whole seconds compared, as HTTP dates are); a second before is not
    assert http("GET", served + path, **{"If-Modified-Since": modified})[0] == 304
    earlier = email.utils.formatdate(email.utils.parsedate_to_datetime(modified).timestamp() - 1, usegmt=True)
    assert http("GET", served + path, **{"If-Modified-Since": earlier})[0] == 200
    status, head, nothing = http("HEAD", served + path)
    assert status == 200 and nothing == b"" and head["etag"] == etag and head["vary"] == "Accept, Accept-Encoding"


def test_etag_depends_on_the_negotiated_type(served):
    url = served + "/sparql?query=" + urllib.parse.quote(COUNT)
    as_json = http("GET", url, Accept="application/sparql-results+json")[1]["etag"]
    as_csv = http("GET", url, Accept="text/csv")[1]["etag"]
    assert as_json != as_csv


def test_post_has_no_etag(served):
    status, headers, _ = http("POST", served + "/sparql", COUNT.encode(),
                              **{"Content-Type": "application/sparql-query"})
    assert status == 200 and "etag" not in headers


def test_gzip_decodes_to_the_plain_answer(served):
    url = served + "/id/system/"
    plain = httpx.get(url, headers={"Accept-Encoding": "identity"}, timeout=30)
    zipped = httpx.get(url, headers={"Accept-Encoding": "gzip"}, timeout=30)
    assert len(plain.content) > 1024
    assert plain.headers.get("content-encoding") is None
    assert zipped.headers["content-encoding"] == "gzip"
    assert zipped.content == plain.content  # httpx decodes it
    assert zipped.headers["etag"] != plain.headers["etag"]  # another representation
    assert zipped.headers["vary"] == plain.headers["vary"] == "Accept, Accept-Encoding"
    assert http("GET", url, **{"Accept-Encoding": "gzip", "If-None-Match": zipped.headers["etag"]})[0] == 304
    raw = httpx.Client().send(httpx.Request("GET", url, headers={"Accept-Encoding": "gzip"}), stream=True)
    assert gzip.decompress(b"".join(raw.iter_raw())) == plain.content
    raw.close()


def test_a_new_ingest_gives_a_new_etag_and_no_304(small_store, tmp_path):
    with kg_serve(small_store) as url:
        target = url + "/sparql?query=" + urllib.parse.quote(COUNT)
        status, headers, body = http("GET", target, Accept="application/sparql-results+json")
        old = headers["etag"]
        before = int(json.loads(body)["results"]["bindings"][0]["n"]["value"])
        record = json.loads((ROOT / "data" / "seed-record.json").read_text(encoding="utf-8"))
        record["name"] = str(record.get("name", "")) + " ~v2"
        changed = tmp_path / "renamed.json"
        changed.write_text(json.dumps(record), encoding="utf-8")
        kg("ingest", "--store", str(small_store), str(changed), check=True)
        deadline = time.monotonic() + 5
        while True:
            status, headers, body = http("GET", target, Accept="application/sparql-results+json",
                                         **{"If-None-Match": old})
            if status == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert status == 200 and headers["etag"] != old
        assert int(json.loads(body)["results"]["bindings"][0]["n"]["value"]) > 0 and before > 0
