"""``/ontology``: the ontology, a page of its terms for a browser (each at ``/ontology#Term``), its
Turtle, JSON-LD, N-Triples or RDF/XML by ``Accept`` or ``?format=`` (:mod:`kg.serve.linkeddata`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import linkeddata
from ..dispatch import Blocking
from ..request import Request, first, params

if TYPE_CHECKING:
    from ..service import Service


def respond(service: Service, request: Request) -> Blocking:
    fmt = linkeddata.ontology_format(request.header("Accept"), first(params(request), "format"))
    return Blocking(linkeddata.ontology_answer, (fmt,))
