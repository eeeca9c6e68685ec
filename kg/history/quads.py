"""A changeset <-> the quads of its named graph (PROV-O, Dublin Core and the kg history terms).

Each record a changeset touched gets a ``kg:RecordChange`` (a ``kg:HistoryEntry``) linked
from the system by ``kg:historyEntry``, as the record's own history entries are, so one
query reads both. Every changed field keeps its exact JSON before and after
(``kg:jsonBefore``, ``kg:jsonAfter``), plus readable values (value, status, claim tier,
citation of a cell) for queries.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable

from pyoxigraph import Literal, NamedNode, Quad

from ..mapping import json_literal, json_value, value_literal
from ..vocab import DCAT, DCTERMS, KG, PROV, RDF, XSD, Iris, segment
from .model import ABSENT, Changeset, EdgeChange, FieldDiff, HeaderChange, InputFile, RecordChange

_COUNTS = ((KG.recordsAdded, "added", "records"), (KG.recordsRemoved, "removed", "records"),
           (KG.recordsChanged, "changed", "records"), (KG.edgesAdded, "added", "edges"),
           (KG.edgesRemoved, "removed", "edges"), (KG.edgesChanged, "changed", "edges"))
_CELL_PARTS = ((KG.fromStatus, KG.toStatus, "status"), (KG.fromClaimTier, KG.toClaimTier, "tier"),
               (KG.fromCitation, KG.toCitation, "citation"))


def _int(n: int) -> Literal:
    return Literal(str(n), datatype=XSD.integer)


class _Out:
    def __init__(self, graph: NamedNode) -> None:
        self.graph, self.quads = graph, []  # type: ignore[var-annotated]

    def add(self, s: NamedNode, p: NamedNode, o: Any) -> None:
        self.quads.append(Quad(s, p, o, self.graph))

    def json(self, s: NamedNode, p: NamedNode, value: Any) -> None:
        if value is not ABSENT:
            self.add(s, p, json_literal(value))


def changeset_quads(changeset: Changeset, iris: Iris, number: int) -> list[Quad]:
    """The quads of changeset ``number``, in its own graph."""
    out = _Out(iris.changeset_graph(number))
    cs = iris.changeset(number)
    out.add(cs, RDF.type, KG.Changeset)
    out.add(cs, KG.changesetNumber, _int(number))
    out.add(cs, DCTERMS.description, Literal(changeset.summary))
    for predicate, kind, of in _COUNTS:
        out.add(cs, predicate, _int(changeset.count(kind, of)))
    if changeset.started:
        out.add(cs, PROV.startedAtTime, Literal(changeset.started, datatype=XSD.dateTime))
    if changeset.ended:
        out.add(cs, PROV.endedAtTime, Literal(changeset.ended, datatype=XSD.dateTime))
    if changeset.version:
        out.add(cs, KG.kgVersion, Literal(changeset.version))
    for i, item in enumerate(changeset.inputs):
        node = iris.part(cs, "input", str(i))
        out.add(cs, PROV.used, node)
        out.add(node, RDF.type, PROV.Entity)
        out.add(node, KG.position, _int(i))
        out.add(node, DCTERMS.title, Literal(item.name))
        if item.sha256:
            out.add(node, DCAT.byteSize, _int(item.size))
            out.add(node, KG.sha256, Literal(item.sha256))
    date = Literal(changeset.ended[:10], datatype=XSD.date) if changeset.ended else None
    ranks = id_ranks(changeset)
    for record in changeset.records:
        _record(out, iris, cs, record, date)
        out.add(iris.part(cs, "record", record.record_id), KG.idRank, _int(ranks[record.record_id]))
    for k, edge in enumerate(changeset.edges):
        node = iris.part(cs, "edge", str(k))
        _edge(out, iris, node, cs, edge)
        out.add(node, KG.idRank, _int(ranks[edge.edge["source"]]))
    for header in changeset.headers:
        node = iris.part(cs, "header", segment(header.name))
        out.add(cs, KG.fieldChange, node)
        out.add(node, RDF.type, KG.FieldChange)
        out.add(node, KG.field, Literal(header.name + " header"))
        out.add(node, KG.keyPath, json_literal(["header", header.name]))
        out.json(node, KG.jsonBefore, header.before)
        out.json(node, KG.jsonAfter, header.after)
    out.json(cs, KG.jsonBefore, changeset.edges_before)
    return out.quads


def id_ranks(changeset: Changeset) -> dict[str, int]:
    """The dense rank of each record id a changeset touches (a record's, an edge's source):
    the ``changes`` query orders rows by it, since on disk ordering by the id strings
    themselves was most of that query's time.

    >>> from kg.history.model import Changeset, RecordChange, EdgeChange
    >>> edge = {"source": "c", "target": "a", "type": "cites"}
    >>> cs = Changeset(records=[RecordChange("b", "added"), RecordChange("a", "added")],
    ...                edges=[EdgeChange("added", ABSENT, edge, None, 0)])
    >>> id_ranks(cs)
    {'a': 0, 'b': 1, 'c': 2}
    """
    ids = {record.record_id for record in changeset.records} | {edge.edge["source"] for edge in changeset.edges}
    return {record_id: rank for rank, record_id in enumerate(sorted(ids))}


def _record(out: _Out, iris: Iris, cs: NamedNode, record: RecordChange, date: Literal | None) -> None:
    node = iris.part(cs, "record", record.record_id)
    out.add(iris.system(record.record_id), KG.historyEntry, node)
    out.add(node, RDF.type, KG.RecordChange)
    out.add(node, DCTERMS.isPartOf, cs)
    out.add(node, KG.changeKind, Literal(record.kind))
    if date is not None:
        out.add(node, KG.changeDate, date)
    out.json(node, KG.jsonBefore, record.before)
    for j, diff in enumerate(record.fields):
        fc = iris.part(node, "change", str(j))
        out.add(node, KG.fieldChange, fc)
        out.add(fc, RDF.type, KG.FieldChange)
        out.add(fc, KG.position, _int(j))
        out.add(fc, KG.field, Literal(diff.field))
        out.add(fc, KG.keyPath, json_literal(list(diff.path)))
        out.json(fc, KG.jsonBefore, diff.before)
        out.json(fc, KG.jsonAfter, diff.after)
        for predicate, value in ((KG.fromValue, diff.before), (KG.toValue, diff.after)):
            shown = _shown(value, "value") if diff.is_cell else value
            if shown is not ABSENT:
                out.add(fc, predicate, value_literal(shown))
        if diff.is_cell:
            for before, after, key in _CELL_PARTS:
                for predicate, value in ((before, diff.before), (after, diff.after)):
                    shown = _shown(value, key)
                    if shown is not ABSENT and shown is not None:
                        out.add(fc, predicate, Literal(str(shown)))


def _shown(cell: Any, key: str) -> Any:
    """One part of a cell's JSON (ABSENT when the cell or the part is not there)."""
    return cell.get(key, ABSENT) if isinstance(cell, dict) else ABSENT


def _edge(out: _Out, iris: Iris, node: NamedNode, cs: NamedNode, change: EdgeChange) -> None:
    edge = change.edge
    out.add(cs, KG.edgeChange, node)
    out.add(node, RDF.type, KG.EdgeChange)
    out.add(node, KG.changeKind, Literal(change.kind))
    out.add(node, KG.edgeSource, iris.system(edge["source"]))
    out.add(node, KG.edgeTarget, iris.system(edge["target"]))
    out.add(node, KG.edgeChangeType, Literal(edge["type"]))
    if isinstance(edge.get("evidence"), str):
        out.add(node, KG.edgeChangeEvidence, Literal(edge["evidence"]))
    for predicate, side in ((KG.fromValue, change.before), (KG.toValue, change.after)):
        if isinstance(side, dict) and "evidence" in side:
            out.add(node, predicate, value_literal(side["evidence"]))
    out.json(node, KG.jsonBefore, change.before)
    out.json(node, KG.jsonAfter, change.after)
    for predicate, position in ((KG.fromPosition, change.from_position), (KG.toPosition, change.to_position)):
        if position is not None:
            out.add(node, predicate, _int(position))


# -- reading back ------------------------------------------------------------------


class _Index:
    def __init__(self, quads: Iterable[Quad]) -> None:
        self.index: dict[str, dict[str, list[Any]]] = defaultdict(lambda: defaultdict(list))
        for q in quads:
            if isinstance(q.subject, NamedNode):  # kg writes no blank nodes, no quoted triples
                self.index[q.subject.value][q.predicate.value].append(q.object)

    def all(self, node: str, predicate: NamedNode) -> list[Any]:
        return self.index.get(node, {}).get(predicate.value, [])

    def one(self, node: str, predicate: NamedNode) -> Any:
        values = self.all(node, predicate)
        return values[0] if values else None

    def text(self, node: str, predicate: NamedNode) -> str | None:
        term = self.one(node, predicate)
        return term.value if term is not None else None

    def json(self, node: str, predicate: NamedNode) -> Any:
        term = self.one(node, predicate)
        return json_value(term) if term is not None else ABSENT

    def number(self, node: str, predicate: NamedNode) -> int | None:
        term = self.one(node, predicate)
        return int(term.value) if term is not None else None


def changeset_from_quads(quads: Iterable[Quad], iris: Iris, number: int) -> Changeset:
    """The changeset stored in graph ``number`` (the inverse of ``changeset_quads``)."""
    g = _Index(quads)
    cs = iris.changeset(number).value
    inputs = sorted(g.all(cs, PROV.used), key=lambda n: g.number(n.value, KG.position) or 0)
    changeset = Changeset(
        number=number, started=g.text(cs, PROV.startedAtTime), ended=g.text(cs, PROV.endedAtTime),
        version=g.text(cs, KG.kgVersion), description=g.text(cs, DCTERMS.description),
        inputs=[InputFile(g.text(n.value, DCTERMS.title) or "", g.number(n.value, DCAT.byteSize) or 0,
                          g.text(n.value, KG.sha256) or "") for n in inputs],
        edges_before=g.json(cs, KG.jsonBefore),
    )
    for node, predicates in g.index.items():
        types = {t.value for t in predicates.get(RDF.type.value, [])}
        if KG.RecordChange.value in types:
            changeset.records.append(_read_record(g, node, iris))
        elif KG.EdgeChange.value in types:
            changeset.edges.append(EdgeChange(g.text(node, KG.changeKind) or "", g.json(node, KG.jsonBefore),
                                              g.json(node, KG.jsonAfter), g.number(node, KG.fromPosition),
                                              g.number(node, KG.toPosition)))
    for header in g.all(cs, KG.fieldChange):
        path = g.json(header.value, KG.keyPath)
        changeset.headers.append(HeaderChange(path[1], g.json(header.value, KG.jsonBefore),
                                              g.json(header.value, KG.jsonAfter)))
    return changeset.sort()


def _read_record(g: _Index, node: str, iris: Iris) -> RecordChange:
    record_id = node.rsplit("/", 1)[-1]
    changes = sorted(g.all(node, KG.fieldChange), key=lambda n: g.number(n.value, KG.position) or 0)
    fields = [FieldDiff(tuple(g.json(fc.value, KG.keyPath)), g.json(fc.value, KG.jsonBefore),
                        g.json(fc.value, KG.jsonAfter)) for fc in changes]
    return RecordChange(record_id, g.text(node, KG.changeKind) or "", fields, g.json(node, KG.jsonBefore))
