"""``kg push``: load every named graph of the store into an external SPARQL 1.1 store.

Two routes, both replacing each graph whole, so that pushing twice leaves the remote store
exactly as pushing once, and a reader (or an interruption) never meets half a graph:

- SPARQL 1.1 Update (the default). A graph that fits one request (``batch_bytes`` of N-Triples
  and ``batch_quads`` quads) is replaced by ``DROP SILENT GRAPH <g> ; INSERT DATA { GRAPH <g> {
  ... } }`` in one request, several small graphs a request; each request is one transaction on
  the server. A larger graph is gathered in a staging graph of its own (``Iris.push_staging``:
  ``<base>push-staging/...``) over several requests, and the last one moves it into place (``DROP
  SILENT GRAPH <g> ; INSERT { GRAPH <g> { ?s ?p ?o } } WHERE { GRAPH <staging> { ?s ?p ?o } } ;
  DROP SILENT GRAPH <staging>``: what ``MOVE`` does, which Jena 4.5 refuses), so the live graph
  changes in one step. The
  quad cap is for Virtuoso 7, whose SPARQL compiler refuses an update of about 1,500 triples or
  more ("The length of generated SQL text has exceeded 10000 lines of code"). Every term is
  written by pyoxigraph's serialiser (``str(term)``), so no value can change the structure of
  the update.
- Graph Store Protocol (``graph_store=URL``): one ``PUT URL?graph=<g>`` per graph with an
  N-Triples body, which the server swaps in atomically.

Each accepted request is noted in the push's journal (:mod:`kg.push_journal`): a push that
stops (an interruption, a failed request) raises :class:`PushStopped`, which says how far it
got, which graphs are partial on the remote side (a staging graph that holds part of a graph;
the live graphs are each whole, the new version or the one before) and which are not sent yet;
``resume=True`` then sends only the graphs the journal does not list.

Virtuoso stores numbers by value: ``"55"^^xsd:decimal`` comes back as ``"55"^^xsd:integer``. To
a server that says it is Virtuoso (its ``Server`` header, asked once before the push) such a
decimal is sent as ``"55.0"``, the same value, which it keeps an ``xsd:decimal`` (and writes back
as ``"55"``).

After loading, the quads of every pushed graph are counted on the remote side (one query per
500 graphs) and compared with the local counts. HTTP goes through httpx (see
:class:`kg.remote_http.Remote`: no redirects followed, a total deadline and a size cap per
request, Basic or Digest authentication, secrets redacted from every message). ``report.quads``
counts only what the remote store accepted.

>>> graphs = {"https://e.org/g": ['<https://e.org/s> <https://e.org/p> "v" .']}
>>> for step in update_requests(graphs, 1024, 1000, lambda g: NamedNode(g + "-staging")):
...     print(step.text)
DROP SILENT GRAPH <https://e.org/g> ;
INSERT DATA {
GRAPH <https://e.org/g> {
<https://e.org/s> <https://e.org/p> "v" .
}
}

A graph larger than a request is staged and moved:

>>> graphs = {"https://e.org/g": [f'<https://e.org/s> <https://e.org/p> "{i}" .' for i in range(3)]}
>>> for step in update_requests(graphs, 1024, 2, lambda g: NamedNode(g + "-staging")):
...     print(step.completes, step.staging, step.text.replace(chr(10), " "))
[] https://e.org/g-staging DROP SILENT GRAPH <https://e.org/g-staging> ; INSERT DATA { GRAPH <https://e.org/g-staging> { <https://e.org/s> <https://e.org/p> "0" . <https://e.org/s> <https://e.org/p> "1" . } }
['https://e.org/g'] https://e.org/g-staging INSERT DATA { GRAPH <https://e.org/g-staging> { <https://e.org/s> <https://e.org/p> "2" . } } ; DROP SILENT GRAPH <https://e.org/g> ; INSERT { GRAPH <https://e.org/g> { ?s ?p ?o } } WHERE { GRAPH <https://e.org/g-staging> { ?s ?p ?o } } ; DROP SILENT GRAPH <https://e.org/g-staging>
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping
from urllib.parse import quote, urlencode

from pyoxigraph import Literal, NamedNode, RdfFormat, Triple, serialize

from .errors import StoreError, UsageError
from .push_journal import Journal
from .remote_http import AUTH_METHODS, DEFAULT_TIMEOUT, Remote, RemoteRefused, check_url, redact, redact_text, secrets_of
from .sparql.updates import replacement
from .store import GraphStore
from .vocab import XSD, Iris

DEFAULT_BATCH_BYTES = 256 * 1024
DEFAULT_BATCH_QUADS = 1000
# Virtuoso 7.2 refuses an INSERT DATA of about 1,500 triples or more, and compiles a large one in more
# than linear time: the bundled catalog loaded in 78 s at 250 quads a request (61 s of its CPU), 275 s
# at 1,000 (157 s), on a shared 2-core machine
VIRTUOSO_BATCH_QUADS = 250
SHOWN_GRAPHS = 5  # a message names at most this many graphs of a kind, then says how many more


@dataclass
class PushReport:
    """What a push did: graphs and quads sent, requests made, and the remote check.

    ``graphs`` counts the store's graphs; ``skipped`` those a resumed push found done already."""

    mode: str
    graphs: int = 0
    quads: int = 0
    requests: int = 0
    seconds: float = 0.0
    verified: bool | None = None
    mismatches: list[tuple[str, int, int]] = field(default_factory=list)
    pruned: list[str] = field(default_factory=list)
    skipped: int = 0
    journal: bool = True  # whether the push kept a journal (a --resume can skip what it sent)


@dataclass
class Step:
    """One request of an update-mode push: its text, its quads, the graphs it makes whole on the
    remote side, and the staging graph it writes into (partial until a step moves it into place)
    with the graph it gathers there."""

    text: str
    quads: int
    completes: list[str]
    staging: str | None = None
    staged: str | None = None


class PushStopped(StoreError):
    """A push that stopped before its end (interrupted, or a request failed), with what it had done:
    ``done`` graphs replaced, ``in_flight`` graphs of the request under way (each whole on the
    remote side, old or new), ``partial`` staging graphs holding part of a graph (graph -> staging
    IRI), ``pending`` graphs not sent, ``interrupted`` whether a KeyboardInterrupt stopped it."""

    def __init__(self, cause: str, *, done: list[str], in_flight: list[str], partial: dict[str, str],
                 pending: list[str], quads: int, total_quads: int, graphs: int, interrupted: bool,
                 journal: bool) -> None:
        self.cause, self.done, self.in_flight, self.partial = cause, done, in_flight, partial
        self.pending, self.quads, self.total_quads, self.graphs = pending, quads, total_quads, graphs
        self.interrupted, self.journal = interrupted, journal
        super().__init__(f"{cause}; {self.progress()}")

    def progress(self) -> str:
        """How far the push got and what is partial, in one line."""
        partial = ("partial on the remote side: " + _named([f"{stage} (part of {graph})"
                                                           for graph, stage in self.partial.items()])
                   + "; every live graph is whole (the new version or the one before)") if self.partial else \
            "no graph is partial on the remote side (each is replaced in one request)"
        sent = [g for g in self.in_flight if g not in self.partial]
        flight = f"; the last request ({_named(sent)}) may or may not have been applied" if sent else ""
        return (f"{len(self.done)} of {self.graphs} graphs replaced ({self.quads} of {self.total_quads} quads sent); "
                f"{partial}{flight}; not sent yet: {len(self.pending)} graph(s)")


def _named(graphs: list[str]) -> str:
    shown = ", ".join(graphs[:SHOWN_GRAPHS])
    return shown + (f" and {len(graphs) - SHOWN_GRAPHS} more" if len(graphs) > SHOWN_GRAPHS else "")


def _lines(store: GraphStore, graph: NamedNode, virtuoso: bool = False) -> list[str]:
    if virtuoso:
        return [f"{q.subject} {q.predicate} {_kept_typed(q.object)} ." for q in store.quads(graph)]
    return [f"{q.subject} {q.predicate} {q.object} ." for q in store.quads(graph)]


def _kept_typed(term: Any) -> Any:
    """``term``, or for a whole-number xsd:decimal the same value written with a fraction, which
    Virtuoso keeps a decimal (it turns ``"55"^^xsd:decimal`` into an integer).

    >>> str(_kept_typed(Literal("55", datatype=XSD.decimal))), str(_kept_typed(Literal("5.5", datatype=XSD.decimal)))
    ('"55.0"^^<http://www.w3.org/2001/XMLSchema#decimal>', '"5.5"^^<http://www.w3.org/2001/XMLSchema#decimal>')
    """
    if isinstance(term, Literal) and term.datatype == XSD.decimal and "." not in term.value:
        return Literal(term.value + ".0", datatype=XSD.decimal)
    return term


def _is_virtuoso(remote: Remote, endpoint: str) -> bool:
    """Whether the store at ``endpoint`` says it is Virtuoso (one cheap ASK; False if it will not say)."""
    try:
        remote.request("POST", endpoint, urlencode({"query": "ASK {}"}).encode("utf-8"),
                       {"Content-Type": "application/x-www-form-urlencoded; charset=UTF-8"})
    except StoreError:
        return False
    return remote.server.lower().startswith("virtuoso")


def literals_first(dropped: list[NamedNode], inserted: list[tuple[NamedNode, list[str]]]) -> str:
    """:func:`kg.sparql.updates.replacement` with every triple whose object is a literal inserted
    before the others, in an ``INSERT DATA`` of its own. Virtuoso 7.2 turns a literal into the IRI of
    the same text when that IRI comes earlier in the same request (``<u> .`` then ``"u"``: both IRIs;
    the other way round both are kept), and a record often cites a URL it also holds as text.

    >>> print(literals_first([], [(NamedNode("https://e.org/g"), ['<https://e.org/s> <https://e.org/p> <https://x> .',
    ...                                                           '<https://e.org/s> <https://e.org/q> "https://x" .'])]))
    INSERT DATA {
    GRAPH <https://e.org/g> {
    <https://e.org/s> <https://e.org/q> "https://x" .
    }
    } ;
    INSERT DATA {
    GRAPH <https://e.org/g> {
    <https://e.org/s> <https://e.org/p> <https://x> .
    }
    }
    """
    literal = [(graph, [line for line in lines if line.split(" ", 2)[2].startswith('"')]) for graph, lines in inserted]
    other = [(graph, [line for line in lines if not line.split(" ", 2)[2].startswith('"')]) for graph, lines in inserted]
    first = replacement(dropped, literal)
    rest = replacement([], other)
    return " ;\n".join(part for part in (first, rest) if part)


def update_requests(graphs: Mapping[str, list[str]], batch_bytes: int, batch_quads: int,
                    staging: Callable[[str], NamedNode], *, virtuoso: bool = False) -> Iterator[Step]:
    """The requests that replace every graph of ``graphs`` (IRI -> N-Triples lines, already
    serialised), each at most about ``batch_bytes`` long and ``batch_quads`` quads (a single line
    may exceed the bytes): small graphs whole, several a request; a larger graph gathered in
    ``staging(graph)`` and moved into place by its last request. For ``virtuoso``, each request's
    literals come first (:func:`literals_first`)."""
    batch: list[tuple[str, list[str]]] = []
    size = quads = 0
    write = literals_first if virtuoso else replacement

    def flush() -> Step:
        return Step(write([NamedNode(g) for g, _ in batch], [(NamedNode(g), lines) for g, lines in batch]),
                    sum(len(lines) for _, lines in batch), [g for g, _ in batch])

    for graph, lines in graphs.items():
        need = sum(len(line) + 1 for line in lines) + len(graph) + 40
        if need > batch_bytes or len(lines) > batch_quads:
            if batch:
                yield flush()
                batch, size, quads = [], 0, 0
            yield from _staged(graph, lines, batch_bytes, batch_quads, staging(graph), write)
            continue
        if batch and (size + need > batch_bytes or quads + len(lines) > batch_quads):
            yield flush()
            batch, size, quads = [], 0, 0
        batch.append((graph, lines))
        size, quads = size + need, quads + len(lines)
    if batch:
        yield flush()


def _staged(graph: str, lines: list[str], batch_bytes: int, batch_quads: int, stage: NamedNode,
            write: Callable[[list[NamedNode], list[tuple[NamedNode, list[str]]]], str] = replacement) -> Iterator[Step]:
    """A graph too large for one request: into ``stage`` part by part, then moved into place."""
    parts: list[list[str]] = [[]]
    size = 0
    for line in lines:
        if parts[-1] and (size + len(line) + 1 > batch_bytes or len(parts[-1]) >= batch_quads):
            parts.append([])
            size = 0
        parts[-1].append(line)
        size += len(line) + 1
    for number, part in enumerate(parts):
        text = write([stage] if number == 0 else [], [(stage, part)])
        last = number == len(parts) - 1
        if last:  # what MOVE does, spelt out: Jena 4.5 refuses MOVE ("Invalid source target for operation")
            live = NamedNode(graph)
            text += (f" ;\nDROP SILENT GRAPH {live} ;\nINSERT {{ GRAPH {live} {{ ?s ?p ?o }} }} "
                     f"WHERE {{ GRAPH {stage} {{ ?s ?p ?o }} }} ;\nDROP SILENT GRAPH {stage}")
        yield Step(text, len(part), [graph] if last else [], stage.value, graph)


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


def _remote_graphs_under(remote: Remote, endpoint: str, prefixes: Iterable[str]) -> list[str]:
    test = " || ".join(f"STRSTARTS(STR(?g), {Literal(prefix)})" for prefix in prefixes)
    rows = remote.select(endpoint, f"SELECT DISTINCT ?g WHERE {{ GRAPH ?g {{ ?s ?p ?o }} FILTER({test}) }}")
    return [row["g"]["value"] for row in rows if "g" in row]


def push(store: GraphStore, endpoint: str, *, update_endpoint: str | None = None,
         graph_store: str | None = None, user: str | None = None, password: str | None = None,
         auth: str = "basic", timeout: float = DEFAULT_TIMEOUT, batch_bytes: int = DEFAULT_BATCH_BYTES,
         batch_quads: int | None = None, verify: bool = True, prune: bool = False,
         iris: Iris | None = None, graph_param: str = "graph", resume: bool = False,
         progress: Callable[[int, int], None] | None = None) -> PushReport:
    """Replace every named graph of ``store`` in the remote store at ``endpoint``.

    ``endpoint`` is the SPARQL query endpoint (used to verify); ``update_endpoint``
    (default: ``endpoint``) receives the updates; with ``graph_store`` the graphs are
    sent with Graph Store Protocol PUTs instead. ``prune`` drops remote graphs under the
    data's ``graph/`` namespace that the local store no longer has, and any staging graph
    an earlier push left. ``resume`` sends only the graphs that the journal of an earlier push
    of this store version to the same target does not list as done. ``progress`` is called
    with (quads sent, quads to send). A push that stops early raises :class:`PushStopped`.
    ``batch_quads`` (the quads a request holds at most) defaults to 1,000, 250 for Virtuoso.
    """
    check_url(endpoint, "--endpoint")
    update_endpoint = check_url(update_endpoint or endpoint, "--update-endpoint")
    if graph_store is not None:
        check_url(graph_store, "--graph-store")
    if batch_bytes < 1024:
        raise UsageError("the batch size must be at least 1024 bytes")
    if batch_quads is not None and batch_quads < 1:
        raise UsageError("a request must hold at least one quad")
    graphs = store.named_graphs()
    if not graphs:
        raise StoreError("the store holds no named graphs: nothing to push (run 'kg build' first)")
    remote = Remote(user=user, password=password, auth=auth, timeout=timeout)
    remote.hide(endpoint, update_endpoint, graph_store)
    mode, target = ("graph-store", graph_store) if graph_store is not None else ("update", update_endpoint)
    folder = store.version_folder if store.generation != 0 else None
    done = Journal.read(folder, mode, target) if resume else set()
    journal = Journal.begin(folder, mode, target, keep=resume)
    try:
        report = _push(store, remote, [g for g in graphs if g.value not in done], len(graphs), endpoint,
                       update_endpoint, graph_store, graph_param, batch_bytes, batch_quads, iris or Iris(),
                       journal, progress)
        report.skipped = len(graphs) - len([g for g in graphs if g.value not in done])
        try:
            _check(store, remote, endpoint, update_endpoint, graphs, report, prune, verify, iris or Iris())
        except KeyboardInterrupt:
            raise PushStopped("interrupted while checking the remote store", done=[g.value for g in graphs],
                              in_flight=[], partial={}, pending=[], quads=report.quads, total_quads=report.quads,
                              graphs=len(graphs), interrupted=True, journal=report.journal) from None
        report.requests = remote.requests
        journal.finish()
        return report
    finally:
        remote.close()


def _check(store: GraphStore, remote: Remote, endpoint: str, update_endpoint: str, graphs: list[NamedNode],
           report: PushReport, prune: bool, verify: bool, iris: Iris) -> None:
    """After the graphs are sent: prune, then count every graph on the remote side (into ``report``)."""
    if prune:
        report.pruned = _prune(remote, endpoint, update_endpoint, {g.value for g in graphs}, iris)
    if verify:
        counts = remote_counts(remote, endpoint, graphs)
        local = {g.value: store.graph_size(g) for g in graphs}
        report.mismatches = [(g, n, counts.get(g, 0)) for g, n in local.items() if counts.get(g, 0) != n]
        report.verified = not report.mismatches


class _Progress:
    """What a push has sent so far, for the report and for :class:`PushStopped`."""

    def __init__(self, graphs: list[str], total_graphs: int, skipped: int, total_quads: int, journal: Journal,
                 progress: Callable[[int, int], None] | None) -> None:
        self.pending = list(graphs)
        self.total_graphs, self.total_quads = total_graphs, total_quads
        self.done: list[str] = []
        self.skipped = skipped
        self.partial: dict[str, str] = {}
        self.quads = 0
        self.journal, self.progress = journal, progress

    def accepted(self, quads: int, completes: list[str], staging: str | None, graph: str | None) -> None:
        self.quads += quads
        if staging is not None and graph is not None:
            self.partial[graph] = staging
        for name in completes:
            self.partial.pop(name, None)
            self.done.append(name)
        finished = set(completes)
        self.pending = [g for g in self.pending if g not in finished]
        self.journal.done(completes)
        if self.progress:
            self.progress(self.quads, self.total_quads)

    def stopped(self, cause: str, flight: Step | None, interrupted: bool) -> PushStopped:
        """The push stopped while ``flight`` was under way (None: between requests)."""
        partial = dict(self.partial)
        in_flight = [] if flight is None else list(flight.completes)
        if flight is not None and flight.staging is not None and flight.staged is not None:
            partial[flight.staged] = flight.staging  # written in part, or moved, or not: not whole yet for sure
            in_flight = [flight.staged]
        return PushStopped(cause, done=list(self.done), in_flight=in_flight,
                           partial=partial, pending=[g for g in self.pending if g not in in_flight],
                           quads=self.quads, total_quads=self.total_quads,
                           graphs=self.total_graphs - self.skipped, interrupted=interrupted,
                           journal=self.journal.path is not None)


def _push(store: GraphStore, remote: Remote, graphs: list[NamedNode], total_graphs: int, endpoint: str,
          update_endpoint: str, graph_store: str | None, graph_param: str, batch_bytes: int, batch_quads: int | None,
          iris: Iris, journal: Journal, progress: Callable[[int, int], None] | None) -> PushReport:
    report = PushReport(mode="graph-store" if graph_store else "update", graphs=total_graphs,
                        journal=journal.path is not None)
    started = time.perf_counter()
    total = sum(store.graph_size(g) for g in graphs)
    sent = _Progress([g.value for g in graphs], total_graphs, total_graphs - len(graphs), total, journal, progress)
    flight: Step | None = None
    try:
        virtuoso = _is_virtuoso(remote, endpoint)
        if graph_store is not None:
            separator = "&" if "?" in graph_store else "?"
            for graph in graphs:
                triples = [Triple(q.subject, q.predicate, _kept_typed(q.object) if virtuoso else q.object)
                           for q in store.quads(graph)]
                body = serialize(triples, format=RdfFormat.N_TRIPLES) or b""
                flight = Step("", len(triples), [graph.value])
                remote.put(f"{graph_store}{separator}{quote(graph_param)}={quote(graph.value, safe='')}", body,
                           "application/n-triples")
                sent.accepted(len(triples), [graph.value], None, None)
                flight = None
        else:
            lines = {g.value: _lines(store, g, virtuoso) for g in graphs}
            cap = batch_quads or (VIRTUOSO_BATCH_QUADS if virtuoso else DEFAULT_BATCH_QUADS)
            for step in update_requests(lines, batch_bytes, cap, iris.push_staging, virtuoso=virtuoso):
                flight = step
                remote.update(update_endpoint, step.text)
                sent.accepted(step.quads, step.completes, step.staging, step.staged)
                flight = None
    except KeyboardInterrupt:
        raise sent.stopped("interrupted", flight, True) from None
    except RemoteRefused as err:  # refused: the request under way was not applied
        raise sent.stopped(str(err), None, False) from None
    except StoreError as err:
        raise sent.stopped(str(err), flight, False) from None
    report.quads = sent.quads
    report.seconds = time.perf_counter() - started
    return report


def _prune(remote: Remote, endpoint: str, update_endpoint: str, local: set[str], iris: Iris) -> list[str]:
    """Drop the remote graphs under the data's graph/ namespace that ``local`` lacks, and every staging graph."""
    stale = [g for g in _remote_graphs_under(remote, endpoint, [iris.base + "graph/", iris.push_staging_prefix()])
             if g not in local]
    for start in range(0, len(stale), 200):
        remote.update(update_endpoint, " ;\n".join(f"DROP SILENT GRAPH {NamedNode(g)}" for g in stale[start:start + 200]))
    return stale


__all__ = ["AUTH_METHODS", "DEFAULT_BATCH_BYTES", "DEFAULT_BATCH_QUADS", "DEFAULT_TIMEOUT", "PushReport",
           "PushStopped", "Remote", "RemoteRefused", "Step", "push", "redact", "redact_text", "remote_counts",
           "secrets_of", "update_requests"]
