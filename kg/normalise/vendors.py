"""Domains, publication venues and vendors: the registrable domain of a URL and who makes a system."""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlsplit

from .github import GITHUB_RESERVED, OWNER_PATTERN
from .suffixes import suffix_list
from .text import clean


@lru_cache(maxsize=1 << 14)  # hosts repeat across a catalog; the list's look-up encodes each label (IDNA)
def registrable_domain(host: str) -> str:
    """The registrable domain of a host by the Public Suffix List: lowercase, no "www.", no port.

    Both sections of the list count: the ICANN one (co.uk, com.vn, co.id) and the
    private one (github.io, vercel.app, hf.space), whose names are handed out to
    different owners, so that x.vercel.app and y.vercel.app are two vendors. A
    host that is itself a public suffix, or a TLD the list does not know
    (localhost), is its own domain; an IP address stays as it is; an
    internationalised name is given in its ASCII (punycode) form, so both
    spellings of one name give one domain.

    >>> registrable_domain("www.Example.co.uk")
    'example.co.uk'
    >>> registrable_domain("microsoft.github.io")
    'microsoft.github.io'
    >>> registrable_domain("eu.36kr.com")
    '36kr.com'
    >>> registrable_domain("shop.bücher.de")
    'xn--bcher-kva.de'
    """
    h = _bare_host(host)
    if not h or _is_ip_address(h):
        return h
    ascii_host = _ascii_host(h)
    return suffix_list().privatesuffix(ascii_host) or ascii_host


def _bare_host(host: str) -> str:
    """The host name alone: lowercase, no scheme, user, port, path, "www." or empty labels."""
    h = clean(host).lower()
    if "://" in h:
        h = urlsplit(h).netloc if _safe_split(h) else ""
    h = h.rsplit("@", 1)[-1]
    if h.startswith("["):  # IPv6 literal
        return h.split("]")[0] + "]" if "]" in h else h
    h = ".".join(label for label in h.split(":", 1)[0].split("/", 1)[0].split(".") if label)
    return h[4:] if h.startswith("www.") else h


def _is_ip_address(host: str) -> bool:
    """True for an IP literal (or any all-numeric dotted name: no TLD is numeric)."""
    if host.startswith("["):
        return True
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        return all(label.isdigit() for label in host.split(".") if label)


def _ascii_host(host: str) -> str:
    """The host in ASCII (IDNA, punycode labels); the host unchanged where it is no valid IDN."""
    if host.isascii():
        return host
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        return host


def _safe_split(url: str) -> bool:
    try:
        urlsplit(url)
        return True
    except ValueError:  # e.g. "http://[::1" (unbalanced IPv6 bracket)
        return False


def _url_parts(url: str | None) -> tuple[str, list[str]]:
    """(lowercase host, path segments) of a URL; ('', []) when unparseable."""
    u = clean(url)
    if not u:
        return "", []
    if "://" not in u:
        u = "https://" + u
    if not _safe_split(u):
        return "", []
    parts = urlsplit(u)
    try:
        host = (parts.hostname or "").lower().strip(".")
    except ValueError:
        return "", []
    return host, [segment for segment in parts.path.split("/") if segment]


def _host_is(host: str, domain: str) -> bool:
    return host == domain or host.endswith("." + domain)


# Paper hosts: venue name. 236 record URLs point at one of these (arXiv 216,
# OpenReview 8, ACL Anthology 2, ACM DL 2, DOI 2, NeurIPS, ICML, MDPI, Nature, PLOS).
_VENUES: tuple[tuple[str, str], ...] = (
    ("arxiv.org", "arXiv"),
    ("openreview.net", "OpenReview"),
    ("aclanthology.org", "ACL Anthology"),
    ("aclweb.org", "ACL Anthology"),
    ("doi.org", "DOI"),
    ("papers.nips.cc", "NeurIPS"),
    ("proceedings.neurips.cc", "NeurIPS"),
    ("neurips.cc", "NeurIPS"),
    ("nips.cc", "NeurIPS"),
    ("icml.cc", "ICML"),
    ("iclr.cc", "ICLR"),
    ("proceedings.mlr.press", "PMLR"),
    ("jmlr.org", "JMLR"),
    ("semanticscholar.org", "Semantic Scholar"),
    ("ieeexplore.ieee.org", "IEEE Xplore"),
    ("dl.acm.org", "ACM Digital Library"),
    ("aaai.org", "AAAI"),
    ("ijcai.org", "IJCAI"),
    ("openaccess.thecvf.com", "CVF Open Access"),
    ("link.springer.com", "Springer"),
    ("sciencedirect.com", "ScienceDirect"),
    ("nature.com", "Nature"),
    ("journals.plos.org", "PLOS"),
    ("mdpi.com", "MDPI"),
    ("biorxiv.org", "bioRxiv"),
    ("medrxiv.org", "medRxiv"),
    ("ssrn.com", "SSRN"),
)


def publication_venue(url: str | None) -> str | None:
    """The venue name when ``url`` points at a paper host, else None.

    >>> publication_venue("https://arxiv.org/abs/2401.15884")
    'arXiv'
    >>> publication_venue("https://huggingface.co/papers/2401.15884")
    'Hugging Face Papers'
    >>> publication_venue("https://github.com/huggingface/smolagents") is None
    True
    """
    host, segments = _url_parts(url)
    if not host:
        return None
    if _host_is(host, "huggingface.co") and segments[:1] == ["papers"]:
        return "Hugging Face Papers"
    return next((name for domain, name in _VENUES if _host_is(host, domain)), None)


@dataclass(frozen=True)
class VendorInfo:
    """Who publishes a system, as far as its URL (or GitHub owner) tells.

    ``derived_from`` is ``url-domain`` or ``github-owner``; ``source`` is the
    exact URL or owner string the vendor was read from.
    """

    key: str
    name: str
    derived_from: str
    source: str


# Hosts that publish other people's things: their domain names a platform, not
# the vendor (x.com/karpathy, medium.com/@matrixorigin, techcrunch.com/…,
# ycombinator.com/companies/…, sites.google.com/view/…, twitch.tv/claudeplayspokemon).
_PLATFORM_HOSTS = (
    "x.com", "twitter.com", "medium.com", "dev.to", "substack.com", "youtube.com", "youtu.be",
    "ycombinator.com", "techcrunch.com", "prnewswire.com", "businesswire.com", "decrypt.co",
    "infoq.com", "36kr.com", "wowtale.net", "maginative.com", "legaltechnology.com", "lawnext.com",
    "twitch.tv", "sites.google.com", "reddit.com", "venturebeat.com", "theverge.com",
    "producthunt.com", "wikipedia.org",
)


def _github_owner_vendor(owner: str, source: str) -> VendorInfo:
    return VendorInfo(f"github.com/{owner.lower()}", owner, "github-owner", source)


def _owner_from_gh(gh_owner: str | None) -> VendorInfo | None:
    raw = clean(gh_owner)
    owner = re.sub(r"^(?:https?://)?(?:www\.)?github\.com/|^@", "", raw, flags=re.IGNORECASE).strip("/")
    if re.fullmatch(OWNER_PATTERN, owner) and owner.lower() not in GITHUB_RESERVED:
        return _github_owner_vendor(owner, raw)
    return None


def vendor_of(url: str | None, gh_owner: str | None) -> VendorInfo | None:
    """The vendor behind a record, from its URL, else from its GitHub owner.

    github.com/<owner>/…, gist.github.com/<owner>/… and <owner>.github.io give the
    GitHub owner. Paper hosts, Hugging Face model pages and publishing platforms
    (x.com, medium.com, news sites) give no vendor from the URL; then the
    GitHub owner of the record's repository is used, if known.

    >>> vendor_of("https://github.com/huggingface/smolagents", None)
    VendorInfo(key='github.com/huggingface', name='huggingface', derived_from='github-owner', source='https://github.com/huggingface/smolagents')
    >>> vendor_of("https://www.getzep.com/", None).key
    'getzep.com'
    >>> vendor_of("https://arxiv.org/abs/2401.15884", "HKUDS").key
    'github.com/hkuds'
    """
    source = clean(url)
    host, segments = _url_parts(source)
    if host:
        if host in ("github.com", "www.github.com", "gist.github.com"):
            if segments and re.fullmatch(OWNER_PATTERN, segments[0]) and segments[0].lower() not in GITHUB_RESERVED:
                return _github_owner_vendor(segments[0], source)
            return VendorInfo("github.com", "github.com", "url-domain", source)
        pages = re.fullmatch(rf"({OWNER_PATTERN})\.github\.io", host)
        if pages:
            return _github_owner_vendor(pages.group(1), source)
        hugging_face_repo = _host_is(host, "huggingface.co") and segments and segments[0] not in (
            "docs", "blog", "pricing", "learn", "enterprise", "inference-endpoints", "changelog",
        )
        platform = any(_host_is(host, domain) for domain in _PLATFORM_HOSTS)
        if not (publication_venue(source) or hugging_face_repo or platform):
            domain = registrable_domain(host)
            if domain:
                return VendorInfo(domain, domain, "url-domain", source)
    return _owner_from_gh(gh_owner)
