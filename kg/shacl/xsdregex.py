"""XPath regular expressions (sh:pattern with sh:flags) translated for the ``regex`` module, or refused.

SHACL's sh:pattern is SPARQL's REGEX, that is XPath's ``fn:matches``: the regular
expressions of XML Schema (Part 2, appendix F) with XPath's additions (``^`` and ``$``,
reluctant quantifiers, back-references, ``(?:...)``) and the flags ``s``, ``m``, ``i``,
``x`` and ``q``. Python's ``re`` reads another dialect: ``\\p{L}`` is an error there,
``\\w``, ``\\s`` and ``.`` mean other things, and character class subtraction
(``[a-z-[aeiou]]``) does not exist. ``translate`` reads the XPath syntax and writes the
same language for the ``regex`` module (Unicode categories and blocks by name, a match
with a timeout); anything the XPath grammar does not allow is refused with ``BadPattern``
saying where. A translated pattern is bounded: at most ``MAX_GROUP_DEPTH`` groups deep and
``MAX_REPEAT`` characters of counted repeats multiplied out and added up (``regex`` unrolls
them when it compiles: ``((a{1000}){1000}){1000}`` would take all the memory there is).

>>> translate(r"[a-z-[aeiou]]+\\p{Lu}", "")
'(?:(?![aeiou])[a-z])+[\\\\p{Lu}]'
>>> bool(compile_pattern(r"^\\p{L}+$", "").search("été"))
True
>>> translate("([a-", "")
Traceback (most recent call last):
...
kg.shacl.xsdregex.BadPattern: a character class is not closed (at character 2)
"""

from __future__ import annotations

from functools import lru_cache

import regex

MAX_GROUP_DEPTH = 32
MAX_REPEAT = 100_000
MAX_PATTERN = 10_000  # characters of the pattern as written

_CATEGORIES = frozenset(
    "L Lu Ll Lt Lm Lo M Mn Mc Me N Nd Nl No P Pc Pd Ps Pe Pi Pf Po Z Zs Zl Zp S Sm Sc Sk So C Cc Cf Co Cn".split())
# XML's name characters (XML 1.0 fifth edition): \i is NameStartChar, \c NameChar (ranges that Python's re
# reads too: kg.shacl.literals checks xsd:Name and its kin with them)
NAME_START_CHARS = (r":A-Z_a-z\xC0-\xD6\xD8-\xF6\xF8-\u02FF\u0370-\u037D\u037F-\u1FFF\u200C\u200D\u2070-\u218F"
               r"\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD\U00010000-\U000EFFFF")
NAME_CHARS = NAME_START_CHARS + r"\-.0-9\xB7\u0300-\u036F\u203F\u2040"
_SPACE = r" \t\n\r"
# multi-character escapes: (what goes inside a class, or None) and (a whole atom)
_MULTI = {
    "s": (_SPACE, None), "S": (None, f"[^{_SPACE}]"),
    "i": (NAME_START_CHARS, None), "I": (None, f"[^{NAME_START_CHARS}]"),
    "c": (NAME_CHARS, None), "C": (None, f"[^{NAME_CHARS}]"),
    "d": (r"\p{Nd}", None), "D": (r"\P{Nd}", None),
    "w": (None, r"[^\p{P}\p{Z}\p{C}]"), "W": (r"\p{P}\p{Z}\p{C}", None),
}
_SINGLE = {"n": "\n", "r": "\r", "t": "\t", **{c: c for c in "\\|.-^?*+{}()[]$"}}
_META = set(".\\?*+{}()|[]^$")


class BadPattern(ValueError):
    """Not an XPath regular expression (or past the bounds above): the message says why and where."""


def _esc(char: str) -> str:
    return regex.escape(char, special_only=False) if not char.isalnum() else char


class _Reader:
    """One pattern read left to right, its translation written as it goes."""

    def __init__(self, text: str) -> None:
        self.text, self.at = text, 0

    def fail(self, message: str, at: int | None = None) -> BadPattern:
        """The error at index ``at`` of the pattern (default: the character just read), counted from 1."""
        return BadPattern(f"{message} (at character {self.at if at is None else at + 1})")

    def peek(self, ahead: int = 0) -> str:
        index = self.at + ahead
        return self.text[index] if index < len(self.text) else ""

    def take(self) -> str:
        char = self.peek()
        if not char:
            raise self.fail("the pattern ends too soon")
        self.at += 1
        return char


def _property(reader: _Reader, negated: bool) -> str:
    """``\\p{...}`` / ``\\P{...}`` after the letter: a category or a block, as ``regex`` names it."""
    if reader.take() != "{":
        raise reader.fail("\\p and \\P take a name in braces")
    end = reader.text.find("}", reader.at)
    if end < 0:
        raise reader.fail("\\p{ is not closed")
    name = reader.text[reader.at:end]
    reader.at = end + 1
    if name in _CATEGORIES:
        written = name
    elif name.startswith("Is") and len(name) > 2 and all(c.isalnum() or c == "-" for c in name[2:]):
        written = "Block=" + name[2:]
        try:
            regex.compile(rf"\p{{{written}}}")
        except regex.error:
            raise reader.fail(f"unknown Unicode block {name[2:]!r}") from None
    else:
        raise reader.fail(f"unknown character property {name!r} (a category such as Lu, or Is and a block name)")
    return rf"\{'P' if negated else 'p'}{{{written}}}"


def _escape(reader: _Reader, in_class: bool) -> tuple[str | None, str | None]:
    """The escape after a backslash: (what goes inside a class, or None; a whole atom, or None)."""
    char = reader.take()
    if char in _SINGLE:
        return _esc(_SINGLE[char]), None
    if char in _MULTI:
        return _MULTI[char]
    if char in "pP":
        return _property(reader, char == "P"), None
    raise reader.fail(f"\\{char} is not an escape of XPath regular expressions", reader.at - 1)


def _class_char(reader: _Reader) -> str:
    """One character of a range's end (a plain character or a single-character escape), as itself."""
    char = reader.take()
    if char == "\\":
        escaped = reader.take()
        if escaped not in _SINGLE:
            raise reader.fail(f"\\{escaped} cannot end a range", reader.at - 1)
        return _SINGLE[escaped]
    if char in "[]":
        raise reader.fail(f"{char!r} must be escaped in a character class", reader.at - 1)
    return char


def _class(reader: _Reader, depth: int) -> str:
    """A character class expression after its ``[``, up to and with its ``]``: an atom that matches one character."""
    if depth > MAX_GROUP_DEPTH:
        raise reader.fail("character class subtractions nest too deep")
    start = reader.at
    negated = reader.peek() == "^"
    if negated:
        reader.at += 1
    inside: list[str] = []  # what goes between [ and ]
    atoms: list[str] = []  # what cannot (\S, \I, \C, \w: the complement of a set)
    subtracted: str | None = None
    first = True
    while True:
        char = reader.peek()
        if not char:
            raise reader.fail("a character class is not closed", start - 1)
        if char == "]":
            if first:
                raise reader.fail("an empty character class", start - 1)
            reader.at += 1
            break
        if char == "-" and reader.peek(1) == "[":
            if first:
                raise reader.fail("a subtraction needs a class to subtract from")
            reader.at += 2
            subtracted = _class(reader, depth + 1)
            if reader.peek() != "]":
                raise reader.fail("a subtraction must end its character class")
            continue
        if char == "-" and not reader.peek(1):
            raise reader.fail("a character class is not closed", start - 1)
        if char == "-" and not first and reader.peek(1) != "]":
            raise reader.fail("'-' inside a character class must be escaped, or first, or last")
        if char == "\\" and reader.peek(1) in _SINGLE:
            reader.at += 2
            low = _SINGLE[reader.text[reader.at - 1]]
            inside.append(_range(reader, low) if _starts_range(reader) else _esc(low))
        elif char == "\\":
            reader.at += 1
            part, atom = _escape(reader, True)
            if atom is not None:
                atoms.append(atom)
            else:
                inside.append(part or "")
        elif reader.peek(1) == "-" and reader.peek(2) not in ("[", "]", ""):
            reader.at += 1
            inside.append(_range(reader, char))
        else:
            if char == "[":
                raise reader.fail("'[' must be escaped in a character class")
            reader.at += 1
            inside.append(_esc(char))
        first = False
    options = ([f"[{''.join(inside)}]"] if inside else []) + atoms
    matched = options[0] if len(options) == 1 else "(?:" + "|".join(options) + ")"
    if negated:
        matched = f"[^{''.join(inside)}]" if not atoms else f"(?:(?!{matched})[\\s\\S])"
    if subtracted is not None:
        matched = f"(?:(?!{subtracted}){matched})"
    return matched


def _starts_range(reader: _Reader) -> bool:
    """Whether ``reader`` is at the ``-`` of a range (not of a subtraction, nor a last ``-``)."""
    return reader.peek() == "-" and reader.peek(1) not in ("[", "]", "")


def _range(reader: _Reader, low: str) -> str:
    """The rest of a range ``low-high`` (``reader`` at its ``-``)."""
    reader.at += 1
    high = _class_char(reader)
    if ord(high) < ord(low):
        raise reader.fail(f"the range {low}-{high} runs backwards")
    return f"{_esc(low)}-{_esc(high)}"


def _quantifier(reader: _Reader) -> tuple[str, int]:
    """The quantifier at ``reader`` ('' when none) and its largest count (1 for ?, * and +: they loop)."""
    char = reader.peek()
    if char in ("?", "*", "+"):
        reader.at += 1
        written, most = char, 1
    elif char == "{":
        end = reader.text.find("}", reader.at)
        body = reader.text[reader.at + 1:end] if end > 0 else ""
        low, comma, high = body.partition(",")
        if end < 0 or not low.isdigit() or not (high.isdigit() or high == "") or (not comma and high):
            raise reader.fail("a quantifier is {n}, {n,} or {n,m} with n and m digits")
        if high and int(high) < int(low):
            raise reader.fail(f"the quantifier {{{body}}} runs backwards")
        reader.at = end + 1
        written, most = "{" + body + "}", max(int(low), int(high or 0), 1)
    else:
        return "", 1
    if reader.peek() == "?":  # reluctant (XPath)
        reader.at += 1
        written += "?"
    if reader.peek() in ("?", "*", "+", "{"):
        raise reader.fail("two quantifiers in a row")
    return written, most


def _translate(text: str, flags: str) -> str:
    reader = _Reader(text)
    out: list[str] = []
    groups = 0  # capturing groups opened so far (back-references name them)
    # for each open group, and the whole pattern at the bottom: the most characters one of its items
    # repeats (counted quantifiers multiplied out through the groups inside it)
    widest: list[int] = [1]
    spent = [0]  # the repeats of every item, added up: the size of the unrolled pattern, about
    while reader.at < len(text):
        char = reader.take()
        if char == "(":
            if len(widest) > MAX_GROUP_DEPTH:
                raise reader.fail(f"groups nest more than {MAX_GROUP_DEPTH} deep", reader.at - 1)
            if reader.peek() == "?":
                if reader.peek(1) != ":":
                    raise reader.fail("(? is only (?: in XPath regular expressions")
                reader.at += 2
                out.append("(?:")
            else:
                groups += 1
                out.append("(")
            widest.append(1)
            continue
        if char == ")":
            if len(widest) == 1:
                raise reader.fail("')' closes no group", reader.at - 1)
            inner = widest.pop()
            out.append(")")
            _repeat(reader, out, widest, inner, spent)
            continue
        if char == "|":
            out.append("|")
            continue
        if char in ("?", "*", "+", "{"):
            raise reader.fail(f"{char!r} quantifies nothing", reader.at - 1)
        if char in ("}", "]"):
            raise reader.fail(f"{char!r} must be escaped", reader.at - 1)
        if char == "^":
            out.append("^")
            continue
        if char == "$":
            out.append("$" if "m" in flags else r"\Z")
            continue
        if char == ".":
            atom = r"[\s\S]" if "s" in flags else r"[^\n\r]"
        elif char == "[":
            atom = _class(reader, 0)
        elif char == "\\" and reader.peek().isdigit() and reader.peek() != "0":
            digits = reader.take()
            while reader.peek().isdigit() and int(digits + reader.peek()) <= groups:
                digits += reader.take()
            if int(digits) > groups:
                raise reader.fail(f"\\{digits} refers to a group that does not come before it")
            atom = f"(?:\\{digits})"
        elif char == "\\":
            part, whole = _escape(reader, False)
            part = part or ""
            atom = whole if whole is not None else (part if len(part) == 1 or (len(part) == 2 and part[0] == "\\")
                                                    else f"[{part}]")
        else:
            atom = _esc(char)
        out.append(atom)
        _repeat(reader, out, widest, 1, spent)
    if len(widest) > 1:
        raise reader.fail("a group is not closed", len(text))
    return "".join(out)


def _repeat(reader: _Reader, out: list[str], widest: list[int], inner: int, spent: list[int]) -> None:
    """The quantifier of the item just written (``inner``: what the item repeats inside), written, and
    the repeats multiplied out checked against ``MAX_REPEAT``."""
    written, most = _quantifier(reader)
    out.append(written)
    total = inner * most
    spent[0] += total
    if spent[0] > MAX_REPEAT:
        raise reader.fail(f"counted repeats multiply past {MAX_REPEAT:,}")
    widest[-1] = max(widest[-1], total)


def translate(pattern: str, flags: str) -> str:
    """The ``regex`` module's pattern for an XPath ``pattern`` with ``flags`` (``BadPattern`` if none)."""
    unknown = sorted(set(flags) - set("smixq"))
    if unknown:
        raise BadPattern(f"unknown flag {unknown[0]!r} (XPath's flags are s, m, i, x and q)")
    if len(pattern) > MAX_PATTERN:
        raise BadPattern(f"longer than {MAX_PATTERN:,} characters")
    if "q" in flags:
        return regex.escape(pattern, special_only=False)
    if "x" in flags:  # whitespace is dropped, except inside character classes
        pattern = _without_spaces(pattern)
    return _translate(pattern, flags)


def _without_spaces(pattern: str) -> str:
    kept, depth, escaped = [], 0, False
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "[":
            depth += 1
        elif char == "]" and depth:
            depth -= 1
        elif char in " \t\n\r" and not depth:
            continue
        kept.append(char)
    return "".join(kept)


@lru_cache(maxsize=512)
def compile_pattern(pattern: str, flags: str = "") -> "regex.Pattern[str]":
    """An XPath ``pattern`` with ``flags``, compiled (``BadPattern`` when it is not one)."""
    text = translate(pattern, flags)
    bits = regex.V0 | (regex.IGNORECASE if "i" in flags else 0) | (regex.MULTILINE if "m" in flags else 0)
    try:
        return regex.compile(text, bits)
    except (regex.error, RecursionError, OverflowError) as error:
        raise BadPattern(f"cannot be compiled: {error}") from None
