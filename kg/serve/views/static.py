"""``/static/...`` and ``/favicon.ico``: the files the pages load from this origin: the query editor (YASGUI, its
script and style sheet, vendored with its licence in ``kg/serve/static/yasgui``) and the
script that sets it up for this server. Nothing is loaded from elsewhere.

Only the files shipped in the package are served, by their exact names; they change only with
the package, so a browser keeps them for a day (and revalidates by ETag).

>>> answer("nowhere.js")["status"]
Traceback (most recent call last):
...
kg.serve.replies.Reply: no such file
"""

from __future__ import annotations

import importlib.resources
from functools import cache

from ..replies import Reply
from ..request import Request

TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".txt": "text/plain; charset=utf-8",
         ".json": "application/json", ".svg": "image/svg+xml"}


@cache
def files() -> dict[str, bytes]:
    """Every file under ``kg/serve/static``, by its path there (``yasgui/yasgui.min.js``)."""
    found: dict[str, bytes] = {}

    def walk(folder: importlib.resources.abc.Traversable, prefix: str) -> None:
        for entry in folder.iterdir():
            if entry.is_dir():
                walk(entry, f"{prefix}{entry.name}/")
            elif any(entry.name.endswith(ext) for ext in TYPES):
                found[prefix + entry.name] = entry.read_bytes()

    walk(importlib.resources.files("kg.serve") / "static", "")
    return found


def respond(service: object, request: Request) -> dict:
    """The file the path names (``/favicon.ico``: the site's icon)."""
    return answer(request.path_params.get("file", "favicon.svg"))


def answer(name: str) -> dict:
    """The file ``name`` (a path under ``/static/``), or 404."""
    body = files().get(name)
    if body is None:
        raise Reply(404, "not-found", "no such file")
    kind = next(t for ext, t in TYPES.items() if name.endswith(ext))
    return {"status": 200, "type": kind, "body": body, "headers": {"Cache-Control": "public, max-age=86400"}}
