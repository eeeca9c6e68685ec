"""The route table of ``kg serve``: every path it answers, the methods each answers, and its view.

:data:`ROUTES` is the one list of the server's pages. Everything that depends on which paths
exist reads it: which view answers a request (:func:`route_for`: 404 for a path that is no
page), the methods a path answers (``OPTIONS`` and the ``Allow`` header of a 405, the same
list: :meth:`Route.check`), which views a query worker renders (:func:`renderers`, by the
``OP`` their messages carry), and the route list of the serve guide (:func:`markdown`, checked
by tests/test_serve_routes.py).

A path is written as Starlette writes one: ``{name}`` takes one segment of the path (no ``/``),
``{name:path}`` the rest of it, slashes and all (the empty rest too); the view reads them in
``request.path_params``. The first row whose path matches answers, so a narrower path goes
before a wider one (``/id/system/`` before ``/id/{rest:path}``).

To add a page: a view module (:mod:`kg.serve.views`) and one row here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Callable

from .replies import Reply
from .views import (changes, entities, feeds, findings, graph_store, health, home, metrics, named, ontology,
                    sparql, static, systems, update, void)

READ = ("GET", "HEAD")
QUERY = ("GET", "HEAD", "POST")
WRITE = ("POST",)


_PARAMETER = re.compile(r"\{(\w+)(:path)?\}")


def _compiled(path: str) -> re.Pattern[str]:
    """The regular expression of a route's path (``{name}``: one segment; ``{name:path}``: the rest)."""
    pattern, end = "", 0
    for found in _PARAMETER.finditer(path):
        taken = ".*" if found.group(2) else "[^/]*"
        pattern += re.escape(path[end:found.start()]) + f"(?P<{found.group(1)}>{taken})"
        end = found.end()
    return re.compile(pattern + re.escape(path[end:]), re.DOTALL)


@dataclass(frozen=True)
class Route:
    """Paths answered by one view, with the methods they answer (``OPTIONS`` is added)."""

    paths: tuple[str, ...]
    methods: tuple[str, ...]
    view: ModuleType
    doc: str
    patterns: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "patterns", tuple(_compiled(path) for path in self.paths))

    def match(self, path: str) -> dict[str, str] | None:
        """The parameters ``path`` gives this route's paths, or None when it matches none."""
        for pattern in self.patterns:
            found = pattern.fullmatch(path)
            if found is not None:
                return found.groupdict()
        return None

    @property
    def allowed(self) -> tuple[str, ...]:
        """The methods answered, OPTIONS included: what both ``OPTIONS`` and a 405's ``Allow`` give."""
        return self.methods + ("OPTIONS",)

    def allow_header(self) -> dict[str, str]:
        return {"Allow": ", ".join(self.allowed)}

    def check(self, method: str) -> None:
        """Raise 405 (with ``Allow``) for a method this route does not answer."""
        if method not in self.allowed:
            raise Reply(405, "method-not-allowed", f"{method[:20]} is not answered here; this page answers "
                        + ", ".join(self.allowed), headers=self.allow_header())


ROUTES: tuple[Route, ...] = (
    Route(("/", "/index.html"), READ, home, "the query page: the query editor, your queries, the catalog's questions "
          "and checks; to an RDF `Accept`, the service description"),
    Route(("/sparql", "/query"), QUERY, sparql,
          "SPARQL 1.1 queries (GET, or POST as a form or `application/sparql-query`); with an update, an update; "
          "with `graph` or `default`, a Graph Store read; else the service description"),
    Route(("/update",), WRITE, update, "SPARQL 1.1 Update, with `--allow-update` and the bearer token"),
    Route(("/store",), READ, graph_store,
          "Graph Store reads: `?graph=IRI`, `?default`, or the whole dataset (the VoID `dataDump`), streamed"),
    Route(("/id/system", "/id/system/", "/system", "/system/"), READ, systems,
          "the index of systems: `kg query find` as a page, sorted by any column (`sort`), a page of rows at a "
          "time; `format=json` or `format=csv`"),
    Route(("/changes.atom", "/id/system/{id}/changes.atom", "/id/section/{section}/changes.atom"), READ, feeds,
          "Atom feeds of the changesets: the catalog's, a system's, a section's; each entry one ingest's changes, "
          "field by field, linked to its changeset's page"),
    Route(("/changes/{number}", "/diff"), READ, changes,
          "a changeset's changes (`/changes/<n>`), or those between two versions (`/diff?from=A&to=B`, `current` "
          "for now), field by field; `id` narrows to records; `format=json`"),
    Route(("/id/{rest:path}", "/system/{id:path}"), READ, entities,
          "an entity's page (a system's: `/id/system/<id>`), HTML, Turtle, JSON-LD, N-Triples or RDF/XML"),
    Route(("/findings",), READ, findings,
          "the findings dashboard: rule x column and rule x section counts, each a link to its findings; the "
          "catalog-wide rules, the freshness of the claims, every rule described; `format=json`"),
    Route(("/queries/{name:path}",), READ, named, "a named query's form; with `run`, a page of its results"),
    Route(("/ontology",), READ, ontology, "the ontology: a page of its terms, or its RDF by `Accept`"),
    Route(("/.well-known/void",), READ, void, "the VoID description, with the endpoint and the dump; a page for a "
          "browser"),
    Route(("/static/{file:path}", "/favicon.ico"), READ, static, "the query editor's files, the site's icon"),
    Route(("/health",), READ, health, "the server's state: its workers, idle, timed out, replaced"),
    Route(("/metrics",), READ, metrics, "with `--metrics`, the server's counters in the Prometheus text format: "
          "requests by route and status, answer latency, timeouts, worker replacements, cache hits, generation"),
)


_NOT_FOUND = "no such page; the SPARQL endpoint is /sparql"


def match(path: str, table: tuple[Route, ...] = ROUTES) -> tuple[Route, dict[str, str]] | None:
    """The first route of ``table`` that answers ``path``, with the path's parameters; None for a
    path that is no page.

    >>> route, found = match("/id/system/mem0--mem0-ai")
    >>> route.view.__name__, found, route.allowed
    ('kg.serve.views.entities', {'rest': 'system/mem0--mem0-ai'}, ('GET', 'HEAD', 'OPTIONS'))
    >>> match("/id/system/")[0].view.__name__, match("/update")[0].allowed, match("/nowhere")
    ('kg.serve.views.systems', ('POST', 'OPTIONS'), None)
    """
    for route in table:
        found = route.match(path)
        if found is not None:
            return route, found
    return None


def route_for(path: str) -> tuple[Route, dict[str, str]]:
    """:func:`match`, raising 404 for a path that is no page."""
    found = match(path)
    if found is None:
        raise Reply(404, "not-found", _NOT_FOUND)
    return found


def renderers(table: tuple[Route, ...] = ROUTES) -> dict[str, Callable[[Any, dict], dict]]:
    """The views a query worker renders: the ``OP`` their messages carry -> their ``render``."""
    found: dict[str, Callable[[Any, dict], dict]] = {}
    for route in table:
        render = getattr(route.view, "render", None)
        if render is None:
            continue
        other = found.get(route.view.OP)
        if other is not None and other is not render:
            raise ValueError(f"two views both send op {route.view.OP!r}: {other.__module__} and {render.__module__}")
        found[route.view.OP] = render
    return found


def markdown(table: tuple[Route, ...] = ROUTES) -> str:
    """The route table as the serve guide gives it (docs/guide/serve.md, between its ``routes`` markers)."""
    lines = ["| path | methods | what it answers |", "|---|---|---|"]
    for route in table:
        paths = ", ".join(f"`{path}`" for path in route.paths)
        lines.append(f"| {paths} | {', '.join(route.allowed)} | {route.doc} |")
    return "\n".join(lines) + "\n"
