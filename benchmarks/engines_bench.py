"""A named query timed over ``--endpoint`` on Jena TDB2 and Virtuoso against the Oxigraph server, as ratios.

The measuring code of the ``substrate-risk-engines`` stage (:mod:`stage_engines`; ``python benchmarks/run.py
--stages substrate-risk-engines`` runs it alone): :func:`engine_ratios` takes running endpoints (each holding the store's
graphs, the default graph their union) and returns, per engine, the median wall time of the query
of the query's bound text (the parameters resolved and bound once, as kg sends it; every row read
through kg's remote client, :class:`kg.remote_query.Endpoint`) and its ratio to Oxigraph's, and the
same for the whole ``kg query NAME --endpoint`` (``command``: resolving a system's name asks the
endpoint a few small queries first); :func:`started_engines` starts the engines the tests start
(tests/engine_servers.py: Virtuoso and Jena from Debian's packages, the Oxigraph server from the
wheel) and pushes a store to each. The issue's floor: ``substrate-risk -p system=Anthropic`` within
2x of Oxigraph on Jena and on Virtuoso. Each query is asked once before timing (both engines cache
plans and pages), then ``repeats`` times; the same rows are checked on every engine first.
"""

from __future__ import annotations

import contextlib
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Iterator, Mapping

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # engine_servers, the tests' engines

from kg import queries  # noqa: E402
from kg.pushes import push  # noqa: E402
from kg.remote_query import Endpoint  # noqa: E402
from kg.store import GraphStore  # noqa: E402

BASELINE = "oxigraph"


def _rows(url: str, name: str, params: Mapping[str, str]) -> list:
    result = queries.run(Endpoint(url, timeout=600), name, params)
    return [tuple(row) for row in result] if hasattr(result, "variables") else [result]


def _bound(url: str, name: str, params: Mapping[str, str]) -> str:
    return queries.plan(name, params, Endpoint(url, timeout=600)).text


def _timed(run) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def engine_ratios(endpoints: Mapping[str, str], name: str = "substrate-risk",
                  params: Mapping[str, str] | None = None, repeats: int = 5) -> dict[str, dict]:
    """engine -> {"seconds": median, "runs": [...], "rows": n, "ratio": to the baseline's median}."""
    params = dict(params or {"system": "Anthropic"})
    answers = {engine: _rows(url, name, params) for engine, url in endpoints.items()}  # a warm-up, and a check
    first = next(iter(answers.values()))
    assert all(sorted(map(str, rows)) == sorted(map(str, first)) for rows in answers.values()), "engines differ"
    text = _bound(next(iter(endpoints.values())), name, params)
    found: dict[str, dict] = {}
    for engine, url in endpoints.items():
        endpoint = Endpoint(url, timeout=600)
        list(endpoint.query(text))  # the default graph checked, the plan warm
        runs = [_timed(lambda: list(endpoint.query(text))) for _ in range(repeats)]
        commands = [_timed(lambda: _rows(url, name, params)) for _ in range(repeats)]
        found[engine] = {"seconds": statistics.median(runs), "runs": runs, "rows": len(answers[engine]),
                         "command_seconds": statistics.median(commands)}
    base = found.get(BASELINE, {})
    for values in found.values():
        values["ratio"] = values["seconds"] / base["seconds"] if base else None
        values["command_ratio"] = values["command_seconds"] / base["command_seconds"] if base else None
    return found


@contextlib.contextmanager
def started_engines(store: GraphStore, folder: Path) -> Iterator[dict[str, str]]:
    """The Oxigraph server, Jena TDB2 and Virtuoso started under ``folder``, ``store`` pushed to each."""
    import engine_servers

    engines = []
    try:
        for name, start in (("oxigraph", engine_servers.start_oxigraph), ("jena", engine_servers.start_jena),
                            ("virtuoso", engine_servers.start_virtuoso)):
            engine = start(folder / name)
            engines.append(engine)
            push(store, engine.query, update_endpoint=engine.update, user=engine.user, password=engine.password,
                 auth=engine.auth, timeout=600)
        yield {engine.name: engine.query for engine in engines}
    finally:
        for engine in engines:
            engine.stop()
