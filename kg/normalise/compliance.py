"""Compliance cells read as the certification frameworks they name (SOC 2, GDPR, ...)."""

from __future__ import annotations

import re

from .text import REAL_DATA, clean, is_not_applicable_text, unique

_FRAMEWORKS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bSOC[\s-]*(?:2|II)(?![\w.])", re.IGNORECASE), "SOC 2"),
    (re.compile(r"\bGDPR\b", re.IGNORECASE), "GDPR"),
    (re.compile(r"\bHIPAA\b|\bHIPPA\b", re.IGNORECASE), "HIPAA"),
    (re.compile(r"\bISO(?:\s*/\s*IEC)?[\s-]*27001\b", re.IGNORECASE), "ISO 27001"),
)
# A clause with any of these does not claim the framework: "no SOC 2",
# "HIPAA not supported", "SOC 2 Type II in progress", "GDPR planned".
_COMPLIANCE_NEGATION_RE = re.compile(
    r"\b(?:no|not|non|without|lacks?|lacking|pending|planned|roadmap|in progress|underway|"
    r"working toward|working towards|pursuing|undocumented|unverified|unknown|none)\b",
    re.IGNORECASE,
)


def compliance_frameworks(text: str, status: str) -> tuple[str, ...]:
    """Compliance frameworks a real-data cell claims, in order of appearance.

    >>> compliance_frameworks("Hugging Face Enterprise: SOC 2 Type II; GDPR premium coverage", "real-data")
    ('SOC 2', 'GDPR')
    >>> compliance_frameworks("no SOC 2 or HIPAA; GDPR compliant", "real-data")
    ('GDPR',)
    """
    cleaned = clean(text)
    if status != REAL_DATA or not cleaned or is_not_applicable_text(cleaned.lower()):
        return ()
    found: list[tuple[int, str]] = []
    for clause in re.finditer(r"[^;,.()\[\]|]+", cleaned):
        body = clause.group()
        for part in re.finditer(r"(?:(?!\bbut\b|\bhowever\b).)+", body, re.IGNORECASE):
            if _COMPLIANCE_NEGATION_RE.search(part.group()):
                continue
            for pattern, name in _FRAMEWORKS:
                found += [(clause.start() + part.start() + m.start(), name)
                          for m in pattern.finditer(part.group())]
    found.sort(key=lambda hit: hit[0])
    return unique([name for _, name in found])
