"""JSON values <-> RDF terms, and the field tables that drive both directions of the mapping.

Each table lists (attribute, JSON key, predicate, encoder) for one kind of object,
so that ``to_quads`` (writing) and ``from_quads`` (reading back) cannot drift apart.

>>> json_value(value_literal(3)), json_value(value_literal(2.5)), json_value(json_literal({"a": [1]}))
(3, 2.5, {'a': [1]})
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any, Callable

from pyoxigraph import Literal, NamedNode

from ..vocab import KG, RDF, SCHEMA, XSD

Term = NamedNode | Literal

# ---------------------------------------------------------------------------
# Literals: JSON values <-> RDF terms, lossless both ways.

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
TRUE, FALSE = Literal(True), Literal(False)


# The literal of a value from a small vocabulary (a status, a claim tier, a key, a section's or a
# taxonomy value's name, a provenance source), made once: a Literal costs about 0.3 us, a look-up a
# third of that, and a full record states about 500 of them.
word = lru_cache(maxsize=1 << 16)(Literal)


def _valid_date(text: str) -> bool:
    if not _DATE.match(text):
        return False
    try:
        _dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def json_literal(value: Any) -> Literal:
    """Any JSON value as an ``rdf:JSON`` literal (canonical text: sorted keys)."""
    return Literal(json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":")),
                   datatype=RDF.JSON)


def value_literal(value: Any) -> Literal:
    """A JSON scalar as the literal of its own type; lists and objects as ``rdf:JSON``."""
    if isinstance(value, str):
        return Literal(value)
    if isinstance(value, bool):
        return TRUE if value else FALSE
    if isinstance(value, int):
        return _integer(value)
    if isinstance(value, float):
        return Literal(repr(value), datatype=XSD.double)
    return json_literal(value)


@lru_cache(maxsize=1 << 12)  # positions and counts: small numbers, again and again
def _integer(value: int) -> Literal:
    return Literal(str(value), datatype=XSD.integer)


@lru_cache(maxsize=1 << 16)  # verification dates repeat across cells and records
def date_literal(text: str) -> Literal:
    """``xsd:date`` when the text is a valid date, else the text as a plain string."""
    return Literal(text, datatype=XSD.date) if _valid_date(text) else Literal(text)


def iri_or_text(text: str) -> Term:
    """An http(s) IRI when the text is a valid one; anything else stays text (never a broken IRI)."""
    if text.startswith(("http://", "https://")):
        try:
            return NamedNode(text)
        except ValueError:
            pass
    return Literal(text)


def json_value(term: Term) -> Any:
    """Inverse of the literal builders above: the JSON value a term stands for."""
    if isinstance(term, NamedNode):
        return term.value
    datatype = term.datatype.value
    if datatype == RDF.JSON.value:
        return json.loads(term.value)
    if datatype == XSD.boolean.value:
        return term.value in ("true", "1")
    if datatype == XSD.integer.value:
        return int(term.value)
    if datatype == XSD.double.value:
        return float(term.value)
    return term.value


def decimal_literal(number: int | float) -> Literal | None:
    try:
        text = format(Decimal(str(number)), "f")
    except (InvalidOperation, ValueError):
        return None
    return Literal(text, datatype=XSD.decimal)


# ---------------------------------------------------------------------------
# Field tables: (attribute, JSON key, predicate, encoder). One table per object kind
# drives both directions, so writing and reading cannot drift apart.

Encoder = Callable[[Any], Term]
FieldSpec = tuple[str, str, NamedNode, Encoder]

CELL_FIELDS: tuple[FieldSpec, ...] = (
    ("value", "value", KG.value, value_literal),
    ("citation", "citation", KG.citation, iri_or_text),
    ("status", "status", KG.status, word),
    ("tier", "tier", KG.claimTier, word),
    ("last_verified_at", "last_verified_at", KG.lastVerified, date_literal),
    ("source_class", "source_class", KG.sourceClass, word),
)
SECTION_FIELDS: tuple[FieldSpec, ...] = (
    ("subsection", "subsection", KG.subsection, word),
    ("primary", "primary", KG.isPrimary, value_literal),
    ("reason", "reason", KG.reason, Literal),
)
TAXONOMY_FIELDS: tuple[FieldSpec, ...] = (
    ("primary", "primary", KG.isPrimary, value_literal),
    ("reason", "reason", KG.reason, Literal),
)
PROVENANCE_FIELDS: tuple[FieldSpec, ...] = (
    ("source", "source", KG.provenanceSource, word),
    ("verified", "verified", KG.verified, value_literal),
    ("author", "author", KG.author, word),
    ("model_id", "model_id", KG.modelId, word),
)
HISTORY_FIELDS: tuple[FieldSpec, ...] = (
    ("date", "date", KG.changeDate, date_literal),
    ("commit", "commit", KG.commit, Literal),
    ("pr", "pr", KG.pullRequest, value_literal),
    ("kind", "kind", KG.changeKind, word),
)
CHANGE_FIELDS: tuple[FieldSpec, ...] = (
    ("field", "field", KG.field, word),
    ("label", "label", KG.fieldLabel, word),
    ("from_value", "from", KG.fromValue, value_literal),
    ("to_value", "to", KG.toValue, value_literal),
    ("source", "source", KG.changeSource, word),
)
LIFECYCLE_FIELDS: tuple[FieldSpec, ...] = (
    ("status", "lifecycle.status", KG.lifecycleStatus, word),
    ("severity", "lifecycle.severity", KG.lifecycleSeverity, value_literal),
    ("note", "lifecycle.note", KG.lifecycleNote, Literal),
)
RECORD_FIELDS: tuple[FieldSpec, ...] = (
    ("url", "url", SCHEMA.url, iri_or_text),
    ("last_verified_at", "last_verified_at", KG.lastVerified, date_literal),
    ("declared_section", "section", KG.declaredSection, Literal),
    ("decay_cause", "decay_cause", KG.decayCause, Literal),
    ("decay_date", "decay_date", KG.decayDate, date_literal),
    ("decay_evidence", "decay_evidence", KG.decayEvidence, Literal),
    ("family", "family", KG.family, Literal),
    ("page", "page", KG.pageUrl, Literal),
    ("license", "license", KG.recordDataLicense, Literal),
    ("source", "source", KG.recordSource, Literal),
    ("corroboration", "corroboration", KG.corroboration, json_literal),
    ("edges", "edges", KG.recordEdges, json_literal),
)
EDGE_FIELDS: tuple[FieldSpec, ...] = (
    ("evidence", "evidence", KG.evidence, Literal),
    ("citation", "citation", KG.citation, iri_or_text),
    ("is_influential", "isInfluential", KG.isInfluential, value_literal),
)

# Keys every catalog object of a kind carries (see _Writer.fields).
CELL_EXPECTED = frozenset({"value", "citation", "status", "tier"})
SECTION_EXPECTED = frozenset({"subsection", "primary", "reason"})
TAXONOMY_EXPECTED = frozenset({"primary", "reason"})


def escape_key(key: str) -> str:
    """Record-level extra keys share the system node with the lifecycle's extras
    ("lifecycle.<key>"): a leading backslash keeps a key like "lifecycle.x" apart."""
    return "\\" + key if key.startswith(("lifecycle.", "\\")) else key


def unescape_key(key: str) -> str:
    return key[1:] if key.startswith("\\") else key
