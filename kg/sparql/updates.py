"""SPARQL Update text that kg writes itself: graphs dropped, then N-Triples lines inserted.

Every term is written by pyoxigraph's own serialiser (``str(term)``), which escapes it, so no
value is pasted into an update as raw text. The store's replacements and ``kg push`` both use it.

>>> from pyoxigraph import NamedNode
>>> g = NamedNode("https://example.org/g")
>>> print(replacement([g], [(g, ["<https://example.org/s> <https://example.org/p> 1 ."])]))
DROP SILENT GRAPH <https://example.org/g> ;
INSERT DATA {
GRAPH <https://example.org/g> {
<https://example.org/s> <https://example.org/p> 1 .
}
}
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from pyoxigraph import NamedNode, Quad


def replacement(dropped: Iterable[Any], inserted: Iterable[tuple[Any, list[str]]]) -> str:
    """One update: ``DROP SILENT GRAPH`` for each graph of ``dropped``, then one ``INSERT DATA``
    of each (graph, N-Triples lines) pair of ``inserted`` that has lines."""
    parts = [f"DROP SILENT GRAPH {graph}" for graph in dropped]
    blocks = [f"GRAPH {graph} {{\n" + "\n".join(lines) + "\n}" for graph, lines in inserted if lines]
    if blocks:
        parts.append("INSERT DATA {\n" + "\n".join(blocks) + "\n}")
    return " ;\n".join(parts)


def quads_replacement(graphs: Mapping[NamedNode, Sequence[Quad]], dropped: Iterable[Any], additions: Iterable[Quad]) -> str:
    """One update dropping ``dropped`` and inserting the quads of ``graphs`` and ``additions``."""
    grouped: dict[Any, list[Quad]] = {g: list(q) for g, q in graphs.items()}
    for quad in additions:
        grouped.setdefault(quad.graph_name, []).append(quad)
    return replacement(dropped, ((g, [f"{q.subject} {q.predicate} {q.object} ." for q in quads])
                                 for g, quads in grouped.items()))
