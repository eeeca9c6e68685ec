"""The query worker: what runs inside a worker process, against a read-only store.

A :class:`Worker` reads one version of the store per request: before each request (and
when idle) it checks with one stat whether an ingest made a newer version current, and
moves to it, letting go of the old one (:meth:`Worker.refresh`). It checks each query
with the guard, evaluates it through :class:`~kg.store.GraphStore`, and serialises the
result (at most ``max_rows`` rows and
``max_bytes`` bytes, else an error: never a silent truncation); it also gathers the
statements of entity pages. :func:`run_update` is the one-off job of an update process.
Nothing here knows about processes or HTTP: a message (a dict) comes in, an answer
(a dict, see :mod:`kg.serve.replies`) goes out.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from itertools import islice
from typing import Any, Iterable

from pyoxigraph import NamedNode, QueryBoolean, QueryResultsFormat, QuerySolutions, Triple, parse_query_results
from pyoxigraph import serialize as serialize_rdf

from ..errors import QueryError, StoreError, UsageError, safe_text
from ..output import xml_safe, xml_safe_rows
from ..sparql.guard import CheckedQuery, QueryRefused, check_graphs, check_query, check_update
from ..vocab import KG, PREFIXES, RDF, RDFS, SCHEMA, SKOS, Iris
from . import browse, gsp, pages
from .negotiation import CONTENT_TYPES, GRAPH_OFFERS, RDF_FORMATS, RESULT_FORMATS, SOLUTION_OFFERS
from .replies import Reply, empty_reply
from .tsv_results import STREAMED, tsv_solutions

_SYSTEM_PAGE_SKIPS = {KG.cell, KG.taxonomyAssignment, KG.sectionMembership, KG.protocolSupport, KG.provenance,
                      KG.historyEntry, KG.extraField}  # shown in tables of their own, or not at all
_MAX_INBOUND = 500  # statements listed under "Referenced by" on a resource page


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


def _written(data: bytes | None) -> bytes:
    assert data is not None  # pyoxigraph's writers return the bytes when given no output file
    return data


def _results_bytes(results: Any, fmt: str) -> bytes:
    return _written(results.serialize(format=RESULT_FORMATS[fmt]))


def _term_text(term: Any) -> str:
    """The lexical value of a literal or IRI (a triple term: its N-Triples text)."""
    return str(term) if isinstance(term, Triple) else term.value


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


def _evaluation_failed(err: QueryError) -> Reply:
    # GraphStore.query raises QueryError for text pyoxigraph cannot parse (the client's
    # fault: 400) and for an evaluation error (500); the cause tells them apart.
    cause = err.__context__
    if isinstance(cause, SyntaxError):
        return Reply(400, "malformed-query", f"malformed SPARQL: {safe_text(cause, 400)}")
    return Reply(500, "query-failed", safe_text(cause or err, 400))


def _xml_checked(check: Any, items: list, *args: Any) -> list:
    """``items`` once ``check`` (kg.output's xml_safe or xml_safe_rows) passed them: a value
    XML 1.0 forbids is refused (406) rather than written as XML that is not well-formed."""
    try:
        return list(check(items, *args))
    except UsageError as err:
        raise Reply(406, "not-xml", str(err)) from None


class Worker:
    """Holds a read-only store; answers query and entity requests."""

    def __init__(self, settings: dict) -> None:
        from ..store import GraphStore

        self.settings = settings
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
        self.systems: int | None = None  # counted at the first index request
        self._checked.clear()

    def refresh(self) -> bool:
        """Move to the store's current version if an ingest or update made a newer one
        current (one stat when none did); True if it moved. Called between requests only,
        so a request never straddles two versions."""
        if not self.store.reopen():
            return False
        self._read_version()
        return True

    def keepable(self, msg: dict) -> int | None:
        """The generation the answer to ``msg`` (just given) was read from, under which the
        server may give it again (kg.runtime.answers); None when the query text calls a
        function whose value changes at each evaluation (NOW, RAND, UUID, STRUUID, BNODE)."""
        text = msg.get("query")
        if isinstance(text, str) and _VOLATILE.search(text):
            return None
        return self.store.generation

    def handle(self, msg: dict) -> dict:
        """The answer to one message, from the store's current version; every failure
        becomes an error answer."""
        try:
            self.refresh()
            if msg["op"] == "query":
                return self.query(msg)
            if msg["op"] == "entity":
                return self.entity(msg)
            if msg["op"] == "index":
                return self.index(msg)
            if msg["op"] in ("named", "graph"):
                return self.named(msg) if msg["op"] == "named" else gsp.answer(self, msg)
            return {"status": 200, "type": "application/json", "body": b"{}", "headers": {}}
        except Reply as err:
            return err.reply()
        except QueryRefused as err:
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
            result = self._evaluate(text, not checked.has_dataset, dataset)
            max_rows = msg["max_rows"]
            if isinstance(result, QueryBoolean):
                if msg.get("render") is False:
                    return {"boolean": bool(result)}
                return self._boolean(bool(result), wanted, msg)
            if isinstance(result, QuerySolutions) and wanted in STREAMED and msg.get("render") is not False:
                tsv = tsv_solutions(result, max_rows, msg.get("row_cap"))
                parsed = parse_query_results(tsv, format=QueryResultsFormat.TSV)
                return self._body(wanted, _results_bytes(parsed, wanted), msg)
            if isinstance(result, QuerySolutions):
                variables = [v.value for v in result.variables]
                rows = _take(result if msg.get("row_cap") is None else islice(result, msg["row_cap"]),
                             max_rows, "rows")
                if msg.get("render") is False:
                    return {"variables": variables, "rows": rows}
                return self._solutions(variables, rows, wanted, msg)
            triples = _take(result, max_rows, "triples")
            if msg.get("render") is False:
                return {"triples": triples}
            return self._triples(triples, wanted, msg)
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

    def _body(self, fmt: str, body: bytes, msg: dict) -> dict:
        if len(body) > msg["max_bytes"]:
            raise Reply(422, "result-too-large",
                        f"the result is larger than {msg['max_bytes']} bytes; add LIMIT or narrow the query",
                        maxBytes=msg["max_bytes"])
        headers = dict(pages.HTML_HEADERS) if fmt == "html" else {}
        return {"status": 200, "type": CONTENT_TYPES[fmt], "body": body, "headers": headers}

    def _boolean(self, value: bool, fmt: str, msg: dict) -> dict:
        if fmt == "html":
            return self._body(fmt, pages.ask_page(msg["query"], value), msg)
        parsed = parse_query_results(json.dumps({"head": {}, "boolean": value}).encode(),
                                     format=QueryResultsFormat.JSON)
        return self._body(fmt, _results_bytes(parsed, fmt), msg)

    def _solutions(self, variables: list[str], rows: list, fmt: str, msg: dict) -> dict:
        if fmt == "html":
            return self._body(fmt, pages.solutions_page(msg["query"], variables, rows, self.iris.base,
                                                        msg.get("page")), msg)
        if fmt == "xml":
            rows = _xml_checked(xml_safe_rows, rows, variables)
        # Re-serialise the rows taken (at most max_rows) with pyoxigraph's own writers,
        # through TSV, whose terms are written by pyoxigraph's term serialiser.
        lines = ["\t".join(f"?{v}" for v in variables)]
        for row in rows:
            lines.append("\t".join("" if row[v] is None else str(row[v]) for v in variables))
        parsed = parse_query_results(("\n".join(lines) + "\n").encode("utf-8"), format=QueryResultsFormat.TSV)
        return self._body(fmt, _results_bytes(parsed, fmt), msg)

    def _triples(self, triples: list, fmt: str, msg: dict) -> dict:
        if fmt == "html":
            return self._body(fmt, pages.triples_page(msg["query"], triples, self.iris.base), msg)
        return self._body(fmt, self._serialise(triples, fmt), msg)

    def _serialise(self, triples: list, fmt: str) -> bytes:
        if fmt == "rdfxml":
            triples = _xml_checked(xml_safe, triples)
        prefixes = {k: v for k, v in PREFIXES.items() if k != "sh"} if fmt in ("turtle", "rdfxml") else None
        return _written(serialize_rdf(triples, format=RDF_FORMATS[fmt], prefixes=prefixes))

    # -- browsing: the index of systems, named query forms ---------------------

    def index(self, msg: dict) -> dict:
        """The index of systems, a page at a time (kg.serve.browse)."""
        return browse.index_answer(self, msg)

    def _systems(self) -> int:
        """How many systems the store's version holds (the index's "of N")."""
        if self.systems is None:
            self.systems = self.store.count(self.prefixes + "SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s a kg:System }")
        return self.systems

    def named(self, msg: dict) -> dict:
        """A named query's form and a page of its results (kg.serve.browse)."""
        return browse.named_answer(self, msg)

    # -- entity pages --------------------------------------------------------

    def entity(self, msg: dict) -> dict:
        from ..vocab import ID_PATTERN

        rest, fmt = msg["rest"], msg["format"]
        system_id = rest[len("system/"):] if rest.startswith("system/") else None
        if system_id is not None and ID_PATTERN.match(system_id):
            iri = self.iris.system(system_id)
            if not self.store.contains(iri, RDF.type, KG.System):
                raise Reply(404, "not-found", f"no system {safe_text(system_id, 120)} in this store")
            if fmt == "html":
                return self._body("html", pages.system_page(self._system_facts(system_id, iri)), msg)
            quads = self._system_quads(system_id, iri)
        else:
            iri = self._resource(rest)
            quads = list(self.store.match(iri))
            if fmt == "html":
                return self._body("html", self._resource_page(iri, quads), msg)
        if fmt == "jsonld":
            return self._body(fmt, self._jsonld(quads), msg)
        triples = list(dict.fromkeys(Triple(q.subject, q.predicate, q.object) for q in quads))
        triples.sort(key=lambda t: (t.subject != iri, str(t.subject), str(t.predicate), str(t.object)))
        return self._body(fmt, self._serialise(triples, fmt), msg)

    def _resource(self, rest: str) -> NamedNode:
        """The IRI under the base that ``rest`` (as given, or percent-decoded) names, if the store has it."""
        from urllib.parse import unquote

        for candidate in dict.fromkeys((rest, unquote(rest))):
            try:
                node = NamedNode(self.iris.base + candidate)
            except ValueError:
                continue
            if self.store.contains(node):
                return node
        raise Reply(404, "not-found", "no such resource in this store")

    def _jsonld(self, quads: list) -> bytes:
        from ..exports import jsonld_bytes
        from ..store import GraphStore

        scratch = GraphStore()
        scratch.replace_graphs({}, additions=quads)
        document = json.loads(jsonld_bytes(scratch, self.iris))
        # One flat graph, like the Turtle: the nodes of every named graph together
        # (a node given twice is merged by JSON-LD processors).
        flat = {"@context": document["@context"],
                "@graph": [node for graph in document["@graph"] for node in graph.get("@graph", [])]}
        return json.dumps(flat, ensure_ascii=False, indent=1).encode("utf-8") + b"\n"

    def _system_quads(self, system_id: str, iri: Any) -> list:
        s = self.store
        edges, analysis = self.iris.edges_graph, self.iris.analysis_graph
        quads = list(s.match(None, None, None, self.iris.record_graph(system_id)))
        quads += s.match(iri, None, None, edges)
        quads += s.match(None, None, iri, edges)
        for link in (KG.source, KG.target):
            for q in list(s.match(None, link, iri, edges)):
                quads += s.match(q.subject, None, None, edges)
        quads += s.match(iri, None, None, analysis)
        return list(dict.fromkeys(quads))

    def _labels(self, iris: Iterable[Any]) -> dict[str, str]:
        labels: dict[str, str] = {}
        for node in iris:
            if not isinstance(node, NamedNode) or node.value in labels:
                continue
            for predicate in (SCHEMA.name, SKOS.prefLabel, RDFS.label):
                found = next(iter(self.store.match(node, predicate, None, None)), None)
                if found is not None:
                    labels[node.value] = _term_text(found.object)
                    break
        return labels

    def _select(self, body: str, system: Any) -> list[dict]:
        return self.store.select(self.prefixes + body, {"sys": system})

    def _system_facts(self, system_id: str, iri: Any) -> pages.SystemFacts:
        facts = [q for q in self.store.match(iri, None, None, self.iris.record_graph(system_id))
                 if q.predicate not in _SYSTEM_PAGE_SKIPS]
        labels = self._labels([q.predicate for q in facts] + [q.object for q in facts])
        name = labels.get(iri.value) or next((_term_text(q.object) for q in facts if q.predicate == SCHEMA.name), system_id)
        protocols = self._select("""
SELECT ?protocol ?mode WHERE { ?sys kg:protocolSupport ?ps . ?ps kg:protocol ?protocol ; kg:supportMode ?mode }
ORDER BY ?protocol""", iri)
        cells = self._select("""
SELECT ?slug ?value ?status ?tier ?citation ?verified WHERE {
  ?sys kg:cell ?cell . ?cell kg:column ?column . ?column dcterms:identifier ?slug .
  OPTIONAL { ?cell kg:value ?value } OPTIONAL { ?cell kg:status ?status }
  OPTIONAL { ?cell kg:claimTier ?tier } OPTIONAL { ?cell kg:citation ?citation }
  OPTIONAL { ?cell kg:lastVerified ?verified }
} ORDER BY ?slug""", iri)
        edges = {}
        for direction, this_end, other_end in (("out", "source", "target"), ("in", "target", "source")):
            edges[direction] = self._select(f"""
SELECT ?type ?other ?evidence ?citation ?influential WHERE {{
  ?relation kg:{this_end} ?sys ; kg:{other_end} ?other ; kg:edgeType ?type .
  OPTIONAL {{ ?relation kg:evidence ?evidence }} OPTIONAL {{ ?relation kg:citation ?citation }}
  OPTIONAL {{ ?relation kg:isInfluential ?influential }}
}} ORDER BY ?type ?other""", iri)
        history = self._select(f"""
SELECT ?date ?origin ?kind ?field ?old ?new WHERE {{
  ?sys kg:historyEntry ?entry .
  OPTIONAL {{ ?entry kg:changeDate ?date }} OPTIONAL {{ ?entry kg:changeKind ?kind }}
  OPTIONAL {{ ?entry dcterms:isPartOf/kg:changesetNumber ?number }}
  BIND(IF(BOUND(?number), CONCAT("changeset ", STR(?number)), "record history") AS ?origin)
  OPTIONAL {{ ?entry kg:fieldChange ?change . ?change kg:field ?field .
             OPTIONAL {{ ?change kg:fromValue ?old }} OPTIONAL {{ ?change kg:toValue ?new }} }}
}} ORDER BY DESC(STR(?date)) DESC(?number) ?field LIMIT {pages.HISTORY_ROWS}""", iri)
        centrality = [q for q in self.store.match(iri, None, None, self.iris.analysis_graph)
                      if not isinstance(q.object, NamedNode)]
        return pages.SystemFacts(
            system_id=system_id, iri=iri, name=name, base=self.iris.base, facts=facts, fact_labels=labels,
            protocols=protocols, protocol_labels=self._labels([r["protocol"] for r in protocols]
                                                              + [r["mode"] for r in protocols]),
            cells=cells, edges=edges, edge_labels=self._labels([r["other"] for rows in edges.values() for r in rows]),
            centrality=centrality, centrality_labels=self._labels([q.predicate for q in centrality]),
            analysis_graph=self.iris.analysis_graph, history=history)

    def _resource_page(self, iri: NamedNode, quads: list) -> bytes:
        inbound = list(islice(self.store.match(None, None, iri, None), _MAX_INBOUND))
        labels = self._labels([iri] + [q.predicate for q in quads] + [q.object for q in quads]
                              + [q.subject for q in inbound] + [q.predicate for q in inbound])
        return pages.resource_page(iri, quads, inbound, labels, self.iris.base, more=len(inbound) == _MAX_INBOUND)


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
