"""The parent's side of the workers' answers (``kg.ingestion.workers``): what a pass in one process
would have kept.

Each worker describes the shared resources (vendors, columns, concepts) it has not met itself; the
parent keeps a description only from the first record in input order that makes it, which is the
first of its own worker too, and feeds the kept ones to its own rules (the edges are checked over
them). The rules read of a shared resource only what every record describing it states alike (its
types, a column's identifier); should a worker's reading of one ever differ from the first record's
(a rule that reads labels), that worker's later records are checked again here.
"""

from __future__ import annotations

from typing import Any, cast

from pyoxigraph import NamedNode, Quad

from ..errors import RecordError
from ..mapping import record_triples
from ..store import GraphText
from ..validation.at_ingest import RuleCheck, RuleFinding
from ..vocab import Iris
from .read_check import Pending


class Reconcile:
    """The parent's side of the workers' answers: the shared descriptions kept from the first record in
    input order, fed to the parent's rules; a record checked again here when its worker read a shared
    resource otherwise than the first record described it."""

    def __init__(self, iris: Iris, rules: RuleCheck, described: set[str]) -> None:
        self.iris, self.rules, self.described = iris, rules, described
        self.read: dict[str, tuple[Any, ...]] = {}  # what the rules read of each resource described
        self.tainted: set[int] = set()  # workers whose reading of a resource differs from the first

    def outcomes(self, unit: list[Pending], found: tuple[list[Any], list[bytes], int]) -> list[Any]:
        answers, texts, worker = found
        given = iter(texts)
        got: list[Any] = []
        for pending, answer in zip(unit, answers):
            if isinstance(answer, RecordError):
                got.append(answer)
                continue
            count, descriptions, findings, digest = answer
            kept = self.first(descriptions, worker)
            self.rules.add_shared(kept)
            if worker in self.tainted:
                findings = self.check_here(pending)
            pending.digest = digest
            own = GraphText(self.iris.record_graph(pending.record.id), count, next(given))
            got.append(((pending, own, kept, None), findings))
        return got

    def first(self, descriptions: list[Quad], worker: int) -> list[Quad]:
        """The descriptions of resources no record before described; a worker whose reading of one
        described before differs is tainted."""
        kept: list[Quad] = []
        again: dict[str, list[Quad]] = {}
        for quad in descriptions:
            subject = cast(NamedNode, quad.subject).value
            (again.setdefault(subject, []) if subject in self.described else kept).append(quad)
        fresh: dict[str, list[Quad]] = {}
        for quad in kept:
            fresh.setdefault(cast(NamedNode, quad.subject).value, []).append(quad)
        for subject, quads in fresh.items():
            self.described.add(subject)
            self.read[subject] = self._read_of(quads)
        for subject, quads in again.items():
            if self.read.get(subject) != self._read_of(quads):
                self.tainted.add(worker)
        return kept

    def _read_of(self, quads: list[Quad]) -> tuple[Any, ...]:
        read = self.rules.read
        return tuple((q.predicate, q.object) for q in quads if read is None or q.predicate.value in read)

    def check_here(self, pending: Pending) -> list[RuleFinding]:
        """A record's findings over the shared resources as the first records described them."""
        triples, _ = record_triples(pending.record, self.iris, set())
        return self.rules.record_terms(triples, pending.source, pending.index, pending.record.id)
