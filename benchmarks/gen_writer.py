"""The generator's file writer: ``catalog.json`` and ``edges.json`` streamed, optionally in worker processes.

The bytes equal ``dumps_catalog`` / ``dumps_edges`` of ``generate_catalog`` for any number of jobs,
since every record has its own RNG stream.
"""

from __future__ import annotations

import json
from pathlib import Path

from gen_catalog import DEFAULT_SEED, _chunks_encoded, _plan, _source_note, dumps_edges
from gen_record import _record
from gen_vocabulary import GENERATED_AT, SCHEMA_VERSION
# worker-process state for write_catalog(jobs > 1): (plan, seed, n, data_dir)
_SHARED = None
_CHUNK = 256


def _worker_init(n_records, seed, data_dir):
    global _SHARED
    if _SHARED is None or _SHARED[1:] != (seed, n_records, data_dir):  # spawn: rebuild the plan
        _SHARED = (_plan(n_records, seed, data_dir), seed, n_records, data_dir)


def _worker_chunk(lo):
    (model, skels, _, indeg), seed = _SHARED[0], _SHARED[1]
    return [json.dumps(_record(model, sk, seed, indeg.get(sk.id, 0)), ensure_ascii=False)
            for sk in skels[lo:lo + _CHUNK]]


def write_catalog(n_records: int, out_dir, seed: int = DEFAULT_SEED, data_dir=None, jobs: int = 1):
    """Stream ``catalog.json`` and ``edges.json`` into ``out_dir``.

    Returns ``(catalog_path, edges_path, n_edges)``. With ``jobs > 1`` the record
    bodies are built and encoded in worker processes; the bytes are the same, since
    every record has its own RNG stream.
    """
    global _SHARED
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    plan = _plan(n_records, seed, data_dir)
    model, skels, edges, indeg = plan
    cat_path, edge_path = out / "catalog.json", out / "edges.json"
    head = {"schemaVersion": SCHEMA_VERSION, "generatedAt": GENERATED_AT, "sourceHtml": _source_note(n_records, seed)}
    pool = None
    if jobs > 1 and n_records > _CHUNK:
        import multiprocessing as mp

        _SHARED = (plan, seed, n_records, data_dir)
        methods = mp.get_all_start_methods()
        ctx = mp.get_context("fork" if "fork" in methods else None)
        pool = ctx.Pool(jobs, initializer=_worker_init, initargs=(n_records, seed, data_dir))
        encoded = (t for batch in pool.imap(_worker_chunk, range(0, n_records, _CHUNK)) for t in batch)
    else:
        encoded = (json.dumps(_record(model, sk, seed, indeg.get(sk.id, 0)), ensure_ascii=False) for sk in skels)
    try:
        with open(cat_path, "w", encoding="utf-8", newline="\n") as fh:
            buf = []
            for chunk in _chunks_encoded(head, "records", encoded):
                buf.append(chunk)
                if len(buf) >= 256:
                    fh.write("".join(buf))
                    buf.clear()
            fh.write("".join(buf))
    finally:
        if pool is not None:
            pool.close()
            pool.join()
            _SHARED = None
    edoc = {"schemaVersion": SCHEMA_VERSION, "generatedAt": GENERATED_AT, "edges": edges}
    with open(edge_path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(dumps_edges(edoc))
    return cat_path, edge_path, len(edges)
