"""kg.normalise.features: feature columns read as yes, no or unknown."""

from __future__ import annotations


import pytest

from kg.normalise import feature_state

RD, NA, DF, ND = "real-data", "not-applicable", "depth-floor-reached", "no-data"


@pytest.mark.parametrize(
    ("text", "status", "state"),
    [
        ("yes", RD, "yes"),
        ("Yes — native LangSmith tracing", RD, "yes"),
        ("native", RD, "yes"),
        ("supported via SDK callback", RD, "yes"),
        ("via OpenTelemetry exporter", RD, "yes"),
        ("built-in", RD, "yes"),
        ("no", RD, "no"),
        ("not supported", RD, "no"),
        ("none", RD, "no"),
        ("planned", RD, "no"),
        ("on the roadmap for 2026", RD, "no"),
        ("coming soon", RD, "no"),
        ("Team says this is planned", RD, "no"),
        ("", ND, "unknown"),
        ("searched not found", DF, "unknown"),
        ("not applicable — library", NA, "unknown"),
        ("not applicable — library", RD, "unknown"),
        ("yes", ND, "unknown"),
        ("depends on deployment", RD, "unknown"),
    ],
)
def test_feature_state(text: str, status: str, state: str) -> None:
    assert feature_state(text, status) == state
