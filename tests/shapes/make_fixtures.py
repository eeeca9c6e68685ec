#!/usr/bin/env python3
"""Writes the SHACL fixtures of this folder: for every rule, a passing and a failing graph.

Each fixture is a small, self-contained Turtle graph under the default base. Its
header says which rule it exercises and what a validation must report:

    # rule: T2Citation
    # expect: none                                    (a passing fixture: no result at all)
    # expect: <focus> | <path> | <severity>           (a failing one: exactly these results)

Run ``python tests/shapes/make_fixtures.py`` after changing a fixture below; the
files are what the tests read (tests/test_validation_rules.py).
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
BASE = "https://w3id.org/agent-landscape/id/"

PREFIXES = f"""@base <{BASE}> .
@prefix kg:      <https://w3id.org/agent-landscape/ontology#> .
@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix schema:  <https://schema.org/> .
@prefix xsd:     <http://www.w3.org/2001/XMLSchema#> .
"""

AXES = ("storage", "retrieval", "persistence", "update", "unit", "governance", "conflict")


def system(sid: str = "alpha", *, identifier: str | None = None, tier: str = "2",
           url: str | None = "<https://alpha.example/>", verified: str | None = '"2026-05-14"^^xsd:date',
           primary_section: bool = True, sections: list[str] | None = None,
           taxonomy: dict[str, list[bool]] | None = None, licence: str | None = "real-data",
           links_license: bool = True, license_node: str = "<http://spdx.org/licenses/MIT>",
           license_typed: bool = True, extra: str = "") -> str:
    """A record that passes every rule, with the given changes."""
    s = f"<system/{sid}>"
    identifier = sid if identifier is None else identifier
    sections = sections if sections is not None else [
        'kg:sectionName "Dedicated memory layers" ; kg:isPrimary true']
    taxonomy = taxonomy if taxonomy is not None else {axis: [True] for axis in AXES}
    lines = [f'{s} a kg:System ;', f'    dcterms:identifier "{identifier}" ;', f"    kg:tier {tier} ;"]
    if url:
        lines.append(f"    schema:url {url} ;")
    if verified:
        lines.append(f"    kg:lastVerified {verified} ;")
    if primary_section:
        lines.append("    kg:primarySection <section/dedicated-memory-layers> ;")
    for i, _ in enumerate(sections):
        lines.append(f"    kg:sectionMembership <system/{sid}/section/{i}> ;")
    for axis, values in taxonomy.items():
        for i, _ in enumerate(values):
            lines.append(f"    kg:taxonomyAssignment <system/{sid}/taxonomy/{axis}/{i}> ;")
    if licence:
        lines.append(f"    kg:cell <system/{sid}/cell/license> ;")
    if links_license:
        lines.append(f"    kg:license {license_node} ;")
    if extra:
        lines.append(extra)
    lines[-1] = lines[-1].rstrip(" ;") + " ."
    for i, body in enumerate(sections):
        lines.append(f"<system/{sid}/section/{i}> a kg:SectionMembership ; {body} .")
    for axis, values in taxonomy.items():
        for i, primary in enumerate(values):
            lines.append(f"<system/{sid}/taxonomy/{axis}/{i}> a kg:TaxonomyAssignment ; "
                         f"kg:axis <scheme/taxonomy/{axis}> ; kg:isPrimary {'true' if primary else 'false'} .")
    if licence:
        lines.append(f'<system/{sid}/cell/license> a kg:Cell ; kg:column <column/license> ; kg:status "{licence}" ; '
                     f'kg:claimTier "T1" ; kg:citation <https://github.com/{sid}/{sid}/blob/main/LICENSE> .')
        lines.append('<column/license> a kg:Column ; dcterms:identifier "license" .')
    if links_license and license_typed:
        lines.append(f"{license_node} a kg:License .")
    return "\n".join(lines) + "\n"


def cell(name: str = "desc", sid: str = "alpha", *, status: str | None = '"real-data"',
         tier: str | None = '"T2"', citation: str | None = "<https://alpha.example/docs>",
         verified: str | None = None) -> str:
    """A cell on its own (no record: only the cell rules apply)."""
    parts = ["a kg:Cell", f"kg:column <column/{name}>"]
    if status:
        parts.append(f"kg:status {status}")
    if tier:
        parts.append(f"kg:claimTier {tier}")
    if citation:
        parts.append(f"kg:citation {citation}")
    if verified:
        parts.append(f"kg:lastVerified {verified}")
    return f"<system/{sid}/cell/{name}> " + " ; ".join(parts) + " .\n"


def relation(source: str = "alpha", target: str = "beta", kind: str = "built-on", *, name: str | None = None,
             evidence: str | None = '"Built on beta\'s storage engine."',
             citation: str | None = "<https://alpha.example/docs/architecture>",
             influential: str | None = None, with_source: bool = True, with_target: bool = True) -> str:
    node = f"<relation/{name or f'{source}/{kind}/{target}'}>"
    parts = ["a kg:Relation", f'kg:edgeType "{kind}"']
    if with_source:
        parts.append(f"kg:source <system/{source}>")
    if with_target:
        parts.append(f"kg:target <system/{target}>")
    if evidence is not None:
        parts.append(f"kg:evidence {evidence}")
    if citation is not None:
        parts.append(f"kg:citation {citation}")
    if influential is not None:
        parts.append(f"kg:isInfluential {influential}")
    return f"{node} " + " ;\n    ".join(parts) + " .\n"


TWO = system("alpha") + system("beta", url="<https://beta.example/>")
S = f"{BASE}system/"
R = f"{BASE}relation/"

# rule -> (passing graph, failing graph, expected results of the failing graph: (focus, path, severity))
FIXTURES: dict[str, tuple[str, str, list[tuple[str, str | None, str]]]] = {
    "SystemIdentifier": (
        system(identifier="alpha--alpha-example"),
        system(identifier="Alpha_1"),
        [(f"{S}alpha", "dcterms:identifier", "Violation")]),
    "SystemTier": (
        system(tier="5"),
        system(tier="6"),
        [(f"{S}alpha", "kg:tier", "Violation")]),
    "SystemUrl": (
        system(url=None),
        system(url="<ftp://alpha.example/>"),
        [(f"{S}alpha", "schema:url", "Violation")]),
    "SystemLastVerified": (
        system(verified='"2024-02-29"^^xsd:date'),
        system(verified='"2026-05-14T10:00:00"'),
        [(f"{S}alpha", "kg:lastVerified", "Violation")]),
    "SystemPrimarySection": (
        system(),
        system(primary_section=False),
        [(f"{S}alpha", "kg:primarySection", "Violation")]),
    "SystemOnePrimaryListing": (
        system(sections=['kg:sectionName "Dedicated memory layers" ; kg:isPrimary true',
                         'kg:sectionName "Framework-embedded memory" ; kg:isPrimary false']),
        system(sections=['kg:sectionName "Dedicated memory layers" ; kg:isPrimary true',
                         'kg:sectionName "Framework-embedded memory" ; kg:isPrimary true']),
        [(f"{S}alpha", "kg:sectionMembership", "Violation")]),
    "CanonicalSection": (
        system(sections=['kg:sectionName "Vector-database infrastructure" ; kg:isPrimary true']),
        system(sections=['kg:sectionName "Training infrastructure" ; kg:isPrimary true']),
        [(f"{S}alpha/section/0", "kg:sectionName", "Warning")]),
    "SubsectionSection": (
        system(sections=['kg:sectionName "Vertical / domain-specific AI memory" ; kg:isPrimary true ; '
                         'kg:subsection "Healthcare"']),
        system(sections=['kg:sectionName "Dedicated memory layers" ; kg:isPrimary true ; '
                         'kg:subsection "Healthcare"']),
        [(f"{S}alpha/section/0", "kg:sectionName", "Violation")]),
    "DecayCause": (
        system(extra='    kg:decayCause "research-complete" ;'),
        system(extra='    kg:decayCause "bankrupt" ;'),
        [(f"{S}alpha", "kg:decayCause", "Violation")]),
    "DecayDate": (
        system(extra='    kg:decayDate "2025-11-30"^^xsd:date ;'),
        system(extra='    kg:decayDate "late 2025" ;'),
        [(f"{S}alpha", "kg:decayDate", "Violation")]),
    "LicenseValue": (
        system(license_node="<license/proprietary>"),
        system(license_node="<license/proprietary>", license_typed=False),
        [(f"{S}alpha", "kg:license", "Violation")]),
    "LicenceCellLinksLicense": (
        system(licence="not-applicable", links_license=False),
        system(licence="real-data", links_license=False),
        [('"license"', "^dcterms:identifier/^kg:column", "Violation")]),
    "CellStatus": (
        cell(status='"estimate"', tier='"T3"', citation=None),
        cell(status='"guessed"'),
        [(f"{S}alpha/cell/desc", "kg:status", "Violation")]),
    "CellClaimTier": (
        cell(tier='"T3"', citation=None),
        cell(tier='"T4"'),
        [(f"{S}alpha/cell/desc", "kg:claimTier", "Violation")]),
    "CellLastVerified": (
        cell(verified='"2026-05-14"^^xsd:date'),
        cell(verified='"14/05/2026"'),
        [(f"{S}alpha/cell/desc", "kg:lastVerified", "Violation")]),
    "T1Citation": (
        cell("gh", tier='"T1"', citation="<https://github.com/alpha/alpha>"),
        cell("gh", tier='"T1"', citation="<https://gitlab.com/alpha/alpha>"),
        [(f"{S}alpha/cell/gh", "kg:citation", "Violation")]),
    "T2Citation": (
        cell(tier='"T2"', citation="<http://alpha.example/about>"),
        cell(tier='"T2"', citation=None),
        [(f"{S}alpha/cell/desc", "kg:citation", "Violation")]),
    "ProvenanceSource": (
        '<system/alpha/provenance/desc> a kg:Provenance ; kg:column <column/desc> ; kg:provenanceSource "scrape" .\n',
        '<system/alpha/provenance/desc> a kg:Provenance ; kg:column <column/desc> ; kg:provenanceSource "crowd" .\n',
        [(f"{S}alpha/provenance/desc", "kg:provenanceSource", "Violation")]),
    "HumanProvenanceAuthor": (
        '<system/alpha/provenance/desc> a kg:Provenance ; kg:provenanceSource "human" ; kg:author "ana" .\n'
        '<system/alpha/provenance/pros> a kg:Provenance ; kg:provenanceSource "llm" .\n',
        '<system/alpha/provenance/desc> a kg:Provenance ; kg:provenanceSource "human" .\n',
        [(f"{S}alpha/provenance/desc", "kg:author", "Violation")]),
    "ProtocolSupportMode": (
        "<system/alpha/protocol/mcp> a kg:ProtocolSupport ; kg:protocol kg:MCP ; kg:supportMode kg:AdapterSupport .\n",
        "<system/alpha/protocol/mcp> a kg:ProtocolSupport ; kg:protocol kg:MCP ; kg:supportMode kg:Hosted .\n",
        [(f"{S}alpha/protocol/mcp", "kg:supportMode", "Violation")]),
    "ProtocolSupportProtocol": (
        "<system/alpha/protocol/a2a> a kg:ProtocolSupport ; kg:protocol kg:A2A ; kg:supportMode kg:NoSupportFound .\n",
        "<system/alpha/protocol/a2a> a kg:ProtocolSupport ; kg:supportMode kg:NoSupportFound .\n",
        [(f"{S}alpha/protocol/a2a", "kg:protocol", "Violation")]),
    "RelationSource": (
        TWO + relation(),
        TWO + relation(with_source=False),
        [(f"{R}alpha/built-on/beta", "kg:source", "Violation")]),
    "RelationTarget": (
        TWO + relation(),
        TWO + relation(with_target=False),
        [(f"{R}alpha/built-on/beta", "kg:target", "Violation")]),
    "NoSelfEdge": (
        TWO + relation("beta", "alpha", "competes-with"),
        TWO + relation("alpha", "alpha", "competes-with"),
        [(f"{R}alpha/competes-with/alpha", "kg:source", "Violation")]),
    "EdgeType": (
        TWO + relation(kind="inspired-by"),
        TWO + relation(kind="depends-on"),
        [(f"{R}alpha/depends-on/beta", "kg:edgeType", "Violation")]),
    "InfluentialOnlyOnCites": (
        TWO + relation(kind="cites", influential="true"),
        TWO + relation(kind="extends", influential="false"),
        [(f"{R}alpha/extends/beta", "kg:edgeType", "Violation")]),
    "IsInfluentialBoolean": (
        TWO + relation(kind="cites", influential="false"),
        TWO + relation(kind="cites", influential='"yes"'),
        [(f"{R}alpha/cites/beta", "kg:isInfluential", "Violation")]),
    "EdgeCitation": (
        TWO + relation(citation="<http://beta.example/paper>"),
        TWO + relation(citation='"see the paper"'),
        [(f"{R}alpha/built-on/beta", "kg:citation", "Violation")]),
    "EdgeEvidence": (
        TWO + relation(evidence='"' + "x" * 500 + '"'),
        TWO + relation(evidence='"' + "x" * 501 + '"'),
        [(f"{R}alpha/built-on/beta", "kg:evidence", "Violation")]),
    "EdgeEvidence-blank": (
        TWO + relation(evidence='" beta "'),
        TWO + relation(evidence='" \\t "'),
        [(f"{R}alpha/built-on/beta", "kg:evidence", "Violation")]),
    "RelationSourceIsSystem": (
        TWO + relation(),
        TWO + relation(source="ghost"),
        [(f"{R}ghost/built-on/beta", "kg:source", "Violation")]),
    "RelationTargetIsSystem": (
        TWO + relation(),
        TWO + relation(target="ghost"),
        [(f"{R}alpha/built-on/ghost", "kg:target", "Violation")]),
    "UniqueEdge": (
        TWO + relation() + relation(kind="integrates-with"),
        TWO + relation() + relation(name="alpha/built-on/beta/again"),
        [(f"{R}alpha/built-on/beta", None, "Violation"),
         (f"{R}alpha/built-on/beta/again", None, "Violation")]),
    "UniqueSystemIdentifier": (
        TWO,
        system("alpha") + system("alpha-2", identifier="alpha"),
        [('"alpha"', "^dcterms:identifier", "Violation")]),
}
TAXONOMY_CASES = {
    "storage": {"storage": [True, True]},                 # two primary values
    "retrieval": {"retrieval": []},                      # the axis is missing
    "persistence": {"persistence": [False]},             # no primary value
    "update": {"update": [False, True, True]},
    "unit": {"unit": []},
    "governance": {"governance": [False, False]},
    "conflict": {"conflict": [True, False, True]},
}
for axis, change in TAXONOMY_CASES.items():
    taxonomy = {a: [True] for a in AXES}
    taxonomy.update(change)
    if not taxonomy[axis]:
        del taxonomy[axis]
    passing = {a: [True] for a in AXES}
    passing[axis] = [False, True, False]  # secondary values are fine
    FIXTURES["Taxonomy" + axis.capitalize()] = (
        system(taxonomy=passing), system(taxonomy=taxonomy),
        [(f"{S}alpha", "kg:taxonomyAssignment", "Violation")])


def header(rule: str, expected: list[tuple[str, str | None, str]] | None) -> str:
    lines = [f"# rule: {rule.split('-')[0]}"]
    if not expected:
        lines.append("# expect: none")
    for focus, path, severity in expected or []:
        lines.append(f"# expect: {focus} | {path or '-'} | {severity}")
    return "\n".join(lines) + "\n"


def main() -> None:
    for old in HERE.glob("*.ttl"):
        old.unlink()
    for name, (passing, failing, expected) in sorted(FIXTURES.items()):
        (HERE / f"{name}.pass.ttl").write_text(header(name, None) + PREFIXES + "\n" + passing, encoding="utf-8")
        (HERE / f"{name}.fail.ttl").write_text(header(name, expected) + PREFIXES + "\n" + failing, encoding="utf-8")
    print(f"wrote {2 * len(FIXTURES)} fixtures to {HERE}")


if __name__ == "__main__":
    main()
