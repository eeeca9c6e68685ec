"""Where one ingest's time goes: wall time of its phases, timed by wrapping kg's functions.

    python benchmarks/ingest_phases.py DATA_DIR STORE_DIR

DATA_DIR holds catalog.json and edges.json (as ``benchmarks/run.py`` generates them under its
work folder); STORE_DIR is removed and built afresh. The writer thread's phases overlap the main
thread's, so the phases do not add up to the total. The wrappers cost a little themselves.
"""

from __future__ import annotations

import functools
import shutil
import sys
import time
from typing import Any

from kg import background, description, ingestion
from kg.history import recorder
from kg.sources import inputs
from kg.store import GraphStore
from kg.store import _nquads as nquads, _session, _writes  # the store's insides, timed in place

TIMES: dict[str, float] = {}


def _timed(owner: Any, name: str, label: str) -> None:
    inner = getattr(owner, name)

    @functools.wraps(inner)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            TIMES[label] = TIMES.get(label, 0.0) + time.perf_counter() - started

    setattr(owner, name, wrapper)


def main(data: str, folder: str) -> None:
    _timed(ingestion.map_gate, "record_triples", "main thread: mapping (record_triples)")
    _timed(ingestion.map_gate.MapAndGate, "check_rules", "main thread: rules at ingest")
    _timed(recorder.Recorder, "before_write", "the history's diff of each batch")
    _timed(background.BackgroundWrites, "wait", "main thread: waiting for the writer")
    _timed(ingestion.write.BatchWriter, "_store_batch", "writer thread: the batch's write")
    _timed(_writes.Writes, "bulk_extend", "writer thread: load (N-Quads text + bulk_load)")
    _timed(_session.Session, "_stream", "writer thread: a batch to the one bulk load of a build (N-Quads text + pipe)")
    _timed(_session.Session, "end_stream", "the end of that bulk load (waiting for its last files)")
    _timed(nquads, "text", "writer thread: N-Quads text of a batch")
    _timed(_session.Session, "commit", "commit (compaction, flush)")
    _timed(inputs, "scan_file", "reading: the whole catalog file checked before the ingest (scan_file)")
    _timed(ingestion.describe, "refresh_description", "dataset description")
    _timed(description, "class_counts", "dataset description: instances per class")
    _timed(GraphStore, "__len__", "the store's length (the description's count of triples)")
    _timed(ingestion.recording.HistoryRecording, "finish", "changeset")
    shutil.rmtree(folder, ignore_errors=True)
    started, cpu = time.perf_counter(), time.process_time()
    report = ingestion.ingest_paths(GraphStore(folder), [f"{data}/catalog.json", f"{data}/edges.json"])
    print(f"{report.records} records: {time.perf_counter() - started:.1f} s wall, "
          f"{time.process_time() - cpu:.1f} s CPU")
    for label, seconds in sorted(TIMES.items(), key=lambda item: -item[1]):
        print(f"  {label}: {seconds:.1f} s")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
