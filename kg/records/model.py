"""The typed record model: catalog records and edges, whichever input shape they came in.

No I/O and no RDF here: the dataclasses a record and an edge are read into
(``kg.records.from_json``) and written back from (``kg.records.to_json``). ``MISSING``
marks a key absent from the input, as opposed to present with ``null``.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as _field
from typing import Any, Union

Json = Union[None, bool, int, float, str, list, dict]


class _Missing:
    """Marks a key that was absent from the input (as opposed to present with null)."""

    _instance = None

    def __new__(cls) -> "_Missing":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()


@dataclass
class Cell:
    """One cell: a claim about one column of one system."""

    slug: str
    value: Json = MISSING
    citation: str | None = MISSING
    status: str | None = MISSING
    tier: str | None = MISSING
    last_verified_at: str | None = MISSING
    source_class: str | None = MISSING
    extra: dict[str, Json] = _field(default_factory=dict)


@dataclass
class SectionListing:
    """One section a record is listed in. ``as_name`` when the input gave a bare name."""

    section: str
    subsection: str | None = MISSING
    primary: bool | None = MISSING
    reason: str | None = MISSING
    as_name: bool = False
    extra: dict[str, Json] = _field(default_factory=dict)


@dataclass
class TaxonomyValue:
    value: str
    primary: bool | None = MISSING
    reason: str | None = MISSING
    extra: dict[str, Json] = _field(default_factory=dict)


@dataclass
class FieldChange:
    field: str | None = MISSING
    label: str | None = MISSING
    from_value: Json = MISSING
    to_value: Json = MISSING
    source: str | None = MISSING
    extra: dict[str, Json] = _field(default_factory=dict)


@dataclass
class HistoryEntry:
    date: str | None = MISSING
    commit: str | None = MISSING
    pr: int | None = MISSING
    kind: str | None = MISSING
    changes: list[FieldChange] | None = MISSING
    extra: dict[str, Json] = _field(default_factory=dict)


@dataclass
class Provenance:
    """One ``_provenance`` entry: where the value of one column came from."""

    slug: str
    source: str | None = MISSING
    verified: bool | None = MISSING
    author: str | None = MISSING
    model_id: str | None = MISSING
    extra: dict[str, Json] = _field(default_factory=dict)


@dataclass
class Lifecycle:
    status: str | None = MISSING
    severity: int | None = MISSING
    note: str | None = MISSING
    extra: dict[str, Json] = _field(default_factory=dict)


@dataclass
class Record:
    """One catalog record, whichever shape it came in."""

    id: str
    name: str
    tier: int
    url: str | None = MISSING
    last_verified_at: str | None = MISSING
    sections: list[SectionListing] | None = MISSING
    declared_section: str | None = MISSING  # export shape: top-level "section"
    taxonomy: dict[str, list[TaxonomyValue]] | None = MISSING
    cells: dict[str, Cell] | None = MISSING
    provenance: dict[str, Provenance] | None = MISSING
    lifecycle: Lifecycle | None = MISSING
    history: list[HistoryEntry] | None = MISSING
    decay_cause: str | None = MISSING
    decay_date: str | None = MISSING
    decay_evidence: str | None = MISSING
    family: str | None = MISSING
    page: str | None = MISSING
    license: str | None = MISSING
    source: str | None = MISSING
    corroboration: Json = MISSING
    edges: Json = MISSING
    extra: dict[str, Json] = _field(default_factory=dict)

    @property
    def primary_section(self) -> str | None:
        """The name of the primary section: the listing marked primary, else the declared one."""
        for listing in self.sections or ():
            if listing.primary is True:
                return listing.section
        if isinstance(self.declared_section, str):
            return self.declared_section
        return None


@dataclass
class Edge:
    """One typed edge between two records."""

    source: str
    target: str
    type: str
    evidence: str | None = MISSING
    citation: str | None = MISSING
    is_influential: bool | None = MISSING
    extra: dict[str, Json] = _field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.source, self.target, self.type)
