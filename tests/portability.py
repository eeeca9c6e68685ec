"""Every named query asked of a remote engine and of the local store, compared: the engine tests
(tests/engine_checks.py) and the portability table of docs/guide/push.md (``python
tests/portability.py --write STORE``) both use :func:`compare_all`.

Each query is asked with its default parameters (or, where it needs some, a first set) and with one
more set of parameters (:data:`PARAM_SETS`). Rows are compared in order where the query orders
them (an ORDER BY), as multisets where it says they come in no particular order; a column that the
query documents as a list "in no set order" (``vendor-portfolio``'s names) is compared with its
parts sorted. An ``xsd:double`` is compared by value: Virtuoso writes the 0 that a computed query's
table sends it back as ``"0.0"``.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

from pyoxigraph import Literal, NamedNode, QueryBoolean

from kg import queries
from kg.errors import KgError

#: Per query, the parameter sets it is asked with: the first is its defaults where it has no
#: required parameter; every query gets at least two sets.
PARAM_SETS: dict[str, list[dict[str, str]]] = {
    "changes": [{}, {"system": "mem0--mem0-ai", "limit": "20"}],
    "churn": [{}, {"since": "2026-01-01", "limit": "10"}],
    "compare": [{"a": "mem0--mem0-ai", "b": "zep-graphiti--getzep-com"},
                {"a": "letta-memgpt--letta-com", "b": "langgraph-orchestration--langchain-com"}],
    "compliant-systems": [{"framework": "SOC 2"}, {"framework": "GDPR"}],
    "coverage": [{}, {"by": "feature"}],
    "decay-cause": [{}, {"cause": "archived"}],
    "field-history": [{"system": "smolagents-memory--huggingface-co", "column": "latest-release"},
                      {"system": "mem0--mem0-ai", "column": "license"}],
    "findings": [{}, {"rule": "T2Citation", "column": "license", "limit": "30"}],
    "findings-matrix": [{}, {"by": "section", "severity": "Violation"}],
    "find": [{}, {"open": "true", "selfhost": "true", "protocol": "mcp", "section": "memory layers"}],
    "recent": [{}, {"since": "2026-Q1", "limit": "30"}],
    "recommend": [{"text": "offline multi agent airgap", "today": "2026-07-01"},  # no tags here: every score 0
                  {"text": "graph memory for agents", "today": "2026-07-01", "k": "3"}],
    "related": [{"id": "mem0--mem0-ai"}, {"id": "qdrant--qdrant-tech", "edge_direction": "incoming"}],
    "search": [{"text": "  Temporal knowledge GRAPH "}, {"text": "memory", "tier": "1", "limit": "20"}],
    "select-analysis-protocols": [{}, {"every": "true"}],
    "select-analysis-ranking": [{}, {"minCoreness": "2"}],
    "select-analysis-relations": [{}, {"type": "built-on"}],
    "select-dependency": [{"system": "anthropic-claude-foundation-models--anthropic-com"},
                          {"system": "qdrant--qdrant-tech"}],
    "show": [{"id": "mem0--mem0-ai"}, {"id": "smolagents-memory--huggingface-co"}],
    "stale": [{}, {"months": "3", "today": "2026-12-01", "scope": "records", "limit": "200"}],
    "substrate-risk": [{"system": "Anthropic"}, {"system": "OpenAI GPT family", "direct": "true"}],
    "vendor-portfolio": [{}, {"vendor": "google"}],
}
#: Named queries not asked of the engines, and why: the advice tools that need a paper or two anchors
#: with a cost or a capability score, which the bundled catalog lacks (tests/test_advice_faces.py runs
#: them on the full-shape catalog)
NOT_ASKED = {"between": "no answer on the bundled catalog", "predict-citations": "no answer on the bundled catalog"}
XSD_DOUBLE = NamedNode("http://www.w3.org/2001/XMLSchema#double")
UNORDERED_PARTS = {("vendor-portfolio", "names"): "; ", ("field-history", "source"): ", "}


def names() -> list[str]:
    """The named queries asked of the engines: every one but :data:`NOT_ASKED`."""
    return [name for name in queries.available() if name not in NOT_ASKED]


def param_sets(name: str) -> list[dict[str, str]]:
    """The parameter sets ``name`` is asked with (its defaults and one set, by default)."""
    query = queries.load(name)
    found = PARAM_SETS.get(name)
    if found is not None:
        return found
    assert not any(not p.optional for p in query.params), f"{name} needs parameters: add it to PARAM_SETS"
    return [{}]


def ordered(name: str) -> bool:
    """Whether ``name`` orders its rows (an ORDER BY of the outer query)."""
    return any(line.startswith("ORDER BY") for line in queries.load(name).text.splitlines())


def _settled(name: str, column: str, term: Any) -> Any:
    separator = UNORDERED_PARTS.get((name, column))
    if isinstance(term, Literal) and term.datatype == XSD_DOUBLE:
        return "double", float(term.value)
    if separator is None or term is None:
        return None if term is None else (type(term).__name__, str(term))
    return "set", tuple(sorted(term.value.split(separator)))


def answer(store: Any, name: str, params: dict[str, str]) -> Any:
    """The answer of ``store`` (a local store or an Endpoint) to the query, comparable."""
    result = queries.run(store, name, params)
    if isinstance(result, QueryBoolean):
        return bool(result)
    if hasattr(result, "variables"):
        names = [v.value for v in result.variables]
        rows = [tuple(_settled(name, n, row[n]) for n in names) for row in result]
        return names, rows if ordered(name) else sorted(Counter(rows).items(), key=repr)
    return sorted(str(t) for t in result)


@dataclass
class Outcome:
    """One query and parameter set on one engine: matched, or how it differed, and how long it took."""

    name: str
    params: dict[str, str]
    matched: bool
    seconds: float
    detail: str = ""
    rows: int = 0


@dataclass
class EngineOutcomes:
    engine: str
    outcomes: list[Outcome] = field(default_factory=list)

    def matching_queries(self) -> set[str]:
        names = {o.name for o in self.outcomes}
        return {n for n in names if all(o.matched for o in self.outcomes if o.name == n)}


def _rows(value: Any) -> int:
    if isinstance(value, tuple):
        return len(value[1])
    return 1 if isinstance(value, bool) else len(value)


def compare_all(local: Any, far: Callable[[], Any], engine: str, only: list[str] | None = None) -> EngineOutcomes:
    """Every named query asked of the engines (or ``only`` those) with each of its parameter sets, asked of ``local`` and of
    ``far()`` (a new Endpoint each query, as each ``kg query --endpoint`` makes its own)."""
    found = EngineOutcomes(engine)
    for name in only or names():
        for params in param_sets(name):
            here = answer(local, name, params)
            started = time.perf_counter()
            if kept_locally(name):
                found.outcomes.append(_refused(far, name, params, here, started))
                continue
            try:
                there = answer(far(), name, params)
            except KgError as err:
                found.outcomes.append(Outcome(name, params, False, time.perf_counter() - started,
                                              f"{type(err).__name__}: {str(err)[:300]}"))
                continue
            seconds = time.perf_counter() - started
            detail = "" if there == here else _difference(here, there)
            found.outcomes.append(Outcome(name, params, there == here, seconds, detail, _rows(here)))
    return found


def kept_locally(name: str) -> bool:
    """Whether ``name`` reads rows kept beside a local version (kg.queries.tables): asked of an
    endpoint it is refused with the fix (``--store``), never answered with 0 rows."""
    return "# -- kept table:" in queries.load(name).text


REFUSED = "refused (rows kept beside a local store)"


def _refused(far: Callable[[], Any], name: str, params: dict[str, str], here: Any, started: float) -> Outcome:
    """The outcome of a query that reads kept rows: refused in one line that names ``--store``, with
    local rows (a query that answered locally with none would prove nothing)."""
    try:
        there = answer(far(), name, params)
    except KgError as err:
        said = str(err)
        refused = "--store" in said and "\n" not in said and _rows(here) > 0
        return Outcome(name, params, refused, time.perf_counter() - started,
                       REFUSED if refused else f"{type(err).__name__}: {said[:300]}", _rows(here))
    return Outcome(name, params, False, time.perf_counter() - started, f"answered ({_rows(there)} rows), not refused")


def _difference(here: Any, there: Any) -> str:
    if isinstance(here, tuple) and isinstance(there, tuple):
        if here[0] != there[0]:
            return f"columns {there[0]} against {here[0]}"
        missing = [r for r in here[1] if r not in there[1]][:2]
        extra = [r for r in there[1] if r not in here[1]][:2]
        if not missing and not extra:
            return f"same {len(here[1])} rows in another order"
        return f"{len(there[1])} rows against {len(here[1])}; missing {missing}; extra {extra}"[:600]
    return f"{str(there)[:200]} against {str(here)[:200]}"


# ---------------------------------------------------------------------------
# The portability table of docs/guide/push.md (engine x query), written by ``--write`` and
# checked by the engine tests against what they find


DOC = __import__("pathlib").Path(__file__).resolve().parent.parent / "docs" / "guide" / "push.md"
TABLE_START = "<!-- portability table: python tests/portability.py --write -->"
TABLE_END = "<!-- end of the portability table -->"
ENGINES = ("oxigraph", "jena", "virtuoso")
ENGINE_NAMES = {"oxigraph": "Oxigraph server", "jena": "Jena TDB2 4.5", "virtuoso": "Virtuoso 7.2"}


def verdict(found: EngineOutcomes, name: str) -> str:
    """``same rows`` when every parameter set of ``name`` matched, else what differed (short)."""
    bad = [o for o in found.outcomes if o.name == name and not o.matched]
    if not bad:
        refused = any(o.detail == REFUSED for o in found.outcomes if o.name == name)
        return "local only: refused with the fix (--store)" if refused else "same rows"
    detail = bad[0].detail
    for marker in ("Error SP031: SPARQL compiler: ", "Error SQ199: ", "Error SQ200: ", "Error VECDT: ", "HTTP 400: ",
                   "HTTP 500: "):
        if marker in detail:
            detail = detail.split(marker, 1)[1]
            break
    detail = re.sub(r"\d{7,}", "N", detail)  # a size in bytes that varies from run to run
    return "differs: " + detail.split(" SPARQL query:")[0].strip()[:90].replace("|", "/")


def documented() -> dict[str, dict[str, str]]:
    """engine -> query -> the verdict the table in docs/guide/push.md gives."""
    text = DOC.read_text(encoding="utf-8")
    table = text.split(TABLE_START, 1)[1].split(TABLE_END, 1)[0]
    rows = [line.strip().strip("|").split("|") for line in table.strip().splitlines()[2:]]
    return {engine: {row[0].strip().strip("`"): row[1 + i].strip() for row in rows} for i, engine in enumerate(ENGINES)}


def render(verdicts: dict[str, dict[str, str]]) -> str:
    head = "| query | " + " | ".join(ENGINE_NAMES[e] for e in ENGINES) + " |"
    lines = [head, "|" + "---|" * (len(ENGINES) + 1)]
    for name in queries.available():
        if name in NOT_ASKED:
            lines.append(f"| `{name}` | " + " | ".join(f"not asked: {NOT_ASKED[name]}" for _ in ENGINES) + " |")
            continue
        lines.append(f"| `{name}` | " + " | ".join(verdicts[e][name] for e in ENGINES) + " |")
    return "\n".join(lines)


def write_table(verdicts: dict[str, dict[str, str]]) -> None:
    text = DOC.read_text(encoding="utf-8")
    before, rest = text.split(TABLE_START, 1)
    after = rest.split(TABLE_END, 1)[1]
    DOC.write_text(f"{before}{TABLE_START}\n{render(verdicts)}\n{TABLE_END}{after}", encoding="utf-8")


def _write(store_path: str) -> None:
    """Start every engine, push the store, compare every query, and write the table."""
    import engine_servers
    from kg.pushes import push
    from kg.remote_query import Endpoint
    from kg.store import GraphStore

    store = GraphStore.open_existing(store_path, read_only=True)
    verdicts = {}
    for engine_name in ENGINES:
        start = {"oxigraph": engine_servers.start_oxigraph, "jena": engine_servers.start_jena,
                 "virtuoso": engine_servers.start_virtuoso}[engine_name]
        engine = start(engine_servers.scratch(f"kg-{engine_name}-"))
        try:
            push(store, engine.query, update_endpoint=engine.update, user=engine.user, password=engine.password,
                 auth=engine.auth, timeout=600)
            found = compare_all(store, lambda: Endpoint(engine.query, timeout=120), engine_name)
            verdicts[engine_name] = {name: verdict(found, name) for name in names()}
            print(engine_name, len(found.matching_queries()), "of", len(names()), "give the same rows")
        finally:
            engine.stop()
    write_table(verdicts)


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] != ["--write"] or len(sys.argv) != 3:
        sys.exit("usage: python tests/portability.py --write STORE (a store built from the bundled catalog)")
    _write(sys.argv[2])
