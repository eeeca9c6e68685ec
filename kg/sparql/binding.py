"""Parameter values bound into SPARQL query text: the one binding semantics of kg.

A parameter is a variable of the query that stands for one given RDF term. Binding
gives it the meaning of a constant throughout the query, as SPARQL's SEP-0007
substitution does. :func:`bind` adds ``VALUES (?name ...) { (term ...) }``

- at the top of the query's WHERE group, for every parameter, and
- at the top of every nested group (OPTIONAL, UNION branch, MINUS, GRAPH, EXISTS,
  the WHERE group of a sub-SELECT) whose text mentions the parameter; for a
  sub-SELECT, a mention anywhere in it counts (its projection, GROUP BY, HAVING).

The WHERE group binds every parameter even when the text does not mention it, so a
parameter a query ignores still joins (one row of VALUES: no change to the answers).
CONSTRUCT templates and VALUES data blocks are left alone.

>>> from pyoxigraph import Literal, NamedNode
>>> print(bind("SELECT ?s WHERE { ?s ?p ?id OPTIONAL { ?s ?q ?id } }", {"id": Literal("x")}))
SELECT ?s WHERE { VALUES (?id) { ("x") } ?s ?p ?id OPTIONAL { VALUES (?id) { ("x") } ?s ?q ?id } }

Why not one VALUES block at the top only: a sub-SELECT that does not project the
variable never sees it, so the parameter would not reach it and the sub-SELECT would
count every row instead of the rows of the given term:

>>> print(bind("SELECT ?n { { SELECT (COUNT(*) AS ?n) { ?s ?p ?o } } }", {"o": NamedNode("https://e.org/a")}))
SELECT ?n { VALUES (?o) { (<https://e.org/a>) } { SELECT (COUNT(*) AS ?n) { VALUES (?o) { (<https://e.org/a>) } ?s ?p ?o } } }

Why not pyoxigraph's own ``substitutions=`` (SEP-0007 itself): pyoxigraph 0.5.13
refuses a variable that is not in the SELECT projection ("The SPARQL query does not
contains variable ?o in its SELECT projection"), and most parameters are not
projected. tests/test_sparql_binding.py keeps a test of that limitation; when it fails,
pyoxigraph has lifted it and :func:`bind` can hand the terms to ``substitutions=``.

A parameter may also stand for a set of terms (a tuple or list of them): it is bound as a
one-column table, ``VALUES (?name) { (term) (term) }``, in the same places. The query then
answers for each of the terms, as if it were run once per term and the answers joined
(``substrate-risk`` given a vendor: each of the vendor's systems):

>>> print(bind("SELECT ?s WHERE { ?s ?p ?o }", {"o": (Literal("a"), Literal("b")), "p": NamedNode("https://e.org/p")}))
SELECT ?s WHERE { VALUES (?p) { (<https://e.org/p>) } VALUES (?o) { ("a") ("b") } ?s ?p ?o }

A property can stand for a set of properties too (a ``relations`` parameter of a named query):
:func:`bind_paths` puts the alternative of the given properties, ``(<p1>|<p2>)``, wherever the
query names the property it was written with, as an IRI or a prefixed name. A property path
may stand wherever a property does in a pattern (``?a (<p1>|<p2>)+ ?b`` too):

>>> print(bind_paths("PREFIX e: <https://e.org/> SELECT ?a { ?a e:dep+ ?b . ?b <https://e.org/dep> ?c }",
...                  {NamedNode("https://e.org/dep"): (NamedNode("https://e.org/built"), NamedNode("https://e.org/dep"))}))
PREFIX e: <https://e.org/> SELECT ?a { ?a (<https://e.org/built>|<https://e.org/dep>)+ ?b . ?b (<https://e.org/built>|<https://e.org/dep>) ?c }

Values never become query text by formatting: each term is serialised by pyoxigraph
(``str(term)``), which escapes it, so a value cannot change the query's structure:

>>> print(bind('ASK { ?s ?p ?name }', {"name": Literal('x" } ; DROP ALL #')}))
ASK { VALUES (?name) { ("x\\" } ; DROP ALL #") } ?s ?p ?name }

A row cap is bound into the text as the outer query's ``LIMIT`` (:func:`limited`), so that the
text alone gives the rows kg gives, wherever it runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping

from pyoxigraph import Literal, NamedNode

from ..errors import QueryError
from .lexer import Token, code_tokens, query_form

Term = NamedNode | Literal
Bound = Term | tuple[Term, ...] | list[Term]  # one term, or a set of them (a one-column table)

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(eq=False)
class _Group:
    """One ``{ ... }`` of the query: where it opens, what it is, what it encloses."""

    start: int  # index of its '{' token
    kind: str  # group, subselect, data (VALUES), template (CONSTRUCT), construct-where
    parent: "_Group | None"
    end: int = -1  # index of its '}' token

    def inside(self, other: "_Group") -> bool:
        return other.start < self.start and self.end < other.end


def bind(sparql: str, terms: Mapping[str, Bound]) -> str:
    """``sparql`` with each parameter of ``terms`` (variable name -> IRI or literal, or a
    tuple or list of them) bound as described above; a QueryError when that cannot be done."""
    if not terms:
        return sparql
    _check_terms(terms)
    if query_form(sparql) == "UPDATE":
        raise QueryError("cannot bind parameters in a SPARQL Update")
    tokens = code_tokens(sparql)
    groups = _groups(tokens)
    top = [g for g in groups if g.kind in ("group", "construct-where")
           and not any(g.inside(o) for o in groups if o.kind != "template")]
    if not top:
        raise QueryError("cannot bind parameters: the query has no WHERE group")
    if any(g.kind == "construct-where" for g in top):
        raise QueryError("cannot bind parameters in the short form CONSTRUCT WHERE { ... }")
    inserts: list[tuple[int, list[str]]] = []
    for group in groups:
        if group.kind != "group":
            continue
        if group in top:
            names = list(terms)
        else:
            scope = group.parent if group.parent is not None and group.parent.kind == "subselect" else group
            used = {t.text[1:] for t in tokens[scope.start:scope.end] if t.kind == "var"}
            names = [name for name in terms if name in used]
        if names:
            inserts.append((tokens[group.start].end, names))
    out = sparql
    for at, names in sorted(inserts, reverse=True):
        out = out[:at] + _values_block(names, terms) + out[at:]
    return out


def limited(sparql: str, limit: int) -> str:
    """``sparql`` with its rows capped at ``limit``: a ``LIMIT`` of the outer query added (after its
    solution modifiers, before a closing VALUES clause), or its own ``LIMIT`` lowered; a query of
    another form than SELECT, CONSTRUCT and DESCRIBE as it is.

    >>> limited("SELECT ?s WHERE { { SELECT ?s { ?s ?p ?o } LIMIT 9 } } ORDER BY ?s # last", 5)
    'SELECT ?s WHERE { { SELECT ?s { ?s ?p ?o } LIMIT 9 } } ORDER BY ?s LIMIT 5 # last'
    >>> limited("SELECT ?s { ?s ?p ?o } LIMIT 10 OFFSET 2", 5), limited("SELECT ?s { ?s ?p ?o } LIMIT 3", 5)
    ('SELECT ?s { ?s ?p ?o } LIMIT 5 OFFSET 2', 'SELECT ?s { ?s ?p ?o } LIMIT 3')
    >>> limited("SELECT ?s { ?s ?p ?o } VALUES ?o { 1 }", 5), limited("ASK { ?s ?p ?o }", 5)
    ('SELECT ?s { ?s ?p ?o }  LIMIT 5 VALUES ?o { 1 }', 'ASK { ?s ?p ?o }')
    """
    tokens = code_tokens(sparql)
    if query_form(tokens) not in ("SELECT", "CONSTRUCT", "DESCRIBE"):
        return sparql
    depth = 0
    for index, token in enumerate(tokens):
        if token.text == "{":
            depth += 1
        elif token.text == "}":
            depth -= 1
        elif depth == 0 and token.word == "LIMIT" and index + 1 < len(tokens) and tokens[index + 1].kind == "number":
            own = tokens[index + 1]
            if int(own.text) <= limit:
                return sparql
            return sparql[:own.start] + str(limit) + sparql[own.end:]
        elif depth == 0 and token.word == "VALUES":  # the closing VALUES clause: the LIMIT goes before it
            return sparql[:token.start] + f" LIMIT {limit} " + sparql[token.start:]
    at = tokens[-1].end if tokens else len(sparql)
    return sparql[:at] + f" LIMIT {limit}" + sparql[at:]


def _check_terms(terms: Mapping[str, Bound]) -> None:
    for name, bound in terms.items():
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise QueryError(f"not a SPARQL variable name: {name!r}")
        for term in bound if isinstance(bound, (tuple, list)) else (bound,):
            if not isinstance(term, (NamedNode, Literal)):
                raise QueryError(f"parameter {name}: expected an IRI or a literal, got {type(term).__name__}")


def _values_block(names: list[str], terms: Mapping[str, Bound]) -> str:
    single = [name for name in names if not isinstance(terms[name], (tuple, list))]
    out = ""
    if single:
        variables = " ".join(f"?{name}" for name in single)
        values = " ".join(str(terms[name]) for name in single)  # pyoxigraph's serialiser escapes
        out = f" VALUES ({variables}) {{ ({values}) }}"
    for name in names:
        bound = terms[name]
        if isinstance(bound, (tuple, list)):
            out += f" VALUES (?{name}) {{ " + " ".join(f"({term})" for term in bound) + " }"
    return out


def _groups(tokens: list[Token]) -> list[_Group]:
    """Every brace group of the query, in the order they close."""
    groups: list[_Group] = []
    stack: list[_Group] = []
    words: list[str] = []  # keywords since the last brace
    values_pending = construct_pending = False
    for index, token in enumerate(tokens):
        if token.kind == "word":
            words.append(token.word)
            values_pending = values_pending or token.word == "VALUES"
            construct_pending = construct_pending or token.word == "CONSTRUCT"
            continue
        if token.text == "{":
            following = tokens[index + 1] if index + 1 < len(tokens) else None
            if values_pending:
                kind, values_pending = "data", False
            elif construct_pending:
                kind = "construct-where" if words[-1:] == ["WHERE"] else "template"
                construct_pending = False
            elif following is not None and following.word == "SELECT":
                kind = "subselect"
            else:
                kind = "group"
            stack.append(_Group(index, kind, stack[-1] if stack else None))
            words = []
        elif token.text == "}":
            if not stack:
                raise QueryError("malformed SPARQL: unbalanced '}'")
            group = stack.pop()
            group.end = index
            groups.append(group)
            words = []
    if stack:
        raise QueryError("malformed SPARQL: unbalanced '{'")
    return groups


def bind_paths(sparql: str, paths: Mapping[NamedNode, tuple[NamedNode, ...]]) -> str:
    """``sparql`` with every mention of each property of ``paths`` (as ``<iri>`` or a prefixed name
    its PREFIX lines resolve) replaced by the alternative of the properties it maps to, each
    written by pyoxigraph's serialiser (``str(term)``); a QueryError when none is given."""
    if not paths:
        return sparql
    wanted: dict[str, str] = {}
    for prop, chosen in paths.items():
        if not chosen or not all(isinstance(p, NamedNode) for p in (prop, *chosen)):
            raise QueryError("a property path needs one or more IRIs")
        wanted[prop.value] = str(chosen[0]) if len(chosen) == 1 else "(" + "|".join(str(p) for p in chosen) + ")"
    tokens = code_tokens(sparql)
    prefixes: dict[str, str] = {}
    edits: list[tuple[int, int, str]] = []
    for index, token in enumerate(tokens):
        if token.word == "PREFIX" and index + 2 < len(tokens) and tokens[index + 1].kind == "pname":
            prefixes[tokens[index + 1].text[:-1]] = tokens[index + 2].text[1:-1]
            continue
        if index >= 2 and tokens[index - 2].word == "PREFIX":
            continue  # the namespace IRI of a PREFIX line
        iri = token.text[1:-1] if token.kind == "iri" else _expanded(token.text, prefixes) if token.kind == "pname" else None
        if iri in wanted:
            edits.append((token.start, token.end, wanted[iri]))
    for start, end, text in reversed(edits):
        sparql = sparql[:start] + text + sparql[end:]
    return sparql


def _expanded(pname: str, prefixes: Mapping[str, str]) -> str | None:
    prefix, _, local = pname.partition(":")
    return prefixes[prefix] + local if prefix in prefixes and "\\" not in local else None
