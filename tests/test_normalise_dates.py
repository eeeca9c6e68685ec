"""kg.normalise.dates: first dates and releases, as XSD lexical values."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from kg.normalise import first_date, release_info

RD, NA, DF = "real-data", "not-applicable", "depth-floor-reached"


XSD_LEXICAL = {
    "gYear": re.compile(r"\d{4}"),
    "gYearMonth": re.compile(r"\d{4}-(0[1-9]|1[0-2])"),
    "date": re.compile(r"\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])"),
    "quarter": re.compile(r"\d{4}-Q[1-4]"),
}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2023", ("2023", "gYear")),
        ("2024-10", ("2024-10", "gYearMonth")),
        ("2026-05-29", ("2026-05-29", "date")),
        ("2023 (founded)", ("2023", "gYear")),
        ("2024-Q4", ("2024-Q4", "quarter")),
        ("2018-2019 (Storyflow project 2018; Voiceflow formally launched 2019)", ("2018", "gYear")),
        ("Announced 2026-04 (NVIDIA GTC season); GA H2 2026", ("2026-04", "gYearMonth")),
        ("2019-02 (Bard et al. arXiv 1902.00506)", ("2019-02", "gYearMonth")),
        ("RFM-1 (Mar 2024)", ("2024-03", "gYearMonth")),
        ("GR00T N1 (2B) on HuggingFace Mar-2025", ("2025-03", "gYearMonth")),
        ("v0.8.1 (released March 2 2025); v0.8.2 current", ("2025-03-02", "date")),
        ("2024-02-29", ("2024-02-29", "date")),
        ("2024-13", None),
        ("2025-02-30", None),
        ("2023-02-29", None),
        ("arXiv 2405.14573", None),
        ("searched not found", None),
        ("see post date", None),
        ("2026.1.26", None),
        ("", None),
    ],
)
def test_first_date(text: str, expected) -> None:
    assert first_date(text) == expected


def test_dates_on_site_data(site_cells) -> None:
    types = Counter()
    for value, status in site_cells("created"):
        found = first_date(value)
        types[found[1] if found else None] += 1
        if found:
            assert XSD_LEXICAL[found[1]].fullmatch(found[0])
        if status == RD and re.match(r"\d{4}(-\d\d){0,2}\b", value):
            assert found and value.startswith(found[0]), value
    assert types == {"gYearMonth": 488, "gYear": 375, "date": 28, "quarter": 2, None: 19}


@pytest.mark.parametrize(
    ("text", "status", "expected"),
    [
        ("v1.26.0 (2026-05-29)", RD, ("v1.26.0", ("2026-05-29", "date"))),
        ("v1.0.8 2026-05-06", RD, ("v1.0.8", ("2026-05-06", "date"))),
        ("3.0.9 2026-04-13", RD, ("3.0.9", ("2026-04-13", "date"))),
        ("v0.6.1 / 2026-05-04", RD, ("v0.6.1", ("2026-05-04", "date"))),
        ("python-v0.7.5 2025-09-30", RD, ("python-v0.7.5", ("2025-09-30", "date"))),
        ("2026.1.26 2026-01-27", RD, ("2026.1.26", ("2026-01-27", "date"))),
        ("LoRA_checkpoint 2023-05-21", RD, ("LoRA_checkpoint", ("2023-05-21", "date"))),
        ("mcp-neo4j-cyphe… 2026-04-10", RD, (None, ("2026-04-10", "date"))),
        ("Yi-Lightning (2024-10)", RD, (None, ("2024-10", "gYearMonth"))),
        ("v0.x ongoing on GitHub", RD, (None, None)),
        ("no releases", RD, (None, None)),
        ("no-release no-release", RD, (None, None)),
        ("no releases (no tagged releases on GitHub as of research date)", RD, (None, None)),
        ("Inactive since 2024", RD, (None, None)),
        ("not applicable — not OSS", NA, (None, None)),
        ("searched not found", DF, (None, None)),
        ("n/a — vendor feature of GitHub Copilot (not a versioned repo)", RD, (None, None)),
    ],
)
def test_release_info(text: str, status: str, expected) -> None:
    version, when = release_info(text, status)
    assert (version, None if when is None else (when.text, when.xsd_type)) == expected


def test_releases_on_site_data(site_cells) -> None:
    for value, status in site_cells("latest-release"):
        version, when = release_info(value, status)
        found = None if when is None else (when.text, when.xsd_type)
        if re.fullmatch(r"v?\d+(\.\d+)+ \d{4}-\d\d-\d\d", value):
            assert version == value.split()[0] and found == (value.split()[1], "date")
        if status != RD:
            assert (version, found) == (None, None)
