"""Sources -> records -> quads -> store, with a quarantine for bad records.

Everything is read and checked before anything is written (``kg.sources``): an
unreadable file changes nothing. Good records are never lost because of a bad
neighbour (the bad one is set aside in the quarantine), unless ``strict`` asks to
reject the whole input. Every record is checked against the record-local rules of
the shapes as it is mapped (``kg.validation.at_ingest``): one that breaks a structural
rule (a MUST of the catalog's schema) is quarantined with its reasons; what breaks a
quality rule is a finding of the report, and with ``gate`` a record that breaks one is
quarantined instead of written. A quarantined record is not written, so the stored
version of it (if any) stays. A whole ingest is one write session of the store (records
are written in batches, all into one new version), so a reader or a crash sees the
whole old version or the whole new one. RDF files go in as they are.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Sequence

from pyoxigraph import DefaultGraph, Literal, NamedNode, Quad

from .background import BackgroundWrites
from .collector import fewer_collections
from .coverage import Written
from .description import ontology_quads, refresh_description
from .errors import InputRejected, RecordError, UsageError
from .history import Changeset, Recorder
from .mapping import Triple, feature_states, record_triples, relation_quads, source_file_quads
from .nquads import GraphTriples
from .records import Edge, Record
from .sources import (
    BULK, EDGES, MAX_RECORD_BYTES, MAX_RECORD_CELLS, STREAM_MIN_BYTES, Batch, CatalogStream, Input, ItemChecker,
    RdfDocument, read_inputs,
)
from .store import GraphStore, transactional
from .validation.at_ingest import RuleCheck, RuleFinding, SchemaBreak, rejecting
from .vocab import RDF, SKOS, Iris

# Records mapped, checked and bulk-loaded together: memory stays bounded and the loads few, and the
# last batch's write (which no mapping overlaps) stays short.
BATCH_SIZE = 250
# The first batches are smaller: the writer waits for the first, and from then on each batch's
# mapping overlaps the write of the one before (the records pending are still taken BATCH_SIZE at a
# time, so which version of a record given twice is written does not change).
RAMP = (50, 100)
# ... and at most this much of their JSON (UTF-8): records with many cells or long texts make batches of
# fewer records, so that what a batch holds while it is mapped and written stays near a batch of full ones
# (250 of 9,120 generated full-shape records: 5 MiB). 200 records of 2,000 cells (45.6 MB) peaked at 3.1 GB
# in batches of 50 and 100 records (2 million quads): benchmarks/results/memory.md.
BATCH_BYTES = 6 * 1024 * 1024
GATES = (None, "violation", "warning")  # what --gate holds back: results this severe or worse
Caps = tuple[int, int]  # the most cells and bytes (UTF-8 JSON) a record may hold
DEFAULT_CAPS: Caps = (MAX_RECORD_CELLS, MAX_RECORD_BYTES)

Progress = Callable[[int, int], None]


@dataclass
class IngestReport:
    """What an ingest did: counts, quarantined items, warnings and timing.

    ``quarantined`` items were set aside (not written); ``warnings`` items went in,
    with something worth a look (a ``javascript:`` citation kept as text, an edge
    whose end is not a record in the store yet, an unknown edge type); ``findings``
    are the results of the record-local rules on the records (``checked`` of them). ``quads_written``
    counts RDF files' quads too (``rdf_quads`` of them).
    """

    records: int = 0
    edges: int = 0
    quads_written: int = 0
    quarantined: list[RecordError] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    seconds: float = 0.0
    warnings: list[RecordError] = field(default_factory=list)
    rdf_quads: int = 0
    findings: list[RuleFinding] = field(default_factory=list)
    checked: int = 0  # records checked against the rules
    rule_seconds: float = 0.0  # of ``seconds``, the time the rules took
    changeset: Changeset | None = None  # what this ingest changed (kg.history); None: nothing
    removed: list[str] = field(default_factory=list)  # records removed by ``replace_all``

    @property
    def wrote_nothing(self) -> bool:
        """True when the input held nothing to write, so the store was left exactly as it was."""
        return self.quads_written == 0


def ingest_paths(store: GraphStore, paths: list[str], iris: Iris | None = None, *,
                 strict: bool = False, progress: Progress | None = None,
                 stream: bool | None = None, format: str | None = None,
                 graph: str | None = None, gate: str | None = None, caps: Caps = DEFAULT_CAPS,
                 replace_all: bool = False, compact: bool = False, keep_invalid: bool = False) -> IngestReport:
    """Read ``paths`` (files, folders, '-') and ingest them; see ``ingest_batches``.

    Bulk catalog files of ``STREAM_MIN_BYTES`` or more are streamed (``ingest_inputs``):
    checked whole first, then read, mapped and written ``BATCH_SIZE`` records at a
    time, so memory does not grow with the file. ``stream`` True streams every bulk
    catalog file, False none. The graph written is the same either way.

    RDF files (by extension: .ttl .nt .nq .trig .jsonld .rdf .xml .owl; or every path
    when ``format`` names an RDF format) are loaded as they are, as the Oxigraph CLI's
    ``load`` does: quads into the graph they name, triples into the default graph, or
    into ``graph`` (an IRI) when it is given (``kg.sources.rdf``).

    A record that breaks a structural rule of the shapes (``kgsh:Structural``: a MUST of the
    catalog's schema) is quarantined with its reasons, not written; ``keep_invalid`` writes it
    anyway, its results findings like the others (data known to be odd: round trips, fixtures).
    ``gate`` ("violation" or "warning"): a record with a rule result that severe or
    worse is quarantined, not written (``_Run``). ``caps``: (cells, bytes) a record may
    hold at most; a bigger one is quarantined before it is read further.

    ``replace_all``: the records of the input are the whole new release; stored records
    it lacks are removed (and listed in the changeset as removed).

    ``compact``: merge the store's files before the new version becomes current
    (``GraphStore.compact``; a build into an empty store always does).
    """
    def run() -> IngestReport:
        with fewer_collections():  # reading the files allocates as much as mapping them
            return _ingest_read(store, paths, iris, strict=strict, progress=progress, stream=stream,
                                format=format, graph=graph, gate=gate, caps=caps, replace_all=replace_all,
                                keep_invalid=keep_invalid)

    if not compact:
        return run()
    with store.transaction():
        store.compact()
        return run()


def _ingest_read(store: GraphStore, paths: list[str], iris: Iris | None, *, strict: bool, progress: Progress | None,
                 stream: bool | None, format: str | None, graph: str | None, gate: str | None, caps: Caps,
                 replace_all: bool, keep_invalid: bool = False) -> IngestReport:
    target = _graph_iri(graph)
    minimum = None if stream is False else 0 if stream else STREAM_MIN_BYTES
    inputs = read_inputs(paths, stream_min_bytes=minimum, rdf=format, graph=target, limit=caps[1])
    if target is not None and not all(isinstance(item, RdfDocument) for item in inputs):
        raise UsageError("a graph applies to RDF files only (catalog JSON goes into kg's own graphs)")
    if not any(isinstance(item, CatalogStream) for item in inputs):
        return ingest_batches(store, inputs, iris, strict=strict, progress=progress, gate=gate, caps=caps,
                              replace_all=replace_all, keep_invalid=keep_invalid)
    return ingest_inputs(store, inputs, iris, strict=strict, progress=progress, gate=gate, caps=caps,
                         replace_all=replace_all, keep_invalid=keep_invalid)


def _graph_iri(graph: str | None) -> NamedNode | None:
    if graph is None:
        return None
    try:
        return NamedNode(graph)
    except ValueError as err:
        raise UsageError(f"graph {graph!r} is not an IRI: {err}") from None


def ingest_batches(store: GraphStore, batches: Sequence[Input], iris: Iris | None = None, *,
                   strict: bool = False, progress: Progress | None = None, gate: str | None = None,
                   caps: Caps = DEFAULT_CAPS, replace_all: bool = False, keep_invalid: bool = False) -> IngestReport:
    """Ingest already-read batches: each record replaces its own named graph.

    Everything is checked and mapped before the first write. Bad items are
    quarantined (``strict``: ``InputRejected``, nothing written). Input with nothing
    good in it (an empty records list, only bad records) leaves the store untouched.
    """
    return _ingest(store, list(batches), iris or Iris(), strict, progress, chunk=None, gate=gate, caps=caps,
                   replace_all=replace_all, keep_invalid=keep_invalid)


def ingest_inputs(store: GraphStore, inputs: Sequence[Input], iris: Iris | None = None, *,
                  strict: bool = False, progress: Progress | None = None, gate: str | None = None,
                  caps: Caps = DEFAULT_CAPS, replace_all: bool = False, keep_invalid: bool = False) -> IngestReport:
    """Ingest inputs from ``read_inputs``, ``BATCH_SIZE`` records at a time.

    Every input was checked whole before (an unreadable file changes nothing). The
    records are then checked, mapped and written a chunk at a time; across chunks only
    ids are kept (for duplicates in a file, and for later files superseding earlier
    ones), so memory does not grow with the input. A record superseded by a later file
    is written first, then replaced: the store ends as with ``ingest_batches``.
    """
    return _ingest(store, list(inputs), iris or Iris(), strict, progress, chunk=BATCH_SIZE, gate=gate, caps=caps,
                   replace_all=replace_all, keep_invalid=keep_invalid)


@transactional
def _ingest(store: GraphStore, inputs: list[Input], iris: Iris, strict: bool, progress: Progress | None,
            chunk: int | None, gate: str | None = None, caps: Caps = DEFAULT_CAPS,
            replace_all: bool = False, keep_invalid: bool = False) -> IngestReport:
    """The one ingest. ``strict``: in chunks, a first pass without a store checks and maps
    everything; all at once, the single write waits for the same checks."""
    with fewer_collections():
        return _ingest_collected(store, inputs, iris, strict, progress, chunk, gate, caps, replace_all, keep_invalid)


def _ingest_collected(store: GraphStore, inputs: list[Input], iris: Iris, strict: bool, progress: Progress | None,
                      chunk: int | None, gate: str | None, caps: Caps, replace_all: bool,
                      keep_invalid: bool = False) -> IngestReport:
    started = time.perf_counter()
    if gate not in GATES:
        raise UsageError(f"gate must be one of {', '.join(GATES[1:])}, not {gate!r}")
    if strict and chunk is not None:
        dry = _Run(None, iris, chunk, None, gate=gate, caps=caps, keep_invalid=keep_invalid)
        dry.take(inputs)
        if dry.errors:
            raise InputRejected(dry.errors)
    run = _Run(store, iris, chunk, progress, strict=strict, gate=gate, caps=caps, keep_invalid=keep_invalid)
    run.take(inputs)
    report = IngestReport(records=len(run.written), quads_written=run.quads_written, quarantined=run.errors,
                          superseded=run.superseded, sources=[item.source for item in inputs],
                          warnings=run.warnings, findings=run.findings, checked=len(run.checked),
                          rule_seconds=run.rule_seconds)
    _record_changeset(run, report, replace_all)
    if report.records or run.edges or run.rdf:
        _finish(store, iris, run, report)
    elif run.described_now:  # only quarantined records' shared descriptions went in: none is new and used
        drop_unused_shared(store, iris, run.described_now)
        report.quads_written = 0
    report.seconds = time.perf_counter() - started
    return report


@dataclass
class _Pending:
    record: Record
    source: str
    index: int
    size: int = 0  # the record's UTF-8 JSON


# a record, its graph's quads, shared descriptions, and its graph's triples (for the rules)
Mapped = tuple[_Pending, GraphTriples, list[Quad], list[Triple]]


class GateError(RecordError):
    """A record held back by the gate: it breaks rules; ``reasons`` are its findings."""

    def __init__(self, pending: _Pending, reasons: list[RuleFinding]) -> None:
        rules = Counter(f.rule for f in reasons)
        listed = ", ".join(f"{name}" + (f" x{n}" if n > 1 else "") for name, n in sorted(rules.items()))
        first = reasons[0]
        super().__init__(pending.source, pending.index, pending.record.id, first.path,
                         f"held back by the gate: breaks {listed}; the stored version, if any, is kept")
        self.reasons = reasons


class _Run:
    """One pass over the inputs: records checked, mapped and (with a store) written a chunk
    at a time (``chunk`` None: all at the end); edges and RDF quads kept for ``_finish``.
    ``strict`` raises ``InputRejected`` at the first write that would follow a bad item.
    Each mapped record is checked against the rules (``RuleCheck``); with ``gate``, one
    with a result that severe is quarantined (its shared descriptions are still written:
    later records may point to them; those none points to are dropped at the end)."""

    def __init__(self, store: GraphStore | None, iris: Iris, chunk: int | None, progress: Progress | None, *,
                 strict: bool = False, gate: str | None = None, caps: Caps = DEFAULT_CAPS,
                 keep_invalid: bool = False) -> None:
        self.store, self.iris, self.chunk, self.progress, self.strict = store, iris, chunk, progress, strict
        self.keep_invalid = keep_invalid  # structural breaks written anyway, as findings
        self.held = {None: (), "violation": ("Violation",), "warning": ("Violation", "Warning")}[gate]
        self.checker = ItemChecker(max_cells=caps[0], max_bytes=caps[1])
        self.rules = RuleCheck(iris, ontology_quads(iris))
        self.findings: list[RuleFinding] = []
        self.found_in: set[str] = set()  # ids of the records with findings
        self.checked: set[str] = set()  # ids of the records checked
        self.rule_seconds = 0.0
        self.history = Recorder(store, iris) if store is not None else None
        self.errors: list[RecordError] = []
        self.warnings: list[RecordError] = []
        self.superseded: list[str] = []
        self.edges: list[tuple[Edge, str, int]] = []  # (edge, source, index)
        self.edges_header: dict | None = None
        self.catalog_header: dict | None = None
        self.rdf: list[Quad] = []
        self.pending: dict[str, _Pending] = {}
        self.pending_bytes = 0  # their JSON (a record superseded while pending still counts: flushed a little sooner)
        self.taken: set[str] = set()     # ids of the records taken so far
        self.written: set[str] = set()   # ids of the records written (a superseded one is written again)
        self.told: Written | None = Written()  # their feature cells, for the description (None: read them back)
        self.described: set[str] = set()  # shared resources described so far
        self.described_now: set[Any] = set()  # the shared resources written (as nodes)
        self.quads_written = 0
        self.writes = BackgroundWrites()  # the batch being written while the next is mapped
        self.done = 0
        self.total = 0
        self.batches = 0  # batches taken so far

    def take(self, inputs: list[Input]) -> None:
        parts = [part for given in inputs for part in given.expanded()]
        self.total = sum(_item_count(part) for part in parts)
        try:
            for part in parts:
                if isinstance(part, RdfDocument):
                    self.rdf += part.quads
                elif part.kind == EDGES:
                    self._take_edges(part)
                else:
                    self._take_records(part)
            if self.pending or self.strict:
                self.flush()
        except BaseException:
            self.writes.wait(raise_error=False)  # the session is thrown away: no write may still run in it
            raise
        self.writes.wait()

    def _take_edges(self, batch: Batch) -> None:
        good: list[tuple[Edge, str, int]] = []
        for checked in self.checker.edges(batch):
            self.warnings += checked.warnings  # an edge given twice byte for byte: kept once, with a warning
            if checked.item is None:
                self.errors += [checked.error] if checked.error else []
                continue
            broken = self._edge_breaks(checked.item, checked.source, checked.index, len(self.edges) + len(good))
            if broken is not None:
                self.errors.append(broken)
                continue
            good.append((checked.item, checked.source, checked.index))
        if good:  # an edges file with no usable edges never empties the stored edges
            self.edges += good
            self.edges_header = batch.header

    def _edge_breaks(self, edge: Edge, source: str, index: int, position: int) -> SchemaBreak | None:
        """Why an edge is set aside: it breaks a structural rule of the edge shapes (None: it goes in).
        Its findings proper are made when the edges are written (``_write_shared``)."""
        if self.keep_invalid:
            return None
        where = f"{edge.source} -> {edge.target}"
        broken = rejecting(self.rules.record(relation_quads(edge, position, self.iris), source, index, where))
        return SchemaBreak(source, index, where, broken) if broken else None

    def _take_records(self, batch: Batch | CatalogStream) -> None:
        if batch.note:
            self.warnings.append(RecordError(batch.source, None, None, "(file)", batch.note))
        any_good = False
        for checked in self.checker.records(batch):
            self.done += 1
            record = checked.item
            if record is None:
                self.errors += [checked.error] if checked.error else []
                continue
            any_good = True
            self.warnings += checked.warnings
            if record.id in self.taken:  # from an earlier input (a duplicate in this one is an error)
                self.superseded.append(record.id)
                self.pending.pop(record.id, None)  # the newer version goes last
            self.taken.add(record.id)
            self.pending[record.id] = _Pending(record, checked.source, checked.index, checked.size)
            self.pending_bytes += checked.size
            if self.chunk is not None and (len(self.pending) >= self.chunk or self.pending_bytes >= BATCH_BYTES):
                self.flush()
        # an empty or all-bad catalog file never replaces the stored catalog header
        if batch.kind == BULK and any_good:
            self.catalog_header = batch.header

    def flush(self) -> None:
        """Map and check the pending records ``BATCH_SIZE`` at a time, each batch written while
        the next is mapped (``strict``: all of them first, and none written if any item so far
        was bad)."""
        pending = list(self.pending.values())
        self.pending.clear()
        self.pending_bytes = 0
        if self.strict:
            mapped = self._map(pending)
            held = self._check_rules(mapped)
            if self.errors:
                raise InputRejected(self.errors)
            batches: Iterable[tuple[list[Mapped], set[str], int]] = (
                (mapped[start:end], held, end) for start, end in self._slices([m[0].size for m in mapped]))
        else:
            batches = ((part, self._check_rules(part), end) for part, end in (
                (self._map(pending[start:end]), end) for start, end in self._slices([p.size for p in pending])))
        for part, held, done in batches:
            if self.store is not None:
                self._write(part, held)
            if self.progress and self.chunk is None:
                self.progress(min(done, len(pending)), len(pending))
        if self.progress and self.chunk is not None:
            self.progress(self.done, self.total)

    def _next_size(self) -> int:
        """How many records the next batch holds (``RAMP``, then ``BATCH_SIZE``)."""
        return RAMP[self.batches] if self.batches < len(RAMP) else BATCH_SIZE

    def _slices(self, sizes: list[int]) -> Iterator[tuple[int, int]]:
        """(start, end) of each batch of the pending records of these ``sizes``, counted as they are taken
        (``_next_size`` records, ``BATCH_BYTES`` of JSON, whichever comes first; one record at least)."""
        start, count = 0, len(sizes)
        while start < count:
            end, weight, most = start + 1, sizes[start], min(start + self._next_size(), count)
            while end < most and weight + sizes[end] <= BATCH_BYTES:
                weight += sizes[end]
                end += 1
            self.batches += 1
            yield start, end
            start = end

    def _write(self, part: list[Mapped], held: set[str]) -> None:
        """Hand one batch to the writer (records the gate holds back leave their shared descriptions only)."""
        kept = [(p, own) for p, own, _, _ in part if p.record.id not in held]
        graphs = {self.iris.record_graph(p.record.id): own for p, own in kept}
        shared = [q for _, _, descriptions, _ in part for q in descriptions]
        self.described_now.update(q.subject for q in shared)
        self.quads_written += sum(len(q) for q in graphs.values()) + len(shared)
        self.written.update(p.record.id for p, _ in kept)
        for p, _ in kept:
            if self.told is not None and not self.told.wrote(self.iris.record_graph(p.record.id),
                                                             feature_states(p.record)):
                self.told = None
        if self.history is not None:
            # here, while the batch before is loaded: the writer thread is the slower side (9,120
            # records: 191 s of 234), and these records' stored versions are not being written
            self.history.before_write([p.record for p, _ in kept])
        for own in graphs.values():
            own.nquads()  # the loader's text made here too, for the same reason
        self.writes.submit(lambda: self._store_batch(graphs, shared))

    def _store_batch(self, graphs: dict[NamedNode, GraphTriples], shared: list[Quad]) -> None:
        assert self.store is not None
        with self.store.helping():  # on the writer thread: read what the session wrote so far
            self.store.replace_graphs(graphs, shared)

    def _check_rules(self, mapped: list[Mapped]) -> set[str]:
        """Check each mapped record against the rules; the ids held back: those that break a
        structural rule (``SchemaBreak``), and those the gate holds back."""
        held = set()
        started = time.perf_counter()
        for pending, _, descriptions, triples in mapped:
            self.rules.add_shared(descriptions)
            found = self.rules.record_terms(triples, pending.source, pending.index, pending.record.id)
            self.checked.add(pending.record.id)
            broken = [] if self.keep_invalid else rejecting(found, self.held)
            if broken:  # a structural rule of the schema: set aside with its reasons, never written
                self.errors.append(SchemaBreak(pending.source, pending.index, pending.record.id, broken))
                held.add(pending.record.id)
                continue
            if pending.record.id in self.found_in:  # an earlier version of this run: its findings no longer hold
                self.findings = [f for f in self.findings if f.record_id != pending.record.id]
            self.found_in.update([pending.record.id] if found else [])
            self.findings += found
            reasons = [f for f in found if f.severity in self.held]
            if reasons:
                self.errors.append(GateError(pending, reasons))
                held.add(pending.record.id)
        self.rule_seconds += time.perf_counter() - started
        return held

    def _map(self, records: list[_Pending]) -> list[Mapped]:
        """Each record as (record, its quads, shared descriptions). One that cannot be
        expressed in RDF joins the quarantine instead of failing the run halfway."""
        mapped = []
        for pending in records:
            local = _Tentative(self.described)
            try:
                triples, descriptions = record_triples(pending.record, self.iris, local)
                own = GraphTriples(self.iris.record_graph(pending.record.id), triples)
            except (ValueError, OverflowError) as err:
                self.errors.append(RecordError(pending.source, pending.index, pending.record.id, "(record)",
                                               f"cannot be expressed in RDF: {err}"))
                continue
            local.keep()
            mapped.append((pending, own, descriptions, triples))
        return mapped


def _record_changeset(run: _Run, report: IngestReport, replace_all: bool) -> None:
    """The changeset of this ingest (kg.history), in its write session, before the edges graph is replaced."""
    if run.history is not None and (report.records or run.edges):
        report.changeset = run.history.finish(
            report.sources, edges=[edge for edge, _, _ in run.edges] if run.edges else None,
            edges_header=run.edges_header, catalog_header=run.catalog_header, replace_all=replace_all)
        report.removed = run.history.removed


def _item_count(part: Input) -> int:
    """How many records an input holds (for progress)."""
    if isinstance(part, CatalogStream):
        return part.count
    if isinstance(part, Batch) and part.kind != EDGES:
        return len(part.items)
    return 0


class _Tentative:
    """The shared resources already described, plus those a record describes; the record's
    additions are kept only when it maps without error (``keep``)."""

    def __init__(self, described: set[str]) -> None:
        self.described: set[str] = described
        self.new: set[str] = set()

    def __contains__(self, iri: object) -> bool:
        return iri in self.new or iri in self.described

    def add(self, iri: str) -> None:
        self.new.add(iri)

    def keep(self) -> None:
        self.described |= self.new


def _finish(store: GraphStore, iris: Iris, run: _Run, report: IngestReport) -> None:
    """After the records: catalog header, edges and ontology graphs, RDF quads, clean-up, description."""
    if report.records or run.edges:
        _write_shared(store, iris, run, report)
    if run.rdf:
        store.add(run.rdf)  # one transaction: every RDF file of the ingest, or none
        report.rdf_quads = len(run.rdf)
        report.quads_written += len(run.rdf)
    if report.records:
        loaded = {q.subject for q in run.rdf if q.graph_name == iris.shared_graph}
        drop_unused_shared(store, iris, run.described_now | loaded)
    refresh_description(store, iris, run.told)
    store.flush()
    report.warnings += _dangling_edges(store, iris, run.edges)


def _write_shared(store: GraphStore, iris: Iris, run: _Run, report: IngestReport) -> None:
    """The catalog header, the edges and the ontology, each replacing its graph."""
    shared: dict[NamedNode, list[Quad]] = {}
    if run.catalog_header is not None:
        shared[iris.catalog_graph] = source_file_quads(iris.catalog_source, iris.catalog_graph,
                                                       "catalog", run.catalog_header)
    if run.edges:
        quads = source_file_quads(iris.edges_source, iris.edges_graph, "edges", run.edges_header or {})
        for position, (edge, source, index) in enumerate(run.edges):
            own = relation_quads(edge, position, iris)
            run.findings += run.rules.record(own, source, index, f"{edge.source} -> {edge.target}")
            quads += own
        shared[iris.edges_graph] = quads
        report.edges = len(run.edges)
    shared[iris.ontology_graph] = ontology_quads(iris)
    store.replace_graphs(shared)
    report.quads_written += sum(len(q) for q in shared.values())


def _dangling_edges(store: GraphStore, iris: Iris, edges: list[tuple[Edge, str, int]]) -> list[RecordError]:
    """Warnings for edges of this input whose ends are not records in the store (edges may
    arrive before their records: they are kept; ``kg validate`` reports them too)."""
    if not edges:
        return []
    present: dict[str, bool] = {}  # looked up by graph, not by listing every graph of the store
    warnings = []
    for edge, source, index in edges:
        for end, record_id in (("source", edge.source), ("target", edge.target)):
            if record_id not in present:
                present[record_id] = store.has_graph(iris.record_graph(record_id))
            if not present[record_id]:
                warnings.append(RecordError(source, index, f"{edge.source} -> {edge.target}", end,
                                            f"{record_id!r} is not a record in the store (yet); edge kept"))
    return warnings


def drop_unused_shared(store: GraphStore, iris: Iris, described: Iterable[Any] = ()) -> None:
    """Forget shared resources (vendors, concepts, ...) that no record points to any more.

    Inside a write session on disk only the candidates are looked at: what the graphs
    the session wrote pointed to before, and the resources it described (``described``);
    every other shared resource is as used as before. Else the whole shared graph is checked."""
    written, previous = store.written_graphs(), store.previous()
    if written is not None and previous is not None:
        _drop_unused(store, iris, _candidates(previous, iris, written) | set(described))
        return
    shared = iris.shared_graph
    store.update(f"""
        DELETE {{ GRAPH {shared} {{ ?x ?p ?o }} }}
        WHERE {{
          GRAPH {shared} {{ ?x ?p ?o }}
          FILTER NOT EXISTS {{ GRAPH {shared} {{ ?x a {SKOS.ConceptScheme} }} }}
          FILTER NOT EXISTS {{ GRAPH ?g {{ ?s ?q ?x }} FILTER(?g != {shared}) }}
        }}""")


def _candidates(previous: GraphStore, iris: Iris, written: set[Any]) -> set[Any]:
    """The nodes the graphs ``written`` pointed to in the version before the session, but a
    record's own nodes (``<base>system/...``: never a shared resource). One query per 500
    graphs: reading the quads into Python, or a join with the shared graph, cost 2x to 4x."""
    graphs = sorted((g for g in written - {iris.shared_graph, iris.dataset_graph} if isinstance(g, NamedNode)),
                    key=lambda g: g.value)
    found: set[Any] = set()
    for start in range(0, len(graphs), 500):
        values = " ".join(str(g) for g in graphs[start:start + 500])  # pyoxigraph's serialiser: escaped
        rows = previous.select(f"""SELECT DISTINCT ?o WHERE {{ VALUES ?g {{ {values} }} GRAPH ?g {{ ?s ?p ?o }}
                                   FILTER(isIRI(?o) && !STRSTARTS(STR(?o), ?inside)) }}""",
                               {"inside": Literal(iris.system_prefix())})
        found |= {row["o"] for row in rows}
    return found


def _drop_unused(store: GraphStore, iris: Iris, candidates: set[Any]) -> None:
    """Remove the shared descriptions of the ``candidates`` no graph but the shared one points to
    (concept schemes stay), as the whole-graph update does for every shared resource."""
    shared = iris.shared_graph
    gone: list[Quad] = []
    for node in candidates:
        described = list(store.match(node, None, None, shared))
        if not described or store.contains(node, RDF.type, SKOS.ConceptScheme, shared):
            continue
        if any(q.graph_name != shared and not isinstance(q.graph_name, DefaultGraph)
               for q in store.match(None, None, node)):
            continue
        gone += described
    store.remove(gone)


def stored_record_ids(store: GraphStore, iris: Iris) -> list[str]:
    return iris.stored_ids(store.named_graphs())


@transactional
def remove_records(store: GraphStore, record_ids: Iterable[str], iris: Iris) -> None:
    """Remove these records' graphs, the shared resources only they pointed to, and count again."""
    store.remove_graphs(iris.record_graph(i) for i in record_ids)
    drop_unused_shared(store, iris)
    refresh_description(store, iris)
