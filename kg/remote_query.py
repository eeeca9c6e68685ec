"""Named queries asked of a remote SPARQL 1.1 endpoint, answered in the same pyoxigraph
result types as the embedded store, so the same rows come out.

:class:`Endpoint` has the two methods :func:`kg.queries.run` needs of a store, ``query``
and ``select``. The query text is the one the embedded store gets: parameters bound by
:func:`kg.sparql.binding.bind` (each value serialised and escaped as a SPARQL literal or
IRI by pyoxigraph, never pasted as text). The endpoint must answer over the union of its
named graphs, as ``oxigraph serve --union-default-graph`` does after ``kg push``; on first
contact :class:`Endpoint` asks whether it does (:data:`_DEFAULT_GRAPH_CHECK`), and where the named
graphs hold the catalog but the default graph does not, every query is one :class:`DefaultGraphNotUnion`
error saying how to configure the store, never an empty answer.

Virtuoso 7 writes an ``xsd:boolean`` as ``"1"`` or ``"0"``, lexical forms the type allows; they
are read as the canonical ``true`` and ``false`` (:func:`canonical_booleans`), so a boolean
column reads the same from every store.

HTTP: the SPARQL 1.1 Protocol request (a form POST of ``query``) goes through kg's one HTTP
client, :class:`kg.remote_http.Remote` (httpx), as ``kg push``'s do: a total deadline for each
request (``timeout``, default :data:`DEFAULT_TIMEOUT` s: a server that drips its answer a
byte at a time cannot hold it longer), no redirect followed (credentials go to the named
endpoint only), Basic or Digest authentication, answers capped at 64 MiB, and every failure
one line with credentials, query-string values and what the server echoed of them redacted.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote, urlencode, urlsplit, urlunsplit

from pyoxigraph import QueryBoolean, RdfFormat, parse

from .errors import QueryError, StoreError, UsageError
from .remote_http import AUTH_METHODS, Remote, RemoteRefused, Reply, redact, redact_text, secrets_of
from .remote_results import checked_solutions
from .sparql.lexer import query_form
from .store import GraphStore
from .vocab import KG, XSD

DEFAULT_TIMEOUT = 60.0
_CONSTRUCT_ALL = "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }"
_FORM = "application/x-www-form-urlencoded; charset=UTF-8"
# N-Triples first: Virtuoso 7 writes a whole-number xsd:decimal in Turtle as a bare 55, an integer; N-Triples
# spells every datatype out (and a Turtle parser reads either). Solutions: JSON first; XML and TSV are read too
# (by their Content-Type), CSV is refused
_ACCEPT = {"graph": "application/n-triples, text/turtle;q=0.9",
           "solutions": "application/sparql-results+json, application/sparql-results+xml;q=0.9, "
                        "text/tab-separated-values;q=0.8"}
#: Asked once of each endpoint: whether systems are seen in its default graph, and else in a named graph.
_DEFAULT_GRAPH_CHECK = (f"ASK {{ ?s a {KG.System} }}", f"ASK {{ GRAPH ?g {{ ?s a {KG.System} }} }}")
_BOOLEAN_FORMS = {"1": "true", "0": "false"}


class DefaultGraphNotUnion(StoreError):
    """The endpoint's named graphs hold the catalog, its default graph does not: kg's named queries
    would answer nothing there."""


def canonical_booleans(body: bytes) -> bytes:
    """SPARQL JSON results with every ``xsd:boolean`` written ``"1"``/``"0"`` (Virtuoso 7's forms)
    rewritten ``"true"``/``"false"``; anything else, and a body that is not JSON, left as it is.

    >>> canonical_booleans(b'{"head":{"vars":["b"]},"results":{"bindings":[{"b":{"type":"typed-literal",'
    ...                    b'"datatype":"http://www.w3.org/2001/XMLSchema#boolean","value":"1"}}]}}')
    b'{"head": {"vars": ["b"]}, "results": {"bindings": [{"b": {"type": "typed-literal", "datatype": "http://www.w3.org/2001/XMLSchema#boolean", "value": "true"}}]}}'
    """
    if XSD.boolean.value.encode() not in body:
        return body
    try:
        answer = json.loads(body)
        bindings = answer["results"]["bindings"]
    except (ValueError, KeyError, TypeError):
        return body
    changed = False
    for row in bindings if isinstance(bindings, list) else ():
        for term in row.values() if isinstance(row, dict) else ():
            if isinstance(term, dict) and term.get("datatype") == XSD.boolean.value \
                    and term.get("value") in _BOOLEAN_FORMS:
                term["value"] = _BOOLEAN_FORMS[term["value"]]
                changed = True
    return json.dumps(answer).encode("utf-8") if changed else body


def _split_credentials(url: str) -> tuple[str, str | None, str | None]:
    """``url`` without its user and password, and those two (percent-decoded; None when absent)."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url, None, None
    netloc = parts.netloc.rpartition("@")[2]
    user = unquote(parts.username) if parts.username is not None else None
    password = unquote(parts.password) if parts.password is not None else None
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment)), user, password


class Endpoint:
    """A remote SPARQL 1.1 query endpoint (read-only use)."""

    def __init__(self, url: str, *, user: str | None = None, password: str | None = None,
                 auth: str = "basic", timeout: float = DEFAULT_TIMEOUT) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise QueryError(f"--endpoint must be an http(s) URL, not {redact(url)!r}")
        if auth not in AUTH_METHODS:
            raise QueryError("auth must be basic or digest")
        url, url_user, url_password = _split_credentials(url)
        if user is None and url_user is not None:  # credentials in the URL: used, never shown
            user, password = url_user, url_password or ""
        self.url, self.timeout, self.auth = url, timeout, auth
        self.user, self.password = user, password
        self._secrets = secrets_of(url, user=user, password=password)
        try:
            self._remote = Remote(user=user, password=password if user is not None else None, auth=auth,
                                  timeout=timeout)
        except UsageError as err:
            raise QueryError(str(err)) from None
        self._remote.hide(url)
        self._default_graph_checked = False

    def close(self) -> None:
        """Close the HTTP client (its connections)."""
        self._remote.close()

    def _fetch(self, text: str, graph: bool) -> Reply:
        """The endpoint's answer to ``text`` (its body and media type); a 400 is the query's
        fault (QueryError), any other failure a StoreError."""
        body = urlencode({"query": text}).encode("utf-8")
        headers = {"Content-Type": _FORM, "Accept": _ACCEPT["graph" if graph else "solutions"]}
        try:
            return self._remote.exchange("POST", self.url, body, headers)
        except RemoteRefused as err:
            if err.status == 400:
                raise QueryError(f"{redact(self.url)} refused the query: {err}") from None
            raise

    def query(self, text: str) -> Any:
        """SELECT and ASK as pyoxigraph ``QuerySolutions`` / ``QueryBoolean``, CONSTRUCT and
        DESCRIBE as ``QueryTriples``, like :meth:`kg.store.GraphStore.query`."""
        form = query_form(text)
        if form not in ("SELECT", "ASK", "CONSTRUCT", "DESCRIBE"):
            raise QueryError("an endpoint is only queried here (SELECT, ASK, CONSTRUCT, DESCRIBE); "
                             "SPARQL Update goes through kg push")
        graph = form in ("CONSTRUCT", "DESCRIBE")
        self._check_default_graph()
        reply = self._fetch(text, graph)
        if not graph:  # read whole and checked here: a malformed row is exit 4 naming the endpoint, never a bug
            return checked_solutions(canonical_booleans(reply.body), reply.media_type, form, self.url, self._secrets)
        body = reply.body
        try:
            held = GraphStore()  # the triples, answered as QueryTriples like the embedded store's
            held.add(parse(body, format=RdfFormat.TURTLE))
            return held.query(_CONSTRUCT_ALL)
        except (SyntaxError, ValueError) as err:
            raise StoreError(f"{redact(self.url)} sent an answer that is not SPARQL results: "
                             f"{redact_text(str(err), self._secrets, 200)}") from None

    def _check_default_graph(self) -> None:
        """On first contact: a :class:`DefaultGraphNotUnion` error where the catalog's systems are in
        named graphs but not in the default graph (a store without a union default graph)."""
        if self._default_graph_checked:
            return
        in_default = self._ask(_DEFAULT_GRAPH_CHECK[0])
        if in_default is False and self._ask(_DEFAULT_GRAPH_CHECK[1]) is True:
            raise DefaultGraphNotUnion(
                f"{redact(self.url)}: its named graphs hold the catalog but its default graph does not, and kg's "
                "named queries read the default graph as the union of the named graphs: configure the store so "
                "(Fuseki/TDB2: tdb2:unionDefaultGraph true; oxigraph serve --union-default-graph; Virtuoso does "
                "by default), see docs/guide/push.md")
        self._default_graph_checked = True

    def _ask(self, text: str) -> bool | None:
        """The endpoint's answer to an ASK, in any results format kg accepts (None where it is not a
        boolean): read as JSON alone, an XML answer (Jena's front, any server that prefers it) once
        passed the check unseen."""
        reply = self._fetch(text, False)
        try:
            answer = checked_solutions(canonical_booleans(reply.body), reply.media_type, "ASK", self.url,
                                       self._secrets)
        except StoreError:
            return None
        return bool(answer) if isinstance(answer, QueryBoolean) else None

    def select(self, text: str) -> list[dict[str, Any]]:
        """SELECT rows as dicts of variable name -> term (unbound variables left out)."""
        result = self.query(text)
        names = [v.value for v in result.variables]
        return [{n: v for n, v in zip(names, row) if v is not None} for row in result]
