"""What the browsing pages read from the store, inside a query worker: the table of
systems with their facets, search through the ``search`` named query, and named queries
run with their parameters bound.

No value from a request is ever written into SPARQL: the facet table is read by fixed
queries, filtered here in Python, and text search and named queries get their values
as bound, typed terms (:func:`kg.queries.bindings`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Mapping

from pyoxigraph import NamedNode

from ..vocab import PREFIXES

FACETS = ("section", "tier", "protocol", "mode", "license", "selfhost", "vendor")
_SELF_HOSTED = ("self-hosted", "both")
_SUPPORTING = ("NativeSupport", "AdapterSupport", "ClientSupport")  # what "supports MCP" means


def _prefixes() -> str:
    return "".join(f"PREFIX {name}: {NamedNode(ns)}\n" for name, ns in PREFIXES.items())


_SYSTEMS = """SELECT ?system ?id ?name ?tier ?primary WHERE {
  ?system a kg:System ; dcterms:identifier ?id ; kg:tier ?tier .
  OPTIONAL { ?system schema:name ?name }
  OPTIONAL { ?system kg:primarySection/skos:prefLabel ?primary }
}"""
_MANY = {  # facet -> rows of (system, key, label)
    "section": "SELECT ?system ?key ?label WHERE { ?system a kg:System ; kg:section ?key . "
               "OPTIONAL { ?key skos:prefLabel ?label } }",
    "support": "SELECT ?system ?protocol ?plabel ?mode ?mlabel WHERE { ?system kg:protocolSupport ?ps . "
               "?ps kg:protocol ?protocol ; kg:supportMode ?mode . OPTIONAL { ?protocol rdfs:label ?plabel } "
               "OPTIONAL { ?mode rdfs:label ?mlabel } }",
    "license": "SELECT ?system ?key ?label WHERE { ?system a kg:System ; kg:license ?key . "
               "OPTIONAL { ?key rdfs:label ?label } }",
    "selfhost": "SELECT ?system ?key WHERE { ?system a kg:System ; kg:deploymentMode/skos:notation ?key }",
    "vendor": "SELECT ?system ?key ?label WHERE { ?system a kg:System ; kg:vendor ?v . ?v kg:vendorKey ?key . "
              "OPTIONAL { ?v rdfs:label ?label } }",
}


def _local(iri: str) -> str:
    """The last segment of an IRI (after the last / or #): a short, URL-safe facet key."""
    return iri.rstrip("/").rsplit("/", 1)[-1].rsplit("#", 1)[-1]


@dataclass
class SystemRow:
    """One system as the index lists it, with its facet values (keys)."""

    id: str
    iri: str
    name: str
    tier: int
    primary: str = ""
    facets: dict[str, set[str]] = field(default_factory=dict)
    supports: set[tuple[str, str]] = field(default_factory=set)  # (protocol key, mode key)

    def support_keys(self, facet: str, chosen: Mapping[str, str]) -> set[str]:
        """The protocols (with a mode that is support, or the chosen mode) or the modes (of
        the chosen protocol, or of any) this system has."""
        protocol, mode = chosen.get("protocol"), chosen.get("mode")
        if facet == "protocol":
            return {p for p, m in self.supports if (m == mode if mode else m in _SUPPORTING)}
        return {m for p, m in self.supports if not protocol or p == protocol}

    def matches(self, facet: str, value: str, chosen: Mapping[str, str]) -> bool:
        if facet in ("protocol", "mode"):
            return value in self.support_keys(facet, chosen)
        return value in self.facets.get(facet, set())


class Catalog:
    """The systems and their facets, read once per version of the store a worker reads
    (the worker drops it when it moves to a newer version)."""

    def __init__(self, store: Any) -> None:
        prefixes = _prefixes()
        self.rows: dict[str, SystemRow] = {}
        self.labels: dict[str, dict[str, str]] = {facet: {} for facet in FACETS}
        for r in store.select(prefixes + _SYSTEMS):
            iri = r["system"].value
            self.rows[iri] = SystemRow(r["id"].value, iri, r["name"].value if "name" in r else r["id"].value,
                                       int(r["tier"].value), r["primary"].value if "primary" in r else "")
        for row in self.rows.values():
            row.facets["tier"] = {str(row.tier)}
            self.labels["tier"][str(row.tier)] = f"tier {row.tier}"
        for facet in ("section", "license", "vendor", "selfhost"):
            for r in store.select(prefixes + _MANY[facet]):
                found = self.rows.get(r["system"].value)
                if found is None:
                    continue
                raw = r["key"].value
                key = _local(raw) if facet in ("section", "license") else raw
                if facet == "selfhost":
                    key = "yes" if raw in _SELF_HOSTED else "no"
                found.facets.setdefault(facet, set()).add(key)
                self.labels[facet][key] = r["label"].value if "label" in r else key
        self.labels["selfhost"] = {"yes": "self-hostable", "no": "hosted only"}
        for r in store.select(prefixes + _MANY["support"]):
            holder = self.rows.get(r["system"].value)
            if holder is None:
                continue
            protocol, mode = _local(r["protocol"].value), _local(r["mode"].value)
            holder.supports.add((protocol, mode))
            self.labels["protocol"][protocol] = r["plabel"].value if "plabel" in r else protocol
            self.labels["mode"][mode] = r["mlabel"].value if "mlabel" in r else mode

    def select(self, chosen: Mapping[str, str], found: list[str] | None) -> tuple[list[SystemRow], dict]:
        """The systems that pass every chosen facet (and, when given, are among ``found``,
        in that order), and for each facet its values with how many systems each would
        leave (counted with every other chosen facet applied)."""
        chosen = {k: v for k, v in chosen.items() if k in FACETS and v}
        pool = [self.rows[iri] for iri in found if iri in self.rows] if found is not None else sorted(
            self.rows.values(), key=lambda r: (r.tier, r.name.lower(), r.id))
        counts: dict[str, list[tuple[str, str, int]]] = {}
        for facet in FACETS:
            pair = {"protocol": "mode", "mode": "protocol"}.get(facet)
            others = {k: v for k, v in chosen.items() if k not in (facet, pair)}
            rest = [r for r in pool if all(r.matches(k, v, chosen) for k, v in others.items())]
            tally: Counter[str] = Counter()
            for r in rest:
                tally.update(r.support_keys(facet, chosen) if pair else r.facets.get(facet, set()))
            ordered = sorted(tally.items(), key=lambda kv: (-kv[1], self.labels[facet].get(kv[0], kv[0]).lower()))
            if facet == "tier":
                ordered = sorted(tally.items())
            counts[facet] = [(key, self.labels[facet].get(key, key), n) for key, n in ordered]
        hits = [r for r in pool if all(r.matches(k, v, chosen) for k, v in chosen.items())]
        return hits, counts


def search_iris(store: Any, text: str, iris: Any) -> list[str]:
    """The systems the ``search`` named query finds for ``text`` (bound, never pasted), best first."""
    from .. import queries

    rows = queries.query(store, "search", {"text": text, "limit": "100000"}, iris)
    return [iris.system(r["id"].value).value for r in rows if "id" in r]
