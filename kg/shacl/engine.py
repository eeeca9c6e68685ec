"""The validation of a data graph against compiled shapes: focus nodes, value nodes, results, conformance.

``Engine(shapes_triples)`` compiles a shapes graph once; ``engine.validate(facts)``
gives every result on a data graph (``engine.facts(triples)`` indexes one the way
the shapes read it: only the predicates they look at, and the indexes they need).
Conformance of a node to a nested shape is remembered for the run; a shape reached
again on the same node while it is being checked (a recursive shape) conforms. Nested checks
(a recursive shape walking a long chain of nodes) go at most ``MAX_ACTIVE`` deep; a run with a
deadline checks the clock at each focus node and each nested check, and the patterns' matches
take no longer than what is left.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Iterable, Iterator

from .component import OutOfTime, ShapeRefused
from .graph import Facts, Term
from .report import Finding
from .shapes import Compiler, Shape
from .targets import Hierarchy, focus_nodes


MAX_ACTIVE = 100  # nested conformance checks open at once (each takes five or six Python frames)


class Run:
    """One validation of one data graph: the data, the hierarchy, and the conformance answers so far."""

    def __init__(self, facts: Facts, hierarchy: Hierarchy, deadline: float | None = None,
                 bounded_patterns: bool = False) -> None:
        self.facts = facts
        self.hierarchy = hierarchy
        self.deadline = deadline
        self.bounded_patterns = bounded_patterns
        self.known: dict[tuple[int, Term], bool] = {}
        self.active: set[tuple[int, Term]] = set()
        self.memo: dict[Any, Any] = {}  # what components remember for the run

    def results(self, shape: Shape, focus: Term) -> Iterator[Finding]:
        """Every result of ``shape`` on ``focus``."""
        if shape.deactivated:
            return
        values = shape.path(self.facts, focus) if shape.path is not None else [focus]
        for component in shape.components:
            for value, path in component.check(self, focus, values):
                yield Finding(focus, path if path is not None else shape.path_node, value, shape.node,
                              component.name, shape.severity, shape.messages or component.default)
        for inner in shape.properties:
            for value in values:
                yield from self.results(inner, value)

    def on_time(self) -> None:
        """Raise ``OutOfTime`` when the run's deadline has passed."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise OutOfTime("the validation did not finish before its deadline")

    def collect(self, shape: Shape, focus: Term, out: list[Finding]) -> None:
        """Append every result of ``shape`` on ``focus`` to ``out`` (``results``, without a generator per
        shape and node: the top-level checks of a run, where every result is wanted)."""
        if shape.deactivated:
            return
        values = shape.path(self.facts, focus) if shape.path is not None else [focus]
        for component in shape.components:
            found = component.check(self, focus, values)
            if found:
                for value, path in found:
                    out.append(Finding(focus, path if path is not None else shape.path_node, value, shape.node,
                                       component.name, shape.severity, shape.messages or component.default))
        for inner in shape.properties:
            for value in values:
                self.collect(inner, value, out)

    def conforms(self, shape: Shape, node: Term) -> bool:
        """True when ``node`` conforms to ``shape`` (no result at all)."""
        if shape.simple:  # no shape inside: cheaper to check again than to remember
            if shape.deactivated:
                return True
            values = shape.path(self.facts, node) if shape.path is not None else [node]
            for component in shape.components:
                if component.check(self, node, values):
                    return False
            return True
        key = (id(shape), node)
        known = self.known.get(key)
        if known is not None:
            return known
        if key in self.active:
            return True  # recursion: the shape is being checked on this node further up
        if len(self.active) >= MAX_ACTIVE:
            raise ShapeRefused(shape.node, f"its checks nest more than {MAX_ACTIVE} nodes deep (a recursive "
                                           f"shape over a long chain of nodes)")
        self.on_time()
        self.active.add(key)
        try:
            answer = next(self.results(shape, node), None) is None
        finally:
            self.active.discard(key)
        self.known[key] = answer
        return answer


class Engine:
    """A shapes graph compiled once, for many data graphs.

    ``subclasses``: (sub, super) class pairs that hold in every data graph besides its
    own rdfs:subClassOf triples (an ontology kept elsewhere). ``skip``: shapes whose
    targets are left out (checked elsewhere). ``bounded_patterns``: the shapes' patterns are known
    to run in time linear in the value (kg's own), so a match runs without a time limit (the limit
    costs 4-14 us a match, and a record at ingest is matched about 170 times).
    """

    def __init__(self, shapes: Iterable[Any], *, subclasses: Iterable[tuple[Term, Term]] = (),
                 skip: Iterable[Term] = (), bounded_patterns: bool = False) -> None:
        self.bounded_patterns = bounded_patterns  # kg's own shapes: their patterns need no time limit
        self.shapes = Facts(outgoing=True).add(shapes)
        compiler = Compiler(self.shapes, skip=frozenset(skip))
        self.roots = compiler.roots
        self.compiled = compiler.compiled
        self.closed = compiler.closed
        self.reads: frozenset[str] | None = None if compiler.closed else frozenset(compiler.reads)
        self.backwards = frozenset(compiler.backwards)
        self.hierarchy = Hierarchy(subclasses)

    def facts(self, triples: Iterable[Any] = (), base: Facts | None = None) -> Facts:
        """A data graph of pyoxigraph triples or quads, indexed for these shapes (over ``base``)."""
        return Facts(base, outgoing=self.closed).add(triples, self.reads, self.backwards)

    def facts_of_terms(self, triples: Iterable[tuple[Term, Term, Term]], base: Facts | None = None) -> Facts:
        """As :meth:`facts`, from (subject, predicate, object) tuples already of the predicates read."""
        return Facts(base, outgoing=self.closed).add_terms(triples, None, self.backwards)

    def validate(self, facts: Facts, accept: Callable[[Term], bool] | None = None, *,
                 deadline: float | None = None) -> list[Finding]:
        """Every result of the shapes on ``facts``; of the focus nodes ``accept`` accepts, when given.
        ``deadline``: a ``time.monotonic()`` instant past which the run stops with ``OutOfTime``."""
        run = Run(facts, self.hierarchy, deadline, self.bounded_patterns)
        found: list[Finding] = []
        selected: dict[tuple[str, Term], list[Term]] = {}
        for root in self.roots:
            nodes: list[Term] = []
            for target in root.targets:
                chosen = selected.get(target)
                if chosen is None:
                    chosen = focus_nodes(facts, self.hierarchy, *target)
                    chosen = selected[target] = chosen if accept is None else [n for n in chosen if accept(n)]
                nodes = chosen if not nodes else nodes + chosen
            if len(root.targets) > 1:  # a shape's focus nodes are a set: a node two targets select, once
                nodes = list(dict.fromkeys(nodes))
            for focus in nodes:
                if deadline is not None:
                    run.on_time()
                run.collect(root, focus, found)
        return found
