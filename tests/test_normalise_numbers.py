"""kg.normalise.numbers: numeric cells."""

from __future__ import annotations


import pytest

from kg.normalise import number

RD, NA, DF, ND, EST = "real-data", "not-applicable", "depth-floor-reached", "no-data", "estimate"


@pytest.mark.parametrize(
    ("text", "status", "value"),
    [
        ("0", RD, 0),
        ("55", EST, 55),
        ("$0.15", EST, 0.15),
        ("0.15", RD, 0.15),
        ("$2.50/Mtok", EST, 2.5),
        ("3 USD per 1M tokens", RD, 3),
        ("1,200", RD, 1200),
        ("~40", EST, 40),
        ("55", ND, None),
        ("55", DF, None),
        ("not applicable — OSS plus per-user subscription, no per-token cost", NA, None),
        ("mid", EST, None),
        ("10-20", RD, None),
        ("about 5 integrations", RD, None),
        ("2026-06-29", EST, None),
        ("", RD, None),
    ],
)
def test_number(text: str, status: str, value) -> None:
    result = number(text, status)
    assert result == value
    assert type(result) is type(value)
