"""``kg push``: load every named graph of the store into an external SPARQL 1.1 store.

Two routes, both replacing each graph so that pushing twice leaves the remote store
exactly as pushing once:

- SPARQL 1.1 Update (the default): ``DROP SILENT GRAPH <g> ; INSERT DATA { GRAPH <g> { ... } }``,
  several small graphs per request and large graphs split over requests of at most
  ``batch_bytes``. Every term is written by pyoxigraph's serialiser (``str(term)``), so no
  value can change the structure of the update.
- Graph Store Protocol (``graph_store=URL``): one ``PUT URL?graph=<g>`` per graph with an
  N-Triples body, which the server swaps in atomically.

After loading, the quads of every pushed graph are counted on the remote side (one
query) and compared with the local counts. HTTP goes through httpx (see :class:`kg.remote_http.Remote`:
no redirects followed, a total deadline and a size cap per request, Basic or Digest
authentication, secrets redacted from every message). ``report.quads`` counts only what
the remote store accepted.

>>> for text, quads in update_requests({"https://e.org/g": ['<https://e.org/s> <https://e.org/p> "v" .']}, 1024):
...     print(text)
DROP SILENT GRAPH <https://e.org/g> ;
INSERT DATA {
GRAPH <https://e.org/g> {
<https://e.org/s> <https://e.org/p> "v" .
}
}
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Mapping
from urllib.parse import quote

from pyoxigraph import Literal, NamedNode, RdfFormat, Triple, serialize

from .errors import StoreError, UsageError
from .remote_http import AUTH_METHODS, DEFAULT_TIMEOUT, Remote, RemoteRefused, check_url, redact, redact_text, secrets_of
from .sparql.updates import replacement
from .store import GraphStore
from .vocab import Iris

DEFAULT_BATCH_BYTES = 256 * 1024


@dataclass
class PushReport:
    """What a push did: graphs and quads sent, requests made, and the remote check."""

    mode: str
    graphs: int = 0
    quads: int = 0
    requests: int = 0
    seconds: float = 0.0
    verified: bool | None = None
    mismatches: list[tuple[str, int, int]] = field(default_factory=list)
    pruned: list[str] = field(default_factory=list)


def _lines(store: GraphStore, graph: NamedNode) -> list[str]:
    return [f"{q.subject} {q.predicate} {q.object} ." for q in store.quads(graph)]


def update_requests(graphs: Mapping[str, list[str]], batch_bytes: int) -> Iterator[tuple[str, int]]:
    """(SPARQL Update text, quads in it) pairs that replace every graph of ``graphs`` (IRI -> N-Triples lines,
    already serialised), each at most about ``batch_bytes`` long (a single line may exceed it).

    A graph's first request drops it; a graph split over several requests continues with
    ``INSERT DATA`` only.
    """
    batch: list[tuple[str, bool, list[str]]] = []
    size = 0

    def text(parts: list[tuple[str, bool, list[str]]]) -> tuple[str, int]:
        return (replacement([NamedNode(g) for g, drop, _ in parts if drop],
                            [(NamedNode(g), lines) for g, _, lines in parts]),
                sum(len(lines) for _, _, lines in parts))

    for graph, lines in graphs.items():
        drop, current = True, list[str]()
        for line in lines:
            if size + len(line) + 1 > batch_bytes and (current or batch):
                if current:
                    batch.append((graph, drop, current))
                    drop, current = False, []
                yield text(batch)
                batch, size = [], 0
            current.append(line)
            size += len(line) + 1
        if current or drop:
            batch.append((graph, drop, current))
            size += len(graph) + 40
    if batch:
        yield text(batch)


def remote_counts(remote: Remote, endpoint: str, graphs: Iterable[NamedNode]) -> dict[str, int]:
    """Quads per graph on the remote side, for the graphs given (absent graphs: 0)."""
    graphs = list(graphs)
    counts = {g.value: 0 for g in graphs}
    for start in range(0, len(graphs), 500):
        values = " ".join(str(g) for g in graphs[start:start + 500])
        rows = remote.select(endpoint, f"SELECT ?g (COUNT(*) AS ?n) WHERE {{ VALUES ?g {{ {values} }} "
                                       "GRAPH ?g { ?s ?p ?o } } GROUP BY ?g")
        for row in rows:
            try:
                counts[row["g"]["value"]] = int(row["n"]["value"])
            except (KeyError, ValueError):
                raise StoreError(f"{redact(endpoint)}: unexpected answer to the count query") from None
    return counts


def _remote_graphs_under(remote: Remote, endpoint: str, prefix: str) -> list[str]:
    rows = remote.select(endpoint, "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } "
                                   f"FILTER(STRSTARTS(STR(?g), {Literal(prefix)})) }}")
    return [row["g"]["value"] for row in rows if "g" in row]


def push(store: GraphStore, endpoint: str, *, update_endpoint: str | None = None,
         graph_store: str | None = None, user: str | None = None, password: str | None = None,
         auth: str = "basic", timeout: float = DEFAULT_TIMEOUT, batch_bytes: int = DEFAULT_BATCH_BYTES,
         verify: bool = True, prune: bool = False, iris: Iris | None = None, graph_param: str = "graph",
         progress: Callable[[int, int], None] | None = None) -> PushReport:
    """Replace every named graph of ``store`` in the remote store at ``endpoint``.

    ``endpoint`` is the SPARQL query endpoint (used to verify); ``update_endpoint``
    (default: ``endpoint``) receives the updates; with ``graph_store`` the graphs are
    sent with Graph Store Protocol PUTs instead. ``prune`` drops remote graphs under the
    data's ``graph/`` namespace that the local store no longer has. ``progress`` is
    called with (quads sent, quads in all).
    """
    check_url(endpoint, "--endpoint")
    update_endpoint = check_url(update_endpoint or endpoint, "--update-endpoint")
    if graph_store is not None:
        check_url(graph_store, "--graph-store")
    if batch_bytes < 1024:
        raise UsageError("the batch size must be at least 1024 bytes")
    graphs = store.named_graphs()
    if not graphs:
        raise StoreError("the store holds no named graphs: nothing to push (run 'kg build' first)")
    remote = Remote(user=user, password=password, auth=auth, timeout=timeout)
    remote.hide(endpoint, update_endpoint, graph_store)
    try:
        return _push(store, remote, graphs, endpoint, update_endpoint, graph_store, graph_param, batch_bytes,
                     verify, prune, iris or Iris(), progress)
    finally:
        remote.close()


def _push(store: GraphStore, remote: Remote, graphs: list[NamedNode], endpoint: str, update_endpoint: str,
          graph_store: str | None, graph_param: str, batch_bytes: int, verify: bool, prune: bool, iris: Iris,
          progress: Callable[[int, int], None] | None) -> PushReport:
    report = PushReport(mode="graph-store" if graph_store else "update", graphs=len(graphs))
    local = {g.value: 0 for g in graphs}
    started = time.perf_counter()
    if graph_store is not None:
        total = len(store)
        for graph in graphs:
            triples = [Triple(q.subject, q.predicate, q.object) for q in store.quads(graph)]
            body = serialize(triples, format=RdfFormat.N_TRIPLES) or b""
            separator = "&" if "?" in graph_store else "?"
            remote.put(f"{graph_store}{separator}{quote(graph_param)}={quote(graph.value, safe='')}", body,
                       "application/n-triples")
            local[graph.value] = len(triples)
            report.quads += len(triples)
            if progress:
                progress(report.quads, total)
    else:
        lines = {g.value: _lines(store, g) for g in graphs}
        for graph_iri, graph_lines in lines.items():
            local[graph_iri] = len(graph_lines)
        total = sum(local.values())
        for text, quads in update_requests(lines, batch_bytes):
            remote.update(update_endpoint, text)
            report.quads += quads
            if progress:
                progress(report.quads, total)
    if prune:
        prefix = iris.base + "graph/"
        stale = [g for g in _remote_graphs_under(remote, endpoint, prefix) if g not in local]
        for start in range(0, len(stale), 200):
            remote.update(update_endpoint, " ;\n".join(f"DROP SILENT GRAPH {NamedNode(g)}"
                                                       for g in stale[start:start + 200]))
        report.pruned = stale
    if verify:
        counts = remote_counts(remote, endpoint, graphs)
        report.mismatches = [(g, n, counts.get(g, 0)) for g, n in local.items() if counts.get(g, 0) != n]
        report.verified = not report.mismatches
    report.requests = remote.requests
    report.seconds = time.perf_counter() - started
    return report


__all__ = ["AUTH_METHODS", "DEFAULT_BATCH_BYTES", "DEFAULT_TIMEOUT", "PushReport", "Remote", "RemoteRefused", "push",
           "redact", "redact_text", "remote_counts", "secrets_of", "update_requests"]
