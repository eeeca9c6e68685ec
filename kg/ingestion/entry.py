"""The ingest's entry points: paths, batches already read, or checked inputs -> the one pipeline run.

``ingest_paths`` reads files, folders or '-' (``kg.sources``: everything read and checked before
anything is written, so an unreadable file changes nothing) and picks how the records go in: all at
once (``ingest_batches``) or a chunk at a time when a catalog file is streamed (``ingest_inputs``).
"""

from __future__ import annotations

from typing import Sequence

from pyoxigraph import NamedNode

from .. import textindex
from ..gctuning import fewer_collections
from ..errors import UsageError
from ..sources import STREAM_MIN_BYTES, CatalogStream, Input, RdfDocument, read_inputs
from ..store import GraphStore
from ..validation.runs import remember_catalog_rules
from ..validation.upkeep import FindingsUpkeep
from ..vocab import Iris
from . import batching
from .pipeline import run_ingest
from .report import IngestReport
from .settings import DEFAULT_CAPS, Caps, Options, Progress


def ingest_paths(store: GraphStore, paths: list[str], iris: Iris | None = None, *,
                 strict: bool = False, progress: Progress | None = None,
                 stream: bool | None = None, format: str | None = None,
                 graph: str | None = None, gate: str | None = None, caps: Caps = DEFAULT_CAPS,
                 replace_all: bool = False, compact: bool = False, keep_invalid: bool = False,
                 jobs: int | None = None) -> IngestReport:
    """Read ``paths`` (files, folders, '-') and ingest them; see ``ingest_batches``.

    Bulk catalog files of ``STREAM_MIN_BYTES`` or more are streamed (``ingest_inputs``):
    checked whole first, then read, mapped and written ``BATCH_SIZE`` records at a
    time, so memory does not grow with the file. ``stream`` True streams every bulk
    catalog file, False none. The graph written is the same either way.

    RDF files (by extension: .ttl .nt .nq .trig .jsonld .rdf .xml .owl; or every path
    when ``format`` names an RDF format) are loaded as they are, as the Oxigraph CLI's
    ``load`` does: quads into the graph they name, triples into the default graph, or
    into ``graph`` (an IRI) when it is given (``kg.sources.rdf``).

    A record that breaks a structural rule of the shapes (``kgsh:Structural``: a MUST of the
    catalog's schema) is quarantined with its reasons, not written; ``keep_invalid`` writes it
    anyway, its results findings like the others (data known to be odd: round trips, fixtures).
    ``gate`` ("violation" or "warning"): a record with a rule result that severe or
    worse is quarantined, not written (``kg.ingestion.map_gate``). ``caps``: (cells, bytes) a record may
    hold at most; a bigger one is quarantined before it is read further.

    ``replace_all``: the records of the input are the whole new release; stored records
    it lacks are removed (and listed in the changeset as removed).

    ``compact``: merge the store's files before the new version becomes current
    (``GraphStore.compact``; a build into an empty store always does).

    ``jobs``: worker processes that map and check the records (``kg.ingestion.workers``); None:
    one a core when the records' JSON reaches ``PARALLEL_FROM_BYTES``; 1: none. The store, the
    changeset and the report are the same for any number.
    """
    options = Options(strict=strict, gate=gate, caps=caps, replace_all=replace_all, keep_invalid=keep_invalid,
                      progress=progress, jobs=jobs)

    upkeep = FindingsUpkeep(store, iris)  # the findings of the version the ingest starts from

    def run() -> IngestReport:
        with fewer_collections():  # reading the files allocates as much as mapping them
            return _ingest_read(store, paths, iris, options, stream=stream, format=format, graph=graph)

    before = textindex.kept(store)  # the words index of the version before, to follow the change
    try:
        if not compact:
            report = run()
        else:
            with store.transaction():
                store.compact()
                report = run()
        _make_words_index(store, before, report.systems_written)
    finally:
        if before is not None:
            before.close()
    remember_catalog_rules(store, iris)
    upkeep.after(report)  # the new version's findings (kg.findings)
    return report


def _make_words_index(store: GraphStore, before: textindex.WordsIndex | None,
                      systems: textindex.Written | None) -> None:
    """The new version's words index (kg.textindex) made now, as the last step of the ingest, so
    that its first search does not wait for it: from the version before's and the systems written
    where both are known (``textindex.follow``: at 45,600 records, made whole, it took seconds);
    nothing inside a caller's transaction, where no version is sealed yet."""
    if before is not None and systems is not None and textindex.follow(store, before, systems):
        return
    index = textindex.open_index(store)
    if index is not None:
        index.close()


def _ingest_read(store: GraphStore, paths: list[str], iris: Iris | None, options: Options, *,
                 stream: bool | None, format: str | None, graph: str | None) -> IngestReport:
    target = _graph_iri(graph)
    minimum = None if stream is False else 0 if stream else STREAM_MIN_BYTES
    inputs = read_inputs(paths, stream_min_bytes=minimum, rdf=format, graph=target, limit=options.caps[1])
    if target is not None and not all(isinstance(item, RdfDocument) for item in inputs):
        raise UsageError("a graph applies to RDF files only (catalog JSON goes into kg's own graphs)")
    chosen = ingest_inputs if any(isinstance(item, CatalogStream) for item in inputs) else ingest_batches
    return chosen(store, inputs, iris, strict=options.strict, progress=options.progress, gate=options.gate,
                  caps=options.caps, replace_all=options.replace_all, keep_invalid=options.keep_invalid,
                  jobs=options.jobs)


def _graph_iri(graph: str | None) -> NamedNode | None:
    if graph is None:
        return None
    try:
        return NamedNode(graph)
    except ValueError as err:
        raise UsageError(f"graph {graph!r} is not an IRI: {err}") from None


def ingest_batches(store: GraphStore, batches: Sequence[Input], iris: Iris | None = None, *,
                   strict: bool = False, progress: Progress | None = None, gate: str | None = None,
                   caps: Caps = DEFAULT_CAPS, replace_all: bool = False, keep_invalid: bool = False,
                   jobs: int | None = None) -> IngestReport:
    """Ingest already-read batches: each record replaces its own named graph.

    Everything is checked and mapped before the first write. Bad items are
    quarantined (``strict``: ``InputRejected``, nothing written). Input with nothing
    good in it (an empty records list, only bad records) leaves the store untouched.
    """
    options = Options(strict=strict, gate=gate, caps=caps, replace_all=replace_all, keep_invalid=keep_invalid,
                      progress=progress, jobs=jobs)
    return run_ingest(store, list(batches), iris or Iris(), options, chunk=None)


def ingest_inputs(store: GraphStore, inputs: Sequence[Input], iris: Iris | None = None, *,
                  strict: bool = False, progress: Progress | None = None, gate: str | None = None,
                  caps: Caps = DEFAULT_CAPS, replace_all: bool = False, keep_invalid: bool = False,
                  jobs: int | None = None) -> IngestReport:
    """Ingest inputs from ``read_inputs``, ``BATCH_SIZE`` records at a time.

    Every input was checked whole before (an unreadable file changes nothing). The
    records are then checked, mapped and written a chunk at a time; across chunks only
    ids are kept (for duplicates in a file, and for later files superseding earlier
    ones), so memory does not grow with the input. A record superseded by a later file
    is written first, then replaced: the store ends as with ``ingest_batches``.
    """
    options = Options(strict=strict, gate=gate, caps=caps, replace_all=replace_all, keep_invalid=keep_invalid,
                      progress=progress, jobs=jobs)
    return run_ingest(store, list(inputs), iris or Iris(), options, chunk=batching.BATCH_SIZE)
