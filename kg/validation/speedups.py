"""Speed-ups of pySHACL internals for the workers of the split run, for a tested pySHACL range only.

Everything here reaches into pySHACL's internals, so it is switched on only for
the pySHACL versions it was tested with (``TESTED``) and only inside the worker
processes of the split run (``kg.validation.parallel``); the calling process
always runs stock pySHACL. None of it changes a result: tests compare the split
run with stock pySHACL on every fixture and on the bundled catalog.

* ``patched()``: three patches. pySHACL formats a human-readable text for every
  result, also for the many it computes and throws away inside sh:or and
  sh:qualifiedValueShape; we read the result triples, never the text, so the
  formatting is skipped. It looks up each predicate of a shape in a 40-item
  list, and builds the shape's constraints again, each time a shape validates a
  node (for nested shapes: every value node); a set answers the same, and each
  constraint is built once per shape (``_BuiltOnce``).
* ``FastRun``: the shapes parsed and harvested once for many data graphs, their
  lookups remembered (``_MemoGraph``), and the raw results read without building
  the report graph.

>>> supported("0.40.1"), supported("0.41.0"), supported("0.39.9")
(True, False, False)
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from typing import Any, Iterable, Iterator

import rdflib
import rdflib.paths

TESTED = ((0, 40), (0, 41))  # pySHACL versions from (inclusive) .. to (exclusive): 0.40.x
TESTED_TEXT = "0.40.x"


def supported(version: str) -> bool:
    """True when pySHACL ``version`` lies in the range the speed-ups were tested with."""
    m = re.match(r"^(\d+)\.(\d+)", version)
    if m is None:
        return False
    found = (int(m.group(1)), int(m.group(2)))
    return TESTED[0] <= found < TESTED[1]


def installed_version() -> str:
    """The version of the installed pySHACL (``pyshacl.__version__``)."""
    import pyshacl

    return str(getattr(pyshacl, "__version__", "unknown"))


def note(version: str) -> str | None:
    """What the report says when the workers run stock pySHACL because of its version; None otherwise."""
    if supported(version):
        return None
    return (f"pySHACL {version} is outside the range the speed-ups were tested with ({TESTED_TEXT}): "
            f"the workers ran stock pySHACL (same results, slower)")


class _ParameterList(list):
    """pySHACL's list of constraint parameters, with set-speed membership tests."""

    def __init__(self, items: Iterable[Any]) -> None:
        super().__init__(items)
        self._members = frozenset(self)

    def __contains__(self, item: object) -> bool:
        return item in self._members


class _BuiltOnce:
    """Stands for a pySHACL constraint class: builds its instance for a shape once, then reuses it.

    pySHACL builds every constraint of a shape anew (reading its parameters from the
    shapes graph) each time the shape validates a node, also for every value node a
    nested shape checks. The instances keep only those parameters (no state of a
    validation), so one per shape serves every call.
    """

    def __init__(self, cls: type) -> None:
        self.cls = cls
        self.built: dict[int, Any] = {}

    def __call__(self, shape: Any) -> Any:
        found = self.built.get(id(shape))
        if found is None or found.shape is not shape:
            found = self.built[id(shape)] = self.cls(shape)
        return found


_SHORTCUT_MAP: dict[Any, Any] = {}


def _shortcut_map() -> dict[Any, Any]:
    """pySHACL's parameter -> constraint class map, each class wrapped in one ``_BuiltOnce``."""
    if not _SHORTCUT_MAP:
        from pyshacl.constraints import CONSTRAINT_PARAMETERS_MAP

        wrapped: dict[type, _BuiltOnce] = {}
        for parameter, cls in CONSTRAINT_PARAMETERS_MAP.items():
            _SHORTCUT_MAP[parameter] = wrapped.setdefault(cls, _BuiltOnce(cls))
    return _SHORTCUT_MAP


@contextmanager
def patched() -> Iterator[None]:
    """The three patches (see the module text), undone on leaving.

    pySHACL formats a human-readable text for every result, also for the many it
    computes and throws away inside sh:or and sh:qualifiedValueShape; we read
    the result triples, never the text, so formatting is skipped. It looks up each
    predicate of a shape in a 40-item list, and builds the shape's constraints
    again, each time a shape validates a node (for nested shapes: every value
    node); a set answers the same, and each constraint is built once per shape
    (``_BuiltOnce``). The monolithic reference run uses stock pySHACL, and tests
    compare the two.
    """
    import pyshacl.shape as shape_module
    from pyshacl.constraints import ALL_CONSTRAINT_PARAMETERS
    from pyshacl.constraints.constraint_component import ConstraintComponent

    saved_text = ConstraintComponent.__dict__.get("make_v_result_description")
    saved_params = getattr(shape_module, "CONSTRAINT_PARAMS", None)
    setattr(ConstraintComponent, "make_v_result_description", lambda self, *args, **kwargs: "")
    setattr(shape_module, "CONSTRAINT_PARAMS", (_ParameterList(ALL_CONSTRAINT_PARAMETERS), _shortcut_map()))
    try:
        yield
    finally:
        if saved_text is not None:
            setattr(ConstraintComponent, "make_v_result_description", saved_text)
        if saved_params is None:
            delattr(shape_module, "CONSTRAINT_PARAMS")
        else:
            setattr(shape_module, "CONSTRAINT_PARAMS", saved_params)


class _MemoGraph(rdflib.Graph):
    """An rdflib graph that remembers the answers of its lookups (for a shapes graph, which
    does not change while it validates): pySHACL looks up the same shape parameters
    for every node a nested shape checks."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._answers: dict[tuple, tuple] = {}

    def add(self, triple: Any) -> "_MemoGraph":
        self._answers.clear()
        return super().add(triple)

    def triples(self, triple: Any) -> Iterator[Any]:  # type: ignore[override]
        if isinstance(triple[1], rdflib.paths.Path):
            return super().triples(triple)
        found = self._answers.get(triple)
        if found is None:
            if len(self._answers) > 100_000:  # never grows without bound
                self._answers.clear()
            found = self._answers[triple] = tuple(super().triples(triple))
        return iter(found)


def _raw_validator_class() -> type:
    from pyshacl import Validator

    class RawValidator(Validator):
        """pySHACL's validator without building the report graph and text (we read the raw results)."""

        @classmethod
        def create_validation_report(cls, sg, conforms, results):  # noqa: ANN001
            return results, ""

    return RawValidator


class FastRun:
    """pySHACL with the shapes parsed and harvested once, run on many data graphs; raw results."""

    def __init__(self, shapes: rdflib.Graph) -> None:
        from pyshacl.shapes_graph import ShapesGraph

        frozen = _MemoGraph()
        for triple in shapes:
            frozen.add(triple)
        for prefix, namespace in shapes.namespaces():
            frozen.bind(prefix, namespace)
        self.shapes: rdflib.Graph = frozen
        self._validator = _raw_validator_class()
        self._shapes_graph = ShapesGraph(frozen)
        self._shapes_graph.shapes  # harvest now, once  # noqa: B018

    def __call__(self, data: rdflib.Graph) -> list[list[tuple]]:
        """The result triples of each result pySHACL finds in ``data`` (objects as (graph, term))."""
        from pyshacl.graph_abstraction import DataGraph

        validator = self._validator(DataGraph.from_rdflib(data), shacl_graph=self.shapes,
                                    options={"inference": "none", "advanced": False})
        validator.shacl_graph = self._shapes_graph  # reuse the harvested shapes
        with patched():
            _, raw, _ = validator.run()
        return [triples for _, _, triples in raw]
