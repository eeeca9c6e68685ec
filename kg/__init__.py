"""kg: the AI Agent Infrastructure Landscape catalog as an RDF knowledge graph.

The Python API mirrors the command line, one function per verb:

=====================  ==========================================================
``kg build/ingest``    :func:`ingest` (the bundled catalog when no path is given)
``kg validate``        :func:`validate` -> :class:`ValidationReport`
``kg query``           :func:`query` (named queries in ``queries/``, bound parameters)
``kg export``          :func:`export`
``kg info``            :func:`info`
``kg analyze``         :func:`analyze` -> ``Analysis``; the graphs it runs on:
                       :func:`system_graph`, :func:`vendor_graph`, :func:`protocol_graph`,
                       :func:`license_graph` (NetworkX)
``kg serve``           :func:`make_server` -> ``Server`` (start it, or use it as a context manager)
``kg push``            :func:`push` -> ``PushReport``
``kg log/diff``        :func:`log` (rows, newest first), :func:`diff` -> ``Changeset``
``kg checkout``        :func:`checkout` -> ``Checkout`` (the catalog JSON; a store rebuilt ``into`` a folder)
=====================  ==========================================================

Every function takes the store first. Errors are typed (:class:`KgError` and its
subclasses); nothing here prints or exits.

A session on the bundled catalog, in memory:

>>> import kg
>>> store = kg.GraphStore()                      # kg.open_store("kg-store") on disk
>>> report = kg.ingest(store)                    # the bundled catalog: records, seed record, edges
>>> report.records, report.edges
(912, 528)
>>> kg.info(store)["counts"]["System"]
912

Validate some records (all of them when ``records`` is not given):

>>> checked = kg.validate(store, records=["mem0--mem0-ai"])
>>> checked.records, checked.conforms
(1, False)
>>> sorted({result.rule for result in checked.results})
['T2Citation']

Ask a named query, parameters given as text and bound (never pasted into SPARQL):

>>> rows = kg.query(store, "substrate-risk", {"system": "openai-gpt-family-gpt-5-gpt-4o-o3-o4--openai-com"})
>>> len(rows), rows[0]["target_name"]                 # rows of plain Python values
(51, 'OpenAI GPT family (GPT-5 / GPT-4o / o3 / o4)')
>>> sorted({row["length"] for row in rows})               # hops to the model: direct, or through another system
[1, 2]

Graph measures, and the NetworkX graphs behind them:

>>> analysis = kg.analyze(store, ["betweenness", "coreness"], top=3)
>>> [scores.id for scores in analysis.ranked()]
['zep-graphiti--getzep-com', 'anthropic-claude-foundation-models--anthropic-com', 'graphiti-mcp-server-zep--getzep-com']
>>> graph = kg.system_graph(store, ["runtime-dependency"], directed=True)
>>> graph.in_degree("openai-gpt-family-gpt-5-gpt-4o-o3-o4--openai-com")
49

Export (Turtle, JSON-LD, N-Triples, N-Quads, TriG, or the catalog JSON rebuilt from the graph):

>>> import io, json
>>> out = io.BytesIO()
>>> kg.export(store, "catalog-json", out)
>>> len(json.loads(out.getvalue())["records"])
912

Push to another SPARQL 1.1 store (docs/guide/push.md: Oxigraph server, Virtuoso, Fuseki, GraphDB).
Errors are typed; here nothing listens on the port (a ``PushStopped`` is a ``StoreError`` that says
how far the push got and what is partial):

>>> kg.push(store, "http://127.0.0.1:9/sparql", timeout=5)
Traceback (most recent call last):
...
kg.pushes.PushStopped: cannot reach http://127.0.0.1:9/sparql: ...
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from . import findings as _findings
from .errors import KgError, NotFound, QueryError, RecordError, SourceError, StoreError, UsageError
from .store import GraphStore, default_store_path
from .vocab import ATTRIBUTION, Iris
from .advice import tools as _advice_tools  # noqa: F401  (registers the advice tools as named queries, for every face)

if TYPE_CHECKING:
    from .remote_query import Endpoint
    from .ingestion import IngestReport
    from .queries import NamedQuery
    from .serve import Server


def open_store(path: str | os.PathLike | None = None, *, build: bool = False,
               read_only: bool = False) -> GraphStore:
    """Open the on-disk store at ``path`` (default: ``$KG_STORE`` or ``./kg-store``).

    A store that does not exist raises :class:`StoreError`, unless ``build`` is true:
    then it is built first from the bundled catalog, as ``kg build`` does. A store that
    exists is opened as it is, never rebuilt.

    >>> import kg, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> kg.open_store(folder + "/missing")
    Traceback (most recent call last):
    ...
    kg.errors.StoreError: no store at .../missing: run 'kg build' or 'kg ingest' first (or pass --store)
    """
    path = Path(path if path is not None else default_store_path())
    if build and not path.is_dir():
        store = GraphStore(path)
        ingest(store)
        store.flush()
        if not read_only:
            return store
        del store  # release the lock before opening read-only
    return GraphStore.open_existing(path, read_only=read_only)


def ingest(store: GraphStore, paths: Sequence[str | os.PathLike] | None = None, iris: Iris | None = None, *,
           strict: bool = False, progress: Callable[[int, int], None] | None = None,
           format: str | None = None, graph: str | None = None, gate: str | None = None,
           max_cells: int | None = None, max_record_bytes: int | None = None,
           replace_all: bool = False, compact: bool = False, jobs: int | None = None) -> IngestReport:
    """Ingest catalog files, record files, folders, JSON Lines and RDF files (``kg ingest``)
    into ``store``.

    Without ``paths``, the bundled catalog (``kg build``). Each record replaces its own
    named graph; a bad record is set aside in ``report.quarantined`` while the good ones
    go in, or with ``strict`` the whole input is refused (``InputRejected``) and nothing
    is written. ``progress`` is called with (records done, records in all). RDF files
    (Turtle, N-Triples, N-Quads, TriG, JSON-LD, RDF/XML: by extension, or ``format``) go
    into the graphs they name, their triples into ``graph`` or the default graph.
    ``gate`` ("violation" or "warning") holds back records that break a rule that
    severe, keeping their stored versions; ``max_cells`` and ``max_record_bytes`` cap a
    record (defaults: ``kg ingest``'s); ``replace_all`` removes stored records the input
    lacks; ``compact`` merges the store's files for faster reads (a build into an empty
    store always does). ``jobs``: worker processes that map and check the records (default: one a
    core where the input is big enough to pay for them; 1: all in this process; the store, the
    changeset and the report are the same either way). Rule findings are in ``report.findings``, the
    changeset in ``report.changeset``.

    >>> import kg
    >>> store = kg.GraphStore()
    >>> seed = [p for p in kg.bundled_paths() if p.endswith("seed-record.json")]
    >>> report = kg.ingest(store, seed)
    >>> report.records, report.edges, report.quarantined
    (1, 0, [])
    """
    from .ingestion import ingest_paths
    from .sources import bundled_paths

    chosen = [os.fspath(p) for p in paths] if paths is not None else bundled_paths()
    return ingest_paths(store, chosen, iris, strict=strict, progress=progress, format=format, graph=graph,
                        gate=gate, caps=record_caps(max_cells, max_record_bytes), replace_all=replace_all,
                        compact=compact, jobs=jobs)


def record_caps(max_cells: int | None = None, max_record_bytes: int | None = None) -> tuple[int, int]:
    """The caps of one record, (cells, bytes as UTF-8 JSON): the ones given, else ``kg ingest``'s
    defaults; a cap under 1 is :class:`UsageError`.

    >>> import kg
    >>> kg.record_caps(max_cells=10)
    (10, 8388608)
    """
    from .sources import MAX_RECORD_BYTES, MAX_RECORD_CELLS

    cells = MAX_RECORD_CELLS if max_cells is None else max_cells
    size = MAX_RECORD_BYTES if max_record_bytes is None else max_record_bytes
    if cells < 1 or size < 1:
        raise UsageError("--max-cells and --max-record-bytes must be at least 1")
    return cells, size


def endpoint(url: str, *, user: str | None = None, password: str | None = None, auth: str = "basic",
             timeout: float = 60.0) -> "Endpoint":
    """A remote SPARQL 1.1 query endpoint that holds the pushed graph (union default graph),
    to pass to :func:`query` instead of a store: the same bound query, the same rows
    (``kg query NAME --endpoint URL``). Credentials go to ``url`` only; no redirect is followed.

    >>> import kg
    >>> kg.query(kg.endpoint("http://127.0.0.1:9/sparql", timeout=5), "info")
    Traceback (most recent call last):
    ...
    kg.errors.StoreError: cannot reach http://127.0.0.1:9/sparql: ...
    """
    from .remote_query import Endpoint

    return Endpoint(url, user=user, password=password, auth=auth, timeout=timeout)


def query(store: "GraphStore | Endpoint", name: str | NamedQuery, params: Mapping[str, str] | None = None,
          iris: Iris | None = None) -> Any:
    """Run a named query from ``queries/`` (or the path of a ``.rq`` or ``.sparql`` file, or the text
    of a query), as ``kg query`` does: the text sent is :func:`kg.queries.plan`'s, the one
    ``kg query --sparql`` prints.

    ``params`` maps parameter names to text values, checked against the types declared
    in the query's header and bound as RDF terms. SELECT gives :class:`kg.rows.Rows`: a list
    of rows, each a dict of every column -> a plain Python value (int, float, bool,
    ``datetime.date``/``datetime``, str; an IRI as :class:`kg.rows.IRI`, a str; None when
    unbound), with the pyoxigraph terms in ``.terms`` and ``.to_pandas()`` /
    ``.to_polars()`` when that library is installed; ASK gives a bool, CONSTRUCT a list
    of triples. :func:`named_queries` lists the queries. An id or a name
    that names no system (or several) is :class:`NotFound`, never an empty answer.

    >>> import kg
    >>> kg.query(kg.GraphStore(), "search", {"text": "memory"})
    []
    >>> kg.query(kg.GraphStore(), "search", {"text": "memory", "tier": "one"})
    Traceback (most recent call last):
    ...
    kg.errors.QueryError: parameter tier: 'one' is not a valid integer (...)
    """
    from .queries import query as run_query

    return run_query(store, name, params, iris)


def named_queries() -> list[NamedQuery]:
    """The named queries, with their titles, questions and parameters (``kg query --list``).

    >>> import kg
    >>> [p.name for p in next(q for q in kg.named_queries() if q.name == "substrate-risk").params]
    ['system', 'vendor', 'direct', 'edge_types']
    """
    from .queries import listing

    return listing()


def info(store: GraphStore, iris: Iris | None = None) -> dict[str, Any]:
    """The dataset description (``kg info``): triples, generation time, entities per class,
    and the data's licence and attribution.

    >>> import kg
    >>> kg.info(kg.GraphStore())["license"]
    'CC-BY-4.0'
    """
    from .description import read_description

    return {**read_description(store, iris or Iris()), "license": "CC-BY-4.0", "attribution": ATTRIBUTION}


def make_server(store: str | os.PathLike, **options: Any) -> "Server":
    """A ``kg serve`` server over the on-disk store at ``store``; ``options`` mirror the command's
    (``host``, ``port``: 0 picks a free one, ``timeout``, ``max_rows``, ``workers``,
    ``allow_update``, ``token``, ...). The socket is bound at once; ``app.start()`` (or a
    ``with`` block) serves in a background thread, ``app.serve_forever()`` in this one.

    >>> import kg, tempfile, urllib.parse, urllib.request
    >>> folder = tempfile.mkdtemp()
    >>> store = kg.GraphStore(folder + "/store")
    >>> report = kg.ingest(store, [p for p in kg.bundled_paths() if p.endswith("seed-record.json")])
    >>> del store                                    # close it: the server's workers open it read-only
    >>> ask = "ASK { ?system <https://schema.org/name> 'smolagents Memory' }"
    >>> with kg.make_server(folder + "/store", port=0, workers=1) as server:
    ...     url = server.url + "/sparql?" + urllib.parse.urlencode({"query": ask})
    ...     request = urllib.request.Request(url, headers={"Accept": "application/sparql-results+json"})
    ...     urllib.request.urlopen(request).read()
    b'{"head":{},"boolean":true}'
    """
    from .serve.server import make_server as _make_server

    return _make_server(store, **options)



def _validated_now(store: GraphStore, iris: Iris) -> Any:
    """What validates a version whose findings were not kept (:data:`kg.findings.MAKER`): set here,
    at the top of the flow, because kg.findings stands below validation, which is imported only then."""
    from .validation.upkeep import validated_now

    return validated_now(store, iris)


_findings.MAKER = _validated_now

# Everything else is imported when first used, not at every start of the command line
# (``kg --help`` must stay fast): the names below are looked up on first access (PEP 562).
_LAZY = {
    "export": "exports", "EXPORT_FORMATS": "exports",
    "IngestReport": "ingestion", "bundled_paths": "sources", "NamedQuery": "queries",
    "validate": "validation", "ValidationReport": "validation", "push": "pushes", "PushReport": "pushes",
    "log": "history.log", "diff": "history", "Changeset": "history", "checkout": "checkouts", "Checkout": "checkouts",
    **{name: "analyse" for name in
       ("Analysis", "analyze", "system_graph", "vendor_graph", "protocol_graph", "license_graph")},
}

if TYPE_CHECKING:
    from .analyse import Analysis, analyze, license_graph, protocol_graph, system_graph, vendor_graph
    from .exports import EXPORT_FORMATS, export
    from .history import Changeset, diff
    from .history.log import log
    from .pushes import PushReport, push
    from .checkouts import Checkout, checkout
    from .sources import bundled_paths
    from .validation import ValidationReport, validate


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'kg' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    # verbs
    "ingest", "validate", "query", "export", "info", "analyze", "make_server", "push", "endpoint",
    "log", "diff", "checkout",
    # stores, graphs, queries
    "GraphStore", "open_store", "bundled_paths", "named_queries", "NamedQuery", "Iris", "record_caps",
    "system_graph", "vendor_graph", "protocol_graph", "license_graph",
    # results
    "IngestReport", "ValidationReport", "Analysis", "PushReport", "Changeset", "Checkout", "EXPORT_FORMATS", "ATTRIBUTION",
    # errors
    "KgError", "SourceError", "RecordError", "StoreError", "QueryError", "UsageError", "NotFound",
]
