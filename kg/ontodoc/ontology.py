"""The ontology file read for its documentation: terms by kind, labels, comments and CURIEs.

>>> onto = load()
>>> onto.label(KG.System.value)
'System'
>>> onto.curie("http://www.w3.org/ns/prov#Entity")
'prov:Entity'
>>> onto.kind(KG.builtOn.value)
'object property'
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph
from pyoxigraph import Literal, NamedNode

from ..errors import SourceError
from ..vocab import KG, KG_NS, ONTOLOGY_FILE, ONTOLOGY_IRI, OWL, RDF, RDFS

KIND_CLASS, KIND_OBJECT, KIND_DATATYPE, KIND_ANNOTATION, KIND_INDIVIDUAL, KIND_OTHER = (
    "class", "object property", "datatype property", "annotation property", "individual", "term")


@dataclass
class Ontology:
    """The triples of the ontology file, indexed by subject, with its prefixes."""

    source: str
    prefixes: dict[str, str]
    out: dict[object, dict[str, list]] = field(default_factory=lambda: defaultdict(lambda: defaultdict(list)))
    into: dict[object, dict[str, list]] = field(default_factory=lambda: defaultdict(lambda: defaultdict(list)))

    def objects(self, subject: object, predicate: NamedNode) -> list:
        """Objects of ``subject predicate``, sorted."""
        found = self.out.get(subject if not isinstance(subject, str) else NamedNode(subject))
        return sorted(found.get(predicate.value, []), key=str) if found else []

    def subjects(self, predicate: NamedNode, obj: object) -> list:
        """Subjects of ``? predicate obj``, sorted."""
        found = self.into.get(obj if not isinstance(obj, str) else NamedNode(obj))
        return sorted(found.get(predicate.value, []), key=str) if found else []

    def _text(self, iri: str, predicate: NamedNode) -> str | None:
        literals = [o for o in self.objects(iri, predicate) if isinstance(o, Literal)]
        for lang in ("en", None, ""):
            for lit in literals:
                if lit.language == lang or (lang is None and lit.language is None):
                    return lit.value
        return literals[0].value if literals else None

    def label(self, iri: str) -> str | None:
        return self._text(iri, RDFS.label)

    def comment(self, iri: str) -> str | None:
        return self._text(iri, RDFS.comment)

    def curie(self, iri: str) -> str:
        """``prefix:local`` for an IRI under one of the file's prefixes (longest namespace first)."""
        for prefix, ns in sorted(self.prefixes.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            local = iri[len(ns):]
            if iri.startswith(ns) and local and re.fullmatch(r"[A-Za-z_][\w.-]*", local):
                return f"{prefix}:{local}"
        return iri

    def types(self, iri: str) -> set[str]:
        return {o.value for o in self.objects(iri, RDF.type) if isinstance(o, NamedNode)}

    def terms(self) -> list[str]:
        """Every IRI of our namespace that the file describes, sorted by local name."""
        found = {s.value for s in self.out if isinstance(s, NamedNode) and s.value.startswith(KG_NS)}
        return sorted(found, key=sort_key)

    def kind(self, iri: str) -> str:
        types = self.types(iri)
        if OWL.Class.value in types or RDFS.Class.value in types:
            return KIND_CLASS
        if OWL.ObjectProperty.value in types:
            return KIND_OBJECT
        if OWL.DatatypeProperty.value in types:
            return KIND_DATATYPE
        if OWL.AnnotationProperty.value in types or RDF.Property.value in types:
            return KIND_ANNOTATION
        if OWL.NamedIndividual.value in types or any(t.startswith(KG_NS) for t in types):
            return KIND_INDIVIDUAL
        return KIND_OTHER

    def of_kind(self, kind: str) -> list[str]:
        return [t for t in self.terms() if self.kind(t) == kind]

    def ontology_iri(self) -> str:
        found = self.subjects(RDF.type, OWL.Ontology)
        return found[0].value if found else ONTOLOGY_IRI


def sort_key(iri: str) -> tuple[str, str]:
    local = local_name(iri)
    return (local.lower(), local)


def local_name(iri: str) -> str:
    return re.split(r"[#/]", iri)[-1]


def load(path: Path | str = ONTOLOGY_FILE) -> Ontology:
    """Parse the ontology file (Turtle) into an ``Ontology``."""
    path = Path(path)
    try:
        parser = pyoxigraph.parse(path=str(path), format=pyoxigraph.RdfFormat.TURTLE)
        triples = list(parser)
    except (OSError, SyntaxError, ValueError) as err:
        raise SourceError(str(path), f"cannot read the ontology: {err}") from None
    onto = Ontology(source=f"{path.parent.name}/{path.name}", prefixes=dict(parser.prefixes))
    for t in triples:
        onto.out[t.subject][t.predicate.value].append(t.object)
        onto.into[t.object][t.predicate.value].append(t.subject)
    return onto
