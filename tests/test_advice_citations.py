"""predict-citations and breakouts (kg.advice.citations, kg.advice.wsb) on the full-shape catalog:
the points, counts, years and field constant worked out here from the JSON cells; the fit checked
against the model's own arithmetic (the total is m (e^λ − 1); no fit is worse than the catalog's
grid); the phases the catalog got wrong (an all-zero trajectory) and the counts it misread."""

from __future__ import annotations

import datetime as dt
import json
import math
import re
import statistics

import numpy as np
import pytest
from scipy.special import ndtr

from kg.advice import breakouts, predict_citations
from kg.advice import wsb
from kg.errors import NotFound

TODAY = dt.date(2026, 7, 1)


@pytest.fixture(scope="module")
def by_id(full_shape_catalog) -> dict[str, dict]:
    return {r["id"]: r for r in full_shape_catalog["records"]}


def cites(text: str) -> tuple[float, float] | None:
    """ "N cites M/yr" read here: the two numbers before and after "cite(s)", commas dropped, k = 1000."""
    found = re.search(r"([\d.,]+)(k?)\s*cites?\b[^\d]*([\d.,]+)(k?)\s*/\s*yr", text or "")
    if not found:
        return None
    return tuple(float(n.replace(",", "")) * (1000 if k else 1) for n, k in (found.group(1, 2), found.group(3, 4)))


@pytest.fixture(scope="module")
def m(full_shape_catalog) -> float:
    """The field constant: the median of the "N cites M/yr" counts above 0, over every record."""
    totals = [c[0] for r in full_shape_catalog["records"] if (c := cites(r["cells"]["citations"]["value"])) and c[0] > 0]
    assert len(totals) > 70
    return statistics.median(totals)


def model(t: float, m: float, lam: float, mu: float, sigma: float) -> float:
    return m * (math.exp(lam * float(ndtr((math.log(t) - mu) / sigma))) - 1)


def test_a_paper_with_a_yearly_trajectory(full_shape_store, by_id, m):
    record = by_id["adaptive-rag--arxiv-2304-20312"]
    points = json.loads(record["cells"]["citation-trajectory"]["value"])
    first, last = points[0], points[-1]  # 2022 (25 cites) ... 2026 (750 cites, 29 influential), in order
    answer = predict_citations(full_shape_store, record["id"], today=TODAY)
    [row] = answer.rows
    assert row["published_year"] == first["year"] == 2022
    assert row["years_observed"] == last["year"] - first["year"] + 1 == 5
    assert (row["observed_citations"], row["observed_influential"]) == (last["cum"], last["infl"]) == (750, 29)
    assert row["source_kind"] == "trajectory" and answer.facts["field_constant"] == m
    assert row["asymptote"] == pytest.approx(m * (math.exp(row["lambda"]) - 1))  # the ultimate count m (e^λ − 1)
    assert row["asymptote_low"] <= row["asymptote_high"]
    assert row["predicted_at_10y"] == pytest.approx(model(10, m, row["lambda"], row["mu"], row["sigma"]))
    # the fit follows the points closely, and the phase follows from them: 750 < half the predicted total
    fitted = [model(p["year"] - first["year"] + 1, m, row["lambda"], row["mu"], row["sigma"]) for p in points]
    assert all(abs(f - p["cum"]) < 0.05 * 750 for f, p in zip(fitted, points)) and row["fit_r2"] > 0.99
    assert row["phase"] == ("growth" if 750 < 0.5 * row["asymptote"] else "saturation")
    assert 0 <= row["breakout_probability"] <= 1
    assert predict_citations(full_shape_store, record["id"], today=TODAY).rows == [row]  # seeded: the same again


def test_no_fit_is_worse_than_the_catalog_s_grid(full_shape_store, by_id, m):
    """The catalog's own 12 x 11 x 10 grid: the refined fit's squared error is at most its best point's."""
    record = by_id["adaptive-rag--arxiv-2304-20312"]
    points = json.loads(record["cells"]["citation-trajectory"]["value"])
    t = [p["year"] - points[0]["year"] + 1 for p in points]
    y = [p["cum"] for p in points]
    grid = [(math.exp(math.log(0.1) + i / 11 * (math.log(7) - math.log(0.1))), -5 + j / 10 * 15,
             math.exp(math.log(0.1) + k / 9 * (math.log(5) - math.log(0.1)))) for i in range(12) for j in range(11)
            for k in range(10)]
    grid_best = min(sum((model(a, m, *g) - b) ** 2 for a, b in zip(t, y)) for g in grid)
    [row] = predict_citations(full_shape_store, record["id"], today=TODAY).rows
    ours = sum((model(a, m, row["lambda"], row["mu"], row["sigma"]) - b) ** 2 for a, b in zip(t, y))
    assert ours <= grid_best


def test_a_paper_with_only_n_cites_a_year(full_shape_store, by_id):
    record = by_id["d-smart-kb--cloud-dsmartkb-com"]
    # "1,677 cites 225/yr" (the catalog's reader took it for 677) and created 2023-06; its trajectory is monthly,
    # which the catalog's tools do not read
    assert record["cells"]["citations"]["value"] == "1,677 cites 225/yr"
    assert record["cells"]["created"]["value"].startswith("2023")
    assert '"ym"' in record["cells"]["citation-trajectory"]["value"]
    [row] = predict_citations(full_shape_store, record["id"], today=TODAY).rows
    assert (row["observed_citations"], row["published_year"], row["source_kind"]) == (1677, 2023, "synthesised")
    assert row["years_observed"] == 2026 - 2023  # four points over the life to the current year, the last at 3
    # the current year is today's: four years later, the life is 7 years
    [later] = predict_citations(full_shape_store, record["id"], today=dt.date(2030, 1, 1)).rows
    assert later["years_observed"] == 2030 - 2023


@pytest.mark.parametrize("record_id, written, total", [
    ("memoryllm-original--arxiv-2304-12342", "32,948 cites 16,385/yr", 32948),  # the catalog's reader: no fit
    ("em-llm-activations--arxiv-2407-22544", "~55 cites · 13 / yr", 55),  # the catalog's reader: no fit
    ("jarvbench--arxiv-2508-20807", "2.0k cites 0.3k/yr (Semantic Scholar)", 2000),
])
def test_every_written_count_gives_a_fit(full_shape_store, by_id, record_id, written, total):
    assert by_id[record_id]["cells"]["citations"]["value"] == written
    [row] = predict_citations(full_shape_store, record_id, today=TODAY).rows
    assert row["observed_citations"] == total and row["source_kind"] == "synthesised"
    created = int(by_id[record_id]["cells"]["created"]["value"][:4])
    life = max(1, TODAY.year - created)  # memoryllm: created 2025-10, one year; the others 2023: three
    assert (row["published_year"], row["years_observed"]) == (created, life)
    assert row["asymptote"] > 0 and row["phase"] in (("pre-growth",) if life < 2 else ("growth", "saturation"))


def test_an_all_zero_trajectory_is_flat_not_growth(full_shape_store, by_id):
    record = by_id["cag-cache-augmented-generation--arxiv-2503-16267"]
    assert [p["cum"] for p in json.loads(record["cells"]["citation-trajectory"]["value"])] == [0, 0, 0]
    [row] = predict_citations(full_shape_store, record["id"], today=TODAY).rows
    assert row["phase"] == "flat" and row["observed_citations"] == 0


def test_a_non_paper_and_an_unknown_id_are_not_found(full_shape_store, by_id):
    model_row = by_id["01agent-yi-family--01agent-com"]  # a foundation model: no trajectory, no "N cites M/yr"
    assert model_row["cells"]["citation-trajectory"]["status"] == "not-applicable"
    assert cites(model_row["cells"]["citations"]["value"]) is None
    with pytest.raises(NotFound, match="is not a paper"):
        predict_citations(full_shape_store, model_row["id"])
    with pytest.raises(NotFound, match="did you mean") as found:
        predict_citations(full_shape_store, "adaptive-rag--arxiv-2304-2031")
    assert "adaptive-rag--arxiv-2304-20312" in [c[0] for c in found.value.candidates]


def yearly_series(record: dict) -> list[tuple[int, float]] | None:
    """The trajectory's valid points (a numeric year 1900-2099, counts not negative), sorted, when there are
    3 or more over more than one year."""
    try:
        items = json.loads(record["cells"]["citation-trajectory"]["value"] or "")
    except ValueError:
        return None
    points = sorted((math.floor(p["year"] + 0.5), p["cum"]) for p in items if isinstance(p, dict)
                    and all(isinstance(p.get(k), (int, float)) and not isinstance(p.get(k), bool) for k in ("year", "cum", "infl"))
                    and 1900 <= p["year"] <= 2099 and p["cum"] >= 0 and p["infl"] >= 0)
    return points if len(points) >= 3 and points[-1][0] > points[0][0] else None


def test_breakouts_say_how_many_qualify(full_shape_store, full_shape_catalog):
    everything = breakouts(full_shape_store, limit=200, today=TODAY)
    qualifying = everything.facts["qualifying"]
    assert everything.facts["shown"] == len(everything.rows) == min(200, qualifying)
    # each qualifying paper is one whose own prediction is growth, from a yearly trajectory, with citations and a
    # total over 1.5 times them; the yearly trajectories are counted here from the JSON
    yearly = {r["id"] for r in full_shape_catalog["records"] if yearly_series(r)}
    assert len(yearly) >= 100
    grown = []
    for record_id in sorted(yearly):
        [row] = predict_citations(full_shape_store, record_id, today=TODAY).rows
        if row["phase"] == "growth" and row["observed_citations"] > 0 and row["asymptote"] > 1.5 * row["observed_citations"]:
            grown.append(record_id)
    assert qualifying == len(grown) and {r["id"] for r in everything.rows} == set(grown)
    ratios = [r["asymptote"] / r["observed_citations"] for r in everything.rows]
    assert ratios == sorted(ratios, reverse=True) and ratios == pytest.approx([r["ratio"] for r in everything.rows])
    five = breakouts(full_shape_store, limit=5, today=TODAY)
    assert (five.facts["qualifying"], five.facts["shown"]) == (qualifying, 5)  # the count is not the rows shown
    assert five.rows == everything.rows[:5]
    assert "cag-cache-augmented-generation--arxiv-2503-16267" not in grown  # all zeros: flat, never a breakout


def test_the_fit_recovers_known_parameters():
    """Points drawn from the model itself, for several papers at once, give back their parameters."""
    m = 100.0
    truth = np.array([[1.5, 1.2, 0.9], [3.0, 2.0, 1.1], [0.8, 0.5, 0.5]])
    t = np.tile(np.arange(1.0, 9.0), (3, 1))
    y = wsb.curve(t, m, truth)
    assert np.allclose(wsb.fit(t, y, np.ones_like(t), m), truth, rtol=1e-3)


def test_the_bootstrap_draws_as_the_catalog_does():
    # FNV-1a of "abc" (32 bits) and the catalog's generator from seed 1: s = 1664525 s + 1013904223 mod 2^32
    assert wsb.seed_of("abc") == 0x1A47E90B
    assert wsb.draws(1, 2).tolist() == [1015568748 / 2 ** 32, 1586005467 / 2 ** 32]
