"""Advice from the catalog's own cells: recommend for a project, between two anchors, citation
prediction and breakouts (the catalog's recommend_for_project, between_models, predict_citations
and list_breakouts), answered from the graph.

* ``vocabulary``: the 8 use-case tags, the synonym table for free text, the structured form;
* ``profiles``: each system's advice cells read (from kg:adviceCells, one literal a system);
* ``scoring``: one candidate scored against constraints, with rationale and caveats;
* ``recommend``: :func:`recommend`; ``between``: :func:`between`;
* ``reading``: the named queries read, and what is made of them kept per store version;
* ``wsb``: the Wang-Song-Barabási model fitted to every paper at once, and its bootstrap;
* ``citations``: :func:`predict_citations` and :func:`breakouts`;
* ``answer``: :class:`Answer`, rows with stable keys plus notes and facts, for every face.

Each tool is one function of the store and typed options; errors are kg's own (an unknown id
or a system that is no paper: NotFound with close matches; an unknown tag, category or bad
option: UsageError).
"""

from __future__ import annotations

from .answer import Answer
from .citations import breakouts, predict_citations
from .between import between
from .recommend import recommend
from .vocabulary import CAPABILITY_BANDS, COST_TIERS, USE_CASE_TAGS, Constraints, StructuredForm, parse_text

__all__ = ["Answer", "CAPABILITY_BANDS", "COST_TIERS", "Constraints", "StructuredForm", "USE_CASE_TAGS", "between",
           "breakouts", "parse_text", "predict_citations", "recommend"]
