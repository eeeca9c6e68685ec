"""The words index of a generation: search's ranked hits read from SQLite FTS5, not worked out in SPARQL.

The ``search`` query finds the systems whose search text holds every word asked for, each as a
substring of a field, and ranks them: the hits where every word starts a word first (the id or the
name before the description, before the claims), those where a word is only inside a word after
(queries/search.rq says how). In SPARQL that costs a scan of every system's text and string work
for each hit: 1.2 s at 45,600 records for a word most of them hold. This index answers the same
block of search.rq (its "ranked hits", between two marker comments) from a file beside the
generation's store: an FTS5 trigram table of each system's fields gives the candidates (every
three characters of each word of three or more; a text of shorter words reads every system), the
fields (kept beside it, as search.rq cuts them) say which fields hold each word and where, and the
rank, the filters (tier, section) and the order are those of search.rq, worked out in SQL. Only the rows asked for
(the limit) go back into the query, as a sorted VALUES table, and the store answers the rest of it
(the columns shown), so a search answers the same rows either way; tests/test_textindex.py compares
the two on the catalog.

The index is a file kept beside the generation (:mod:`kg.store.kept`: ``kg-words.<digest>.sqlite``,
named by ``kg-words.json``), like the damage check's marker: made by the first search of a
generation, or at the end of an ingest, and used while the generation's data files are those it was
made from and its bytes those it was written with (a file edited or damaged is ignored, said once, and
made again; a FIFO or a device in its place is never opened). Where it cannot be made or read (no
FTS5 or no trigram tokenizer in this Python's SQLite, a read-only folder, data an index cannot answer
exactly such as a system with two tiers), search runs its SPARQL as written. An ingest makes its
version's index from the one before and the systems it wrote (``follow``): a copy of that file, their
rows made again, so that the cost follows the change, not the catalog.

A field is kept as search.rq reads it: every run of separators one space, a space before it, so
that a word starts a word of the field exactly where the field holds " word":

>>> spaced("Bi-Temporal (graph)")
' Bi Temporal graph '

Each word is then looked for with SQLite's ``instr`` in each field, at a word start (" word") and
anywhere ("word"), the rank and order worked out in SQL (:func:`_matching`), so that only the rows
asked for come back to Python: 0.1 to 0.5 s at 45,600 records, a text of one- or two-letter words
(read in every system) included.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

from pyoxigraph import Literal, NamedNode

from .store import GraphStore, KeptDatabase
from .vocab import KG, SCHEMA, SKOS, XSD

#: the index's file beside a generation; its format is bumped when what the file holds changes (an
#: index of another format is made again)
INDEX = KeptDatabase("kg-words", ".sqlite", "3")

#: search.rq's separators (its REPLACE): a space, ASCII punctuation, Latin-1 punctuation and
#: symbols, general and CJK punctuation
_SEPARATORS = re.compile("[ !-/:-@\\[-`{-~\u00a0-\u00bf\u00d7\u00f7\u2000-\u206f\u3000-\u303f]+")
FIELDS = ("id", "name", "desc", "claims")
SLOTS = 6  # search.rq's word slots: the sixth holds the rest of the words, one after another
INSIDE = 4  # the rank of a hit is this much more when a word is only inside a word (search.rq's)
GRAM = 3  # the trigram table's: a word of fewer characters cannot be looked up in it


def spaced(field: str) -> str:
    """A field as search.rq reads it: each run of its separators one space, a space before it."""
    return " " + _SEPARATORS.sub(" ", field)


def fields_of(found: str) -> tuple[str, str, str, str]:
    """The id, name, description and claims of a search text, cut at its line breaks as search.rq
    cuts them (STRBEFORE / STRAFTER: a missing break leaves the fields after it empty)."""
    def before(text: str) -> str:
        return text.split("\n", 1)[0] if "\n" in text else ""

    def after(text: str) -> str:
        return text.split("\n", 1)[1] if "\n" in text else ""

    rest1 = after(found)
    rest2 = after(rest1)
    return before(found), before(rest1), before(rest2), after(rest2)


def slots(text: str) -> list[str]:
    """The word slots of a bound search text (kg.parameters.words: words one space apart), as
    search.rq fills them: one word in each of the first five, the rest in the sixth."""
    found = text.split(" ") if text else []
    return found[:SLOTS - 1] + ([" ".join(found[SLOTS - 1:])] if len(found) >= SLOTS else [])


def _matching(words: int) -> tuple[str, str]:
    """The SQL that finds the hits of ``words`` bound words (``:w0`` ..., and ``:s0`` ... each with a
    space before it: where it starts a word), as search.rq does: the condition of a hit (each word
    in some field), and the columns of what it works out (whether each word starts a word of some
    field, and per field how many words start a word there, and how many are there at all). All of
    it in SQLite, in C: only the rows asked for come back to Python."""
    anywhere = [[f"instr(s.{column}, :w{k}) > 0" for column in _FIELD_COLUMNS] for k in range(words)]
    at_start = [[f"instr(s.{column}, :s{k}) > 0" for column in _FIELD_COLUMNS] for k in range(words)]
    hit = " AND ".join("(" + " OR ".join(word) + ")" for word in anywhere)
    starts = " AND ".join("(" + " OR ".join(word) + ")" for word in at_start)
    counts = [f"{'+'.join(f'({word[j]})' for word in at_start)} AS s{j}, "
              f"{'+'.join(f'({word[j]})' for word in anywhere)} AS a{j}" for j in range(len(_FIELD_COLUMNS))]
    return hit, f"({starts}) AS starts, " + ", ".join(counts)


def ranked_group(store: GraphStore, terms: dict[str, Any], limit: int | None) -> str | None:
    """search.rq's ranked hits for the bound ``terms`` (text, and tier and section when given)
    as a group to put in place of its own: a sub-SELECT of a VALUES table in search.rq's order,
    the first ``limit`` of them; None when the words index cannot answer (search runs as written)."""
    text, tier, section = terms.get("text"), terms.get("tier"), terms.get("section")
    if not (isinstance(text, Literal) and (tier is None or _integer(tier))
            and (section is None or _plain_text(section))):
        return None
    index = open_index(store)
    if index is None:
        return None
    try:
        rows = index.ranked(text.value, None if tier is None else int(tier.value),
                            None if section is None else section.value.lower(), limit)
    except sqlite3.Error:
        return None
    finally:
        index.close()
    table = " ".join(f"({order} {system} {found} {name or 'UNDEF'} {tier_term} {matched})"
                     for order, (system, found, name, tier_term, matched) in enumerate(rows))
    return ("{ SELECT ?system ?found ?name ?tier ?matched WHERE { VALUES (?order ?system ?found ?name ?tier ?matched) { "
            + table + " } } ORDER BY ?order }")


# -- the file --------------------------------------------------------------------------------------


class WordsIndex:
    """The words index of one generation, open to read."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._db = connection
        self.generation = 0  # the generation it was opened for, where told (``kept``)

    def ranked(self, text: str, tier: int | None, section: str | None, limit: int | None) -> list[tuple[str, ...]]:
        """search.rq's ranked hits for a bound ``text`` (words one space apart), only those of
        ``tier`` and of a section whose name holds ``section`` (lower-cased) when given, in its
        order, at most ``limit``: each as the terms of ?system ?found ?name ?tier ?matched in
        N-Triples (the name None when the system has none; of ?found only its first line, the
        id, which is all that the query reads of it after the hits)."""
        words = slots(text)
        if not words:
            # every system a hit of rank 0: search.rq's order is tier, name, IRI (NULLs first, as
            # an unbound sort key in SPARQL; TEXT compares as SPARQL strings do, by code point)
            rows = self._db.execute(
                f"SELECT {_SHOWN} FROM systems s WHERE {_FILTERS} ORDER BY tier, name_key, system LIMIT :limit",
                {"limit": -1 if limit is None else limit, "tier": tier, "section": section})
            return [_terms(row, "") for row in rows]
        # every three characters of each word long enough: the candidates hold each somewhere (a
        # superset of the hits); no such word: every system. Then search.rq's matcher, and its order
        grams = sorted({word[i:i + GRAM] for word in words for i in range(len(word) - GRAM + 1)})
        among = "words JOIN systems s ON s.rowid = words.rowid WHERE words MATCH :grams AND" if grams else \
            "systems s WHERE"
        hit, worked_out = _matching(len(words))
        counted = ", ".join(f"CASE WHEN starts THEN s{j} ELSE a{j} END AS c{j}" for j in range(len(_FIELD_COLUMNS)))
        rows = self._db.execute(
            f"WITH found AS MATERIALIZED (SELECT s.rowid AS row, {worked_out} FROM {among} {_FILTERS} AND {hit}), "
            f"counted AS MATERIALIZED (SELECT row, starts, {counted} FROM found) "
            f"SELECT {_SHOWN}, c0, c1, c2, c3, "
            "CASE WHEN starts THEN 0 ELSE :inside END + CASE WHEN c0 = :n OR c1 = :n THEN 0 WHEN c2 = :n THEN 1 "
            "WHEN c3 = :n THEN 2 ELSE 3 END AS rank, (c0 = :n) + (c1 = :n) + (c2 = :n) + (c3 = :n) AS whole "
            "FROM counted JOIN systems s ON s.rowid = counted.row "
            "ORDER BY rank, whole DESC, s.tier, s.name_key, s.system LIMIT :limit",
            {"grams": " AND ".join(f'"{gram}"' for gram in grams), "tier": tier, "section": section,
             "limit": -1 if limit is None else limit, "n": len(words), "inside": INSIDE,
             **{f"w{k}": word for k, word in enumerate(words)},
             **{f"s{k}": " " + word for k, word in enumerate(words)}})
        return [_terms(row, _matched(row[4:8], len(words))) for row in rows]

    def close(self) -> None:
        self._db.close()


_SHOWN = "s.system, s.first, s.name, s.tier_term"
_FIELD_COLUMNS = ("in_id", "in_name", "in_desc", "in_claims")  # each field spaced, as search.rq reads it
_FILTERS = ("(:tier IS NULL OR s.tier = :tier) AND "
            "(:section IS NULL OR EXISTS (SELECT 1 FROM sections WHERE row = s.rowid AND instr(label, :section) > 0))")


def _matched(counts: Sequence[int], words: int) -> str:
    """search.rq's ``matched``: the fields that hold every word, else those that hold one (``counts``:
    how many words each field holds, at a word start or anywhere as the hit is ranked)."""
    whole = [count == words for count in counts]
    shown = whole if any(whole) else [count > 0 for count in counts]
    return ", ".join(name for name, on in zip(FIELDS, shown) if on)


def _terms(row: tuple[Any, ...], matched: str) -> tuple[str, ...]:
    system, first, name, tier_term = row[:4]
    return str(NamedNode(system)), str(Literal(first + "\n")), name, tier_term, str(Literal(matched))


def open_index(store: GraphStore) -> WordsIndex | None:
    """The words index of the generation ``store`` reads, made now if it is missing, out of date or
    not whole; None where there can be none (in memory, a plain old store, a write session, a folder
    that cannot be written, data it cannot answer exactly, no FTS5)."""
    try:
        path = INDEX.path(store)
        if path is None:
            path = INDEX.write(store, lambda temporary: _write(temporary, store))
        return None if path is None else _read(path)
    except (OSError, sqlite3.Error):
        return None


def kept(store: GraphStore) -> WordsIndex | None:
    """The words index kept for the generation ``store`` reads, open, where it has one whole that answers
    (None: none, or one that cannot answer; nothing is made). Taken before an ingest, it stays readable
    after the ingest's clean-up removes that generation (the file is open)."""
    try:
        path = INDEX.path(store)
        index = None if path is None else _read(path)
    except (OSError, sqlite3.Error):
        return None
    if index is not None:
        index.generation = store.generation
    return index


@dataclass(frozen=True)
class Written:
    """What a write session changed that the words index reads: the generation it started from, and the
    systems whose rows it may have changed."""

    base: int
    systems: set[str]


def systems_written(store: GraphStore) -> Written | None:
    """Inside a write session: the systems whose rows the session may have changed (their search text,
    tier, name or sections stated, or no longer stated, in a graph it wrote, or in a section whose name
    it changed); None where that cannot be told (graphs written that cannot be named, no version
    before, a subject the index cannot answer for)."""
    written, previous = store.written_graphs(), store.previous()
    if written is None or previous is None or store.path is None:
        return None
    found: set[str] = set()
    for graph in written:
        for predicate in (KG.searchText, KG.tier, SCHEMA.name, KG.section):
            for version in (previous, store):
                for quad in version.match(None, predicate, None, graph):
                    if not isinstance(quad.subject, NamedNode):
                        return None  # the index cannot answer for it: made whole, it says so
                    found.add(quad.subject.value)
        labels = [{(q.subject, q.object) for q in version.match(None, SKOS.prefLabel, None, graph)}
                  for version in (previous, store)]
        for concept in {subject for subject, _ in labels[0] ^ labels[1]}:  # a name gone or new: the rows
            for version in (previous, store):                                # of the systems in it
                found.update(q.subject.value for q in version.match(None, KG.section, concept, None)
                              if isinstance(q.subject, NamedNode))
    # the session holds the writer lock: the current generation is the one it started from
    return Written(GraphStore.latest_generation(store.path), found)


def follow(store: GraphStore, before: WordsIndex, written: Written) -> bool:
    """Make the index of the generation ``store`` reads from ``before`` (the index of the generation
    an ingest started from) and the systems it wrote (``systems_written``): their rows made again from
    the store, the others copied. False (nothing made) where ``before`` is another generation's, the
    new rows cannot be answered from exactly, or nothing can be kept: ``open_index`` then makes it
    whole."""
    if store.generation == 0 or before.generation != written.base:
        return False
    try:
        if INDEX.path(store) is not None:  # nothing was written: the index of this generation is there
            return True
        rows = _rows_of(store, sorted(written.systems))
        if rows is None:
            return False
        return INDEX.write(store, lambda temporary: _followed(temporary, before, written.systems, rows, store)) \
            is not None
    except (OSError, sqlite3.Error):
        return False


def _followed(path: Path, before: WordsIndex, systems: set[str], rows: list[tuple[Any, ...]],
              store: GraphStore) -> None:
    """At ``path``, a copy of ``before`` with the rows of ``systems`` made again (``rows``)."""
    db = sqlite3.connect(path)
    try:
        before._db.backup(db)
        db.execute("PRAGMA journal_mode = OFF")
        _replace_rows(db, systems, rows, store)
    except sqlite3.Error as err:
        raise OSError(f"cannot make the words index: {err}") from None
    finally:
        db.close()


def _rows_of(store: GraphStore, systems: list[str]) -> list[tuple[Any, ...]] | None:
    """The ``systems`` table's rows of these systems as the store now states them (without a rowid;
    those without a search text and a tier have none), or None where one cannot be answered exactly."""
    rows: list[tuple[Any, ...]] = []
    for system in systems:
        node = NamedNode(system)
        texts, tiers, names = ({q.object for q in store.match(node, predicate, None, None)}
                               for predicate in (KG.searchText, KG.tier, SCHEMA.name))
        if not texts or not tiers:
            if len(texts) > 1 or len(tiers) > 1 or len(names) > 1:
                return None
            continue  # not a hit of search.rq: no row
        row = _row(system, texts, tiers, names)
        if row is None:
            return None
        rows.append(row)
    return rows


def _row(system: str, texts: set[Any], tiers: set[Any], names: set[Any]) -> tuple[Any, ...] | None:
    """One system's row (see ``_system_rows``), without its rowid; None where search.rq would answer
    otherwise than the index."""
    if len(texts) != 1 or len(tiers) != 1 or len(names) > 1:
        return None
    (found,), (tier,) = texts, tiers
    name = next(iter(names)) if names else None
    if not (isinstance(found, Literal) and found.datatype == XSD.string and found.value.count("\n") == 3
            and _integer(tier) and (name is None or _plain_text(name))):
        return None
    return (system, found.value.split("\n", 1)[0], None if name is None else str(name),
            None if name is None else " " + name.value.lower(), int(tier.value), str(tier),
            *(spaced(field) for field in fields_of(found.value)))


def _replace_rows(db: sqlite3.Connection, systems: set[str], rows: list[tuple[Any, ...]], store: GraphStore) -> None:
    """The rows of ``systems`` taken out of the copied index, and ``rows`` (with their sections) put in."""
    names = sorted(systems)
    for start in range(0, len(names), 500):  # SQLite's cap on parameters a statement
        chunk = names[start:start + 500]
        old = db.execute(f"SELECT rowid, {', '.join(_FIELD_COLUMNS)} FROM systems "
                         f"WHERE system IN ({', '.join('?' * len(chunk))})", chunk).fetchall()
        for rowid, *fields in old:  # a contentless FTS5 table forgets a row given the text it was given
            db.execute("INSERT INTO words (words, rowid, text) VALUES ('delete', ?, ?)", (rowid, _words_text(fields)))
            db.execute("DELETE FROM sections WHERE row = ?", (rowid,))
            db.execute("DELETE FROM systems WHERE rowid = ?", (rowid,))
    start = (db.execute("SELECT max(rowid) FROM systems").fetchone()[0] or 0) + 1
    numbered = [(start + n, *row) for n, row in enumerate(rows)]
    _fill(db, numbered, list(_section_rows(store, numbered, sorted(row[1] for row in numbered))), None)


def _read(path: Path) -> WordsIndex | None:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        meta = dict(db.execute("SELECT key, value FROM meta"))
    except sqlite3.Error:
        db.close()
        return None
    if meta.get("answers") != "yes":
        db.close()
        return None  # the words index cannot answer for this data: search runs its SPARQL
    return WordsIndex(db)


def _write(path: Path, store: GraphStore) -> None:
    """Make the index of ``store``'s generation at ``path`` (a new file). The tables are made before
    the store is read: where they cannot be (a folder that cannot be written, a SQLite without FTS5),
    that shows at once."""
    db = sqlite3.connect(path)
    try:
        _tables(db)
        rows, answers = _system_rows(store)
        _fill(db, rows if answers else [], list(_section_rows(store, rows)) if answers else [], answers)
    except sqlite3.Error as err:
        raise OSError(f"cannot make the words index: {err}") from None
    finally:
        db.close()


def _tables(db: sqlite3.Connection) -> None:
    db.execute("PRAGMA journal_mode = OFF")  # a new file, renamed into place once whole
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    db.execute("CREATE TABLE systems (rowid INTEGER PRIMARY KEY, system TEXT, first TEXT, name TEXT, "
               f"name_key TEXT, tier INTEGER, tier_term TEXT, {', '.join(f'{c} TEXT' for c in _FIELD_COLUMNS)})")
    db.execute("CREATE TABLE sections (row INTEGER, label TEXT)")
    db.execute("CREATE INDEX sections_row ON sections (row)")
    # contentless, no positions: the index only says which systems hold each three characters
    db.execute("CREATE VIRTUAL TABLE words USING fts5(text, content='', detail=none, "
               "tokenize='trigram case_sensitive 1')")


def _fill(db: sqlite3.Connection, rows: list[tuple[Any, ...]], sections: list[tuple[int, str]],
          answers: bool | None) -> None:
    """Rows, sections and words into the tables, and whether the index answers (None: it says so already)."""
    db.executemany("INSERT INTO systems VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    db.executemany("INSERT INTO sections VALUES (?, ?)", sections)
    db.executemany("INSERT INTO words (rowid, text) VALUES (?, ?)", ((row[0], _words_text(row[7:])) for row in rows))
    if answers is not None:
        db.executemany("INSERT INTO meta VALUES (?, ?)", [("answers", "yes" if answers else "no")])
    db.commit()


def _words_text(fields: Sequence[str]) -> str:
    """What the FTS5 table is given for a row: its spaced fields, a line each."""
    return "\n".join(fields)


def _system_rows(store: GraphStore) -> tuple[list[tuple[Any, ...]], bool]:
    """One row a system for the ``systems`` table (of its search text, the first line and each
    field :func:`spaced`), and whether the index answers exactly as search.rq would: each
    system with one search text of four lines, one integer tier and at most one string name
    (search.rq joins them: more would make it answer a system twice). Each property is read by
    one scan of its own (a SPARQL join of the three took four times as long)."""
    texts, tiers, names = (_objects(store, predicate) for predicate in (KG.searchText, KG.tier, SCHEMA.name))
    if texts is None or tiers is None or names is None:
        return [], False
    rows: list[tuple[Any, ...]] = []
    for system, found in texts.items():
        tier, name = tiers.get(system), names.get(system)
        if tier is None:
            continue  # search.rq joins the tier: a system without one is never a hit
        row = _row(system, {found}, {tier}, set() if name is None else {name})
        if row is None:
            return [], False
        rows.append((len(rows) + 1, *row))
    return rows, True


def _objects(store: GraphStore, predicate: NamedNode) -> dict[str, Any] | None:
    """Each subject's object of ``predicate`` in any graph (IRI -> term); None when a subject has
    two, or is not an IRI."""
    found: dict[str, Any] = {}
    for quad in store.match(None, predicate, None, None):
        subject = quad.subject
        if not isinstance(subject, NamedNode) or found.setdefault(subject.value, quad.object) != quad.object:
            return None
    return found


def _section_rows(store: GraphStore, rows: list[tuple[Any, ...]],
                  systems: list[str] | None = None) -> Iterable[tuple[int, str]]:
    """(row, section name lower-cased as LCASE does) for each section of each system: search.rq's
    ``kg:section/skos:prefLabel``, each property read by one scan (of those ``systems`` only, when given)."""
    row_of = {row[1]: row[0] for row in rows}
    labels: dict[Any, set[str]] = {}
    for quad in store.match(None, SKOS.prefLabel, None, None):
        label = quad.object
        if isinstance(label, Literal) and _plain_text(label):  # LCASE of another literal is an error
            labels.setdefault(quad.subject, set()).add(label.value.lower())
    sections = (store.match(None, KG.section, None, None) if systems is None
                else (q for system in systems for q in store.match(NamedNode(system), KG.section, None, None)))
    pairs = {(row_of[quad.subject.value], label) for quad in sections
             if isinstance(quad.subject, NamedNode) and quad.subject.value in row_of
             for label in labels.get(quad.object, ())}
    return sorted(pairs)


def _plain_text(term: Any) -> bool:
    return isinstance(term, Literal) and (term.language is not None or term.datatype == XSD.string)


def _integer(term: Any) -> bool:
    return isinstance(term, Literal) and term.datatype == XSD.integer and re.fullmatch(r"-?[1-9][0-9]*|0", term.value) is not None
