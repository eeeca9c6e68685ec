"""The query worker: what runs inside a worker process, against a read-only store.

A :class:`Worker` reads one version of the store per request: before each request (and
when idle) it checks with one stat whether an ingest made a newer version current, and
moves to it, letting go of the old one (:meth:`Worker.refresh`). It answers each message with
the view its ``op`` names (:func:`kg.serve.routes.renderers`: the route table's views that a
worker renders); its own public API is what those views use: the store version it reads
(``store``, ``iris``, ``graphs``), :meth:`Worker.check` (the guard), :meth:`Worker.query` (a
SPARQL query evaluated and written in the negotiated format, at most ``max_rows`` rows and
``max_bytes`` bytes, else an error: never a silent truncation) and :meth:`Worker.systems`.
:func:`run_update` is the one-off job of an update process. Nothing here knows about
processes or HTTP: a message (a dict) comes in, an answer (a dict, see
:mod:`kg.serve.replies`) goes out.
"""

from __future__ import annotations

import re
from collections import Counter, OrderedDict
from itertools import islice
from typing import Any, Iterable

from pyoxigraph import NamedNode, QueryBoolean, QueryResultsFormat, QuerySolutions, parse_query_results

from ..errors import QueryError, StoreError, safe_text
from ..sparql.guard import CheckedQuery, QueryRefused, check_graphs, check_query, check_update
from ..vocab import PREFIXES, Iris
from .negotiation import GRAPH_OFFERS, SOLUTION_OFFERS
from .rendering import boolean_answer, body_answer, results_bytes, solutions_answer, triples_answer
from .replies import Reply, empty_reply
from .routes import renderers
from .tsv_results import STREAMED, tsv_solutions


def _sparql_prefixes() -> str:
    return "".join(f"PREFIX {name}: {NamedNode(ns)}\n" for name, ns in PREFIXES.items())


def _take(iterator: Iterable, limit: int, what: str) -> list:
    """At most ``limit`` items; one more means the result is too large (never truncated silently)."""
    items = []
    for item in iterator:
        items.append(item)
        if len(items) > limit:
            raise Reply(422, "result-too-large",
                        f"the result has more than {limit} {what} (the server's --max-rows); "
                        f"add LIMIT {limit} or narrow the query", maxRows=limit)
    return items


# functions whose value changes at each evaluation (anywhere in the text, in any case: a
# string that names one only costs the answer its place in memory)
_VOLATILE = re.compile(r"\b(?:NOW|RAND|UUID|STRUUID|BNODE)\s*\(", re.IGNORECASE)

MAX_UNKNOWN_FUNCTIONS = 64  # distinct extension functions pyoxigraph does not know, in one query
_UNKNOWN_FUNCTION = re.compile(r"^The custom function <([^>]*)> is not supported$")


def _unknown_function(err: QueryError) -> str | None:
    """The IRI of the extension function pyoxigraph refused to plan, or None for any other error."""
    found = _UNKNOWN_FUNCTION.match(str(err))
    return found.group(1) if found else None


def _unbound(*args: Any) -> None:
    """An extension function this endpoint does not know: an evaluation error (SPARQL 1.1,
    17.6), so the expression is unbound (a FILTER false), as pyoxigraph takes ``None``."""
    return None


def _total(rest: Iterable, read: int, msg: dict) -> int | None:
    """How many rows the answer has: those read when they were all there were; else, with
    ``count_to``, the rest counted (not kept) up to it; None when not known."""
    cap, most = msg.get("row_cap"), msg.get("count_to")
    if cap is None or read < cap:
        return read
    if not most or read > most:
        return None
    counted = read + sum(1 for _ in islice(rest, most - read + 1))
    return counted if counted <= most else None


def _evaluation_failed(err: QueryError) -> Reply:
    # GraphStore.query raises QueryError for text pyoxigraph cannot parse (the client's
    # fault: 400) and for an evaluation error (500); the cause tells them apart.
    cause = err.__context__
    if isinstance(cause, SyntaxError):
        return Reply(400, "malformed-query", f"malformed SPARQL: {safe_text(cause, 400)}")
    return Reply(500, "query-failed", safe_text(cause or err, 400))


class Worker:
    """Holds a read-only store; answers the messages of the views a worker renders."""

    def __init__(self, settings: dict) -> None:
        from ..queries import use_folders
        from ..store import GraphStore

        use_folders(settings.get("queries") or ())  # the user's named queries, as the server registered them
        self.settings = settings
        # what this worker counted (versions moved to, queries evaluated, queries the guard refused),
        # sent with each answer and summed over the workers in the server (kg.runtime.counts)
        self.counts: Counter[str] = Counter()
        self.iris = Iris(settings["base"])
        self.store = GraphStore.open_existing(settings["store"], read_only=True)
        self.prefixes = _sparql_prefixes()
        self._checked: OrderedDict[str, CheckedQuery | QueryRefused] = OrderedDict()
        self._read_version()
        self.check("SELECT * WHERE { ?s ?p ?o } LIMIT 1")  # warm rdflib's parser

    def _read_version(self) -> None:
        """What the worker keeps of the version it reads: its graphs; the number of systems
        and the guard's answers (which depend on the graphs) are read again when needed."""
        self.graphs = {g.value for g in self.store.named_graphs()}
        self._systems: int | None = None  # counted at the first index request
        self._checked.clear()

    def refresh(self) -> bool:
        """Move to the store's current version if an ingest or update made a newer one
        current (one stat when none did); True if it moved. Called between requests only,
        so a request never straddles two versions."""
        if not self.store.reopen():
            return False
        self._read_version()
        self.counts["version_moves"] += 1
        return True

    def keepable(self, msg: dict) -> int | None:
        """The generation the answer to ``msg`` (just given) was read from, under which the
        server may give it again (kg.runtime.answer_cache); None when the query text calls a
        function whose value changes at each evaluation (NOW, RAND, UUID, STRUUID, BNODE)."""
        text = msg.get("query")
        if isinstance(text, str) and _VOLATILE.search(text):
            return None
        return self.store.generation

    def systems(self) -> int:
        """How many systems the store's version holds (the index's "of N")."""
        if self._systems is None:
            self._systems = self.store.count(self.prefixes + "SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s a kg:System }")
        return self._systems

    def handle(self, msg: dict) -> dict:
        """The answer to one message, from the store's current version; every failure
        becomes an error answer."""
        try:
            self.refresh()
            render = _RENDERERS.get(str(msg.get("op")))
            if render is None:
                raise Reply(500, "internal-error", f"no view renders {safe_text(msg.get('op'), 40)}")
            return render(self, msg)
        except Reply as err:
            return err.reply()
        except QueryRefused as err:
            self.counts["refused"] += 1
            return Reply(400, "refused", str(err)).reply()
        except QueryError as err:
            return Reply(400, "malformed-query", safe_text(err, 400)).reply()
        except StoreError as err:  # the new version cannot be opened, or the store fails while read
            return Reply(503, "store-unavailable", safe_text(err, 400)).reply()
        except MemoryError:
            return Reply(507, "out-of-memory", "the query needed more memory than a worker may use").reply()
        except Exception as err:  # noqa: BLE001 - one bad request must not end the worker
            return Reply(500, "internal-error", safe_text(err, 400)).reply()

    def check(self, text: str) -> CheckedQuery:
        """``check_query`` against this store's graphs, remembered for the last 1000 texts
        (the answer depends only on the text and the graphs; forgotten when the version changes)."""
        known = self._checked.get(text)
        if known is None:
            try:
                known = check_query(text, self.graphs)
            except QueryRefused as err:
                known = err
            self._checked[text] = known
            if len(self._checked) > 1000:
                self._checked.popitem(last=False)
        else:
            self._checked.move_to_end(text)
        if isinstance(known, QueryRefused):
            raise QueryRefused(str(known))
        return known

    # -- SPARQL queries ----------------------------------------------------

    def query(self, msg: dict) -> dict:
        """A SPARQL query's answer in the format the message asks (``render: False``: its rows,
        boolean or triples as terms, for a view to render itself)."""
        text = msg["query"]
        planned = msg.get("planned")  # a query plan's text (kg.queries.plan): checked as it was made
        checked = CheckedQuery(planned["form"], planned["dataset"]) if planned else self.check(text)
        dataset: dict[str, Any] = {}
        if msg.get("default") is not None or msg.get("named") is not None:
            check_graphs(msg.get("default") or [], self.graphs, "default-graph-uri")
            check_graphs(msg.get("named") or [], self.graphs, "named-graph-uri")
            dataset["default_graph"] = [NamedNode(g) for g in msg.get("default") or []]
            if msg.get("named") is not None:
                dataset["named_graphs"] = [NamedNode(g) for g in msg["named"]]
        solutions_format, graph_format = msg.get("solutions"), msg.get("graph")
        graph_form = checked.form in ("CONSTRUCT", "DESCRIBE")
        wanted = graph_format if graph_form else solutions_format
        if wanted is None:
            offered = GRAPH_OFFERS if graph_form else SOLUTION_OFFERS
            raise Reply(406, "not-acceptable", f"a {checked.form} result can be sent as: "
                        + ", ".join(sorted({m for _, m in offered})))
        try:
            self.counts["evaluated"] += 1
            result = self._evaluate(text, not checked.has_dataset, dataset)
            max_rows = msg["max_rows"]
            if isinstance(result, QueryBoolean):
                if msg.get("render") is False:
                    return {"boolean": bool(result)}
                return boolean_answer(bool(result), wanted, msg)
            if isinstance(result, QuerySolutions) and wanted in STREAMED and msg.get("render") is not False:
                tsv = tsv_solutions(result, max_rows, msg.get("row_cap"))
                parsed = parse_query_results(tsv, format=QueryResultsFormat.TSV)
                return body_answer(wanted, results_bytes(parsed, wanted), msg)
            if isinstance(result, QuerySolutions):
                variables = [v.value for v in result.variables]
                rows = _take(result if msg.get("row_cap") is None else islice(result, msg["row_cap"]),
                             max_rows, "rows")
                total = _total(result, len(rows), msg)
                if msg.get("render") is False:
                    return {"variables": variables, "rows": rows, "total": total}
                if msg.get("page") is not None:
                    msg = {**msg, "page": {**msg["page"], "total": total}}
                return solutions_answer(variables, rows, wanted, msg, self.iris.base)
            # a triple_cap (kg mcp's sparql) reads the first triples, flagged by the caller, not refused
            triples = _take(result if msg.get("triple_cap") is None else islice(result, msg["triple_cap"]),
                            max_rows, "triples")
            if msg.get("render") is False:
                return {"triples": triples}
            return triples_answer(triples, wanted, msg, self.iris.base)
        except QueryError as err:
            raise _evaluation_failed(err) from None
        except (OSError, RuntimeError, ValueError) as err:
            raise Reply(500, "query-failed", safe_text(err, 400)) from None

    def _evaluate(self, text: str, union: bool, dataset: dict[str, Any]) -> Any:
        """``text`` evaluated over the union default graph unless the query (FROM) or the
        request names a dataset; relative IRIs resolved against the data's base IRI when the
        query has no BASE; a call to an extension function pyoxigraph does not know evaluates
        to an error (unbound), as SPARQL says, instead of failing the query."""
        functions: dict[NamedNode, Any] = {}
        while True:
            options = {"base_iri": self.iris.base, "custom_functions": functions or None}
            try:
                return self.store.query(text, union=union, options=options, **dataset)
            except QueryError as err:
                iri = _unknown_function(err)
                if iri is None or NamedNode(iri) in functions:
                    raise
                if len(functions) >= MAX_UNKNOWN_FUNCTIONS:
                    raise Reply(400, "unsupported-query", f"the query calls more than {MAX_UNKNOWN_FUNCTIONS} "
                                "extension functions this endpoint does not know") from None
                functions[NamedNode(iri)] = _unbound

_RENDERERS = renderers()


def run_update(settings: dict, text: str) -> dict:
    """Check and run one SPARQL Update on the (writable) store; the answer is 204 when it
    committed."""
    from ..store import GraphStore

    try:
        check_update(text, union_default=True)  # queries here read the union of the graphs
        store = GraphStore.open_existing(settings["store"])
        try:
            store.update(text)
        except SyntaxError as err:
            raise Reply(400, "malformed-update", f"malformed SPARQL Update: {safe_text(err, 400)}") from None
        except StoreError as err:  # the store opened, but the update failed while writing
            raise Reply(500, "update-failed", safe_text(err, 400)) from None
        store.flush()
        del store
        return empty_reply(204)
    except Reply as err:
        return err.reply()
    except QueryRefused as err:
        return Reply(400, "refused", str(err)).reply()
    except StoreError as err:
        return Reply(503, "store-unavailable", safe_text(err, 400)).reply()
    except Exception as err:  # noqa: BLE001
        return Reply(500, "update-failed", safe_text(err, 400)).reply()
