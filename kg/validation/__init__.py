"""SHACL validation of the graph: record-local rules per record graph, catalog-wide rules in SPARQL.

Every run evaluates SHACL Core with one engine, ``kg.shacl``; the modules, from the ground up:

* ``paths``: SHACL property paths as SPARQL path text;
* ``rules``: our shapes (``shapes/``) and the rules they report, by name;
* ``locality``: where each of the user's shapes is checked; ``user_shapes``: the user's
  own shapes files, named as rules;
* ``report``: ``Result``, ``ValidationReport`` and their text, JSON and Turtle forms;
* ``core``: kg's shapes on the engine, results as ``Result``; ``at_ingest``: each record
  checked as it is ingested, by JSON field path;
* ``parts``: the graphs a run checks; ``records``: the record graphs checked in this process,
  on a process pool or (``dask_run``, ``dask_own``) on a Dask cluster;
* ``pyshacl_run``: stock pySHACL (``--engine pyshacl``, and SHACL-SPARQL shapes);
* ``files``: RDF files read for ``kg validate FILE``;
* ``remembered``: the catalog-wide answers of a generation, kept in a file beside it;
* ``runs``: ``validate``, ``revalidate`` and ``validate_monolithic`` (stock pySHACL).

>>> from kg.validation import load_rules
>>> load_rules()["T2Citation"].severity
'Violation'
"""

from __future__ import annotations

from .files import RdfFiles, load_rdf_files
from .records import RECORDS_PER_CALL
from .report import SEVERITIES, Result, ValidationReport, text_report
from .rules import Rule, load_rules, shapes_graph, shapes_text
from .runs import revalidate, store_to_rdflib, validate, validate_monolithic
from .user_shapes import UserShapes, load_shapes

__all__ = [
    "validate", "revalidate", "validate_monolithic", "ValidationReport", "Result", "Rule", "text_report",
    "RdfFiles", "load_rdf_files", "load_rules", "load_shapes", "shapes_graph", "shapes_text",
    "UserShapes", "store_to_rdflib", "RECORDS_PER_CALL", "SEVERITIES",
]
