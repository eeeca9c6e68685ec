"""The guard: refuse, before evaluation, a query or update that could reach the network or crash.

pyoxigraph evaluates SERVICE by calling the remote endpoint, LOAD by fetching the
document, and takes FROM / FROM NAMED at their word; this endpoint and ``kg query``
never do any of that. The guard refuses (:class:`QueryRefused`):

- SERVICE in any form: any case, SILENT, a variable or a prefixed name as the
  endpoint, nested in a sub-SELECT, EXISTS, OPTIONAL, UNION or LATERAL;
- LOAD in an update;
- FROM / FROM NAMED naming a graph that is not a graph of the store;
- text rdflib cannot parse (fail closed: what the guard cannot read, it refuses);
- oversize text, by the caps below.

Two paths. Most queries are plain SPARQL 1.1 that never spells "service" anywhere (not
even inside a string or a name, nor by codepoint escapes) and names in FROM only absolute
IRIs: for those the guard reads what it needs from the tokens (:func:`token_check`, a
fraction of a millisecond): the form, the FROM graphs, the caps, balanced brackets.
Without the letters of "service" in any case, neither pyoxigraph nor rdflib can see a
SERVICE keyword, so nothing there can reach the network; pyoxigraph's own parser then
refuses what is malformed (400) before evaluating anything. Every other text (any
"service", a prefixed or relative name in FROM, a word or bracket outside SPARQL 1.1
such as LATERAL or ``<<``, unbalanced brackets, an update) is parsed with rdflib and its
algebra walked, as before: what rdflib cannot parse is refused.

The caps. pyoxigraph's parser and evaluator recurse on the shape of the query, on
the thread that runs it: a query past a few thousand chained operators overflows an
8 MiB stack, and the process dies (SIGSEGV, no exception to catch). Measured with
pyoxigraph 0.5.13 on an 8 MiB stack, the smallest crashes are near 14,000 tokens for
a flat chain (``1+1+...``: 7,187 terms) and near 1,000 levels of nested brackets
(``STR(STR(...))``: 976; ``FILTER(EXISTS { ... })``: 722, i.e. 1,444 brackets).
The caps stay well below both, and far above any real query (the largest bundled
query has under 500 tokens):

- :data:`MAX_QUERY_CHARS` characters;
- :data:`MAX_NESTING` brackets (``(``, ``[``, ``{``, ``<<``) open at once;
- :data:`MAX_TOKENS` tokens outside VALUES data (VALUES rows do not recurse).

rdflib, which the guard parses with, recurses too (about a dozen Python frames per
triple pattern: an 85-pattern group passes Python's default limit of 1,000). It runs
in a thread of its own with a deep stack and a raised recursion limit, so every query
within the caps parses.

>>> check_query("SELECT * WHERE { ?s ?p ?o }", set()).form
'SELECT'
>>> check_query("select * { filter exists { service silent ?x { ?s ?p ?o } } }", set())
Traceback (most recent call last):
...
kg.sparql.guard.QueryRefused: SERVICE is not allowed: this endpoint never queries other endpoints
"""

from __future__ import annotations

import re
import sys
import threading
from dataclasses import dataclass
from typing import Any, Callable, Iterable, TypeVar

from ..errors import QueryError, safe_text
from .lexer import Token, code_tokens, query_form, spells

MAX_QUERY_CHARS = 64 * 1024
MAX_NESTING = 100
MAX_TOKENS = 4000

# rdflib's parse runs with these: at the caps it needs under 20,000 frames; a Python
# frame takes little C stack (3.11+), the 256 MiB are address space, touched only as used.
PARSE_STACK_BYTES = 256 * 1024 * 1024
PARSE_RECURSION_LIMIT = 100_000

_NOT_A_QUERY = frozenset({"INSERT", "DELETE", "LOAD", "DROP"})
_OPENING = {"(": ")", "[": "]", "{": "}", "<<": ">>"}
_CLOSING = frozenset(_OPENING.values())

T = TypeVar("T")


class QueryRefused(QueryError):
    """The guard refused a query or update before evaluation (SERVICE, LOAD, a remote FROM, unparsable)."""


@dataclass
class CheckedQuery:
    form: str  # SELECT, ASK, CONSTRUCT, DESCRIBE
    has_dataset: bool  # FROM / FROM NAMED present


_FORMS = {"SelectQuery": "SELECT", "AskQuery": "ASK", "ConstructQuery": "CONSTRUCT", "DescribeQuery": "DESCRIBE"}
_SERVICE_REFUSED = "SERVICE is not allowed: this endpoint never queries other endpoints"
_LOAD_REFUSED = "LOAD is not allowed: this endpoint never fetches remote data"


def check_query(text: str, local_graphs: set[str]) -> CheckedQuery:
    """Raise ``QueryRefused`` for SERVICE (any form: lower case, SILENT, a variable,
    nested), for FROM / FROM NAMED naming a graph that is not in ``local_graphs``, for
    oversize text, and for anything rdflib cannot parse (fail closed), reading the tokens
    of plain SPARQL 1.1 and parsing the rest with rdflib (see the module's text).
    """
    tokens = _sized_tokens(text)
    words = {t.word for t in tokens if t.kind == "word"}
    if "SERVICE" in words:
        raise QueryRefused(_SERVICE_REFUSED)
    checked = token_check(text, tokens, words)
    if checked is None:
        return _parsed_check(text, tokens, words, local_graphs)
    form, graphs = checked
    check_graphs(graphs, local_graphs, "FROM")
    return CheckedQuery(form=form, has_dataset=bool(graphs))


# SPARQL 1.1's keywords and built-in function names (the bare words of its grammar).
SPARQL11_WORDS = frozenset("""
    BASE PREFIX SELECT CONSTRUCT DESCRIBE ASK DISTINCT REDUCED AS FROM NAMED WHERE GROUP BY HAVING ORDER ASC
    DESC LIMIT OFFSET VALUES UNDEF OPTIONAL GRAPH MINUS UNION FILTER BIND NOT IN EXISTS A TRUE FALSE
    COUNT SUM MIN MAX AVG SAMPLE GROUP_CONCAT SEPARATOR
    STR LANG LANGMATCHES DATATYPE BOUND IRI URI BNODE RAND ABS CEIL FLOOR ROUND CONCAT STRLEN UCASE LCASE
    ENCODE_FOR_URI CONTAINS STRSTARTS STRENDS STRBEFORE STRAFTER YEAR MONTH DAY HOURS MINUTES SECONDS
    TIMEZONE TZ NOW UUID STRUUID MD5 SHA1 SHA256 SHA384 SHA512 COALESCE IF STRLANG STRDT SAMETERM ISIRI
    ISURI ISBLANK ISLITERAL ISNUMERIC REGEX SUBSTR REPLACE
""".split())
_SPARQL11_PUNCT = frozenset("{ } ( ) [ ] . , ; * + - / ! = != < > <= >= && || ^^ ^ | ?".split())
_ABSOLUTE_IRI = re.compile(r"<[A-Za-z][A-Za-z0-9+.\-]*:")
_PAIRS = {"}": "{", ")": "(", "]": "["}


def token_check(text: str, tokens: list[Token], words: set[str]) -> tuple[str, list[str]] | None:
    """The form and the FROM / FROM NAMED graphs of a query read from its tokens alone, or
    None when the text needs rdflib's parse: it spells "service" anywhere (in any case, in
    a string, a name or a comment), uses a word or bracket outside SPARQL 1.1, has
    unbalanced brackets, is no query, or names in FROM anything but an absolute IRI.

    A text with codepoint escapes (``\\u0041``, ``\\U00000041``) is read twice, as written
    and with its escapes replaced (SPARQL replaces them before parsing; a parser may also
    read them inside strings and IRIs only): both readings must pass, within the caps, and
    agree, else rdflib parses it.

    >>> token_check("SELECT * FROM <https://e.org/g> { ?s ?p ?o }", code_tokens("SELECT * FROM <https://e.org/g> { ?s ?p ?o }"),
    ...             {"SELECT", "FROM"})
    ('SELECT', ['https://e.org/g'])
    """
    found = _plain_query(text, tokens, words)
    if found is None or not _ESCAPE.search(text):
        return found
    decoded = _ESCAPE.sub(_unescaped, text)
    decoded_tokens = code_tokens(decoded)
    if size_problem(decoded_tokens):
        return None
    again = _plain_query(decoded, decoded_tokens, {t.word for t in decoded_tokens if t.kind == "word"})
    return found if again == found else None


_ESCAPE = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")


def _unescaped(match: re.Match[str]) -> str:
    code = int(match.group(1) or match.group(2), 16)
    return chr(code) if code <= 0x10FFFF else match.group(0)


def _plain_query(text: str, tokens: list[Token], words: set[str]) -> tuple[str, list[str]] | None:
    """:func:`token_check` of one reading of the text."""
    if spells(text, "service") or not words <= SPARQL11_WORDS:
        return None
    form = query_form(tokens)
    if form is None or form == "UPDATE":
        return None
    graphs: list[str] = []
    stack: list[str] = []
    for i, token in enumerate(tokens):
        if token.kind == "punct":
            if token.text not in _SPARQL11_PUNCT:
                return None
            if token.text in ("{", "(", "["):
                stack.append(token.text)
            elif token.text in _PAIRS and (not stack or stack.pop() != _PAIRS[token.text]):
                return None
        elif token.word == "FROM":
            named = i + 1 < len(tokens) and tokens[i + 1].word == "NAMED"
            target = tokens[i + 2] if named and i + 2 < len(tokens) else tokens[i + 1] if i + 1 < len(tokens) else None
            if target is None or target.kind != "iri" or not _ABSOLUTE_IRI.match(target.text):
                return None
            graphs.append(target.text[1:-1])
    return (form, graphs) if not stack else None


def _parsed_check(text: str, tokens: list[Token], words: set[str], local_graphs: set[str]) -> CheckedQuery:
    """The check by rdflib's parse and a walk of its algebra (fail closed)."""
    from rdflib.plugins.sparql.algebra import translateQuery
    from rdflib.plugins.sparql.parser import parseQuery

    try:
        parsed, algebra = _deep(lambda: _translated(parseQuery, translateQuery, text))
        algebra = algebra.algebra
    except Exception as err:  # noqa: BLE001 - any failure to understand the text is a refusal
        if query_form(tokens) == "UPDATE" or words & _NOT_A_QUERY:
            raise QueryRefused("this is not a query (updates go to /update, when enabled)") from None
        raise QueryRefused(f"malformed or unsupported SPARQL (checked with rdflib before evaluation): "
                           f"{safe_text(err, 300)}") from None
    nodes = list(_walk(algebra)) + list(_walk(parsed))
    _refuse_service(nodes, words)
    datasets = [n for n in nodes if n.name == "DatasetClause"]
    check_graphs({_dataset_iri(n) for n in datasets}, local_graphs, "FROM")
    return CheckedQuery(form=_FORMS.get(algebra.name, algebra.name), has_dataset=bool(datasets))


_DEFAULT_GRAPH_REFUSED = (
    "refused, nothing written: this update's WHERE (or DELETE WHERE) matches triples outside GRAPH, and "
    "SPARQL Update reads those from the store's default graph alone, while queries here read the union of "
    "all graphs (kg keeps its data in named graphs, so it would match nothing that a query sees): match "
    "inside GRAPH ?g { ... }, or name the graphs to read with USING <graph> (or WITH <graph>)")


def check_update(text: str, union_default: bool = False) -> None:
    """Refuse LOAD and SERVICE anywhere in an update, oversize text, and anything rdflib
    cannot parse. With ``union_default`` (queries read the union of the graphs, as
    ``kg serve``'s do), also refuse an operation whose WHERE reads the default graph with
    no USING or WITH naming what to read: pyoxigraph's updates read the default graph
    alone, so it would silently see less than the same WHERE as a query.

    >>> check_update("INSERT { GRAPH <urn:g> { ?s <urn:x> ?o } } WHERE { GRAPH ?g { ?s ?p ?o } }", True)
    >>> check_update("INSERT { GRAPH <urn:g> { ?s <urn:x> ?o } } WHERE { ?s ?p ?o }", True)
    Traceback (most recent call last):
    ...
    kg.sparql.guard.QueryRefused: refused, nothing written: this update's WHERE ...
    """
    from rdflib.plugins.sparql.algebra import translateUpdate
    from rdflib.plugins.sparql.parser import parseUpdate

    tokens = _sized_tokens(text)
    words = {t.word for t in tokens if t.kind == "word"}
    if "LOAD" in words:
        raise QueryRefused(_LOAD_REFUSED)
    if "SERVICE" in words:
        raise QueryRefused(_SERVICE_REFUSED)
    try:
        parsed, algebra = _deep(lambda: _translated(parseUpdate, translateUpdate, text))
    except Exception as err:  # noqa: BLE001 - fail closed
        raise QueryRefused(f"malformed or unsupported SPARQL Update (checked with rdflib): "
                           f"{safe_text(err, 300)}") from None
    nodes = list(_walk(algebra.algebra)) + list(_walk(parsed))
    if any(n.name == "Load" for n in nodes):
        raise QueryRefused(_LOAD_REFUSED)
    _refuse_service(nodes, words)
    if union_default and any(_reads_default_graph(op) for op in algebra.algebra):
        raise QueryRefused(_DEFAULT_GRAPH_REFUSED)


def _reads_default_graph(operation: Any) -> bool:
    """Whether an update operation (rdflib's algebra) matches triples in the default graph:
    a DELETE WHERE with triples outside GRAPH, or a DELETE/INSERT whose WHERE has a triple
    pattern outside GRAPH (sub-queries and EXISTS included) and no USING or WITH."""
    if operation.name == "DeleteWhere":
        return bool(_field(operation, "triples"))
    if operation.name != "Modify" or _field(operation, "using") or _field(operation, "withClause") is not None:
        return False
    return _triples_outside_graph(_field(operation, "where"))


def _field(node: Any, key: str) -> Any:
    """``node[key]``, None when absent (a CompValue's ``get`` gives the key back instead)."""
    return node[key] if key in node else None


def _triples_outside_graph(node: Any) -> bool:
    """Whether a pattern (algebra or parse tree) holds a triple pattern outside every GRAPH."""
    from rdflib.plugins.sparql.parserutils import CompValue

    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, CompValue):
            if item.name in ("Graph", "GraphGraphPattern"):
                continue  # inside GRAPH: a named graph, read the same way by queries and updates
            if item.name in ("BGP", "TriplesBlock") and _field(item, "triples"):
                return True
            stack.extend(item.values())
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return False


def check_graphs(iris: Iterable[str], local_graphs: set[str], what: str) -> None:
    """Refuse any of ``iris`` that is not in ``local_graphs`` (``what`` names where it came
    from: FROM, default-graph-uri, named-graph-uri)."""
    for iri in iris:
        if iri not in local_graphs:
            raise QueryRefused(f"{what} <{safe_text(iri, 120)}> is not a graph of this store; "
                               "remote graphs are never fetched")


_check_graphs = check_graphs  # the name kg.serve knew it by


# ---------------------------------------------------------------------------
# Size caps


def size_problem(tokens: list[Token]) -> str | None:
    """Why ``tokens`` are too big for the caps (the message of the refusal), or None."""
    depth = deepest = counted = 0
    in_values = False  # between VALUES and the end of its data block
    values_depth = -1  # depth of the data block's '{', once open
    for token in tokens:
        if token.word == "VALUES":
            in_values = True
        text = token.text if token.kind == "punct" else ""
        if text in _OPENING:
            depth += 1
            deepest = max(deepest, depth)
            if in_values and text == "{" and values_depth < 0:
                values_depth = depth
        elif text in _CLOSING:
            if depth == values_depth and text == "}":
                in_values, values_depth = False, -1
            depth -= 1
        if not in_values:
            counted += 1
    if deepest > MAX_NESTING:
        return f"brackets nested {deepest} deep (at most {MAX_NESTING})"
    if counted > MAX_TOKENS:
        return f"{counted} tokens outside VALUES data (at most {MAX_TOKENS})"
    return None


def _sized_tokens(text: str) -> list[Token]:
    """The code tokens of ``text``, after refusing text over the caps."""
    if len(text) > MAX_QUERY_CHARS:
        raise QueryRefused(f"the query is too large: {len(text)} characters (at most {MAX_QUERY_CHARS})")
    tokens = code_tokens(text)
    problem = size_problem(tokens)
    if problem:
        raise QueryRefused(f"the query is too large: {problem}")
    return tokens


# ---------------------------------------------------------------------------
# rdflib's parse, on a deep stack


_deep_lock = threading.Lock()


def _translated(parse: Callable[[str], Any], translate: Callable[[Any], Any], text: str) -> tuple[Any, Any]:
    parsed = parse(text)
    return parsed, translate(parsed)


def _deep(function: Callable[[], T]) -> T:
    """``function()``, here if it fits Python's recursion limit, else again in a thread
    with a deep stack and a raised recursion limit.

    Most queries fit: the thread (256 MiB of address space) is only started for the deep
    ones, so a worker under a memory cap (``kg serve --worker-memory-mb``) still checks
    ordinary queries when it could not map such a stack. Python's recursion limit is one
    number for the whole interpreter: while the thread runs, other threads may recurse
    deeper too (harmless on 3.11+, where Python calls use little C stack). The lock keeps
    two checks from undoing each other's limit.
    """
    try:
        return function()
    except RecursionError:
        pass
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = function()
        except BaseException as err:  # noqa: BLE001 - handed back to the calling thread
            outcome["error"] = err

    with _deep_lock:
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, PARSE_RECURSION_LIMIT))
        try:
            size = threading.stack_size(PARSE_STACK_BYTES)
            try:
                thread = threading.Thread(target=target, name="kg-sparql-guard", daemon=True)
                thread.start()
            finally:
                threading.stack_size(size)
            thread.join()
        finally:
            sys.setrecursionlimit(limit)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


# ---------------------------------------------------------------------------
# The parse tree


def _walk(node: Any) -> Iterable[Any]:
    """Every node of an rdflib parse tree or algebra (CompValue, lists, dicts), depth first."""
    from rdflib.plugins.sparql.parserutils import CompValue

    stack, seen = [node], set()
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, CompValue):
            yield item
            stack.extend(item.values())
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)


def _dataset_iri(clause: Any) -> str:
    """The graph a DatasetClause names (CompValue.get gives the key back for a missing
    key, so ``get("default")`` of a FROM NAMED clause would be the text 'default')."""
    return str(clause["default"] if "default" in clause else clause["named"])


def _refuse_service(nodes: list[Any], words: set[str]) -> None:
    if "SERVICE" in words or any(n.name == "ServiceGraphPattern" for n in nodes):
        raise QueryRefused(_SERVICE_REFUSED)
