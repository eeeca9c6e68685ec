"""Dates as the catalog writes them: the one date reader (kg.normalise.dates), the typed
start/end facts written at mapping, and the recent query's since.

Expected answers come from the raw JSON text, read here with regular expressions of the
test's own (not with kg.normalise), so that a bug of the reader cannot hide itself.
"""

from __future__ import annotations

import calendar
import re
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kg import output, queries
from kg.errors import QueryError
from kg.normalise.dates import created_date, mentions, release_date, release_info, since_period

YEAR_RANGE = re.compile(r"(?<![\w.])((?:19|20)\d\d)\s*[-–]\s*((?:19|20)\d\d)(?![\w.])")


def plain(rows_):
    return [{k: output.text(v) for k, v in r.items()} for r in rows_.terms]


def dated_release(record):
    cell = record["cells"].get("latest-release") or {}
    return cell.get("value") if cell.get("status") == "real-data" and isinstance(cell.get("value"), str) else None


# ---------------------------------------------------------------------------
# the bugs of the issue, on the bundled catalog


def test_a_release_range_is_read_at_its_end(site_records):
    """"aider 0.x rolling (2025-2026)" was read as 2025: its latest release is 2026."""
    ranged = {}
    for record in site_records:
        text = dated_release(record)
        found = YEAR_RANGE.findall(text or "")
        if found:
            ranged[record["id"]] = max(int(b) for _, b in found)
    assert len(ranged) >= 6
    for rid, end in ranged.items():
        text = dated_release(next(r for r in site_records if r["id"] == rid))
        assert release_date(text).text == str(end), text


def test_recent_since_2026_finds_the_systems_whose_release_range_ends_in_2026(bundled_store, site_records):
    """The five systems whose release cell is a range ending 2026 were missing from since=2026-01-01."""
    ending_2026 = {r["id"] for r in site_records
                   if any(b == "2026" for _, b in YEAR_RANGE.findall(dated_release(r) or ""))}
    assert len(ending_2026) == 5
    got = {r["id"]: r for r in plain(queries.query(bundled_store, "recent", {"since": "2026-01-01", "limit": "1000"}))}
    assert ending_2026 <= set(got)
    assert all(got[rid]["date"] == "2026" and got[rid]["basis"] == "latest-release" for rid in ending_2026)


def test_a_quarter_is_not_listed_after_it_ends(bundled_store, site_records):
    """A created cell "2026-Q1 (...)" is the first quarter, not the whole year 2026."""
    quarters = {r["id"]: r["cells"]["created"]["value"] for r in site_records
                if re.match(r"\d{4}-Q[1-4]\b", (r["cells"].get("created") or {}).get("value") or "")}
    assert quarters
    for rid, text in quarters.items():
        y, q = int(text[:4]), int(text[6])
        assert created_date(text).text == f"{y}-Q{q}"
        assert created_date(text).end == date(y, 3 * q, calendar.monthrange(y, 3 * q)[1])
    owasp = "owasp-agent-memory-guard--owasp-org"
    assert quarters.get(owasp, "").startswith("2026-Q1")
    after = {r["id"] for r in plain(queries.query(bundled_store, "recent", {"since": "2026-05-01", "limit": "1000"}))}
    within = {r["id"] for r in plain(queries.query(bundled_store, "recent", {"since": "2026-03", "limit": "1000"}))}
    assert owasp not in after and owasp in within


@pytest.mark.parametrize("value", ["20260501", "2026/05/01", "May 2026", "2026-13", "2026-02-30", "2026-Q5",
                                   "yesterday", "", "2026-05-01 10:00"])
def test_since_outside_the_accepted_forms_is_a_clear_error(bundled_store, value):
    with pytest.raises(QueryError, match=r"since: .* is not a valid period \(expected YYYY, YYYY-Qn, YYYY-MM, "
                                         r"YYYY-MM-DD or an ISO timestamp"):
        queries.query(bundled_store, "recent", {"since": value})


@pytest.mark.parametrize("since,first_day", [("2026", "2026-01-01"), ("2025-06", "2025-06-01"),
                                             ("2026-Q2", "2026-04-01"), ("2026-05-01", "2026-05-01"),
                                             ("2026-05-01T23:30:00+02:00", "2026-05-01"),
                                             ("2026-05-01T10:00Z", "2026-05-01")])
def test_since_at_its_own_precision(bundled_store, site_records, since, first_day):
    """Each accepted form counts every dated system whose period ends on or after the day it starts."""
    assert since_period(since).start.isoformat() == first_day
    got = plain(queries.query(bundled_store, "recent", {"since": since, "limit": "1000"}))
    assert got and all(_last_day(r["date"]) >= first_day for r in got)
    everything = plain(queries.query(bundled_store, "recent", {"limit": "1000"}))
    assert [r for r in everything if _last_day(r["date"]) >= first_day] == got


def _last_day(text: str) -> str:
    """The last day of a date as the catalog writes it (2025, 2025-Q3, 2025-06, 2025-06-14)."""
    if re.fullmatch(r"\d{4}", text):
        return f"{text}-12-31"
    if re.fullmatch(r"\d{4}-Q[1-4]", text):
        y, m = int(text[:4]), 3 * int(text[6])
        return f"{y:04d}-{m:02d}-{calendar.monthrange(y, m)[1]:02d}"
    if re.fullmatch(r"\d{4}-\d\d", text):
        y, m = int(text[:4]), int(text[5:])
        return f"{text}-{calendar.monthrange(y, m)[1]:02d}"
    return text


def test_recent_without_parameters_is_the_20_most_recent(bundled_store):
    got = plain(queries.query(bundled_store, "recent", {}))
    everything = plain(queries.query(bundled_store, "recent", {"limit": "100000"}))
    assert len(got) == 20 and got == everything[:20]
    assert len(everything) > 600  # every dated system, not only recent ones
    ends = [_last_day(r["date"]) for r in everything]
    assert ends == sorted(ends, reverse=True)  # newest first


# ---------------------------------------------------------------------------
# the reader, against the raw JSON (properties)


def _year_mentions(text):
    return [int(m) for m in re.findall(r"(?<![\w.])((?:19|20)\d\d)(?![\w.]|-\d\d-\d)", text)]


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_the_reader_keeps_what_the_raw_cell_says(site_records, data):
    record = data.draw(st.sampled_from(site_records))
    for slug in ("created", "latest-release"):
        text = (record["cells"].get(slug) or {}).get("value")
        if not isinstance(text, str):
            continue
        found = mentions(text)
        for m in found:
            assert m.first.start <= m.first.end <= m.last.end and m.first.start <= m.last.start
            assert m.first.text[:4] in text and m.last.text[:4] in text  # every year read is written
        years = _year_mentions(text)
        if years:  # a standalone year in the text is a date the reader sees (or part of one)
            assert found, text
        if found:
            assert created_date(text) == found[0].first
            assert release_date(text).end == max(m.last.end for m in found)


@settings(max_examples=200, deadline=None)
@given(y=st.integers(1990, 2030), m=st.integers(1, 12), d=st.integers(1, 28), q=st.integers(1, 4),
       b=st.integers(1, 5), form=st.sampled_from(["year", "month", "day", "quarter", "range", "named"]),
       before=st.sampled_from(["", "v1.2 (", "released ", "Claude Code 1.x ("]),
       after=st.sampled_from(["", ")", ", rolling)", "; more later"]))
def test_written_dates_read_back_at_their_precision(y, m, d, q, b, form, before, after):
    names = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    written, first, last = {
        "year": (f"{y}", f"{y}", f"{y}"),
        "month": (f"{y}-{m:02d}", f"{y}-{m:02d}", f"{y}-{m:02d}"),
        "day": (f"{y}-{m:02d}-{d:02d}", f"{y}-{m:02d}-{d:02d}", f"{y}-{m:02d}-{d:02d}"),
        "quarter": (f"{y}-Q{q}", f"{y}-Q{q}", f"{y}-Q{q}"),
        "range": (f"{y}-{y + b}", f"{y}", f"{y + b}"),
        "named": (f"{names[m - 1]} {y}", f"{y}-{m:02d}", f"{y}-{m:02d}"),
    }[form]
    text = before + written + after
    assert created_date(text).text == first
    assert release_date(text).text == last
    assert since_period(first).text == first if form != "range" else True


def test_release_info_keeps_the_version_and_takes_the_end(site_records):
    version, when = release_info("Claude Code 1.x (2025-2026, rolling)", "real-data")
    assert when.text == "2026" and when.precision == "year"
    version, when = release_info("Qwen 3 family (2025-04); Qwen 3-Max preview (2025-Q3)", "real-data")
    assert when.text == "2025-Q3" and when.end == date(2025, 9, 30)
    assert release_info("crush 0.x rolling", "real-data") == (None, None)
