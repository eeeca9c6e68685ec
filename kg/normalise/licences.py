"""Licence cells read as SPDX identifiers and expressions, and whether they are OSI approved."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .text import READABLE, clean, is_no_data_text, is_not_applicable_text, unique, without_parentheses

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



def _license_expression(text: str) -> str | None:
    """An SPDX expression when the text (asides removed) is nothing but licences.

    "MIT OR Apache-2.0", "MIT/Apache-2.0" → "MIT OR Apache-2.0";
    "Apache-2.0 (Core)" → "Apache-2.0"; "AGPLv3 + commercial" → None.
    """
    core = without_parentheses(text)
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
    ids = unique([spdx for _, _, spdx in mentions])
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
    cleaned = clean(text)
    lowered = cleaned.lower()
    if status not in READABLE or not cleaned:
        return LicenseInfo("none")
    if is_not_applicable_text(lowered) or is_no_data_text(lowered):
        return LicenseInfo("none")
    ids = unique([spdx for _, _, spdx in _license_mentions(cleaned)])
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
