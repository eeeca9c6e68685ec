"""``kg query recommend|between|predict-citations|breakouts``: the advice tools (kg.advice) from the
command line, one small function each that reads the ``-p NAME=VALUE`` parameters into the
library call. The answer goes to stdout (json: rows, notes and facts; other row formats: the
rows, lists joined by "; "), the notes to stderr."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any, Callable, Mapping

from ..errors import UsageError, safe_text

if TYPE_CHECKING:
    from ..advice import Answer


def _only(tool: str, params: Mapping[str, str], known: tuple[str, ...]) -> None:
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise UsageError(f"kg query {tool}: unknown parameter {', '.join(unknown)}; its parameters: {', '.join(known)}")


def _number(params: Mapping[str, str], name: str) -> float | None:
    if name not in params:
        return None
    try:
        return float(params[name])
    except ValueError:
        raise UsageError(f"parameter {name} must be a number, not {safe_text(params[name], 40)!r}") from None


def _whole(params: Mapping[str, str], name: str, default: int) -> int:
    try:
        return int(params[name]) if name in params else default
    except ValueError:
        raise UsageError(f"parameter {name} must be a whole number, not {safe_text(params[name], 40)!r}") from None


def recommend(store: Any, params: Mapping[str, str]) -> "Answer":
    from ..advice import StructuredForm, recommend as answer

    form_names = ("shape", "scale", "latency_ms", "persistence", "deployment", "cost_max")
    _only("recommend", params, ("text", *form_names, "categories", "k", "today", "stale_days"))
    form = StructuredForm(shape=params.get("shape"), scale=params.get("scale"),
                          latency_budget_ms=_number(params, "latency_ms"), persistence=params.get("persistence"),
                          deployment=params.get("deployment"), cost_ceiling_usd_per_mtok=_number(params, "cost_max"))
    return answer(store, params.get("text"), form, categories=params.get("categories"), k=_whole(params, "k", 5),
                  today=params.get("today"), stale_days=_whole(params, "stale_days", 30))


def between(store: Any, params: Mapping[str, str]) -> "Answer":
    from ..advice import between as answer

    _only("between", params, ("low", "high", "use_case", "k", "today", "stale_days"))
    if "low" not in params or "high" not in params:
        raise UsageError("kg query between needs -p low=ID -p high=ID (the two anchor systems)")
    return answer(store, params["low"], params["high"], use_case=params.get("use_case"), k=_whole(params, "k", 5),
                  today=params.get("today"), stale_days=_whole(params, "stale_days", 30))


def predict_citations(store: Any, params: Mapping[str, str]) -> "Answer":
    from ..advice import predict_citations as answer

    _only("predict-citations", params, ("system", "today"))
    if "system" not in params:
        raise UsageError("kg query predict-citations needs -p system=ID (a paper's id)")
    return answer(store, params["system"], today=params.get("today"))


def breakouts(store: Any, params: Mapping[str, str]) -> "Answer":
    from ..advice import breakouts as answer

    _only("breakouts", params, ("limit", "today"))
    return answer(store, limit=_whole(params, "limit", 15), today=params.get("today"))


TOOLS: dict[str, Callable[[Any, Mapping[str, str]], "Answer"]] = {
    "recommend": recommend, "between": between, "predict-citations": predict_citations, "breakouts": breakouts}


def write(answer: "Answer", fmt: str | None, note: Callable[[str], None], tool: str) -> None:
    """The answer to stdout in ``fmt`` (default table), its notes to ``note``."""
    from .. import output

    fmt = fmt or "table"
    for line in answer.notes:
        note(f"kg query {tool}: {line}")
    if fmt == "json":
        sys.stdout.write(json.dumps(answer.as_json(), indent=1, ensure_ascii=False) + "\n")
        return
    if fmt == "jsonl":
        for row in answer.rows:
            sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")
        return
    flat = [{k: "; ".join(v) if isinstance(v, list) else v for k, v in row.items()} for row in answer.rows]
    output.write_rows(flat, sys.stdout, fmt, answer.columns)
