"""kg.normalise.vendors: registrable domains, publication venues and vendors."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from functools import cache
from pathlib import Path
from urllib.parse import urlsplit

import publicsuffixlist
import pytest
from publicsuffixlist import PublicSuffixList

from kg.normalise import VendorInfo, github_repo, publication_venue, registrable_domain, vendor_of


@pytest.mark.parametrize(
    ("host", "domain"),
    [
        ("www.getzep.com", "getzep.com"),
        ("docs.aws.amazon.com", "amazon.com"),
        ("WWW.Example.CO.UK", "example.co.uk"),
        ("news.bbc.co.uk", "bbc.co.uk"),
        ("foo.com.au", "foo.com.au"),
        ("a.b.co.jp", "b.co.jp"),
        ("www.sina.com.cn", "sina.com.cn"),
        ("www.ox.ac.uk", "ox.ac.uk"),
        ("microsoft.github.io", "microsoft.github.io"),
        ("eu.36kr.com", "36kr.com"),
        ("deepmind.google", "deepmind.google"),
        ("example.com:8080", "example.com"),
        ("example.com.", "example.com"),
        ("localhost", "localhost"),
        ("", ""),
        # ICANN suffixes of more than one label, which the hand-kept excerpt lacked
        ("shop.tiki.com.vn", "tiki.com.vn"),
        ("www.tokopedia.co.id", "tokopedia.co.id"),
        ("api.example.org.uk", "example.org.uk"),
        ("a.b.kawasaki.jp", "a.b.kawasaki.jp"),  # *.kawasaki.jp: b.kawasaki.jp is itself a suffix
        ("city.kawasaki.jp", "city.kawasaki.jp"),  # !city.kawasaki.jp: the exception is registrable
        # hosted-app domains (the PSL's private section): each name is its own owner's
        ("acme.vercel.app", "acme.vercel.app"),
        ("docs.acme.netlify.app", "acme.netlify.app"),
        ("my-space.hf.space", "my-space.hf.space"),
        ("preview.site.pages.dev", "site.pages.dev"),
        ("tool.herokuapp.com", "tool.herokuapp.com"),
        ("bucket.s3.amazonaws.com", "bucket.s3.amazonaws.com"),
        ("vercel.app", "vercel.app"),  # a public suffix alone is its own domain
        ("co.uk", "co.uk"),
        # internationalised names: one domain, in ASCII, whichever spelling the URL uses
        ("shop.bücher.de", "xn--bcher-kva.de"),
        ("shop.xn--bcher-kva.de", "xn--bcher-kva.de"),
        ("SHOP.BÜCHER.DE", "xn--bcher-kva.de"),
        ("www.例え.jp", "xn--r8jz45g.jp"),
        ("a.b.公司.cn", "b.xn--55qx5d.cn"),  # 公司.cn is a suffix of its own
        ("a.b.xn--55qx5d.cn", "b.xn--55qx5d.cn"),
        # IP addresses and local names stay as they are
        ("127.0.0.1", "127.0.0.1"),
        ("http://10.0.0.7:8080/x", "10.0.0.7"),
        ("[::1]", "[::1]"),
        ("http://[2001:db8::1]:7878/query", "[2001:db8::1]"),
        ("api.localhost", "api.localhost"),
        ("localhost:7878", "localhost"),
        # trailing and doubled dots, upper case, a URL rather than a host
        ("News.BBC.Co.UK.", "bbc.co.uk"),
        ("a..example.com", "example.com"),
        ("HTTPS://User@Docs.Example.COM:443/path", "example.com"),
        ("EXAMPLE.COM.VN.", "example.com.vn"),
    ],
)
def test_registrable_domain(host: str, domain: str) -> None:
    assert registrable_domain(host) == domain


def test_the_suffix_list_is_the_one_the_package_ships_and_nothing_is_fetched() -> None:
    """The list is read from publicsuffixlist's own file in a process that fails on any
    connection attempt: nothing is downloaded at run time, and the update module (the
    only part of publicsuffixlist that downloads) is never imported."""
    script = (
        "import sys\n"
        "def watch(event, args):\n"
        "    if event.startswith(('socket.', 'urllib.', 'http.client.')):\n"
        "        raise PermissionError('network: ' + event)\n"
        "sys.addaudithook(watch)\n"
        "from kg.normalise import registrable_domain\n"
        "from kg.normalise.suffixes import suffix_list\n"
        "import publicsuffixlist\n"
        "assert registrable_domain('a.example.com.vn') == 'example.com.vn'\n"
        "assert 'publicsuffixlist.update' not in sys.modules\n"
        "print(publicsuffixlist.PSLFILE)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    shipped = Path(done.stdout.strip())
    assert shipped.parent == Path(publicsuffixlist.__file__).parent
    rules = [line for line in shipped.read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.startswith("//")]
    assert len(rules) > 9000, f"the shipped Public Suffix List has only {len(rules)} rules"


def test_two_apps_on_one_hosting_domain_are_two_vendors() -> None:
    a = vendor_of("https://acme.vercel.app/", None)
    b = vendor_of("https://other.vercel.app/docs", None)
    assert a is not None and b is not None
    assert (a.key, b.key) == ("acme.vercel.app", "other.vercel.app")
    assert vendor_of("https://x.github.io/", None).key == "github.com/x"  # GitHub Pages: the owner
    assert vendor_of("https://docs.shop.com.vn/", None).key == "shop.com.vn"
    assert vendor_of("https://blog.shop.co.id/", None).key == "shop.co.id"


@cache
def _psl() -> PublicSuffixList:
    return PublicSuffixList()


def _psl_domain(host: str) -> str:
    """The registrable domain of a plain ASCII host, straight from publicsuffixlist."""
    host = host.removeprefix("www.")
    return _psl().privatesuffix(host) or host


def test_the_catalog_vendor_table_agrees_with_the_public_suffix_list(site_records, seed_record) -> None:
    """Every URL-derived vendor key of the bundled catalog is its host's registrable domain as
    publicsuffixlist itself gives it (not through kg's code), and the table has 580 vendors:
    checked when the PSL replaced the hand-kept list of 60 suffixes, it changed no vendor
    (490 hosts; the only suffix of more than one label among them is github.io, whose
    names are GitHub owners)."""
    records = [r for r in site_records if r["id"] != seed_record["id"]] + [seed_record]
    keys = set()
    for r in records:
        gh = (r.get("cells") or {}).get("gh") or {}
        pair = github_repo(gh["value"], gh.get("citation")) if isinstance(gh.get("value"), str) else None
        url = r.get("url") if isinstance(r.get("url"), str) else None
        vendor = vendor_of(url, pair[0] if pair else None)
        if vendor is None:
            continue
        keys.add(vendor.key)
        if vendor.derived_from == "url-domain" and vendor.key != "github.com":
            host = urlsplit(url).hostname
            assert host is not None and host.isascii()
            assert vendor.key == _psl_domain(host.lower().strip(".")), url
    assert len(keys) == 580


@pytest.mark.parametrize(
    ("url", "venue"),
    [
        ("https://arxiv.org/abs/2401.15884", "arXiv"),
        ("https://openreview.net/forum?id=TrjbxzRcnf-", "OpenReview"),
        ("https://aclanthology.org/2025.acl-long.1137/", "ACL Anthology"),
        ("https://doi.org/10.1145/3654777.3676388", "DOI"),
        ("https://dx.doi.org/10.1145/3654777.3676388", "DOI"),
        ("https://dl.acm.org/doi/10.1145/3735633", "ACM Digital Library"),
        ("https://neurips.cc/virtual/2025/poster/116166", "NeurIPS"),
        ("https://proceedings.neurips.cc/paper/2020/x", "NeurIPS"),
        ("https://papers.nips.cc/paper/2017/x", "NeurIPS"),
        ("https://icml.cc/virtual/2025/poster/44196", "ICML"),
        ("https://proceedings.mlr.press/v202/x.html", "PMLR"),
        ("https://www.semanticscholar.org/paper/x", "Semantic Scholar"),
        ("https://huggingface.co/papers/2401.15884", "Hugging Face Papers"),
        ("https://ieeexplore.ieee.org/document/1", "IEEE Xplore"),
        ("https://www.nature.com/articles/s41598-025-10586-x", "Nature"),
        ("https://journals.plos.org/plosone/article?id=10.1371/journal.pone.0316453", "PLOS"),
        ("https://www.mdpi.com/2079-9292/15/6/1232", "MDPI"),
        ("https://huggingface.co/docs/smolagents/tutorials/memory", None),
        ("https://github.com/huggingface/smolagents", None),
        ("https://notarxiv.org/abs/1", None),
        (None, None),
        ("", None),
    ],
)
def test_publication_venue(url, venue) -> None:
    assert publication_venue(url) == venue


@pytest.mark.parametrize(
    ("url", "gh_owner", "expected"),
    [
        ("https://github.com/huggingface/smolagents", None,
         VendorInfo("github.com/huggingface", "huggingface", "github-owner", "https://github.com/huggingface/smolagents")),
        ("https://github.com/Backboard-io", None,
         VendorInfo("github.com/backboard-io", "Backboard-io", "github-owner", "https://github.com/Backboard-io")),
        ("https://gist.github.com/karpathy/442a6bf555914893e9891c11519de94f", None,
         VendorInfo("github.com/karpathy", "karpathy", "github-owner",
                    "https://gist.github.com/karpathy/442a6bf555914893e9891c11519de94f")),
        ("https://microsoft.github.io/autogen/", None,
         VendorInfo("github.com/microsoft", "microsoft", "github-owner", "https://microsoft.github.io/autogen/")),
        ("https://huggingface.co/docs/smolagents/tutorials/memory", "huggingface",
         VendorInfo("huggingface.co", "huggingface.co", "url-domain",
                    "https://huggingface.co/docs/smolagents/tutorials/memory")),
        ("https://www.getzep.com/", None, VendorInfo("getzep.com", "getzep.com", "url-domain", "https://www.getzep.com/")),
        ("https://docs.aws.amazon.com/bedrock/", None,
         VendorInfo("amazon.com", "amazon.com", "url-domain", "https://docs.aws.amazon.com/bedrock/")),
        ("https://arxiv.org/abs/2401.15884", "HuskyInSalt",
         VendorInfo("github.com/huskyinsalt", "HuskyInSalt", "github-owner", "HuskyInSalt")),
        ("https://arxiv.org/abs/2401.15884", None, None),
        ("https://huggingface.co/BAAI/bge-large-en-v1.5", None, None),
        ("https://huggingface.co/lerobot", "huggingface",
         VendorInfo("github.com/huggingface", "huggingface", "github-owner", "huggingface")),
        ("https://x.com/karpathy/status/1707437820045062561", None, None),
        ("https://medium.com/@matrixorigin-database/benchmarking", None, None),
        ("https://www.ycombinator.com/companies/hyperspell", None, None),
        (None, "qywu", VendorInfo("github.com/qywu", "qywu", "github-owner", "qywu")),
        (None, None, None),
        (None, "not an owner!", None),
    ],
)
def test_vendor_of(url, gh_owner, expected) -> None:
    assert vendor_of(url, gh_owner) == expected


def test_vendors_and_venues_on_site_data(site_records) -> None:
    derived, venues = Counter(), Counter()
    for r in site_records:
        gh = r["cells"]["gh"]
        pair = github_repo(gh["value"], gh["citation"])
        vendor = vendor_of(r["url"], pair[0] if pair else None)
        venue = publication_venue(r["url"])
        derived[vendor.derived_from if vendor else None] += 1
        venues[venue] += 1
        if vendor:
            assert vendor.key and vendor.name and vendor.source
            assert vendor.key not in ("arxiv.org", "openreview.net", "doi.org", "x.com", "github.io")
            if vendor.derived_from == "url-domain":
                assert vendor.source == r["url"]
        if venue:
            assert vendor is None or vendor.derived_from == "github-owner"
    assert venues[None] == 677 and venues["arXiv"] == 216 and venues["OpenReview"] == 8
    assert derived == {"url-domain": 521, "github-owner": 200, None: 191}
