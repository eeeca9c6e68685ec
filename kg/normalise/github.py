"""GitHub cells: the owner/repository a cell names, and its star count."""

from __future__ import annotations

import re

from .text import MAX_TEXT, clean, is_not_applicable_text

# github.com/<first segment> pages that are GitHub's own, not an account.
GITHUB_RESERVED = frozenset(
    {
        "about", "apps", "blog", "codespaces", "collections", "contact", "copilot", "customer-stories",
        "enterprise", "events", "explore", "features", "login", "join", "marketplace", "new",
        "notifications", "orgs", "pricing", "pulls", "issues", "readme", "resources", "search",
        "security", "settings", "site", "solutions", "sponsors", "team", "topics", "trending", "users",
    }
)
OWNER_PATTERN = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})"
_REPO = r"[A-Za-z0-9._-]{1,100}"
_GITHUB_URL_RE = re.compile(
    rf"(?:https?://)?(?:www\.)?github\.com/(?P<owner>{OWNER_PATTERN})(?:/(?P<repo>{_REPO}))?", re.IGNORECASE
)
_LEADING_PAIR_RE = re.compile(rf"^(?P<owner>{OWNER_PATTERN})/(?P<repo>{_REPO})(?=$|[\s,;()—–])")
_PARENTHESISED_PAIR_RE = re.compile(rf"\((?P<owner>{OWNER_PATTERN})/(?P<repo>{_REPO})\)")


def _owner_repo(owner: str | None, repo: str | None) -> tuple[str, str] | None:
    if not owner or not repo or owner.lower() in GITHUB_RESERVED:
        return None
    if repo.lower().endswith(".git"):
        repo = repo[:-4]
    if repo in ("", ".", ".."):
        return None
    return owner, repo


def github_repo(text: str, citation: str | None) -> tuple[str, str] | None:
    """(owner, repo) from the gh cell: its citation URL first, then its text.

    >>> github_repo("huggingface/smolagents — ~28.8k stars", None)
    ('huggingface', 'smolagents')
    >>> github_repo("871★ +10/mo Python", "https://github.com/WujiangXu/A-mem")
    ('WujiangXu', 'A-mem')
    >>> github_repo("github.com/toyotaresearchinstitute — multiple repos", None) is None
    True
    """
    if isinstance(citation, str):
        m = _GITHUB_URL_RE.search(citation[:MAX_TEXT])
        if m and (pair := _owner_repo(m.group("owner"), m.group("repo"))):
            return pair
    cleaned = clean(text)
    if not cleaned or is_not_applicable_text(cleaned.lower()):
        return None
    m = _GITHUB_URL_RE.match(cleaned) or _LEADING_PAIR_RE.match(cleaned)
    if m and (pair := _owner_repo(m.group("owner"), m.group("repo"))):
        return pair
    # "github.com/…" later in the text, or "9.9k★ (DeusData/codebase-memory-mcp)".
    for m in [*_GITHUB_URL_RE.finditer(cleaned), *_PARENTHESISED_PAIR_RE.finditer(cleaned)]:
        if pair := _owner_repo(m.group("owner"), m.group("repo")):
            return pair
    return None


_STARS_RE = re.compile(
    r"(?P<bound><\s*)?(?<![\w.])~?\s*(?P<n>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*(?P<mult>[kKmM])?\+?\s*"
    r"(?:★|(?:github\s+)?stars?\b)",
    re.IGNORECASE,
)


def github_stars(text: str) -> int | None:
    """The (first) star count in a gh cell, or None.

    "~7k+ stars" reads as its lower bound 7000. An upper bound ("<50★") gives
    None, and so does "0★ no data — repo unreachable": the 0 is a placeholder
    for a failed fetch, not a count.

    >>> github_stars("huggingface/smolagents — ~28.8k stars")
    28800
    >>> github_stars("17.1k★ +152/mo Python")
    17100
    >>> github_stars("0★ no data — repo unreachable") is None
    True
    """
    cleaned = clean(text)
    if not cleaned or re.search(r"\bno data\b|\bunreachable\b", cleaned, re.IGNORECASE):
        return None
    m = _STARS_RE.search(cleaned)
    if not m or m.group("bound"):
        return None
    value = float(m.group("n").replace(",", ""))
    scale = {"k": 1_000, "m": 1_000_000}.get((m.group("mult") or "").lower(), 1)
    return int(round(value * scale))
