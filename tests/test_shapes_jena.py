"""kg's shapes run by Apache Jena's SHACL engine (Debian's libapache-jena-java 4.5, its ``shacl`` tool) over
the bundled catalog, compared with kg's own report of the same data, rule by rule and focus node by
focus node (multisets of (rule, focus node)). Skipped with the reason where Jena is not installed; in CI
a failure.

Every rule gives the same results but the three that apply to some cells or provenances only
(``T1Citation``, ``T2Citation``, ``HumanProvenanceAuthor``), a known divergence of Jena 4.5 that the
test pins down: they reach their cells from the tier's literal (``sh:targetNode "T2"``, the path
``^kg:claimTier``) and check each with a nested ``sh:property``, which SHACL 4.8.2 applies to each value
node (each T2 cell: kg and pySHACL do) and Jena 4.5 to the focus node (the literal "T2"): at most one
result each, on the literal, where kg reports 12,243 on cells. The shapes keep that form (shapes/README.md
says why: kg:citation / kg:author as each result's path, and a third less validation time than a
portable node shape with sh:or); docs/guide/push.md tells a Fuseki user to read those rules from kg.
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
DISPATCHED = ("T1Citation", "T2Citation", "HumanProvenanceAuthor")  # reached from a literal (the docstring)
LITERALS = {"T1Citation": "T1", "T2Citation": "T2", "HumanProvenanceAuthor": "human"}


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


def test_jena_counts_every_other_rule_as_kg_does(counts):
    jena, ours = (_per_rule(found) for found in counts)
    assert sum(ours.values()) > 10_000
    assert sum(ours[rule] for rule in DISPATCHED) > 10_000  # 12,243 of the bundled catalog's 12,586
    others = (set(jena) | set(ours)) - set(DISPATCHED)
    assert {rule: jena[rule] for rule in others} == {rule: ours[rule] for rule in others}
    assert sum(ours[rule] for rule in others) > 100  # CanonicalSection, LicenceCellLinksLicense on this catalog


def test_jena_and_kg_give_the_same_results_focus_by_focus_on_every_other_rule(counts):
    jena, ours = ({key: n for key, n in found.items() if key[0] not in DISPATCHED} for found in counts)
    assert jena == ours and len(ours) > 100


@pytest.mark.parametrize("rule", DISPATCHED)
def test_jena_checks_a_dispatched_rule_on_its_literal_not_on_each_cell(counts, rule):
    """Jena 4.5's known divergence, pinned: kg's results on cells (provenances), Jena's at most one,
    on the literal the rule starts from. The day Jena follows 4.8.2 this fails: then compare them too."""
    jena, ours = ({focus: n for (name, focus), n in found.items() if name == rule} for found in counts)
    assert all(focus.startswith("https://w3id.org/agent-landscape/id/") for focus in ours)  # none: HumanProvenanceAuthor
    assert set(jena) <= {LITERALS[rule]} and sum(jena.values()) <= 1
