"""kg.normalise.vendors: registrable domains, publication venues and vendors."""

from __future__ import annotations

from collections import Counter

import pytest

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
    ],
)
def test_registrable_domain(host: str, domain: str) -> None:
    assert registrable_domain(host) == domain


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
