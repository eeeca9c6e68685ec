"""What changed: every ingest that changes the store is a changeset in a graph of its own.

* ``model``: a changeset as values (record, field, edge and header changes), its summary;
* ``compare``: the diff of two record JSONs, two edges lists, two catalogs; content hashes;
* ``quads``: a changeset -> the quads of its graph, and back;
* ``recorder``: the hook an ingest calls (old hashes first, the changeset in the same session);
* ``log``: the changesets of a store, newest first;
* ``snapshots``: the catalog at a changeset (records, edges, headers), by undoing the later ones;
* ``diffing``: ``kg diff``: two versions, each a catalog file or a changeset of the store;
* ``render``: a changeset as text for people, as JSON, as Turtle or TriG.
"""

from .compare import content_hash, diff_catalogs
from .diffing import diff
from .log import changeset_at, changeset_numbers, log
from .model import Changeset, EdgeChange, FieldDiff, HeaderChange, InputFile, RecordChange
from .recorder import Recorder

__all__ = [
    "Changeset", "EdgeChange", "FieldDiff", "HeaderChange", "InputFile", "RecordChange", "Recorder",
    "changeset_at", "changeset_numbers", "content_hash", "diff", "diff_catalogs", "log",
]
