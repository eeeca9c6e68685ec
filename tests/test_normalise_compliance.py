"""kg.normalise.compliance: compliance frameworks named in a cell."""

from __future__ import annotations


import pytest

from kg.normalise import compliance_frameworks

RD, NA, ND = "real-data", "not-applicable", "no-data"


@pytest.mark.parametrize(
    ("text", "status", "expected"),
    [
        ("Hugging Face Enterprise: SOC 2 Type II; GDPR premium coverage; continuous security scanning via VirusTotal",
         RD, ("SOC 2", "GDPR")),
        ("SOC2 Type 1, HIPAA BAA available", RD, ("SOC 2", "HIPAA")),
        ("ISO/IEC 27001:2022 certified; SOC 2", RD, ("ISO 27001", "SOC 2")),
        ("ISO27001 and GDPR", RD, ("ISO 27001", "GDPR")),
        ("no SOC 2", RD, ()),
        ("no SOC 2 or HIPAA; GDPR compliant", RD, ("GDPR",)),
        ("SOC 2 Type II in progress; GDPR", RD, ("GDPR",)),
        ("Not SOC 2 certified but GDPR compliant", RD, ("GDPR",)),
        ("HIPAA not supported", RD, ()),
        ("SOC 1 report only", RD, ()),
        ("not applicable — no hosted service", NA, ()),
        ("not applicable — no hosted service", RD, ()),
        ("SOC 2", ND, ()),
        ("", RD, ()),
    ],
)
def test_compliance_frameworks(text: str, status: str, expected: tuple[str, ...]) -> None:
    assert compliance_frameworks(text, status) == expected
