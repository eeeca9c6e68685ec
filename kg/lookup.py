"""Which system an id or a name given to a query means, checked against the graph first:
an unknown id is :class:`~kg.errors.NotFound` with close matches, never an empty answer.

Two parameter types of the named queries name systems (:mod:`kg.queries`):

- ``id``: a catalog id; it must be the id of a system in the graph;
- ``system-name``: a catalog id, else words of a system's name. An exact id wins, then a
  name equal to the text, then the one name that contains it; a text that several names
  contain is ambiguous, and the error lists them.

Names are compared folded (:func:`fold`): case, runs of white space and diacritics do not
count. Close matches come from :mod:`difflib` over the ids and the folded names. The index
of an on-disk store's version is read once and kept while that version is the one read (a
write makes a new version: see :mod:`kg.store`), so a server or a run of queries
does not read every system's name again for each unknown id.

>>> fold("  Café   Graphiti ")
'cafe graphiti'
>>> index = SystemIndex({"mem0--mem0-ai": "Mem0", "mem0-mcp--mem0-ai": "Mem0 MCP (official)", "zep--getzep-com": "Zep"})
>>> index.resolve("mem0")
'mem0--mem0-ai'
>>> index.resolve("mem")
Traceback (most recent call last):
...
kg.errors.NotFound: 'mem' matches 2 systems; give one of their ids: mem0--mem0-ai (Mem0), mem0-mcp--mem0-ai (Mem0 MCP (official))
>>> index.check_id("mem0--mem0")
Traceback (most recent call last):
...
kg.errors.NotFound: no system with id 'mem0--mem0' in this graph; did you mean: mem0--mem0-ai (Mem0), mem0-mcp--mem0-ai (Mem0 MCP (official))?
"""

from __future__ import annotations

import difflib
import threading
from typing import Any, Callable, Mapping

from pyoxigraph import Literal

from .errors import NotFound, safe_text
from .normalise import fold
from .resources import resource
from .sparql.binding import bind
from .vocab import ID_PATTERN

SHOWN = 10  # candidates named in one message
KEPT = 8  # indexes kept (of store versions: a system index and a vendor index each)


class SystemIndex:
    """The ids and names of the graph's systems (id -> name)."""

    def __init__(self, names: Mapping[str, str]) -> None:
        self.names = dict(names)
        self._folded = {rid: fold(name) for rid, name in self.names.items()}

    @classmethod
    def from_rows(cls, rows: list[dict[str, Any]]) -> "SystemIndex":
        """The index of the rows of the select-system-names query."""
        return cls({r["id"].value: (r["name"].value if "name" in r else r["id"].value) for r in rows})

    def _shown(self, ids: list[str], shown: int = SHOWN) -> str:
        listed = ", ".join(f"{rid} ({safe_text(self.names[rid], 60)})" for rid in ids[:shown])
        return listed + (f", and {len(ids) - shown} more" if len(ids) > shown else "")

    def close_matches(self, text: str) -> list[str]:
        """Ids whose id or name is close to ``text``, best first."""
        by_id = difflib.get_close_matches(text, list(self.names), n=5, cutoff=0.6)
        by_name_text = difflib.get_close_matches(fold(text), list(self._folded.values()), n=5, cutoff=0.6)
        by_name = [rid for name in by_name_text for rid, folded in self._folded.items() if folded == name]
        return list(dict.fromkeys(by_id + by_name))[:5]

    def _not_found(self, what: str) -> NotFound:
        close = self.close_matches(what)
        hint = f"; did you mean: {self._shown(close)}?" if close else "; the search query finds ids from words of a name"
        return NotFound(f"no system with id {safe_text(what, 120)!r} in this graph{hint}",
                        [(rid, self.names[rid]) for rid in close])

    def check_id(self, system_id: str) -> str:
        """``system_id`` when it is a system's id; else NotFound with close matches."""
        if system_id in self.names:
            return system_id
        raise self._not_found(system_id)

    def matches(self, text: str) -> list[str]:
        """The ids ``text`` may mean, sorted: itself when it is an id, else the systems whose
        folded name is the folded text, else those whose folded name contains it."""
        if text in self.names:
            return [text]
        wanted = fold(text)
        exact = [rid for rid, name in self._folded.items() if name == wanted]
        return sorted(exact or [rid for rid, name in self._folded.items() if wanted and wanted in name])

    def resolve(self, text: str) -> str:
        """The id of the one system ``text`` names (an id, a name, or words of one name)."""
        matches = self.matches(text)
        if len(matches) == 1:
            return matches[0]
        raise self.unresolved(text, matches)

    def unresolved(self, text: str, matches: list[str]) -> NotFound:
        """The error for a text that names no system, or several (every one of them listed)."""
        if not matches:
            error = self._not_found(text)
            return NotFound(str(error).replace("with id", "with that id or name", 1), error.candidates)
        return NotFound(f"{safe_text(text, 120)!r} matches {len(matches)} systems; give one of their ids: "
                        f"{self._shown(matches, len(matches))}", [(rid, self.names[rid]) for rid in matches])


class VendorIndex:
    """The vendors of the graph: each vendor's key (its registrable domain or github.com/OWNER)
    and name, lower-cased, as the queries compare them (a text is contained in one), and the
    ids of its systems."""

    def __init__(self, systems: Mapping[tuple[str, str], list[str]]) -> None:
        self.systems = {(key.lower(), name.lower()): sorted(ids) for (key, name), ids in systems.items()}

    @classmethod
    def from_rows(cls, rows: list[dict[str, Any]]) -> "VendorIndex":
        """The index of the rows of the select-vendor-systems query."""
        systems: dict[tuple[str, str], list[str]] = {}
        for r in rows:
            systems.setdefault((r["key"].value, r["name"].value), []).append(r["id"].value)
        return cls(systems)

    def systems_of(self, text: str) -> list[str]:
        """The ids of the systems of every vendor whose key or name contains ``text`` (folded);
        NotFound, with close matches, when no vendor does."""
        wanted = fold(text)
        found = sorted({rid for (key, name), ids in self.systems.items() if wanted and (wanted in key or wanted in name)
                        for rid in ids})
        if found:
            return found
        names = sorted({part for pair in self.systems for part in pair})
        close = difflib.get_close_matches(wanted, names, n=5)
        hint = f"; did you mean: {', '.join(close)}?" if close else "; kg query vendor-portfolio lists the vendors"
        raise NotFound(f"no vendor whose key or name contains {safe_text(text, 120)!r}{hint}", [])


_DEPENDENCY = resource("queries", "select-dependency.rq")


def depended_choice(select: Callable[[str], list[dict[str, Any]]], ids: list[str], iris: Any) -> str | None:
    """Of several systems, the one the others depend on: the only one that some system
    depends on (runtime dependency or built on) and that depends on none of the others
    that have dependants; None when there is no such one."""
    text = _DEPENDENCY.read_text(encoding="utf-8")
    ups: dict[str, set[str]] = {}
    for rid in ids:
        rows = select(bind(text, {"system": iris.system(rid)}))
        if rows and rows[0]["depended"].value == "true":
            ups[rid] = {r["up"].value for r in rows if "up" in r}
    roots = [rid for rid, up in ups.items() if not (up & set(ups) - {rid})]
    return roots[0] if len(roots) == 1 else None


_KEPT: dict[tuple, Any] = {}  # version key -> index, the oldest first
_LOCK = threading.Lock()


class Indexes:
    """The indexes of one version of the graph, read when first needed: ``select`` (SPARQL text ->
    rows) reads the version; ``key`` names it while it cannot change (None: read each time, as for
    a remote endpoint or a store in memory). Those of a named version are shared by every
    :class:`Indexes` of it, up to :data:`KEPT` versions."""

    def __init__(self, select: Callable[[str], list[dict[str, Any]]], key: tuple | None = None) -> None:
        self.select = select
        self.key = key

    @classmethod
    def of(cls, version: Any) -> "Indexes":
        """The indexes of ``version``: a :class:`kg.store.GraphStore` (keyed by its version) or any
        reader with a ``select`` method (a remote endpoint: not kept)."""
        return cls(version.select, getattr(version, "version_key", None))

    def systems(self) -> SystemIndex:
        return self._index(SystemIndex, "select-system-names.rq")

    def vendors(self) -> VendorIndex:
        return self._index(VendorIndex, "select-vendor-systems.rq")

    def _index(self, cls: Any, query_file: str) -> Any:
        key = None if self.key is None else (cls.__name__, *self.key)
        with _LOCK:
            kept = _KEPT.get(key) if key is not None else None
        if kept is not None:
            return kept
        index = cls.from_rows(self.select(resource("queries", query_file).read_text(encoding="utf-8")))
        if key is not None:
            with _LOCK:
                _KEPT[key] = index
                while len(_KEPT) > KEPT:
                    del _KEPT[next(iter(_KEPT))]  # the oldest
        return index


def resolve_values(indexes: Indexes, query: str, pending: Mapping[str, tuple[Any, str]],
                   iris: Any) -> dict[str, tuple[str | list[str], str | None]]:
    """For each pending parameter (name -> (param, text given)): what it resolves to (an id;
    for a vendor, the ids of its systems) and a note when a choice was made among several
    systems. An unknown id, vendor or name, or a name several systems share, is NotFound."""
    out: dict[str, tuple[str | list[str], str | None]] = {}
    for name, (param, given) in pending.items():
        try:
            if param.type == "vendor":
                out[name] = (indexes.vendors().systems_of(given), None)
            elif ID_PATTERN.match(given) and _is_system_id(indexes.select, given):
                out[name] = (given, None)  # an id that exists needs no index
            else:
                out[name] = _system(indexes.systems(), indexes.select, param, given, iris)
        except NotFound as err:
            raise NotFound(f"{query}: parameter {name}: {err}", err.candidates) from None
    return out


def _system(index: SystemIndex, select: Callable[..., Any], param: Any, given: str, iris: Any
            ) -> tuple[str, str | None]:
    if param.type != "system-name":
        return index.check_id(given), None
    matches = index.matches(given)
    if len(matches) == 1:
        return matches[0], None
    chosen = depended_choice(select, matches, iris) if param.prefer == "depended" and matches else None
    if chosen is None:
        raise index.unresolved(given, matches)
    return chosen, (f"parameter {param.name}: {safe_text(given, 120)!r} names {len(matches)} systems; "
                    f"chose {chosen} ({safe_text(index.names[chosen], 60)}), the one of them that others "
                    "depend on (the rest have no dependants, or depend on it)")


_SYSTEM_ID = ("PREFIX kg: <https://w3id.org/agent-landscape/ontology#>\n"
              "PREFIX dcterms: <http://purl.org/dc/terms/>\n"
              "SELECT ?system WHERE { ?system a kg:System ; dcterms:identifier ?id } LIMIT 1")


def _is_system_id(select: Callable[..., Any], value: str) -> bool:
    """Whether ``value`` is the id of a system in the graph (one bound lookup, no index)."""
    return bool(select(bind(_SYSTEM_ID, {"id": Literal(value)})))

