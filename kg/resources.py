"""The files kg ships beside its code: ontology, shapes, named queries, bundled catalog.

They live at the top of the repository (``ontology/``, ``shapes/``, ``queries/``,
``data/``) and travel inside the wheel as ``kg/_resources/<kind>/``. This module is
the one place that finds them, so a wheel install, an editable install and a plain
checkout behave the same.

>>> resource("ontology", "kg.ttl").name
'kg.ttl'
>>> sorted(p.name for p in resource_dir("data").glob("*.json"))
['landscape-site.json', 'landscape.edges.json', 'seed-record.json']
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

KINDS = ("ontology", "shapes", "queries", "data")

_PACKAGE = Path(__file__).resolve().parent


@cache
def resource_root() -> Path:
    """The folder that holds the resource folders.

    Inside a wheel: ``kg/_resources``. In a checkout (editable install, or tests run
    from the source tree): the repository root, where the design card puts them.
    """
    packaged = _PACKAGE / "_resources"
    if (packaged / "ontology").is_dir():
        return packaged
    checkout = _PACKAGE.parent
    if (checkout / "ontology").is_dir() and (checkout / "pyproject.toml").is_file():
        return checkout
    raise FileNotFoundError(f"kg's resource files are missing: neither {packaged} nor {checkout}/ontology "
                            "exists (a broken install: reinstall the package)")


def resource_dir(kind: str) -> Path:
    """The folder of one kind of resource (one of :data:`KINDS`)."""
    if kind not in KINDS:
        raise ValueError(f"unknown resource kind {kind!r} (one of {', '.join(KINDS)})")
    return resource_root() / kind


def resource(kind: str, name: str) -> Path:
    """One resource file, e.g. ``resource("shapes", "kg-shapes.ttl")``."""
    return resource_dir(kind) / name
