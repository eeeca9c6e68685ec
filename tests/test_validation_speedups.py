"""The pySHACL speed-ups (kg.validation.speedups): the tested version range, patches that are undone,
and the same results as stock pySHACL on every fixture (in a process of their own: the speed-ups
never run in a caller's process)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from kg.validation import speedups

FIXTURES = Path(__file__).resolve().parent / "shapes"

_FAST_RUN = """
import json, sys
import rdflib
from kg.validation.pyshacl_run import ShaclEngine
from kg.validation.rules import shapes_graph
from kg.vocab import Iris
iris = Iris()
engine = ShaclEngine(shapes_graph(iris), iris, fast=True)  # one engine for every graph, as in a worker
print(json.dumps({path: sorted(list(r.key) for r in engine.run(rdflib.Graph().parse(path)))
                  for path in sys.argv[1:]}))
"""


def test_the_tested_range_is_the_installed_pyshacl():
    assert speedups.supported(speedups.installed_version())
    assert speedups.note(speedups.installed_version()) is None
    assert not speedups.supported("0.41.0") and not speedups.supported("1.0") and not speedups.supported("dev")
    assert "0.40.x" in speedups.note("0.42.1") and "stock pySHACL" in speedups.note("0.42.1")


def test_the_patches_are_undone_on_leaving():
    import pyshacl.shape as shape_module
    from pyshacl.constraints.constraint_component import ConstraintComponent

    text, params = ConstraintComponent.make_v_result_description, getattr(shape_module, "CONSTRAINT_PARAMS", None)
    with speedups.patched():
        assert ConstraintComponent.make_v_result_description is not text
    assert ConstraintComponent.make_v_result_description is text
    assert getattr(shape_module, "CONSTRAINT_PARAMS", None) is params


def test_sped_up_pyshacl_gives_the_stock_results_on_every_fixture(monolithic_of):
    paths = [str(p) for p in sorted(FIXTURES.glob("*.ttl"))]
    run = subprocess.run([sys.executable, "-c", _FAST_RUN, *paths], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    fast = json.loads(run.stdout)
    for path in paths:
        stock = monolithic_of(path)
        assert {tuple(key) for key in fast[path]} == stock.keys(), path
