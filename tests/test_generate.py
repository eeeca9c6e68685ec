"""Tests for benchmarks/generate.py (synthetic catalogs in the full record shape)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GEN_PATH = ROOT / "benchmarks" / "generate.py"
DATA = ROOT / "data"

_spec = importlib.util.spec_from_file_location("landscape_generate", GEN_PATH)
gen = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = gen
_spec.loader.exec_module(gen)

ID_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*(--[a-z0-9]+(-[a-z0-9]+)*)?$")
DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
TS_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
URL_RE = re.compile(r"^https?://\S+$")
STATUSES = {"real-data", "not-applicable", "depth-floor-reached", "no-data", "estimate"}
AXES = ("storage", "retrieval", "persistence", "update", "unit", "governance", "conflict")
EDGE_TYPES = {"cites", "runtime-dependency", "integrates-with", "built-on", "competes-with",
              "extends", "same-team-as", "forks", "succeeds", "inspired-by"}
DECAY = {"acquired", "pivoted", "unfunded", "lost-benchmark-race", "superseded", "archived",
         "research-complete", "unknown"}
REAL_EDGE_COUNTS = {"cites": 241, "runtime-dependency": 212, "integrates-with": 41, "built-on": 22,
                    "competes-with": 4, "extends": 3, "same-team-as": 2, "forks": 2, "succeeds": 1}


# ----------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def real():
    site = json.loads((DATA / "landscape-site.json").read_text(encoding="utf-8"))
    seed = json.loads((DATA / "seed-record.json").read_text(encoding="utf-8"))
    recs = site["records"]
    return {
        "records": recs,
        "seed_slugs": list(seed["cells"]),
        "site_slugs": sorted({s for r in recs for s in r["cells"]}),
        "sections": Counter(r["sections"][0]["section"] for r in recs),
        "sub_sections": {r["sections"][0]["section"] for r in recs if r["sections"][0]["subsection"]},
        "axis_values": {a: {r["taxonomy"][a][0]["value"] for r in recs} for a in AXES},
        "cell_values": {s: {r["cells"][s]["value"] for r in recs if s in r["cells"]}
                        for s in {s for r in recs for s in r["cells"]}},
    }


@pytest.fixture(scope="module")
def g912():
    return gen.generate_catalog(912)


@pytest.fixture(scope="module")
def g200():
    return gen.generate_catalog(200, seed=7)


# ----------------------------------------------------------------------------- validator


def catalog_problems(catalog, real):
    """All rule violations in a generated bulk catalog (empty list = valid)."""
    bad = []
    assert set(catalog) == {"schemaVersion", "generatedAt", "sourceHtml", "records"}
    seen = set()
    slugs = real["seed_slugs"]
    for r in catalog["records"]:
        rid = r["id"]
        if not ID_RE.match(rid):
            bad.append(("id regex", rid))
        if rid in seen:
            bad.append(("id duplicate", rid))
        seen.add(rid)
        if not isinstance(r["name"], str) or not r["name"].strip():
            bad.append(("name", rid))
        if type(r["tier"]) is not int or not 1 <= r["tier"] <= 5:
            bad.append(("tier", rid))
        if r["url"] is not None and not URL_RE.match(r["url"]):
            bad.append(("url", rid))
        if not DATE_RE.match(r["last_verified_at"]):
            bad.append(("last_verified_at", rid))
        # sections
        secs = r["sections"]
        if not secs or sum(1 for s in secs if s["primary"] is True) != 1:
            bad.append(("sections primary", rid))
        if len({s["section"] for s in secs}) != len(secs):
            bad.append(("sections repeated", rid))
        for s in secs:
            if set(s) != {"section", "subsection", "primary", "reason"} or type(s["primary"]) is not bool:
                bad.append(("section keys", rid))
            if s["section"] not in real["sections"]:
                bad.append(("section name", rid, s["section"]))
            if s["subsection"] is not None and (s["section"] not in real["sub_sections"]
                                                or not s["subsection"].startswith("— ")):
                bad.append(("subsection", rid, s["subsection"]))
        # taxonomy
        tax = r["taxonomy"]
        if tuple(tax) != AXES:
            bad.append(("taxonomy axes", rid))
        for a in AXES:
            vals = tax.get(a) or []
            if not vals or sum(1 for v in vals if v["primary"] is True) != 1:
                bad.append(("taxonomy primary", rid, a))
            if len({v["value"] for v in vals}) != len(vals):
                bad.append(("taxonomy repeated", rid, a))
            for v in vals:
                if set(v) != {"value", "primary", "reason"} or v["value"] not in real["axis_values"][a]:
                    bad.append(("taxonomy value", rid, a, v))
        # cells
        if list(r["cells"]) != slugs:
            bad.append(("cell slugs", rid))
        for slug, c in r["cells"].items():
            extra = set(c) - {"value", "citation", "status", "tier", "last_verified_at", "source_class"}
            if extra or not {"value", "citation", "status", "tier"} <= set(c):
                bad.append(("cell keys", rid, slug))
                continue
            if not isinstance(c["value"], str):
                bad.append(("cell value", rid, slug))
            if c["status"] not in STATUSES:
                bad.append(("cell status", rid, slug))
            cit = c["citation"]
            if cit is not None and not (isinstance(cit, str) and re.match(r"^https?://", cit)):
                bad.append(("citation", rid, slug, cit))
            if c["tier"] == "T1" and not (cit or "").startswith("https://github.com/"):
                bad.append(("T1 needs github", rid, slug, cit))
            elif c["tier"] == "T2" and not (cit and re.match(r"^https?://", cit)):
                bad.append(("T2 needs citation", rid, slug))
            elif c["tier"] == "T3" and cit is not None and c["status"] != "estimate":
                bad.append(("T3 cited", rid, slug))
            elif c["tier"] not in ("T1", "T2", "T3"):
                bad.append(("tier", rid, slug))
            if c["status"] == "no-data" and cit is not None:
                bad.append(("no-data cited", rid, slug))
            if c["status"] == "estimate" and c["tier"] != "T3":
                bad.append(("estimate tier", rid, slug))
            if "last_verified_at" in c and not DATE_RE.match(c["last_verified_at"]):
                bad.append(("cell date", rid, slug))
            if "source_class" in c and (cit is None or c["source_class"] not in
                                        {"vendor", "repo", "registry", "third-party", "catalog"}):
                bad.append(("source_class", rid, slug))
        # _provenance
        for slug, p in r.get("_provenance", {}).items():
            if slug not in r["cells"] or p.get("source") not in {"human", "scrape", "llm", "legacy"} \
                    or type(p.get("verified")) is not bool:
                bad.append(("provenance", rid, slug))
            if p["source"] == "human" and not p.get("author"):
                bad.append(("provenance author", rid, slug))
            if p["source"] == "llm" and not p.get("model_id"):
                bad.append(("provenance model_id", rid, slug))
            # the recommendation cells' entries, as the catalog writes them: a day the cell was edited or
            # generated; the others: when the value was recorded (and verified)
            edited = p.get("edited_at", p.get("generated_at"))
            if edited is not None:
                if not DATE_RE.match(edited) or "recorded_at" in p:
                    bad.append(("provenance edited", rid, slug))
                continue
            if not TS_RE.match(p.get("recorded_at", "")):
                bad.append(("provenance recorded_at", rid, slug))
            if p["verified"] and not TS_RE.match(p.get("verified_at", "")):
                bad.append(("provenance verified_at", rid, slug))
        # lifecycle, history, corroboration, decay
        lc = r["lifecycle"]
        if set(lc) != {"status", "severity", "note"} or type(lc["severity"]) is not int:
            bad.append(("lifecycle", rid))
        for h in r["history"]:
            if set(h) != {"date", "commit", "pr", "kind", "changes"} or not DATE_RE.match(h["date"]) \
                    or not re.match(r"^[0-9a-f]{10}$", h["commit"]) or type(h["pr"]) is not int or not h["changes"]:
                bad.append(("history", rid))
            for ch in h["changes"]:
                if set(ch) != {"field", "label", "from", "to", "source"}:
                    bad.append(("history change", rid))
        dates = [h["date"] for h in r["history"]]
        if dates != sorted(dates):
            bad.append(("history order", rid))
        cor = r["corroboration"]
        if cor != {"cited_cells": sum(1 for c in r["cells"].values() if c["citation"]),
                   "third_party_cells": sum(1 for c in r["cells"].values() if c.get("source_class") == "third-party")}:
            bad.append(("corroboration", rid))
        decay = [k for k in ("decay_cause", "decay_date", "decay_evidence") if k in r]
        if decay:
            if len(decay) != 3 or r["decay_cause"] not in DECAY or not DATE_RE.match(r["decay_date"]) \
                    or not r["decay_evidence"].strip():
                bad.append(("decay", rid))
    return bad


def edge_problems(edges, catalog):
    bad = []
    assert set(edges) == {"schemaVersion", "generatedAt", "edges"}
    ids = {r["id"] for r in catalog["records"]}
    seen = set()
    for e in edges["edges"]:
        key = (e["source"], e["target"], e["type"])
        if e["source"] not in ids or e["target"] not in ids:
            bad.append(("dangling", key))
        if e["source"] == e["target"]:
            bad.append(("self", key))
        if key in seen:
            bad.append(("duplicate", key))
        seen.add(key)
        if e["type"] not in EDGE_TYPES:
            bad.append(("type", key))
        if ("isInfluential" in e) != (e["type"] == "cites"):
            bad.append(("isInfluential placement", key))
        if "isInfluential" in e and type(e["isInfluential"]) is not bool:
            bad.append(("isInfluential type", key))
        if not isinstance(e["evidence"], str) or not e["evidence"].strip() or len(e["evidence"]) > 500:
            bad.append(("evidence", key))
        if not URL_RE.match(e["citation"]):
            bad.append(("citation", key))
        extra = set(e) - {"source", "target", "type", "evidence", "citation", "isInfluential"}
        if extra:
            bad.append(("keys", key, extra))
    return bad


# ----------------------------------------------------------------------------- determinism


def test_same_seed_same_json_text():
    a_cat, a_edges = gen.generate_catalog(200, seed=11)
    b_cat, b_edges = gen.generate_catalog(200, seed=11)
    assert gen.dumps_catalog(a_cat) == gen.dumps_catalog(b_cat)
    assert gen.dumps_edges(a_edges) == gen.dumps_edges(b_edges)
    assert json.dumps(a_cat, ensure_ascii=False) == json.dumps(b_cat, ensure_ascii=False)


def test_different_seed_different_output():
    a_cat, a_edges = gen.generate_catalog(200, seed=11)
    b_cat, b_edges = gen.generate_catalog(200, seed=12)
    assert gen.dumps_catalog(a_cat) != gen.dumps_catalog(b_cat)
    assert gen.dumps_edges(a_edges) != gen.dumps_edges(b_edges)


def test_default_seed_is_documented_value():
    a, _ = gen.generate_catalog(30)
    b, _ = gen.generate_catalog(30, seed=20261129)
    assert gen.dumps_catalog(a) == gen.dumps_catalog(b)


def test_independent_of_hash_seed_and_process():
    code = ("import hashlib,importlib.util,sys;"
            f"s=importlib.util.spec_from_file_location('g',{str(GEN_PATH)!r});m=importlib.util.module_from_spec(s);"
            "sys.modules['g']=m;s.loader.exec_module(m);c,e=m.generate_catalog(60,seed=3);"
            "print(hashlib.sha256((m.dumps_catalog(c)+m.dumps_edges(e)).encode()).hexdigest())")
    digests = set()
    for hs in ("0", "1", "4242"):
        env = dict(os.environ, PYTHONHASHSEED=hs)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        digests.add(out.stdout.strip())
    c, e = gen.generate_catalog(60, seed=3)
    digests.add(hashlib.sha256((gen.dumps_catalog(c) + gen.dumps_edges(e)).encode()).hexdigest())
    assert len(digests) == 1


def test_leaves_global_random_state_alone():
    random.seed(123)
    expected = random.random()
    random.seed(123)
    gen.generate_catalog(25, seed=5)
    assert random.random() == expected


def test_record_bodies_do_not_depend_on_catalog_size():
    # each record body has its own RNG stream: the first 50 skeletons are the same for
    # n=50 and n=120, so their records (apart from in-degree-derived text) match.
    small = {r["id"]: r for r in gen.generate_catalog(50, seed=9)[0]["records"]}
    big = {r["id"]: r for r in gen.generate_catalog(120, seed=9)[0]["records"]}
    assert set(small) <= set(big)
    same = sum(1 for k in small if small[k]["taxonomy"] == big[k]["taxonomy"]
               and small[k]["cells"]["desc"] == big[k]["cells"]["desc"])
    assert same == len(small)


# ----------------------------------------------------------------------------- shape and rules


@pytest.mark.parametrize("which", ["g200", "g912"])
def test_catalog_rules_hold(which, request, real):
    catalog, edges = request.getfixturevalue(which)
    assert catalog["schemaVersion"] == edges["schemaVersion"] == "1.0.0"
    assert edges["generatedAt"] >= catalog["generatedAt"]
    assert catalog_problems(catalog, real) == []
    assert edge_problems(edges, catalog) == []


def test_every_record_has_all_seed_slugs(g912, real):
    assert len(real["seed_slugs"]) == 107
    for r in g912[0]["records"]:
        assert list(r["cells"]) == real["seed_slugs"]


def test_record_count_and_order(g912, g200):
    for (cat, _), n in ((g912, 912), (g200, 200)):
        ids = [r["id"] for r in cat["records"]]
        assert len(ids) == n == len(set(ids))
        assert ids == sorted(ids)


def test_full_shape_extras_present(g912):
    recs = g912[0]["records"]
    keys = Counter(k for r in recs for k in r)
    for k in ("id", "name", "tier", "url", "last_verified_at", "sections", "taxonomy", "cells",
              "lifecycle", "history", "corroboration"):
        assert keys[k] == len(recs), k
    assert keys["_provenance"] / len(recs) > 0.95  # the recommendation cells' estimates, on nearly every row
    recorded = sum(1 for r in recs if any("recorded_at" in p for p in r.get("_provenance", {}).values()))
    assert 0.4 < recorded / len(recs) < 0.8  # other cells' provenance, on some rows
    assert 0.01 <= keys["decay_cause"] / len(recs) <= 0.08
    assert {r["decay_cause"] for r in recs if "decay_cause" in r} <= DECAY
    prov = Counter(p["source"] for r in recs for p in r.get("_provenance", {}).values())
    assert set(prov) == {"human", "scrape", "llm", "legacy"}
    cells = [c for r in recs for c in r["cells"].values()]
    with_date = sum("last_verified_at" in c for c in cells) / len(cells)
    cited = [c for c in cells if c["citation"]]
    assert 0.3 < with_date < 0.7
    assert sum("source_class" in c for c in cited) / len(cited) > 0.95
    assert sum(1 for r in recs if r["history"]) / len(recs) > 0.5
    assert sum(1 for r in recs if len(r["sections"]) > 1) > 0
    assert sum(1 for r in recs for a in AXES if len(r["taxonomy"][a]) > 1) > 0


def test_dates_are_consistent(g912):
    for r in g912[0]["records"]:
        day = r["last_verified_at"]
        for h in r["history"]:
            assert h["date"] <= day
        if "decay_date" in r:
            assert r["decay_date"] <= day
        for p in r.get("_provenance", {}).values():
            if "recorded_at" not in p:  # a recommendation cell's edit: with its *-last-verified date, after the row's
                assert (p.get("edited_at") or p["generated_at"]) > day
                continue
            assert p["recorded_at"][:10] <= day
            if p["verified"]:
                assert p["recorded_at"] <= p["verified_at"] and p["verified_at"][:10] <= day
        assert "2026-01-01" <= day <= "2026-12-31"


def test_tricky_real_things_appear(g912):
    recs = g912[0]["records"]
    cites = [c["citation"] for r in recs for c in r["cells"].values() if c["citation"]]
    remark = [c for c in cites if re.match(r"^https?://\S+ \(.+\)$", c)]
    assert remark, "expected citations of the form 'URL (remark)'"
    text = json.dumps(g912[0], ensure_ascii=False)
    assert any(ord(ch) > 127 for ch in text)
    assert any(any(ord(ch) > 127 for ch in r["name"]) for r in recs)
    assert "—" in text
    # T3 cells carry no citation, except a few maintainer estimates
    t3_cited = [c for r in recs for c in r["cells"].values() if c["tier"] == "T3" and c["citation"]]
    assert all(c["status"] == "estimate" for c in t3_cited)
    assert len(t3_cited) < 0.01 * len(recs) * 107


def test_tiny_sizes():
    cat, edges = gen.generate_catalog(0)
    assert cat["records"] == [] and edges["edges"] == []
    assert json.loads(gen.dumps_catalog(cat)) == cat
    cat, edges = gen.generate_catalog(1)
    assert len(cat["records"]) == 1 and edges["edges"] == []
    cat, edges = gen.generate_catalog(3, seed=2)
    assert len({r["id"] for r in cat["records"]}) == 3
    with pytest.raises(ValueError):
        gen.generate_catalog(-1)


# ----------------------------------------------------------------------------- learned proportions


def test_edge_type_mix(g912, g200):
    counts = Counter(e["type"] for e in g912[1]["edges"])
    assert dict(counts) == REAL_EDGE_COUNTS
    e200 = g200[1]["edges"]
    assert abs(len(e200) - round(200 * 528 / 912)) <= 1
    c200 = Counter(e["type"] for e in e200)
    for t, k in REAL_EDGE_COUNTS.items():
        assert abs(c200.get(t, 0) / len(e200) - k / 528) < 0.02, t
    cites = [e for e in g912[1]["edges"] if e["type"] == "cites"]
    assert sum(e["isInfluential"] for e in cites) / len(cites) > 0.8


def test_in_degree_is_heavy_tailed(g912, g200):
    for cat, edges in (g912, g200):
        n, m = len(cat["records"]), len(edges["edges"])
        indeg = sorted(Counter(e["target"] for e in edges["edges"]).values(), reverse=True)
        top = max(1, round(n / 100))
        share = sum(indeg[:top]) / m
        assert 0.3 < share < 0.55, share  # real: top 1% (9 of 912) hold 41.5%
        assert indeg[0] >= 0.06 * m  # real: 62 of 528
        assert len(indeg) < 0.3 * n  # most records receive no edge (real: 134 of 912 do)


def test_site_slug_status_mix(g912, real):
    recs = g912[0]["records"]
    n = len(recs)
    for slug in real["site_slugs"]:
        want = Counter(r["cells"][slug]["status"] for r in real["records"])
        got = Counter(r["cells"][slug]["status"] for r in recs)
        for st in set(want) | set(got):
            assert abs(got[st] / n - want[st] / len(real["records"])) < 0.08, (slug, st)
    # claim tiers of site slugs: uncited not-applicable -> T3, so T3 tracks not-applicable
    for slug in ("license", "mcp-support", "funding"):
        want_t3 = sum(1 for r in real["records"] if r["cells"][slug]["tier"] == "T3") / len(real["records"])
        got_t3 = sum(1 for r in recs if r["cells"][slug]["tier"] == "T3") / n
        assert abs(got_t3 - want_t3) < 0.1, slug


def test_seed_only_slug_statuses(g912, real):
    recs = g912[0]["records"]
    n = len(recs)

    def share(slug, status):
        return sum(1 for r in recs if r["cells"][slug]["status"] == status) / n

    # the seed has these as no-data / estimate; generated columns are dominated by that
    for slug in ("obs-langsmith", "eval-braintrust", "cost-batching"):
        assert share(slug, "no-data") > 0.6
    for slug in ("capability-band", "use-case-tags"):
        assert share(slug, "estimate") > 0.7
    # papers: "not applicable — research artefact", as the catalog says; the other rows: estimates
    assert share("cost-tier", "estimate") > 0.5 and share("cost-tier", "not-applicable") < 0.4
    assert share("freshness-date", "real-data") == 1.0
    for r in recs:
        assert r["cells"]["freshness-date"]["value"] == r["last_verified_at"]
    statuses = Counter(c["status"] for r in recs for c in r["cells"].values())
    assert set(statuses) == STATUSES


def test_sections_and_taxonomy_follow_real_frequencies(g912, real):
    recs = g912[0]["records"]
    got = Counter(r["sections"][0]["section"] for r in recs)
    assert set(got) <= set(real["sections"])
    assert len(got) >= 30
    for sec, k in real["sections"].most_common(3):
        assert abs(got[sec] / len(recs) - k / 912) < 0.04, sec
    for a in AXES:
        want = Counter(r["taxonomy"][a][0]["value"] for r in real["records"]).most_common(1)[0][0]
        top2 = [v for v, _ in Counter(r["taxonomy"][a][0]["value"] for r in recs).most_common(3)]
        assert want in top2, a
    tiers = Counter(r["tier"] for r in recs)
    assert set(tiers) <= {1, 2, 3, 4, 5} and tiers[1] + tiers[2] > tiers[4] + tiers[5]


def test_values_are_real_text(g912, real):
    recs = g912[0]["records"]
    for slug in ("license", "mcp-support", "a2a-support", "otel", "pricing", "type", "latest-release"):
        vals = {r["cells"][slug]["value"] for r in recs}
        assert vals <= real["cell_values"][slug], slug
    lic = Counter(r["cells"]["license"]["value"] for r in recs if r["cells"]["license"]["status"] == "real-data")
    assert {"MIT", "Apache-2.0"} <= set(lic)


def test_gh_cells_match_repo_citations(g912):
    for r in g912[0]["records"]:
        gh = r["cells"]["gh"]
        if gh["tier"] == "T1":
            assert gh["citation"].startswith("https://github.com/")
            m = re.search(r"github\.com/([\w.-]+/[\w.-]+)", gh["value"])
            if m:
                assert gh["citation"].endswith(m.group(1))


# ----------------------------------------------------------------------------- JSON and CLI


def test_912_round_trips_through_json(g912):
    catalog, edges = g912
    assert json.loads(json.dumps(catalog)) == catalog
    assert json.loads(json.dumps(catalog, ensure_ascii=False)) == catalog
    assert json.loads(gen.dumps_catalog(catalog)) == catalog
    assert json.loads(gen.dumps_edges(edges)) == edges


def test_cli_writes_same_bytes_as_api(tmp_path, capsys):
    out = tmp_path / "out"
    assert gen.main(["--records", "200", "--seed", "7", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "catalog.json" in err and "edges.json" in err and "200 records" in err
    catalog, edges = gen.generate_catalog(200, seed=7)
    assert (out / "catalog.json").read_text(encoding="utf-8") == gen.dumps_catalog(catalog)
    assert (out / "edges.json").read_text(encoding="utf-8") == gen.dumps_edges(edges)


def test_parallel_writer_same_bytes(tmp_path):
    n = 600  # more than one worker chunk
    cat_path, edge_path, n_edges = gen.write_catalog(n, tmp_path / "par", seed=4, jobs=2)
    catalog, edges = gen.generate_catalog(n, seed=4)
    assert cat_path.read_text(encoding="utf-8") == gen.dumps_catalog(catalog)
    assert edge_path.read_text(encoding="utf-8") == gen.dumps_edges(edges)
    assert n_edges == len(edges["edges"])


def test_cli_as_script(tmp_path):
    out = tmp_path / "o"
    proc = subprocess.run([sys.executable, str(GEN_PATH), "--records", "40", "--out", str(out)],
                          capture_output=True, text=True, check=True)
    assert "wrote" in proc.stderr and proc.stdout == ""
    catalog = json.loads((out / "catalog.json").read_text(encoding="utf-8"))
    assert len(catalog["records"]) == 40
    assert json.loads((out / "edges.json").read_text(encoding="utf-8"))["edges"]


# ----------------------------------------------------------------------------- the split into modules


def test_the_same_catalog_for_the_same_seed():
    """The generator's text for a seed, pinned: the benchmarks' catalogs (cached by the generator's code) and the
    tests that count on a generated catalog rely on it. These digests come from the generator that writes the
    catalog's own formats (gen_citations, gen_recommend_cells); a change to the generator that changes its output
    changes them on purpose."""
    pinned = {(60, 3): "858694899162486c5334fd49e15ba822c3b9a0018f701a790ea001f1668e7c0d",
              (25, None): "e1dacf4a0b3c4c0e5cef28a4d483aa8055b76f2aeb4583d0e0ecce74e4957025"}
    for (records, seed), digest in pinned.items():
        catalog, edges = gen.generate_catalog(records) if seed is None else gen.generate_catalog(records, seed=seed)
        text = gen.dumps_catalog(catalog) + gen.dumps_edges(edges)
        assert hashlib.sha256(text.encode()).hexdigest() == digest, (records, seed)


def test_iter_records_yields_the_catalog_records():
    catalog, _ = gen.generate_catalog(30, seed=5)
    assert list(gen.iter_records(30, seed=5)) == catalog["records"]


def test_every_generator_module_is_small_and_says_what_it_is():
    modules = [GEN_PATH, *sorted(GEN_PATH.parent.glob("gen_*.py"))]
    assert len(modules) > 5
    for path in modules:
        text = path.read_text(encoding="utf-8")
        assert len(text.splitlines()) <= 500, path.name
        doc = text.split('"""', 2)[1].strip()
        assert doc and "generator" in doc.splitlines()[0].lower(), path.name


# ----------------------------------------------------------------------------- the catalog's own formats
# The cells the catalog's own tools read (recommend_for_project, between_models, predict_citations,
# list_breakouts), checked against the rules of ../shared/data/full-shape/README.md and, format by format,
# against that 912-record catalog and the seed record.

FULL_SHAPE = ROOT.parent / "shared" / "data" / "full-shape" / "landscape.json.gz"
if not FULL_SHAPE.exists():
    FULL_SHAPE = Path("/work/shared/data/full-shape/landscape.json.gz")
SEED = ROOT.parent / "shared" / "data" / "seed-record.json"
if not SEED.exists():
    SEED = DATA / "seed-record.json"
VOCABULARY = {"scoped-agentic", "long-running-session", "multi-agent-coordination", "memory-augmented-chat",
              "code-generation-focused", "analytical-summarization", "latency-sensitive", "offline-capable"}
CITES_RE = re.compile(r"^~?(?P<n>[\d,.]+k?) cites? (?:· )?(?P<m>[\d,.]+k?) ?/ ?yr(?: \(Semantic Scholar\))?$")


@pytest.fixture(scope="module")
def full_shape():
    if not FULL_SHAPE.exists():
        pytest.skip(f"the full-shape catalog is not here ({FULL_SHAPE}): ../shared/data/full-shape/")
    import gzip

    with gzip.open(FULL_SHAPE, "rt", encoding="utf-8") as fh:
        return json.load(fh)["records"]


@pytest.fixture(scope="module")
def odd():
    """The odd values the generator writes on purpose (gen_recommend_cells.ODD), slug by slug."""
    return sys.modules["gen_recommend_cells"].ODD


def _cells(records, slug, *statuses):
    return [(r, r["cells"][slug]["value"]) for r in records if not statuses or r["cells"][slug]["status"] in statuses]


def _number(text: str) -> float:
    """A count as the catalog writes it: "1,234", "1.2k"."""
    text = text.replace(",", "")
    return float(text[:-1]) * 1000 if text.endswith("k") else float(text)


def _clean_points(points) -> bool:
    """Consecutive years, each point {year, cum, infl} of integers, cum never falling, 0 <= infl <= cum."""
    if not all(isinstance(p, dict) and set(p) == {"year", "cum", "infl"}
               and all(type(p[k]) is int for k in p) for p in points):
        return False
    years = [p["year"] for p in points]
    return (years == list(range(years[0], years[0] + len(years))) and
            all(0 <= p["infl"] <= p["cum"] for p in points) and
            all(a["cum"] <= b["cum"] for a, b in zip(points, points[1:])))


def test_citation_trajectories_are_yearly_points(g912):
    values = [v for _, v in _cells(g912[0]["records"], "citation-trajectory", "real-data")]
    assert len(values) > 100
    clean, odd_kinds = 0, Counter()
    for value in values:
        points = json.loads(value)  # every one is JSON
        assert isinstance(points, list) and 3 <= len(points) <= 11 and '"ym"' not in value
        if _clean_points(points) and any(p["cum"] for p in points):
            clean += 1
            assert 2000 <= points[0]["year"] and points[-1]["year"] <= 2026
            continue
        years = [p.get("year") for p in points]
        if not all(type(y) is int for y in years):
            odd_kinds["invalid item"] += 1
        elif years != sorted(years):
            odd_kinds["unsorted"] += 1
        elif len(set(years)) < len(years):
            odd_kinds["repeated year"] += 1
        elif years[-1] - years[0] + 1 > len(years):
            odd_kinds["gap"] += 1
        else:
            assert all(p["cum"] == 0 for p in points), value
            odd_kinds["all zeros"] += 1
    assert clean >= 0.85 * len(values)
    assert len(odd_kinds) >= 4, odd_kinds  # the catalog's odd shapes, a few each


def test_citations_are_n_cites_m_per_year_in_the_written_variants(g912):
    rows = _cells(g912[0]["records"], "citations", "real-data")
    assert len(rows) > 100
    variants = Counter()
    for record, value in rows:
        found = CITES_RE.match(value)
        assert found, value
        total = _number(found["n"].lstrip("~"))
        variants.update(v for v, present in (("thousands", "," in value), ("k", "k " in value),
                                             ("about", value.startswith("~")), ("one cite", " cite " in value)) if present)
        trajectory = record["cells"]["citation-trajectory"]
        points = json.loads(trajectory["value"]) if trajectory["status"] == "real-data" else []
        if points and _clean_points(points) and points[-1]["cum"]:  # (an all-zero trajectory says nothing)
            last = points[-1]["cum"]
            assert abs(total - last) <= (50 if "k " in value else 0), (value, last)  # N: the trajectory's count
    assert set(variants) == {"thousands", "k", "about", "one cite"}, variants


def test_use_case_tags_are_in_the_catalogs_vocabulary(g912, odd):
    records = g912[0]["records"]
    tagged, odd_rows = 0, 0
    for record in records:
        tags, anti = (record["cells"][slug] for slug in ("use-case-tags", "use-case-anti-tags"))
        if tags["status"] != "estimate":
            continue
        tagged += 1
        mine = [t.strip().lower() for t in tags["value"].split(",")]
        outside = [t for t in mine if t not in VOCABULARY]
        if outside or tags["value"] != tags["value"].lower():
            odd_rows += 1
            assert all(" " + t in odd["use-case-tags"] for t in outside), tags["value"]
        if anti["status"] == "estimate":
            theirs = {t.strip() for t in anti["value"].split(",")}
            assert theirs <= VOCABULARY and not theirs & set(mine), (tags["value"], anti["value"])
    assert tagged > 0.8 * len(records) and odd_rows < 0.05 * tagged


def test_cost_tiers_and_capability_bands_follow_cost_and_score(g912, odd):
    records = g912[0]["records"]
    tiers, bands = Counter(), Counter()
    for record in records:
        cells = record["cells"]
        tier, band = cells["cost-tier"], cells["capability-band"]
        score, cost = cells["capability-composite-score"], cells["cost-input-usd-per-mtok"]
        if tier["status"] == "estimate":
            assert tier["value"].lower() in {"free", "budget", "mid", "premium"} or tier["value"] in odd["cost-tier"]
            tiers[tier["value"]] += 1
            if cost["status"] == "estimate" and tier["value"] in {"free", "budget", "mid", "premium"}:
                dollars = float(cost["value"].strip("$ /MTok"))
                want = "free" if dollars == 0 else "budget" if dollars < 1 else "mid" if dollars < 5 else "premium"
                assert tier["value"] == want, (cost["value"], tier["value"])
        if cost["status"] not in ("no-data", "not-applicable"):
            assert re.fullmatch(r"\d+(\.\d\d)?|\$\d+\.\d\d / MTok", cost["value"]), cost["value"]
        if score["status"] == "estimate" and score["value"] not in odd["capability-composite-score"]:
            points = float(score["value"])
            assert 0 <= points <= 100
            if band["status"] == "estimate" and band["value"] in {"entry", "competent", "frontier"}:
                assert band["value"] == ("entry" if points < 40 else "competent" if points < 75 else "frontier")
        if band["status"] == "estimate":
            assert band["value"].lower() in {"entry", "competent", "frontier"} or band["value"] in odd["capability-band"]
            bands[band["value"]] += 1
    assert {"free", "budget", "mid", "premium"} <= set(tiers) and {"entry", "competent", "frontier"} <= set(bands)
    for counts in (tiers, bands):
        assert sum(n for v, n in counts.items() if v not in {"free", "budget", "mid", "premium", "entry", "competent",
                                                              "frontier"}) < 0.06 * sum(counts.values())


def test_last_verified_dates_are_dates_some_stale(g912, odd):
    for slug in ("cost-last-verified", "capability-last-verified"):
        rows = _cells(g912[0]["records"], slug, "estimate")
        dates = [(r, v) for r, v in rows if DATE_RE.match(v)]
        assert all(v in odd[slug] for _, v in rows if not DATE_RE.match(v))
        assert len(dates) > 0.95 * len(rows)
        stale = sum(1 for r, v in dates if v < r["last_verified_at"])
        assert 0.05 < stale / len(dates) < 0.25, slug  # for the recommenders' staleness caveats


def test_every_recommendation_estimate_says_where_it_came_from(g912):
    sources = Counter()
    for record in g912[0]["records"]:
        for slug in ("use-case-tags", "use-case-anti-tags", "cost-input-usd-per-mtok", "cost-tier",
                     "capability-composite-score", "capability-band"):
            if record["cells"][slug]["status"] != "estimate":
                continue
            p = record["_provenance"][slug]
            sources[(p["source"], p["verified"])] += 1
            assert (p["source"] == "human" and p["author"] and DATE_RE.match(p["edited_at"])) or \
                (p["source"] == "llm" and p["model_id"] and DATE_RE.match(p["generated_at"])), p
    assert set(sources) == {("human", True), ("llm", True), ("llm", False)}  # LLM-unverified cells for the caveats


def _kind(value: str) -> str:
    """A cell value's format (not its value): empty, not applicable, JSON with its keys, date, number, ..."""
    if value == "":
        return "empty"
    if value.lower().startswith("not applicable"):
        return "not-applicable"
    if value.startswith(("[", "{")):
        data = json.loads(value)
        if isinstance(data, list):
            return "json-list:" + ",".join(sorted({k for item in data if isinstance(item, dict) for k in item}))
        return "json-object:" + ",".join(sorted(data))
    for kind, pattern in (("date", r"\d{4}-\d{2}-\d{2}"), ("number", r"-?\d+(\.\d+)?"),
                          ("usd-per-mtok", r"\$\d+(\.\d+)? / MTok"), ("cites-per-year", CITES_RE.pattern.strip("^$"))):
        if re.fullmatch(pattern, value):
            return kind
    return "text"


def test_every_cell_is_in_a_format_of_the_full_shape_catalog(g912, full_shape):
    """Cell by cell, the formats the generator writes are formats of the full-shape catalog (its monthly citation
    trajectories, left over from an earlier generator, excepted), and every format the catalog's own cells take
    there (its recommendation cells, yearly trajectories, "N cites M/yr") is one the generator writes too."""
    records = g912[0]["records"]
    catalog_slugs = ("citation-trajectory", "citations", "use-case-tags", "use-case-anti-tags", "cost-tier",
                     "cost-input-usd-per-mtok", "capability-composite-score", "capability-band",
                     "cost-last-verified", "capability-last-verified")
    seed = json.loads(SEED.read_text(encoding="utf-8"))["cells"]
    for slug in full_shape[0]["cells"]:
        ours = Counter(_kind(r["cells"][slug]["value"]) for r in records)
        theirs = Counter(_kind(r["cells"][slug]["value"]) for r in full_shape)
        theirs.pop("json-list:cum,ym", None) if slug == "citation-trajectory" else None
        assert set(ours) <= set(theirs), (slug, ours, theirs)
        assert _kind(seed[slug]["value"]) in ours, slug
        if slug in catalog_slugs:
            assert set(theirs) - {"not-applicable"} <= set(ours), (slug, ours, theirs)
    assert not any('"ym"' in r["cells"]["citation-trajectory"]["value"] for r in records)


def test_paper_and_model_rows_in_the_proportions_of_the_full_shape_catalog(g912, full_shape):
    def shares(records):
        n = len(records)
        return {"model rows": sum(r["sections"][0]["section"].startswith("Foundation models") for r in records) / n,
                "rows with a citation trajectory": len(_cells(records, "citation-trajectory", "real-data")) / n,
                "rows with citations": len(_cells(records, "citations", "real-data")) / n,
                "rows with use-case tags": len(_cells(records, "use-case-tags", "estimate")) / n,
                "rows with a composite score": len(_cells(records, "capability-composite-score", "estimate")) / n}

    ours, theirs = shares(g912[0]["records"]), shares(full_shape)
    for what, share in theirs.items():
        assert abs(ours[what] - share) < 0.06, (what, ours[what], share)
