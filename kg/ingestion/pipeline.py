"""The ingest pipeline: read and check -> map and gate -> write, joined by one function, ``run_ingest``.

A pass takes the inputs through the three stages (``kg.ingestion.read_check``, ``map_gate``, ``write``)
a chunk at a time; history recording (``recording``) and description upkeep (``describe``) watch each
batch as it is written. After the pass: the changeset, the shared graphs and RDF quads (``finish``),
the clean-up of shared resources no record uses (``cleanup``), the description. A whole ingest is one
write session of the store (records are written in batches, all into one new version), so a reader or
a crash sees the whole old version or the whole new one.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Iterator

from .. import textindex
from ..gctuning import fewer_collections, out_of_sight
from ..records import Edge
from ..description import ontology_quads
from ..errors import InputRejected, RecordError, UsageError
from ..sources import Input
from ..store import GraphStore, transactional
from ..validation.at_ingest import RuleCheck
from ..vocab import Iris
from . import workers
from .batching import Batcher
from .cleanup import drop_unused_shared
from .describe import DescriptionUpkeep
from .finish import dangling_edges, load_rdf, write_shared_graphs
from .map_gate import MapAndGate, Mapped, MappedBatch
from .read_check import Notices, Pending, ReadCheck
from .recording import HistoryRecording
from .report import IngestReport
from .settings import GATES, Options
from .write import BatchWriter, kept_records


@dataclass
class Stages:
    """The stages of one pass over the inputs; each holds what it found when the pass ends.
    A dry run (no store) has no writer, history or description upkeep. The read stage's lines go to
    ``read_notices`` first, and join ``notices`` when the records they came with are mapped: with
    worker processes the next chunk is read while the one before is mapped (``ahead``), and the
    lines keep the order of a pass in one process."""

    notices: Notices
    read: ReadCheck
    gate: MapAndGate
    batcher: Batcher
    options: Options
    chunked: bool
    read_notices: Notices
    write: BatchWriter | None = None
    history: HistoryRecording | None = None
    upkeep: DescriptionUpkeep | None = None
    # started, not yet written: the records, their lines, their batches, the records read up to them
    ahead: tuple[list[Pending], Notices, Iterator[MappedBatch], int] | None = None


@transactional
def run_ingest(store: GraphStore, inputs: list[Input], iris: Iris, options: Options,
               chunk: int | None) -> IngestReport:
    """The one ingest: ``inputs`` checked, mapped, gated and written (``chunk`` records at a time; None:
    everything checked and mapped before the first write). ``strict`` in chunks: a dry pass first,
    without a store, checks and maps everything; all at once, the single write waits for the same checks."""
    with fewer_collections():
        started = time.perf_counter()
        if options.gate not in GATES:
            raise UsageError(f"gate must be one of {', '.join(GATES[1:])}, not {options.gate!r}")
        if options.strict and chunk is not None:
            _reject_if_bad(inputs, iris, options, chunk)
        stages = _stages(store, iris, options, chunk)
        _one_pass(stages, inputs, options, chunk)
        report = _report(stages, inputs)
        if stages.history is not None:
            stages.history.finish(report, stages.read.edges, stages.read.edges_header,
                                  stages.read.catalog_header, options.replace_all)
        _after_the_records(store, iris, stages, report)
        report.systems_written = textindex.systems_written(store)
        report.seconds = time.perf_counter() - started
        return report


def _reject_if_bad(inputs: list[Input], iris: Iris, options: Options, chunk: int) -> None:
    """A dry pass (no store, nothing written): ``InputRejected`` when any item is bad."""
    unwritten = Options(gate=options.gate, caps=options.caps, keep_invalid=options.keep_invalid, jobs=options.jobs)
    dry = _stages(None, iris, unwritten, chunk)
    _one_pass(dry, inputs, unwritten, chunk)
    if dry.notices.errors:
        raise InputRejected(dry.notices.errors)


def _stages(store: GraphStore | None, iris: Iris, options: Options, chunk: int | None) -> Stages:
    notices, read_notices = Notices(), Notices()
    gate = MapAndGate(iris, RuleCheck(iris, ontology_quads(iris)), notices, held_back=options.held_back,
                      keep_invalid=options.keep_invalid)
    stages = Stages(notices, ReadCheck(read_notices, options.caps, chunk, None), gate, Batcher(), options,
                    chunk is not None, read_notices)
    stages.read.edge_check = lambda *edge: _edge_breaks(stages, *edge)
    if store is not None:
        stages.write, stages.upkeep = BatchWriter(store, iris), DescriptionUpkeep(iris)
        stages.history = HistoryRecording(store, iris)
    return stages


def _one_pass(stages: Stages, inputs: list[Input], options: Options, chunk: int | None) -> None:
    """The inputs through read-and-check -> map-and-gate -> write, a chunk at a time (``options.strict``:
    ``InputRejected`` at the first write that would follow a bad item). The records are mapped and
    checked in worker processes when the first chunk says it pays (``kg.ingestion.workers``)."""
    first = True
    with out_of_sight() as keep:
        try:
            for pending in stages.read.pending_batches(inputs, hand_over_at_end=options.strict):
                keep()  # the records read so far live until the pass ends: the collector skips them
                if first:
                    _start_workers(stages, pending, options.jobs)
                    first = False
                lines = _taken(stages.read_notices)  # the read stage's lines that came with these records
                if stages.gate.workers is None:
                    _add(stages.notices, lines)
                    _write_batches(stages, pending, stages.gate.batches(pending, stages.batcher, options.strict),
                                   stages.read.done)
                    continue
                # the workers start on these records; the ones before are written while the next are read
                started = (pending, lines, stages.gate.batches(pending, stages.batcher, options.strict),
                           stages.read.done)
                _finish_ahead(stages)
                stages.ahead = started
            _finish_ahead(stages)
            _add(stages.notices, _taken(stages.read_notices))
        except BaseException:
            stages.ahead = None
            _stop_workers(stages, kill=True)
            if stages.write is not None:
                stages.write.abandon()  # the session is thrown away: no write may still run in it
            raise
        finally:
            # the edge check refers to the stages: a cycle the collector (run rarely here) would free
            # late, keeping the history's view of the version before, and with it that generation,
            # past the commit's clean-up
            stages.read.edge_check = None
        _stop_workers(stages)
        if stages.write is not None:
            stages.write.wait()


def _finish_ahead(stages: Stages) -> None:
    """Write the records the workers were started on, after the lines their reading gave."""
    if stages.ahead is not None:
        (pending, lines, batches, read), stages.ahead = stages.ahead, None
        _add(stages.notices, lines)
        _write_batches(stages, pending, batches, read)


def _edge_breaks(stages: Stages, edge: Edge, source: str, index: int, position: int) -> RecordError | None:
    """The gate's check of an edge read, once the records read before it are mapped (their shared
    descriptions are what the rules read), as in a pass in one process."""
    _finish_ahead(stages)
    return stages.gate.edge_breaks(edge, source, index, position)


def _taken(notices: Notices) -> Notices:
    """The lines of ``notices`` so far, moved out of it."""
    taken = Notices(list(notices.errors), list(notices.warnings))
    notices.errors.clear()
    notices.warnings.clear()
    return taken


def _add(notices: Notices, lines: Notices) -> None:
    notices.errors += lines.errors
    notices.warnings += lines.warnings


def _start_workers(stages: Stages, pending: list[Pending], jobs: int | None) -> None:
    """Worker processes for the pass, when ``jobs_for`` says so (before anything is written)."""
    count = workers.jobs_for(jobs, pending, stages.read.total)
    if count > 1:
        gate = stages.gate
        gate.workers = workers.RecordWorkers(count, gate.iris, gate.rules, gate.described, sample=pending[0])


def _stop_workers(stages: Stages, kill: bool = False) -> None:
    if stages.gate.workers is not None:
        running, stages.gate.workers = stages.gate.workers, None
        running.close(kill=kill)


def _write_batches(stages: Stages, pending: list[Pending], batches: Iterator[MappedBatch], read: int) -> None:
    """The ``pending`` records mapped and gated, written a batch at a time (each while the next is mapped);
    ``read``: the input's records read up to them (progress in chunks)."""
    progress = stages.options.progress
    for part, held, done in batches:
        _write(stages, part, held)
        if progress and not stages.chunked:
            progress(min(done, len(pending)), len(pending))
    if progress and stages.chunked:
        progress(read, stages.read.total)


def _write(stages: Stages, part: list[Mapped], held: set[str]) -> None:
    """One batch: its records told to the description upkeep and the history, then handed to the writer."""
    if stages.write is None or stages.upkeep is None or stages.history is None:
        return
    kept = kept_records(part, held)
    stages.upkeep.wrote(p.record for p, _ in kept)
    stages.history.before_write([p.record for p, _ in kept], [p.digest for p, _ in kept])
    stages.write.write(part, kept)


def _report(stages: Stages, inputs: list[Input]) -> IngestReport:
    written = stages.write.written if stages.write is not None else set()
    return IngestReport(records=len(written), quads_written=stages.write.quads_written if stages.write else 0,
                        quarantined=stages.notices.errors, superseded=stages.read.superseded,
                        sources=[item.source for item in inputs], warnings=stages.notices.warnings,
                        findings=stages.gate.findings, checked=len(stages.gate.checked),
                        rule_seconds=stages.gate.rule_seconds)


def _after_the_records(store: GraphStore, iris: Iris, stages: Stages, report: IngestReport) -> None:
    """Catalog header, edges and ontology graphs, RDF quads, clean-up, description; or, when only
    quarantined records' shared descriptions went in (none is new and used), their clean-up alone."""
    read, write, upkeep = stages.read, stages.write, stages.upkeep
    assert write is not None and upkeep is not None
    if not (report.records or read.edges or read.rdf):
        if write.described_now:
            drop_unused_shared(store, iris, write.described_now)
            report.quads_written = 0
        return
    if report.records or read.edges:
        write_shared_graphs(store, iris, report, stages.gate.rules, read.catalog_header, read.edges,
                            read.edges_header)
    if read.rdf:
        load_rdf(store, read.rdf, report)
    if report.records:
        loaded = {q.subject for q in read.rdf if q.graph_name == iris.shared_graph}
        drop_unused_shared(store, iris, write.described_now | loaded)
    upkeep.refresh(store)
    store.flush()
    report.warnings += dangling_edges(store, iris, read.edges)
