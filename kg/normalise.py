"""Read the free text of catalog cells into typed values for the typed query layer.

Every cell of a catalog record is ``{value, citation, status, tier}`` where
``value`` is prose written by researchers ("Apache 2.0", "via official adapter —
LangChain MCP adapters", "2023 (founded)"). The functions here turn that prose
into small closed vocabularies, numbers, dates and identifiers. The rules were
fitted to the value distributions of all 912 records in
``data/landscape-site.json`` and the seed record; comments cite the real values
that motivate each rule.

Conventions:

* pure functions, standard library only, no I/O, no RDF;
* every function is total: any string (empty, control characters, very long,
  non-ASCII) gives a result and never an exception;
* ``status`` is the cell status: ``real-data``, ``estimate``,
  ``not-applicable``, ``depth-floor-reached`` or ``no-data``. Text is only
  interpreted when the status says it holds a researched value.

>>> spdx_license("Apache 2.0", "real-data").expression
'Apache-2.0'
>>> protocol_mode("via official adapter — LangChain MCP adapters", "real-data")
'adapter'
>>> first_date("2023 (founded)")
('2023', 'gYear')
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from urllib.parse import urlsplit

__all__ = [
    "LicenseInfo",
    "MULTI_LABEL_SUFFIXES",
    "OSI_APPROVED",
    "PROTOCOL_MODES",
    "SPDX_IDS",
    "VendorInfo",
    "compliance_frameworks",
    "deployment_kind",
    "feature_state",
    "first_date",
    "github_repo",
    "github_stars",
    "languages",
    "license_is_osi",
    "number",
    "protocol_mode",
    "protocols_in_support_cell",
    "publication_venue",
    "registrable_domain",
    "release_info",
    "spdx_license",
    "vendor_of",
]

REAL_DATA = "real-data"
ESTIMATE = "estimate"
NOT_APPLICABLE = "not-applicable"
DEPTH_FLOOR = "depth-floor-reached"
NO_DATA = "no-data"
# Statuses whose text is a researched value worth reading.
_READABLE = frozenset({REAL_DATA, ESTIMATE})

# Cells are short (the longest real value has 512 characters); the cap
# bounds the regex work on hostile input. Text past it is ignored.
_MAX_TEXT = 4000


# --------------------------------------------------------------------------
# shared text helpers
# --------------------------------------------------------------------------


def _clean(text: object) -> str:
    """Whitespace-collapsed, stripped text; non-strings become ''."""
    if not isinstance(text, str):
        return ""
    return " ".join(text[:_MAX_TEXT].split())


def _lower(text: object) -> str:
    return _clean(text).lower()


def _is_not_applicable_text(lowered: str) -> bool:
    # The catalog writes "not applicable — …"; two cells say "n/a — …".
    return lowered.startswith("not applicable") or re.match(r"n/a\b", lowered) is not None


def _is_no_data_text(lowered: str) -> bool:
    # 18 cells read "no data — searched …" while their status says real-data.
    return lowered.startswith(("no data", "searched not found"))


def _without_parentheses(text: str) -> str:
    """Text with (possibly nested) parenthetical remarks removed."""
    previous = None
    while previous != text:
        previous = text
        text = re.sub(r"\([^()]*\)", " ", text)
    return text.replace("(", " ").replace(")", " ")


# --------------------------------------------------------------------------
# 1. licences
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class LicenseInfo:
    """A licence cell read as SPDX.

    ``kind`` is ``spdx`` (names SPDX licences), ``proprietary`` (no open
    licence), ``unknown`` (researched but unclassifiable) or ``none`` (not
    researched / not applicable). ``spdx_ids`` are in order of appearance;
    ``expression`` is an SPDX licence expression when the whole text is one.
    """

    kind: str
    spdx_ids: tuple[str, ...] = ()
    expression: str | None = None


# (family, major) → SPDX version, with the minor versions that may be written.
_GPL_VERSIONS: dict[tuple[str, str], tuple[str, tuple[str | None, ...]]] = {
    ("GPL", "1"): ("1.0", (None, "0")),
    ("GPL", "2"): ("2.0", (None, "0")),
    ("GPL", "3"): ("3.0", (None, "0")),
    ("AGPL", "3"): ("3.0", (None, "0")),
    ("LGPL", "2"): ("2.1", (None, "1")),
    ("LGPL", "3"): ("3.0", (None, "0")),
}


def _gpl_id(family: str, major: str, minor: str | None, suffix: str | None) -> str | None:
    """SPDX id of a GNU licence mention ("GPLv3", "AGPL-3.0", "LGPL-2.1+"), or None."""
    version, minors = _GPL_VERSIONS.get((family.upper(), major), (None, ()))
    if version is None or minor not in minors:
        return None
    base = f"{family.upper()}-{version}"
    s = (suffix or "").lower()
    if "+" in s or "later" in s:
        return base + "-or-later"
    if "only" in s:
        return base + "-only"
    # Bare "GPL-3.0" is kept as written: the catalog copies GitHub's licence
    # API, which reports the (deprecated but still listed) short ids.
    return base


_GPL_RE = re.compile(
    r"(?<![\w-])(?P<fam>A|L)?GPL[\s-]*v?(?P<maj>[123])(?:\.(?P<min>\d))?"
    r"(?P<suf>\+|[\s-]*or[\s-]*later|-only)?(?![\w.])",
    re.IGNORECASE,
)
_GNU_RE = re.compile(
    r"\bGNU\s+(?P<fam>Affero\s+|Lesser\s+)?General\s+Public\s+Licen[cs]e"
    r"(?:,?\s*v(?:ersion)?\.?\s*|\s+)(?P<maj>[123])(?:\.(?P<min>\d))?",
    re.IGNORECASE,
)

# (pattern, SPDX id). Order does not matter: ids are sorted by position.
_LICENSE_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p, re.IGNORECASE), spdx)
    for p, spdx in (
        # "Apache-2.0", "Apache 2.0", "Apache License 2.0", "Apache License, Version 2.0"
        (r"\bApache(?:[\s-]+Licen[cs]e)?(?:,?[\s-]*(?:v(?:ersion)?\.?\s*)?2(?:\.0)?)?(?!\w|\.\d|[\s-]+1\.)"
         r"(?!\s*(?:kafka|spark|age|airflow|arrow|beam|flink|lucene|solr|tika|cassandra|hadoop)\b)", "Apache-2.0"),
        (r"\bApache(?:[\s-]+Licen[cs]e)?,?[\s-]*(?:v(?:ersion)?\.?\s*)?1\.1\b", "Apache-1.1"),
        # "MIT", "MIT License" — but "Modified MIT" (Mistral) is not MIT.
        (r"(?<!modified )(?<!modified-)\bMIT(?!\w|-\d)(?:\s+Licen[cs]e)?", "MIT"),
        (r"\bMIT-0\b", "MIT-0"),
        (r"\bBSD[\s-]*2[\s-]*Clause\b|\bSimplified\s+BSD\b|\bFreeBSD\s+Licen[cs]e\b", "BSD-2-Clause"),
        (r"\bBSD[\s-]*3[\s-]*Clause\b|\b(?:New|Modified|Revised)\s+BSD\b", "BSD-3-Clause"),
        (r"\bBSD[\s-]*4[\s-]*Clause\b", "BSD-4-Clause"),
        (r"\b0BSD\b", "0BSD"),
        (r"\b(?:Mozilla\s+)?MPL[\s-]*v?2(?:\.0)?\b|\bMozilla\s+Public\s+Licen[cs]e,?\s*(?:v(?:ersion)?\.?\s*)?2(?:\.0)?", "MPL-2.0"),
        (r"\bEPL[\s-]*v?2(?:\.0)?\b|\bEclipse\s+Public\s+Licen[cs]e,?\s*(?:v(?:ersion)?\.?\s*)?2(?:\.0)?", "EPL-2.0"),
        (r"\bISC(?:\s+Licen[cs]e)?\b", "ISC"),
        (r"\bzlib(?:\s+Licen[cs]e)\b|\bZlib\b", "Zlib"),
        (r"\bBSL[\s-]*1\.0\b|\bBoost\s+Software\s+Licen[cs]e", "BSL-1.0"),
        (r"\bBUSL[\s-]*1\.1\b|\bBusiness\s+Source\s+Licen[cs]e", "BUSL-1.1"),
        (r"\bSSPL(?:[\s-]*v?1(?:\.0)?)?\b|\bServer\s+Side\s+Public\s+Licen[cs]e", "SSPL-1.0"),
        # "Elastic 2.0", "Elastic License 2.0", "ELv2"
        (r"\bElastic(?:[\s-]+Licen[cs]e)?[\s-]*v?2(?:\.0)?\b|\bELv2\b", "Elastic-2.0"),
        (r"\bPostgreSQL\s+Licen[cs]e\b|^\s*PostgreSQL\s*$", "PostgreSQL"),
        (r"\bNetHack\s+General\s+Public\s+Licen[cs]e\b|\bNGPL\b", "NGPL"),
        # "The Unlicense" is an open licence; "Unlicensed" is not (see below).
        (r"\bUnlicense\b", "Unlicense"),
        (r"\bCC0(?:[\s-]*1\.0)?\b", "CC0-1.0"),
        (r"\bPolyForm[\s-]+Noncommercial\b", "PolyForm-Noncommercial-1.0.0"),
        (r"\bPolyForm[\s-]+Small[\s-]+Business\b", "PolyForm-Small-Business-1.0.0"),
    )
)
# Creative Commons needs a version to be an SPDX id: "CC-BY-NC-4.0", "CC-BY-NC 4.0".
# "CC-BY-NC (3D scenes)" names no version and yields no id.
_CC_RE = re.compile(
    r"\bCC[\s-]*BY(?P<mods>(?:[\s-]*(?:NC|SA|ND))*)[\s-]*(?P<ver>[234]\.0)\b", re.IGNORECASE
)
_CC_MODS = ("", "-SA", "-ND", "-NC", "-NC-SA", "-NC-ND")

SPDX_IDS: frozenset[str] = frozenset(
    {spdx for _, spdx in _LICENSE_PATTERNS}
    | {f"CC-BY{m}-{v}" for m in _CC_MODS for v in ("2.0", "3.0", "4.0")}
    | {
        f"{fam}-{ver}{suf}"
        for fam, ver in (("GPL", "1.0"), ("GPL", "2.0"), ("GPL", "3.0"), ("AGPL", "3.0"),
                         ("LGPL", "2.1"), ("LGPL", "3.0"))
        for suf in ("", "-only", "-or-later")
    }
)
"""Every SPDX licence id :func:`spdx_license` can emit."""

OSI_APPROVED: frozenset[str] = frozenset(
    {
        "0BSD", "AGPL-3.0", "AGPL-3.0-only", "AGPL-3.0-or-later", "Apache-1.1", "Apache-2.0",
        "BSD-2-Clause", "BSD-3-Clause", "BSL-1.0", "EPL-2.0", "GPL-2.0", "GPL-2.0-only",
        "GPL-2.0-or-later", "GPL-3.0", "GPL-3.0-only", "GPL-3.0-or-later", "ISC",
        "LGPL-2.1", "LGPL-2.1-only", "LGPL-2.1-or-later", "LGPL-3.0", "LGPL-3.0-only",
        "LGPL-3.0-or-later", "MIT", "MIT-0", "MPL-2.0", "NGPL", "PostgreSQL", "Unlicense", "Zlib",
    }
)
"""SPDX ids the OSI approved (per the SPDX licence list's ``isOsiApproved``).

Deliberately absent although emittable: Elastic-2.0, SSPL-1.0, BUSL-1.1, the
CC-BY-* family, CC0-1.0, PolyForm-*, BSD-4-Clause and GPL-1.0*.
"""

# Text that says the thing carries no open licence. "Unlicensed" and
# "no-license" (22 records) are GitHub's "no licence file" verdict on public
# repos: without a grant, copyright law reserves all rights, so they are not
# open source — they read as proprietary, not as SPDX "Unlicense".
_PROPRIETARY_RE = re.compile(
    r"\bproprietary\b|\bclosed(?:[\s-]*source)?\b|\bcommercial\b|\bunlicensed\b|"
    r"\bno[\s-]*licen[cs]e\b|\ball\s+rights\s+reserved\b|\beula\b|\bsource[\s-]*available\b|"
    r"\b(?:community|open\s+model|sustainable\s+use|custom|research)\s+licen[cs]e\b|"
    # named vendor licences: "Jamba Open License", "NVIDIA Open Model license"
    r"(?-i:\b[A-Z][\w-]*\s+Open(?:\s+Model)?\s+)licen[cs]e\b|"
    r"\bmodified\s+mit\b|\bnon[\s-]*commercial\b",
    re.IGNORECASE,
)
_EXPRESSION_FILLER_RE = re.compile(
    r"\b(?:dual[\s-]*licen[cs]ed|dual|licen[cs]ed|under|the|either|at\s+your\s+option)\b",
    re.IGNORECASE,
)


def _license_mentions(text: str) -> list[tuple[int, int, str]]:
    """(start, end, SPDX id) for every licence named in ``text``."""
    found: list[tuple[int, int, str]] = []
    for pattern, spdx in _LICENSE_PATTERNS:
        found += [(m.start(), m.end(), spdx) for m in pattern.finditer(text)]
    for m in _GPL_RE.finditer(text):
        gid = _gpl_id((m.group("fam") or "") + "GPL", m.group("maj"), m.group("min"), m.group("suf"))
        if gid:
            found.append((m.start(), m.end(), gid))
    for m in _GNU_RE.finditer(text):
        fam = (m.group("fam") or "").strip().lower()
        prefix = {"affero": "A", "lesser": "L"}.get(fam, "")
        gid = _gpl_id(prefix + "GPL", m.group("maj"), m.group("min"), None)
        if gid:
            found.append((m.start(), m.end(), gid))
    for m in _CC_RE.finditer(text):
        parts = {part.upper() for part in re.findall(r"NC|SA|ND", m.group("mods"), re.I)}
        mods = "".join("-" + part for part in ("NC", "SA", "ND") if part in parts)
        cid = f"CC-BY{mods}-{m.group('ver')}"
        if cid in SPDX_IDS:
            found.append((m.start(), m.end(), cid))
    # Drop mentions nested inside a longer one ("MIT" inside "MIT-0").
    found.sort(key=lambda t: (t[0], -(t[1] - t[0])))
    kept: list[tuple[int, int, str]] = []
    for start, end, spdx in found:
        if kept and start < kept[-1][1]:
            continue
        kept.append((start, end, spdx))
    return kept


def _unique(items: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def _license_expression(text: str) -> str | None:
    """An SPDX expression when the text (asides removed) is nothing but licences.

    "MIT OR Apache-2.0", "MIT/Apache-2.0" → "MIT OR Apache-2.0";
    "Apache-2.0 (Core)" → "Apache-2.0"; "AGPLv3 + commercial" → None.
    """
    core = _without_parentheses(text)
    mentions = _license_mentions(core)
    if not mentions:
        return None
    residue, cursor = [], 0
    for start, end, _ in mentions:
        residue.append(core[cursor:start])
        cursor = end
    residue.append(core[cursor:])
    glue = " ".join(_EXPRESSION_FILLER_RE.sub(" ", part) for part in residue)
    if re.sub(r"\bor\b|\band\b|[/+,&|\s]", "", glue, flags=re.IGNORECASE):
        return None
    ids = _unique([spdx for _, _, spdx in mentions])
    if len(ids) == 1:
        return ids[0]
    has_or = re.search(r"\bor\b|/|\|", glue, re.IGNORECASE) is not None
    has_and = re.search(r"\band\b|\+|&", glue, re.IGNORECASE) is not None
    if has_or == has_and:  # mixed or bare-comma lists are not one expression
        return None
    return (" OR " if has_or else " AND ").join(ids)


def spdx_license(text: str, status: str) -> LicenseInfo:
    """Read a ``license`` cell.

    >>> spdx_license("MIT/Apache-2.0", "real-data")
    LicenseInfo(kind='spdx', spdx_ids=('MIT', 'Apache-2.0'), expression='MIT OR Apache-2.0')
    >>> spdx_license("Unlicensed", "real-data").kind
    'proprietary'
    >>> spdx_license("not applicable — not OSS", "not-applicable").kind
    'none'
    """
    cleaned = _clean(text)
    lowered = cleaned.lower()
    if status not in _READABLE or not cleaned:
        return LicenseInfo("none")
    if _is_not_applicable_text(lowered) or _is_no_data_text(lowered):
        return LicenseInfo("none")
    ids = _unique([spdx for _, _, spdx in _license_mentions(cleaned)])
    if ids:
        return LicenseInfo("spdx", ids, _license_expression(cleaned))
    if _PROPRIETARY_RE.search(cleaned):
        return LicenseInfo("proprietary")
    # Bare "Custom" (5 records) is GitHub's "Other" verdict; for pgvector and
    # the MCP reference servers it hides PostgreSQL/MIT terms, so it says
    # nothing about openness. Bare "BSD" names no clause count.
    return LicenseInfo("unknown")


def license_is_osi(info: LicenseInfo) -> bool:
    """True when the licence is OSI-approved (for an OR choice: any option is).

    >>> license_is_osi(spdx_license("Elastic 2.0", "real-data"))
    False
    >>> license_is_osi(spdx_license("MIT OR Elastic-2.0", "real-data"))
    True
    """
    if not isinstance(info, LicenseInfo) or info.kind != "spdx" or not info.spdx_ids:
        return False
    if info.expression and " OR " in info.expression:
        return any(spdx in OSI_APPROVED for spdx in info.spdx_ids)
    return all(spdx in OSI_APPROVED for spdx in info.spdx_ids)


# --------------------------------------------------------------------------
# 2. protocol support (mcp-support, a2a-support, otel, protocol-support)
# --------------------------------------------------------------------------

PROTOCOL_MODES = ("native", "adapter", "client", "none", "not-applicable", "unknown")

# "no …", "not documented publicly", "not supported", "searched not found —
# …", "depth-floor — …", "planned (Google A2A roadmap)".
_NEGATIVE_LEAD_RE = re.compile(
    r"^(?:no\b|no-|not\b|none\b|never\b|unsupported|undocumented|unavailable|absent|lacks?\b|"
    r"searched not found|depth[\s-]*floor|planned|on the roadmap|roadmap|coming soon|"
    r"in development|upcoming|forthcoming|false\b|✗|✘)"
)
_PLANNED_RE = re.compile(
    r"\b(?:planned|on (?:the|its) roadmap|roadmap|coming soon|in development|not yet|upcoming|forthcoming)\b"
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
    s = _lower(text)
    if status == NOT_APPLICABLE or _is_not_applicable_text(s):
        return "not-applicable"
    if status == NO_DATA:
        return "unknown"
    if status == DEPTH_FLOOR:
        return "none"
    if not s or status not in _READABLE:
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
    if _PLANNED_RE.search(s) and not strong:
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
    for token in re.split(r"[\s,;|/+]+", _lower(text)):
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


# --------------------------------------------------------------------------
# 3. deployment
# --------------------------------------------------------------------------

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
    s = _lower(text)
    if status not in _READABLE or not s or _is_not_applicable_text(s) or _is_no_data_text(s):
        return None
    if re.match(r"(?:both|hybrid)\b", s):
        return "both"
    hosted, self_hosted = _deployment_signals(_without_parentheses(s))
    if not (hosted or self_hosted):
        hosted, self_hosted = _deployment_signals(" ; ".join(re.findall(r"\(([^()]*)\)", s)))
    if hosted and self_hosted:
        return "both"
    if hosted:
        return "hosted"
    if self_hosted:
        return "self-hosted"
    return None


# --------------------------------------------------------------------------
# 4. programming languages
# --------------------------------------------------------------------------

# Unambiguous names: matched as words anywhere.
_LANGUAGE_WORDS: tuple[tuple[str, str, int], ...] = (
    (r"\bpython[23]?\b", "Python", re.I),
    (r"\btypescript\b", "TypeScript", re.I),
    (r"(?<![\w.])TS\b", "TypeScript", 0),
    (r"\bjavascript\b|\bnode\.?js\b", "JavaScript", re.I),
    (r"(?<![\w.])JS\b", "JavaScript", 0),
    (r"\bgolang\b", "Go", re.I),
    (r"\brust\b", "Rust", re.I),
    (r"\bjava\b(?![\s-]*script)", "Java", re.I),
    (r"\bkotlin\b", "Kotlin", re.I),
    (r"\bswift\b", "Swift", re.I),
    (r"\bruby\b", "Ruby", re.I),
    (r"\bphp\b", "PHP", re.I),
    (r"\belixir\b", "Elixir", re.I),
    (r"\bscala\b", "Scala", re.I),
    (r"\bjulia\b", "Julia", re.I),
    (r"\bdart\b", "Dart", re.I),
    (r"\bclojure\b", "Clojure", re.I),
    (r"\bhaskell\b", "Haskell", re.I),
    (r"\bocaml\b", "OCaml", re.I),
    (r"\berlang\b", "Erlang", re.I),
    (r"\blua\b", "Lua", re.I),
    (r"\bperl\b", "Perl", re.I),
    (r"\bzig\b", "Zig", re.I),
    (r"\b(?:common\s+)?lisp\b", "Lisp", re.I),
    (r"\bobjective-c\b", "Objective-C", re.I),
    (r"(?<![\w+#])c\+\+(?![\w+])|(?<![\w.])cpp\b", "C++", re.I),
    # ".NET" SDKs are C# SDKs in practice ("SDK: Python, .NET").
    (r"(?<![\w#])c#(?![\w#])|\bcsharp\b|(?<!\w)\.net\b|\bdotnet\b", "C#", re.I),
    (r"(?<![\w#])f#(?![\w#])", "F#", re.I),
)
_LANGUAGE_RES = tuple((re.compile(p, flags), name) for p, name, flags in _LANGUAGE_WORDS)
# Names that are also ordinary words or letters ("R", "C", "Go", "Node") count
# only as a whole list item: "SDK: Python, Go", "Python/C", "CLI (Go)", "1.2k★ Go",
# optionally followed by SDK/API/client ("Python + Node SDKs").
_AMBIGUOUS_ITEM_RE = re.compile(
    r"(?P<name>go|r|c|node)(?:\s+(?:sdks?|apis?|clients?|librar(?:y|ies)|packages?))?",
    re.IGNORECASE,
)
_AMBIGUOUS_NAMES = {"go": "Go", "r": "R", "c": "C", "node": "JavaScript"}
# Star counts and monthly deltas in gh cells ("99.9k★ +999/mo Go").
_STAR_NOISE_RE = re.compile(r"(?<![\d.,~+])[~+]?[\d.,]+\s*[kKmM]?\+?\s*(?:★|stars?\b|/\s*mo\b)")


def _ambiguous_languages(text: str) -> list[tuple[int, str]]:
    # Hide "C++", "C#", "F#", "Objective-C" so their "C" is not read as C.
    masked = re.sub(r"c\+\+|[cf]#|objective-c", lambda m: "\x00" * len(m.group()), text, flags=re.I)
    found = []
    for item in re.finditer(r"[^,/;+()\[\]|:★·]+", masked):
        raw = item.group()
        stripped = re.sub(r"^(?:and|or)\s+", "", raw.strip())
        m = _AMBIGUOUS_ITEM_RE.fullmatch(stripped)
        if not m:
            continue
        name = m.group("name")
        # Single letters only in capitals: "r"/"c" are too common in prose.
        if len(name) == 1 and not name.isupper():
            continue
        found.append((item.start() + raw.index(stripped), _AMBIGUOUS_NAMES[name.lower()]))
    return found


def languages(text: str) -> tuple[str, ...]:
    """Canonical programming-language names in ``text``, in order of first appearance.

    >>> languages("REST, gRPC, SDK: Python, Java, Node.js, Go")
    ('Python', 'Java', 'JavaScript', 'Go')
    >>> languages("1.2k★ Python")
    ('Python',)
    >>> languages("Go install; ready to go")
    ()
    """
    cleaned = _STAR_NOISE_RE.sub(" ", _clean(text))
    if not cleaned:
        return ()
    hits: list[tuple[int, str]] = []
    for pattern, name in _LANGUAGE_RES:
        hits += [(m.start(), name) for m in pattern.finditer(cleaned)]
    hits += _ambiguous_languages(cleaned)
    hits.sort(key=lambda hit: hit[0])
    return _unique([name for _, name in hits])


# --------------------------------------------------------------------------
# 5/6. dates and releases
# --------------------------------------------------------------------------

# "2024-12", "2026-05-29", "2023 (founded)", "2018-2019" (→ 2018), "2024-Q4"
# (→ 2024). A year must stand alone: "arXiv 2405.14573" holds no date.
_ISO_DATE_RE = re.compile(
    r"(?<![\w.])(?P<y>(?:19|20)\d\d)(?:-(?P<m>\d\d)(?:-(?P<d>\d\d))?)?(?=$|[^\w.]|\.(?!\d))",
    re.ASCII,
)
_MONTHS = {
    name: number
    for number, names in enumerate(
        (("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
         ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sept", "sep"),
         ("october", "oct"), ("november", "nov"), ("december", "dec")),
        start=1,
    )
    for name in names
}
# "Mar 2024", "Mar-2025", "March 2 2025", "Feb 29, 2024". Capitalised only, so
# the verb "may" never reads as a month.
_NAMED_DATE_RE = re.compile(
    r"\b(?P<mon>(?:January|February|March|April|May|June|July|August|September|October|November|"
    r"December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec))\.?"
    r"(?:[ -](?P<d>\d{1,2})(?:st|nd|rd|th)?,?)?[ -](?P<y>(?:19|20)\d\d)(?![\w.])",
    re.ASCII,
)


def _valid_date(year: int, month: int | None, day: int | None) -> tuple[str, str] | None:
    if month is None:
        return f"{year:04d}", "gYear"
    if not 1 <= month <= 12:
        return None
    if day is None:
        return f"{year:04d}-{month:02d}", "gYearMonth"
    try:
        return date(year, month, day).isoformat(), "date"
    except ValueError:  # "2025-02-30"
        return None


def first_date(text: str) -> tuple[str, str] | None:
    """The first date in ``text`` as (lexical form, XSD type).

    The type is ``date``, ``gYearMonth`` or ``gYear``; impossible dates are skipped.

    >>> first_date("2024-10")
    ('2024-10', 'gYearMonth')
    >>> first_date("v1.26.0 (2026-05-29)")
    ('2026-05-29', 'date')
    >>> first_date("2024-13") is None
    True
    >>> first_date("searched not found") is None
    True
    """
    cleaned = _clean(text)
    candidates: list[tuple[int, tuple[str, str] | None]] = []
    for m in _ISO_DATE_RE.finditer(cleaned):
        month, day = m.group("m"), m.group("d")
        candidates.append(
            (m.start(), _valid_date(int(m.group("y")), int(month) if month else None,
                                    int(day) if day else None))
        )
    for m in _NAMED_DATE_RE.finditer(cleaned):
        day = m.group("d")
        candidates.append(
            (m.start(), _valid_date(int(m.group("y")), _MONTHS[m.group("mon").lower()],
                                    int(day) if day else None))
        )
    candidates.sort(key=lambda c: (c[0], c[1] is None))
    return next((value for _, value in candidates if value is not None), None)


_NO_RELEASE_RE = re.compile(
    r"^(?:no[\s-]*releases?\b|no[\s-]*tagged|inactive\b|not applicable|n/a\b|no data|searched not found)"
)
# GitHub-release shape "<tag> <date>": "v1.0.8 2026-05-06", "n1.7-release 2026-04-18",
# "LoRA_checkpoint 2023-05-21", "v0.6.1 / 2026-05-04".
_TAG_THEN_DATE_RE = re.compile(r"^(?P<tag>\S+)\s+(?:/\s*)?\(?\d{4}-\d\d-\d\d\)?$")
# A leading version: "v1.26.0 (2026-05-29)", "3.0.9 2026-04-13", "V1.2 …".
_LEADING_VERSION_RE = re.compile(r"^(?P<tag>[vV]?\d+(?:\.\d+)+(?:[-+][0-9A-Za-z.]+)?)(?![\w.])")


def release_info(text: str, status: str) -> tuple[str | None, tuple[str, str] | None]:
    """(version, date) from a ``latest-release`` cell; each part may be None.

    A tag the page truncated ("mcp-neo4j-cyphe… 2026-04-10") gives no version.

    >>> release_info("v1.26.0 (2026-05-29)", "real-data")
    ('v1.26.0', ('2026-05-29', 'date'))
    >>> release_info("no releases", "real-data")
    (None, None)
    """
    cleaned = _clean(text)
    if status not in _READABLE or not cleaned or _NO_RELEASE_RE.match(cleaned.lower()):
        return None, None
    version = None
    shaped = _TAG_THEN_DATE_RE.match(cleaned) or _LEADING_VERSION_RE.match(cleaned)
    if shaped and "…" not in shaped.group("tag") and "..." not in shaped.group("tag"):
        version = shaped.group("tag")
    return version, first_date(cleaned)


# --------------------------------------------------------------------------
# 7. GitHub
# --------------------------------------------------------------------------

# github.com/<first segment> pages that are GitHub's own, not an account.
_GITHUB_RESERVED = frozenset(
    {
        "about", "apps", "blog", "codespaces", "collections", "contact", "copilot", "customer-stories",
        "enterprise", "events", "explore", "features", "login", "join", "marketplace", "new",
        "notifications", "orgs", "pricing", "pulls", "issues", "readme", "resources", "search",
        "security", "settings", "site", "solutions", "sponsors", "team", "topics", "trending", "users",
    }
)
_OWNER = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})"
_REPO = r"[A-Za-z0-9._-]{1,100}"
_GITHUB_URL_RE = re.compile(
    rf"(?:https?://)?(?:www\.)?github\.com/(?P<owner>{_OWNER})(?:/(?P<repo>{_REPO}))?", re.IGNORECASE
)
_LEADING_PAIR_RE = re.compile(rf"^(?P<owner>{_OWNER})/(?P<repo>{_REPO})(?=$|[\s,;()—–])")
_PARENTHESISED_PAIR_RE = re.compile(rf"\((?P<owner>{_OWNER})/(?P<repo>{_REPO})\)")


def _owner_repo(owner: str | None, repo: str | None) -> tuple[str, str] | None:
    if not owner or not repo or owner.lower() in _GITHUB_RESERVED:
        return None
    if repo.lower().endswith(".git"):
        repo = repo[:-4]
    if repo in ("", ".", ".."):
        return None
    return owner, repo


def github_repo(text: str, citation: str | None) -> tuple[str, str] | None:
    """(owner, repo) from the gh cell: its citation URL first, then its text.

    >>> github_repo("huggingface/smolagents — ~28.8k stars", None)
    ('huggingface', 'smolagents')
    >>> github_repo("871★ +10/mo Python", "https://github.com/WujiangXu/A-mem")
    ('WujiangXu', 'A-mem')
    >>> github_repo("github.com/toyotaresearchinstitute — multiple repos", None) is None
    True
    """
    if isinstance(citation, str):
        m = _GITHUB_URL_RE.search(citation[:_MAX_TEXT])
        if m and (pair := _owner_repo(m.group("owner"), m.group("repo"))):
            return pair
    cleaned = _clean(text)
    if not cleaned or _is_not_applicable_text(cleaned.lower()):
        return None
    m = _GITHUB_URL_RE.match(cleaned) or _LEADING_PAIR_RE.match(cleaned)
    if m and (pair := _owner_repo(m.group("owner"), m.group("repo"))):
        return pair
    # "github.com/…" later in the text, or "9.9k★ (DeusData/codebase-memory-mcp)".
    for m in [*_GITHUB_URL_RE.finditer(cleaned), *_PARENTHESISED_PAIR_RE.finditer(cleaned)]:
        if pair := _owner_repo(m.group("owner"), m.group("repo")):
            return pair
    return None


_STARS_RE = re.compile(
    r"(?P<bound><\s*)?(?<![\w.])~?\s*(?P<n>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*(?P<mult>[kKmM])?\+?\s*"
    r"(?:★|(?:github\s+)?stars?\b)",
    re.IGNORECASE,
)


def github_stars(text: str) -> int | None:
    """The (first) star count in a gh cell, or None.

    "~7k+ stars" reads as its lower bound 7000. An upper bound ("<50★") gives
    None, and so does "0★ no data — repo unreachable": the 0 is a placeholder
    for a failed fetch, not a count.

    >>> github_stars("huggingface/smolagents — ~28.8k stars")
    28800
    >>> github_stars("17.1k★ +152/mo Python")
    17100
    >>> github_stars("0★ no data — repo unreachable") is None
    True
    """
    cleaned = _clean(text)
    if not cleaned or re.search(r"\bno data\b|\bunreachable\b", cleaned, re.IGNORECASE):
        return None
    m = _STARS_RE.search(cleaned)
    if not m or m.group("bound"):
        return None
    value = float(m.group("n").replace(",", ""))
    scale = {"k": 1_000, "m": 1_000_000}.get((m.group("mult") or "").lower(), 1)
    return int(round(value * scale))


# --------------------------------------------------------------------------
# 8. numbers
# --------------------------------------------------------------------------

# "0", "55", "$0.15", "0.15", "$2.50/Mtok", "~1,200", "3 USD per 1M tokens".
_NUMBER_RE = re.compile(
    r"~?\s*(?:US)?\$?\s*(?P<n>[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)\s*"
    r"(?:usd\b)?\s*(?:(?:/|per)\s*(?:1\s*)?(?:m|mtok|million)\s*(?:tok(?:en)?s?)?|%)?",
    re.IGNORECASE,
)


def number(text: str, status: str) -> int | float | None:
    """A numeric cell's value, when the text is essentially one number.

    >>> number("$0.15", "estimate")
    0.15
    >>> number("55", "estimate")
    55
    >>> number("not applicable — OSS plus per-user subscription, no per-token cost", "not-applicable") is None
    True
    """
    cleaned = _clean(text)
    if status not in _READABLE or not cleaned:
        return None
    m = _NUMBER_RE.fullmatch(cleaned)
    if not m:
        return None
    raw = m.group("n").replace(",", "")
    return float(raw) if "." in raw else int(raw)


# --------------------------------------------------------------------------
# 9. domains, venues, vendors
# --------------------------------------------------------------------------

# Public suffixes with more than one label (a small excerpt of the PSL); a
# registrable domain is one label more than its public suffix.
MULTI_LABEL_SUFFIXES: frozenset[str] = frozenset(
    {
        "co.uk", "org.uk", "ac.uk", "gov.uk", "me.uk", "ltd.uk", "plc.uk", "net.uk", "sch.uk",
        "com.au", "net.au", "org.au", "edu.au", "gov.au",
        "co.jp", "ne.jp", "or.jp", "ac.jp", "go.jp",
        "com.cn", "net.cn", "org.cn", "edu.cn", "gov.cn", "ac.cn",
        "com.hk", "com.tw", "com.sg", "com.br", "com.mx", "com.ar", "com.tr", "com.my",
        "co.kr", "or.kr", "co.in", "net.in", "org.in", "ac.in", "co.nz", "co.za", "co.il", "ac.il",
        "github.io", "gitlab.io", "readthedocs.io", "pages.dev", "workers.dev", "vercel.app",
        "netlify.app", "herokuapp.com", "web.app", "firebaseapp.com", "appspot.com",
        "blogspot.com", "azurewebsites.net", "cloudfront.net", "hf.space", "streamlit.app",
        "fly.dev", "onrender.com",
    }
)


def registrable_domain(host: str) -> str:
    """The registrable domain of a host: lowercase, no "www.", no port.

    >>> registrable_domain("www.Example.co.uk")
    'example.co.uk'
    >>> registrable_domain("microsoft.github.io")
    'microsoft.github.io'
    >>> registrable_domain("eu.36kr.com")
    '36kr.com'
    """
    h = _clean(host).lower()
    if "://" in h:
        h = urlsplit(h).netloc if _safe_split(h) else ""
    h = h.rsplit("@", 1)[-1]
    if h.startswith("["):  # IPv6 literal
        return h.split("]")[0] + "]" if "]" in h else h
    h = h.split(":", 1)[0].split("/", 1)[0].strip(".")
    if h.startswith("www."):
        h = h[4:]
    labels = [label for label in h.split(".") if label]
    if not labels:
        return ""
    if all(label.isdigit() for label in labels):  # IPv4 literal
        return ".".join(labels)
    if len(labels) >= 3 and ".".join(labels[-2:]) in MULTI_LABEL_SUFFIXES:
        return ".".join(labels[-3:])
    return ".".join(labels[-2:])


def _safe_split(url: str) -> bool:
    try:
        urlsplit(url)
        return True
    except ValueError:  # e.g. "http://[::1" (unbalanced IPv6 bracket)
        return False


def _url_parts(url: str | None) -> tuple[str, list[str]]:
    """(lowercase host, path segments) of a URL; ('', []) when unparseable."""
    u = _clean(url)
    if not u:
        return "", []
    if "://" not in u:
        u = "https://" + u
    if not _safe_split(u):
        return "", []
    parts = urlsplit(u)
    try:
        host = (parts.hostname or "").lower().strip(".")
    except ValueError:
        return "", []
    return host, [segment for segment in parts.path.split("/") if segment]


def _host_is(host: str, domain: str) -> bool:
    return host == domain or host.endswith("." + domain)


# Paper hosts: venue name. 236 record URLs point at one of these (arXiv 216,
# OpenReview 8, ACL Anthology 2, ACM DL 2, DOI 2, NeurIPS, ICML, MDPI, Nature, PLOS).
_VENUES: tuple[tuple[str, str], ...] = (
    ("arxiv.org", "arXiv"),
    ("openreview.net", "OpenReview"),
    ("aclanthology.org", "ACL Anthology"),
    ("aclweb.org", "ACL Anthology"),
    ("doi.org", "DOI"),
    ("papers.nips.cc", "NeurIPS"),
    ("proceedings.neurips.cc", "NeurIPS"),
    ("neurips.cc", "NeurIPS"),
    ("nips.cc", "NeurIPS"),
    ("icml.cc", "ICML"),
    ("iclr.cc", "ICLR"),
    ("proceedings.mlr.press", "PMLR"),
    ("jmlr.org", "JMLR"),
    ("semanticscholar.org", "Semantic Scholar"),
    ("ieeexplore.ieee.org", "IEEE Xplore"),
    ("dl.acm.org", "ACM Digital Library"),
    ("aaai.org", "AAAI"),
    ("ijcai.org", "IJCAI"),
    ("openaccess.thecvf.com", "CVF Open Access"),
    ("link.springer.com", "Springer"),
    ("sciencedirect.com", "ScienceDirect"),
    ("nature.com", "Nature"),
    ("journals.plos.org", "PLOS"),
    ("mdpi.com", "MDPI"),
    ("biorxiv.org", "bioRxiv"),
    ("medrxiv.org", "medRxiv"),
    ("ssrn.com", "SSRN"),
)


def publication_venue(url: str | None) -> str | None:
    """The venue name when ``url`` points at a paper host, else None.

    >>> publication_venue("https://arxiv.org/abs/2401.15884")
    'arXiv'
    >>> publication_venue("https://huggingface.co/papers/2401.15884")
    'Hugging Face Papers'
    >>> publication_venue("https://github.com/huggingface/smolagents") is None
    True
    """
    host, segments = _url_parts(url)
    if not host:
        return None
    if _host_is(host, "huggingface.co") and segments[:1] == ["papers"]:
        return "Hugging Face Papers"
    return next((name for domain, name in _VENUES if _host_is(host, domain)), None)


@dataclass(frozen=True)
class VendorInfo:
    """Who publishes a system, as far as its URL (or GitHub owner) tells.

    ``derived_from`` is ``url-domain`` or ``github-owner``; ``source`` is the
    exact URL or owner string the vendor was read from.
    """

    key: str
    name: str
    derived_from: str
    source: str


# Hosts that publish other people's things: their domain names a platform, not
# the vendor (x.com/karpathy, medium.com/@matrixorigin, techcrunch.com/…,
# ycombinator.com/companies/…, sites.google.com/view/…, twitch.tv/claudeplayspokemon).
_PLATFORM_HOSTS = (
    "x.com", "twitter.com", "medium.com", "dev.to", "substack.com", "youtube.com", "youtu.be",
    "ycombinator.com", "techcrunch.com", "prnewswire.com", "businesswire.com", "decrypt.co",
    "infoq.com", "36kr.com", "wowtale.net", "maginative.com", "legaltechnology.com", "lawnext.com",
    "twitch.tv", "sites.google.com", "reddit.com", "venturebeat.com", "theverge.com",
    "producthunt.com", "wikipedia.org",
)


def _github_owner_vendor(owner: str, source: str) -> VendorInfo:
    return VendorInfo(f"github.com/{owner.lower()}", owner, "github-owner", source)


def _owner_from_gh(gh_owner: str | None) -> VendorInfo | None:
    raw = _clean(gh_owner)
    owner = re.sub(r"^(?:https?://)?(?:www\.)?github\.com/|^@", "", raw, flags=re.IGNORECASE).strip("/")
    if re.fullmatch(_OWNER, owner) and owner.lower() not in _GITHUB_RESERVED:
        return _github_owner_vendor(owner, raw)
    return None


def vendor_of(url: str | None, gh_owner: str | None) -> VendorInfo | None:
    """The vendor behind a record, from its URL, else from its GitHub owner.

    github.com/<owner>/…, gist.github.com/<owner>/… and <owner>.github.io give the
    GitHub owner. Paper hosts, Hugging Face model pages and publishing platforms
    (x.com, medium.com, news sites) give no vendor from the URL; then the
    GitHub owner of the record's repository is used, if known.

    >>> vendor_of("https://github.com/huggingface/smolagents", None)
    VendorInfo(key='github.com/huggingface', name='huggingface', derived_from='github-owner', source='https://github.com/huggingface/smolagents')
    >>> vendor_of("https://www.getzep.com/", None).key
    'getzep.com'
    >>> vendor_of("https://arxiv.org/abs/2401.15884", "HKUDS").key
    'github.com/hkuds'
    """
    source = _clean(url)
    host, segments = _url_parts(source)
    if host:
        if host in ("github.com", "www.github.com", "gist.github.com"):
            if segments and re.fullmatch(_OWNER, segments[0]) and segments[0].lower() not in _GITHUB_RESERVED:
                return _github_owner_vendor(segments[0], source)
            return VendorInfo("github.com", "github.com", "url-domain", source)
        pages = re.fullmatch(rf"({_OWNER})\.github\.io", host)
        if pages:
            return _github_owner_vendor(pages.group(1), source)
        hugging_face_repo = _host_is(host, "huggingface.co") and segments and segments[0] not in (
            "docs", "blog", "pricing", "learn", "enterprise", "inference-endpoints", "changelog",
        )
        platform = any(_host_is(host, domain) for domain in _PLATFORM_HOSTS)
        if not (publication_venue(source) or hugging_face_repo or platform):
            domain = registrable_domain(host)
            if domain:
                return VendorInfo(domain, domain, "url-domain", source)
    return _owner_from_gh(gh_owner)


# --------------------------------------------------------------------------
# 10. feature columns (obs-*, cost-*, eval-*)
# --------------------------------------------------------------------------

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
    s = _lower(text)
    if status != REAL_DATA or not s or _is_not_applicable_text(s) or _is_no_data_text(s):
        return "unknown"
    if _NO_LEAD_RE.match(s):
        return "no"
    if _YES_LEAD_RE.match(s):
        return "yes"
    if _PLANNED_RE.search(s):
        return "no"
    return "unknown"


# --------------------------------------------------------------------------
# 11. compliance
# --------------------------------------------------------------------------

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
    cleaned = _clean(text)
    if status != REAL_DATA or not cleaned or _is_not_applicable_text(cleaned.lower()):
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
    return _unique([name for _, name in found])
