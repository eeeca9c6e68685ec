"""Citation cells read as numbers (kg.normalise.citations): every written variant of "N cites M/yr"
in the full-shape catalog, the catalog's own misreadings not repeated, and the yearly trajectory's
odd shapes (unsorted years, invalid items, fractional years)."""

from __future__ import annotations

import re

import pytest

from kg.normalise import citation_counts, citation_trajectory, publication_year


@pytest.mark.parametrize("text, expected", [
    ("1234 cites 56/yr", (1234, 56)),
    ("1,677 cites 225/yr", (1677, 225)),  # the catalog's reader took this for 677
    ("1,234 cites 5,678/yr", (1234, 5678)),  # the catalog's reader gave up
    ("32,948 cites 16,385/yr", (32948, 16385)),
    ("1.2k cites 0.3k/yr (Semantic Scholar)", (1200, 300)),
    ("10.6k cites 2.0k/yr (Semantic Scholar)", (10600, 2000)),
    ("~1234 cites · 56 / yr", (1234, 56)),  # the catalog's reader stopped at the "·"
    ("~953 cites · 347 / yr", (953, 347)),
    ("1 cite 1/yr", (1, 1)),
    ("538 cite 117/yr", (538, 117)),
    ("0.0k cites 0.0k/yr (Semantic Scholar)", (0, 0)),
])
def test_every_written_variant_is_read(text, expected):
    assert citation_counts(text) == (float(expected[0]), float(expected[1]))


@pytest.mark.parametrize("text", ["656796 citations (Semantic Scholar)", "not applicable — not academic", "",
                                  "cites 5/yr", "12 cites", "448045 citations (Google Scholar, 2026-05)", None, 42])
def test_text_without_a_count_and_a_rate_is_none(text):
    assert citation_counts(text) is None


def test_every_cites_cell_of_the_full_shape_catalog_is_read(full_shape_catalog):
    """Each cell that says "cite(s)" is read, and its two numbers are those written (thousands
    separators dropped, "k" times 1000), worked out here digit by digit."""
    cells = [r["cells"]["citations"]["value"] for r in full_shape_catalog["records"]
             if re.search(r"\bcites?\b", r["cells"]["citations"]["value"] or "")]
    assert len(cells) == 80  # the README's 80 paper rows with "N cites M/yr"
    for text in cells:
        numbers = re.findall(r"(\d[\d,]*(?:\.\d+)?)(k?)", text.split("(")[0])
        (total, k1), (rate, k2) = numbers[:2]
        expected = (float(total.replace(",", "")) * (1000 if k1 else 1), float(rate.replace(",", "")) * (1000 if k2 else 1))
        assert citation_counts(text) == expected, text


def test_a_trajectory_is_sorted_and_keeps_only_valid_points():
    text = ('[{"year":"2022","cum":5,"infl":0},{"year":2023,"cum":7,"infl":1},{"year":2024,"cum":-1,"infl":0},'
            '{"year":2026,"cum":31,"infl":2},{"year":2025,"cum":20,"infl":2},{"year":2026.5,"cum":33,"infl":2},'
            '{"year":1890,"cum":1,"infl":0},"x",{"year":2027,"cum":40}]')
    points = citation_trajectory(text)
    # "2022" is text, -1 citations and 1890 are out of range, "x" is no point, 2027 lacks infl;
    # 2026.5 rounds half up to 2027 (the catalog's Math.round)
    assert [(p.year, p.cum, p.infl) for p in points] == [(2023, 7, 1), (2025, 20, 2), (2026, 31, 2), (2027, 33, 2)]


@pytest.mark.parametrize("text", ["", "no data", "[", "{}", '{"year": 2020}', "not applicable — non-paper row", None])
def test_no_trajectory(text):
    assert citation_trajectory(text) == []


def test_the_publication_year_is_the_first_year_written():
    assert publication_year("2024-10 (submitted to OpenReview October 4 2024)") == 2024
    assert publication_year("2011 (CallRail); AI features 2023+") == 2011
    assert publication_year("see post date") is None
    assert publication_year("searched not found") is None
    assert publication_year("12025") is None  # no year inside a longer number
