"""What an ingest did: counts, quarantined items, warnings, rule findings, the changeset and timing."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import RecordError
from ..history import Changeset
from ..textindex import Written
from ..validation.at_ingest import RuleFinding


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
    # the systems whose search facts the ingest wrote (None: cannot be told): what the new version's
    # words index is made again for (kg.textindex.follow)
    systems_written: Written | None = None

    @property
    def wrote_nothing(self) -> bool:
        """True when the input held nothing to write, so the store was left exactly as it was."""
        return self.quads_written == 0
