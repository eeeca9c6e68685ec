"""Real SPARQL engines for the tests that push to them and ask them kg's named queries:
Virtuoso 7 (Debian's ``virtuoso-opensource``), Apache Jena TDB2 (Debian's ``libapache-jena-java``,
behind tests/jena/JenaFront.java, a small SPARQL 1.1 Protocol front: Fuseki is not packaged) and
the Oxigraph server (the ``oxigraph`` wheel). Each starts on a free loopback port in a folder of
the test's own and is stopped (its own process, by id) by ``stop()``.

Where an engine is not installed, :func:`unavailable` skips with the reason, except in CI (``CI``
set), where a missing engine is a failure: .ci/run installs them.

Jena's command-line tools (``arq.qparse``, ``shacl.shacl``) run through :func:`jena_tool`. The
Debian jars carry Jena's shaded Xerces as package ``xerces`` but its message files under
``org/apache/jena/ext/xerces``, so every XSD datatype fails to initialise ("internal error") until
the message files are found where the classes look: :func:`jena_classpath` copies them into a
folder of its own, put first on the class path.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

HERE = Path(__file__).resolve().parent
JAVA_DIR = Path("/usr/share/java")
JENA_JARS = ("jena-arq", "jena-base", "jena-cmds", "jena-core", "jena-dboe-base", "jena-dboe-index",
             "jena-dboe-storage", "jena-dboe-trans-data", "jena-dboe-transaction", "jena-iri",
             "jena-rdfconnection", "jena-shacl", "jena-tdb2", "jena-tdb")
JENA_NEEDS = ("slf4j-api", "slf4j-nop", "commons-lang3", "commons-io", "commons-codec", "commons-compress",
              "commons-csv", "commons-cli", "guava", "jackson-core", "jackson-databind", "jackson-annotations",
              "gson", "dexx.collection", "jsonld-java", "titanium-json-ld", "jakarta.json-api", "httpclient",
              "httpcore", "protobuf", "thrift", "commons-logging")
VIRTUOSO = "virtuoso-t"
VIRTUOSO_USER = ("dba", "dba")  # a new Virtuoso database's administrator (the tests' own, on loopback)


def unavailable(reason: str) -> None:
    """Skip with ``reason``; in CI (where .ci/run installs every engine) fail instead."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI installs it: .ci/run)")
    pytest.skip(reason)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for_port(port: int, process: subprocess.Popen, what: str, log: Path, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                _end(process)
                raise RuntimeError(f"{what} did not start: {log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.1)


def _end(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(20)


# ---------------------------------------------------------------------------
# Jena


def jena_installed() -> bool:
    return shutil.which("java") is not None and all((JAVA_DIR / f"{jar}.jar").exists() for jar in JENA_JARS)


def _xerces_messages(folder: Path) -> Path:
    """The shaded Xerces's message files where its classes look for them (see the module's note)."""
    target = folder / "jena-xerces-messages"
    if not target.exists():
        with zipfile.ZipFile(JAVA_DIR / "jena-core.jar") as jar:
            for name in jar.namelist():
                if name.startswith("org/apache/jena/ext/xerces/") and name.endswith(".properties"):
                    path = target / "xerces" / name[len("org/apache/jena/ext/xerces/"):]
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_bytes(jar.read(name))
    return target


def jena_classpath(folder: Path) -> str:
    """The class path of Jena's packaged jars and their dependencies (the message fix first)."""
    jars = [JAVA_DIR / f"{name}.jar" for name in JENA_JARS + JENA_NEEDS]
    return os.pathsep.join([str(_xerces_messages(folder))] + [str(jar) for jar in jars if jar.exists()])


def jena_tool(folder: Path, main_class: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """One of Jena's command-line tools (``arq.qparse``, ``shacl.shacl``...) run to its end."""
    if not jena_installed():
        unavailable("Apache Jena is not installed (apt-get install libapache-jena-java)")
    return subprocess.run(["java", "-Xss8m", "-cp", jena_classpath(folder), main_class, *args], capture_output=True,
                          text=True, timeout=timeout)


def jena_front(folder: Path) -> tuple[Path, str]:
    """tests/jena/JenaFront.java compiled into ``folder`` (once), and the class path to run it."""
    if not jena_installed() or shutil.which("javac") is None:
        unavailable("Apache Jena or a JDK is not installed (apt-get install libapache-jena-java default-jdk-headless)")
    folder.mkdir(parents=True, exist_ok=True)
    classpath = jena_classpath(folder)
    classes = folder / "classes"
    if not (classes / "JenaFront.class").exists():
        subprocess.run(["javac", "-d", str(classes), "-cp", classpath, str(HERE / "jena" / "JenaFront.java")],
                       check=True, capture_output=True, timeout=300)
    return classes, os.pathsep.join([str(classes), classpath])


def jena_parse(folder: Path, files: list[Path]) -> dict[str, str]:
    """Each file parsed as a SPARQL 1.1 query by Jena's ARQ parser (one JVM): path -> "ok" or the error
    (``folder``: where JenaFront is compiled, or was, by :func:`start_jena` or an earlier call)."""
    _, classpath = jena_front(folder)
    done = subprocess.run(["java", "-cp", classpath, "JenaFront", "--parse", *map(str, files)], capture_output=True,
                          text=True, timeout=300)
    found = {}
    for line in done.stdout.splitlines():
        path, _, rest = line.partition("\t")
        found[path] = "ok" if rest == "ok" else rest.partition("\t")[2] or rest
    return found


@dataclass
class Engine:
    """A running engine: where to query, update and PUT graphs, with what credentials."""

    name: str
    query: str
    update: str
    graph_store: str
    process: subprocess.Popen
    user: str | None = None
    password: str | None = None
    auth: str = "basic"
    on_stop: Callable[[], None] | None = None
    server: "OxigraphServer | None" = None  # the Oxigraph server's own handle (its SPARQLWrapper helpers)

    def stop(self) -> None:
        if self.on_stop is not None:
            self.on_stop()
        else:
            _end(self.process)


def start_jena(folder: Path, *, build: Path | None = None) -> Engine:
    """JenaFront (compiled into ``build``, by default ``folder``) over an in-memory TDB2 database (the
    same engine and plans as on disk, without a disk sync at each commit) on a free port. Its default
    graph is the union of the named graphs (Fuseki's ``tdb2:unionDefaultGraph true``) at /query, the
    store's own default graph at /no-union/query (:func:`no_union`)."""
    _, classpath = jena_front(build or folder)
    port = free_port()
    log = folder / f"jena-{port}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(["java", "-Xss8m", "-cp", classpath, "JenaFront",
                                    "--loc", "mem", "--port", str(port), "--timeout-s", "300",
                                    "--union-default-graph"],
                                   stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    _wait_for_port(port, process, "the Jena front", log)
    url = f"http://127.0.0.1:{port}"
    return Engine("jena", url + "/query", url + "/update", url + "/data", process)


def no_union(engine: Engine) -> str:
    """The query endpoint of a JenaFront over the same data without the union default graph."""
    return engine.query.removesuffix("/query") + "/no-union/query"


# ---------------------------------------------------------------------------
# Virtuoso


def virtuoso_installed() -> bool:
    return shutil.which(VIRTUOSO) is not None


_VIRTUOSO_INI = """\
[Database]
DatabaseFile = {db}/virtuoso.db
ErrorLogFile = {db}/virtuoso.log
LockFile = {db}/virtuoso.lck
TransactionFile = {db}/virtuoso.trx
xa_persistent_file = {db}/virtuoso.pxa
ErrorLogLevel = 7
FileExtend = 200
Striping = 0
TempStorage = TempDatabase
[TempDatabase]
DatabaseFile = {db}/virtuoso-temp.db
TransactionFile = {db}/virtuoso-temp.trx
Striping = 0
[Parameters]
ServerPort = 127.0.0.1:{sql_port}
DisableUnixSocket = 1
CheckpointInterval = 60
CaseMode = 2
DirsAllowed = .
NumberOfBuffers = 50000
MaxDirtyBuffers = 30000
ThreadsPerQuery = 2
MaxQueryMem = 1G
[HTTPServer]
ServerPort = 127.0.0.1:{http_port}
ServerRoot = {db}
ServerThreads = 10
Charset = UTF-8
[SPARQL]
; the default 10,000 rows would cut kg's larger answers short (the push guide says so)
ResultSetMaxRows = 1000000
MaxQueryExecutionTime = 300
MaxQueryCostEstimationTime = 400
"""


def start_virtuoso(folder: Path) -> Engine:
    """Virtuoso on free loopback ports over a new database in ``folder``: SPARQL at /sparql,
    updates at /sparql-auth (Digest, the administrator of the new database), the Graph Store
    Protocol at /sparql-graph-crud-auth. Its default graph is the union of all its graphs."""
    if not virtuoso_installed():
        unavailable("Virtuoso is not installed (apt-get install virtuoso-opensource)")
    folder.mkdir(parents=True, exist_ok=True)
    http_port, sql_port = free_port(), free_port()
    ini = folder / "virtuoso.ini"
    ini.write_text(_VIRTUOSO_INI.format(db=folder, sql_port=sql_port, http_port=http_port))
    log = folder / "virtuoso.out"
    with log.open("wb") as out:
        process = subprocess.Popen([VIRTUOSO, "-c", str(ini), "+foreground"], cwd=folder, stdout=out,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    _wait_for_port(http_port, process, "Virtuoso", folder / "virtuoso.log")
    url = f"http://127.0.0.1:{http_port}"
    _wait_for_sparql(url + "/sparql", process, folder / "virtuoso.log")
    user, password = VIRTUOSO_USER
    return Engine("virtuoso", url + "/sparql", url + "/sparql-auth", url + "/sparql-graph-crud-auth", process,
                  user=user, password=password, auth="digest")


def _wait_for_sparql(url: str, process: subprocess.Popen, log: Path) -> None:
    """Virtuoso opens its HTTP port before its SPARQL endpoint answers: wait for an answer."""
    import httpx

    deadline = time.monotonic() + 90
    while True:
        try:
            if httpx.get(url, params={"query": "ASK {}"}, timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            _end(process)
            raise RuntimeError(f"Virtuoso's SPARQL endpoint did not answer: {log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.2)


# ---------------------------------------------------------------------------
# Oxigraph


def _oxigraph_binary() -> str:
    candidate = Path(sys.executable).parent / "oxigraph"
    if candidate.exists():
        return str(candidate)
    found = shutil.which("oxigraph")
    if not found:
        unavailable("the oxigraph server is not installed (pip install 'kg[test]')")
    return found


class OxigraphServer:
    """``oxigraph serve`` over the database at ``location``, on a free loopback port, with the
    union default graph; ``stop()`` ends it."""

    def __init__(self, location: Path, *, union: bool = True) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [_oxigraph_binary(), "serve", "--location", str(location), "--bind", f"127.0.0.1:{self.port}",
             *(["--union-default-graph"] if union else [])], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    break
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("oxigraph serve did not start: " + self.process.stderr.read().decode())
                time.sleep(0.05)

    def select(self, query: str) -> list[dict]:
        """The rows (SPARQL JSON bindings) of a SELECT, asked with SPARQLWrapper, not kg's client."""
        from SPARQLWrapper import JSON, POST, SPARQLWrapper

        sparql = SPARQLWrapper(self.url + "/query")
        sparql.setTimeout(120)
        sparql.setMethod(POST)
        sparql.setReturnFormat(JSON)
        sparql.setQuery(query)
        sparql.queryType = "SELECT"  # SPARQLWrapper's own guess can take a header comment for an update
        return sparql.queryAndConvert()["results"]["bindings"]

    def update(self, text: str) -> None:
        """Runs a SPARQL Update on the server (SPARQLWrapper)."""
        from SPARQLWrapper import POST, SPARQLWrapper

        sparql = SPARQLWrapper(self.url + "/query", updateEndpoint=self.url + "/update")
        sparql.setTimeout(60)
        sparql.setMethod(POST)
        sparql.setQuery(text)
        sparql.query()

    def graph_counts(self) -> dict[str, int]:
        """Quads per named graph on the server."""
        rows = self.select("SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g")
        return {row["g"]["value"]: int(row["n"]["value"]) for row in rows}

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        self.process.stderr.close()


def start_oxigraph(folder: Path, *, union: bool = True) -> Engine:
    """The Oxigraph server over a new database in ``folder`` (with the union default graph)."""
    folder.mkdir(parents=True, exist_ok=True)  # oxigraph makes db/, not the folders above it
    server = OxigraphServer(folder / "db", union=union)
    return Engine("oxigraph", server.url + "/query", server.url + "/update", server.url + "/store", server.process,
                  on_stop=server.stop, server=server)


def scratch(prefix: str) -> Path:
    """A folder for a script's engines (the tests use their tmp_path)."""
    return Path(tempfile.mkdtemp(prefix=prefix))
