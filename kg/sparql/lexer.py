"""Tokens of SPARQL text: the one lexer every reader of query text in kg uses.

:func:`tokens` cuts SPARQL 1.1 (and the RDF 1.2 triple-term brackets) into tokens
and never raises: text that is not SPARQL still gives tokens, and the parser that
runs later says what is wrong with it. It knows what a naive scan gets wrong:

- ``#`` starts a comment, except inside an IRI (``<https://e.org/a#b>``), a string
  or an escaped local name (``ex:a\\#b``);
- strings come in four quotings (``'``, ``"``, ``'''``, ``\"\"\"``) with backslash escapes;
  a long string may hold lone quotes and end in up to two more;
- ``<`` opens an IRI, except in an expression right after an operand, where it is
  the comparison operator (``FILTER(?a<?b && ?c>?d)``);
- ``?x`` and ``$x`` are variables, ``ex:name`` and ``:name`` prefixed names,
  ``_:b`` blank nodes; a keyword is a bare word (never part of a name).

>>> [(t.kind, t.text) for t in tokens('SELECT ?s { ?s <https://e.org/p#x> "a # b" } # done')]
... # doctest: +NORMALIZE_WHITESPACE
[('word', 'SELECT'), ('var', '?s'), ('punct', '{'), ('var', '?s'), ('iri', '<https://e.org/p#x>'),
 ('string', '"a # b"'), ('punct', '}'), ('comment', '# done')]
>>> [t.text for t in tokens("FILTER(?a<?b && ?c>?d)")]
['FILTER', '(', '?a', '<', '?b', '&&', '?c', '>', '?d', ')']
>>> query_form("PREFIX ex: <https://e.org/> ask { ?s ex:p ?o }"), query_form("DROP ALL")
('ASK', 'UPDATE')
>>> has_keyword('SELECT * { ?service <https://e.org/service> "SERVICE" }', "SERVICE")
False
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator, NamedTuple

QUERY_FORMS = ("SELECT", "ASK", "CONSTRUCT", "DESCRIBE")
UPDATE_WORDS = frozenset({"INSERT", "DELETE", "LOAD", "CLEAR", "CREATE", "DROP", "COPY", "MOVE", "ADD", "WITH"})
KINDS = ("comment", "string", "iri", "var", "pname", "bnode", "word", "number", "lang", "punct")

_IRIREF = re.compile(r'<[^<>"{}|^`\\\x00-\x20]*>')
_VAR = re.compile(r"[?$][\w\u00B7\u0300-\u036F\u203F\u2040]+")
_LOCAL_CHAR = r"(?:[\w\-\u00B7:]|%[0-9A-Fa-f]{2}|\\[_~.\-!$&'()*+,;=/?#@%])"
_PNAME = re.compile(rf"(?:[^\W\d_](?:[\w\-.\u00B7]*[\w\-\u00B7])?)?:(?:(?:{_LOCAL_CHAR})(?:(?:{_LOCAL_CHAR}|\.)*{_LOCAL_CHAR})?)?")
_BNODE = re.compile(r"_:[\w](?:[\w\-.\u00B7]*[\w\-\u00B7])?")
_WORD = re.compile(r"[^\W\d]\w*")
_NUMBER = re.compile(r"[0-9]+\.[0-9]*[eE][+-]?[0-9]+|\.?[0-9]+[eE][+-]?[0-9]+|[0-9]*\.[0-9]+|[0-9]+")
_LANG = re.compile(r"@[A-Za-z]+(?:-[A-Za-z0-9]+)*(?:--[A-Za-z]+)?")
_PUNCT = (">>", "{|", "|}", "&&", "||", "!=", ">=", "^^")
_OPENING = {")": "(", "]": "["}

# Tokens after which ``<`` compares (inside an expression) instead of opening an IRI.
_OPERANDS = frozenset({"var", "number", "string", "iri", "pname", "lang", "bnode"})
# Words before ``(`` that do not make it an expression (a collection or a VALUES row follows).
_NOT_CALLS = frozenset({"VALUES", "A", "TRUE", "FALSE", "UNDEF"})
# Words that start a clause whose brackets hold expressions (projection, solution modifiers).
_EXPRESSION_CLAUSES = frozenset({"SELECT", "BY", "HAVING"})
_PATTERN_CLAUSES = frozenset({"WHERE", "FROM", "LIMIT", "OFFSET", "VALUES"})


class Token(NamedTuple):
    """One token: its kind (one of :data:`KINDS`), where it starts and its text."""

    kind: str
    start: int
    text: str

    @property
    def end(self) -> int:
        return self.start + len(self.text)

    @property
    def word(self) -> str:
        """The keyword in upper case for a ``word`` token, else ''."""
        return self.text.upper() if self.kind == "word" else ""


def tokens(text: str) -> Iterator[Token]:
    """Every token of ``text`` in order, comments included; whitespace is skipped."""
    return _Lexer(text).run()


def code_tokens(text: str) -> list[Token]:
    """The tokens of ``text`` without its comments."""
    return [t for t in tokens(text) if t.kind != "comment"]


def keywords(text: str) -> set[str]:
    """Every bare word of ``text`` in upper case: keywords and function names, never the
    inside of a string, an IRI, a comment, a variable or a prefixed name."""
    return {t.word for t in tokens(text) if t.kind == "word"}


def spells(text: str, word: str) -> bool:
    """Whether ``text`` holds the letters of ``word`` anywhere, in any case, by any of Unicode's
    case mappings (``"ſervice"`` spells SERVICE: its upper case is ``"SERVICE"``).

    >>> spells("SELECT * { ?s ?p 'ſErVice' }", "service"), spells("SELECT * { ?s ?p ?o }", "FROM")
    (True, False)
    """
    if text.isascii():
        return word.lower() in text.lower()
    return word.upper() in text.upper() or word.lower() in text.casefold() or word.lower() in text.lower()


def has_keyword(text: str, word: str) -> bool:
    """Whether ``word`` (any case) occurs in ``text`` as a keyword (a text that does not
    :func:`spell <spells>` it is not lexed at all)."""
    if not spells(text, word):
        return False
    return word.upper() in keywords(text)


def variables(text: str) -> set[str]:
    """Names of the variables of ``text`` (``?x`` and ``$x`` both give ``x``)."""
    return {t.text[1:] for t in tokens(text) if t.kind == "var"}


def projected(text: str) -> list[str]:
    """The variables a SELECT names between ``SELECT`` and ``WHERE``, in their order (its columns).

    >>> projected("SELECT ?id (COUNT(?x) AS ?n) WHERE { ?id ?p ?x } GROUP BY ?id")
    ['id', 'x', 'n']
    """
    found = code_tokens(text)
    start = next(i for i, t in enumerate(found) if t.word == "SELECT")
    end = next(i for i, t in enumerate(found) if t.word == "WHERE")
    return [t.text[1:] for t in found[start:end] if t.kind == "var"]


def query_form(text: str | Iterable[Token]) -> str | None:
    """SELECT, ASK, CONSTRUCT or DESCRIBE for a query, UPDATE for an update, None when
    the first word after the prologue (PREFIX and BASE lines) is neither."""
    items = tokens(text) if isinstance(text, str) else iter(text)
    for token in items:
        if token.kind != "word":
            continue
        if token.word in ("PREFIX", "BASE"):
            continue  # its prefixed name and IRI are not words
        if token.word in QUERY_FORMS:
            return token.word
        return "UPDATE" if token.word in UPDATE_WORDS else None
    return None


class _Lexer:
    """The scan behind :func:`tokens`; keeps the little context ``<`` needs."""

    def __init__(self, text: str) -> None:
        self.text = text
        # one entry per open bracket: the bracket, and whether an expression is inside it
        self.brackets: list[tuple[str, bool]] = []
        self.clause_expressions = False  # in a projection or after GROUP BY / ORDER BY / HAVING
        self.previous: list[Token] = []  # the last two code tokens

    def run(self) -> Iterator[Token]:
        text, i, n = self.text, 0, len(self.text)
        while i < n:
            ch = text[i]
            if ch.isspace():
                i += 1
                continue
            if ch == "#":
                j = min((k for k in (text.find("\n", i), text.find("\r", i)) if k >= 0), default=n)
                yield Token("comment", i, text[i:j])
                i = j
                continue
            token = self._code_token(i)
            self._note(token)
            yield token
            i = token.end

    def _code_token(self, i: int) -> Token:
        text, ch = self.text, self.text[i]
        if ch in "\"'":
            return Token("string", i, text[i:_string_end(text, i)])
        if ch == "<":
            return self._angle(i)
        m = None
        if ch in "?$":
            m, kind = _VAR.match(text, i), "var"
        elif ch == "_" and text.startswith("_:", i):
            m, kind = _BNODE.match(text, i), "bnode"
        elif ch == ":" or ch.isalpha():
            m, kind = _PNAME.match(text, i), "pname"
            if m is None:
                m, kind = _WORD.match(text, i), "word"
        elif ch == "_":
            m, kind = _WORD.match(text, i), "word"
        elif ch.isdigit() or ch == ".":
            m, kind = _NUMBER.match(text, i), "number"
        elif ch == "@":
            m, kind = _LANG.match(text, i), "lang"
        if m is not None:
            return Token(kind, i, m.group())
        punct = next((p for p in _PUNCT if text.startswith(p, i)), ch)
        return Token("punct", i, punct)

    def _angle(self, i: int) -> Token:
        text = self.text
        if self._in_expression() and self._after_operand():
            return Token("punct", i, "<=" if text.startswith("<=", i) else "<")
        if m := _IRIREF.match(text, i):
            return Token("iri", i, m.group())
        for punct in ("<<", "<="):
            if text.startswith(punct, i):
                return Token("punct", i, punct)
        return Token("punct", i, "<")

    def _in_expression(self) -> bool:
        return bool(self.brackets) and self.brackets[-1][1]

    def _after_operand(self) -> bool:
        last = self.previous[-1] if self.previous else None
        return last is not None and (last.kind in _OPERANDS or last.text == ")" or last.word in ("TRUE", "FALSE"))

    def _note(self, token: Token) -> None:
        """Track brackets and clauses after each code token."""
        text, word = token.text, token.word
        if word in _EXPRESSION_CLAUSES:
            self.clause_expressions = True
        elif word in _PATTERN_CLAUSES or text in ("{", "}"):
            self.clause_expressions = False
        if token.kind == "punct":
            if text in ("(", "[", "{"):
                self.brackets.append((text, text == "(" and self._opens_expression()))
            elif text == "}":
                while self.brackets and self.brackets.pop()[0] != "{":
                    pass  # a '(' left open inside the group closes with it
            elif text in (")", "]") and self.brackets and self.brackets[-1][0] == _OPENING[text]:
                self.brackets.pop()
        self.previous = [*self.previous[-1:], token]

    def _opens_expression(self) -> bool:
        """Whether the '(' just read opens an expression (not a collection or a VALUES row)."""
        if self._in_expression():
            return True
        if self.clause_expressions and (not self.brackets or self.brackets[-1][0] == "{"):
            return True
        last = self.previous[-1] if self.previous else None
        if last is None:
            return False
        if last.kind == "word":
            return last.word not in _NOT_CALLS
        if last.kind in ("iri", "pname") and len(self.previous) > 1:
            return self.previous[0].word in ("FILTER", "BY")  # FILTER ex:f(...), ORDER BY ex:f(...)
        return False


def _string_end(text: str, i: int) -> int:
    """The index just after the string literal that starts at ``i`` (or the end of ``text``)."""
    quote = text[i]
    if text.startswith(quote * 3, i):
        j = i + 3
        while j < len(text):
            if text[j] == "\\":
                j += 2
            elif text.startswith(quote * 3, j):
                run = j
                while run < len(text) and text[run] == quote and run - j < 5:
                    run += 1
                return run  # a long string may end in one or two quotes of its own
            else:
                j += 1
        return len(text)
    j = i + 1
    while j < len(text) and text[j] != quote and text[j] not in "\n\r":
        j += 2 if text[j] == "\\" else 1
    return j + 1 if j < len(text) and text[j] == quote else min(j, len(text))
