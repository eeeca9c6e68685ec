"""No outbound connection from ingest, validate, export, analyze, info and query, whatever the
input points at.

Three watchers, each run of a command under all of them:

1. a loopback TCP listener that every URL in the input points at (citations, urls, a
   remote JSON-LD ``@context`` and ``owl:imports`` as unknown keys, a catalog header
   ``@context``, edge citations); it must accept no connection;
2. a Python audit hook in the command's process that fails on ``socket.connect``,
   ``socket.getaddrinfo`` and ``urllib.Request`` (rdflib, pySHACL, urllib, requests);
3. where ``strace`` works, a trace of every ``connect`` system call of the process and
   its children, which also sees native code (pyoxigraph's HTTP client ignores Python's
   audit hooks): no AF_INET/AF_INET6 connect may appear.

Every command named here must exist (``test_every_command_named_here_exists``): a
renamed command fails the suite instead of being skipped.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from kg.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"

HOOK = r"""
import os, socket, sys
def _watch(event, args):
    if event in ("socket.connect", "socket.connect_ex"):
        if getattr(args[0], "family", None) not in (socket.AF_INET, socket.AF_INET6):
            return
    elif event not in ("socket.getaddrinfo", "socket.gethostbyname", "urllib.Request", "http.client.connect"):
        return
    os.write(2, ("NETWORK-ATTEMPT: %s %r\n" % (event, args[:2])).encode("ascii", "backslashreplace"))
    raise PermissionError("kg test: no network allowed (%s)" % event)
sys.addaudithook(_watch)
from kg.cli import main
sys.argv[0] = "kg"
sys.exit(main(sys.argv[1:]))
"""


def _commands() -> set[str]:
    parser = build_parser()
    for action in parser._actions:
        if getattr(action, "choices", None) and isinstance(action.choices, dict):
            return set(action.choices)
    return set()


COMMANDS = _commands()


def _strace_works() -> bool:
    if shutil.which("strace") is None:
        return False
    try:
        done = subprocess.run(["strace", "-f", "-qq", "-e", "trace=connect", "-o", "/dev/null", "true"],
                              capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


STRACE = _strace_works()


class Listener:
    """A loopback TCP server that only counts connections (and what they sent first)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.hits: list[bytes] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(1)
                try:
                    self.hits.append(conn.recv(200) or b"(connected, sent nothing)")
                except OSError:
                    self.hits.append(b"(connected)")

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=5)
        self.sock.close()


@pytest.fixture(scope="module")
def listener():
    server = Listener()
    yield server
    server.close()


@pytest.fixture(scope="module")
def inputs(tmp_path_factory, listener):
    """A catalog whose every URL points at the listener, and its edges."""
    url = f"http://127.0.0.1:{listener.port}"
    folder = tmp_path_factory.mktemp("net")
    site = json.loads((DATA / "landscape-site.json").read_text(encoding="utf-8"))
    seed = json.loads((DATA / "seed-record.json").read_text(encoding="utf-8"))
    records = [copy.deepcopy(r) for r in site["records"][:6] if r["id"] != seed["id"]] + [copy.deepcopy(seed)]
    for i, record in enumerate(records):
        record["url"] = f"{url}/record/{i}"
        record["@context"] = f"{url}/context.jsonld"
        record["owl:imports"] = f"{url}/ontology.ttl"
        record["@id"] = f"{url}/id/{i}"
        for slug, cell in record["cells"].items():
            cell["citation"] = f"{url}/cite/{slug}"
        record["cells"]["gh"]["value"] = f"{url}/owner/repo"
        record["cells"]["desc"]["value"] = f"SERVICE <{url}/sparql> {{ ?s ?p ?o }} LOAD <{url}/data.ttl>"
    ids = [r["id"] for r in records]
    edges = [{"source": a, "target": b, "type": "cites", "evidence": "points at the listener",
              "citation": f"{url}/edge/{n}"} for n, (a, b) in enumerate(zip(ids, ids[1:]))]
    catalog = folder / "catalog.json"
    catalog.write_text(json.dumps({"@context": f"{url}/catalog-context.jsonld", "schemaVersion": "1.0.0",
                                   "sourceHtml": f"{url}/catalog.html", "records": records}), encoding="utf-8")
    edges_path = folder / "edges.json"
    edges_path.write_text(json.dumps({"@context": f"{url}/edges-context.jsonld", "edges": edges}), encoding="utf-8")
    jsonld = folder / "remote-context.jsonld"  # a JSON-LD document is not a catalog: refused, never fetched
    jsonld.write_text(json.dumps({"@context": f"{url}/ctx", "@graph": [{"@id": f"{url}/x"}]}), encoding="utf-8")
    return {"folder": folder, "catalog": str(catalog), "edges": str(edges_path), "jsonld": str(jsonld),
            "store": str(folder / "store")}


def run_watched(args: list[str], folder: Path, expect: tuple[int, ...] = (0,)) -> subprocess.CompletedProcess:
    """Run ``kg ARGS`` under the audit hook (and strace where it works); assert no network."""
    command = [sys.executable, "-c", HOOK, *args]
    trace = folder / "connect.trace"
    if STRACE:
        command = ["strace", "-f", "-qq", "-e", "trace=connect", "-o", str(trace), *command]
    done = subprocess.run(command, capture_output=True, cwd=ROOT, timeout=300)
    stderr = done.stderr.decode("utf-8", "replace")
    assert "NETWORK-ATTEMPT" not in stderr, stderr
    assert "Traceback" not in stderr, stderr
    assert done.returncode in expect, (args, done.returncode, stderr[-2000:])
    if STRACE:
        calls = [line for line in trace.read_text().splitlines() if re.search(r"sa_family=AF_INET6?\b", line)]
        assert calls == [], calls
    return done


def test_ingest_makes_no_connection(listener, inputs):
    run_watched(["ingest", inputs["catalog"], inputs["edges"], "--store", inputs["store"]], inputs["folder"])
    run_watched(["ingest", inputs["jsonld"], "--store", inputs["store"]], inputs["folder"], expect=(3,))
    assert listener.hits == []


@pytest.mark.parametrize("fmt", ["turtle", "ntriples", "nquads", "trig", "jsonld", "catalog-json"])
def test_export_makes_no_connection(listener, inputs, fmt):
    out = inputs["folder"] / f"out.{fmt}"
    run_watched(["export", "--store", inputs["store"], "--format", fmt, "-o", str(out)], inputs["folder"])
    assert out.stat().st_size > 0
    assert listener.hits == []


def test_validate_makes_no_connection(listener, inputs):
    # the input breaks catalog rules (citations not on GitHub...): violations are expected
    run_watched(["validate", "--store", inputs["store"]], inputs["folder"], expect=(0, 1))
    assert listener.hits == []


def test_analyze_makes_no_connection(listener, inputs):
    run_watched(["analyze", "--store", inputs["store"], "--format", "json"], inputs["folder"])
    assert listener.hits == []


@pytest.mark.parametrize("args", [["info"], ["query", "info"]], ids=["info", "query-info"])
def test_reading_commands_make_no_connection(listener, inputs, args):
    run_watched([*args, "--store", inputs["store"]], inputs["folder"])
    assert listener.hits == []


def test_the_watchers_do_see_a_connection(listener, inputs, tmp_path):
    """The watchers are not blind: a deliberate connection trips the hook, and the listener counts it."""
    probe = subprocess.run([sys.executable, "-c", HOOK.replace(
        "from kg.cli import main", f"socket.create_connection(('127.0.0.1', {listener.port}))\nfrom kg.cli import main"),
        "info"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert "NETWORK-ATTEMPT: socket." in probe.stderr
    if STRACE:  # strace sees a connect from native code too (curl-like: no Python socket module)
        probed = len(listener.hits)
        trace = tmp_path / "probe.trace"
        subprocess.run(["strace", "-f", "-qq", "-e", "trace=connect", "-o", str(trace), sys.executable, "-c",
                        "import ctypes, socket; s = socket.socket(); s.connect(('127.0.0.1', %d))" % listener.port],
                       capture_output=True, timeout=60)
        assert re.search(r"sa_family=AF_INET\b.*htons\(%d\)" % listener.port, trace.read_text())
        for _ in range(50):  # the listener's thread records the probe's connection when it gets to it
            if len(listener.hits) > probed:
                break
            threading.Event().wait(0.1)
    before = len(listener.hits)
    with socket.create_connection(("127.0.0.1", listener.port)) as conn:
        conn.sendall(b"GET / HTTP/1.0\r\n\r\n")
    for _ in range(50):
        if len(listener.hits) > before:
            break
        threading.Event().wait(0.1)
    assert len(listener.hits) == before + 1
    listener.hits[before:] = []  # forget the probe: the other tests check for none


def test_every_command_named_here_exists():
    """The commands these tests run are all commands of kg (a rename must update this file)."""
    assert {"ingest", "export", "validate", "analyze", "info", "query"} <= COMMANDS
