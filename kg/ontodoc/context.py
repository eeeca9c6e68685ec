"""The ontology's JSON-LD context (``ontology/context.jsonld``): its prefixes and a term per ontology term.

``kg export -f jsonld`` compacts with the file this writes (``kg.exports``).

>>> context = jsonld_context()["@context"]
>>> context["System"], context["builtOn"]
('kg:System', {'@id': 'kg:builtOn', '@type': '@id'})
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyoxigraph

from ..vocab import KG, ONTOLOGY_FILE, OWL, PREFIXES, RDF

CONTEXT_NAME = "context.jsonld"


def jsonld_context(path: Path | str = ONTOLOGY_FILE) -> dict[str, Any]:
    """The JSON-LD context: prefixes, plus one term per ontology term (object properties
    coerce to IRIs)."""
    ontology = list(pyoxigraph.parse(path=str(path)))
    object_props = {t.subject.value for t in ontology
                    if t.predicate == RDF.type and t.object == OWL.ObjectProperty}
    terms: dict[str, Any] = {"@version": 1.1}
    terms.update({k: v for k, v in PREFIXES.items() if k != "sh"})
    declared = sorted({t.subject.value for t in ontology if t.subject.value.startswith(KG.iri)})
    for iri in declared:
        local = iri[len(KG.iri):]
        terms[local] = {"@id": f"kg:{local}", "@type": "@id"} if iri in object_props else f"kg:{local}"
    return {"@context": terms}


def context_text(path: Path | str = ONTOLOGY_FILE) -> str:
    """The context file's text (one space of indent, a newline at the end)."""
    return json.dumps(jsonld_context(path), indent=1, ensure_ascii=False) + "\n"
