"""The worker pool's answer cache: the same request again, while the store's generation is the same,
is answered from memory without a worker.

A worker's answer depends only on the request (the message the routes build: the query
text, the negotiated format, the parameters, the limits) and on the version of the store
it read. So a 200 answer is kept under its request and the generation that made it, and
given again while that generation is current:

- the generation is read before each request (one ``stat`` of the store's pointer file
  while it is unchanged, see :class:`Generations`), so an answer is never given once a
  newer generation is current; the first answer of a new generation drops every older one;
- an answer is kept only when the generation the worker says it read is the one current
  when the request came in, and only under it, so an ingest that lands during a request
  cannot file the old version's answer under the new one;
- the answers held are bounded in bytes (bodies, headers and keys, counted), the least
  recently used going first; an answer over an eighth of the bound is not kept.

The pool looks a request up before it asks a worker and keeps the answer after
(:class:`GenerationCache`). Nothing here knows HTTP: answers are the workers' dicts
(:mod:`kg.serve.replies`).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .limits import DEFAULT_ANSWER_CACHE_MB

DEFAULT_ANSWER_BYTES = DEFAULT_ANSWER_CACHE_MB * 1024 * 1024  # answers a server keeps (bodies, headers, keys)
_OVERHEAD = 200  # bytes counted per entry besides its body, headers and key (the dict, the tuple)


def request_key(msg: dict) -> str | None:
    """The key of a request message (its fields in a canonical order), or None when it
    holds something other than text, numbers, booleans, lists and dicts (never kept).

    >>> request_key({"op": "query", "query": "ASK {}", "max_rows": 10}) == request_key({"max_rows": 10, "op": "query", "query": "ASK {}"})
    True
    """
    try:
        return json.dumps(msg, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return None


def answer_size(key: str, reply: dict) -> int:
    """The bytes an entry is counted as: its key, body and headers, and a fixed overhead."""
    headers = reply.get("headers") or {}
    return (len(key) + len(reply.get("body") or b"") + len(str(reply.get("type") or ""))
            + sum(len(k) + len(v) for k, v in headers.items()) + _OVERHEAD)


class AnswerCache:
    """200 answers by request, for one generation at a time, within ``max_bytes``."""

    def __init__(self, max_bytes: int = DEFAULT_ANSWER_BYTES) -> None:
        self.max_bytes = max_bytes
        self.generation: int | None = None  # the generation whose answers are held
        self.bytes = 0
        self.hits = self.misses = 0
        self._entries: OrderedDict[str, tuple[dict, int]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, generation: int, key: str) -> dict | None:
        """The answer kept for ``key`` under ``generation``, or None."""
        with self._lock:
            found = self._entries.get(key) if generation == self.generation else None
            if found is None:
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
        reply = found[0]
        return {**reply, "headers": dict(reply.get("headers") or {})}

    def put(self, generation: int, key: str, reply: dict) -> bool:
        """Keep ``reply`` (a 200) under ``key`` for ``generation``; True if kept. An answer of
        another generation than the one held drops them all (the store moved on, or was set
        back to an earlier generation): answers of one generation only are ever held."""
        if reply.get("status") != 200 or not isinstance(reply.get("body"), bytes):
            return False
        size = answer_size(key, reply)
        if size > self.max_bytes // 8:
            return False
        with self._lock:
            if generation != self.generation:
                self._clear(generation)
            old = self._entries.pop(key, None)
            if old is not None:
                self.bytes -= old[1]
            self._entries[key] = ({**reply, "headers": dict(reply.get("headers") or {})}, size)
            self.bytes += size
            while self.bytes > self.max_bytes:
                _, (_, dropped) = self._entries.popitem(last=False)
                self.bytes -= dropped
        return True

    def clear(self) -> None:
        with self._lock:
            self._clear(self.generation)

    def _clear(self, generation: int | None) -> None:
        self._entries.clear()
        self.bytes = 0
        self.generation = generation


class Generations:
    """The current generation of the store in ``folder``, read cheaply enough to ask per request:
    one stat of the store's pointer (:meth:`kg.store.GraphStore.pointer_stamp`) while it is
    unchanged, the pointer read when its stamp differs."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self._stamp: tuple | None = None
        self._number = 0
        self._lock = threading.Lock()

    def current(self) -> int | None:
        """The current generation's number (0 for a store from before generations), or None
        when it cannot be read (then nothing is answered from memory)."""
        from ..store import GraphStore

        stamp = GraphStore.pointer_stamp(self.folder)
        if stamp is None:
            return None  # a store without a pointer file: no stat tells when it changes
        with self._lock:
            if stamp == self._stamp:
                return self._number
        from ..errors import KgError

        try:
            # read after the stat: a switch meanwhile changes the stamp again
            number = GraphStore.latest_generation(self.folder)
        except (KgError, OSError, ValueError):
            return None
        with self._lock:
            self._stamp, self._number = stamp, number
        return number


@dataclass(frozen=True)
class Lookup:
    """A request looked up: its key and the generation current when it came (None: not to be
    kept), and the answer kept for them (None: ask a worker)."""

    key: str | None = None
    generation: int | None = None
    answer: dict | None = None


class GenerationCache:
    """The answers of the store in ``folder``, kept for its current generation within ``max_bytes``."""

    def __init__(self, folder: str | Path, max_bytes: int = DEFAULT_ANSWER_BYTES) -> None:
        self.answers = AnswerCache(max_bytes)
        self.generations = Generations(folder)

    def lookup(self, msg: dict) -> Lookup:
        """The request's key and the generation current now, with the answer kept for them."""
        generation = self.generations.current()
        key = request_key(msg) if generation is not None else None
        if key is None or generation is None:
            return Lookup()
        return Lookup(key, generation, self.answers.get(generation, key))

    def keep(self, looked_up: Lookup, reply: dict) -> dict:
        """``reply`` without its ``generation``, kept when read from the generation that was
        current when the request came."""
        made = reply.pop("generation", None)
        if looked_up.key is not None and made == looked_up.generation:
            self.answers.put(made, looked_up.key, reply)
        return reply
