"""Map and gate, the second stage: pending records -> their quads, checked against the rules at ingest.

Each record is mapped (``record_triples``: its graph's triples and the shared resources it
describes) and checked against the record-local rules of the shapes (``RuleCheck``). One that
cannot be expressed in RDF, or breaks a structural rule (a MUST of the catalog's schema), is
quarantined with its reasons (``keep_invalid``: written anyway, its results findings like the
others); with a gate, one whose results are that severe is held back too (``GateError``). A held
record's shared descriptions are still written: later records may point to them.

The mapping and the check of a record (``map_record``, ``RuleCheck``) run in this process or, a batch
at a time, in worker processes (``kg.ingestion.workers``); what is kept from them (findings, the
quarantine, held records) is decided here, in input order, either way.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from pyoxigraph import Quad

from ..errors import InputRejected, RecordError
from ..mapping import Triple, record_triples, relation_quads
from ..store import GraphText, GraphTriples
from ..records import Edge
from ..validation.at_ingest import RuleCheck, RuleFinding, SchemaBreak, rejecting
from ..vocab import Iris
from .batching import Batcher
from .read_check import Notices, Pending

if TYPE_CHECKING:
    from .workers import RecordWorkers

# a record, its graph's quads, shared descriptions, and its graph's triples (for the rules; None when
# a worker process checked it and sent the graph as text)
Mapped = tuple[Pending, "GraphTriples | GraphText", list[Quad], "list[Triple] | None"]
# mapped records ready to write, the ids held back among them, and how many of the pending are done
MappedBatch = tuple[list[Mapped], set[str], int]


class GateError(RecordError):
    """A record held back by the gate: it breaks rules; ``reasons`` are its findings."""

    def __init__(self, pending: Pending, reasons: list[RuleFinding]) -> None:
        rules = Counter(f.rule for f in reasons)
        listed = ", ".join(f"{name}" + (f" x{n}" if n > 1 else "") for name, n in sorted(rules.items()))
        first = reasons[0]
        super().__init__(pending.source, pending.index, pending.record.id, first.path,
                         f"held back by the gate: breaks {listed}; the stored version, if any, is kept")
        self.reasons = reasons


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


class MapAndGate:
    """The second stage of one pass: maps records, checks them against the rules, and says which
    are held back. Keeps the findings (the latest version's, for a record given twice)."""

    def __init__(self, iris: Iris, rules: RuleCheck, notices: Notices, *, held_back: tuple[str, ...] = (),
                 keep_invalid: bool = False) -> None:
        self.iris, self.rules, self.notices = iris, rules, notices
        self.held_back = held_back  # severities the gate holds back
        self.keep_invalid = keep_invalid  # structural breaks written anyway, as findings
        self.described: set[str] = set()  # shared resources described so far
        self.findings: list[RuleFinding] = []
        self.found_in: set[str] = set()  # ids of the records with findings
        self.checked: set[str] = set()  # ids of the records checked
        self.rule_seconds = 0.0
        self.workers: RecordWorkers | None = None  # the worker processes that map and check, if any

    def batches(self, pending: list[Pending], batcher: Batcher, strict: bool) -> Iterator[MappedBatch]:
        """The pending records mapped and checked, a batch at a time (``strict``: all of them first,
        and ``InputRejected`` if any item of the pass so far was bad). With worker processes, they
        start on the records now; here, as the batches are taken."""
        if self.workers is None:
            return self._batches_here(pending, batcher, strict)
        cuts = [pending] if strict else [pending[start:end] for start, end in batcher.slices([p.size for p in pending])]
        return self._batches_of(self.workers, self.workers.start(cuts), batcher, strict)

    def _batches_here(self, pending: list[Pending], batcher: Batcher, strict: bool) -> Iterator[MappedBatch]:
        if not strict:
            for start, end in batcher.slices([p.size for p in pending]):
                part = self.map(pending[start:end])
                yield part, self.check_rules(part), end
            return
        mapped = self.map(pending)
        held = self.check_rules(mapped)
        if self.notices.errors:
            raise InputRejected(self.notices.errors)
        for start, end in batcher.slices([m[0].size for m in mapped]):
            yield mapped[start:end], held, end

    def _batches_of(self, workers: RecordWorkers, started: Any, batcher: Batcher,
                    strict: bool) -> Iterator[MappedBatch]:
        """As ``batches``, the records mapped and checked by worker processes: the same batches, the
        same quarantine in the same order (each batch's mapping failures, then its rule breaks)."""
        if not strict:
            end = 0
            for got in workers.outcomes(started):
                end += len(got)
                yield (*self._kept(got, workers), end)
            return
        (got,) = workers.outcomes(started)
        mapped, held = self._kept(got, workers)
        if self.notices.errors:
            raise InputRejected(self.notices.errors)
        for start, end in batcher.slices([m[0].size for m in mapped]):
            yield mapped[start:end], held, end

    def _kept(self, got: list[Any], workers: RecordWorkers) -> tuple[list[Mapped], set[str]]:
        """A batch's records as the workers gave them: the mapped ones, and the ids held back."""
        mapped: list[Mapped] = []
        checked: list[tuple[Pending, list[RuleFinding]]] = []
        for outcome in got:
            if isinstance(outcome, RecordError):
                self.notices.errors.append(outcome)
                continue
            mapped.append(outcome[0])
            checked.append((outcome[0][0], outcome[1]))
        held: set[str] = set()
        for pending, found in checked:
            self.keep_findings(pending, found, held)
        self.rule_seconds = workers.rule_seconds
        return mapped, held

    def map(self, records: list[Pending]) -> list[Mapped]:
        """Each record as (record, its quads, shared descriptions, triples). One that cannot be
        expressed in RDF joins the quarantine instead of failing the run halfway."""
        mapped = []
        for pending in records:
            found = map_record(pending, self.iris, self.described)
            if isinstance(found, RecordError):
                self.notices.errors.append(found)
                continue
            mapped.append(found)
        return mapped

    def check_rules(self, mapped: Iterable[Mapped]) -> set[str]:
        """Check each mapped record against the rules; the ids held back: those that break a
        structural rule (``SchemaBreak``), and those the gate holds back."""
        held: set[str] = set()
        started = time.perf_counter()
        for pending, _, descriptions, triples in mapped:
            assert triples is not None, "checked in a worker process"
            self.rules.add_shared(descriptions)
            found = self.rules.record_terms(triples, pending.source, pending.index, pending.record.id)
            self.keep_findings(pending, found, held)
        self.rule_seconds += time.perf_counter() - started
        return held

    def keep_findings(self, pending: Pending, found: list[RuleFinding], held: set[str]) -> None:
        """A checked record's findings kept (or its quarantine noted, its id added to ``held``)."""
        self.checked.add(pending.record.id)
        error = self._quarantined(pending, found)
        if error is not None:
            self.notices.errors.append(error)
            held.add(pending.record.id)

    def _quarantined(self, pending: Pending, found: list[RuleFinding]) -> RecordError | None:
        """Why a checked record is set aside (None: it is written); its findings kept, unless it breaks
        a structural rule of the schema (set aside with its reasons, never written)."""
        broken = [] if self.keep_invalid else rejecting(found, self.held_back)
        if broken:
            return SchemaBreak(pending.source, pending.index, pending.record.id, broken)
        record_id = pending.record.id
        if record_id in self.found_in:  # an earlier version of this run: its findings no longer hold
            self.findings = [f for f in self.findings if f.record_id != record_id]
        self.found_in.update([record_id] if found else [])
        self.findings += found
        reasons = [f for f in found if f.severity in self.held_back]
        return GateError(pending, reasons) if reasons else None

    def edge_breaks(self, edge: Edge, source: str, index: int, position: int) -> SchemaBreak | None:
        """Why an edge is set aside: it breaks a structural rule of the edge shapes (None: it goes in).
        Its findings proper are made when the edges are written (``kg.ingestion.finish``)."""
        if self.keep_invalid:
            return None
        where = f"{edge.source} -> {edge.target}"
        broken = rejecting(self.rules.record(relation_quads(edge, position, self.iris), source, index, where))
        return SchemaBreak(source, index, where, broken) if broken else None


def map_record(pending: Pending, iris: Iris, described: set[str]) -> Mapped | RecordError:
    """One record as (record, its quads, the shared resources it describes first, its triples); the
    resources it describes join ``described`` only when it maps. A record that cannot be expressed in RDF
    is a ``RecordError``, not an exception: the run goes on."""
    local = _Tentative(described)
    try:
        triples, descriptions = record_triples(pending.record, iris, local)
        own = GraphTriples(iris.record_graph(pending.record.id), triples)
    except (ValueError, OverflowError) as err:
        return RecordError(pending.source, pending.index, pending.record.id, "(record)",
                           f"cannot be expressed in RDF: {err}")
    local.keep()
    return pending, own, descriptions, triples
