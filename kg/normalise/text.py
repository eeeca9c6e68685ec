"""Cell statuses and the text rules every classifier shares: cleaning, not-applicable and no-data text."""

from __future__ import annotations

import re
import unicodedata

REAL_DATA = "real-data"
ESTIMATE = "estimate"
NOT_APPLICABLE = "not-applicable"
DEPTH_FLOOR = "depth-floor-reached"
NO_DATA = "no-data"
# Statuses whose text is a researched value worth reading.
READABLE = frozenset({REAL_DATA, ESTIMATE})

# Cells are short (the longest real value has 512 characters); the cap
# bounds the regex work on hostile input. Text past it is ignored.
MAX_TEXT = 4000

# A feature or protocol that is only announced: "planned (Google A2A roadmap)", "coming soon".
_SPACE = re.compile(r"\s+")
PLANNED_RE = re.compile(
    r"\b(?:planned|on (?:the|its) roadmap|roadmap|coming soon|in development|not yet|upcoming|forthcoming)\b"
)


def clean(text: object) -> str:
    """Whitespace-collapsed, stripped text; non-strings become ''."""
    if not isinstance(text, str):
        return ""
    return " ".join(text[:MAX_TEXT].split())


def clean_lower(text: object) -> str:
    """``clean`` text in lower case."""
    return clean(text).lower()


def is_not_applicable_text(lowered: str) -> bool:
    # The catalog writes "not applicable — …"; two cells say "n/a — …".
    return lowered.startswith("not applicable") or re.match(r"n/a\b", lowered) is not None


def is_no_data_text(lowered: str) -> bool:
    # 18 cells read "no data — searched …" while their status says real-data.
    return lowered.startswith(("no data", "searched not found"))


def without_parentheses(text: str) -> str:
    """Text with (possibly nested) parenthetical remarks removed."""
    previous = None
    while previous != text:
        previous = text
        text = re.sub(r"\([^()]*\)", " ", text)
    return text.replace("(", " ").replace(")", " ")


def unique(items: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """The items without repeats, in their first order."""
    return tuple(dict.fromkeys(items))


def fold(text: str) -> str:
    """``text`` trimmed, lower-cased, white space runs made one space, diacritics dropped:
    how text search compares (the folded fields written at ingest, and the text asked for).

    >>> fold("  Café \t Graphiti ")
    'cafe graphiti'
    """
    decomposed = unicodedata.normalize("NFD", text)  # canonical only: "²" stays itself
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return _SPACE.sub(" ", bare).strip().lower()  # lower, as SPARQL's LCASE
