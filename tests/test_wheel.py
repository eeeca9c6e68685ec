"""The installed wheel works anywhere, and answers as the checkout does.

The wheel is built from this checkout (``pip wheel``), installed into a fresh virtual
environment in a temporary folder outside the checkout, and the README's commands run
from there: ``kg build``, ``kg query search``, ``kg validate --record``, ``kg analyze``,
``kg export -f turtle`` and ``kg serve`` with one request per route, and the maintainers'
``python -m kg.ontodoc --check`` (the generated ontology files the wheel carries are current).
Each answer is compared with the same command run from the checkout (this test's own
interpreter, where ``kg`` is the editable install). The README's whole session runs from
the wheel too (tests/test_readme.py's runner); its ``kg build`` is compared with what the
checkout's code made of the same catalog: the test run's shared ingest and validation of it
(tests/conftest.py), whose store is the checkout's side of every other comparison.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from pyoxigraph import RdfFormat, parse
from helpers import kg_command

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
SYSTEM = "mem0--mem0-ai"
TIMING = re.compile(r"\d+(\.\d+)? s\b")  # durations differ from run to run
LOCAL_URL = re.compile(rb"http://127\.0\.0\.1:\d+")  # each server has its own port


# The wheel is installed without byte-compiling (see ``installs``): Python writes the bytecode
# of what each command imports, for the next command, even where the caller's environment
# says not to (PYTHONDONTWRITEBYTECODE), as it does for a user
NOT_PASSED_ON = ("PYTHONPATH", "KG_STORE", "KG_BASE", "PYTHONDONTWRITEBYTECODE")


def _run(kg: list[str], *args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in NOT_PASSED_ON}
    done = subprocess.run([*kg, *args], cwd=cwd, env=env, capture_output=True, timeout=600)
    if check and done.returncode not in (0, 1):
        raise AssertionError(f"{' '.join(args)} exited {done.returncode}: {done.stderr.decode()[-2000:]}")
    return done


def _pip(venv: Path) -> list[str]:
    """pip acting on the environment ``venv`` (pip's ``--python``)."""
    return [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python")]


@pytest.fixture(scope="module")
def installs(tmp_path_factory):
    """(kg command of the wheel, kg command of the checkout, folder of each run)."""
    base = tmp_path_factory.mktemp("wheel")
    wheels = base / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)],
                   check=True, capture_output=True, timeout=600)
    wheel = next(wheels.glob("agent_landscape_kg-*.whl"))
    venv = base / "venv"
    # no pip of its own: this interpreter's current pip installs into it (the venv's bundled pip may be
    # older than PEP 639's License-Expression, and upgrading it costs a download); no byte-compiling
    # of the dependencies ahead of time (Python compiles what a command imports)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    # [plot]: the README session draws a chart with matplotlib
    subprocess.run([*_pip(venv), "install", "-q", "--no-compile", f"{wheel}[plot]"],
                   check=True, capture_output=True, timeout=900)
    runs = {"wheel": base / "from-wheel", "checkout": base / "from-checkout"}
    for folder in runs.values():
        folder.mkdir()
    return {"wheel": [str(venv / "bin" / "kg")], "checkout": kg_command(), "runs": runs,
            "wheel_file": wheel, "venv": venv}


def test_the_installed_metadata_gives_the_spdx_licence(installs):
    # what `pip show` reads (pip shows the field from pip 25.1 on; older pips leave it out)
    read = ("import importlib.metadata as m; meta = m.metadata('agent-landscape-kg'); "
            "print(meta['License-Expression']); print(*meta.get_all('License-File'), sep='\\n')")
    shown = subprocess.run([str(installs["venv"] / "bin" / "python"), "-c", read],
                           capture_output=True, text=True, timeout=120, check=True).stdout.splitlines()
    assert shown[0] == "MIT AND CC-BY-4.0"
    assert {"LICENSE", "data/NOTICE"} <= set(shown[1:])  # the code's licence and the data's attribution


def test_the_wheel_carries_the_resources_and_the_licences(installs):
    names = set(zipfile.ZipFile(installs["wheel_file"]).namelist())
    for path in ("kg/py.typed", "kg/serve/templates/system.html", "kg/_resources/ontology/kg.ttl",
                 "kg/_resources/shapes/kg-shapes.ttl",
                 "kg/_resources/queries/search.rq", "kg/_resources/data/landscape-site.json",
                 "kg/_resources/data/NOTICE"):
        assert path in names
    meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
    metadata = zipfile.ZipFile(installs["wheel_file"]).read(meta).decode()
    assert "Name: agent-landscape-kg" in metadata
    assert "License-Expression: MIT AND CC-BY-4.0" in metadata
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)


def _both(installs, *args: str, check: bool = True) -> dict[str, subprocess.CompletedProcess]:
    """The same command from the wheel and from the checkout, side by side (one core each)."""
    with ThreadPoolExecutor(2) as pool:
        futures = {side: pool.submit(_run, installs[side], *args, cwd=installs["runs"][side], check=check)
                   for side in ("wheel", "checkout")}
        return {side: future.result() for side, future in futures.items()}


def _readme_tests():
    """tests/test_readme.py as a module: its session runner."""
    spec = importlib.util.spec_from_file_location("readme_session", ROOT / "tests" / "test_readme.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def session(installs, tmp_path_factory):
    """The README's session, run once with the wheel's kg and python in a folder outside the
    checkout (tests/test_readme.py's runner: as a new user runs it): its folder, environment,
    the failure if a command did not do what the README says, and its ``kg build``. The store
    that build made is copied, as it was right after it, into the wheel's folder: the wheel's
    store for the comparisons with the checkout."""
    readme = _readme_tests()
    folder = tmp_path_factory.mktemp("session")
    (folder / "bin").mkdir()
    (folder / "examples").symlink_to(ROOT / "examples")  # the example scripts are not in the wheel
    for name in ("kg", "python"):
        script = folder / "bin" / name
        script.write_text(f'#!/bin/sh\nexec "{installs["venv"] / "bin" / name}" "$@"\n', encoding="utf-8")
        script.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in (*NOT_PASSED_ON, "NO_COLOR")}
    env["PATH"] = f"{folder / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    builds: list[subprocess.CompletedProcess] = []

    def keep_the_build(step, done: subprocess.CompletedProcess) -> None:
        if step.command == "kg build" and not builds:
            shutil.copytree(folder / "kg-store", installs["runs"]["wheel"] / "kg-store")
            builds.append(done)

    text = README.read_text(encoding="utf-8")
    failure = None
    try:
        readme.run_session(text, folder, env, after=keep_the_build)
    except AssertionError as err:  # the session's own test reports it; the comparisons still run
        failure = err
    return {"folder": folder, "env": env, "failure": failure, "build": builds[0] if builds else None,
            "example": readme.python_example(text)}


@pytest.fixture(scope="module")
def built(installs, session, bundled_store):
    """The bundled catalog built by each install into its folder's kg-store (outside the
    checkout): the wheel's by the README session's ``kg build``; the checkout's is the test
    run's shared ingest of the same files by this checkout's code (tests/conftest.py), copied.
    The wheel's build stderr."""
    assert session["build"] is not None, f"the README session ran no kg build: {session['failure']}"
    assert session["build"].returncode == 0, session["build"].stderr[-2000:]
    bundled_store.backup(str(installs["runs"]["checkout"] / "kg-store"))
    return {"wheel": session["build"].stderr.encode()}


def _same(installs, *args: str, stream: str = "stdout") -> bytes:
    answers = _both(installs, *args, "--store", "kg-store")
    assert answers["wheel"].returncode == answers["checkout"].returncode
    texts = {side: TIMING.sub("N s", getattr(done, stream).decode()) for side, done in answers.items()}
    assert texts["wheel"] == texts["checkout"]
    return getattr(answers["wheel"], stream)


def test_build(installs, built, bundled_ingest, bundled_report):
    """The wheel's ``kg build`` says what this checkout's code says of its own ingest and
    validation of the same catalog: the counts, the superseded record, the changeset, the
    rule findings, the store's counts, every rule's results, the data's attribution."""
    from kg.cli.data import MAX_WARNING_LINES
    from kg.validation import text_report
    from kg.vocab import ATTRIBUTION

    wheel = TIMING.sub("N s", built["wheel"].decode())
    lines = wheel.splitlines()
    report = bundled_ingest[1]
    assert (report.records, report.edges) == (912, 528)
    assert any(line.startswith(f"ingested {report.records} records and {report.edges} edges from 3 file(s)")
               for line in lines)
    assert (f"{len(report.superseded)} record(s) given again in a later file; the later version was kept: "
            + ", ".join(report.superseded[:5])) in lines
    assert report.changeset is not None and f"changeset {report.changeset.number}: {report.changeset.summary}" in lines
    if report.findings:
        assert (f"rules at ingest: {len(report.findings)} finding(s) in "
                f"{len({f.record_id for f in report.findings})} record(s); see the validation report") in lines
    warned = min(len(report.warnings), MAX_WARNING_LINES) + (len(report.warnings) > MAX_WARNING_LINES)
    assert sum(line.startswith("warning:") for line in lines) == warned
    assert TIMING.sub("N s", text_report(bundled_report)) in wheel
    assert f"data: {ATTRIBUTION}" in lines
    # the two stores, as each install's kg describes them: the same but for when each was made
    described = {side: json.loads(done.stdout) for side, done in
                 _both(installs, "info", "-f", "json", "--store", "kg-store").items()}
    for description in described.values():
        description.pop("generatedAt")
    assert described["wheel"] == described["checkout"]
    assert f"store: {described['checkout']['triples']} triples; " in wheel


def test_query_search(installs, built):
    out = _same(installs, "query", "search", "-p", "text=graph", "-f", "json")
    ids = [row["id"] for row in json.loads(out)]
    assert ids and "graphrag-microsoft--microsoft-com" in ids


def test_validate_one_record(installs, built):
    out = _same(installs, "validate", "--record", SYSTEM)
    assert "T2Citation" in out.decode()


def test_analyze(installs, built):
    # the same library underneath on both sides (the checkout has igraph from the test extra)
    out = _same(installs, "analyze", "--top", "3", "--backend", "networkx")
    assert "912 systems" in out.decode()


def test_export_turtle(installs, built):
    out = {side: done.stdout for side, done in _both(installs, "export", "-f", "turtle", "--store", "kg-store").items()}
    # the same graph but for when each build ran (its changeset's times)
    when = {"http://www.w3.org/ns/prov#startedAtTime", "http://www.w3.org/ns/prov#endedAtTime",
            "https://w3id.org/agent-landscape/ontology#changeDate"}
    graphs = {side: {str(t) for t in parse(data, RdfFormat.TURTLE) if t.predicate.value not in when}
              for side, data in out.items()}  # each triple as N-Triples: equal text, equal terms
    assert graphs["wheel"] == graphs["checkout"] and len(graphs["wheel"]) > 200_000


def test_the_generated_ontology_files_are_current(installs):
    pythons = {"wheel": [str(installs["venv"] / "bin" / "python")], "checkout": [sys.executable]}
    for side, python in pythons.items():
        done = _run([*python, "-m", "kg.ontodoc"], "--check", cwd=installs["runs"][side], check=False)
        assert done.returncode == 0, done.stderr.decode()
        assert "context.jsonld" in done.stderr.decode()


def _serve(kg: list[str], cwd: Path) -> tuple[subprocess.Popen, str]:
    env = {k: v for k, v in os.environ.items() if k not in NOT_PASSED_ON}
    server = subprocess.Popen([*kg, "serve", "--store", "kg-store", "--port", "0", "--workers", "1", "--quiet"],
                              cwd=cwd, env=env, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    assert server.stderr is not None
    while time.monotonic() < deadline:
        line = server.stderr.readline()
        found = re.search(r"SPARQL endpoint (http://\S+)/sparql", line)
        if found:
            return server, found.group(1)
        if not line and server.poll() is not None:
            break
    server.kill()
    raise AssertionError("kg serve did not start")


def _get(url: str, accept: str) -> tuple[int, bytes]:
    if shutil.which("curl"):
        done = subprocess.run(["curl", "-s", "-o", "-", "-w", "\n%{http_code}", "-H", f"Accept: {accept}", url],
                              capture_output=True, timeout=60)
        body, _, status = done.stdout.rpartition(b"\n")
        return int(status), body
    request = urllib.request.Request(url, headers={"Accept": accept})
    with urllib.request.urlopen(request, timeout=60) as reply:
        return reply.status, reply.read()


ROUTES = [
    ("/", "text/html"),
    ("/health", "application/json"),
    ("/sparql?query=SELECT%20(COUNT(*)%20AS%20%3Fn)%20WHERE%20%7B%20%3Fs%20a%20"
     "%3Chttps%3A%2F%2Fw3id.org%2Fagent-landscape%2Fontology%23System%3E%20%7D", "text/csv"),
    (f"/id/system/{SYSTEM}", "text/turtle"),
    (f"/id/system/{SYSTEM}", "text/html"),
    ("/id/system/?text=graph&tier=1", "text/html"),
    ("/queries/search?text=graph&run=1", "text/html"),
]


def test_serve_routes(installs, built):
    answers: dict[str, list[tuple[int, bytes]]] = {}
    for side in ("wheel", "checkout"):
        server, url = _serve(installs[side], installs["runs"][side])
        try:
            answers[side] = [_get(url + route, accept) for route, accept in ROUTES]
        finally:
            server.terminate()
            server.wait(timeout=30)
    for (route, _), wheel, checkout in zip(ROUTES, answers["wheel"], answers["checkout"]):
        assert wheel[0] == checkout[0] == 200, route
        if route != "/health":  # /health counts this server's own requests
            assert LOCAL_URL.sub(b"URL", wheel[1]) == LOCAL_URL.sub(b"URL", checkout[1]), route
    assert answers["wheel"][2][1].decode().split() == ["n", "912"]


def test_the_readme_session_from_the_wheel(installs, session):
    """Every command of the README's session, run with the wheel's kg and python in a folder
    outside the checkout, prints what the README shows (the ``session`` fixture: the session
    runs there only), then the README's Python example runs."""
    if session["failure"] is not None:
        raise session["failure"]
    folder, env = session["folder"], session["env"]
    # the README's Python API example, as a doctest, with the wheel's python in the same folder
    # (the store the session built is there)
    (folder / "example.txt").write_text(session["example"], encoding="utf-8")
    done = subprocess.run([str(installs["venv"] / "bin" / "python"), "-m", "doctest", "-v", "-o", "ELLIPSIS",
                           "-o", "NORMALIZE_WHITESPACE", "example.txt"], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    passed = re.search(r"(\d+) passed and 0 failed", done.stdout)
    assert passed and int(passed.group(1)) >= 6, done.stdout[-2000:]
    assert (folder / "landscape.ttl").stat().st_size > 1_000_000
