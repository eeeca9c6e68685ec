"""HTTP to another SPARQL 1.1 store, for ``kg push`` and ``kg query --endpoint``: :class:`Remote`.

No redirect is followed (credentials go to the URL given, nowhere else), every request has a
total deadline and its reply a size cap, authentication is Basic or Digest, and every
secret (a password, a token in the URL) is redacted from every message.
"""

from __future__ import annotations

import base64
import html
import json
import re
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Iterable, Mapping
from urllib.parse import parse_qsl, quote, quote_plus, unquote, unquote_plus, urlencode, urljoin, urlsplit, urlunsplit

import httpx

from .errors import StoreError, UsageError, safe_text

DEFAULT_TIMEOUT = 60.0
AUTH_METHODS = ("basic", "digest")
USER_AGENT = "kg-push"
MAX_REPLY_BYTES = 64 * 1024 * 1024  # a count query's answer is small; an endless one is refused
SHOWN_BODY_CHARS = 300  # of a server's error page, at most this much is shown (after redaction)
SHORT_SECRET = 4  # a secret shorter than this is hidden only where it stands alone (not inside words)
_CREDENTIAL_HEADERS = re.compile(r"(?i)\b(authorization|proxy-authorization|cookie|set-cookie|x-api-key|api-key|"
                                 r"x-auth-token)(\s*[:=]\s*)[^\r\n<]*")
_SCHEME_TOKENS = re.compile(r"(?i)\b(basic|bearer|digest)\s+[A-Za-z0-9._~+/=-]{4,}[^\r\n<]*")


def redact(url: str) -> str:
    """``url`` fit for a message or a log line: no user or password, and every query
    parameter's value hidden (``?api_key=...`` is a secret as often as not).

    >>> redact("https://user:pw@example.org/sparql?api_key=s3cret&graph=g#x")
    'https://example.org/sparql?api_key=***&graph=***'
    """
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host + (f":{parts.port}" if parts.port else "")
    query = "&".join(f"{name}=***" for name, _ in parse_qsl(parts.query, keep_blank_values=True))
    return safe_text(urlunsplit((parts.scheme, netloc, parts.path, query, "")), 200)


def _forms(value: str) -> set[str]:
    """``value`` as it may come back in a server's page: raw, percent-decoded, percent-encoded
    (as a path and as a form), and HTML-escaped."""
    forms = {value}
    for decoded in (unquote(value), unquote_plus(value)):
        forms |= {decoded, quote(decoded, safe=""), quote(decoded), quote_plus(decoded), html.escape(decoded)}
    return {form for form in forms if form}


def secrets_of(*urls: str | None, user: str | None = None, password: str | None = None) -> set[str]:
    """What must never be shown: every query-string value of ``urls``, their user names and
    passwords, ``user`` and ``password``, and the Basic token made of them, in every form of
    :func:`_forms`.

    >>> sorted(secrets_of("http://h/q?api_key=a%2Fb"))
    ['a%2Fb', 'a/b']
    """
    found: set[str] = set()
    for given in urls:
        if not given:
            continue
        parts = urlsplit(given)
        raw_values = [piece.partition("=")[2] for piece in parts.query.split("&") if piece]
        for value in raw_values + [parts.username or "", parts.password or ""]:
            if value:
                found |= _forms(value)
    for credential in (user, password):
        if credential:
            found |= _forms(credential)
    if user is not None and password is not None:
        found.add(base64.b64encode(f"{user}:{password}".encode("utf-8")).decode("ascii"))
    return found


def redact_text(text: str, secrets: Iterable[str], limit: int = SHOWN_BODY_CHARS) -> str:
    """``text`` from a server (an error page, a reason) fit for a message: credential headers
    and ``Basic``/``Bearer`` tokens hidden, every one of ``secrets`` hidden wherever it stands
    (case-insensitively, so ``%2f`` and ``%2F`` alike), whitespace folded to one line, then
    cut to ``limit`` characters and made safe for a terminal.

    >>> redact_text("GET /q?api_key=SEKRIT HTTP/1.1\\nAuthorization: Basic dTpw\\n", {"SEKRIT"})
    'GET /q?api_key=*** HTTP/1.1 Authorization: ***'
    """
    shown = _CREDENTIAL_HEADERS.sub(lambda m: m.group(1) + m.group(2) + "***", text)
    shown = _SCHEME_TOKENS.sub(lambda m: m.group(1) + " ***", shown)
    for secret in sorted(secrets, key=len, reverse=True):
        pattern = re.escape(secret)
        if len(secret) < SHORT_SECRET:
            pattern = rf"(?<![A-Za-z0-9]){pattern}(?![A-Za-z0-9])"
        shown = re.sub(pattern, "***", shown, flags=re.IGNORECASE)
    return safe_text(" ".join(shown.split()), limit)


class RemoteRefused(StoreError):
    """The remote server answered with an error status (``status``); the message holds its
    page, cut and redacted."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class Remote:
    """HTTP to one remote store, through httpx.

    - Redirects are never followed: a store that answers 3xx to an update or a PUT gets
      an error naming where it pointed (the body would be dropped or sent elsewhere, and
      credentials must not travel to another origin).
    - Every request has a total deadline (``timeout``), not only a timeout per read: a
      server that drips one byte at a time cannot hold a push for longer.
    - Replies are read up to ``MAX_REPLY_BYTES``.
    - Basic or Digest authentication (httpx's; Digest learns the challenge from a first
      cheap GET, so large bodies are sent once, with their Authorization header).
    - Every failure is one :class:`StoreError` line, with credentials and query-string
      values redacted.
    """

    def __init__(self, *, user: str | None = None, password: str | None = None,
                 auth: str = "basic", timeout: float = DEFAULT_TIMEOUT) -> None:
        if auth not in AUTH_METHODS:
            raise UsageError(f"--auth must be one of {', '.join(AUTH_METHODS)}")
        if (user is None) != (password is None):
            raise UsageError("give both --user and --password (or neither)")
        if timeout <= 0:
            raise UsageError("--timeout must be positive")
        self.timeout = timeout
        self.requests = 0
        self._auth: httpx.Auth | None = None
        if user is not None:
            self._auth = (httpx.BasicAuth(user, password or "") if auth == "basic"
                          else httpx.DigestAuth(user, password or ""))
        self._digest_primed = auth != "digest"
        self._secrets = secrets_of(user=user, password=password)
        self._client = self._new_client()

    def hide(self, *urls: str | None) -> None:
        """Also hide the query-string values and credentials of ``urls`` in every message."""
        self._secrets |= secrets_of(*urls)

    def _redact(self, text: str, url: str, limit: int = SHOWN_BODY_CHARS) -> str:
        """A server's text, cut and with every secret known for ``url`` hidden."""
        return redact_text(text, self._secrets | secrets_of(url), limit)

    def _new_client(self) -> httpx.Client:
        return httpx.Client(timeout=httpx.Timeout(self.timeout), follow_redirects=False, auth=self._auth,
                            headers={"User-Agent": USER_AGENT}, trust_env=False)

    def close(self) -> None:
        self._client.close()

    def _exchange(self, method: str, url: str, body: bytes | None, headers: Mapping[str, str]) -> tuple[int, dict, bytes]:
        """One request, its status, headers and (capped) body; runs in a helper thread."""
        with self._client.stream(method, url, content=body, headers=dict(headers)) as response:
            data = bytearray()
            for chunk in response.iter_bytes():
                data += chunk
                if len(data) > MAX_REPLY_BYTES:
                    raise _TooLarge()
            return response.status_code, dict(response.headers), bytes(data)

    def _send(self, method: str, url: str, body: bytes | None, headers: Mapping[str, str]) -> bytes:
        shown = f"{method} {redact(url)}"
        worker = ThreadPoolExecutor(1)
        future = worker.submit(self._exchange, method, url, body, headers)
        try:
            status, reply_headers, data = future.result(timeout=self.timeout)
        except FutureTimeout:
            self._client.close()  # ends the exchange in its thread; the next request gets a new client
            self._client = self._new_client()
            raise StoreError(f"{shown}: no answer within {self.timeout:g} s (a deadline for the whole exchange)") from None
        except _TooLarge:
            raise StoreError(f"{shown}: the answer is larger than {MAX_REPLY_BYTES // (1024 * 1024)} MiB") from None
        except httpx.ConnectError as err:
            raise StoreError(f"cannot reach {redact(url)}: {self._redact(_reason(err), url, 200)}") from None
        except httpx.TimeoutException:
            raise StoreError(f"{shown}: no answer within {self.timeout:g} s") from None
        except (httpx.HTTPError, OSError) as err:  # broken status lines, short bodies, resets...
            raise StoreError(f"{shown}: {type(err).__name__}: {self._redact(_reason(err), url, 200)}") from None
        finally:
            worker.shutdown(wait=False)
        if 300 <= status < 400:
            where = reply_headers.get("location")
            target = f" to {redact(urljoin(url, where))}" if where else ""
            raise RemoteRefused(f"{shown}: HTTP {status} redirect{target}, not followed (kg follows no redirect: "
                                "a redirected update or PUT is dropped or sent elsewhere, credentials go to the "
                                "named URL only): give the URL it points to", status)
        if not 200 <= status < 300:
            hint = " (check --user/--password/--auth)" if status in (401, 403) else ""
            page = self._redact(_page_text(data[:64 * 1024]), url)
            raise RemoteRefused(f"{shown}: HTTP {status}{hint}: {page}", status)
        return data

    def request(self, method: str, url: str, body: bytes | None = None,
                headers: Mapping[str, str] | None = None) -> bytes:
        self.requests += 1
        if not self._digest_primed:
            self._digest_primed = True
            try:  # a cheap GET: the Digest challenge is learnt before any large body is sent
                self._send("GET", url, None, {})
            except StoreError:
                pass  # a query endpoint may refuse a bare GET; the challenge is still learnt
        return self._send(method, url, body, headers or {})

    def update(self, endpoint: str, text: str) -> None:
        self.request("POST", endpoint, urlencode({"update": text}).encode("utf-8"),
                     {"Content-Type": "application/x-www-form-urlencoded; charset=UTF-8"})

    def select(self, endpoint: str, text: str) -> list[dict]:
        raw = self.request("POST", endpoint, urlencode({"query": text}).encode("utf-8"),
                           {"Content-Type": "application/x-www-form-urlencoded; charset=UTF-8",
                            "Accept": "application/sparql-results+json"})
        try:
            return json.loads(raw)["results"]["bindings"]
        except (ValueError, KeyError, TypeError):
            raise StoreError(f"{redact(endpoint)} did not answer with SPARQL JSON results") from None

    def put(self, url: str, body: bytes, media_type: str) -> None:
        self.request("PUT", url, body, {"Content-Type": media_type})


class _TooLarge(Exception):
    pass


_TAGS = re.compile(r"<(script|style)\b.*?</\1\s*>|<[^>]*>", re.IGNORECASE | re.DOTALL)


def _page_text(data: bytes) -> str:
    """A server's error page as text: HTML tags (and scripts and styles) dropped, entities
    decoded (a secret is then hidden in one form, whatever the page escaped).

    >>> _page_text(b"<h1>Not found</h1><p>/q?key=a&amp;b</p>")
    ' Not found  /q?key=a&b '
    """
    text = data.decode("utf-8", "replace")
    if "<" in text and ">" in text:
        text = html.unescape(_TAGS.sub(" ", text))
    return text


def _reason(err: BaseException) -> str:
    """The innermost cause's text, without the URL httpx puts in some messages."""
    while err.__cause__ is not None or err.__context__ is not None:
        err = err.__cause__ or err.__context__  # type: ignore[assignment]
    return str(err) or type(err).__name__


def check_url(url: str, option: str) -> str:
    """``url`` when it is an http(s) URL without credentials in it; else UsageError naming ``option``."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise UsageError(f"{option} must be an http(s) URL, got {redact(url)!r}")
    if parts.username or parts.password:
        raise UsageError(f"{option}: pass credentials with --user/--password, not in the URL")
    return url


__all__ = ["AUTH_METHODS", "DEFAULT_TIMEOUT", "Remote", "RemoteRefused", "check_url", "redact", "redact_text",
           "secrets_of"]
