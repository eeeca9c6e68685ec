"""kg's shapes run by Apache Jena's SHACL engine (Debian's libapache-jena-java 4.5, its ``shacl`` tool) over
the bundled catalog, counted per rule (source shape) against kg's own report of the same data
(multisets of rule names). Skipped with the reason where Jena is not installed; in CI a failure.

Every rule gives the same results, focus node by focus node. The three rules that apply to some
cells or provenances only (``T1Citation``, ``T2Citation``, ``HumanProvenanceAuthor``) once reached them
through a property shape with ``sh:targetNode "T1"``, the inverse path ``^kg:claimTier`` and a nested
``sh:property``: SHACL 4.8.2 validates each value node against the nested shape (kg and pySHACL do),
Jena 4.5 the focus node (the literal), 1 result where kg found 12,242. They are now node shapes on
every subject of the property, "not of this tier, or cited as it asks" (shapes/kg-shapes.ttl), which
every Core engine reads alike; this test fails if a shape of that corner comes back.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import rdflib

import engine_servers
from kg.exports import export

SHAPES = Path(__file__).resolve().parent.parent / "shapes"
SH = rdflib.Namespace("http://www.w3.org/ns/shacl#")
DISPATCHED = ("T1Citation", "T2Citation", "HumanProvenanceAuthor")  # the rules once dispatched


@pytest.fixture(scope="module")
def counts(tmp_path_factory, bundled_store, bundled_report):
    """(Jena's results, kg's results) on the bundled catalog, each a multiset of (rule, focus node)."""
    if not engine_servers.jena_installed():
        engine_servers.unavailable("Apache Jena is not installed (apt-get install libapache-jena-java)")
    folder = tmp_path_factory.mktemp("jena-shacl")
    data, shapes = folder / "data.nt", folder / "shapes.ttl"
    with data.open("wb") as out:
        export(bundled_store, "ntriples", out)
    merged = rdflib.Graph()
    for name in ("kg-shapes.ttl", "kg-cross-shapes.ttl"):
        merged.parse(SHAPES / name, format="turtle")
    merged.serialize(shapes, format="turtle")
    done = engine_servers.jena_tool(folder, "shacl.shacl", "validate", "--shapes", str(shapes), "--data", str(data))
    assert done.returncode == 0, done.stderr[-2000:]
    report = rdflib.Graph().parse(data=done.stdout, format="turtle")
    jena = Counter((str(report.value(r, SH.sourceShape)).rsplit("#", 1)[-1], str(report.value(r, SH.focusNode)))
                   for r in report.objects(None, SH.result))
    # a literal focus node ("license") is written quoted by kg's report, bare by rdflib
    ours = Counter((result.rule, result.focus.strip('"')) for result in bundled_report.results)
    return jena, ours


def _per_rule(found: Counter) -> Counter:
    """Results per rule, from results per (rule, focus node)."""
    per_rule: Counter = Counter()
    for (rule, _), n in found.items():
        per_rule[rule] += n
    return per_rule


def test_jena_counts_every_rule_as_kg_does(counts):
    jena, ours = (_per_rule(found) for found in counts)
    assert sum(ours.values()) > 10_000
    assert sum(ours[rule] for rule in DISPATCHED) > 10_000  # 12,243 of the bundled catalog's 12,586
    assert jena == ours


@pytest.mark.parametrize("rule", DISPATCHED)
def test_jena_finds_the_once_dispatched_rules_where_kg_does(counts, rule):
    """The same results, focus node by focus node (kg: each T2 cell without an http(s) citation)."""
    jena, ours = ({focus: n for (name, focus), n in found.items() if name == rule} for found in counts)
    assert jena == ours


def test_jena_and_kg_give_the_same_results_focus_by_focus(counts):
    jena, ours = counts
    assert jena == ours
