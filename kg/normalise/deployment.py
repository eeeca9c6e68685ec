"""Deployment cells read as hosted, self-hosted or both."""

from __future__ import annotations

import re

from .text import READABLE, clean_lower, is_no_data_text, is_not_applicable_text, without_parentheses

_HOSTED_RE = re.compile(
    r"\bmanaged(?!\s+via\b)|\bcloud\b|\bsaas\b|(?<!self-)(?<!self )\bhost(?:s|ed)\b|^(?:rest |cloud )?api\b"
)
_SELF_RE = re.compile(
    r"\bself[\s-]*host|\bon[\s-]*prem|\bon[\s-]*device\b|\bon[\s-]*robot\b|\blocal(?:ly)?\b|"
    r"\blocal[\s-]*(?:first|only)\b|\bdocker\b|\bpip\b|\bnpm\b|\bgo install\b|\boss\b|"
    r"\bopen[\s-]*source\b|\bopen[\s-]*weights?\b|\bair[\s-]*gapped\b|\bbyoc\b|\bvpc\b|"
    r"\blibrary\b|\bprivate\s+cloud\b|\bofflin"
)
# Clauses that deny, postpone or describe a dependency rather than a mode:
# "no self-hosting", "Vertex AI / Cloud planned", "DataStax cloud deprecated",
# "cloud LLM by default", "API calls to OpenAI cloud".
_SKIP_CLAUSE_RE = re.compile(
    r"^(?:no|not|zero|without)\b|\bplanned\b|\bforthcoming\b|\bdeprecated\b|\broadmap\b|"
    r"\bllms?\b|\bapi calls\b|\brelies on\b|\bcalls to\b"
)


def _deployment_signals(text: str) -> tuple[bool, bool]:
    hosted = self_hosted = False
    for clause in re.split(r"[;,—–]|\s-\s|\s\+\s|\bor\b|\band\b", text):
        clause = clause.strip()
        if not clause or _SKIP_CLAUSE_RE.search(clause):
            continue
        hosted = hosted or _HOSTED_RE.search(clause) is not None
        self_hosted = self_hosted or _SELF_RE.search(clause) is not None
    return hosted, self_hosted


def deployment_kind(text: str, status: str) -> str | None:
    """``hosted``, ``self-hosted``, ``both`` or None (not researched / unclear).

    Text outside parentheses decides; an aside is read only when the main text
    names no mode ("IDE plugin (cloud LLM by default; offline/self-host options)").

    >>> deployment_kind("Managed-only", "real-data")
    'hosted'
    >>> deployment_kind("Cloud inference + on-robot deployment (websocket streaming)", "real-data")
    'both'
    >>> deployment_kind("Managed-only via AWS Bedrock; no self-hosting (weights closed)", "real-data")
    'hosted'
    """
    s = clean_lower(text)
    if status not in READABLE or not s or is_not_applicable_text(s) or is_no_data_text(s):
        return None
    if re.match(r"(?:both|hybrid)\b", s):
        return "both"
    hosted, self_hosted = _deployment_signals(without_parentheses(s))
    if not (hosted or self_hosted):
        hosted, self_hosted = _deployment_signals(" ; ".join(re.findall(r"\(([^()]*)\)", s)))
    if hosted and self_hosted:
        return "both"
    if hosted:
        return "hosted"
    if self_hosted:
        return "self-hosted"
    return None
