"""A constraint component as the engine runs it, and what a component's builder is handed.

A ``Component`` is one constraint of one shape: the SHACL component it belongs to
(``sh:MinCountConstraintComponent``, ...), a check and the default message of its
results. The check gets the run (``Run``: the data and the shapes' conformance),
the focus node and its value nodes, and yields ``(value, path)`` for each result:
``value`` the result's sh:value (None: none), ``path`` a result path other than
the shape's own (sh:closed: the predicate), else None.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable, Protocol

from pyoxigraph import Literal

from .graph import Facts, Term

if TYPE_CHECKING:
    from .targets import Hierarchy

Found = Iterable[tuple[Term | None, Term | None]]


class Nested(Protocol):
    """A shape another shape's component asks about (sh:node, sh:not, ...): to a check, only a name."""

    node: Term


class Compiles(Protocol):
    """What a builder may ask of the compiler: the shapes graph, and another shape compiled."""

    shapes: Facts

    def shape(self, node: Term) -> Nested: ...


class Run(Protocol):
    """What a check may ask of the validation it runs in (``deadline``: a ``time.monotonic()`` instant, or None)."""

    facts: Facts
    hierarchy: "Hierarchy"
    memo: dict[Any, Any]
    deadline: float | None
    bounded_patterns: bool  # the shapes' patterns need no time limit (kg's own)

    def conforms(self, shape: Any, node: Term) -> bool: ...


Check = Callable[[Run, Term, list[Term]], Found]


@dataclass(frozen=True)
class Component:
    """One constraint of a shape: its component's local name, its check and its default message."""

    name: str
    check: Check
    message: str
    nested: bool = False  # asks other shapes (sh:node, sh:not, ...): its answers are worth remembering

    @property
    def default(self) -> tuple[Literal]:
        """The default message of the component's results, as the one sh:resultMessage."""
        found = _DEFAULTS.get(self.message)
        if found is None:
            found = _DEFAULTS[self.message] = (Literal(self.message),)
        return found


_DEFAULTS: dict[str, tuple[Literal]] = {}


def per_value(name: str, test: Callable[[Term], bool], message: str) -> Component:
    """A component that judges each value node on its own: a result (with the value) for each that fails."""
    def check(run: Run, focus: Term, values: list[Term]) -> Found:
        return [(v, None) for v in values if not test(v)]
    return Component(name, check, message)


class Unsupported(ValueError):
    """A shape uses something outside SHACL Core (SHACL-SPARQL, a custom component): not for this engine."""


class ShapeRefused(ValueError):
    """A shape the engine will not run: a pattern that is no XPath regular expression, or one that runs
    away on a value; shapes nested past the bound. ``shape``: the shape's node; ``reason``: why."""

    def __init__(self, shape: Term, reason: str) -> None:
        self.shape, self.reason = shape, reason
        super().__init__(f"shape {shape}: {reason}")


class OutOfTime(Exception):
    """The validation passed its deadline before it was done: it has no answer."""


def is_true(value: Any) -> bool:
    """SHACL's boolean parameters count only ``true`` (``"1"^^xsd:boolean`` is another term)."""
    return isinstance(value, Literal) and value.value == "true" and value.datatype.value.endswith("#boolean")
