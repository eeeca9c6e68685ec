"""recommend and between (kg.advice.recommend) on the full-shape catalog, against answers worked out
here from its JSON cells: tags, anti-tags, costs, capability scores, provenance and sections read
from the records, the arithmetic written out. Also the errors (an unknown id, tag or category); their
exit codes on the command line, with the other faces, are tests/test_advice_faces.py's."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from kg.advice import StructuredForm, between, recommend
from kg.advice.profiles import read_profiles
from kg.advice.scoring import score
from kg.advice.vocabulary import Constraints
from kg.errors import NotFound, UsageError

TODAY = dt.date(2026, 7, 1)
HARNESS_WORDS = ("harness", "framework", "orchestration", "agent ides", "sandbox", "computer-use", "voice agent")


# -- the JSON read here, independently of kg.advice ---------------------------------------------


def category(record: dict) -> str | None:
    names = [s["section"].lower() for s in record["sections"]]
    if any("foundation model" in n for n in names):
        return "model"
    if any("memory" in n for n in names):
        return "memory"
    return "harness" if any(w in n for n in names for w in HARNESS_WORDS) else None


def value(record: dict, slug: str) -> str | None:
    text = (record["cells"].get(slug) or {}).get("value") or ""
    return None if not text.strip() or text.strip().lower().startswith(("not applicable", "n/a")) else text


def tags(record: dict, slug: str) -> list[str]:
    return [t.strip().lower() for t in (value(record, slug) or "").split(",") if t.strip()]


def llm_unverified(record: dict, slug: str) -> bool:
    found = (record.get("_provenance") or {}).get(slug) or {}
    return found.get("source") == "llm" and found.get("verified") is False


def number(record: dict, slug: str) -> float | None:
    """A researched cell's number: "0.40", "87", "$3.00 / MTok" (the shapes in the file)."""
    cell = record["cells"][slug]
    found = re.fullmatch(r"\$?(\d+(?:\.\d+)?)(?: / MTok)?", (cell["value"] or "").strip())
    return float(found.group(1)) if found and cell["status"] in ("real-data", "estimate") else None


def band(record: dict) -> str | None:
    word = (value(record, "capability-band") or "").strip().lower()
    return word if word in ("entry", "competent", "frontier") else None


@pytest.fixture(scope="module")
def by_id(full_shape_catalog) -> dict[str, dict]:
    return {r["id"]: r for r in full_shape_catalog["records"]}


def best(scores: dict[str, float], k: int) -> list[tuple[str, float]]:
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:k]


def answered(answer, name: str | None = None) -> list[tuple[str, float]]:
    return [(r["id"], r["score"]) for r in answer.rows if name is None or r["category"] == name]


# -- recommend: free text -----------------------------------------------------------------------


def tag_score(record: dict, asked: list[str]) -> float:
    """The score when only tags are asked: the share of them the record has, less 0.5 a tag among its
    anti-tags; an LLM-unverified tags cell weighs nothing (score 0), unverified anti-tags take nothing off."""
    if llm_unverified(record, "use-case-tags"):
        return 0.0
    share = sum(t in tags(record, "use-case-tags") for t in asked) / len(asked)
    if not llm_unverified(record, "use-case-anti-tags"):
        share -= 0.5 * sum(t in tags(record, "use-case-anti-tags") for t in asked)
    return min(1.0, max(0.0, share))


def test_offline_multi_agent_airgap_ranks_each_category_as_worked_out(full_shape_store, full_shape_catalog):
    answer = recommend(full_shape_store, "offline multi agent airgap", k=5, today=TODAY)
    asked = ["multi-agent-coordination", "offline-capable"]
    assert answer.facts["constraints"]["use_case_tags"] == asked
    assert answer.facts["matched_terms"] == ["multi agent", "offline", "airgap"] and answer.facts["unmatched_terms"] == []
    for name in ("memory", "harness", "model"):
        pool = [r for r in full_shape_catalog["records"] if category(r) == name]
        assert answer.facts["considered"][name] == len(pool)
        assert answered(answer, name) == best({r["id"]: tag_score(r, asked) for r in pool}, 5), name
    assert [r["rank"] for r in answer.rows] == [1, 2, 3, 4, 5] * 3


def test_three_memory_systems_scored_by_hand(full_shape_store, by_id):
    asked = ("multi-agent-coordination", "offline-capable")
    profiles = {p.id: p for p in read_profiles(full_shape_store)}

    def scored(record_id: str):
        return score(profiles[record_id], Constraints(tags=asked), TODAY)

    # augment-tabnine has both tags and neither as an anti-tag: 2/2 = 1
    tabnine = by_id["augment-tabnine--augment-org"]
    assert set(asked) <= set(tags(tabnine, "use-case-tags")) and not set(asked) & set(tags(tabnine, "use-case-anti-tags"))
    assert scored(tabnine["id"]).score == 1.0
    assert scored(tabnine["id"]).rationale == ["matches use-case tags: multi-agent-coordination, offline-capable"]
    # lora has multi-agent-coordination (1/2) and offline-capable among its anti-tags (-0.5): 0.5 - 0.5 = 0
    lora = by_id["lora--gh-batsresearch-lora"]
    assert "multi-agent-coordination" in tags(lora, "use-case-tags") and "offline-capable" in tags(lora, "use-case-anti-tags")
    assert (scored(lora["id"]).score, scored(lora["id"]).caveats[0]) == (0.0, "anti-tag match: offline-capable")
    # omega-einstein has both tags, but an LLM wrote them and nobody verified them: left out, so 0
    omega = by_id["omega-einstein--omega-com"]
    assert set(asked) <= set(tags(omega, "use-case-tags"))
    assert omega["_provenance"]["use-case-tags"]["source"] == "llm" and omega["_provenance"]["use-case-tags"]["verified"] is False
    assert scored(omega["id"]).score == 0.0
    assert "use-case-tags excluded from ranking — LLM-unverified" in scored(omega["id"]).caveats


def test_staleness_is_counted_to_the_given_today(full_shape_store, by_id):
    answer = recommend(full_shape_store, "offline multi agent airgap", categories="memory", k=1, today=TODAY)
    [row] = answer.rows
    checked = by_id[row["id"]]["cells"]["cost-last-verified"]["value"]  # augment-tabnine: 2026-03-02
    age = (TODAY - dt.date.fromisoformat(checked)).days
    assert age > 30 and f"cost data {age}d stale (cost-last-verified {checked})" in row["caveats"]
    later = recommend(full_shape_store, "offline multi agent airgap", categories="memory", k=1,
                      today=dt.date.fromisoformat(checked) + dt.timedelta(days=30))
    assert not any(c.startswith("cost data") for c in later.rows[0]["caveats"])  # 30 days is not stale yet
    assert recommend(full_shape_store, "chatbot", k=1).facts["today"] == dt.date.today().isoformat()


# -- recommend: the structured form ---------------------------------------------------------------

FORM = StructuredForm(shape="multi-agent", scale="production", latency_budget_ms=800, persistence="long-term",
                      deployment="offline", cost_ceiling_usd_per_mtok=5)
FORM_TAGS = ["latency-sensitive", "long-running-session", "multi-agent-coordination", "offline-capable"]


def form_score(record: dict) -> float:
    """Each asked constraint weighs 1 where it can be judged: the tags (share less 0.5 an anti-tag),
    the input cost at most $5 (when known), the band at least competent (when known); unverified
    cells weigh nothing; the sum over the weight, clamped; nothing judged: 0."""
    base, weight = 0.0, 0
    if not llm_unverified(record, "use-case-tags"):
        base += sum(t in tags(record, "use-case-tags") for t in FORM_TAGS) / 4
        weight += 1
    if not llm_unverified(record, "use-case-anti-tags"):
        base -= 0.5 * sum(t in tags(record, "use-case-anti-tags") for t in FORM_TAGS)
    cost = number(record, "cost-input-usd-per-mtok")
    if cost is not None and not llm_unverified(record, "cost-input-usd-per-mtok"):
        base, weight = base + (cost <= 5), weight + 1
    if band(record) is not None and not llm_unverified(record, "capability-band"):
        base, weight = base + (band(record) in ("competent", "frontier")), weight + 1
    return min(1.0, max(0.0, base / weight)) if weight else 0.0


def test_a_structured_form_ranks_each_category_as_worked_out(full_shape_store, full_shape_catalog):
    answer = recommend(full_shape_store, form=FORM, k=5, today=TODAY)
    assert answer.facts["constraints"] == {"use_case_tags": FORM_TAGS, "cost_max_input_usd_per_mtok": 5.0,
                                           "cost_tier_max": None, "capability_band_min": "competent"}
    for name in ("memory", "harness", "model"):
        pool = [r for r in full_shape_catalog["records"] if category(r) == name]
        assert answered(answer, name) == best({r["id"]: form_score(r) for r in pool}, 5), name


def test_one_model_scored_by_hand_on_the_form(full_shape_store, by_id):
    reka = by_id["reka-yi-family--cloud-reka-com"]
    # tags: multi-agent-coordination is 1 of the 4 asked -> 1/4; its anti-tags are LLM-unverified: nothing off
    assert [t for t in FORM_TAGS if t in tags(reka, "use-case-tags")] == ["multi-agent-coordination"]
    assert llm_unverified(reka, "use-case-anti-tags")
    # cost 0.40 <= 5 -> 1; band: read here, counted when it is one of the catalog's three
    assert reka["cells"]["cost-input-usd-per-mtok"]["value"] == "0.40"
    band_part, band_weight = (band(reka) in ("competent", "frontier"), 1) if band(reka) else (0, 0)
    expected = (1 / 4 + 1 + band_part) / (2 + band_weight)
    answer = recommend(full_shape_store, form=FORM, categories=["model"], k=50, today=TODAY)
    [row] = [r for r in answer.rows if r["id"] == reka["id"]]
    assert row["score"] == pytest.approx(expected)
    assert "cost within budget ($0.4/Mtok ≤ $5/Mtok)" in row["rationale"]
    assert "use-case-anti-tags excluded from ranking — LLM-unverified" in row["caveats"]


def test_the_form_wins_over_the_text_and_a_request_needs_one(full_shape_store):
    both = recommend(full_shape_store, "chatbot", FORM, categories="model", k=1, today=TODAY)
    assert both.facts["read_from"] == "structured form" and any("form wins" in n for n in both.notes)
    with pytest.raises(UsageError, match="needs a project"):
        recommend(full_shape_store, "   ")
    with pytest.raises(UsageError, match="unknown category 'memories'"):
        recommend(full_shape_store, "chatbot", categories="memory,memories")
    with pytest.raises(UsageError, match="k must be"):
        recommend(full_shape_store, "chatbot", k=0)


# -- between ----------------------------------------------------------------------------------


def placed_scores(records: list[dict], low: dict, high: dict, use_case: str | None = None) -> dict[str, float]:
    """Every record placed between the anchors (verified values only, the anchors' too) and its score:
    the asked tag's share when a use case is asked, else capability / 100 (0.5 when unknown or unverified)."""
    def verified(record: dict, slug: str) -> float | None:
        found = number(record, slug)
        return None if found is None or llm_unverified(record, slug) else found

    spans = {}
    for slug in ("cost-input-usd-per-mtok", "capability-composite-score"):
        ends = [verified(low, slug), verified(high, slug)]
        spans[slug] = None if None in ends else (min(ends), max(ends))
    out = {}
    for r in records:
        values = {slug: verified(r, slug) for slug in spans}
        if r["id"] in (low["id"], high["id"]) or all(v is None for v in values.values()):
            continue
        if all(v is None or span is None or span[0] <= v <= span[1] for (slug, span), v in
               zip(spans.items(), values.values())):
            cap = values["capability-composite-score"]
            out[r["id"]] = tag_score(r, [use_case]) if use_case else (cap / 100 if cap is not None else 0.5)
    return out


def test_between_two_foundation_models(full_shape_store, full_shape_catalog, by_id):
    openai, mistral = by_id["openai-gpt-family-gpt-5-gpt-4o-o3-o4--openai-com"], by_id["mistral-large-2-mixtral-family--mistral-ai"]
    assert category(openai) == category(mistral) == "model"
    # the ranges: cost 0.10 (mistral) to 3.00 (openai), capability 77 (mistral) to 96 (openai); all four human-verified
    answer = between(full_shape_store, mistral["id"], openai["id"], k=10, today=TODAY)
    assert answer.facts["cost_range"] == [0.10, 3.00] and answer.facts["capability_range"] == [77.0, 96.0]
    expected = placed_scores(full_shape_catalog["records"], mistral, openai)
    assert answer.facts["placed"] == len(expected)
    assert [(r["id"], r["score"]) for r in answer.rows] == best(expected, 10)
    for row in answer.rows:
        assert row["capability_score"] is None or 77 <= row["capability_score"] <= 96
        assert row["cost_usd_per_mtok"] is None or 0.10 <= row["cost_usd_per_mtok"] <= 3.00 or \
            "cost-input-usd-per-mtok excluded from placement — LLM-unverified" in row["caveats"]
    # pickle-robotics: capability 96 (verified) places it; its cost 15.00 is an LLM's, unverified, and places nothing
    pickle = by_id["pickle-robotics--microsoft-pickle-com"]
    assert llm_unverified(pickle, "cost-input-usd-per-mtok") and number(pickle, "capability-composite-score") == 96
    assert ("pickle-robotics--microsoft-pickle-com", 0.96) in [(r["id"], r["score"]) for r in answer.rows]
    # the anchors' order does not matter
    assert between(full_shape_store, openai["id"], mistral["id"], k=10, today=TODAY).rows == answer.rows


def test_an_unverified_anchor_cell_sets_no_range(full_shape_store, full_shape_catalog, by_id):
    grok, cleargraph = by_id["amazon-grok-4--amazon-com"], by_id["cleargraph--cleargraph-tv"]
    # grok's cost (0.25) is an LLM's, unverified: no cost range (the catalog's code ranged 0.25-15.00 all the same)
    assert grok["cells"]["cost-input-usd-per-mtok"]["value"] == "0.25" and llm_unverified(grok, "cost-input-usd-per-mtok")
    answer = between(full_shape_store, grok["id"], cleargraph["id"], k=200, today=TODAY)
    assert answer.facts["cost_range"] is None and answer.facts["capability_range"] == [62.0, 65.0]
    assert any("amazon-grok-4--amazon-com's cost-input-usd-per-mtok (0.25) is LLM-unverified" in n for n in answer.notes)
    assert [(r["id"], r["score"]) for r in answer.rows] == best(placed_scores(full_shape_catalog["records"], grok,
                                                                             cleargraph), 200)
    assert all(62 <= r["capability_score"] <= 65 for r in answer.rows if r["capability_score"] is not None
               and "capability-composite-score excluded from placement — LLM-unverified" not in r["caveats"])
    # a placed candidate may cost anything now: the cost places no one
    assert max(r["cost_usd_per_mtok"] or 0 for r in answer.rows) > 15


def test_between_with_a_use_case(full_shape_store, full_shape_catalog, by_id):
    low, high = by_id["meta-phi-4-family--meta-com"], by_id["microsoft-edge--microsoft-com"]
    answer = between(full_shape_store, low["id"], high["id"], use_case="offline-capable", k=8, today=TODAY)
    assert answer.facts["use_case"] == "offline-capable"
    expected = placed_scores(full_shape_catalog["records"], low, high, "offline-capable")
    assert [(r["id"], r["score"]) for r in answer.rows] == best(expected, 8)
    assert answer.rows[0]["score"] == 1.0 and "matches use-case tag: offline-capable" in answer.rows[0]["rationale"]


def test_between_errors(full_shape_store):
    with pytest.raises(NotFound, match="did you mean") as found:
        between(full_shape_store, "openai-gpt-family--openai-com", "mistral-large-2-mixtral-family--mistral-ai")
    assert "openai-gpt-family-gpt-5-gpt-4o-o3-o4--openai-com" in [c[0] for c in found.value.candidates]
    with pytest.raises(UsageError, match="unknown use-case tag 'offline'"):
        between(full_shape_store, "meta-phi-4-family--meta-com", "microsoft-edge--microsoft-com", use_case="offline")
