"""kg.normalise.deployment: hosted, self-hosted or both."""

from __future__ import annotations

from collections import Counter

import pytest

from kg.normalise import deployment_kind

RD, NA, DF, ND = "real-data", "not-applicable", "depth-floor-reached", "no-data"


@pytest.mark.parametrize(
    ("text", "status", "kind"),
    [
        ("Managed-only", RD, "hosted"),
        ("SaaS", RD, "hosted"),
        ("Cloud", RD, "hosted"),
        ("Cloud-managed", RD, "hosted"),
        ("Cloud (terminal runs locally; API in cloud)", RD, "hosted"),
        ("Managed-only via AWS Bedrock; no self-hosting (weights closed)", RD, "hosted"),
        ("Managed-only (browser extension + cloud)", RD, "hosted"),
        ("cloud — Supermemory managed API; no self-host option", RD, "hosted"),
        ("On-prem", RD, "self-hosted"),
        ("local", RD, "self-hosted"),
        ("Self-host (pip install aider-chat)", RD, "self-hosted"),
        ("Self-hosted (private cloud or on-premises); Enterprise managed forthcoming", RD, "self-hosted"),
        ("Self-hosted only (PostgreSQL extension; Azure Database for PostgreSQL ships it managed)", RD, "self-hosted"),
        ("OSS self-hosted (all major clouds); DataStax cloud deprecated; IBM acquisition path unclear", RD,
         "self-hosted"),
        ("Self-host CLI; API calls to OpenAI cloud", RD, "self-hosted"),
        ("local — SQLite + FTS5; zero cloud dependency; no API keys required", RD, "self-hosted"),
        ("Both", RD, "both"),
        ("Both (OSS self-hosted; Hugging Face Inference Endpoints / Enterprise Hub managed)", RD, "both"),
        ("Hybrid", RD, "both"),
        ("Cloud inference + on-robot deployment (websocket streaming)", RD, "both"),
        ("Managed cloud (GCP); on-prem option via open-source Gemma 4", RD, "both"),
        ("cloud (Zep managed) or self-hosted via Graphiti OSS + Neo4j/local graph DB", RD, "both"),
        ("Direct customer pilot", RD, None),
        ("Web + iOS + Android", RD, None),
        ("Trusted-tester via partners; Vertex AI / Cloud planned", RD, None),
        ("not applicable — not a deployable product", NA, None),
        ("searched not found", DF, None),
        ("", ND, None),
    ],
)
def test_deployment_kind(text: str, status: str, kind: str | None) -> None:
    assert deployment_kind(text, status) == kind


def test_deployment_on_site_data(site_cells) -> None:
    kinds = [(v, deployment_kind(v, s)) for v, s in site_cells("deployment")]
    for value, kind in kinds:
        if value.startswith("Managed-only") and "self-hosted" not in value:
            assert kind == "hosted", value
        if value.startswith("Both"):
            assert kind == "both", value
        if value.startswith(("not applicable", "searched not found")):
            assert kind is None
    assert Counter(kind for _, kind in kinds) == {None: 567, "hosted": 156, "both": 132, "self-hosted": 57}
