"""Your own named queries: folders of ``.rq`` files (``--queries DIR``, ``KG_QUERIES``) beside the bundled ones.

A folder of yours holds ``.rq`` files with the header of the bundled ones (``# title:``,
``# question:``, ``# param:`` lines with types and defaults, ``# returns:``); each becomes a named
query of its file's stem, registered in :data:`kg.queries.REGISTRY`, so every face lists and runs it
as it runs a bundled one: ``kg query NAME``, a form, a page and JSON on ``kg serve``, a tool of
``kg mcp``, with the same binding rules. Your queries are not trusted: each plan of one is checked
by the guard against the version it reads (no SERVICE, no remote FROM), as any query of the user's.

A folder is checked whole before any of its queries is registered: a file that cannot be read, a
header line that is wrong (an unknown parameter type, a default its type refuses, a parameter that
is no variable of the query), SPARQL that does not parse or that the guard refuses, or a name that
a bundled query (or a folder given before) already has, is one :class:`~kg.errors.SourceError`
naming the file and the line (``kg`` exits 3). A name is never shadowed: rename your file.

>>> checked_folder(Path("no-such-folder"))
Traceback (most recent call last):
...
kg.errors.SourceError: no-such-folder: no such folder of queries (given with --queries or KG_QUERIES)
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Iterable

from ..errors import QueryError, SourceError
from ..parameters import parse_param
from .named import NamedQuery, header_problems, parse
from .registry import _NAME, REGISTRY, Folder, Registry

ENVIRONMENT = "KG_QUERIES"  # folders of your own queries, separated as PATH is (os.pathsep)
_HEADER_PARAM = re.compile(r"^#\s*param\s*:\s*(.*)$", re.IGNORECASE)
_LINE = re.compile(r"line:?\s*(\d+)|error at (\d+):\d+")


def from_environment() -> list[str]:
    """The folders ``KG_QUERIES`` names (none when it is unset or empty)."""
    return [part for part in os.environ.get(ENVIRONMENT, "").split(os.pathsep) if part.strip()]


def use_folders(folders: Iterable[str | os.PathLike[str]], registry: Registry = REGISTRY) -> list[Folder]:
    """Register each folder of your queries in ``registry`` (after the bundled one), each checked
    whole first; a folder registered already is left as it is. The folders registered now."""
    added = []
    for given in folders:
        folder = Path(given)
        if any(isinstance(s, Folder) and _same(s.folder, folder) for s in registry.sources):
            continue
        checked = checked_folder(folder, registry)
        registry.add(checked)
        added.append(checked)
    return added


def _same(one: Path, other: Path) -> bool:
    try:
        return one.resolve() == other.resolve()
    except OSError:
        return False


def checked_folder(folder: Path, registry: Registry = REGISTRY) -> Folder:
    """The folder of your queries, each file checked (:func:`checked_file`) and none named as a
    query of ``registry`` is; :class:`~kg.errors.SourceError` (file and line) for the first that is
    wrong."""
    if not folder.is_dir():
        raise SourceError(str(folder), f"no such folder of queries (given with --queries or {ENVIRONMENT})")
    taken = set(registry.names())
    for path in sorted(folder.glob("*.rq")):
        query = checked_file(path)
        if query.name in taken:
            raise SourceError(f"{path}:1", f"the name {query.name!r} is already a named query's "
                              f"({_holder(registry, query.name)}); rename the file")
    return Folder(folder, trusted=False)


def _holder(registry: Registry, name: str) -> str:
    found = registry.get(name)
    if found is not None and found.trusted:
        return "a bundled one: kg query --list shows them"
    return f"in {found.path}" if found is not None else "another one"


def checked_file(path: Path) -> NamedQuery:
    """The query of one file of yours, or :class:`~kg.errors.SourceError` naming the file and the
    line that is wrong."""
    if not _NAME.fullmatch(path.stem):
        raise SourceError(str(path), "a query's file name must be letters, digits, '_', '.' and '-' "
                          "(it is the query's name)")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise SourceError(str(path), f"cannot read it: {getattr(err, 'strerror', None) or err}") from None
    lines = text.splitlines()
    params = {}
    for number, line in enumerate(lines, start=1):
        found = _HEADER_PARAM.match(line)
        if found is None:
            continue
        try:
            params[parse_param(found.group(1).strip(), path.name).name] = number
        except QueryError as err:
            raise SourceError(f"{path}:{number}", _without(str(err), path.name)) from None
    try:
        query = parse(text, path)
    except QueryError as err:
        raise SourceError(f"{path}:1", _without(str(err), path.name)) from None
    for problem in header_problems(query):
        if problem.startswith("no '# ") or problem.endswith(" has no description"):
            continue  # a query of yours may leave them out (the bundled ones may not: tests/test_queries.py)
        named = next((n for name, n in params.items() if problem.startswith(f"parameter {name}")), 1)
        raise SourceError(f"{path}:{named}", problem)
    _check_text(query, path)
    return query


def _check_text(query: NamedQuery, path: Path) -> None:
    """The SPARQL of a file of yours: parsed by the engine that will run it (on an empty store: no
    data read) and checked by the guard as it will be at each run (a FROM of a graph is checked
    then, against the version read)."""
    from pyoxigraph import Store

    from ..sparql.guard import QueryRefused, check_query

    try:
        check_query(query.text, set())
    except QueryRefused as err:
        if not str(err).startswith("FROM <"):  # a graph of the store, maybe: the plan checks it on the version
            raise SourceError(f"{path}:{_line(str(err))}", str(err)) from None
    try:
        Store().query(query.text)
    except SyntaxError as err:
        # a parser that met the end of the text names the line after it: the last line is meant
        line = min(_line(str(err)), len(query.text.rstrip().splitlines()) or 1)
        raise SourceError(f"{path}:{line}", f"malformed SPARQL: {err}") from None


def _line(message: str) -> int:
    """The line a parser's message names ("line:5, col:3" or "error at 5:3"), else 1."""
    found = _LINE.search(message)
    return int(found.group(1) or found.group(2)) if found else 1


def _without(message: str, name: str) -> str:
    """A message of kg.parameters without the file name it starts with (the source says it)."""
    return message[len(name) + 2:] if message.startswith(name + ": ") else message
