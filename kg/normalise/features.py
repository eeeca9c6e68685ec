"""Feature columns (obs-*, cost-*, eval-*) read as yes, no or unknown."""

from __future__ import annotations

import re

from .text import PLANNED_RE, REAL_DATA, clean_lower, is_no_data_text, is_not_applicable_text

_YES_LEAD_RE = re.compile(
    r"^(?:yes\b|y\b|native|supported\b|supports\b|via\b|built[\s-]*in|first[\s-]*(?:class|party)|"
    r"official\b|full\b|enabled\b|available\b|integrated\b|true\b|✓|✔)"
)
_NO_LEAD_RE = re.compile(
    r"^(?:no\b|no-|n\b|not\b|none\b|never\b|unsupported|unavailable|disabled\b|false\b|✗|✘|"
    r"planned|on the roadmap|roadmap|coming soon|in development|upcoming)"
)


def feature_state(text: str, status: str) -> str:
    """``yes``, ``no`` or ``unknown`` for an observability/cost/eval feature cell.

    >>> feature_state("yes — native LangSmith tracing", "real-data")
    'yes'
    >>> feature_state("planned for Q3", "real-data")
    'no'
    >>> feature_state("", "no-data")
    'unknown'
    """
    s = clean_lower(text)
    if status != REAL_DATA or not s or is_not_applicable_text(s) or is_no_data_text(s):
        return "unknown"
    if _NO_LEAD_RE.match(s):
        return "no"
    if _YES_LEAD_RE.match(s):
        return "yes"
    if PLANNED_RE.search(s):
        return "no"
    return "unknown"
