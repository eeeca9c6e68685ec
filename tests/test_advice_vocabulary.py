"""What a project asks for (kg.advice.vocabulary): the catalog's synonym table read longest first,
each word used once, unmatched words reported; the structured form's mapping; unknown tags."""

from __future__ import annotations

import pytest

from kg.advice.vocabulary import (USE_CASE_TAGS, Constraints, StructuredForm, check_tag, form_constraints,
                                  parse_text)
from kg.errors import UsageError


def test_the_issue_s_example_reads_two_tags_and_leaves_no_word():
    parsed = parse_text("offline multi agent airgap")
    # "multi agent" (2 words) is matched before the one-word phrases; offline and airgap both mean offline-capable
    assert parsed.constraints == Constraints(tags=("multi-agent-coordination", "offline-capable"))
    assert parsed.matched == ["multi agent", "offline", "airgap"]
    assert parsed.unmatched == []


def test_the_longest_phrase_wins_and_a_word_is_used_once():
    parsed = parse_text("Long-running session, long_running chat memory")
    # "long running session" (3 words) before "long running" (2) before "chat memory"
    assert parsed.matched == ["long running session", "long running", "chat memory"]
    assert parsed.constraints.tags == ("long-running-session", "memory-augmented-chat")


def test_unmatched_words_leave_out_the_stop_words_and_keep_the_rest():
    parsed = parse_text("We need a realtime codegen system for Acme's on-prem cluster")
    assert parsed.constraints.tags == ("code-generation-focused", "latency-sensitive", "offline-capable")
    assert parsed.unmatched == ["acme", "s", "cluster"]  # "we", "need", "a", "system", "for" are stop words


def test_every_tag_is_found_by_its_own_name():
    for tag in USE_CASE_TAGS:
        assert parse_text(tag).constraints.tags == (tag,)
        assert parse_text(tag.upper().replace("-", "_")).constraints.tags == (tag,)


def test_accents_and_signs_do_not_hide_a_phrase():
    assert parse_text("Réal-time, AIR-GAPPED!").constraints.tags == ("latency-sensitive", "offline-capable")


def test_the_structured_form_maps_as_the_catalog_maps_it():
    full = StructuredForm(shape="multi-agent", scale="production", latency_budget_ms=800, persistence="long-term",
                          deployment="offline", cost_ceiling_usd_per_mtok=5)
    assert form_constraints(full) == Constraints(
        tags=("latency-sensitive", "long-running-session", "multi-agent-coordination", "offline-capable"),
        cost_max=5.0, band_min="competent")
    # 1000 ms is still latency-sensitive, 1001 not; large-scale asks for frontier; a pipeline summarises
    assert form_constraints(StructuredForm(latency_budget_ms=1000)).tags == ("latency-sensitive",)
    assert form_constraints(StructuredForm(latency_budget_ms=1001)).tags == ()
    assert form_constraints(StructuredForm(scale="large-scale")).band_min == "frontier"
    assert form_constraints(StructuredForm(scale="prototype")).band_min is None
    assert form_constraints(StructuredForm(shape="pipeline", persistence="session", deployment="self-hosted")) == \
        Constraints(tags=("analytical-summarization",))


@pytest.mark.parametrize("field, value", [("shape", "swarm"), ("scale", "huge"), ("deployment", "edge"),
                                          ("persistence", "forever"), ("latency_budget_ms", -1),
                                          ("cost_ceiling_usd_per_mtok", float("nan"))])
def test_a_bad_form_value_is_a_usage_error(field, value):
    with pytest.raises(UsageError, match=field):
        StructuredForm(**{field: value})


def test_an_unknown_tag_is_a_usage_error_with_the_closest():
    assert check_tag(" Offline-Capable ") == "offline-capable"
    with pytest.raises(UsageError, match="did you mean latency-sensitive"):
        check_tag("latency-sensitiv")
    with pytest.raises(UsageError, match="the tags are: scoped-agentic"):
        check_tag("blockchain")
