"""The findings of a version of the store: its validation's results, kept beside it and read back.

A version's validation (made by ``kg build``, ``kg ingest`` and ``kg validate``:
:mod:`kg.validation.kept`) is kept beside the version's data in ``kg-findings.json``, a
:class:`kg.store.KeptFile` bound to that data by a digest, so that the pages of ``kg serve``, the
named queries (``findings``, ``findings-matrix``) and the tools of ``kg mcp`` read the findings of a
version without validating it per request. This module reads and writes that file and answers
questions of it (a record's findings, counts by rule and column); it knows no validation. What
makes findings for a version that has none (a store from before, a SPARQL Update's version, a folder
that cannot be written) is given by the front door (:data:`MAKER`: ``kg`` sets it to
:func:`kg.validation.upkeep.validated_now`), so a reader validates on first need and says so.

The file holds each result as plain values (the rule, the record and column it is about, the focus
node and value as term text: an IRI as itself, a literal in N-Triples form), the rules' severities
and messages, and the digest of the rules (:func:`rules_digest`: the shapes, the catalog-wide checks
and the base) they were checked against: findings of other rules are out of date.

>>> row = Finding("T2Citation", "Violation", "mem0--mem0-ai", "type",
...               "https://w3id.org/agent-landscape/id/system/mem0--mem0-ai/cell/type", "kg:citation", None,
...               "OrConstraintComponent")
>>> found = Findings([row], {"T2Citation": RuleInfo("T2Citation", "Violation", "A T2 cell cites.", "record",
...                  "quality", "kg:citation")}, key="k", made="kg validate")
>>> [f.column for f in found.of_record("mem0--mem0-ai")], found.counts_by("rule", "column")
(['type'], {('T2Citation', 'type'): 1})
>>> Findings.from_content(found.to_content("https://w3id.org/agent-landscape/id/"),
...                       "https://w3id.org/agent-landscape/id/").rows == [row]
True
"""

from __future__ import annotations

import hashlib
import threading
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from functools import cache, cached_property
from typing import Any, Callable, Iterable, NamedTuple

import pyoxigraph

from .resources import resource_dir
from .store import GraphStore, KeptFile
from .vocab import Iris, segment

#: the file beside a generation; its format is bumped when what the file holds changes
KEPT = KeptFile("kg-findings.json", "2")

SEVERITIES = ("Violation", "Warning", "Info")  # the most severe first (as kg.validation.rules)


class Finding(NamedTuple):
    """One result of a validation, in plain values: the ``rule`` (its shape's local name), its
    ``severity``, the ``record`` and ``column`` it is about (None: not a record's, not a cell's), the
    ``focus`` node, the result's ``path`` and ``value`` (term texts) and its constraint ``component``.
    (A tuple: a version's findings are read back by the ten thousand.)"""

    rule: str
    severity: str
    record: str | None
    column: str | None
    focus: str
    path: str | None
    value: str | None
    component: str


@dataclass(frozen=True)
class RuleInfo:
    """What a reader needs of a rule: its severity, message, scope (``record`` or ``catalog``),
    kind (``structural`` or ``quality``) and path (SPARQL path text)."""

    name: str
    severity: str
    message: str
    scope: str
    kind: str
    path: str | None = None


@dataclass
class Findings:
    """The findings of one version: its results (``rows``), the ``rules`` they were checked against,
    the digest of those rules (``key``), and how they were ``made`` (said to readers)."""

    rows: list[Finding]
    rules: dict[str, RuleInfo]
    key: str
    made: str
    records: int = 0
    relations: int = 0
    seconds: float = 0.0
    mode: str = "split"  # the validation run's (kg.validation.report.ValidationReport.mode)
    made_now: bool = field(default=False, compare=False)  # validated by this reader: nothing was kept

    @cached_property
    def _by_record(self) -> dict[str | None, list[Finding]]:
        grouped: dict[str | None, list[Finding]] = defaultdict(list)
        for row in self.rows:
            grouped[row.record].append(row)
        return dict(grouped)

    def of_record(self, record: str) -> list[Finding]:
        """The findings about one record (its cells, its other nodes, the edges from it)."""
        return list(self._by_record.get(record, []))

    def counts_by(self, *keys: str, rows: Iterable[Finding] | None = None) -> dict[tuple, int]:
        """How many findings each combination of the fields ``keys`` has (``rule``, ``column``, ...)."""
        return dict(Counter(tuple(getattr(r, k) for k in keys) for r in (self.rows if rows is None else rows)))

    def message(self, rule: str) -> str:
        info = self.rules.get(rule)
        return info.message if info is not None else rule

    def to_content(self, base: str) -> dict[str, Any]:
        """What the kept file holds: each distinct (rule, severity, path, component) once, each row
        as [its index, record, column, focus, value], focus IRIs under ``base`` written after ``@``."""
        kinds: dict[tuple, int] = {}
        rows = []
        iris = Iris(base)
        for r in self.rows:
            kind = kinds.setdefault((r.rule, r.severity, r.path, r.component), len(kinds))
            rows.append([kind, r.record, r.column, _short(r.focus, r.record, r.column, iris), r.value])
        return {"key": self.key, "made": self.made, "records": self.records, "relations": self.relations,
                "seconds": round(self.seconds, 3), "mode": self.mode,
                "rules": {n: [i.severity, i.message, i.scope, i.kind, i.path] for n, i in sorted(self.rules.items())},
                "kinds": [list(k) for k in kinds], "rows": rows}

    @classmethod
    def from_content(cls, content: Any, base: str) -> "Findings":
        """The findings a kept file holds (ValueError when it is not what :meth:`to_content` writes)."""
        try:
            kinds = [tuple(k) for k in content["kinds"]]
            iris = Iris(base)
            rows = [Finding(kinds[k][0], kinds[k][1], record, column, _long(focus, record, column, iris), kinds[k][2],
                            value, kinds[k][3]) for k, record, column, focus, value in content["rows"]]
            rules = {n: RuleInfo(n, *info) for n, info in content["rules"].items()}
            return cls(rows, rules, str(content["key"]), str(content["made"]), int(content["records"]),
                       int(content["relations"]), float(content["seconds"]), str(content["mode"]))
        except (KeyError, IndexError, TypeError, ValueError) as err:
            raise ValueError(f"not findings as kg keeps them ({err})") from None


def _cell(record: str | None, column: str | None, iris: Iris) -> str | None:
    """The IRI of the cell of ``record`` and ``column`` (None when the finding is about no cell), as
    ``iris.part(iris.system(record), "cell", segment(column))`` writes it."""
    return None if record is None or column is None else f"{_systems(iris.base)}{record}/cell/{_segment(column)}"


@cache
def _systems(base: str) -> str:
    return Iris(base).system_prefix()


@cache
def _segment(column: str) -> str:
    return segment(column)


def _short(focus: str, record: str | None, column: str | None, iris: Iris) -> str:
    """A focus node as kept: "" for the cell of the finding's record and column (most findings),
    an IRI under the base after "@", any other term text as it is (no term text starts with "@": an
    IRI is absolute, a literal starts with '"', a blank node with "_:")."""
    if focus == _cell(record, column, iris):
        return ""
    return "@" + focus[len(iris.base):] if focus.startswith(iris.base) else focus


def _long(focus: str, record: str | None, column: str | None, iris: Iris) -> str:
    if focus == "":
        cell = _cell(record, column, iris)
        if cell is None:
            raise ValueError("a cell's finding without its record and column")
        return cell
    return iris.base + focus[1:] if focus.startswith("@") else focus


def display_text(text: str | None) -> str | None:
    """Text of a term as shown to people: an IRI as is, a literal's lexical form.

    >>> display_text('"T2"'), display_text('"3"^^<http://www.w3.org/2001/XMLSchema#integer>'), display_text(None)
    ('T2', '3', None)
    """
    if text is None or not text.startswith('"'):
        return text
    try:
        term = next(iter(pyoxigraph.parse(f"<x:s> <x:p> {text} .".encode("utf-8"),
                                          format=pyoxigraph.RdfFormat.N_TRIPLES)))
        return term.object.value
    except (SyntaxError, ValueError, StopIteration):
        return text


@cache
def rules_digest(base: str) -> str:
    """The digest of what findings depend on besides the data: our shapes, the catalog-wide checks
    (``queries/check-*.rq``) and the base IRI. Findings kept under another digest are out of date."""
    digest = hashlib.sha256(base.encode("utf-8"))
    files = sorted(resource_dir("shapes").glob("*.ttl")) + sorted(resource_dir("queries").glob("check-*.rq"))
    for path in files:
        digest.update(b"\0" + path.name.encode("utf-8") + b"\0" + path.read_bytes())
    return digest.hexdigest()


# the findings read in this process, by the version they were kept for (a server reads them per request)
_READ: dict[tuple, Findings] = {}
_READ_KEPT = 4
_LOCK = threading.Lock()

#: What validates a version that has no findings kept, keeps them where it can, and returns them;
#: set by the front door (``kg``): this module stands below validation.
MAKER: Callable[[GraphStore, Iris], Findings] | None = None


def read(store: GraphStore, iris: Iris | None = None) -> Findings | None:
    """The findings kept for the version ``store`` reads, or None: none kept, kept for other data or
    other rules, or not whole (a warning says so; :mod:`kg.store.kept`). Read once per version in a
    process."""
    iris = iris or Iris()
    version = store.version_key
    memo = None if version is None else (version, iris.base)
    if memo is not None:
        with _LOCK:
            found = _READ.get(memo)
        if found is not None:
            return found if found.key == rules_digest(iris.base) else None
    content = KEPT.read(store)
    if content is None:
        return None
    try:
        found = Findings.from_content(content, iris.base)
    except ValueError:
        return None
    if found.key != rules_digest(iris.base):
        return None
    if memo is not None:
        _remember(memo, found)
    return found


def _remember(memo: tuple, found: Findings) -> None:
    with _LOCK:
        if len(_READ) >= _READ_KEPT:
            _READ.pop(next(iter(_READ)))
        _READ[memo] = found


def write(store: GraphStore, findings: Findings, iris: Iris | None = None) -> bool:
    """Keep ``findings`` for the version ``store`` reads; False where nothing can be kept (in memory,
    inside a write session, a folder that cannot be written)."""
    iris = iris or Iris()
    if not KEPT.write(store, findings.to_content(iris.base)):
        return False
    version = store.version_key
    if version is not None:
        _remember((version, iris.base), findings)
    return True


def current(store: GraphStore, iris: Iris | None = None) -> Findings:
    """The findings of the version ``store`` reads: those kept, or (none kept) validated now by
    :data:`MAKER`, kept where they can be, with ``made_now`` set so that the reader says so."""
    iris = iris or Iris()
    found = read(store, iris)
    if found is not None:
        return found
    if MAKER is None:
        raise RuntimeError("no findings are kept for this version and nothing here can validate it "
                           "(import kg, whose front door sets kg.findings.MAKER)")
    return replace(MAKER(store, iris), made_now=True)


def first_need_note(found: Findings) -> str | None:
    """What a reader says when it validated the version itself (nothing was kept), else None."""
    if not found.made_now:
        return None
    return (f"no findings were kept for this version of the store: validated now ({found.seconds:.1f} s); "
            "kg ingest, kg build and kg validate keep them")
