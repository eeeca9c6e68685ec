"""The four advice tools as named queries answered in Python: recommend, between, predict-citations, breakouts.

Each is declared here once, by a header as a ``.rq`` file's (title, question, typed parameters,
what it returns, what it costs), and registered in :data:`kg.queries.REGISTRY` (a
:class:`kg.queries.Computed` source) when this module is imported, which the package's front
door (``kg``) does. So every face has them as it has the other named queries: ``kg query NAME``
and ``kg query --list``, :func:`kg.query`, a page with a form on ``kg serve`` and a tool of ``kg
mcp`` with its input and output schemas, their values checked and converted by the plan (an
unknown or ambiguous system resolved with close matches, a value outside its choices refused)
before the tool is asked. Each function below reads the values (text, defaults filled in) into
one call of the library (:func:`kg.advice.recommend`, :func:`~kg.advice.between`,
:func:`~kg.advice.predict_citations`, :func:`~kg.advice.breakouts`), whose rows the plan sends as a
VALUES table and whose notes it says; the facts stay with the library's :class:`~kg.advice.Answer`.

>>> from kg.queries import load
>>> [p.name for p in load("between").params]
['low', 'high', 'use_case', 'k', 'today', 'stale_days']
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from ..queries import REGISTRY, Computed, declare
from .answer import Answer
from .between import COLUMNS as BETWEEN_COLUMNS, DEFAULT_K as BETWEEN_K
from .citations import BREAKOUT_COLUMNS, DEFAULT_LIMIT, MOST_LIMIT, PREDICT_COLUMNS
from .profiles import CATEGORIES
from .recommend import DEFAULT_K, RECOMMEND_COLUMNS
from .scoring import STALE_DAYS
from .vocabulary import DEPLOYMENTS, PERSISTENCES, SCALES, SHAPES, USE_CASE_TAGS, StructuredForm

def _header(*lines: str) -> str:
    """A query's header: each line a comment (``# key: text``), as a ``.rq`` file starts."""
    return "".join(f"# {line}\n" for line in lines)


def _choices(names: Iterable[str]) -> str:
    return "|".join(names)


_TODAY = "param: today (date, optional) the day to count ages to (default: today)"
_STALE = f"param: stale_days (integer, optional, default={STALE_DAYS}) a verification older is a caveat"
_COST = ("cost: reads every system's advice cells (one literal a system, kg:adviceCells), kept while the store's "
         "version is the one read. Cold 0.07 s at 912 full-shape records, 0.8 s at 9,120 on a busy shared machine "
         "(benchmarks/results/advice-9120.md)")
_FITS = ("cost: fits every paper of the catalog at once (their citation cells: one literal a paper), kept for the "
         "store's version and year; then the bootstrap of the papers shown. Cold {cold} at 912 full-shape records, "
         "{large} at 9,120 on a busy shared machine (benchmarks/results/advice-9120.md)")

# The parameters' lines are kept short: every MCP client reads them in tools/list; the returns and cost
# lines, and the guide (docs/guide/advice.md), say the rest.
RECOMMEND = _header(
    "title: Recommend for a project",
    "question: Which memory systems, harnesses and models fit a project, given in words or as a form?",
    'param: text (string, optional) the project in words ("offline multi agent airgap")',
    f"param: shape (string, optional, choices={_choices(SHAPES)}) form: shape",
    f"param: scale (string, optional, choices={_choices(SCALES)}) form: scale",
    "param: latency_ms (decimal, optional) form: latency budget, ms",
    f"param: persistence (string, optional, choices={_choices(PERSISTENCES)}) form: persistence",
    f"param: deployment (string, optional, choices={_choices(DEPLOYMENTS)}) form: deployment",
    "param: cost_max (decimal, optional) form: input cost ceiling, USD per Mtok",
    f"param: categories (string, optional) among {', '.join(CATEGORIES)} (default: all)",
    f"param: k (integer, optional, default={DEFAULT_K}) candidates per category",
    _TODAY, _STALE,
    'returns: category, rank (1 is best), id, name, score (0 to 1), rationale and caveats (lines joined by "; "): '
    "the best k of each category by score, then id. The text is read by the catalog's synonym table for its 8 "
    "use-case tags (the words not used are said in a note); the structured form (shape single-agent, multi-agent, "
    "chat or pipeline; scale production or large-scale asks for a capability band; a latency budget of 1000 ms or "
    "less; long-term persistence; offline deployment; a cost ceiling) wins when both are given. A cell an LLM wrote "
    "and nobody verified is left out of the score (a caveat says so); a verification older than stale_days is a "
    "caveat",
    _COST)

BETWEEN = _header(
    "title: Between two anchors",
    "question: Which systems lie between two anchor systems on input cost and capability score?",
    "param: low (system-name) one anchor: an id or words of its name",
    "param: high (system-name) the other anchor",
    f"param: use_case (string, optional, choices={_choices(USE_CASE_TAGS)}) score by this tag",
    f"param: k (integer, optional, default={BETWEEN_K}) at most this many",
    _TODAY, _STALE,
    "returns: rank, id, name, score (0 to 1), cost_usd_per_mtok, capability_score, rationale and caveats (lines "
    'joined by "; "): the systems whose verified input cost and capability score lie within the anchors\' (each '
    "with at least one of the two; the anchors in either order), scored by the use-case tag when given, else by "
    "capability score / 100; best first, then by id. An anchor's LLM-unverified cell sets no range, a candidate's "
    "places it nowhere (notes and caveats say so)",
    _COST)

PREDICT = _header(
    "title: Citation prediction for a paper",
    "question: How many citations will a paper gather in all, with what interval and phase?",
    "param: system (system-name) the paper: an id or words of its name",
    _TODAY,
    "returns: one row: id, name, section, tier, published_year, years_observed, observed_citations, "
    "observed_influential, lambda, mu, sigma (the Wang-Song-Barabasi fit), asymptote (the predicted total) with "
    "asymptote_low and asymptote_high (its 90% interval from a seeded bootstrap), predicted_at_10y, fit_r2, phase "
    "(growth, saturation, pre-growth, flat, underfit-data), breakout_probability, source and source_kind "
    '(trajectory, or synthesised from "N cites M/yr"). A system whose citation-trajectory is no real-data '
    'trajectory and whose citations cell reads no "N cites M/yr" is not a paper: not found',
    _FITS.format(cold="0.2 s", large="0.65 s"))

BREAKOUTS = _header(
    "title: Citation breakouts",
    "question: Which papers in their growth phase are furthest below their predicted total citations?",
    f"param: limit (limit, optional, default={DEFAULT_LIMIT}) at most this many (at most {MOST_LIMIT})",
    _TODAY,
    "returns: rank, id, name, published_year, years_observed, observed_citations, asymptote (the predicted total), "
    "ratio (asymptote over the count), asymptote_low, asymptote_high, breakout_probability, phase: the growth-phase "
    "papers with a yearly trajectory, some citations and a predicted total over 1.5 times their count, by ratio, "
    "then total, then id. A note says how many qualify, beside the rows shown",
    _FITS.format(cold="0.5 s", large="0.9 s"))


def _decimal(values: Mapping[str, str], name: str) -> float | None:
    return float(values[name]) if name in values else None


def recommend(store: Any, values: Mapping[str, str]) -> Answer:
    """``recommend``: the project read from the text or the form, ranked per category."""
    from .recommend import recommend as answer

    form = StructuredForm(shape=values.get("shape"), scale=values.get("scale"),
                          latency_budget_ms=_decimal(values, "latency_ms"), persistence=values.get("persistence"),
                          deployment=values.get("deployment"), cost_ceiling_usd_per_mtok=_decimal(values, "cost_max"))
    return answer(store, values.get("text"), form, categories=values.get("categories"), k=int(values["k"]),
                  today=values.get("today"), stale_days=int(values["stale_days"]))


def between(store: Any, values: Mapping[str, str]) -> Answer:
    """``between``: the systems between the two anchors."""
    from .between import between as answer

    return answer(store, values["low"], values["high"], use_case=values.get("use_case"), k=int(values["k"]),
                  today=values.get("today"), stale_days=int(values["stale_days"]))


def predict_citations(store: Any, values: Mapping[str, str]) -> Answer:
    """``predict-citations``: one paper's fit."""
    from .citations import predict_citations as answer

    return answer(store, values["system"], today=values.get("today"))


def breakouts(store: Any, values: Mapping[str, str]) -> Answer:
    """``breakouts``: as many as the limit asks (the plan's LIMIT keeps them to it), at most MOST_LIMIT
    worked out; a limit of 0 works out one and shows none."""
    from .citations import breakouts as answer

    asked = int(values["limit"])
    found = answer(store, limit=min(max(asked, 1), MOST_LIMIT), today=values.get("today"))
    if asked > MOST_LIMIT:
        found.notes.append(f"at most {MOST_LIMIT} breakouts are worked out: {asked} were asked for")
    return found


TOOLS = Computed([
    declare("recommend", RECOMMEND, RECOMMEND_COLUMNS, recommend),
    declare("between", BETWEEN, BETWEEN_COLUMNS, between),
    declare("predict-citations", PREDICT, PREDICT_COLUMNS, predict_citations),
    declare("breakouts", BREAKOUTS, BREAKOUT_COLUMNS, breakouts),
])
REGISTRY.add(TOOLS)
