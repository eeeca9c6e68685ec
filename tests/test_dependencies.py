"""Dependencies kept honest: what kg imports is declared, each install hint names a real extra,
and every private API of another package that kg leans on is pinned and watched by a canary.

A canary fails with a message that says what changed and what to re-check; a test here
that fails after an upgrade is the signal to read the named kg module against the new
release before moving the pin.
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import re
import sys
import tomllib
from collections import defaultdict
from importlib.metadata import packages_distributions, version
from pathlib import Path
from typing import Any, Iterator

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
KG = ROOT / "kg"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]
EXTRAS: dict[str, list[str]] = PROJECT["optional-dependencies"]
RUNTIME_EXTRAS = {name: reqs for name, reqs in EXTRAS.items() if name != "test"}

# Internal modules of other packages that kg imports, each with the distribution whose
# upper pin guards it and the canary below that watches it. A new import from one of these
# (or from any other internal path) fails test_every_internal_import_has_a_pin_and_a_canary.
INTERNAL_IMPORTS = {
    "uvicorn.protocols.http.h11_impl": ("uvicorn", "test_uvicorn_h11_protocol_canary"),
    "rdflib.plugins.sparql.algebra": ("rdflib", "test_rdflib_sparql_algebra_canary"),
    "rdflib.plugins.sparql.parser": ("rdflib", "test_rdflib_sparql_algebra_canary"),
    "rdflib.plugins.sparql.parserutils": ("rdflib", "test_rdflib_sparql_algebra_canary"),
}
# Submodules that are the packages' documented API (not internals).
PUBLIC_SUBMODULES = {
    "anyio.from_thread", "anyio.lowlevel", "anyio.to_thread", "rdflib.collection", "rdflib.compare", "rdflib.paths",
    "matplotlib.backends.backend_agg", "matplotlib.colors", "matplotlib.figure", "matplotlib.lines",
    "mcp.server", "mcp.server.context", "mcp.server.stdio", "mcp.server.transport_security",
    "mcp.shared.exceptions", "prometheus_client.core", "scipy.special",
    "starlette.applications", "starlette.middleware.gzip", "starlette.requests", "starlette.responses", "starlette.routing",
    "starlette.types",
}


# ---------------------------------------------------------------------------
# What kg imports


def _third_party_imports() -> dict[str, set[str]]:
    """{imported module path: the kg files that import it}, absolute imports of other packages only."""
    found: dict[str, set[str]] = defaultdict(set)
    for path in sorted(KG.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names
                                           if alias.name.startswith("_")]
            else:
                continue
            for module in modules:
                top = module.split(".")[0]
                if top != "kg" and top not in sys.stdlib_module_names:
                    found[module].add(str(path.relative_to(ROOT)))
    return found


IMPORTS = _third_party_imports()


def _names(requirements: list[str]) -> set[str]:
    return {canonicalize_name(Requirement(text).name) for text in requirements}


def _distribution_of(top: str) -> str:
    distributions = packages_distributions().get(top)
    assert distributions, (f"kg imports {top!r}, which no installed distribution provides: "
                           "install the test extra (pip install -e '.[test]')")
    return canonicalize_name(distributions[0])


def test_the_scan_sees_kgs_imports():
    tops = {module.split(".")[0] for module in IMPORTS}
    assert {"pyoxigraph", "rdflib", "uvicorn", "h11", "publicsuffixlist"} <= tops


def test_every_imported_package_is_declared():
    """Each third-party top-level module kg imports comes from a distribution that pyproject
    declares: in the dependencies, or in an extra (not the test one) whose absence kg
    answers with an install hint naming that extra."""
    core = _names(PROJECT["dependencies"])
    hinted = set(_hinted_extras())
    undeclared, unhinted = [], []
    for top in sorted({module.split(".")[0] for module in IMPORTS}):
        distribution = _distribution_of(top)
        if distribution in core:
            continue
        extras = [name for name, reqs in RUNTIME_EXTRAS.items() if distribution in _names(reqs)]
        files = sorted({f for module, fs in IMPORTS.items() if module.split(".")[0] == top for f in fs})
        if not extras:
            undeclared.append(f"{top} ({distribution}, imported in {', '.join(files)})")
        elif not hinted & set(extras):
            unhinted.append(f"{top}: extra {extras} has no \"pip install 'agent-landscape-kg[...]'\" hint")
    assert not undeclared, ("imported but not declared in pyproject.toml (add it to dependencies, or to "
                            f"an extra with an install hint): {undeclared}")
    assert not unhinted, unhinted


# ---------------------------------------------------------------------------
# Install hints

_HINT = re.compile(r"pip install\s+['\"]?([A-Za-z0-9_.-]+)(?:\[([^\]]*)\])?")


def _hints() -> Iterator[tuple[str, str, list[str]]]:
    """(file, distribution, extras) of every ``pip install ...`` in kg's code."""
    for path in sorted(KG.rglob("*.py")):
        for match in _HINT.finditer(path.read_text(encoding="utf-8")):
            extras = [e.strip() for e in (match.group(2) or "").split(",") if e.strip()]
            yield str(path.relative_to(ROOT)), match.group(1), extras


def _hinted_extras() -> list[str]:
    return [extra for _, _, extras in _hints() for extra in extras]


def test_the_distribution_is_agent_landscape_kg():
    assert PROJECT["name"] == "agent-landscape-kg"


def test_every_install_hint_names_this_distribution_and_an_extra_it_has():
    """``kg`` on PyPI is someone else's package: a hint must say agent-landscape-kg, with
    an extra that pyproject defines."""
    hints = list(_hints())
    assert len(hints) >= 4  # mcp, dask, plot, fast
    wrong = [f"{file}: pip install {dist}[{','.join(extras)}]" for file, dist, extras in hints
             if dist != PROJECT["name"] or not extras or not set(extras) <= set(RUNTIME_EXTRAS)]
    assert not wrong, f"install hints naming another package or an extra pyproject lacks: {wrong}"


# ---------------------------------------------------------------------------
# Pins on private APIs


def _is_internal(module: str) -> bool:
    parts = module.split(".")
    return len(parts) > 1 and module not in PUBLIC_SUBMODULES


def test_every_internal_import_has_a_pin_and_a_canary():
    """An import of another package's internals (a submodule that is not its documented
    API, or a ``_`` name) must be listed in INTERNAL_IMPORTS, with an upper pin on that
    package and a canary test here."""
    private_names = [m for m in IMPORTS if any(part.startswith("_") for part in m.split("."))]
    assert not private_names, f"kg imports private names of other packages: {private_names}"
    unknown = sorted(m for m in IMPORTS if _is_internal(m) and m not in INTERNAL_IMPORTS)
    assert not unknown, (f"new imports of other packages' submodules: {unknown}. If one is internal, add it to "
                         "INTERNAL_IMPORTS with an upper pin and a canary; if documented API, to PUBLIC_SUBMODULES")
    tests = {name for name, _ in inspect.getmembers(sys.modules[__name__], inspect.isfunction)}
    for module, (distribution, canary) in INTERNAL_IMPORTS.items():
        assert canary in tests, (module, canary)


@pytest.mark.parametrize("distribution", sorted({d for d, _ in INTERNAL_IMPORTS.values()}))
def test_a_package_whose_internals_kg_uses_has_an_upper_pin_the_installed_version_meets(distribution):
    pinned = [Requirement(text) for text in PROJECT["dependencies"]
              if canonicalize_name(Requirement(text).name) == distribution]
    assert len(pinned) == 1, f"{distribution} is not a dependency"
    specifier = pinned[0].specifier
    assert any(spec.operator in ("<", "<=", "~=", "==") for spec in specifier), (
        f"{distribution} has no upper pin ({specifier}) although kg uses its internals")
    installed = version(distribution)
    assert specifier.contains(installed, prereleases=True), (
        f"{distribution} {installed} is outside the pin {specifier}: the canaries ran on an untested version")


def test_pyshacl_is_pinned_below_no_release():
    """kg uses pySHACL's public API only (``pyshacl.validate``, unpatched): no upper pin holds it back."""
    (spec,) = [Requirement(t).specifier for t in PROJECT["dependencies"] if Requirement(t).name == "pyshacl"]
    assert not any(s.operator in ("<", "<=", "~=", "==") for s in spec), f"pyshacl pinned {spec}: nothing needs it"
    assert spec.contains(version("pyshacl"))


# uvicorn: kg serve's connection caps subclass H11Protocol ------------------------------

_UVICORN_RECHECK = ("re-check kg serve's connection caps (the H11Protocol subclass under kg/serve/: "
                    "the hooks it overrides and the attributes it reads) against uvicorn {}, "
                    "then move the uvicorn pin in pyproject.toml")


class _Transport(asyncio.Transport):
    def __init__(self) -> None:
        super().__init__()
        self.written = b""
        self.closing = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 5555), "sockname": ("127.0.0.1", 80)}.get(name, default)

    def write(self, data: bytes) -> None:  # type: ignore[override]
        self.written += data

    def close(self) -> None:
        self.closing = True

    def is_closing(self) -> bool:
        return self.closing

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        pass

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


def test_uvicorn_h11_protocol_canary():
    """What kg's subclass relies on: the four hooks it overrides, the constructor uvicorn
    calls (config, server_state, app_state, _loop), and the ``client``, ``conn`` (an
    h11.Connection whose ``their_state`` says when a request is in), ``transport`` and
    ``loop`` attributes; ``on_response_complete`` is called once an answer is out."""
    import h11
    from uvicorn.config import Config
    from uvicorn.protocols.http.h11_impl import H11Protocol
    from uvicorn.server import ServerState

    recheck = _UVICORN_RECHECK.format(version("uvicorn"))
    for hook in ("connection_made", "connection_lost", "data_received", "on_response_complete"):
        assert callable(getattr(H11Protocol, hook, None)), f"H11Protocol.{hook} is gone: {recheck}"
    parameters = list(inspect.signature(H11Protocol.__init__).parameters)
    assert parameters[:5] == ["self", "config", "server_state", "app_state", "_loop"], (
        f"H11Protocol's constructor changed ({parameters}): {recheck}")

    async def app(scope: dict, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"ok"})

    completed = []

    class Spy(H11Protocol):
        def on_response_complete(self) -> None:
            completed.append(self.conn.their_state)
            super().on_response_complete()

    async def exchange() -> tuple[Spy, _Transport, Any]:
        config = Config(app=app, http=Spy, lifespan="off", log_level="critical")
        config.load()
        loop = asyncio.get_running_loop()
        protocol = Spy(config=config, server_state=ServerState(), app_state={}, _loop=loop)
        transport = _Transport()
        protocol.connection_made(transport)
        assert protocol.client == ("127.0.0.1", 5555), recheck
        assert protocol.transport is transport and protocol.loop is loop, recheck
        assert isinstance(protocol.conn, h11.Connection), recheck
        assert protocol.conn.their_state is h11.IDLE, recheck
        protocol.data_received(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert protocol.conn.their_state is h11.DONE, f"a whole request did not leave h11 DONE: {recheck}"
        for _ in range(100):
            if completed:
                break
            await asyncio.sleep(0.01)
        protocol.connection_lost(None)
        return protocol, transport, loop

    _, transport, _ = asyncio.run(exchange())
    assert transport.written.startswith(b"HTTP/1.1 200 "), (transport.written[:80], recheck)
    assert completed, f"on_response_complete was not called after the answer: {recheck}"


# rdflib: the SPARQL guard walks the parse tree and the algebra ---------------------------

_RDFLIB_RECHECK = ("re-check kg/sparql/guard.py (node names, fields, CompValue's dict behaviour) against "
                   "rdflib {}, then move the rdflib pin in pyproject.toml")


def _nodes(tree: Any) -> list[Any]:
    from rdflib.plugins.sparql.parserutils import CompValue

    found, stack, seen = [], [tree], set()
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, CompValue):
            found.append(item)
            stack.extend(item.values())
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)
    return found


def test_rdflib_sparql_algebra_canary():
    """The names and fields the guard reads: query forms, SERVICE, FROM / FROM NAMED
    (DatasetClause's ``default`` / ``named``), LOAD, DELETE WHERE, Modify's ``using``,
    ``withClause`` and ``where``, triple patterns (BGP, TriplesBlock) and GRAPH; and the
    CompValue quirk the guard works around (``get`` of a missing key gives the key back)."""
    from rdflib.plugins.sparql.algebra import translateQuery, translateUpdate
    from rdflib.plugins.sparql.parser import parseQuery, parseUpdate
    from rdflib.plugins.sparql.parserutils import CompValue

    recheck = _RDFLIB_RECHECK.format(version("rdflib"))
    assert issubclass(CompValue, dict), recheck
    forms = {"SELECT * {}": "SelectQuery", "ASK {}": "AskQuery",
             "CONSTRUCT WHERE { ?s ?p ?o }": "ConstructQuery", "DESCRIBE <urn:x>": "DescribeQuery"}
    for text, name in forms.items():
        assert translateQuery(parseQuery(text)).algebra.name == name, (text, recheck)

    text = "SELECT * FROM <urn:a> FROM NAMED <urn:b> { ?s ?p ?o OPTIONAL { SERVICE <urn:x> { ?a ?b ?c } } }"
    parsed = parseQuery(text)
    algebra = translateQuery(parsed).algebra
    nodes = _nodes(algebra) + _nodes(parsed)
    names = {node.name for node in nodes}
    assert {"ServiceGraphPattern", "DatasetClause", "BGP", "TriplesBlock"} <= names, (names, recheck)
    datasets = [node for node in nodes if node.name == "DatasetClause"]
    graphs = {str(n["default"]) if "default" in n else str(n["named"]) for n in datasets}
    assert graphs == {"urn:a", "urn:b"}, (graphs, recheck)
    assert datasets[0].get("no-such-key") in ("no-such-key", None), recheck

    def operations(update: str) -> tuple[list[Any], set[str]]:
        parsed = parseUpdate(update)
        return list(translateUpdate(parsed).algebra), {node.name for node in _nodes(parsed)}

    (load,), _ = operations("LOAD <http://example.org/x>")
    assert load.name == "Load", recheck
    (delete_where,), _ = operations("DELETE WHERE { ?s ?p ?o }")
    assert delete_where.name == "DeleteWhere" and "triples" in delete_where, recheck
    (modify,), _ = operations("INSERT { GRAPH <urn:g> { ?s <urn:x> ?o } } WHERE { ?s ?p ?o }")
    assert modify.name == "Modify" and "where" in modify and "using" not in modify, recheck
    assert any(n.name == "BGP" and n["triples"] for n in _nodes(modify["where"])), recheck
    (scoped,), _ = operations("WITH <urn:g> DELETE { ?s ?p ?o } USING <urn:h> WHERE { GRAPH ?g { ?s ?p ?o } }")
    assert scoped["using"] and scoped["withClause"] is not None, recheck
    assert "Graph" in {n.name for n in _nodes(scoped["where"])}, recheck


# pySHACL: its public API only (kg validate --engine pyshacl, SHACL-SPARQL shapes) ------------

def test_pyshacl_public_api_canary():
    """The public call kg makes (``kg validate --engine pyshacl``, SHACL-SPARQL shapes): pyshacl.validate
    with these keywords returns (conforms, report graph, text), the report graph in the W3C vocabulary."""
    import pyshacl
    import rdflib

    shapes = rdflib.Graph().parse(format="turtle", data="""
        @prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <urn:ex:> .
        ex:S a sh:NodeShape ; sh:targetClass ex:T ; sh:property [ sh:path ex:p ; sh:minCount 1 ] .""")
    data = rdflib.Graph().parse(format="turtle", data="<urn:a> a <urn:ex:T> . <urn:b> a <urn:ex:T> .")
    conforms, report, text = pyshacl.validate(data, shacl_graph=shapes, inference="none", advanced=False,
                                              allow_warnings=False)
    sh = rdflib.Namespace("http://www.w3.org/ns/shacl#")
    assert conforms is False and isinstance(text, str)
    assert len(list(report.objects(None, sh.result))) == 2
