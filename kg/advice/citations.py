"""Citation prediction for the catalog's papers: ``predict_citations`` and ``breakouts``.

The catalog's ``predict_citations`` and ``list_breakouts``, on the graph. A paper is a system
whose citation-trajectory cell is real data or whose citations cell reads "N cites M/yr". Its
points are its yearly trajectory (3 points or more over more than one year: age ``year − first
+ 1``, cumulative count), else, from "N cites M/yr" and the year of its created cell, four
points ``(i/4 · L, N · (i/4)^0.9)`` over its life ``L`` = the current year − that year (at least
1), as the catalog synthesises them. Each is fitted to the Wang-Song-Barabási model
(:mod:`kg.advice.wsb`) with ``m`` the median of every "N cites M/yr" count above 0 (30 when
there is none); its interval is the 5th-95th of 100 seeded bootstrap fits.

Phases: ``underfit-data`` (no points), ``flat`` (a trajectory that gained no citation over the
years observed: all zeros, or level; kg's, where the catalog said "growth"), ``pre-growth``
(observed under 2 years), ``growth`` (observed under half the predicted total), ``saturation``.
A paper's breakout probability is the share of its bootstrap totals above 3 times the median
predicted total of the fitted papers. Breakouts are the growth-phase papers with a trajectory,
some citations, and a predicted total over 1.5 times their count, by that ratio (then total,
then id); the answer says how many qualify as well as how many it shows.

The fits of a store version (and year) are made once and kept. numpy and scipy are imported
when a first paper is fitted, not with this module: the tools are declared with the named
queries (:mod:`kg.advice.tools`), which every command imports.
"""

from __future__ import annotations

import datetime as _dt
import difflib
import json
import statistics
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import normalise
from ..errors import NotFound, safe_text
from ..lookup import Indexes
from .answer import Answer, count, day
from .reading import Kept, literals

if TYPE_CHECKING:
    import numpy as np

FIELD_DEFAULT = 30.0  # m when no paper reads "N cites M/yr" (the catalog's)
BREAKOUT_TIMES = 3.0  # a breakout's total is over this many times the median total
AHEAD_TIMES = 1.5  # a breakout's predicted total is over this many times its count
DEFAULT_LIMIT, MOST_LIMIT = 15, 200
PREDICT_COLUMNS = ["id", "name", "section", "tier", "published_year", "years_observed", "observed_citations",
                   "observed_influential", "lambda", "mu", "sigma", "asymptote", "asymptote_low", "asymptote_high",
                   "predicted_at_10y", "fit_r2", "phase", "breakout_probability", "source", "source_kind"]
BREAKOUT_COLUMNS = ["rank", "id", "name", "published_year", "years_observed", "observed_citations", "asymptote",
                    "ratio", "asymptote_low", "asymptote_high", "breakout_probability", "phase"]


@dataclass(frozen=True)
class Series:
    """A paper's points: ages in years and cumulative counts, and where they came from."""

    ages: tuple[float, ...]
    counts: tuple[float, ...]
    published: int
    observed: float
    influential: float
    kind: str  # "trajectory" or "synthesised"
    source: str


@dataclass(frozen=True)
class Paper:
    id: str
    name: str
    tier: int | None
    section: str | None
    series: Series | None


@dataclass(frozen=True)
class Fit:
    paper: Paper
    params: tuple[float, float, float]  # λ, μ, σ
    asymptote: float
    r2: float
    phase: str


@dataclass
class Fitted:
    """Every paper of a store version fitted, with the field's constant and the breakout line."""

    m: float
    papers: dict[str, Paper]
    fits: dict[str, Fit]
    threshold: float | None


def _cell(cells: dict[str, Any], slug: str) -> tuple[str | None, str | None]:
    found = cells.get(slug)
    if not isinstance(found, list) or not found:
        return None, None
    return found[0], (found[1] if len(found) > 1 else None)


def series_of(cells: dict[str, Any], year: int) -> Series | None:
    """A paper's points from its cells (the trajectory first), in the year ``year``; None when it has none."""
    points = normalise.citation_trajectory(_cell(cells, "citation-trajectory")[0])
    if len(points) >= 3 and points[-1].year > points[0].year:
        first, last = points[0].year, points[-1]
        return Series(tuple(float(p.year - first + 1) for p in points), tuple(p.cum for p in points), first,
                      last.cum, last.infl, "trajectory",
                      f"trajectory: {last.cum:g} cites over {last.year - first + 1} years ({first}-{last.year})")
    counted = normalise.citation_counts(_cell(cells, "citations")[0])
    created = normalise.publication_year(_cell(cells, "created")[0])
    if counted is None or counted[0] <= 0 or created is None:
        return None
    life = max(1, year - created)
    fractions = [i / 4 for i in range(1, 5)]
    return Series(tuple(f * life for f in fractions), tuple(counted[0] * f ** 0.9 for f in fractions), created,
                  counted[0], 0.0, "synthesised",
                  f"citations cell: {counted[0]:g} cites, {counted[1]:g}/yr, created {created} "
                  f"(four points over {life} year{'s' if life != 1 else ''}, synthesised)")


def is_paper(cells: dict[str, Any]) -> bool:
    """The catalog's test: a real-data citation-trajectory cell, or "N cites M/yr" in the citations cell."""
    return _cell(cells, "citation-trajectory")[1] == "real-data" or \
        normalise.citation_counts(_cell(cells, "citations")[0]) is not None


def field_constant(rows: list[dict[str, Any]]) -> float:
    """``m``: the median "N cites M/yr" count above 0 over every system that reads one."""
    totals = [c[0] for r in rows if (c := normalise.citation_counts(_cell(r["cells"], "citations")[0])) and c[0] > 0]
    return float(statistics.median(totals)) if totals else FIELD_DEFAULT


def phase_of(series: Series, total: float) -> str:
    """growth, saturation, pre-growth, flat or underfit-data (see the module's text)."""
    if series.kind == "trajectory" and series.counts[-1] <= series.counts[0]:
        return "flat"
    if series.ages[-1] < 2:
        return "pre-growth"
    if not total > 0:
        return "underfit-data"
    return "growth" if series.observed < 0.5 * total else "saturation"


def _padded(papers: list[Paper]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ages, counts and weights of every paper's points, one row a paper, padded with weight 0."""
    import numpy as np

    width = max(len(p.series.ages) for p in papers if p.series)
    t, y, w = np.ones((len(papers), width)), np.zeros((len(papers), width)), np.zeros((len(papers), width))
    for i, p in enumerate(papers):
        if p.series:
            n = len(p.series.ages)
            t[i, :n], y[i, :n], w[i, :n] = p.series.ages, p.series.counts, 1.0
    return t, y, w


def fit_all(rows: list[dict[str, Any]], year: int) -> Fitted:
    """Every paper among ``rows`` (kg:citationCells objects) fitted, in the year ``year``."""
    import numpy as np

    from . import wsb

    m = field_constant(rows)
    papers = {r["id"]: Paper(r["id"], r.get("name") or r["id"], r.get("tier"), r.get("section"),
                             series_of(r["cells"], year)) for r in rows if is_paper(r["cells"])}
    with_points = [p for p in papers.values() if p.series]
    fits: dict[str, Fit] = {}
    if with_points:
        t, y, w = _padded(with_points)
        params = wsb.fit(t, y, w, m)
        ultimate, r2 = wsb.asymptote(m, params[:, 0]), wsb.r_squared(t, y, w, m, params)
        for i, p in enumerate(with_points):
            assert p.series is not None
            fits[p.id] = Fit(p, (float(params[i, 0]), float(params[i, 1]), float(params[i, 2])), float(ultimate[i]),
                             float(r2[i]), phase_of(p.series, float(ultimate[i])))
    totals = [f.asymptote for f in fits.values() if f.phase != "underfit-data" and np.isfinite(f.asymptote)]
    threshold = BREAKOUT_TIMES * float(statistics.median(totals)) if totals else None
    return Fitted(m, papers, fits, threshold)


_KEPT: Kept[Fitted] = Kept()


def fitted(store: Any, year: int) -> Fitted:
    """The papers of the store version ``store`` reads, fitted in the year ``year`` (kept for the version)."""
    return _KEPT.get(store, (year,), lambda: fit_all([json.loads(text) for text in
                                                      literals(store, "select-citation-cells")], year))


def _spreads(f: Fitted, fits: list[Fit]) -> list[tuple[float, float, float]]:
    """For each fit: the 90% interval of its total and its breakout probability (its seeded bootstrap)."""
    import numpy as np

    from . import wsb

    samples = wsb.bootstrap([(x.paper.id, np.array(x.paper.series.ages), np.array(x.paper.series.counts),
                              np.array(x.params)) for x in fits if x.paper.series is not None], f.m)
    out = []
    for x, drawn in zip(fits, samples):
        above = float(np.mean(drawn > f.threshold)) if f.threshold is not None and x.phase != "underfit-data" else 0.0
        out.append((*wsb.interval(drawn), above))
    return out


def _not_a_paper(store: Any, f: Fitted, system: str) -> NotFound:
    """NotFound with close matches for an unknown id; else NotFound for a system that is no paper."""
    index = Indexes.of(store).systems()
    index.check_id(system)
    close = difflib.get_close_matches(system, sorted(f.papers), n=5, cutoff=0.5)
    hint = f"; papers with close ids: {', '.join(close)}" if close else ""
    return NotFound(f"{safe_text(system, 120)} ({safe_text(index.names.get(system, system), 60)}) is not a paper: its "
                    "citation-trajectory cell is no real-data trajectory and its citations cell reads no "
                    f"'N cites M/yr'{hint}", [(p, f.papers[p].name) for p in close])


def predict_citations(store: Any, system: str, *, today: "_dt.date | str | None" = None) -> Answer:
    """The fitted citation model of one paper (``system``: its id): one row (see PREDICT_COLUMNS).
    An unknown id, or a system that is no paper, is NotFound with close matches."""
    import numpy as np

    from . import wsb

    when = day(today)
    f = fitted(store, when.year)
    if system not in f.papers:
        raise _not_a_paper(store, f, system)
    paper, fit = f.papers[system], f.fits.get(system)
    row: dict[str, Any] = {c: None for c in PREDICT_COLUMNS}
    row.update(id=paper.id, name=paper.name, section=paper.section, tier=paper.tier, phase="underfit-data",
               breakout_probability=0.0, source="no parseable citation signal", source_kind="none")
    notes = [f"field constant m = {f.m:g} (the median 'N cites M/yr' count); current year {when.year}"]
    if fit is not None and paper.series is not None:
        s = paper.series
        [(low, high, above)] = _spreads(f, [fit])
        lam, mu, sigma = fit.params
        row.update(published_year=s.published, years_observed=s.ages[-1], observed_citations=s.observed,
                   observed_influential=s.influential, source=s.source, source_kind=s.kind, phase=fit.phase,
                   asymptote=fit.asymptote, asymptote_low=low, asymptote_high=high, fit_r2=fit.r2,
                   breakout_probability=above, **{"lambda": lam, "mu": mu, "sigma": sigma},
                   predicted_at_10y=float(wsb.curve(np.array([[10.0]]), f.m, np.array([fit.params]))[0, 0]))
        if f.threshold is not None:
            notes.append(f"breakout line: {f.threshold:g} citations (3 x the median predicted total of "
                         f"{sum(x.phase != 'underfit-data' for x in f.fits.values())} fitted papers)")
    else:
        notes.append("no yearly trajectory of 3 points or more and no 'N cites M/yr' with a created year: no fit")
    facts = {"field_constant": f.m, "breakout_threshold": f.threshold, "papers": len(f.papers),
             "fitted": len(f.fits), "year": when.year}
    return Answer(PREDICT_COLUMNS, [row], notes, facts)


def breakouts(store: Any, *, limit: int = DEFAULT_LIMIT, today: "_dt.date | str | None" = None) -> Answer:
    """The growth-phase papers furthest below their predicted total, ``limit`` of them (see
    BREAKOUT_COLUMNS); ``facts`` says how many qualify and how many are shown."""
    import numpy as np

    limit, when = count(limit, "limit", 1, MOST_LIMIT), day(today)
    f = fitted(store, when.year)
    qualify = [x for x in f.fits.values() if x.phase == "growth" and x.paper.series is not None
               and x.paper.series.kind == "trajectory" and np.isfinite(x.asymptote)
               and x.paper.series.observed > 0 and x.asymptote > AHEAD_TIMES * x.paper.series.observed]

    def ratio(x: Fit) -> float:
        return x.asymptote / max(1.0, x.paper.series.observed if x.paper.series else 1.0)

    qualify.sort(key=lambda x: (-ratio(x), -x.asymptote, x.paper.id))
    rows = []
    shown = qualify[:limit]
    for rank, (x, (low, high, above)) in enumerate(zip(shown, _spreads(f, shown)), 1):
        assert x.paper.series is not None
        rows.append({"rank": rank, "id": x.paper.id, "name": x.paper.name, "published_year": x.paper.series.published,
                     "years_observed": x.paper.series.ages[-1], "observed_citations": x.paper.series.observed,
                     "asymptote": x.asymptote, "ratio": ratio(x), "asymptote_low": low, "asymptote_high": high,
                     "breakout_probability": above, "phase": x.phase})
    # how many are shown is the rows' count, which a face that pages shows as its own
    notes = [f"{len(qualify)} paper(s) qualify (growth phase, a trajectory, predicted total over "
             f"{AHEAD_TIMES:g} x the count)"]
    facts = {"qualifying": len(qualify), "shown": len(rows), "limit": limit, "papers": len(f.papers),
             "fitted": len(f.fits), "field_constant": f.m, "breakout_threshold": f.threshold, "year": when.year}
    return Answer(BREAKOUT_COLUMNS, rows, notes, facts)
