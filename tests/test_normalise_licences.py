"""kg.normalise.licences: licence cells read as SPDX, OSI approval; cases quoted from the real catalog."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from kg.normalise import OSI_APPROVED, SPDX_IDS, LicenseInfo, license_is_osi, spdx_license

RD, NA, DF, ND = "real-data", "not-applicable", "depth-floor-reached", "no-data"


@pytest.mark.parametrize(
    ("text", "status", "kind", "ids", "expression"),
    [
        ("Apache-2.0", RD, "spdx", ("Apache-2.0",), "Apache-2.0"),
        ("Apache 2.0", RD, "spdx", ("Apache-2.0",), "Apache-2.0"),
        ("Apache License 2.0", RD, "spdx", ("Apache-2.0",), "Apache-2.0"),
        ("Apache License, Version 2.0", RD, "spdx", ("Apache-2.0",), "Apache-2.0"),
        ("Apache-2.0 (Core)", RD, "spdx", ("Apache-2.0",), "Apache-2.0"),
        ("MIT", RD, "spdx", ("MIT",), "MIT"),
        ("MIT License", RD, "spdx", ("MIT",), "MIT"),
        ("MIT (R1 + V3 weights)", RD, "spdx", ("MIT",), "MIT"),
        ("BSD-3-Clause", RD, "spdx", ("BSD-3-Clause",), "BSD-3-Clause"),
        ("BSD 3-Clause", RD, "spdx", ("BSD-3-Clause",), "BSD-3-Clause"),
        ("BSD-2-Clause", RD, "spdx", ("BSD-2-Clause",), "BSD-2-Clause"),
        ("GPLv3", RD, "spdx", ("GPL-3.0",), "GPL-3.0"),
        ("GPL-3.0", RD, "spdx", ("GPL-3.0",), "GPL-3.0"),
        ("GPL-2.0 (ALE)", RD, "spdx", ("GPL-2.0",), "GPL-2.0"),
        ("GPL-3.0-or-later", RD, "spdx", ("GPL-3.0-or-later",), "GPL-3.0-or-later"),
        ("AGPL-3.0", RD, "spdx", ("AGPL-3.0",), "AGPL-3.0"),
        ("AGPLv3 + commercial", RD, "spdx", ("AGPL-3.0",), None),
        ("Elastic 2.0", RD, "spdx", ("Elastic-2.0",), "Elastic-2.0"),
        ("CC-BY-NC-4.0", RD, "spdx", ("CC-BY-NC-4.0",), "CC-BY-NC-4.0"),
        ("CC-BY-NC 4.0", RD, "spdx", ("CC-BY-NC-4.0",), "CC-BY-NC-4.0"),
        ("MPL-2.0 (Agno OSS)", RD, "spdx", ("MPL-2.0",), "MPL-2.0"),
        ("Mozilla MPL 2.0", RD, "spdx", ("MPL-2.0",), "MPL-2.0"),
        ("PostgreSQL", RD, "spdx", ("PostgreSQL",), "PostgreSQL"),
        ("NetHack General Public License", RD, "spdx", ("NGPL",), "NGPL"),
        ("MIT OR Apache-2.0", RD, "spdx", ("MIT", "Apache-2.0"), "MIT OR Apache-2.0"),
        ("MIT/Apache-2.0", RD, "spdx", ("MIT", "Apache-2.0"), "MIT OR Apache-2.0"),
        ("Apache-2.0 or MIT", RD, "spdx", ("Apache-2.0", "MIT"), "Apache-2.0 OR MIT"),
        ("The Unlicense", RD, "spdx", ("Unlicense",), "Unlicense"),
        # parts under different terms: ids listed, no single expression
        ("GPL-3.0 (GUI); Apache-2.0 + GPL components", RD, "spdx", ("GPL-3.0", "Apache-2.0"), None),
        ("Apache 2.0 (Yi-34B + base sizes); proprietary (Yi-Large, Yi-Lightning)", RD, "spdx",
         ("Apache-2.0",), None),
        ("MIT (Habitat-Lab); CC-BY-NC (3D scenes)", RD, "spdx", ("MIT",), None),
        # no open licence
        ("Unlicensed", RD, "proprietary", (), None),
        ("no-license", RD, "proprietary", (), None),
        ("Modified MIT (Medium 3.5 weights); Vibe service closed", RD, "proprietary", (), None),
        ("Llama 4 community license (Meta-custom; commercial OK <700M MAU)", RD, "proprietary", (), None),
        ("Jamba Open License", RD, "proprietary", (), None),
        ("NVIDIA Open Model license", RD, "proprietary", (), None),
        ("Sustainable Use License (semi-OSS)", RD, "proprietary", (), None),
        ("Proprietary (Anthropic) — JavaScript runtime open under separate terms", RD, "proprietary", (), None),
        # researched but unclassifiable
        ("Custom", RD, "unknown", (), None),
        ("BSD", RD, "unknown", (), None),
        # not researched / not applicable
        ("not applicable — not OSS", NA, "none", (), None),
        ("searched not found", DF, "none", (), None),
        ("", ND, "none", (), None),
        ("n/a — feature of GitHub Copilot (proprietary); instructions files are user-owned under repo license",
         RD, "none", (), None),
        ("no data — searched arxiv abstract; no specific value reported", RD, "none", (), None),
    ],
)
def test_spdx_license(text, status, kind, ids, expression) -> None:
    assert spdx_license(text, status) == LicenseInfo(kind, ids, expression)


def test_license_info_is_frozen() -> None:
    info = spdx_license("MIT", RD)
    with pytest.raises(AttributeError):
        info.kind = "none"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("text", "osi"),
    [
        ("Apache-2.0", True),
        ("MIT/Apache-2.0", True),
        ("GPL-3.0 (GUI); Apache-2.0 + GPL components", True),
        ("Elastic 2.0", False),
        ("CC-BY-NC-4.0", False),
        ("MIT OR Elastic-2.0", True),  # a choice: one OSI option suffices
        ("MIT AND Elastic-2.0", False),  # both apply: all must be OSI
        ("Unlicensed", False),
        ("Custom", False),
    ],
)
def test_license_is_osi(text: str, osi: bool) -> None:
    assert license_is_osi(spdx_license(text, RD)) is osi


def test_osi_set_covers_emittable_ids() -> None:
    assert OSI_APPROVED <= SPDX_IDS
    for spdx in ("Apache-2.0", "MIT", "BSD-3-Clause", "GPL-3.0", "AGPL-3.0", "MPL-2.0", "NGPL", "PostgreSQL",
                 "Unlicense"):
        assert spdx in OSI_APPROVED
    for spdx in ("Elastic-2.0", "CC-BY-NC-4.0", "SSPL-1.0", "BUSL-1.1"):
        assert spdx in SPDX_IDS and spdx not in OSI_APPROVED


def test_license_on_site_data(site_cells) -> None:
    infos = [(v, spdx_license(v, s)) for v, s in site_cells("license")]
    emitted = {spdx for _, info in infos for spdx in info.spdx_ids}
    assert emitted <= SPDX_IDS
    for value, info in infos:
        if "Apache" in value:
            assert "Apache-2.0" in info.spdx_ids, value
        if re.search(r"(?<!Modified )\bMIT\b", value):
            assert "MIT" in info.spdx_ids, value
        if value in ("Unlicensed", "no-license"):
            assert info.kind == "proprietary"
        if info.kind == "spdx":
            assert info.spdx_ids
        else:
            assert not info.spdx_ids and info.expression is None
    # Counts verified by reading every value (see module comments for the calls).
    assert Counter(info.kind for _, info in infos) == {"none": 595, "spdx": 282, "proprietary": 29, "unknown": 6}
    ids = Counter(spdx for _, info in infos for spdx in info.spdx_ids)
    assert ids["Apache-2.0"] == 137 and ids["MIT"] == 116 and ids["BSD-3-Clause"] == 8
