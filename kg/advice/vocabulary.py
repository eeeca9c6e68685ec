"""What a project asks for, read as the catalog reads it: its 8 use-case tags, the synonym table
that finds them in free text, and the structured form.

The catalog's recommender (``recommend_for_project``) reads a project description by deterministic
phrase matching against a synonym table, never a language model, and reports the words it did not
use; a structured form maps to the same constraints. Both are the catalog's own rules (its
``parseFreeTextConstraints`` and ``structuredFormToConstraints``), with its table and stop words.

>>> parsed = parse_text("offline multi agent airgap")
>>> parsed.constraints.tags, parsed.matched, parsed.unmatched
(('multi-agent-coordination', 'offline-capable'), ['multi agent', 'offline', 'airgap'], [])
>>> parse_text("A long-running chatbot for Acme").unmatched
['acme']
>>> form_constraints(StructuredForm(shape="multi-agent", scale="production", latency_budget_ms=800))
Constraints(tags=('latency-sensitive', 'multi-agent-coordination'), cost_max=None, cost_tier_max=None, band_min='competent')
>>> check_tag("offline")
Traceback (most recent call last):
...
kg.errors.UsageError: unknown use-case tag 'offline'; the tags are: scoped-agentic, ...; did you mean offline-capable?
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass, field

from ..errors import UsageError, safe_text
from ..normalise import fold

USE_CASE_TAGS = ("scoped-agentic", "long-running-session", "multi-agent-coordination", "memory-augmented-chat",
                 "code-generation-focused", "analytical-summarization", "latency-sensitive", "offline-capable")
COST_TIERS = ("free", "budget", "mid", "premium")  # cheapest first
CAPABILITY_BANDS = ("entry", "competent", "frontier")  # weakest first

SHAPES = {"single-agent": "scoped-agentic", "multi-agent": "multi-agent-coordination",
          "chat": "memory-augmented-chat", "pipeline": "analytical-summarization"}
SCALES = {"prototype": None, "production": "competent", "large-scale": "frontier"}  # -> the least band asked for
PERSISTENCES = ("none", "session", "long-term")
DEPLOYMENTS = ("cloud", "self-hosted", "offline")
LATENCY_SENSITIVE_MS = 1000  # a latency budget of this or less asks for latency-sensitive

# The catalog's synonym table: a phrase (lower case, words spaced) -> the tag it means.
SYNONYMS: tuple[tuple[str, str], ...] = (
    *((tag.replace("-", " "), tag) for tag in USE_CASE_TAGS),
    ("narrow agent", "scoped-agentic"), ("scoped agent", "scoped-agentic"), ("single agent", "scoped-agentic"),
    ("long running", "long-running-session"), ("long session", "long-running-session"),
    ("long lived", "long-running-session"), ("persistent session", "long-running-session"),
    ("multi agent", "multi-agent-coordination"), ("multiagent", "multi-agent-coordination"),
    ("memory augmented", "memory-augmented-chat"), ("chat memory", "memory-augmented-chat"),
    ("chatbot", "memory-augmented-chat"),
    ("code generation", "code-generation-focused"), ("code completion", "code-generation-focused"),
    ("codegen", "code-generation-focused"),
    ("summarization", "analytical-summarization"), ("summarisation", "analytical-summarization"),
    ("summarizing", "analytical-summarization"), ("summarising", "analytical-summarization"),
    ("low latency", "latency-sensitive"), ("real time", "latency-sensitive"), ("realtime", "latency-sensitive"),
    ("fast response", "latency-sensitive"),
    ("offline", "offline-capable"), ("airgap", "offline-capable"), ("airgapped", "offline-capable"),
    ("air gap", "offline-capable"), ("air gapped", "offline-capable"), ("on prem", "offline-capable"),
    ("on premises", "offline-capable"),
)
# longest first (most words, then most letters, then the phrase), so "long running session" wins
_BY_LENGTH = sorted(((tuple(p.split()), t) for p, t in SYNONYMS), key=lambda pt: (-len(pt[0]), -len(" ".join(pt[0])),
                                                                                 " ".join(pt[0])))
# connective words left out of the unmatched words (the catalog's list)
STOPWORDS = frozenset("""
a an the and or but is are was were be been being with without for to of in on at by as from that this these those
it its system systems project projects app apps application applications need needs needed needing has have having
had requires require required requiring use using used usage we i you they our my your their one two some any all
most many can should would could must do does did capability capabilities support supports supporting supported
""".split())


@dataclass(frozen=True)
class Constraints:
    """What candidates are scored against: use-case tags (any of them), an input-cost ceiling in
    USD a million tokens, a highest cost tier and a lowest capability band (None: not asked)."""

    tags: tuple[str, ...] = ()
    cost_max: float | None = None
    cost_tier_max: str | None = None
    band_min: str | None = None

    def as_json(self) -> dict[str, object]:
        return {"use_case_tags": list(self.tags), "cost_max_input_usd_per_mtok": self.cost_max,
                "cost_tier_max": self.cost_tier_max, "capability_band_min": self.band_min}


@dataclass(frozen=True)
class ParsedText:
    """A description read: its constraints, the phrases matched (in the table's order of
    matching) and the words left unmatched (stop words left out)."""

    constraints: Constraints
    matched: list[str] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class StructuredForm:
    """The catalog's structured form of a project; every field optional.

    ``shape``: single-agent, multi-agent, chat or pipeline; ``scale``: prototype, production or
    large-scale; ``latency_budget_ms``: the latency budget in milliseconds; ``persistence``: none,
    session or long-term; ``deployment``: cloud, self-hosted or offline;
    ``cost_ceiling_usd_per_mtok``: the most the input may cost, USD a million tokens."""

    shape: str | None = None
    scale: str | None = None
    latency_budget_ms: float | None = None
    persistence: str | None = None
    deployment: str | None = None
    cost_ceiling_usd_per_mtok: float | None = None

    def __post_init__(self) -> None:
        for name, allowed in (("shape", tuple(SHAPES)), ("scale", tuple(SCALES)), ("persistence", PERSISTENCES),
                              ("deployment", DEPLOYMENTS)):
            value = getattr(self, name)
            if value is not None and value not in allowed:
                raise UsageError(f"structured form: {name} must be one of {', '.join(allowed)}, "
                                 f"not {safe_text(value, 60)!r}")
        for name in ("latency_budget_ms", "cost_ceiling_usd_per_mtok"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                      or not math.isfinite(value) or value < 0):
                raise UsageError(f"structured form: {name} must be a number of 0 or more, not {safe_text(value, 60)!r}")

    def is_empty(self) -> bool:
        return all(getattr(self, name) is None for name in self.__dataclass_fields__)


def words_of(text: str) -> list[str]:
    """The words of a description as the synonym table is matched: folded, hyphens, underscores and
    every other sign but letters and digits made spaces."""
    return re.sub(r"[^a-z0-9]+", " ", fold(text).replace("_", " ")).split()


def parse_text(text: str) -> ParsedText:
    """The constraints a project description asks for: each phrase of the synonym table found as
    whole words, longest first, no word used twice; the tags sorted."""
    words = words_of(text)
    used = [False] * len(words)
    tags: set[str] = set()
    matched: list[str] = []
    for phrase, tag in _BY_LENGTH:
        n = len(phrase)
        for i in range(len(words) - n + 1):
            if not any(used[i:i + n]) and tuple(words[i:i + n]) == phrase:
                used[i:i + n] = [True] * n
                tags.add(tag)
                matched.append(" ".join(phrase))
    unmatched = [w for w, u in zip(words, used) if not u and w not in STOPWORDS]
    return ParsedText(Constraints(tags=tuple(sorted(tags))), matched, unmatched)


def form_constraints(form: StructuredForm) -> Constraints:
    """The constraints of a structured form (the catalog's mapping): the shape's tag, long-term
    persistence -> long-running-session, offline deployment -> offline-capable, a latency budget
    of 1000 ms or less -> latency-sensitive; the cost ceiling as it is; production scale asks for
    a competent band at least, large-scale for frontier."""
    tags = {SHAPES[form.shape]} if form.shape else set()
    if form.persistence == "long-term":
        tags.add("long-running-session")
    if form.deployment == "offline":
        tags.add("offline-capable")
    if form.latency_budget_ms is not None and form.latency_budget_ms <= LATENCY_SENSITIVE_MS:
        tags.add("latency-sensitive")
    cost = None if form.cost_ceiling_usd_per_mtok is None else float(form.cost_ceiling_usd_per_mtok)
    return Constraints(tuple(sorted(tags)), cost, None, SCALES[form.scale] if form.scale else None)


def check_tag(tag: str) -> str:
    """``tag`` when it is one of the 8 use-case tags (case and spaces around it do not count); else
    UsageError, naming the tags and the closest."""
    wanted = tag.strip().lower()
    if wanted in USE_CASE_TAGS:
        return wanted
    close = difflib.get_close_matches(wanted, USE_CASE_TAGS, n=2, cutoff=0.5)
    close += [t for t in USE_CASE_TAGS if wanted and wanted in t and t not in close]
    hint = f"; did you mean {' or '.join(close[:2])}?" if close else ""
    raise UsageError(f"unknown use-case tag {safe_text(tag, 60)!r}; the tags are: {', '.join(USE_CASE_TAGS)}{hint}")
