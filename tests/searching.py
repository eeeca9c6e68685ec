"""The words matcher of search and find, written here from its definition (docs/guide/build-and-query.md),
to compute their expected answers from the catalog JSON without kg's SPARQL or kg.parameters.

A text is folded (accents, case, white space) and cut into words at separators: white space,
ASCII punctuation, U+00A0-U+00BF, the signs x and /, general punctuation (U+2000-U+206F) and
CJK punctuation (U+3000-U+303F). A word given twice, or at the start of a longer word also
given, counts once. A system is a hit when each word is a substring of one of its fields (id,
name, description, claims: folded, each run of separators one space); the sixth and later words
must follow each other (one slot). Hits where every word starts a word of some field come first,
ranked by the fields where they do (id or name, description, claims, spread); the others after,
ranked likewise by the fields that hold the words.
"""

from __future__ import annotations

import string
import unicodedata

FIELDS = ("id", "name", "desc", "claims")
SLOTS = 6


def fold(text: str) -> str:
    bare = "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))
    return " ".join(bare.split()).lower()


def is_separator(ch: str) -> bool:
    o = ord(ch)
    return (ch.isspace() or ch in string.punctuation or 0xA0 <= o <= 0xBF or ch in "\u00d7\u00f7"
            or 0x2000 <= o <= 0x206F or 0x3000 <= o <= 0x303F)


def tokens(text: str) -> list[str]:
    out, word = [], ""
    for ch in text:
        if is_separator(ch):
            if word:
                out.append(word)
            word = ""
        else:
            word += ch
    return out + ([word] if word else [])


def words(text: str) -> list[str]:
    found = tokens(fold(text))
    kept = []
    for i, w in enumerate(found):
        if w not in found[:i] and not any(o != w and o.startswith(w) for o in found):
            kept.append(w)
    if len(kept) > SLOTS:
        kept = kept[:SLOTS - 1] + [" ".join(kept[SLOTS - 1:])]
    return kept


def fields(record_id: str, record: dict) -> dict[str, str]:
    """The four fields of a record, as its words one space apart, a space before each."""
    cells = record.get("cells") or {}
    texts = {"id": record_id, "name": record.get("name") if isinstance(record.get("name"), str) else ""}
    for slug in ("desc", "claims"):
        value = (cells.get(slug) or {}).get("value")
        texts[slug] = value if isinstance(value, str) else ""
    return {f: " " + " ".join(tokens(fold(texts[f]))) for f in FIELDS}


def _placed(wanted: list[str], have: dict[str, str], inside: bool) -> tuple[int, int, str] | None:
    """(rank 0-3, fields holding every word, matched) when each word starts a word of some field (or,
    ``inside``, is anywhere in one); None otherwise."""
    found = {f: {w for w in wanted if (w if inside else " " + w) in have[f]} for f in FIELDS}
    if set().union(*found.values()) != set(wanted):
        return None
    whole = [f for f in FIELDS if found[f] == set(wanted)]
    if whole:
        rank = 0 if {"id", "name"} & set(whole) else 1 if "desc" in whole else 2
        return rank, len(whole), ", ".join(whole)
    return 3, 0, ", ".join(f for f in FIELDS if found[f])


def match(text: str, record_id: str, record: dict) -> tuple[int, int, str] | None:
    """(rank, fields holding every word, matched) of a hit; None when the record is no hit. Rank 0-3:
    every word starts a word somewhere; 4-7: some word is only inside a word."""
    wanted = words(text)
    if not wanted:
        return 0, len(FIELDS), ""
    have = fields(record_id, record)
    at_start = _placed(wanted, have, inside=False)
    if at_start is not None:
        return at_start
    inside = _placed(wanted, have, inside=True)
    return None if inside is None else (inside[0] + 4, inside[1], inside[2])


def substring_hits(text: str, records: dict[str, dict]) -> set[str]:
    """The plain scan: the ids of the records whose id, name, description or claims, folded, hold
    each word of ``text`` (cut at the separators) as a substring; nothing of the matcher above."""
    wanted = tokens(fold(text))
    hits = set()
    for rid, rec in records.items():
        cells = rec.get("cells") or {}
        texts = [rid, rec.get("name") if isinstance(rec.get("name"), str) else ""]
        texts += [v if isinstance(v := (cells.get(slug) or {}).get("value"), str) else "" for slug in ("desc", "claims")]
        folded = [fold(t) for t in texts]
        if all(any(w in t for t in folded) for w in wanted):
            hits.add(rid)
    return hits


def ranked(text: str, records: dict[str, dict]) -> list[tuple[tuple, str, str]]:
    """Every hit as (sort key, id, matched), in the order search gives them (before tier and section filters)."""
    hits = []
    for rid, rec in records.items():
        found = match(text, rid, rec)
        if found is not None:
            rank, whole, matched = found
            hits.append(((rank, -whole, rec["tier"], " " + rec["name"].lower(), rid), rid, matched))
    return sorted(hits)
