"""The quad store: quads in, SPARQL out, one whole version at a time. Knows nothing of records.

``GraphStore`` wraps an embedded pyoxigraph store, on disk (the default for the
CLI) or in memory. On disk, a store folder holds generations (``_generations``): a
write session (``_session``) builds the next generation from a cheap checkpoint of
the current one and switches to it atomically when it ends, so a reader sees the
whole old version or the whole new one, never a mix, and a write that is killed or
fails leaves the previous version as it was.

>>> from pyoxigraph import NamedNode, Literal, Quad
>>> store = GraphStore()           # in memory
>>> g = NamedNode("https://example.org/g")
>>> store.replace_graphs({g: [Quad(g, NamedNode("https://example.org/p"), Literal("v"), g)]})
>>> [row["o"].value for row in store.select("SELECT ?o WHERE { ?s ?p ?o }")]
['v']

On disk, wrap a whole ingest in one session; a write call outside a session is a
session of its own:

>>> import tempfile
>>> disk = GraphStore(tempfile.mkdtemp() + "/kg-store")
>>> with disk.transaction():
...     disk.add([Quad(g, NamedNode("https://example.org/p"), Literal("a"), g)])
...     disk.add([Quad(g, NamedNode("https://example.org/p"), Literal("b"), g)])
>>> len(disk), disk.generation, disk.is_stale()
(2, 2, False)

The package's private modules, from the class down (a module calls only those listed below it)::

    _graphstore   GraphStore: reads through _handle, hands each write to _session (or _writes in memory)
    _handle       the version a handle reads, its reader lock, making and converting a store folder
    _session      a write session: its generation, its writes, its commit or discard
    _writes       writes into one store (in memory; the base of a session's)
    _changes      what a session's writes touched
    _bulkload     a build's one bulk load, fed through a named pipe
    _nquads       N-Quads text written from terms, for the loader
    _reading      SPARQL on one store, values bound, faults as StoreError
    _generations  the folder's generations, pointer and clean-up
    _locks        the writer's and the readers' file locks
    _faults       pyoxigraph's storage errors as one-line StoreError messages
    _checked      the damage check of a generation, run once and remembered in a kept marker

Besides the class, the names other packages use: ``GraphTriples`` (a graph's triples, written
as N-Quads text once, on the mapping side), ``GraphText`` (a graph's text made in another process),
``storage_error`` (a fault met while iterating query results, as a StoreError), and the one public module, :mod:`kg.store.kept`: what kg keeps
beside a generation (``KeptFile``, ``KeptDatabase``: the damage marker, the words index, the
remembered answers), each bound to the generation's data by a digest. Nothing outside the package
sees a store folder's layout: the current version of a folder is read through
``GraphStore.latest_generation``, ``GraphStore.pointer_stamp`` and ``GraphStore.current_version``;
a cache of what is worked out from a version is keyed by ``GraphStore.version_key``.
"""

from __future__ import annotations

from ._faults import storage_error
from ._graphstore import (
    DEFAULT_STORE, FORMATS, MEMORY, GraphStore, default_store_path, literal_text, transactional,
)
from ._nquads import GraphText, GraphTriples
from .kept import KeptDatabase, KeptFile, KeptFileIgnored

__all__ = ["DEFAULT_STORE", "FORMATS", "MEMORY", "GraphStore", "GraphText", "GraphTriples", "KeptDatabase",
           "KeptFile", "KeptFileIgnored", "default_store_path", "literal_text", "storage_error", "transactional"]
