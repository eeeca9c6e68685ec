"""Griffe extension: kg's docstrings, written for ``help()`` and doctest, read as Markdown.

The docstrings of kg hold doctest sessions (``>>>`` lines and their output), Sphinx roles
(``:func:`ingest```) and reStructuredText simple tables. Markdown reads a ``>>>`` line as a
quote and ``["System"]`` in it as a link; so, for the Python API page
(``docs/reference/python.md``), each doctest session becomes a ``pycon`` code block, each
simple table and each ``::`` literal block a code block, and each role its plain code span.
The docstrings themselves are unchanged. Named in ``mkdocs.yml`` (mkdocstrings' ``extensions``).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")
FENCE = "```"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _doctest_end(lines: list[str], start: int) -> int:
    """Index after the doctest session that starts at ``start``: it ends at a blank line."""
    end = start
    while end < len(lines) and lines[end].strip():
        end += 1
    return end


def _table_end(lines: list[str], start: int) -> int:
    """Index after the simple table whose first ``=====`` rule is at ``start`` (three rules)."""
    rules, end = 0, start
    while end < len(lines):
        if lines[end].strip().startswith("===="):
            rules += 1
        end += 1
        if rules == 3:
            break
    return end


def _literal_end(lines: list[str], start: int, base: int) -> int:
    """Index after the indented literal block that starts at ``start`` (deeper than ``base``)."""
    end = start
    while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) > base):
        end += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return end


def markdown(text: str) -> str:
    """The docstring ``text`` with its doctests, tables and literal blocks fenced, roles plain."""
    lines = text.splitlines()
    out: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        if stripped.startswith(">>>"):
            end = _doctest_end(lines, index)
            out += [FENCE + "pycon", *lines[index:end], FENCE]
        elif stripped.startswith("===="):
            end = _table_end(lines, index)
            out += [FENCE + "text", *lines[index:end], FENCE]
        elif stripped.endswith("::") and index + 2 < len(lines) and not lines[index + 1].strip() \
                and _indent(lines[index + 2]) > _indent(line):
            end = _literal_end(lines, index + 2, _indent(line))
            out += [ROLE.sub(r"`\1`", line[:-1]), "", FENCE + "text", *lines[index + 2:end], FENCE]
        else:
            out.append(ROLE.sub(r"`\1`", line))
            end = index + 1
        index = end
    return "\n".join(out)


class RstToMarkdown(griffe.Extension):
    """Rewrites each docstring of kg as Markdown when its object is loaded."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        """The package's own docstring (``on_object`` sees its members only)."""
        self.on_object(obj=pkg)
