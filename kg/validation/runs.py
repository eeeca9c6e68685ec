"""The validation runs: the split run, the incremental one after a change, and the stock pySHACL reference.

``validate`` (what ``kg validate`` does): the SHACL engine (``kg.shacl``) checks
each record graph over the shared graph (``kg.validation.records``), and each
catalog-wide rule is answered by its SPARQL query in the store (milliseconds). With
``shapes`` the user's shapes are checked instead of ours: by the engine over the
whole graph, those that use SHACL-SPARQL by one stock pySHACL run, and the report
says so (``kg.validation.user_shapes``). ``validate_monolithic`` (``kg validate
--engine pyshacl``) runs stock pySHACL once over the whole graph: the reference the
engine must equal (tests prove it on fixtures and on the bundled catalog).
``revalidate`` updates a report after some records changed. A whole run of our shapes is kept
beside the version as its findings (:mod:`kg.validation.kept`), read by the pages and tools.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Sequence

import rdflib
from rdflib import URIRef

from ..errors import KgError, SourceError, UsageError
from ..queries import QUERIES_DIR
from ..store import GraphStore
from ..vocab import KG_NS, RDF, Iris
from ..description import read_counts
from ..shacl import ShapeRefused
from . import remembered
from .core import CoreShapes
from .deadline import DEFAULT_TIMEOUT, deadline
from .files import RdfFiles
from .pyshacl_run import Converter, stock_results
from .incremental import CatalogChange
from .kept import keep
from .parts import record_ids
from .records import RECORDS_PER_CALL, check_records
from .report import Owner, Result, ValidationReport, finish, make_result, term_text
from .rules import Rule, load_rules, shapes_graph
from .user_shapes import UserShapes, load_shapes

_RDF_TYPE = URIRef(RDF.type.value)


def check_catalog_rules(store: GraphStore, iris: Iris, rules: dict[str, Rule], *,
                        remember: bool = False) -> list[Result]:
    """The catalog-wide rules: one SPARQL query each (queries/check-*.rq), over the whole store;
    ``remember``: their answers kept beside the generation's data for the next run
    (``kg.validation.remembered``)."""
    chosen = [rule for rule in rules.values() if rule.scope == "catalog"]
    texts = {rule.name: (QUERIES_DIR / f"{rule.check}.rq").read_text(encoding="utf-8") for rule in chosen}

    def answer() -> remembered.Answers:
        return {name: [(term_text(row["focus"]), term_text(row["value"]) if row.get("value") is not None else None)
                       for row in store.select(text)] for name, text in texts.items()}

    if remember:
        key = remembered.digest([iris.base, *((r.name, texts[r.name], r.path, r.component, r.severity)
                                               for r in chosen)])
        found = remembered.answers(store, key, answer)
        if set(found) != set(texts):  # the digest covers the names: only a file edited by hand differs
            found = answer()
    else:
        found = answer()
    owner = Owner(iris)
    return [make_result(owner, rule.name, focus, rule.path, value, rule.component or "", rule.severity)
            for rule in chosen for focus, value in found[rule.name]]


def remember_catalog_rules(store: GraphStore, iris: Iris | None = None) -> None:
    """Our catalog-wide rules answered for the version ``store`` reads and remembered beside it (the
    last step of an ingest, so that the first ``kg validate --record`` after it does not answer them
    over the whole store); nothing in memory or inside a write session, where none would be kept."""
    if remembered.can_remember(store):
        iris = iris or Iris()
        try:
            check_catalog_rules(store, iris, load_rules(iris), remember=True)
        except (KgError, OSError):
            pass  # the ingest is whole and sealed; the first validation answers them instead


def _stored(store: GraphStore, iris: Iris, record_id: str) -> bool:
    """Whether the store holds the graph of record ``record_id`` (an id no IRI can hold: no)."""
    try:
        graph = iris.record_graph(record_id)
    except ValueError:
        return False
    return store.has_graph(graph)


def _count_relations(store: GraphStore) -> int:
    return store.count(f"SELECT (COUNT(DISTINCT ?r) AS ?n) WHERE {{ ?r a <{KG_NS}Relation> }}")


def validate(data: GraphStore | RdfFiles, iris: Iris | None = None, *, records: Sequence[str] | None = None,
             jobs: int | None = None, per_call: int = RECORDS_PER_CALL,
             progress: Callable[[int, int], None] | None = None,
             shapes: Sequence[str] | None = None, scheduler: str | None = None,
             timeout: float | None = DEFAULT_TIMEOUT) -> ValidationReport:
    """Validate the store: record-local rules per record graph (the engine), catalog-wide rules in SPARQL.

    ``progress(done, total)`` is called as record parts finish (the CLI draws it on a terminal).

    With ``records`` only those record graphs are checked (the relations too are
    left out), plus every catalog-wide rule. With ``shapes`` (SHACL files) the
    graph is checked against those instead of our shapes. With ``jobs`` the record parts run on
    that many processes (default: one, or every core for a big store); with ``scheduler`` (a Dask
    scheduler's address) on that cluster (``kg.validation.dask_run``). ``data``: a store, or RDF files
    (``load_rdf_files``: the user's shapes and pySHACL read their terms as written). The run stops
    after ``timeout`` seconds (None: never) with ``kg.errors.OutOfTime`` (``kg.validation.deadline``).
    """
    with deadline(timeout) as at:
        return _validate(data, iris, records=records, jobs=jobs, per_call=per_call, progress=progress,
                         shapes=shapes, scheduler=scheduler, at=at)


def _validate(data: GraphStore | RdfFiles, iris: Iris | None, *, records: Sequence[str] | None, jobs: int | None,
              per_call: int, progress: Callable[[int, int], None] | None, shapes: Sequence[str] | None,
              scheduler: str | None, at: float | None) -> ValidationReport:
    store, written = _data(data)
    iris = iris or Iris()
    started = time.perf_counter()
    own = load_shapes(shapes, iris.base) if shapes else None
    if records is not None:
        # each looked up: listing every graph of the store to find a few costs 0.25 s at 45,600 records
        missing = sorted(r for r in set(records) if not _stored(store, iris, r))
        if missing:
            raise UsageError(f"no record {', '.join(missing[:5])} in the store")
    known = len(records) if records is not None else len(record_ids(store, iris))
    if own is not None:
        return _validate_own(store, written, iris, own, records, started, known, jobs=jobs, per_call=per_call,
                             progress=progress, scheduler=scheduler, at=at)
    rules = load_rules(iris)
    run = check_records(store, iris, ids=records, with_rest=records is None, jobs=jobs,
                        per_call=per_call, progress=progress, scheduler=scheduler)
    timings = dict(run.timings)
    timings["record_rules_s"] = round(time.perf_counter() - started, 3)
    mark = time.perf_counter()
    catalog = check_catalog_rules(store, iris, rules, remember=True)
    timings["catalog_rules_s"] = round(time.perf_counter() - mark, 3)
    # the quick check of a few records reads the count from the dataset description, as revalidate does
    relations = counts(store, iris)[1] if records is not None else _count_relations(store)
    report = finish(run.results + catalog, rules, records=known,
                    relations=relations, seconds=time.perf_counter() - started, mode="split",
                    scope=sorted(records) if records is not None else None, timings=timings, notes=run.notes)
    if records is None:  # the whole version checked with our shapes: kept as its findings (kg.findings)
        keep(store, report, iris, "validated in full")
    return report


def _validate_own(store: GraphStore, written: list[Any] | None, iris: Iris, own: UserShapes,
                  records: Sequence[str] | None,
                  started: float, known: int, **options: Any) -> ValidationReport:
    """The user's shapes: SHACL Core by the engine over the whole graph, our catalog-wide rules among
    them by SPARQL, those that use SHACL-SPARQL in one stock pySHACL run."""
    if own.sparql_graph is not None and records is not None:
        raise UsageError(f"some of these shapes are checked by pySHACL over the whole graph ({own.reason}); "
                         f"leave out the records to check them")
    results: list[Result] = []
    timings: dict[str, float] = {}
    notes: list[str] = []
    if own.core:
        results, timings = check_own(store, iris, own, records, options.get("scheduler"), written=written,
                                     at=options.get("at"))
    results += check_catalog_rules(store, iris, own.checks)
    if own.sparql_graph is not None:
        mark = time.perf_counter()
        results += stock_results(store_to_rdflib(store if written is None else written), own.sparql_graph, iris,
                                 own.names, source=", ".join(own.files))
        timings["pyshacl_s"] = round(time.perf_counter() - mark, 3)
        checked = "some shapes" if own.core or own.checks else "the shapes"
        notes.append(f"{checked} use SHACL-SPARQL ({own.reason}): checked in one stock pySHACL run over the "
                     f"whole graph")
    return finish(results, own.rules, records=len(records) if records is not None else known,
                  relations=_count_relations(store), seconds=time.perf_counter() - started,
                  mode="graph" if own.core or own.checks else "monolithic",
                  scope=sorted(records) if records is not None else None,
                  timings=timings, shapes=list(own.files), shapes_graph=own.graph, notes=notes)


def check_own(store: GraphStore, iris: Iris, own: UserShapes, records: Sequence[str] | None,
              scheduler: str | None = None, *, written: list[Any] | None = None,
              at: float | None = None) -> tuple[list[Result], dict[str, float]]:
    """The user's SHACL Core shapes by the engine over every triple of the store (on the Dask cluster
    at ``scheduler``: a slice of the focus nodes on each worker), or over the quads ``written`` (RDF
    files' own terms) by the ``time.monotonic()`` instant ``at``; ``records``: the results about those."""
    mark = time.perf_counter()
    timings: dict[str, float]
    if scheduler is not None:
        from .dask_own import check_own_on_cluster

        results, threads = check_own_on_cluster(scheduler, store, iris, own)
        timings = {"jobs": threads}
    else:
        shapes = CoreShapes(own.triples, iris, names=own.names, skip=own.skip)
        try:
            results = shapes.check(shapes.facts(store.quads() if written is None else written), deadline=at)
        except ShapeRefused as error:  # what the checks before the run cannot see: a pattern that runs away
            raise SourceError(", ".join(own.files), f"shape {shapes.name_of(error.shape)}: {error.reason}") from None
        except RecursionError:  # the engine bounds its nesting; a caller already deep in the stack may not fit it
            raise SourceError(", ".join(own.files), "the shapes' checks nest deeper than Python's stack allows "
                                                    "(recursive shapes over a long chain of nodes)") from None
        timings = {"jobs": 1}
    if records is not None:
        wanted = set(records)
        results = [r for r in results if r.record in wanted]
    timings["engine_s"] = round(time.perf_counter() - mark, 3)
    return results, timings


def revalidate(report: ValidationReport, store: GraphStore, changed: Sequence[str],
               iris: Iris | None = None) -> ValidationReport:
    """``report`` brought up to date after the records ``changed`` were re-ingested, added or
    removed (the edges as they were).

    Only the graphs of those records are validated again, and the catalog-wide rules
    only where those records can change them (``kg.validation.incremental``); every
    other result is kept. The cost follows the change, not the store: the records are
    looked up by graph, the shared resources they reach read one by one, the counts
    read from the dataset description. A report of the user's own shapes is made
    again in full (a change to one record can change what another record's checks reach).
    """
    iris = iris or Iris()
    if report.shapes:
        return validate(store, iris, shapes=report.shapes)
    started = time.perf_counter()
    changed_set = set(changed)
    again = sorted(i for i in changed_set if store.has_graph(iris.record_graph(i)))
    rules = load_rules(iris)
    kept = [r for r in report.results
            if rules.get(r.rule, Rule("", "", "", "", "record")).scope == "record"
            and not (r.record in changed_set and not r.focus.startswith(iris.base + "relation/"))]
    run = check_records(store, iris, ids=again, with_rest=False, jobs=1) if again else None
    mark = time.perf_counter()
    change = CatalogChange(store, iris, sorted(changed_set))
    catalog = [r for rule in rules.values() if rule.scope == "catalog"
               for r in change.results(rule, report.results, lambda one: check_catalog_rules(store, iris, {"": one}))]
    timings = dict(run.timings) if run else {}
    timings["catalog_rules_s"] = round(time.perf_counter() - mark, 3)
    records, relations = counts(store, iris)
    return finish(kept + (run.results if run else []) + catalog, rules, records=records,
                  relations=relations, seconds=time.perf_counter() - started, mode="incremental",
                  timings=timings)


def counts(store: GraphStore, iris: Iris) -> tuple[int, int]:
    """(records, relations) of the store: from its dataset description (kept up to date by every
    ingest), else counted."""
    stated = read_counts(store, iris)
    if stated is not None:
        counts = stated[0]
        return counts.get(KG_NS + "System", 0), counts.get(KG_NS + "Relation", 0)
    return len(record_ids(store, iris)), _count_relations(store)


def store_to_rdflib(store: GraphStore | Sequence[Any]) -> rdflib.Graph:
    """Every triple of every graph of the store (their union), or of the quads given, in one rdflib graph."""
    graph = rdflib.Graph()
    Converter().fill(graph, store.quads() if isinstance(store, GraphStore) else store)
    return graph


def _data(data: GraphStore | RdfFiles) -> tuple[GraphStore, list[Any] | None]:
    """The store to query, and the quads as written when ``data`` is RDF files."""
    return (data.store, data.quads) if isinstance(data, RdfFiles) else (data, None)


def validate_monolithic(data: GraphStore | RdfFiles | rdflib.Graph, iris: Iris | None = None, *,
                        shapes: Sequence[str] | None = None,
                        timeout: float | None = DEFAULT_TIMEOUT) -> ValidationReport:
    """One stock pySHACL run (unpatched) over the whole graph with every shape (record-local and
    catalog-wide), or with the user's ``shapes``: ``kg validate --engine pyshacl``.

    Slow (about 25 s for the bundled catalog); the reference the engine is tested against. Stops after
    ``timeout`` seconds, as ``validate`` does.
    """
    with deadline(timeout):
        return _validate_monolithic(data, iris, shapes)


def _validate_monolithic(data: GraphStore | RdfFiles | rdflib.Graph, iris: Iris | None,
                         shapes: Sequence[str] | None) -> ValidationReport:
    iris = iris or Iris()
    started = time.perf_counter()
    own = load_shapes(shapes, iris.base) if shapes else None
    rules = own.rules if own is not None else load_rules(iris)
    graph = data if isinstance(data, rdflib.Graph) else store_to_rdflib(
        data.quads if isinstance(data, RdfFiles) else data)
    loaded = time.perf_counter() - started
    shapes_g = own.graph if own is not None else shapes_graph(iris)
    results = stock_results(graph, shapes_g, iris, own.names if own is not None else None,
                            source=", ".join(own.files) if own is not None else "kg's shapes")
    systems = len(set(graph.subjects(_RDF_TYPE, URIRef(KG_NS + "System"))))
    relations = len(set(graph.subjects(_RDF_TYPE, URIRef(KG_NS + "Relation"))))
    extra: dict[str, Any] = {"shapes": list(own.files), "shapes_graph": own.graph} if own is not None else {}
    return finish(results, rules, records=systems, relations=relations,
                  seconds=time.perf_counter() - started, mode="monolithic",
                  timings={"load_s": round(loaded, 3)}, **extra)
