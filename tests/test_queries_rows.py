"""Rows for scripts: kg.query gives plain Python values typed by their datatypes, the terms beside
them, and DataFrames; expected values come from the catalog JSON."""

from __future__ import annotations

import datetime as dt

import pytest

import kg
from kg.rows import IRI
import helpers  # tests/helpers.py (its kg() would hide the package kg here)


def test_rows_are_plain_values_typed_by_datatype(bundled_store, records):
    rows = kg.query(bundled_store, "search", {"text": "zep", "limit": "1000"})
    assert rows.columns == ["id", "name", "tier", "primary_section", "matched"]
    for row in rows:
        assert list(row) == rows.columns  # every column, None where unbound
        assert type(row["tier"]) is int and row["tier"] == records[row["id"]]["tier"]
        assert type(row["name"]) is str and row["name"] == records[row["id"]]["name"]
    assert rows.terms[0]["tier"].value == str(rows[0]["tier"])  # the pyoxigraph terms stay at hand


def test_booleans_dates_and_iris(bundled_store, records):
    found = kg.query(bundled_store, "find", {"limit": "5"})
    assert all(type(r["open_source"]) is bool for r in found)
    recent = kg.query(bundled_store, "recent", {"since": "2026-01-01", "limit": "1000"})
    typed = {type(r["date"]) for r in recent}
    assert typed <= {dt.date, str}  # a full date is a date; a year or a month stays text (xsd:gYear, gYearMonth)
    days = [r for r in recent if type(r["date"]) is dt.date]
    assert days and all(r["date"] >= dt.date(2026, 1, 1) for r in days)
    dependency = kg.query(bundled_store, "select-dependency",
                   {"system": "anthropic-claude-foundation-models--anthropic-com"})
    assert dependency and all(r["depended"] is True for r in dependency)
    assert repr(IRI("https://e.org/a")) == "IRI('https://e.org/a')" and IRI("x") == "x"


def test_to_pandas_and_to_polars(bundled_store, records):
    pandas = pytest.importorskip("pandas")
    polars = pytest.importorskip("polars")
    rows = kg.query(bundled_store, "find", {"limit": "100000"})
    frame = rows.to_pandas()
    assert isinstance(frame, pandas.DataFrame) and list(frame.columns) == rows.columns
    assert len(frame) == len(records) and frame["tier"].sum() == sum(r["tier"] for r in records.values())
    assert frame["open_source"].dtype == bool
    other = rows.to_polars()
    assert isinstance(other, polars.DataFrame) and other.columns == rows.columns and other.height == len(records)
    assert other["tier"].sum() == frame["tier"].sum()


DATES = {  # subject -> xsd:dateTime as written: with a zone, without one, Z, a negative offset past midnight UTC
    "a": "2026-03-01T10:00:00+02:00", "b": "2026-03-01T10:00:00", "c": "2026-03-01T10:00:00Z",
    "d": "2026-03-01T23:30:00-05:00", "e": "2025-12-31T23:59:59.5+14:00"}
FRAME_SCRIPT = """
import json, sys
import kg
rows = kg.query(kg.GraphStore(sys.argv[1], read_only=True), sys.argv[2])
polars, pandas = rows.to_polars(), rows.to_pandas()
print(json.dumps({
    "polars": {"columns": polars.columns, "types": [str(t) for t in polars.dtypes],
               "at": [v.isoformat() for v in polars["at"].to_list()], "zone": polars["at_tz"].to_list()},
    "pandas": {"columns": list(pandas.columns), "types": [str(t) for t in pandas.dtypes],
               "at": [v.isoformat() for v in pandas["at"]],
               "zone": [None if z is None or z != z else z for z in pandas["at_tz"]]}}))  # pandas: NaN when missing
"""


def test_a_column_of_datetimes_with_and_without_zones_becomes_utc_and_its_zones(tmp_path):
    """Real rows (a store made by ``kg ingest``, asked by a script in its own process): polars once
    raised ComputeError on a column mixing zone-aware and naive dateTimes (later versions hold it
    as an opaque Object column, pandas as ``object``). It comes out as UTC instants, a value
    without a zone taken as UTC, with the zone each was written with beside it."""
    import json
    import re
    import subprocess
    import sys

    pytest.importorskip("polars")
    pytest.importorskip("pandas")
    lines = [f'<https://e.org/{s}> <https://e.org/at> "{v}"^^<http://www.w3.org/2001/XMLSchema#dateTime> .'
             for s, v in DATES.items()]
    (tmp_path / "dates.nt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "at.rq").write_text("SELECT ?s ?at WHERE { ?s <https://e.org/at> ?at } ORDER BY ?s\n")
    done = helpers.kg("ingest", "--store", str(tmp_path / "S"), str(tmp_path / "dates.nt"))
    assert done.returncode == 0, done.stderr
    done = subprocess.run([sys.executable, "-c", FRAME_SCRIPT, str(tmp_path / "S"), str(tmp_path / "at.rq")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    frames = json.loads(done.stdout)

    def instant(text: str) -> str:
        value = dt.datetime.fromisoformat(text)
        value = value.replace(tzinfo=dt.timezone.utc) if value.tzinfo is None else value
        return value.astimezone(dt.timezone.utc).isoformat()

    expected_at = [instant(DATES[s]) for s in sorted(DATES)]
    written = [re.search(r"(Z|[+-]\d\d:\d\d)$", DATES[s]) for s in sorted(DATES)]
    expected_zone = [found.group(1) if found else None for found in written]
    polars, pandas = frames["polars"], frames["pandas"]
    assert polars["columns"] == pandas["columns"] == ["s", "at", "at_tz"]
    assert polars["types"][1] == "Datetime(time_unit='us', time_zone='UTC')" and "UTC" in pandas["types"][1]
    assert polars["at"] == pandas["at"] == expected_at
    assert polars["zone"] == pandas["zone"] == expected_zone


def test_a_column_of_mixed_kinds_becomes_text():
    """A column where an integer stands beside an ill-typed literal (text) or a date beside a
    dateTime is given as the literals' lexical forms."""
    polars = pytest.importorskip("polars")
    from pyoxigraph import Literal, Variable

    from kg.rows import Rows
    from kg.vocab import XSD

    rows = Rows.of([Variable("v")], [[Literal("3", datatype=XSD.integer)], [Literal("x", datatype=XSD.integer)],
                                     [Literal("2026-01-31", datatype=XSD.date)], [None]])
    assert [r["v"] for r in rows] == [3, "x", dt.date(2026, 1, 31), None]
    frame = rows.to_polars()
    assert frame["v"].dtype == polars.String and frame["v"].to_list() == ["3", "x", "2026-01-31", None]
    assert rows.to_pandas()["v"].tolist()[:3] == ["3", "x", "2026-01-31"]
