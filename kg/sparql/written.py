"""The graphs a SPARQL Update can change, read from its tokens (what a write session records as touched)."""

from __future__ import annotations

from typing import Any

from pyoxigraph import NamedNode

from .lexer import code_tokens


_WRITE_WORDS = {"INSERT", "DELETE"}
_OTHER_UPDATES = {"LOAD", "CLEAR", "CREATE", "COPY", "MOVE", "ADD", "WITH", "USING"}


def graphs_written(text: str) -> set[NamedNode] | None:
    """The graphs a SPARQL Update can change, when its text names them all: every
    INSERT or DELETE template holds only ``GRAPH <iri> { ... }`` blocks, and DROP
    names its graph. None when it cannot be told (a graph named by a variable, the
    default graph, CLEAR, LOAD, WITH, ...).

    >>> sorted(g.value for g in graphs_written('DELETE DATA { GRAPH <https://e.org/g> { <a:b> <a:c> "x" } }'))
    ['https://e.org/g']
    >>> graphs_written('DELETE { ?s ?p ?o } WHERE { GRAPH ?g { ?s ?p ?o } }') is None
    True
    """
    found: set[NamedNode] = set()
    tokens = code_tokens(text)
    i = 0
    while i < len(tokens):
        word = tokens[i].text.upper() if tokens[i].kind == "word" else ""
        if word in _OTHER_UPDATES:
            return None
        if word == "DROP":
            rest = [t for t in tokens[i + 1:i + 4] if t.text.upper() != "SILENT"]
            if len(rest) < 2 or rest[0].text.upper() != "GRAPH" or rest[1].kind != "iri":
                return None
            found.add(NamedNode(rest[1].text[1:-1]))
        elif word in _WRITE_WORDS:
            j = i + 1
            if j < len(tokens) and tokens[j].text.upper() in ("DATA", "WHERE"):
                if tokens[j].text.upper() == "WHERE":
                    return None  # DELETE WHERE: its template is its pattern
                j += 1
            end = _template_graphs(tokens, j, found)
            if end is None:
                return None
            i = end
        i += 1
    return found


def _template_graphs(tokens: list[Any], start: int, found: set[NamedNode]) -> int | None:
    """The index of the '}' closing the template that opens at ``start``, adding the graphs it names
    to ``found``; None when the template writes somewhere not named by an IRI."""
    if start >= len(tokens) or tokens[start].text != "{":
        return None
    depth, i = 0, start
    while i < len(tokens):
        token = tokens[i]
        if token.text == "{":
            depth += 1
        elif token.text == "}":
            depth -= 1
            if depth == 0:
                return i
        elif depth == 1:  # at the template's top level only GRAPH <iri> may stand
            if token.kind == "word" and token.text.upper() == "GRAPH" and i + 1 < len(tokens) \
                    and tokens[i + 1].kind == "iri":
                found.add(NamedNode(tokens[i + 1].text[1:-1]))
                i += 1
            else:
                return None
        i += 1
    return None
