"""sh:pattern's dialect: XPath regular expressions (XML Schema's, with XPath's additions and flags) as
kg.shacl.xsdregex reads them. Each expectation is the XPath / XML Schema specification's reading, written
by hand: where Python's re reads the same text otherwise, the case says so."""

from __future__ import annotations

import pytest

from kg.shacl.xsdregex import MAX_GROUP_DEPTH, BadPattern, compile_pattern


@pytest.mark.parametrize("pattern, flags, text, found", [
    (r"^\p{L}+$", "", "été", True), (r"^\p{L}+$", "", "été1", False),
    (r"^\p{Lu}\p{Ll}+$", "", "Paris", True), (r"^\P{N}+$", "", "abc", True), (r"^\P{N}+$", "", "a1", False),
    (r"^\p{IsBasicLatin}+$", "", "abc", True), (r"^\p{IsBasicLatin}+$", "", "ab\u00e9", False),
    (r"^\p{IsGreek}$", "", "\u03b1", True),
    (r"^\i\c*$", "", "x-1.y", True), (r"^\i\c*$", "", "1x", False), (r"^\I$", "", "1", True),
    (r"^[a-z-[aeiou]]+$", "", "rhythm", True), (r"^[a-z-[aeiou]]+$", "", "rat", False),
    (r"^[\p{L}-[a-z]]+$", "", "ÉTÉ", True), (r"^[\p{L}-[a-z]]+$", "", "Été", False),
    (r"^[^a-c-[z]]$", "", "y", True), (r"^[^a-c-[z]]$", "", "z", False), (r"^[^a-c-[z]]$", "", "b", False),
    (r"^\w+$", "", "ab1", True),  # XPath's \w: all but punctuation, separators, controls ("_" is punctuation)
    (r"^\w$", "", "_", False), (r"^\w$", "", "+", True),  # "+" is a symbol, Sm: a word character in XPath
    (r"^\s$", "", "\u00a0", False),  # XPath's \s: space, tab, CR, LF only (re's \s takes the no-break space)
    (r"^\S$", "", "\u00a0", True), (r"^\d$", "", "\u0663", True),  # \d: any Unicode decimal digit
    (r"^a.b$", "", "a\nb", False), (r"^a.b$", "s", "a\nb", True), (r"^a.b$", "", "a\rb", False),
    (r"a$", "", "a\n", False),  # $ ends the text only (re's $ also matches before a last newline)
    (r"^b$", "m", "a\nb\nc", True), (r"^b$", "", "a\nb\nc", False),
    (r"^ABC$", "i", "abc", True), (r"^a b c$", "x", "abc", True), (r"^[ ]$", "x", " ", True),
    (r"a.c", "q", "a.c", True), (r"a.c", "q", "abc", False),
    (r"^(ab)\1$", "", "abab", True), (r"^(ab)\1$", "", "abba", False),
    (r"^a+?b$", "", "aab", True), (r"^(?:ab)+$", "", "abab", True),
    (r"^\d{3}-\d{2}$", "", "123-45", True), (r"^[+--]$", "", ",", True),  # the range + to -
    (r"^https?://", "", "https://x", True), (r"^[a-z0-9]+(-[a-z0-9]+)*$", "", "a-b-c", True),
])
def test_xpath_patterns_match_as_the_specification_reads_them(pattern, flags, text, found):
    assert bool(compile_pattern(pattern, flags).search(text, timeout=2.0)) is found


@pytest.mark.parametrize("pattern, flags, why", [
    ("([a-", "", "character class is not closed"), ("[a-c-e]", "", "'-' inside a character class"),
    (r"\b", "", r"\b is not an escape"), (r"\A", "", r"\A is not an escape"), (r"\x41", "", r"\x is not"),
    (r"\p{Alpha}", "", "unknown character property"), (r"\p{IsNoSuchBlock}", "", "unknown Unicode block"),
    ("a{2,1}", "", "runs backwards"), ("a{,3}", "", "a quantifier is"), ("*a", "", "quantifies nothing"),
    ("a**", "", "two quantifiers"), ("(a", "", "group is not closed"), ("a)", "", "closes no group"),
    ("a]", "", "must be escaped"), ("(?=a)", "", "(? is only (?:"), (r"\1(a)", "", "does not come before"),
    ("[z-a]", "", "runs backwards"), ("[]", "", "empty character class"), ("abc", "g", "unknown flag 'g'"),
    ("(" * (MAX_GROUP_DEPTH + 1) + "a" + ")" * (MAX_GROUP_DEPTH + 1), "", "groups nest more than"),
    ("((a{1000}){1000}){1000}", "", "multiply past 100,000"), ("a{60000}b{60000}", "", "multiply past"),
])
def test_what_xpath_does_not_allow_is_refused_saying_why(pattern, flags, why):
    with pytest.raises(BadPattern) as error:
        compile_pattern(pattern, flags)
    assert why in str(error.value)
