"""Protocol support cells (mcp-support, a2a-support, otel, protocol-support) read as support modes."""

from __future__ import annotations

import re

from .text import (DEPTH_FLOOR, NO_DATA, NOT_APPLICABLE, PLANNED_RE, READABLE, clean_lower,
                   is_not_applicable_text)

PROTOCOL_MODES = ("native", "adapter", "client", "none", "not-applicable", "unknown")

# "no …", "not documented publicly", "not supported", "searched not found —
# …", "depth-floor — …", "planned (Google A2A roadmap)".
_NEGATIVE_LEAD_RE = re.compile(
    r"^(?:no\b|no-|not\b|none\b|never\b|unsupported|undocumented|unavailable|absent|lacks?\b|"
    r"searched not found|depth[\s-]*floor|planned|on the roadmap|roadmap|coming soon|"
    r"in development|upcoming|forthcoming|false\b|✗|✘)"
)
# "Google's own A2A protocol — likely first-party": a guess, not a finding.
_HEDGE_RE = re.compile(r"\b(?:likely|probably|possibly|presumably|assumed|unclear|unconfirmed|unverified)\b")
_NEGATIVE_ANY_RE = re.compile(
    r"\b(?:not supported|unsupported|not documented|undocumented|not available|not advertised|"
    r"no support|not native|no native)\b"
)
# "native …", "Yes — …", "first-class — Prometheus + OTel", "supported (native)".
_STRONG_LEAD_RE = re.compile(
    r"^(?:native|yes\b|first[\s-]*class|first[\s-]*party|built[\s-]*in|builtin|official\b|"
    r"full(?:y)?\b|supported \(native\))"
)
_FIRST_PARTY_RE = re.compile(r"\bfirst[\s-]*party\b|\bfirst[\s-]*class\b|\bbuilt[\s-]*in\b")
_ADAPTER_RE = re.compile(
    r"\badapters?\b|\bplug-?ins?\b|\bwrappers?\b|\bwraps?\b|\bcommunity\b|\bthird[\s-]*party\b|"
    r"\bport\b|\bbridges?\b|\bintegrations?\b|\bextensions?\b"
)
# "native — Cline is an MCP client", "Claude apps consume MCP", "(caller-side)".
_CLIENT_RE = re.compile(
    r"\bclients?\b|\bconsumes?\b|\bconsumed\b|\bcaller[\s-]*side\b|\bcomposes with\b|mcpclient"
)
_SERVER_RE = re.compile(
    r"\bserves?\b|\bserver\s*(?:\+|/|&|and)\s*clients?\b|\bclients?\s*(?:\+|/|&|and)\s*servers?\b|"
    r"\bprovides?\b|\bexposes?\b|mcp-server"
)
_AFFIRM_RE = re.compile(
    r"\b(?:mcp|a2a|agent2agent|model context protocol|otel|otlp|opentelemetry|supports?|supported|"
    r"support|yes|native)\b"
)


def protocol_mode(text: str, status: str) -> str:
    """How a system supports a protocol, from an mcp/a2a/otel cell.

    One of ``native``, ``adapter``, ``client``, ``none``, ``not-applicable``,
    ``unknown``. ``depth-floor-reached`` ("searched not found") counts as
    ``none``: researchers looked and found no support.

    >>> protocol_mode("native (first-party MCP server)", "real-data")
    'native'
    >>> protocol_mode("native — Cline is an MCP client", "real-data")
    'client'
    >>> protocol_mode("no first-party MCP adapter published as of 2026-05; community connectors may exist.", "real-data")
    'none'
    >>> protocol_mode("searched not found", "depth-floor-reached")
    'none'
    """
    s = clean_lower(text)
    if status == NOT_APPLICABLE or is_not_applicable_text(s):
        return "not-applicable"
    if status == NO_DATA:
        return "unknown"
    if status == DEPTH_FLOOR:
        return "none"
    if not s or status not in READABLE:
        return "unknown"
    if s.startswith("no data"):
        # "no data — searched lakera.ai …; A2A protocol not advertised"
        looked = re.search(r"searched|not advertised|not found|\bno\b", s[len("no data"):])
        return "none" if looked else "unknown"
    if _NEGATIVE_LEAD_RE.match(s):
        return "none"
    if _HEDGE_RE.search(s):
        return "unknown"
    strong = _STRONG_LEAD_RE.match(s) is not None
    if PLANNED_RE.search(s) and not strong:
        return "none"
    if s.startswith("via "):
        return "adapter"
    client_only = _CLIENT_RE.search(s) is not None and _SERVER_RE.search(s) is None
    if strong or _FIRST_PARTY_RE.search(s):
        return "client" if client_only else "native"
    if _ADAPTER_RE.search(s):
        return "adapter"
    if client_only:
        return "client"
    if _NEGATIVE_ANY_RE.search(s):
        return "none"
    if _AFFIRM_RE.search(s):
        return "native"
    return "unknown"


_PROTOCOL_KEYS = {
    "mcp": "mcp",
    "modelcontextprotocol": "mcp",
    "a2a": "a2a",
    "agent2agent": "a2a",
    "otel": "opentelemetry",
    "opentelemetry": "opentelemetry",
    "otlp": "opentelemetry",
}
_ROLE_MODES = {
    "": "native",
    "server": "native",
    "native": "native",
    "client": "client",
    "adapter": "adapter",
    "plugin": "adapter",
    "community": "adapter",
}
_MODE_RANK = {"native": 3, "adapter": 2, "client": 1}


def protocols_in_support_cell(text: str) -> dict[str, str]:
    """Protocols listed in a seed-style ``protocol-support`` cell, with their mode.

    Tokens look like ``mcp-client``, ``mcp-server``, ``a2a``, ``otel``; keys are
    ``mcp``, ``a2a`` and ``opentelemetry``. A system that is both MCP server and
    client counts as ``native``.

    >>> protocols_in_support_cell("mcp-client")
    {'mcp': 'client'}
    >>> protocols_in_support_cell("mcp-server, mcp-client, a2a, otel")
    {'mcp': 'native', 'a2a': 'native', 'opentelemetry': 'native'}
    """
    result: dict[str, str] = {}
    for token in re.split(r"[\s,;|/+]+", clean_lower(text)):
        match = re.fullmatch(r"([a-z0-9]+)(?:[-_:]([a-z]+))?", token)
        if not match or match.group(1) not in _PROTOCOL_KEYS:
            continue
        mode = _ROLE_MODES.get(match.group(2) or "")
        if mode is None:
            continue
        key = _PROTOCOL_KEYS[match.group(1)]
        if _MODE_RANK[mode] > _MODE_RANK.get(result.get(key, ""), 0):
            result[key] = mode
    return result
