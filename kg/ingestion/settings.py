"""What an ingest is asked to do: strictness, the rule gate, the caps, a whole release, progress.

``Options`` carries the keywords of the entry points (``kg.ingestion.entry``) down to the stages
in one value, so that a setting is followed from the call to the stage that reads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..sources import MAX_RECORD_BYTES, MAX_RECORD_CELLS

GATES = (None, "violation", "warning")  # what --gate holds back: results this severe or worse
Caps = tuple[int, int]  # the most cells and bytes (UTF-8 JSON) a record may hold
DEFAULT_CAPS: Caps = (MAX_RECORD_CELLS, MAX_RECORD_BYTES)
# the severities each gate holds back
HELD_BACK: dict[str | None, tuple[str, ...]] = {None: (), "violation": ("Violation",),
                                                "warning": ("Violation", "Warning")}

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Options:
    """The settings of one ingest.

    ``strict``: any bad item rejects the whole input (``InputRejected``, nothing written);
    ``gate``: a record with a rule result that severe or worse is quarantined (``GATES``);
    ``caps``: (cells, bytes) a record may hold at most; ``replace_all``: stored records the
    input lacks are removed; ``keep_invalid``: a record breaking a structural rule is written
    anyway; ``progress``: told (done, total) as records are written; ``jobs``: worker processes that map
    and check the records (None: one a core where the input is big enough to pay for them; 1: none)."""

    strict: bool = False
    gate: str | None = None
    caps: Caps = DEFAULT_CAPS
    replace_all: bool = False
    keep_invalid: bool = False
    progress: Progress | None = None
    jobs: int | None = None

    @property
    def held_back(self) -> tuple[str, ...]:
        """The severities of the rule results the gate holds back (none without a gate)."""
        return HELD_BACK[self.gate]
