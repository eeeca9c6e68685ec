"""SHACL validation of the graph: record-local rules per record graph, catalog-wide rules in SPARQL.

The modules, from the ground up:

* ``paths``: SHACL property paths as SPARQL path text;
* ``rules``: our shapes (``shapes/``) and the rules they report, by name;
* ``locality``: which of the user's shapes are record-local; ``user_shapes``: the user's
  own shapes files, named as rules, and how each is checked;
* ``readplan``: which triples the shapes can look at;
* ``report``: ``Result``, ``ValidationReport`` and their text, JSON and Turtle forms;
* ``pyshacl_run``: one pySHACL run over one part; ``speedups``: its sped-up form (workers only);
* ``parts``: the parts of a split run and their triples; ``parallel``: the process pool;
* ``files``: RDF files read for ``kg validate FILE``;
* ``core``: our record-local shapes evaluated in plain Python over quads (the same results,
  fast); ``at_ingest``: each record checked with them as it is ingested, by JSON field path;
* ``runs``: ``validate``, ``revalidate`` and ``validate_monolithic``.

>>> from kg.validation import load_rules
>>> load_rules()["T2Citation"].severity
'Violation'
"""

from __future__ import annotations

from .files import load_rdf_files
from .parallel import RECORDS_PER_CALL
from .readplan import ReadPlan, read_plan
from .report import SEVERITIES, Result, ValidationReport, text_report
from .rules import Rule, load_rules, shapes_graph, shapes_text
from .runs import revalidate, store_to_rdflib, validate, validate_monolithic
from .user_shapes import UserShapes, load_shapes

__all__ = [
    "validate", "revalidate", "validate_monolithic", "ValidationReport", "Result", "Rule", "text_report",
    "load_rdf_files", "load_rules", "load_shapes", "shapes_graph", "shapes_text", "read_plan", "ReadPlan",
    "UserShapes", "store_to_rdflib", "RECORDS_PER_CALL", "SEVERITIES",
]
