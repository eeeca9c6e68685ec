"""Named queries asked of a remote SPARQL 1.1 endpoint through SPARQLWrapper, answered in
the same pyoxigraph result types as the embedded store, so the same rows come out.

:class:`Endpoint` has the two methods :func:`kg.queries.run` needs of a store, ``query``
and ``select``. The query text is the one the embedded store gets: parameters bound by
:func:`kg.sparql.binding.bind` (each value serialised and escaped as a SPARQL literal or
IRI by pyoxigraph, never pasted as text). The endpoint must answer over the union of its
named graphs, as ``oxigraph serve --union-default-graph`` does after ``kg push``.

HTTP: SPARQLWrapper builds the request; kg sends it through its own urllib opener, which
never follows a redirect (urllib's default handler would resend an ``Authorization``
header to whatever origin a redirect names) and holds credentials for the endpoint's URL
alone (SPARQLWrapper's own digest support installs a process-wide opener). Answers are
capped at 64 MiB; every failure is a StoreError of one line, credentials redacted.
"""

from __future__ import annotations

import base64
import socket
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pyoxigraph import QueryResultsFormat, RdfFormat, parse, parse_query_results

from .errors import QueryError, StoreError, safe_text
from .sparql.lexer import query_form
from .store import GraphStore

MAX_ANSWER_BYTES = 64 * 1024 * 1024
_CONSTRUCT_ALL = "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }"


class RedirectRefused(urllib.error.URLError):
    """The endpoint answered with a redirect, which kg does not follow."""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> None:
        raise RedirectRefused(f"the endpoint answered {code} with a redirect to {_redacted(newurl)}; "
                              "kg follows no redirect (credentials go to the named endpoint only): give that URL")


def _redacted(url: str) -> str:
    """``url`` without user, password or query string (never printed)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = host + (f":{parts.port}" if parts.port else "")
    return safe_text(urlunsplit((parts.scheme, netloc, parts.path, "", "")), 200)


class Endpoint:
    """A remote SPARQL 1.1 query endpoint (read-only use)."""

    def __init__(self, url: str, *, user: str | None = None, password: str | None = None,
                 auth: str = "basic", timeout: float = 60.0) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise QueryError(f"--endpoint must be an http(s) URL, not {_redacted(url)!r}")
        if auth not in ("basic", "digest"):
            raise QueryError("auth must be basic or digest")
        self.url, self.timeout, self.auth = url, timeout, auth
        self.user, self.password = user, password
        handlers: list[Any] = [_NoRedirect()]
        if user and password and auth == "digest":
            passwords = urllib.request.HTTPPasswordMgrWithDefaultRealm()
            passwords.add_password(None, url, user, password)  # this URL (and below it) only
            handlers.append(urllib.request.HTTPDigestAuthHandler(passwords))
        self._opener = urllib.request.build_opener(*handlers)

    def _request(self, text: str, form: str) -> urllib.request.Request:
        from SPARQLWrapper import JSON, POST, TURTLE, SPARQLWrapper

        graph = form in ("CONSTRUCT", "DESCRIBE")
        wrapper = SPARQLWrapper(self.url)
        wrapper.setMethod(POST)
        wrapper.setQuery(text)
        wrapper.queryType = form  # our lexer's reading: SPARQLWrapper's own can take a comment for an update
        wrapper.setReturnFormat(TURTLE if graph else JSON)
        request = wrapper._createRequest()  # the SPARQL 1.1 protocol request, credentials not yet added
        if self.user and self.password and self.auth == "basic":
            token = base64.b64encode(f"{self.user}:{self.password}".encode("utf-8")).decode("ascii")
            request.add_unredirected_header("Authorization", f"Basic {token}")
        return request

    def _fetch(self, text: str, form: str) -> bytes:
        request = self._request(text, form)
        where = _redacted(self.url)
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                body: bytes = response.read(MAX_ANSWER_BYTES + 1)
        except RedirectRefused as err:
            raise StoreError(f"{where}: {err.reason}") from None
        except urllib.error.HTTPError as err:
            detail = safe_text(err.read(300).decode("utf-8", "replace").strip().splitlines()[0:1] or [""], 200)
            if err.code == 400:
                raise QueryError(f"{where} refused the query (400): {detail}") from None
            raise StoreError(f"{where} answered {err.code} {safe_text(err.reason, 80)}") from None
        except (urllib.error.URLError, socket.timeout, OSError) as err:
            reason = getattr(err, "reason", err)
            raise StoreError(f"cannot reach {where}: {safe_text(reason, 200)}") from None
        if len(body) > MAX_ANSWER_BYTES:
            raise StoreError(f"{where}: the answer is larger than {MAX_ANSWER_BYTES // (1024 * 1024)} MiB")
        return body

    def query(self, text: str) -> Any:
        """SELECT and ASK as pyoxigraph ``QuerySolutions`` / ``QueryBoolean``, CONSTRUCT and
        DESCRIBE as ``QueryTriples``, like :meth:`kg.store.GraphStore.query`."""
        form = query_form(text)
        if form not in ("SELECT", "ASK", "CONSTRUCT", "DESCRIBE"):
            raise QueryError("an endpoint is only queried here (SELECT, ASK, CONSTRUCT, DESCRIBE); "
                             "SPARQL Update goes through kg push")
        graph = form in ("CONSTRUCT", "DESCRIBE")
        body = self._fetch(text, form)
        try:
            if not graph:
                return parse_query_results(body, format=QueryResultsFormat.JSON)
            held = GraphStore()  # the triples, answered as QueryTriples like the embedded store's
            held.add(parse(body, format=RdfFormat.TURTLE))
            return held.query(_CONSTRUCT_ALL)
        except (SyntaxError, ValueError) as err:
            raise StoreError(f"{_redacted(self.url)} sent an answer that is not SPARQL results: "
                             f"{safe_text(err, 200)}") from None

    def select(self, text: str) -> list[dict[str, Any]]:
        """SELECT rows as dicts of variable name -> term (unbound variables left out)."""
        result = self.query(text)
        names = [v.value for v in result.variables]
        return [{n: v for n, v in zip(names, row) if v is not None} for row in result]
