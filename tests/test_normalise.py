"""kg.normalise as a whole: its doctests, the seed record read by every classifier, and totality (no
function ever raises). The cases of each field family are in tests/test_normalise_<module>.py."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import re

import pytest

from kg import normalise as nz
from kg.normalise import (
    LicenseInfo,
    compliance_frameworks,
    deployment_kind,
    feature_state,
    first_date,
    github_repo,
    github_stars,
    languages,
    license_is_osi,
    number,
    protocol_mode,
    protocols_in_support_cell,
    publication_venue,
    registrable_domain,
    release_info,
    spdx_license,
    vendor_of,
)

RD, NA, DF, ND, EST = "real-data", "not-applicable", "depth-floor-reached", "no-data", "estimate"
XSD_LEXICAL = {
    "gYear": re.compile(r"\d{4}"),
    "gYearMonth": re.compile(r"\d{4}-(0[1-9]|1[0-2])"),
    "date": re.compile(r"\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])"),
    "quarter": re.compile(r"\d{4}-Q[1-4]"),
}


def test_doctests_pass() -> None:
    modules = [nz] + [importlib.import_module(f"kg.normalise.{m.name}") for m in pkgutil.iter_modules(nz.__path__)]
    results = [doctest.testmod(module) for module in modules]
    assert sum(r.attempted for r in results) > 30
    assert sum(r.failed for r in results) == 0


# --------------------------------------------------------------------------- the seed record


def test_seed_record(seed_record) -> None:
    c = seed_record["cells"]

    def v(slug):
        return c[slug]["value"], c[slug]["status"]

    assert spdx_license(*v("license")) == LicenseInfo("spdx", ("Apache-2.0",), "Apache-2.0")
    assert protocol_mode(*v("mcp-support")) == "adapter"
    assert protocol_mode(*v("a2a-support")) == "none"
    assert protocol_mode(*v("otel")) == "adapter"
    assert protocol_mode(*v("protocol-support")) == "client"
    assert protocols_in_support_cell(c["protocol-support"]["value"]) == {"mcp": "client"}
    assert deployment_kind(*v("deployment")) == "both"
    assert languages(c["sdk-languages"]["value"]) == ("Python",)
    assert languages(c["api-surface"]["value"]) == ("Python",)
    assert languages(c["runtimes"]["value"]) == ("Python",)
    assert first_date(c["created"]["value"]) == ("2024-12", "gYearMonth")
    version, when = release_info(*v("latest-release"))
    assert (version, when.text, when.xsd_type) == ("v1.26.0", "2026-05-29", "date")
    assert github_repo(c["gh"]["value"], c["gh"]["citation"]) == ("huggingface", "smolagents")
    assert github_stars(c["gh"]["value"]) == 28800
    assert number(*v("integration-count")) == 0
    assert number(*v("capability-composite-score")) == 55
    assert number(*v("cost-input-usd-per-mtok")) is None
    assert vendor_of(seed_record["url"], "huggingface").key == "huggingface.co"
    assert publication_venue(seed_record["url"]) is None
    assert compliance_frameworks(*v("compliance")) == ("SOC 2", "GDPR")
    assert compliance_frameworks(*v("compliance-certifications")) == ()
    feature_slugs = [s for s in c if s.startswith(("obs-", "eval-")) or s.startswith("cost-") and c[s]["status"] == ND]
    assert len(feature_slugs) == 22
    assert {feature_state(*v(s)) for s in feature_slugs} == {"unknown"}
    assert feature_state(*v("webhooks")) == "no"


# --------------------------------------------------------------------------- totality

ODD_STRINGS = [
    "",
    " ",
    "\x00",
    "\x00\x01\x02\n\t\r",
    "\ufeff",
    "\u200b\u200d",
    "💥🚀★★★",
    "日本語のテキスト 2024年",
    "Ελληνικά MIT",
    "٣٤٥",  # Arabic-Indic digits
    "२०२४-१२",  # Devanagari digits
    "(" * 500 + ")" * 3,
    ")(" * 300,
    "a" * 100_000,
    "MIT " * 20_000,
    "2024-" * 5000,
    "github.com/" * 2000,
    "https://[::1",
    "http://user:pw@[::1]:99999/x",
    "https://" + "a." * 300 + "com",
    "☃.net",
    "../../etc/passwd",
    "$",
    "~",
    "1e400",
    "9" * 5000,
    "not applicable",
    "n/a",
    "no",
    "yes",
    "None",
]
STATUSES = [RD, EST, NA, DF, ND, "", "\x00", "weird"]


def _call_everything(text: str, status: str) -> None:
    assert isinstance(spdx_license(text, status), LicenseInfo)
    license_is_osi(spdx_license(text, status))
    assert protocol_mode(text, status) in nz.PROTOCOL_MODES
    assert isinstance(protocols_in_support_cell(text), dict)
    assert deployment_kind(text, status) in (None, "hosted", "self-hosted", "both")
    assert isinstance(languages(text), tuple)
    found = first_date(text)
    if found:
        assert XSD_LEXICAL[found[1]].fullmatch(found[0])
    version, found = release_info(text, status)
    assert version is None or isinstance(version, str)
    github_repo(text, text)
    github_repo(text, None)
    stars = github_stars(text)
    assert stars is None or (isinstance(stars, int) and stars >= 0)
    number(text, status)
    assert isinstance(registrable_domain(text), str)
    publication_venue(text)
    vendor_of(text, text)
    vendor_of(text, None)
    assert feature_state(text, status) in ("yes", "no", "unknown")
    assert isinstance(compliance_frameworks(text, status), tuple)


@pytest.mark.parametrize("text", ODD_STRINGS, ids=range(len(ODD_STRINGS)))
def test_total_on_odd_strings(text: str) -> None:
    for status in STATUSES:
        _call_everything(text, status)


def test_total_on_every_real_value(site_records, seed_record) -> None:
    values = {cell["value"] for r in site_records for cell in r["cells"].values()}
    values |= {c["value"] for c in seed_record["cells"].values()}
    values |= {r["url"] or "" for r in site_records}
    for text in values:
        _call_everything(text, RD)


def test_total_on_random_text() -> None:
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies

    @hypothesis.settings(max_examples=300, deadline=None)
    @hypothesis.given(st.text(), st.sampled_from(STATUSES))
    def check(text: str, status: str) -> None:
        _call_everything(text, status)

    check()
