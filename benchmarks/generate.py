#!/usr/bin/env python3
"""Deterministic generator of synthetic landscape catalogs in the full record shape.

The generator learns its distributions from the bundled real data in ``data/``:

* ``landscape-site.json`` (912 records, 21 cells each): primary-section frequencies,
  subsections, tier per section, taxonomy values per section and axis, URL kinds
  (arXiv / GitHub / vendor site / none) and host shapes, GitHub owners, names, and
  the real ``(value, status)`` pairs of its 21 cell columns (conditioned on the
  record's section through a "donor" record), including real license strings,
  MCP/A2A/OTel wording and not-applicable annotations.
* ``seed-record.json`` (one record, 107 cells): the full cell slug list and order,
  each slug's status, ``source_class`` and whether it carries ``last_verified_at``,
  and the seed-like text for the 86 slugs the site data lacks; the shape of
  ``lifecycle``, ``history`` and ``corroboration``.
* ``landscape.edges.json`` (528 edges): edges per record, the type mix, evidence
  texts, citation hosts, source/target section affinity per type, and the in- and
  out-degree share curves (a few hub records receive most edges).

API::

    catalog, edges = generate_catalog(n_records, seed=20261129)

CLI::

    python benchmarks/generate.py --records N [--seed S] --out DIR [--jobs J]

writes ``DIR/catalog.json`` (bulk catalog shape, one record per line) and
``DIR/edges.json`` (edges shape, one edge per line), streaming one record at a
time; the bytes equal ``dumps_catalog(catalog)`` / ``dumps_edges(edges)`` of
``generate_catalog`` for any ``--jobs``. The writer holds only the small record
skeletons and the edges in memory (about 130 MB at 45,600 records); the
``generate_catalog`` API builds everything in memory (about 1.6 GB at 45,600).

Determinism: only ``random.Random`` instances seeded from ``seed`` (one stream for
the record skeletons, one for the edges, one per record for its body, so the
body of record *i* does not depend on the others); no global random state, no
clock, no ``hash()`` and no set iteration order. Standard library only.

The generator is split by concept, each module beside this one: ``gen_random`` (deterministic
helpers), ``gen_vocabulary`` (constants and seed-like texts), ``gen_model`` (the learned
distributions), ``gen_skeletons`` and ``gen_edges`` (phase 1), ``gen_record`` and ``gen_cells``
(phase 2; ``gen_citations`` and ``gen_recommend_cells`` write the cells the catalog's own tools read
in its own formats, as ``../shared/data/full-shape/README.md`` gives them: yearly citation
trajectories, "N cites M/yr", the 8 use-case tags, cost tiers, capability bands and scores,
``*-last-verified`` dates, ``_provenance`` per cell), ``gen_catalog`` (the API above) and
``gen_writer`` (the streaming writer). This file is the command line and the public names.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:  # loaded by path (tests, other benchmarks): its modules are beside it
    sys.path.insert(0, HERE)

from gen_catalog import DATA_DIR, DEFAULT_SEED, dumps_catalog, dumps_edges, generate_catalog, iter_records  # noqa: E402
from gen_writer import write_catalog  # noqa: E402

__all__ = ["DATA_DIR", "DEFAULT_SEED", "dumps_catalog", "dumps_edges", "generate_catalog", "iter_records",
           "write_catalog", "main"]


def main(argv=None) -> int:
    """The command line: write ``--out``/catalog.json and edges.json; 0 when written."""
    ap = argparse.ArgumentParser(description="Generate a synthetic landscape catalog (full record shape).")
    ap.add_argument("--records", type=int, required=True, help="number of records")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED, help="random seed (default %(default)s)")
    ap.add_argument("--out", required=True, help="output directory (catalog.json, edges.json)")
    ap.add_argument("--data", default=None, help="directory with the real data files (default: repo data/)")
    ap.add_argument("--jobs", type=int, default=1,
                    help="worker processes for record bodies (same bytes for any value; default 1)")
    args = ap.parse_args(argv)
    if args.records < 0:
        ap.error("--records must be >= 0")
    if args.jobs < 1:
        ap.error("--jobs must be >= 1")
    t0 = time.perf_counter()
    cat_path, edge_path, n_edges = write_catalog(args.records, args.out, args.seed, args.data, args.jobs)
    dt = time.perf_counter() - t0
    print("wrote %s (%d records, %d bytes)" % (cat_path, args.records, cat_path.stat().st_size), file=sys.stderr)
    print("wrote %s (%d edges, %d bytes)" % (edge_path, n_edges, edge_path.stat().st_size), file=sys.stderr)
    print("seed %d, %.1f s" % (args.seed, dt), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
