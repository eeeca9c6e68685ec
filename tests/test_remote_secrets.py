"""A remote server that echoes the password it was sent, in every encoding it might, never gets it
printed: ``kg query --endpoint`` and ``kg push`` as real processes against a loopback server of the
test's own that decodes the Basic credentials it receives and fails (500) with an HTML page holding
them raw, percent-encoded, form-encoded, HTML-escaped, as numeric character references, as latin-1
bytes, as UTF-8 read as latin-1 (mojibake), JSON-escaped and as the Basic token.

Passwords with markup in them are the point: a page's tags were once stripped before the
secrets were hidden, so ``ab<c>de`` came out as ``ab de`` and ``p&ss<w>"rd`` as ``p&ss "rd``.
"""

from __future__ import annotations

import base64
import html
import json
import re
import subprocess
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest

from loopback import loopback  # tests/loopback.py
from helpers import kg

DATA = Path(__file__).resolve().parent.parent / "data"
USER = "kg-pusher"
PASSWORDS = ["ab<c>de", 'p&ss<w>"rd', "Grüße<i>Secret7</i>", "Ñandú Secreto9&x"]

ECHOES = {  # label -> the password (and the Basic token) as the page carries it, in bytes
    "raw": lambda pw, token: pw.encode("utf-8"),
    "percent": lambda pw, token: quote(pw, safe="").encode(),
    "form": lambda pw, token: quote_plus(pw).encode(),
    "escaped": lambda pw, token: html.escape(pw).encode(),
    "refs": lambda pw, token: "".join(f"&#{ord(c)};" for c in pw).encode(),
    "latin1": lambda pw, token: pw.encode("latin-1"),
    "mojibake": lambda pw, token: pw.encode("utf-8").decode("latin-1").encode("utf-8"),
    "json": lambda pw, token: json.dumps(pw)[1:-1].encode(),
    "token": lambda pw, token: token.encode(),
}


def echo_credentials(handler) -> tuple[int, dict[str, str], bytes]:
    """A 500 page echoing the Basic credentials the request carried, decoded as a server would."""
    token = handler.headers.get("Authorization", "").partition(" ")[2]
    user, _, password = base64.b64decode(token).decode("utf-8").partition(":")
    DECODED.append(password)
    echoed = b" | ".join(label.encode() + b": " + echo(password, token) for label, echo in ECHOES.items())
    page = b"<html><body><h1>500</h1><p>login " + user.encode() + b" failed with " + echoed + b" |</p></body></html>"
    return 500, {"Content-Type": "text/html"}, page


DECODED: list[str] = []  # the passwords the server decoded, in order


@pytest.fixture(scope="module")
def server():
    with loopback(echo_credentials) as running:
        yield running


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    """A store of the seed record, made by the real command."""
    path = tmp_path_factory.mktemp("pushed") / "store"
    done = kg("ingest", "--store", str(path), str(DATA / "seed-record.json"))
    assert done.returncode == 0, done.stderr
    return path


def leaks(password: str) -> set[str]:
    """What of ``password`` must not be printed: every encoding the server used, what HTML tag
    stripping leaves of it, the text of its latin-1 bytes read as UTF-8, and its words."""
    token = base64.b64encode(f"{USER}:{password}".encode()).decode()
    forms = {echo(password, token).decode("utf-8", "replace") for echo in ECHOES.values()}
    forms |= {html.unescape(f) for f in forms}
    forms.add(" ".join(html.unescape(re.sub(r"<[^>]*>", " ", password)).split()))  # "ab<c>de" -> "ab de"
    forms |= {word for word in re.split(r"[^A-Za-z0-9]+", password) if len(word) >= 4}
    return {form for form in forms if form.strip()}


def assert_hidden(done: subprocess.CompletedProcess, password: str) -> None:
    said = done.stdout + done.stderr
    assert done.returncode == 4, said
    lines = done.stderr.strip().splitlines()
    assert "HTTP 500" in lines[0] and "Traceback" not in said, said
    # one error line; a push adds how far it got and the command that finishes it (issue 52)
    assert len(lines) == 1 or (len(lines) == 3 and lines[2].endswith("--resume")), said
    for label in ECHOES:  # every echo is in the message, and hidden
        assert f"{label}: *** |" in said, (label, said)
    for form in leaks(password):
        assert form.lower() not in said.lower(), (form, said)


@pytest.mark.parametrize("password", PASSWORDS)
def test_kg_query_endpoint_never_prints_an_echoed_password(server, password):
    done = kg("query", "--text", "SELECT * WHERE { ?s ?p ?o }", "--endpoint", server.url + "/sparql",
              "--user", USER, "--password", password, timeout=120)
    assert DECODED[-1] == password  # the server got it, and echoed it
    assert_hidden(done, password)


@pytest.mark.parametrize("password", PASSWORDS)
def test_kg_push_never_prints_an_echoed_password(server, store, password):
    done = kg("push", "--store", str(store), "--endpoint", server.url + "/query", "--update-endpoint",
              server.url + "/update", "--user", USER, timeout=120, env={"KG_PUSH_PASSWORD": password})
    assert DECODED[-1] == password
    assert_hidden(done, password)
