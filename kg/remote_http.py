"""HTTP to another SPARQL 1.1 store, for ``kg push`` and ``kg query --endpoint``: :class:`Remote`.

No redirect is followed (credentials go to the URL given, nowhere else), every request has a
total deadline and its reply a size cap, authentication is Basic or Digest, and every
secret (a password, a token in the URL) is redacted from every message, in every encoding a
server may echo it in (:mod:`kg.redaction`).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Mapping, NamedTuple
from urllib.parse import urlencode, urljoin, urlsplit

import httpx

from .errors import StoreError, UsageError
from .redaction import SHOWN_BODY_CHARS, redact, redact_text, secrets_of, shown_page
from .remote_results import binding_rows

DEFAULT_TIMEOUT = 60.0
AUTH_METHODS = ("basic", "digest")
USER_AGENT = "kg-push"
MAX_REPLY_BYTES = 64 * 1024 * 1024  # a count query's answer is small; an endless one is refused
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
        self.server = ""  # the Server header of the last answer (kg push adapts to Virtuoso's storage)
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

    def _send(self, method: str, url: str, body: bytes | None, headers: Mapping[str, str]) -> Reply:
        shown = f"{method} {redact(url)}"
        worker = ThreadPoolExecutor(1)
        future = worker.submit(self._exchange, method, url, body, headers)
        try:
            status, reply_headers, data = future.result(timeout=self.timeout)
            self.server = str(reply_headers.get("server", ""))
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
            page = shown_page(data, self._secrets | secrets_of(url))  # hidden before any tag is stripped
            raise RemoteRefused(f"{shown}: HTTP {status}{hint}: {page}", status)
        return Reply(data, reply_headers.get("content-type", ""))

    def request(self, method: str, url: str, body: bytes | None = None,
                headers: Mapping[str, str] | None = None) -> bytes:
        """The body of a 2xx answer to one request (any other is a StoreError line)."""
        return self.exchange(method, url, body, headers).body

    def exchange(self, method: str, url: str, body: bytes | None = None,
                 headers: Mapping[str, str] | None = None) -> Reply:
        """A 2xx answer to one request: its body and media type (any other is a StoreError line)."""
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
        """A SELECT's rows as SPARQL JSON bindings, the answer checked whole first (a malformed
        one is a StoreError naming the endpoint: :mod:`kg.remote_results`)."""
        reply = self.exchange("POST", endpoint, urlencode({"query": text}).encode("utf-8"),
                              {"Content-Type": "application/x-www-form-urlencoded; charset=UTF-8",
                               "Accept": "application/sparql-results+json"})
        return binding_rows(reply.body, reply.media_type, endpoint, self._secrets | secrets_of(endpoint))

    def put(self, url: str, body: bytes, media_type: str) -> None:
        self.request("PUT", url, body, {"Content-Type": media_type})


class Reply(NamedTuple):
    """A 2xx answer: its body and the media type its ``Content-Type`` names ("" when none)."""

    body: bytes
    media_type: str


class _TooLarge(Exception):
    pass


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


__all__ = ["AUTH_METHODS", "DEFAULT_TIMEOUT", "Remote", "RemoteRefused", "Reply", "check_url", "redact",
           "redact_text", "secrets_of"]
