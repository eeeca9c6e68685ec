"""Rows for scripts: kg.query gives plain Python values typed by their datatypes, the terms beside
them, and DataFrames; expected values come from the catalog JSON."""

from __future__ import annotations

import datetime as dt

import pytest

import kg
from kg.rows import IRI


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
