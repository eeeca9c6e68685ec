"""The generator's catalog: the plan (model, skeletons, edges) and the records, as dicts or JSON text.

``generate_catalog(n, seed)`` builds everything in memory; ``iter_records`` yields the records one
at a time; ``dumps_catalog`` / ``dumps_edges`` give the files' text, one record or edge a line.
"""

from __future__ import annotations

import json
from pathlib import Path

from gen_edges import _edges
from gen_model import _model
from gen_record import _record
from gen_skeletons import _skeletons
from gen_vocabulary import GENERATED_AT, SCHEMA_VERSION

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
DEFAULT_SEED = 20261129


def _source_note(n: int, seed: int) -> str:
    return ("synthetic: benchmarks/generate.py --records %d --seed %d (distributions learned from "
            "data/landscape-site.json, data/seed-record.json, data/landscape.edges.json)" % (n, seed))


def _plan(n_records: int, seed: int, data_dir):
    if n_records < 0:
        raise ValueError("n_records must be >= 0")
    model = _model(str(Path(data_dir) if data_dir else DATA_DIR))
    skels = _skeletons(model, n_records, seed)
    edges = _edges(model, skels, seed)
    indeg = {}
    for e in edges:
        indeg[e["target"]] = indeg.get(e["target"], 0) + 1
    return model, skels, edges, indeg


def iter_records(n_records: int, seed: int = DEFAULT_SEED, data_dir=None):
    """Yield the records of ``generate_catalog(n_records, seed)`` one at a time (id order)."""
    model, skels, _, indeg = _plan(n_records, seed, data_dir)
    for sk in skels:
        yield _record(model, sk, seed, indeg.get(sk.id, 0))


def generate_catalog(n_records: int, seed: int = DEFAULT_SEED, data_dir=None) -> tuple[dict, dict]:
    """Return ``(catalog, edges)``: bulk-catalog dict and edges-file dict."""
    model, skels, edges, indeg = _plan(n_records, seed, data_dir)
    records = [_record(model, sk, seed, indeg.get(sk.id, 0)) for sk in skels]
    catalog = {"schemaVersion": SCHEMA_VERSION, "generatedAt": GENERATED_AT,
               "sourceHtml": _source_note(n_records, seed), "records": records}
    return catalog, {"schemaVersion": SCHEMA_VERSION, "generatedAt": GENERATED_AT, "edges": edges}


def _chunks(header: dict, key: str, items):
    """JSON text of ``{**header, key: items}``: one item per line (streamable)."""
    return _chunks_encoded(header, key, (json.dumps(it, ensure_ascii=False) for it in items))


def dumps_catalog(catalog: dict) -> str:
    head = {k: v for k, v in catalog.items() if k != "records"}
    return "".join(_chunks(head, "records", catalog["records"]))


def dumps_edges(edges: dict) -> str:
    head = {k: v for k, v in edges.items() if k != "edges"}
    return "".join(_chunks(head, "edges", edges["edges"]))


def _chunks_encoded(header: dict, key: str, encoded_items):
    yield json.dumps(header, ensure_ascii=False)[:-1] + (", " if header else "") + json.dumps(key) + ": ["
    first = True
    for text in encoded_items:
        yield ("\n" if first else ",\n") + text
        first = False
    yield ("]}\n" if first else "\n]}\n")
