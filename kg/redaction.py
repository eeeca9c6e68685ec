"""Secrets kept out of messages: a URL's credentials and query values, and every encoding of a
password or token that a remote server's page may echo.

A server that fails may print back what it was sent: the decoded Basic password, the
``Authorization`` header, the query string. What kg shows of such a page passes through
:func:`shown_page`, which hides each secret in every form it may take there *before* the page
is read as text:

* the raw bytes of the body first, in every byte encoding of every form (UTF-8, latin-1 and
  cp1252, and UTF-8 read as latin-1 and written again as UTF-8, the usual mojibake), so a
  latin-1 echo of ``pässwörd`` is hidden as surely as a UTF-8 one;
* the forms: raw, percent-decoded, percent-encoded (path and form style, UTF-8 and latin-1),
  HTML-escaped, JSON-escaped, what HTML tag stripping leaves of it (``ab<c>de`` -> ``ab de``),
  and the Basic token (base64 of ``user:password``, padded or not, URL-safe or not);
* then the page's tags are dropped and its entities decoded, and the text is hidden again
  (so ``&#60;`` or any entity spelling is hidden too), folded to one line and cut.

Tags are never stripped before the secrets are hidden: ``ab<c>de`` shown as ``ab de`` would
print a password's pieces.
"""

from __future__ import annotations

import base64
import html
import json
import re
from typing import Iterable
from urllib.parse import parse_qsl, quote, quote_plus, unquote, unquote_plus, urlsplit, urlunsplit

from .errors import safe_text

SHOWN_BODY_CHARS = 300  # of a server's error page, at most this much is shown (after redaction)
READ_PAGE_BYTES = 64 * 1024  # of an error page, this much is read (a secret across the cut is still hidden)
SHORT_SECRET = 4  # a secret shorter than this is hidden only where it stands alone (not inside words)
HIDDEN = "***"
_CREDENTIAL_HEADERS = re.compile(r"(?i)\b(authorization|proxy-authorization|cookie|set-cookie|x-api-key|api-key|"
                                 r"x-auth-token)(\s*[:=]\s*)[^\r\n<]*")
_SCHEME_TOKENS = re.compile(r"(?i)\b(basic|bearer|digest)\s+[A-Za-z0-9._~+/=-]{4,}[^\r\n<]*")
_TAGS = re.compile(r"<(script|style)\b.*?</\1\s*>|<[^>]*>", re.IGNORECASE | re.DOTALL)
_BYTE_ENCODINGS = ("utf-8", "latin-1", "cp1252")


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
    query = "&".join(f"{name}={HIDDEN}" for name, _ in parse_qsl(parts.query, keep_blank_values=True))
    return safe_text(urlunsplit((parts.scheme, netloc, parts.path, query, "")), 200)


def stripped(text: str) -> str:
    """``text`` as an HTML page's text: tags (and scripts and styles) dropped, entities decoded.

    >>> stripped("<h1>Not found</h1><p>/q?key=a&amp;b</p>")
    ' Not found  /q?key=a&b '
    """
    if "<" in text and ">" in text:
        text = _TAGS.sub(" ", text)
    return html.unescape(text)


def _forms(value: str) -> set[str]:
    """``value`` as it may come back in a server's page (see the module's docstring)."""
    forms = {value}
    for decoded in (unquote(value), unquote_plus(value)):
        forms |= {decoded, quote(decoded, safe=""), quote(decoded), quote_plus(decoded), html.escape(decoded),
                  html.escape(decoded, quote=False), json.dumps(decoded)[1:-1],
                  json.dumps(decoded, ensure_ascii=False)[1:-1], " ".join(stripped(decoded).split())}
        try:
            forms |= {quote(decoded, safe="", encoding="latin-1"), quote_plus(decoded, encoding="latin-1")}
        except UnicodeEncodeError:
            pass
    return {form for form in forms if form.strip()}


def _basic_tokens(user: str, password: str) -> set[str]:
    """The Basic token of ``user:password`` as a server may print it back."""
    found = set()
    for encoding in _BYTE_ENCODINGS:
        try:
            pair = f"{user}:{password}".encode(encoding)
        except UnicodeEncodeError:
            continue
        for token in (base64.b64encode(pair), base64.urlsafe_b64encode(pair)):
            found |= {token.decode("ascii"), token.rstrip(b"=").decode("ascii")}
    return found


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
        found |= _basic_tokens(user, password)
    return found


def _pattern(secret: str) -> str:
    pattern = re.escape(secret)
    if len(secret) < SHORT_SECRET:
        pattern = rf"(?<![A-Za-z0-9]){pattern}(?![A-Za-z0-9])"
    return pattern


def _hidden(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every one of ``secrets`` (longest first) replaced, case-insensitively."""
    for secret in sorted(set(secrets), key=len, reverse=True):
        text = re.sub(_pattern(secret), HIDDEN, text, flags=re.IGNORECASE)
    return text


def _byte_forms(secret: str) -> set[bytes]:
    """``secret`` in every byte encoding a page may carry it in."""
    found = set()
    for encoding in _BYTE_ENCODINGS:
        try:
            found.add(secret.encode(encoding))
        except UnicodeEncodeError:
            pass
    found.add(secret.encode("utf-8").decode("latin-1").encode("utf-8"))  # UTF-8 read as latin-1, written again
    return found


def _hidden_bytes(data: bytes, secrets: Iterable[str]) -> bytes:
    """``data`` with every byte form of every secret replaced (ASCII letters in any case)."""
    forms = {form for secret in secrets for form in _byte_forms(secret)}
    for form in sorted(forms, key=len, reverse=True):
        text = form.decode("latin-1")  # a byte pattern built like the text one: escaped, short ones alone
        pattern = _pattern(text).encode("latin-1")
        data = re.sub(pattern, HIDDEN.encode(), data, flags=re.IGNORECASE)
    return data


def redact_text(text: str, secrets: Iterable[str], limit: int = SHOWN_BODY_CHARS) -> str:
    """``text`` from a server (an error page's text, a reason) fit for a message: credential
    headers and ``Basic``/``Bearer`` tokens hidden, every one of ``secrets`` hidden wherever it
    stands (case-insensitively, so ``%2f`` and ``%2F`` alike), whitespace folded to one line,
    then cut to ``limit`` characters and made safe for a terminal.

    >>> redact_text("GET /q?api_key=SEKRIT HTTP/1.1\\nAuthorization: Basic dTpw\\n", {"SEKRIT"})
    'GET /q?api_key=*** HTTP/1.1 Authorization: ***'
    """
    shown = _CREDENTIAL_HEADERS.sub(lambda m: m.group(1) + m.group(2) + HIDDEN, text)
    shown = _SCHEME_TOKENS.sub(lambda m: m.group(1) + " " + HIDDEN, shown)
    shown = _hidden(shown, secrets)
    return safe_text(" ".join(shown.split()), limit)


def shown_page(data: bytes, secrets: Iterable[str], limit: int = SHOWN_BODY_CHARS) -> str:
    """A server's page (``data``, its raw body) as one line fit for a message: every secret
    hidden in the raw bytes and in the text, before and after the tags are stripped.

    >>> shown_page(b"<p>bad password: ab<c>de</p>", {"ab<c>de"})
    'bad password: ***'
    >>> shown_page("<p>bad password: p\\u00e4ss</p>".encode("latin-1"), secrets_of(password="p\\u00e4ss"))
    'bad password: ***'
    """
    secrets = set(secrets)
    longest = max((len(form) for secret in secrets for form in _byte_forms(secret)), default=0)
    data = _hidden_bytes(data[:READ_PAGE_BYTES + longest], secrets)[:READ_PAGE_BYTES]
    text = _hidden(data.decode("utf-8", "replace"), secrets)
    return redact_text(stripped(text), secrets, limit)


__all__ = ["HIDDEN", "SHOWN_BODY_CHARS", "redact", "redact_text", "secrets_of", "shown_page", "stripped"]
