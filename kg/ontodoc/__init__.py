"""The files generated from the ontology: ``ontology/README.md``, ``ontology/diagram.dot`` and its SVG, ``ontology/context.jsonld``.

A maintainer's tool, run in a checkout after editing ``ontology/kg.ttl``: ``python -m kg.ontodoc``
writes the files that changed, ``python -m kg.ontodoc --check`` writes nothing and exits 1 when
one is out of date (``kg.ontodoc.__main__``). Everything in the files is read from
``ontology/kg.ttl``, except the README's section "Named graphs and IRI patterns", which calls
the IRI minting code of ``kg/vocab.py`` (``Iris``) with placeholders. The README, the DOT
source and the JSON-LD context are deterministic (terms sorted by local name), so the check
and ``tests/test_ontodoc.py`` fail on drift. The SVG is drawn from the DOT by Graphviz
(``ontodoc.diagram``); it counts as current when its stamp says it was drawn from the current
DOT and left as drawn, so the check gives the same answer on every machine, with or without
Graphviz.

>>> outputs = render()
>>> sorted(path.name for path in outputs if path.suffix != ".svg")
['README.md', 'context.jsonld', 'diagram.dot']
"""

from __future__ import annotations

from pathlib import Path

from ..errors import UsageError
from ..vocab import ONTOLOGY_FILE
from .context import CONTEXT_NAME, context_text
from .diagram import DOT_NAME, SVG_NAME, dot_source, render_svg, svg_current
from .markdown import README_NAME, markdown
from .ontology import Ontology, load
from .patterns import GRAPH_NOTES, iri_patterns, named_graphs

__all__ = ["GRAPH_NOTES", "Ontology", "iri_patterns", "load", "markdown", "named_graphs", "render", "stale", "write"]


def render(path: Path | str = ONTOLOGY_FILE) -> dict[Path, str]:
    """The generated files (next to the ontology file) and their content.

    README.md, diagram.dot and context.jsonld always; diagram.svg when Graphviz's ``dot`` is installed.
    """
    path = Path(path)
    onto = load(path)
    source = dot_source(onto)
    outputs = {path.parent / README_NAME: markdown(onto), path.parent / DOT_NAME: source,
               path.parent / CONTEXT_NAME: context_text(path)}
    svg = render_svg(source, onto.source)
    if svg is not None:
        outputs[path.parent / SVG_NAME] = svg
    return outputs


def _read(target: Path) -> str | None:
    try:
        return target.read_text(encoding="utf-8")
    except OSError:
        return None


def stale(outputs: dict[Path, str]) -> list[Path]:
    """The generated files that are missing or differ from ``outputs``.

    The diagram.svg beside a diagram.dot of ``outputs`` is checked by its stamp (drawn
    from that DOT, left as drawn), whether or not ``outputs`` holds a fresh drawing: a
    different Graphviz draws differently, and that is not drift.
    """
    targets = set(outputs) | {t.parent / SVG_NAME for t in outputs if t.name == DOT_NAME}
    found = []
    for target in sorted(targets):
        current = _read(target)
        source = outputs.get(target.parent / DOT_NAME)
        if target.name == SVG_NAME and source is not None:
            fresh = current is not None and svg_current(current, source)
        else:
            fresh = current == outputs.get(target)
        if not fresh:
            found.append(target)
    return found


def write(outputs: dict[Path, str]) -> list[Path]:
    """Write the files that changed; returns them.

    Raises ``UsageError`` (and writes nothing) when the SVG is out of date and
    ``outputs`` holds no fresh drawing of it (Graphviz is not installed).
    """
    changed = stale(outputs)
    undrawable = [target for target in changed if target not in outputs]
    if undrawable:
        raise UsageError(f"{undrawable[0]} is out of date and Graphviz is not installed to draw it again: "
                         "install it (Debian: apt-get install graphviz), then run 'python -m kg.ontodoc'")
    for target in changed:
        target.write_text(outputs[target], encoding="utf-8", newline="\n")
    return changed
