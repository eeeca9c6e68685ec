"""The vocabulary module and the ontology agree; every term has a label and a comment."""

from __future__ import annotations

import pyoxigraph
import pytest

from kg.vocab import KG, KG_CLASSES, KG_INDIVIDUALS, KG_PROPERTIES, ONTOLOGY_FILE, ONTOLOGY_IRI, OWL, RDF, RDFS

TRIPLES = list(pyoxigraph.parse(path=str(ONTOLOGY_FILE)))
DECLARED = {t.subject.value for t in TRIPLES
            if t.predicate == RDF.type and t.subject.value.startswith(KG.iri)}


def test_vocab_lists_exactly_the_ontology_terms():
    in_vocab = {KG.iri + name for name in KG_CLASSES + KG_PROPERTIES + KG_INDIVIDUALS}
    assert in_vocab - DECLARED == set(), "in kg/vocab.py but not declared in the ontology"
    assert DECLARED - in_vocab == set(), "declared in the ontology but missing from kg/vocab.py"


@pytest.mark.parametrize("predicate", [RDFS.label, RDFS.comment])
def test_every_term_has_label_and_comment(predicate):
    having = {t.subject.value for t in TRIPLES if t.predicate == predicate and t.object.value.strip()}
    assert sorted(DECLARED - having) == []


def test_every_kg_iri_used_in_the_ontology_is_declared():
    used = {term.value for t in TRIPLES for term in (t.subject, t.predicate, t.object)
            if isinstance(term, pyoxigraph.NamedNode) and term.value.startswith(KG.iri)}
    assert used - DECLARED == set()


def test_ontology_has_version_iri():
    versions = [t.object.value for t in TRIPLES
                if t.subject.value == ONTOLOGY_IRI and t.predicate == OWL.versionIRI]
    assert versions and versions[0].startswith(ONTOLOGY_IRI + "/")


def test_closed_namespace_rejects_unknown_terms():
    with pytest.raises(AttributeError):
        KG.Sytem  # noqa: B018 - a misspelling must fail, not mint an IRI
