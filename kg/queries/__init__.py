"""Named SPARQL queries from queries/*.rq, with typed parameters that are bound, never pasted, run as one plan.

A named query is a ``.rq`` file with a comment header (title, question, typed ``# param:``
lines, what it returns, what it costs: :mod:`kg.queries.named`) above plain SPARQL 1.1 meant for
a dataset whose default graph is the union of its named graphs. A parameter is an ordinary
variable of the query. Its value, given as text, is checked against the declared type, turned
into an RDF term, serialised by pyoxigraph (which escapes it) and bound as a constant
throughout the query (:func:`kg.sparql.binding.bind`); a value can never change the structure
of the query. A ``limit`` parameter caps the rows: bound as the query's ``LIMIT``, and as an
``xsd:integer`` where the text uses the variable too, so that it can leave out early what the
cap would drop (``changes`` does).

Parameter types: ``string``, ``integer``, ``decimal``, ``boolean``, ``date`` (YYYY-MM-DD, or
``today``: the current date in UTC), ``iri``,
``period`` (YYYY, YYYY-Qn, YYYY-MM, YYYY-MM-DD or an ISO timestamp, bound as the
``xsd:date`` of its first day), ``relations`` (edge types, bound as a property path:
:mod:`kg.parameters`), ``id`` (a catalog id, bound as text), ``system`` (a catalog
id, bound as the system's IRI), ``system-name`` (an id or words of one system's name,
resolved to that system's IRI), ``vendor`` (text that some vendor's key or name contains,
bound folded) and ``limit``; the options of a ``# param:`` line are :mod:`kg.parameters`'.
Before a query runs, every ``id``, ``system``, ``system-name`` and ``vendor`` value is
checked against the graph (:mod:`kg.lookup`): an unknown system is
:class:`~kg.errors.NotFound`, with close matches, never an empty answer.

The rooms of the package:

- :mod:`~kg.queries.named`: a query and its header;
- :mod:`~kg.queries.registry`: where named queries come from (:data:`REGISTRY`: the bundled
  folder; another source is one :meth:`~kg.queries.registry.Registry.add`), and :func:`load`,
  which takes a name, a ``.rq``/``.sparql`` file or a text;
- :mod:`~kg.queries.folders`: your own named queries, folders of ``.rq`` files (``--queries DIR``,
  ``KG_QUERIES``), each checked whole (:func:`use_folders`) and registered beside the bundled ones;
- :mod:`~kg.queries.computed`: queries answered in Python (:func:`declare`, :class:`Computed`),
  declared by a header as a ``.rq`` file is and planned as their rows in a VALUES table;
- :mod:`~kg.queries.plan`: :func:`plan`, the one function that makes the text sent, for every
  face (the CLI and ``--sparql``, :func:`kg.query`, ``kg serve``, ``kg mcp``);
- :mod:`~kg.queries.run`: a plan run on a store or a remote endpoint (:func:`run`, :func:`query`).

A query of the user's (a file, a text) is checked by the guard (:func:`kg.sparql.guard.check_query`)
before it runs: no SERVICE, no remote FROM.

>>> q = load("info")
>>> q.name, bool(q.title)
('info', True)
>>> [p.name for p in load("search").params]
['text', 'section', 'tier', 'limit']
"""

from __future__ import annotations

from ..parameters import GRAPH_TYPES, PARAM_TYPES, SYSTEM_TYPES, Param, to_term
from .folders import from_environment, use_folders
from .computed import Answered, Computed, answer_text, declare
from .named import HEADER_KEYS, NamedQuery, from_text, header_problems, parse
from .plan import Plan, plan
from .registry import FILE_SUFFIXES, QUERIES_DIR, REGISTRY, Folder, Registry, Source, available, listing, load
from .run import LimitedSolutions, Result, query, run, run_plan

__all__ = ["FILE_SUFFIXES", "GRAPH_TYPES", "HEADER_KEYS", "PARAM_TYPES", "QUERIES_DIR", "REGISTRY", "SYSTEM_TYPES",
           "Answered", "Computed", "Folder", "LimitedSolutions", "NamedQuery", "Param", "Plan", "Registry", "Result",
           "Source", "answer_text", "available", "declare", "from_environment", "from_text", "header_problems",
           "listing", "load", "parse", "plan", "query", "run", "run_plan", "to_term", "use_folders"]
