"""Where named queries come from: one registry of sources, the bundled queries/ folder first.

Every face that lists or runs named queries (``kg query``, :func:`kg.query`, the pages of ``kg
serve``, the tools of ``kg mcp``) asks :data:`REGISTRY`. A source answers two questions, the names
it holds and the query of a name; :class:`Folder` is a folder of ``.rq`` files (the bundled one,
trusted; a folder of the user's, :mod:`kg.queries.folders`, is another, untrusted: its queries are
checked by the guard like any file of the user's). Another kind of source is added with
:meth:`Registry.add` and is then listed and run everywhere: :class:`kg.queries.computed.Computed`
holds queries answered in Python (the advice tools of :mod:`kg.advice`, registered by the package's
front door, ``kg``, which every face imports). A name is answered by the first source that holds it.

:func:`load` takes what a user gives: a name, the path of a ``.rq`` or ``.sparql`` file, or the text
of a query.

>>> load("info").name, load("info").trusted
('info', True)
>>> load("SELECT * WHERE { ?s ?p ?o } LIMIT 1").form
'SELECT'
>>> load("no-such-query")
Traceback (most recent call last):
...
kg.errors.UsageError: unknown query 'no-such-query'; known: ...
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Protocol

from ..errors import UsageError, safe_text
from ..resources import resource_dir
from .named import NamedQuery, from_text, parse

QUERIES_DIR = resource_dir("queries")
FILE_SUFFIXES = (".rq", ".sparql")  # a query file of the user's
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


class Source(Protocol):
    """A source of named queries."""

    def names(self) -> list[str]:
        """The names of the queries it holds."""
        ...

    def get(self, name: str) -> NamedQuery | None:
        """The query of ``name``, or None when it holds none of that name."""
        ...

    def holding(self, path: Path) -> NamedQuery | None:
        """The query whose file is ``path``, when it holds it (a bundled file given by its path)."""
        ...


class Folder:
    """The ``.rq`` files of a folder, each a query named by its file's stem."""

    def __init__(self, folder: Path, *, trusted: bool = False) -> None:
        self.folder = folder
        self.trusted = trusted

    def names(self) -> list[str]:
        return sorted(p.stem for p in self.folder.glob("*.rq"))

    def get(self, name: str) -> NamedQuery | None:
        if not _NAME.fullmatch(name) or name.endswith(".rq"):
            return None
        return self._read(self.folder / f"{name}.rq")

    def holding(self, path: Path) -> NamedQuery | None:
        if path.suffix != ".rq" or path.resolve().parent != self.folder.resolve():
            return None
        return self._read(path)

    def _read(self, path: Path) -> NamedQuery | None:
        if not path.is_file():
            return None
        return parse(_read_text(path), path, trusted=self.trusted)


class Registry:
    """The sources of named queries, asked in order."""

    def __init__(self, sources: list[Source]) -> None:
        self.sources = list(sources)

    def add(self, source: Source) -> None:
        """Register another source, asked after those before it (a name they hold stays theirs)."""
        self.sources.append(source)

    def names(self) -> list[str]:
        return sorted({name for source in self.sources for name in source.names()})

    def get(self, name: str) -> NamedQuery | None:
        return next((q for q in (s.get(name) for s in self.sources) if q is not None), None)

    def listing(self) -> list[NamedQuery]:
        found = (self.get(name) for name in self.names())
        return [q for q in found if q is not None]

    def load(self, given: str) -> NamedQuery:
        """The query ``given`` names: a registered name, a ``.rq``/``.sparql`` file, or a query's
        text (any text with white space or a brace in it, which no name or file name here has)."""
        found = self.get(given)
        if found is not None:
            return found
        if given.lower().endswith(FILE_SUFFIXES):
            return self._file(Path(given))
        if "{" in given or any(c.isspace() for c in given):
            return from_text(given)
        raise UsageError(f"unknown query {safe_text(given, 120)!r}; known: {', '.join(self.names())}")

    def _file(self, path: Path) -> NamedQuery:
        for source in self.sources:
            held = source.holding(path)
            if held is not None:
                return held
        if not path.is_file():
            raise UsageError(f"no query file {safe_text(path, 200)}; known queries: {', '.join(self.names())}")
        return parse(_read_text(path), path)


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise UsageError(f"cannot read the query file {safe_text(path, 200)}: "
                         f"{getattr(err, 'strerror', None) or err}") from None


#: The one registry every face asks.
REGISTRY = Registry([Folder(QUERIES_DIR, trusted=True)])


def available() -> list[str]:
    """Names of the registered queries."""
    return REGISTRY.names()


def listing() -> list[NamedQuery]:
    """Every registered query, parsed (for ``kg query --list``, the pages' list, the MCP tools)."""
    return REGISTRY.listing()


def load(given: str) -> NamedQuery:
    """A registered query by name (``search``), a ``.rq``/``.sparql`` file by path, or a query's text."""
    return REGISTRY.load(given)
