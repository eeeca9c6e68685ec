"""The files generated from the ontology (ontology/README.md, ontology/diagram.dot and the SVG Graphviz
draws from it, ontology/context.jsonld) are current, complete and factual, and ``python -m kg.ontodoc``,
the maintainers' command that writes them, checks them as a real process.

Expectations are read from ontology/kg.ttl with pyoxigraph here, not through kg.ontodoc. The tests that
draw with Graphviz are skipped where its ``dot`` is not installed; the others hold on every machine.
"""

from __future__ import annotations

import copy
import inspect
import json
import hashlib
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict

import pyoxigraph
import pytest

from kg import ontodoc
from kg.cli import main
from kg.errors import UsageError
from kg.mapping import record_quads
from kg.records import record_from_json
from kg.vocab import DEFAULT_BASE, KG, ONTOLOGY_DIR, ONTOLOGY_FILE, OWL, RDF, RDFS, SCHEMA, SKOS, Iris

PARSER = pyoxigraph.parse(path=str(ONTOLOGY_FILE), format=pyoxigraph.RdfFormat.TURTLE)
TRIPLES = list(PARSER)
PREFIXES = dict(PARSER.prefixes)
TERMS = sorted({t.subject.value for t in TRIPLES if t.subject.value.startswith(KG.iri)})
README = (ONTOLOGY_DIR / "README.md").read_text(encoding="utf-8")
SVG = (ONTOLOGY_DIR / "diagram.svg").read_text(encoding="utf-8")
DOT = (ONTOLOGY_DIR / "diagram.dot").read_text(encoding="utf-8")
HAS_GRAPHVIZ = shutil.which("dot") is not None
needs_graphviz = pytest.mark.skipif(not HAS_GRAPHVIZ, reason="Graphviz dot is not installed")
MAIN_CLASSES = ["System", "Vendor", "License", "Protocol", "ProtocolSupport", "SupportMode", "DeploymentMode",
                "Cell", "Column", "Provenance", "SectionMembership", "TaxonomyAssignment", "HistoryEntry",
                "FieldChange", "Relation", "PublicationVenue", "skos:Concept"]
SVG_NS = "{http://www.w3.org/2000/svg}"


def _objects(subject: str, predicate: pyoxigraph.NamedNode) -> list[str]:
    return [t.object.value for t in TRIPLES if t.subject.value == subject and t.predicate == predicate]


def _curie(iri: str) -> str:
    for prefix, ns in PREFIXES.items():
        if iri.startswith(ns) and iri != ns:
            return f"{prefix}:{iri[len(ns):]}"
    return iri


def _plain(markdown: str) -> str:
    """The Markdown with its escapes undone, to look for the ontology's own text in it."""
    return re.sub(r"\\(.)", r"\1", markdown).replace("&lt;", "<").replace("&gt;", ">")


def _row(local: str) -> str:
    """The table row that documents a property or an individual."""
    rows = [line for line in README.splitlines() if f'<a id="p-{local.lower()}"></a>' in line
            or f'<a id="i-{local.lower()}"></a>' in line]
    assert len(rows) == 1, f"kg:{local} should have exactly one row"
    return rows[0]


def test_generated_files_equal_what_the_generator_makes_now():
    outputs = ontodoc.render()
    expected = ["README.md", "context.jsonld", "diagram.dot"] + (["diagram.svg"] if HAS_GRAPHVIZ else [])
    assert sorted(p.name for p in outputs) == expected
    assert ontodoc.stale(outputs) == [], "generated docs are out of date: run 'python -m kg.ontodoc'"


def test_the_maintainers_check_passes_on_the_committed_files_and_kg_has_no_verb_for_it():
    done = subprocess.run([sys.executable, "-m", "kg.ontodoc", "--check"], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0 and done.stdout == "", done.stderr
    assert done.stderr.startswith("up to date: ") and "context.jsonld" in done.stderr
    with pytest.raises(SystemExit) as refused:
        main(["docs", "--check"])  # a user's kg: the files ship generated
    assert refused.value.code == 2


def test_the_json_ld_context_has_a_term_for_every_term_of_the_ontology():
    """Each kg term by its local name (object properties coerce to IRIs), beside the prefixes of kg.vocab."""
    from kg.vocab import PREFIXES as VOCAB_PREFIXES

    context = json.loads((ONTOLOGY_DIR / "context.jsonld").read_text(encoding="utf-8"))["@context"]
    objects = {t.subject.value for t in TRIPLES if t.predicate == RDF.type and t.object == OWL.ObjectProperty}
    expected = {iri[len(KG.iri):]: ({"@id": "kg:" + iri[len(KG.iri):], "@type": "@id"} if iri in objects
                                    else "kg:" + iri[len(KG.iri):]) for iri in TERMS}
    prefixes = {k: v for k, v in VOCAB_PREFIXES.items() if k != "sh"}
    assert context == {"@version": 1.1, **prefixes, **expected}
    assert len(expected) > 100 and context["builtOn"] == {"@id": "kg:builtOn", "@type": "@id"}


def test_stale_and_write_catch_and_fix_drift(tmp_path):
    outputs = {tmp_path / name: text for name, text in
               (("README.md", "# doc\n"), ("diagram.svg", "<svg xmlns='http://www.w3.org/2000/svg'/>\n"))}
    assert ontodoc.stale(outputs) == sorted(outputs)  # missing files are stale
    assert ontodoc.write(outputs) == sorted(outputs)
    assert ontodoc.stale(outputs) == [] and ontodoc.write(outputs) == []
    (tmp_path / "README.md").write_text("# hand edited\n", encoding="utf-8")
    assert ontodoc.stale(outputs) == [tmp_path / "README.md"]


def test_header_says_generated_and_how():
    header = "Generated by `python -m kg.ontodoc` from ontology/kg.ttl \u2014 do not edit; edit the ontology instead."
    assert README.splitlines()[2] == header
    assert DOT.splitlines()[0] == "// " + header.replace("`", "")
    assert "Generated by python -m kg.ontodoc from ontology/kg.ttl" in SVG.splitlines()[1]
    assert "Drawn from diagram.dot by Graphviz dot" in SVG.splitlines()[1]


def test_ontology_iri_and_version_iri_are_shown():
    ontology = next(t.subject.value for t in TRIPLES if t.object == OWL.Ontology)
    (version,) = _objects(ontology, OWL.versionIRI)
    assert f"| Ontology IRI | <{ontology}> |" in README
    assert f"| Version IRI | <{version}> |" in README


@pytest.mark.parametrize("iri", TERMS, ids=lambda iri: iri.rsplit("#", 1)[-1])
def test_every_term_appears_with_its_label_and_comment(iri):
    local = iri[len(KG.iri):]
    assert f"`kg:{local}`" in README
    plain = _plain(README)
    for predicate in (RDFS.label, RDFS.comment):
        for text in _objects(iri, predicate):
            assert " ".join(text.split()) in plain, f"{predicate.value} of kg:{local} missing"


PROPERTIES = [t for t in TERMS if set(_objects(t, RDF.type)) & {OWL.ObjectProperty.value, OWL.DatatypeProperty.value}]


@pytest.mark.parametrize("iri", PROPERTIES, ids=lambda iri: iri.rsplit("#", 1)[-1])
def test_property_rows_carry_domain_range_super_property_and_notation(iri):
    row = _row(iri[len(KG.iri):])
    for predicate in (RDFS.domain, RDFS.range, RDFS.subPropertyOf, SCHEMA.domainIncludes):
        for value in _objects(iri, predicate):
            assert f"`{_curie(value)}`" in row, f"{predicate.value} {value} missing from the row"
    for notation in _objects(iri, SKOS.notation):
        assert f"`{notation}`" in row


def test_edge_types_are_documented_with_their_notation():
    edge_props = [t.subject.value for t in TRIPLES if t.predicate == RDFS.subPropertyOf and t.object == KG.relatedTo]
    assert len(edge_props) == 10
    for iri in edge_props:
        (notation,) = _objects(iri, SKOS.notation)
        assert f"edge type `{notation}`" in _row(iri[len(KG.iri):])


def test_classes_list_superclasses_and_the_properties_whose_domain_they_are():
    classes = [t.subject.value for t in TRIPLES if t.object == OWL.Class and t.subject.value.startswith(KG.iri)]
    sections = re.split(r"\n### ", README.split("\n## Classes\n", 1)[1].split("\n## Object properties\n")[0])
    by_class = {}
    for section in sections:
        found = re.search(r'<a id="c-[a-z]+"></a>`kg:(\w+)`', section)
        if found:
            by_class[found.group(1)] = section
    assert sorted(by_class) == sorted(c[len(KG.iri):] for c in classes)
    for cls in classes:
        section = by_class[cls[len(KG.iri):]]
        for parent in _objects(cls, RDFS.subClassOf):
            assert f"`{_curie(parent)}`" in section.split("**Subclass of:**", 1)[1].split("\n")[0]
        domain_of = [t.subject.value for t in TRIPLES if t.predicate == RDFS.domain and t.object.value == cls]
        listed = [line for line in section.splitlines() if "properties with this domain:**" in line.lower()]
        assert listed, f"{cls} has no line for the properties whose domain it is"
        found = [name for line in listed for name in re.findall(r"`kg:(\w+)`", line)]
        assert sorted(found) == sorted(p[len(KG.iri):] for p in domain_of)


def test_individuals_are_grouped_by_class_with_notation():
    individuals = [t.subject.value for t in TRIPLES if t.object == OWL.NamedIndividual]
    assert len(individuals) == 12
    for iri in individuals:
        row = _row(iri[len(KG.iri):])
        for notation in _objects(iri, SKOS.notation):
            assert f"`{notation}`" in row
    for heading in ("### Protocol individuals", "### Support mode individuals", "### Deployment mode individuals"):
        assert heading in README


def test_reused_vocabularies_table_lists_what_is_reused_from_each():
    table = README.split("## Reused vocabularies", 1)[1].split("## Classes", 1)[0]
    rows = {line.split("|")[1].strip(): line for line in table.splitlines() if line.startswith("| `")}
    referenced = set()
    for t in TRIPLES:
        for term in (t.predicate, t.object):
            if isinstance(term, pyoxigraph.NamedNode) and not term.value.startswith(KG.iri):
                referenced |= {p for p, ns in PREFIXES.items() if term.value.startswith(ns) and term.value != ns}
    referenced.discard("kg")
    assert {"schema", "skos", "prov", "dcterms", "doap"} <= referenced
    assert sorted(r.strip("`:") for r in rows) == sorted(referenced)
    for t in TRIPLES:
        if t.predicate in (RDFS.subClassOf, SKOS.closeMatch, RDFS.range) and not t.object.value.startswith(KG.iri):
            prefix = _curie(t.object.value).split(":")[0]
            assert f"`{_curie(t.object.value)}`" in rows[f"`{prefix}:`"]
    assert "**close match:** `doap:Project` (System)" in rows["`doap:`"]
    assert "`prov:Entity` (Cell, Provenance, SourceFile, System)" in rows["`prov:`"]


def test_svg_is_well_formed_and_names_every_main_class():
    root = ET.fromstring(SVG)
    assert root.tag == f"{SVG_NS}svg"
    texts = [el.text for el in root.iter(f"{SVG_NS}text")]
    for name in MAIN_CLASSES:
        assert name in texts, f"{name} has no box"


def test_svg_draws_every_object_property_between_main_classes():
    main = {KG.iri + c if ":" not in c else SKOS.iri + c.split(":")[1] for c in MAIN_CLASSES}
    words = set()
    for el in ET.fromstring(SVG).iter(f"{SVG_NS}text"):
        words |= set(re.findall(r"[A-Za-z]+", el.text or ""))
    expected = set()
    for t in TRIPLES:
        if t.predicate in (RDFS.domain, SCHEMA.domainIncludes) and t.object.value in main:
            if any(r in main for r in _objects(t.subject.value, RDFS.range)):
                expected.add(t.subject.value[len(KG.iri):])
    assert {"vendor", "cell", "protocol", "supportMode", "column", "builtOn", "inspiredBy", "source"} <= expected
    assert expected - words == set()


def _stamped(drawing: str, dot: str) -> str:
    """An SVG carrying the stamp python -m kg.ontodoc writes, made here from the digests."""
    digest = {name: hashlib.sha256(text.encode()).hexdigest() for name, text in (("dot", dot), ("svg", drawing))}
    head, body = drawing.split("\n", 1)
    return (f"{head}\n<!-- Generated by python -m kg.ontodoc from x.ttl. dot-sha256={digest['dot']} "
            f"svg-sha256={digest['svg']} -->\n{body}")


def test_committed_svg_was_drawn_from_the_committed_dot_and_left_as_drawn():
    # Graphviz lays the diagram out (no overlap checks of a hand-made layout are needed); what must hold
    # on every machine is that the SVG was drawn from the current DOT and not edited since
    assert ontodoc.diagram.svg_current(SVG, DOT)
    assert not ontodoc.diagram.svg_current(SVG.replace(">System<", ">Systen<"), DOT)  # a hand edit
    assert not ontodoc.diagram.svg_current(SVG, DOT.replace("kg:Vendor", "kg:Seller"))  # an older drawing


def test_dot_source_names_every_main_class_and_property_between_them():
    boxes = set(re.findall(r'^  "([a-z]+:\w+)" \[label=', DOT, re.M))
    assert boxes == {c if ":" in c else f"kg:{c}" for c in MAIN_CLASSES}
    arrows = re.findall(r'^  "([a-z]+:\w+)" -> "([a-z]+:\w+)" \[label="([^"]*)"', DOT, re.M)
    assert ("kg:System", "kg:Vendor", "vendor\\n") in arrows
    assert all(s in boxes and t in boxes for s, t, _ in arrows)


def test_svg_stamp_ties_the_drawing_to_its_dot(tmp_path):
    dot, drawing = "digraph { a -> b }\n", "<?xml version='1.0'?>\n<svg xmlns='http://www.w3.org/2000/svg'/>\n"
    outputs = {tmp_path / "README.md": "# doc\n", tmp_path / "diagram.dot": dot}
    (tmp_path / "README.md").write_text("# doc\n", encoding="utf-8")
    (tmp_path / "diagram.dot").write_text(dot, encoding="utf-8")
    assert ontodoc.stale(outputs) == [tmp_path / "diagram.svg"]  # missing, though not in outputs
    with pytest.raises(UsageError, match="Graphviz"):
        ontodoc.write(outputs)  # nothing to draw it with
    (tmp_path / "diagram.svg").write_text(_stamped(drawing, dot), encoding="utf-8")
    assert ontodoc.stale(outputs) == []
    # a drawing of the same DOT by another Graphviz is not drift: the stamp decides, not the bytes
    assert ontodoc.stale({**outputs, tmp_path / "diagram.svg": "<svg/>"}) == []
    (tmp_path / "diagram.svg").write_text(_stamped(drawing, dot).replace("<svg ", "<svg id='x' "), encoding="utf-8")
    assert ontodoc.stale(outputs) == [tmp_path / "diagram.svg"]  # edited by hand
    (tmp_path / "diagram.svg").write_text(_stamped(drawing, "digraph { a }\n"), encoding="utf-8")
    assert ontodoc.stale(outputs) == [tmp_path / "diagram.svg"]  # drawn from another DOT


@needs_graphviz
def test_graphviz_draws_the_dot_into_a_current_svg():
    svg = ontodoc.diagram.render_svg(DOT, "ontology/kg.ttl")
    assert svg is not None and ontodoc.diagram.svg_current(svg, DOT)
    texts = [el.text for el in ET.fromstring(svg).iter(f"{SVG_NS}text")]
    assert "System" in texts and "skos:Concept" in texts


def test_generator_documents_any_new_term(tmp_path):
    extra = """
kg:fancyScore a owl:DatatypeProperty ; rdfs:domain kg:System ; rdfs:range xsd:double ;
    rdfs:label "fancy score"@en ; rdfs:comment "A score | with <odd> *characters*."@en .
kg:Widget a owl:Class ; rdfs:subClassOf schema:CreativeWork ;
    rdfs:label "Widget"@en ; rdfs:comment "A new class."@en .
kg:hasWidget a owl:ObjectProperty ; rdfs:domain kg:System ; rdfs:range kg:Widget ;
    rdfs:label "has widget"@en ; rdfs:comment "Links a system to a widget."@en .
kg:note a owl:AnnotationProperty ; rdfs:label "note"@en ; rdfs:comment "An annotation."@en .
kg:Gizmo a owl:NamedIndividual, kg:Widget ; skos:notation "gizmo" ;
    rdfs:label "gizmo"@en ; rdfs:comment "One widget."@en .
"""
    ttl = tmp_path / "ontology" / "kg.ttl"
    ttl.parent.mkdir()
    ttl.write_text(ONTOLOGY_FILE.read_text(encoding="utf-8") + extra, encoding="utf-8")
    outputs = ontodoc.render(ttl)
    md = outputs[ttl.parent / "README.md"]
    for term in ("fancyScore", "Widget", "hasWidget", "note", "Gizmo"):
        assert f"`kg:{term}`" in md
    assert "A score \\| with &lt;odd&gt; \\*characters\\*." in md  # one table cell, no HTML, no emphasis
    assert "`schema:CreativeWork` (Widget)" in md
    assert "## Annotation properties" in md and "### Widget individuals" in md
    assert "hasWidget" not in outputs[ttl.parent / "diagram.dot"]  # kg:Widget is no main class: not drawn
    if HAS_GRAPHVIZ:
        ET.fromstring(outputs[ttl.parent / "diagram.svg"])
        assert ontodoc.write(outputs) == sorted(outputs) and ontodoc.stale(outputs) == []
    else:
        with pytest.raises(UsageError, match="Graphviz"):
            ontodoc.write(outputs)
        assert not (ttl.parent / "README.md").exists()  # nothing written


def test_unreadable_ontology_is_a_source_error(tmp_path):
    from kg.errors import SourceError

    bad = tmp_path / "kg.ttl"
    bad.write_text("kg:x a", encoding="utf-8")
    with pytest.raises(SourceError):
        ontodoc.load(bad)


# --- Named graphs and IRI patterns: documented patterns agree with the IRIs the code mints


def _regex(pattern: str, base: str) -> re.Pattern:
    parts = re.split(r"(\{[a-z]+\})", pattern)
    out = ""
    for part in parts:
        if part == "{base}":
            out += re.escape(base)
        elif part == "{node}":
            out += ".+"
        elif re.fullmatch(r"\{[a-z]+\}", part):
            out += "[^/]+"
        else:
            out += re.escape(part)
    return re.compile(out + r"\Z")


def _documented_patterns() -> dict[str, list[str]]:
    """Class IRI -> IRI patterns, read back from the README's table."""
    table = README.split("## Named graphs and IRI patterns", 1)[1]
    found = defaultdict(list)
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 4 and cells[1].startswith("`") and cells[3]:
            iri = re.search(r"\]\(([^)]+)\)", cells[3]).group(1)
            if iri.startswith("#c-"):
                iri = KG.iri + next(t[len(KG.iri):] for t in TERMS if t[len(KG.iri):].lower() == iri[3:])
            found[iri].append(cells[1].strip("`"))
    return found


def test_iri_patterns_match_every_typed_node_of_the_real_graph(bundled_store, seed_record):
    patterns = _documented_patterns()
    assert len(patterns) >= 15
    instances: dict[str, set[str]] = defaultdict(set)
    for row in bundled_store.select("SELECT DISTINCT ?s ?c WHERE { ?s a ?c }"):
        if row["c"].value in patterns and isinstance(row["s"], pyoxigraph.NamedNode):
            instances[row["c"].value].add(row["s"].value)
    # the bundled data has no _provenance and no unknown keys: map the seed record with both added
    record = copy.deepcopy(seed_record)
    record["_provenance"] = {"license": {"source": "human", "verified": True, "author": "a reviewer"}}
    record["an_unknown_key"] = [1, 2]
    own, shared = record_quads(record_from_json(record), Iris())
    for q in own + shared:
        if q.predicate == RDF.type and q.object.value in patterns:
            instances[q.object.value].add(q.subject.value)
    for cls, cls_patterns in sorted(patterns.items()):
        regexes = [_regex(p, DEFAULT_BASE) for p in cls_patterns]
        assert instances[cls], f"no instance of {cls} to check"
        unmatched = [i for i in instances[cls] if not any(r.match(i) for r in regexes)]
        assert unmatched == [], f"{cls}: {unmatched[:3]} match no documented pattern"
        for pattern, regex in zip(cls_patterns, regexes):
            assert any(regex.match(i) for i in instances[cls]), f"{pattern} matches no {cls} in the data"


def test_every_named_graph_of_the_real_graph_is_documented(bundled_store):
    table = README.split("| Named graph | Minted by | Holds |", 1)[1].split("\n\n", 1)[0]
    patterns = [_regex(m, DEFAULT_BASE) for m in re.findall(r"^\| `([^`]+)`", table, re.M)]
    assert len(patterns) >= 7
    graphs = [g.value for g in bundled_store.named_graphs()]
    assert len(graphs) > 900
    assert [g for g in graphs if not any(p.match(g) for p in patterns)] == []


def test_every_iri_minting_member_of_iris_is_documented():
    iris = Iris()

    def mints(name: str) -> bool:  # an IRI attribute, or a method that returns one (not the inverses)
        member = getattr(iris, name)
        if isinstance(member, pyoxigraph.NamedNode):
            return True
        return callable(member) and "NamedNode" in str(inspect.signature(member).return_annotation)

    members = [name for name in dir(iris) if not name.startswith("_") and name != "base" and mints(name)]
    assert "system" in members and "edges_graph" in members
    assert [m for m in members if f"`Iris.{m}" not in README] == []
    assert sorted(name for name, _, _ in ontodoc.named_graphs()) == sorted(ontodoc.GRAPH_NOTES)
