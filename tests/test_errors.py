"""The library's typed errors: one safe line each, and they cross process boundaries whole."""

from __future__ import annotations

import pickle

from kg.errors import RecordError, safe_text
from kg.ingestion import ingest_paths
from kg.store import GraphStore


def test_a_record_error_pickles_with_its_line_and_fields():
    error = RecordError("in.json", 3, "x--y", "cells.license.value", "not a licence\x1b[31m")
    back = pickle.loads(pickle.dumps(error))
    assert type(back) is RecordError and str(back) == str(error) == safe_text(str(error))
    assert (back.source, back.index, back.record_id, back.path, back.message) == (
        "in.json", 3, "x--y", "cells.license.value", "not a licence\x1b[31m")


def test_an_ingest_report_with_rule_findings_pickles(tiny_paths):
    report = ingest_paths(GraphStore(), tiny_paths)
    assert report.findings  # the real catalog breaks some rules
    back = pickle.loads(pickle.dumps(report))
    assert [str(f) for f in back.findings] == [str(f) for f in report.findings]
    assert [(f.rule, f.severity, f.record_id) for f in back.findings] == [
        (f.rule, f.severity, f.record_id) for f in report.findings]
