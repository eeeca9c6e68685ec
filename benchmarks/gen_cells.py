"""The generator's cells: one cell's citation, claim tier and dates, and the values of the seed-only slugs.

``Ctx`` holds what a record's cells share (its vendor, repository, registry and third-party URLs,
its verification date, its not-applicable texts).
"""

from __future__ import annotations

import datetime as _dt
import json

from gen_random import _DAY0, _date, _pick
from gen_skeletons import Skel
from gen_vocabulary import (CAP_SOURCES, CATALOG_REPO, COST_FEATURES, DFR_BY_SLUG, ESTIMATE_SLUGS, FEATURE_PREFIXES,
                            FEATURE_REAL, FEATURE_STATUS, FIRST_NAMES, LAST_NAMES, MTOK_SLUGS, PAPER_SLUGS, REPOISH,
                            RESEARCH_VALUES, TRAJECTORY_SLUGS, _rollup)


class Ctx:
    __slots__ = ("vendor", "gh", "registry", "third", "page", "date_ord", "date", "na_texts", "na_pool", "catalog")


def _fill(template: str, sk: Skel, rng) -> str:
    if "{" not in template:
        return template
    return template.format(
        n=int(rng.random() * 900000) + 1000, k=int(rng.random() * 90) + 1, h=int(rng.random() * 400),
        p=int(rng.random() * 12) + 1, i=int(rng.random() * 60) + 1, j=int(rng.random() * 900) + 100,
        f="%.1f" % (40 + rng.random() * 55), g="%.1f" % (50 + rng.random() * 45),
        pkg=sk.pkg, repo="%s/%s" % (sk.owner, sk.repo), arxiv=sk.arxiv or "2405.%05d" % int(rng.random() * 20000),
        a=_pick(rng, FIRST_NAMES) + " " + _pick(rng, LAST_NAMES), b=_pick(rng, FIRST_NAMES) + " " + _pick(rng, LAST_NAMES),
        o=_pick(rng, ("Databricks", "Salesforce", "Snowflake", "ServiceNow", "Atlassian")),
        d=_date(_DAY0 - 30 - int(rng.random() * 400)), u="https://%s/blog/update" % sk.domain,
    )


def _citation(model, ctx, sk, slug, rng):
    """(citation, source_class) for a cited cell."""
    r = rng.random()
    if sk.has_repo and slug in REPOISH and r < 0.8:
        url = ctx.gh
        if slug == "license" or slug == "licensing-bucket":
            url += "/blob/main/LICENSE"
        elif slug == "latest-release":
            url += "/releases"
        return url, "repo"
    if slug == "taxonomy-three-layer-rollup":
        return CATALOG_REPO + "/blob/main/docs/schema/section-to-three-layer-rollup.json", "repo"
    if slug == "freshness-date":
        return ctx.page, "catalog"
    pref = model.seed_class.get(slug) or "vendor"
    if r < 0.93 and pref != "repo":
        klass = pref if rng.random() < 0.75 else ("vendor" if rng.random() < 0.8 else "third-party")
    else:
        klass = "vendor" if rng.random() < 0.85 else "third-party"
    if klass == "registry":
        return _pick(rng, ctx.registry), "registry"
    if klass == "third-party":
        return _pick(rng, ctx.third), "third-party"
    if klass == "catalog":
        return ctx.page, "catalog"
    if sk.has_repo and rng.random() < 0.05:
        return ctx.gh, "repo"
    return _pick(rng, ctx.vendor), "vendor"


def _cell(model, ctx, sk, slug, value, status, rng):
    rand = rng.random
    r = rand()
    citation = None
    klass = None
    if status == "real-data" or status == "depth-floor-reached":
        citation, klass = _citation(model, ctx, sk, slug, rng)
    elif status == "not-applicable":
        if r < 0.06:
            citation, klass = _citation(model, ctx, sk, slug, rng)
    elif status == "estimate":
        if r < 0.01:
            citation, klass = _pick(rng, ctx.vendor), "vendor"
    # claim tier by the catalog's own heuristic (SCHEMA 3a): estimate/no-data -> T3,
    # GitHub citation -> T1, other citation -> T2, uncited not-applicable -> T3
    if status == "estimate" or status == "no-data":
        tier = "T3"
    elif citation:
        tier = "T1" if citation.startswith("https://github.com/") else "T2"
    else:
        tier = "T3" if status == "not-applicable" else "T2"
    cell = {"value": value, "citation": citation, "status": status, "tier": tier}
    if rand() < model.date_p[slug]:
        x = rand()
        if x < 0.55:
            d = ctx.date_ord
        elif x < 0.95:
            d = ctx.date_ord - 1 - int(rng.random() * 60)
        else:
            d = ctx.date_ord + 1 + int(rng.random() * 7)
        cell["last_verified_at"] = _date(d)
    if klass is not None and rng.random() < 0.98:
        cell["source_class"] = klass
    return cell


def _trajectory(rng, start_ord, end_ord, kind):
    pts = []
    d = _dt.date.fromordinal(start_ord)
    end = _dt.date.fromordinal(end_ord)
    y, m = d.year, d.month
    cum = 0
    base = 10 ** (1 + rng.random() * 4)
    steps = 0
    while (y, m) <= (end.year, end.month) and steps < 24:
        monthly = int(base * (0.6 + rng.random()))
        cum += monthly
        item = {"ym": "%04d-%02d" % (y, m)}
        if kind == "download":
            item["monthly"] = monthly
        item["cum"] = cum
        pts.append(item)
        m += 1
        if m > 12:
            y, m = y + 1, 1
        steps += 1
    return json.dumps(pts, separators=(",", ":"))


def _seed_slug_value(model, ctx, sk, slug, tech_status, lic_value, mcp_value, indeg, rng):
    """(value, status) for one of the 86 slugs that only the seed record has."""
    if slug in ctx.catalog:  # the cells in the catalog's own formats (gen_citations, gen_recommend_cells)
        return ctx.catalog[slug]
    rand = rng.random
    seed_st = model.seed_status[slug]
    if slug.startswith(FEATURE_PREFIXES) or slug in COST_FEATURES:
        st = FEATURE_STATUS(rng)
        if st == "no-data":
            return ("" if rand() < 0.9 else "no data"), st
        if st == "real-data":
            return _pick(rng, FEATURE_REAL), st
        if st == "depth-floor-reached":
            return "searched not found", st
        return _pick(rng, ctx.na_texts), st
    if slug in ESTIMATE_SLUGS:  # those left: the pricing model and the benchmark sources
        r = rand()
        if r < 0.1:
            return "", "no-data"
        if r < 0.14:
            return _pick(rng, ctx.na_texts), "not-applicable"
        if slug == "cost-pricing-model":
            v = _pick(rng, ("subscription", "usage-based", "free", "open-source", "freemium", "enterprise-contract"))
        else:
            v = _pick(rng, CAP_SOURCES)
        return v, "estimate"
    if slug in MTOK_SLUGS:  # the output cost (the input cost is a recommendation cell)
        r = rand()
        if r < 0.5:
            return "not applicable — " + _pick(rng, ("OSS, no per-token cost", "OSS plus per-user subscription, no per-token cost", "research artefact")), "not-applicable"
        if r < 0.8:
            return "%.2f" % (0.05 + rand() * 15), "estimate"
        if r < 0.9:
            return "$%.2f / MTok" % (0.05 + rand() * 15), "real-data"
        return "", "no-data"
    if slug in TRAJECTORY_SLUGS:
        if slug == "commit-trajectory":
            if sk.has_repo and rand() < 0.85:
                return _trajectory(rng, ctx.date_ord - 30 * (6 + int(rand() * 30)), ctx.date_ord - 30, "commit"), "real-data"
            return ("not applicable — no GitHub repo", "not-applicable") if rand() < 0.7 else ("", "no-data")
        if not sk.paperish and rand() < 0.35:
            return _trajectory(rng, ctx.date_ord - 30 * (3 + int(rand() * 12)), ctx.date_ord - 30, "download"), "real-data"
        return ("not applicable — no package registry", "not-applicable") if rand() < 0.6 else ("", "no-data")
    if slug == "freshness-date":
        return ctx.date, "real-data"
    if slug == "taxonomy-three-layer-rollup":
        return _rollup(sk.section), "real-data"
    if slug == "developer-activity-opendigger":
        if sk.has_repo and rand() < 0.8:
            return json.dumps({"activity": round(rand() * 400, 2), "as_of": _date(ctx.date_ord)[:7],
                               "openrank_12mo": round(rand() * 20, 2), "openrank_current": round(rand() * 15, 2),
                               "participants": int(rand() * 300)}, separators=(",", ":")), "real-data"
        return "", "no-data"
    if slug == "licensing-bucket":
        if lic_value:
            low = lic_value.lower()
            if any(x in low for x in ("bsl", "sspl", "elastic", "business source", "commons clause")):
                v = "source-available"
            elif any(x in low for x in ("proprietary", "closed", "commercial")):
                v = "proprietary"
            elif "weights" in low or "llama" in low or "rail" in low:
                v = "open-weights"
            else:
                v = "open-source"
            return v, "real-data"
        return ("proprietary", "real-data") if rand() < 0.5 else (_pick(rng, ctx.na_texts), "not-applicable")
    if slug == "protocol-support":
        if mcp_value:
            low = mcp_value.lower()
            if low.startswith("no ") or "not " in low[:20]:
                return "none found", "real-data"
            v = "mcp-server" if "server" in low or "native" in low else "mcp-client"
            if rand() < 0.15:
                v += ", a2a"
            return v, "real-data"
        r = rand()
        return ("none found", "depth-floor-reached") if r < 0.5 else (("", "no-data") if r < 0.8 else (_pick(rng, ctx.na_texts), "not-applicable"))
    if slug == "sdk-languages":
        if sk.has_repo or rand() < 0.3:
            return _pick(rng, ("python", "python, typescript", "typescript", "go", "rust", "java", "python, go")), "real-data"
        return ("", "no-data") if rand() < 0.5 else (_pick(rng, ctx.na_texts), "not-applicable")
    if slug == "compliance-certifications":
        r = rand()
        if r < 0.35:
            return "not applicable — no hosted service", "not-applicable"
        if r < 0.6:
            return _pick(rng, ("SOC 2 Type II", "SOC 2 Type II; ISO 27001", "HIPAA BAA available", "ISO 42001; SOC 2")), "real-data"
        if r < 0.85:
            return "searched not found", "depth-floor-reached"
        return "", "no-data"
    if slug == "architecture-deployment-locus":
        if rand() < 0.8:
            return _pick(rng, ("local", "cloud", "hybrid", "edge", "on-device", "cloud")), "real-data"
        return "", "no-data"
    if slug == "positioning-platform-vs-product":
        if rand() < 0.85:
            return _pick(rng, ("platform", "product", "library", "research-artefact", "protocol")), "real-data"
        return "", "no-data"
    if slug == "adoption-accelerator":
        r = rand()
        if r < 0.25:
            return _pick(rng, ("betaworks-camp-2016", "yc-s24", "yc-w23", "yc-w25", "techstars-2022", "a16z-speedrun-2025", "none")), "real-data"
        if r < 0.5:
            return "searched not found", "depth-floor-reached"
        if r < 0.85:
            return "", "no-data"
        return _pick(rng, ctx.na_texts), "not-applicable"
    if slug == "maturity":
        if rand() < 0.7:
            return "", "no-data"
        return _pick(rng, ("ga", "beta", "alpha", "research", "deprecated")), "estimate" if rand() < 0.5 else "real-data"

    # research-style columns (modalities ... links): the seed's status for the slug, or the
    # status of one of this record's own site cells (papers get n/a for commercial columns)
    if slug in PAPER_SLUGS:
        if sk.paperish:
            st = "real-data" if rand() < 0.7 else "depth-floor-reached"
        else:
            st = "not-applicable" if rand() < 0.85 else "depth-floor-reached"
    elif rand() < 0.35:
        st = seed_st
    else:
        st = _pick(rng, tech_status)
    if st == "not-applicable":
        if seed_st == "not-applicable" and rand() < 0.4:
            return model.seed_cells[slug]["value"], st
        return _pick(rng, ctx.na_texts), st
    if st == "depth-floor-reached":
        return _pick(rng, DFR_BY_SLUG.get(slug, ("searched not found", "searched not found", "not documented publicly"))), st
    if st == "no-data":
        return "", st
    if st == "estimate":
        st = "real-data"
    if slug == "pricing-specifics":
        return _pick(rng, model.pricing_real), st
    if slug == "adjacent-infrastructure":
        return _pick(rng, model.adjacent), st
    if slug == "integration-count":
        return str(indeg if rand() < 0.3 else int(rand() * 40)), st
    pool = RESEARCH_VALUES.get(slug)
    if not pool or rand() < 0.08:
        return model.seed_cells[slug]["value"] or "searched not found", st
    return _fill(_pick(rng, pool), sk, rng), st
