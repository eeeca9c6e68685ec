"""Ingest: sources -> records -> quads -> store, as stages, with a quarantine for bad records.

Everything is read and checked before anything is written (``kg.sources``): an
unreadable file changes nothing. Good records are never lost because of a bad
neighbour (the bad one is set aside in the quarantine), unless ``strict`` asks to
reject the whole input. Every record is checked against the record-local rules of
the shapes as it is mapped (``kg.validation.at_ingest``): one that breaks a structural
rule (a MUST of the catalog's schema) is quarantined with its reasons; what breaks a
quality rule is a finding of the report, and with ``gate`` a record that breaks one is
quarantined instead of written. A quarantined record is not written, so the stored
version of it (if any) stays. A whole ingest is one write session of the store (records
are written in batches, all into one new version), so a reader or a crash sees the
whole old version or the whole new one. RDF files go in as they are.

The modules, in the order a record meets them:

* ``entry``: ``ingest_paths``, ``ingest_batches``, ``ingest_inputs``, the entry points;
* ``pipeline``: ``run_ingest``, the one function that joins the stages;
* ``read_check``: the first stage, inputs -> checked records pending (and edges, headers, RDF);
* ``map_gate``: the second, records -> quads, checked against the rules; the gate;
* ``workers``, ``in_worker`` and ``reconcile``: the second stage on worker processes, one a core
  (``--jobs``): the processes and their pipes, what runs inside one, and the parent's side of their
  answers, so that the result is the one-process result byte for byte;
* ``write``: the third, each batch written on a thread while the next is mapped (``batching``
  says how big a batch is);
* ``recording`` and ``describe``: the history and the description's tally, stages that watch
  each batch written;
* ``finish``: the shared graphs, RDF quads and dangling-edge warnings after the records;
* ``cleanup``: shared resources no record points to any more, forgotten;
* ``removal``: records taken out of the store;
* ``settings`` and ``report``: what an ingest is asked to do, and what it did.
"""

from .cleanup import drop_unused_shared
from .entry import ingest_batches, ingest_inputs, ingest_paths
from .map_gate import GateError
from .removal import remove_records, stored_record_ids
from .report import IngestReport
from .settings import DEFAULT_CAPS, GATES, Caps, Options, Progress

__all__ = [
    "DEFAULT_CAPS", "GATES", "Caps", "GateError", "IngestReport", "Options", "Progress", "drop_unused_shared",
    "ingest_batches", "ingest_inputs", "ingest_paths", "remove_records", "stored_record_ids",
]
