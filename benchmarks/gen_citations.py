"""The generator's citation cells in the catalog's own formats: yearly trajectories and "N cites M/yr".

``citation-trajectory`` is JSON text, one point a year: ``[{"year": Y, "cum": C, "infl": I}, ...]``
(cumulative citations and influential citations), 3-10 points shaped like the Wang-Song-Barabasi
model (growth, saturation) or flat; a few are odd on purpose, as in the catalog (unsorted years, a
gap, a repeated year, an invalid item, all zeros). ``citations`` is "N cites M/yr" in the written
variants the catalog holds ("1234 cites 56/yr", "1,234 cites 5,678/yr", "1.2k cites 0.3k/yr
(Semantic Scholar)", "~1234 cites · 56 / yr", "1 cite 1/yr"), N and M read from the row's
trajectory where it has one.
"""

from __future__ import annotations

import json
import math

from gen_random import Weighted

LAST_YEAR = 2026  # the catalog's current year (its rows were verified in 2026)
SHAPES = Weighted((("growth", 0.5), ("saturation", 0.3), ("flat", 0.12), ("odd", 0.08)))
ODD_KINDS = ("unsorted", "gap", "repeated-year", "invalid-item", "all-zeros")


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def _wsb_cumulative(age: float, m: float, lam: float, mu: float, sigma: float) -> float:
    """Wang-Song-Barabasi cumulative citations ``age`` years after publication."""
    return m * (math.exp(lam * _phi((math.log(age) - mu) / sigma)) - 1.0)


def _points(rng, shape: str) -> list[dict]:
    """Consecutive yearly points of one shape (growth, saturation, flat), cumulative and non-decreasing."""
    rand = rng.random
    n = 3 + int(rand() * 8)
    end = LAST_YEAR - (0 if rand() < 0.7 else int(rand() * 12))
    start = end - n + 1
    m = 10 ** (0.8 + rand() * 2.2)
    if shape == "growth":
        lam, mu, sigma = 1.5 + rand() * 2.5, math.log(n) + 0.3 + rand() * 1.2, 0.6 + rand() * 0.6
    else:  # saturation: the peak early in the window
        lam, mu, sigma = 1.0 + rand() * 2.0, math.log(1 + rand() * n / 3), 0.3 + rand() * 0.4
    share = 0.04 + rand() * 0.16  # influential citations, a share of all
    points, cum, infl = [], 0, 0
    for i in range(n):
        if shape == "flat":
            cum += int(rand() * 3)
        else:
            cum = max(cum, int(_wsb_cumulative(i + 1, m, lam, mu, sigma) * (0.9 + rand() * 0.2)))
        infl = max(infl, min(cum, int(cum * share)))
        points.append({"year": start + i, "cum": cum, "infl": infl})
    return points


def _odd(rng, points: list[dict]) -> tuple[str, list]:
    """The points made odd in one of the ways the catalog's data is (the kind, the points)."""
    kind = ODD_KINDS[int(rng.random() * len(ODD_KINDS))]
    pts: list = [dict(p) for p in points]
    if kind == "unsorted":
        pts[0], pts[-1] = pts[-1], pts[0]
    elif kind == "gap":
        del pts[len(pts) // 2]
    elif kind == "repeated-year":
        pts.insert(1, {**pts[0], "cum": pts[0]["cum"] + 1})
    elif kind == "invalid-item":
        pts[0] = {**pts[0], "year": str(pts[0]["year"])}
        pts.append({"year": pts[-1]["year"] + 0.4, "cum": pts[-1]["cum"], "infl": pts[-1]["infl"]})
    else:
        pts = [{**p, "cum": 0, "infl": 0} for p in pts]
    return kind, pts


def citation_trajectory(rng) -> tuple[str, list[dict]]:
    """The cell's JSON text and its valid points (empty for an odd trajectory with no clear reading)."""
    shape = SHAPES(rng)
    points = _points(rng, "growth" if shape == "odd" else shape)
    if shape == "odd":
        kind, odd = _odd(rng, points)
        return json.dumps(odd, separators=(",", ":")), points if kind in ("unsorted", "gap") else []
    return json.dumps(points, separators=(",", ":")), points


def citation_cells(rng, paperish: bool) -> dict[str, tuple[str, str]]:
    """slug -> (value, status) of ``citation-trajectory`` (every row) and ``citations`` (paper rows)."""
    rand = rng.random
    if not paperish:
        return {"citation-trajectory": ("not applicable — non-paper row", "not-applicable") if rand() < 0.8
                else ("", "no-data")}
    text, points = citation_trajectory(rng) if rand() < 0.8 else ("", [])
    out = {"citation-trajectory": (text, "real-data") if text else ("", "no-data")}
    out["citations"] = (citations_text(rng, points), "real-data") if rand() < 0.7 else \
        ("searched not found", "depth-floor-reached")
    return out


def _k(value: int) -> str:
    return "%.1fk" % (value / 1000)


def citations_text(rng, points: list[dict]) -> str:
    """ "N cites M/yr" in one of its written variants: N the last cumulative count, M the last year's."""
    rand = rng.random
    if points:
        ordered = sorted(points, key=lambda p: p["year"])
        total = ordered[-1]["cum"]
        per_year = total - ordered[-2]["cum"] if len(ordered) > 1 else total
    else:
        total = int(10 ** (rand() * 4.6))
        per_year = int(total * (0.05 + rand() * 0.4))
    word = "cite" if total == 1 or rand() < 0.04 else "cites"
    r = rand()
    if r < 0.5:
        return "%d %s %d/yr" % (total, word, per_year)
    if r < 0.65:
        return "{:,} {} {:,}/yr".format(total, word, per_year)
    if r < 0.8 and total >= 100:
        return "%s %s %s/yr (Semantic Scholar)" % (_k(total), word, _k(per_year))
    return "~%d %s · %d / yr" % (total, word, per_year)
