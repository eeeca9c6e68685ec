"""Programming-language cells (sdk-languages and the like) read as canonical language names."""

from __future__ import annotations

import re

from .text import clean, unique

# Unambiguous names: matched as words anywhere.
_LANGUAGE_WORDS: tuple[tuple[str, str, int], ...] = (
    (r"\bpython[23]?\b", "Python", re.I),
    (r"\btypescript\b", "TypeScript", re.I),
    (r"(?<![\w.])TS\b", "TypeScript", 0),
    (r"\bjavascript\b|\bnode\.?js\b", "JavaScript", re.I),
    (r"(?<![\w.])JS\b", "JavaScript", 0),
    (r"\bgolang\b", "Go", re.I),
    (r"\brust\b", "Rust", re.I),
    (r"\bjava\b(?![\s-]*script)", "Java", re.I),
    (r"\bkotlin\b", "Kotlin", re.I),
    (r"\bswift\b", "Swift", re.I),
    (r"\bruby\b", "Ruby", re.I),
    (r"\bphp\b", "PHP", re.I),
    (r"\belixir\b", "Elixir", re.I),
    (r"\bscala\b", "Scala", re.I),
    (r"\bjulia\b", "Julia", re.I),
    (r"\bdart\b", "Dart", re.I),
    (r"\bclojure\b", "Clojure", re.I),
    (r"\bhaskell\b", "Haskell", re.I),
    (r"\bocaml\b", "OCaml", re.I),
    (r"\berlang\b", "Erlang", re.I),
    (r"\blua\b", "Lua", re.I),
    (r"\bperl\b", "Perl", re.I),
    (r"\bzig\b", "Zig", re.I),
    (r"\b(?:common\s+)?lisp\b", "Lisp", re.I),
    (r"\bobjective-c\b", "Objective-C", re.I),
    (r"(?<![\w+#])c\+\+(?![\w+])|(?<![\w.])cpp\b", "C++", re.I),
    # ".NET" SDKs are C# SDKs in practice ("SDK: Python, .NET").
    (r"(?<![\w#])c#(?![\w#])|\bcsharp\b|(?<!\w)\.net\b|\bdotnet\b", "C#", re.I),
    (r"(?<![\w#])f#(?![\w#])", "F#", re.I),
)
_LANGUAGE_RES = tuple((re.compile(p, flags), name) for p, name, flags in _LANGUAGE_WORDS)
# Names that are also ordinary words or letters ("R", "C", "Go", "Node") count
# only as a whole list item: "SDK: Python, Go", "Python/C", "CLI (Go)", "1.2k★ Go",
# optionally followed by SDK/API/client ("Python + Node SDKs").
_AMBIGUOUS_ITEM_RE = re.compile(
    r"(?P<name>go|r|c|node)(?:\s+(?:sdks?|apis?|clients?|librar(?:y|ies)|packages?))?",
    re.IGNORECASE,
)
_AMBIGUOUS_NAMES = {"go": "Go", "r": "R", "c": "C", "node": "JavaScript"}
# Star counts and monthly deltas in gh cells ("99.9k★ +999/mo Go").
_STAR_NOISE_RE = re.compile(r"(?<![\d.,~+])[~+]?[\d.,]+\s*[kKmM]?\+?\s*(?:★|stars?\b|/\s*mo\b)")


def _ambiguous_languages(text: str) -> list[tuple[int, str]]:
    # Hide "C++", "C#", "F#", "Objective-C" so their "C" is not read as C.
    masked = re.sub(r"c\+\+|[cf]#|objective-c", lambda m: "\x00" * len(m.group()), text, flags=re.I)
    found = []
    for item in re.finditer(r"[^,/;+()\[\]|:★·]+", masked):
        raw = item.group()
        stripped = re.sub(r"^(?:and|or)\s+", "", raw.strip())
        m = _AMBIGUOUS_ITEM_RE.fullmatch(stripped)
        if not m:
            continue
        name = m.group("name")
        # Single letters only in capitals: "r"/"c" are too common in prose.
        if len(name) == 1 and not name.isupper():
            continue
        found.append((item.start() + raw.index(stripped), _AMBIGUOUS_NAMES[name.lower()]))
    return found


def languages(text: str) -> tuple[str, ...]:
    """Canonical programming-language names in ``text``, in order of first appearance.

    >>> languages("REST, gRPC, SDK: Python, Java, Node.js, Go")
    ('Python', 'Java', 'JavaScript', 'Go')
    >>> languages("1.2k★ Python")
    ('Python',)
    >>> languages("Go install; ready to go")
    ()
    """
    cleaned = _STAR_NOISE_RE.sub(" ", clean(text))
    if not cleaned:
        return ()
    hits: list[tuple[int, str]] = []
    for pattern, name in _LANGUAGE_RES:
        hits += [(m.start(), name) for m in pattern.finditer(cleaned)]
    hits += _ambiguous_languages(cleaned)
    hits.sort(key=lambda hit: hit[0])
    return unique([name for _, name in hits])
