"""Where the slow named queries spend their time on a big store: how many entries each pattern they scan
holds, and what counting them and reading their terms costs on disk.

    python benchmarks/scan_patterns.py STORE_FOLDER

Counting reads the index without decoding a term; reading the rows decodes each subject and
object (RocksDB look-ups for every IRI or literal too long to be stored inline). Figures for
the 45,600-record store: benchmarks/results/scale-45600.md.
"""

from __future__ import annotations

import sys
import time

from kg.store import GraphStore

PREFIXES = ("PREFIX kg: <https://w3id.org/agent-landscape/ontology#> PREFIX dcterms: <http://purl.org/dc/terms/> ")
COUNTED = ("kg:cell", "kg:column", "kg:featureState", "kg:status", "dcterms:identifier", "kg:historyEntry")
READ = ("kg:featureState", "dcterms:identifier")


def timed_rows(store: GraphStore, text: str) -> tuple[list[list[object]], float]:
    """The rows of a query with every value read, and the seconds it took."""
    started = time.perf_counter()
    rows = [[value for value in row] for row in store.query(PREFIXES + text)]
    return rows, time.perf_counter() - started


def main(folder: str) -> None:
    store = GraphStore.open_existing(folder, read_only=True)
    for predicate in COUNTED:
        rows, seconds = timed_rows(store, f"SELECT (COUNT(*) AS ?n) WHERE {{ ?s {predicate} ?o }}")
        print(f"count {predicate}: {rows[0][0].value} in {seconds:.2f} s")  # type: ignore[attr-defined]
    for predicate in READ:
        rows, seconds = timed_rows(store, f"SELECT ?s ?o WHERE {{ ?s {predicate} ?o }}")
        print(f"read every {predicate} with its terms: {len(rows):,} rows in {seconds:.2f} s "
              f"({len(rows) / seconds:,.0f} rows/s)")


if __name__ == "__main__":
    main(sys.argv[1])
