"""The best-of lists against the catalog's own site: where our list and the site's differ
on the bundled catalog, which records, and what their cells say.

The site's lists (its best-of pages: agent-memory-with-a2a, agent-memory-with-mcp,
open-source-agent-memory, self-hostable-agent-memory) pick records by patterns over the
raw cell text; they are written here again, in Python, from the site's definitions. Our
lists come from the named queries. Every disagreement must be one of the documented ones
(the queries' headers and the README say why ours differ); a new kind fails the test and
prints the records with their cell text.
"""

from __future__ import annotations

import re

import pytest

from kg import output, queries

# -- the site's patterns ------------------------------------------------------------

_NEGATIVE = re.compile(
    r"^(no|not|none|n/a|never|searched not found|no data|depth-floor|no first-party|no mcp|no a2a|no opentelemetry"
    r"|no langsmith|no helicone|no datadog|no native|planned|tbd|tba|coming soon|in development|under development"
    r"|on the roadmap|roadmap|unsupported|missing|absent|undocumented|not documented|not supported|not advertised)\b")
_SITE_OSS = re.compile(r"\b(apache|mit|bsd|agpl|gpl|lgpl|mpl|mozilla|isc|cc-by|cc0|unlicense)", re.IGNORECASE)


def _text(record, slug):
    cell = (record.get("cells") or {}).get(slug) or {}
    return cell.get("value") if isinstance(cell.get("value"), str) else None


def site_positive(record, slug):
    cell = (record.get("cells") or {}).get(slug)
    if not cell or cell.get("status") in ("not-applicable", "no-data"):
        return False
    value = (_text(record, slug) or "").strip().lower()
    return len(value) >= 2 and not _NEGATIVE.match(value)


def site_open_source(record):
    return bool(_SITE_OSS.search(_text(record, "license") or ""))


def site_self_hostable(record):
    value = _text(record, "deployment") or ""
    if re.search(r"saas only|managed only", value, re.IGNORECASE):
        return False
    return bool(re.search(r"self-?host|on-?prem|hybrid|\bboth\b", value, re.IGNORECASE))


# -- where and why ours differ (as documented) -----------------------------------------

LISTS = {
    # query: (cell slug, the site's test, {"site" | "ours": reason -> pattern over the cell text})
    "systems-with-a2a-support": ("a2a-support", lambda r: site_positive(r, "a2a-support"), {
        "site": {"a guess (likely first-party) is not a finding": r"likely first-party"},
        "ours": {}}),
    "systems-with-mcp-support": ("mcp-support", lambda r: site_positive(r, "mcp-support"), {"site": {}, "ours": {}}),
    "open-source-systems": ("license", site_open_source, {
        "site": {"Unlicensed is no licence, not The Unlicense": r"^Unlicensed$",
                 "CC-BY-NC is non-commercial, not open source": r"CC-BY-NC",
                 "a modified MIT licence is not the MIT licence": r"^Modified MIT",
                 "a bare BSD names no OSI licence": r"^BSD$"},
        "ours": {"OSI-approved licences the pattern misses": r"^(PostgreSQL|NetHack General Public License)$"}}),
    "self-hostable-systems": ("deployment", site_self_hostable, {
        "site": {"says there is no self-hosting": r"no self-?host|no self-hosted",
                 "managed-only (the site's pattern wants 'managed only')": r"^Managed-only"},
        "ours": {"runs locally, as a library or CLI, or on a device": r"(?i)\blocal|library|runs anywhere|on-robot|"
                                                                      r"on-device|cli\b|pip install",
                 "open source (code you can run)": r"(?i)open-source|oss code",
                 "a private cloud of one's own": r"(?i)private cloud"}}),
}


@pytest.mark.parametrize("name", LISTS)
def test_best_of_list_against_the_site(bundled_store, expected_records, name):
    slug, site_test, reasons = LISTS[name]
    ours = {r["id"] for r in queries.query(bundled_store, name, {})}
    theirs = {rid for rid, record in expected_records.items() if site_test(record)}
    unexplained = []
    for side, ids in (("site", theirs - ours), ("ours", ours - theirs)):
        for rid in sorted(ids):
            text = _text(expected_records[rid], slug) or ""
            if not any(re.search(pattern, text) for pattern in reasons[side].values()):
                unexplained.append(f"only in {side}'s list: {rid}: {slug} = {text!r}")
    assert unexplained == [], "\n".join(unexplained)
    # the documented differences are real (each reason explains at least one record)
    for side, ids in (("site", theirs - ours), ("ours", ours - theirs)):
        texts = [_text(expected_records[rid], slug) or "" for rid in ids]
        for reason, pattern in reasons[side].items():
            assert any(re.search(pattern, t) for t in texts), f"{name}: no record for {reason!r}"
    if name == "systems-with-mcp-support":
        assert ours == theirs and len(ours) == 133
    if name == "systems-with-a2a-support":
        assert len(theirs - ours) == 2 and not ours - theirs
