"""Phase 2 of the generator: one full record from its skeleton, on its own RNG stream.

Sections, taxonomy, the 107 cells (the 21 site cells from a donor record of the same section, the
seed-only ones from ``gen_cells``), provenance, lifecycle and decay, history, corroboration.
"""

from __future__ import annotations

import bisect
import datetime as _dt
import random
import re

from gen_cells import Ctx, _cell, _seed_slug_value
from gen_citations import citation_cells
from gen_model import Model, _is_gh
from gen_random import _DAY0, _date, _hex, _pick, _ts
from gen_recommend_cells import category, recommend_cells, recommend_provenance
from gen_skeletons import Skel
from gen_vocabulary import (AUTHORS, AXES, CATALOG_PAGE, DECAY_CAUSES, DECAY_EVIDENCE, GENERIC_NA, MODEL_IDS,
                            PROVENANCE_SOURCES, SCRAPERS, _label)


_GH_VALUE = re.compile(r"github\.com/[\w.-]+/[\w.-]+")
_OWNER_VALUE = re.compile(r"^[\w.-]+/[\w.-]+(?= —)")


def _record(model: Model, sk: Skel, seed: int, indeg: int):
    rng = random.Random(f"landscape-record:{seed}:{sk.idx}")
    rand = rng.random
    sec = sk.section
    donor = _pick(rng, model.by_sec[sec])
    sec_recs = model.by_sec[sec]

    # record-level dates: most like the site snapshot, some later re-verifications
    if rand() < 0.75:
        date = model.site_dates(rng)
        date_ord = _dt.date.fromisoformat(date).toordinal()
    else:
        date_ord = _DAY0 + 2 + int(rand() * 165)
        date = _date(date_ord)

    ctx = Ctx()
    ctx.date, ctx.date_ord = date, date_ord
    own = sk.url or "https://%s/" % sk.domain
    ctx.vendor = (own, "https://docs.%s/" % sk.domain, "https://%s/docs" % sk.domain,
                  "https://%s/pricing" % sk.domain, own)
    ctx.gh = "https://github.com/%s/%s" % (sk.owner, sk.repo)
    ctx.registry = ("https://pypi.org/project/%s/" % sk.pkg, "https://www.npmjs.com/package/%s" % sk.pkg)
    ctx.third = ("https://sacra.com/c/%s/" % sk.pkg, "https://www.crunchbase.com/organization/%s" % sk.pkg,
                 "https://news.ycombinator.com/item?id=%d" % (40000000 + int(rand() * 6000000)),
                 "https://techcrunch.com/2025/%02d/%02d/%s-raises/" % (1 + int(rand() * 12), 1 + int(rand() * 28), sk.pkg),
                 "https://www.semanticscholar.org/paper/" + _hex(rng, 40))
    ctx.page = CATALOG_PAGE + sk.id

    tier = sk.tier  # drawn per section in the skeleton (P(tier | section) from the site data)

    # sections: primary (+ sometimes a cross-listing)
    sub = model.subsection[sec](rng) or None
    sections = [{"section": sec, "subsection": sub, "primary": True,
                 "reason": None if rand() < 0.9 else "Canonical placement: " + donor["cells"]["type"]["value"][:80]}]
    if rand() < 0.12:
        other = model.sections(rng)
        if other != sec:
            osub = model.subsection[other](rng) or None
            sections.append({"section": other, "subsection": osub, "primary": False,
                             "reason": "Cross-listed: also fits " + other.split(" — ")[0].lower()})

    # taxonomy: donor's primary value or the section's, sometimes secondary values
    taxonomy = {}
    for a in AXES:
        v = donor["taxonomy"][a][0]["value"] if rand() < 0.5 else model.tax[sec][a](rng)
        if rand() < 0.05:
            v = model.tax_global[a](rng)
        reason = None
        if v == "n/a":
            if rand() < 0.5:
                reason = "— not applicable"
        elif rand() < 0.12:
            reason = v + " (" + _pick(rng, ("per docs", "inferred from API", "paper §3", "no resolution", "vendor claim")) + ")"
        vals = [{"value": v, "primary": True, "reason": reason}]
        if v != "n/a" and rand() < 0.2:
            for _ in range(1 + (rand() < 0.3)):
                w = model.tax_secondary[a](rng)
                if all(w != x["value"] for x in vals):
                    vals.append({"value": w, "primary": False, "reason": None if rand() < 0.7 else "secondary path"})
        taxonomy[a] = vals

    # ---- cells ----
    cells = {}
    lic_value = None
    mcp_value = None
    na_site = []
    for slug in model.site_slugs:
        if slug == "gh":
            pool = model.gh_pool[sk.has_repo]
            if rand() < 0.6:
                same = [p for p in (donor["cells"]["gh"],) if _is_gh(p["citation"]) == sk.has_repo]
                value, status = (same[0]["value"], same[0]["status"]) if same else _pick(rng, pool)[:2]
            else:
                value, status = _pick(rng, pool)[:2]
            if sk.has_repo:
                value = _GH_VALUE.sub("github.com/%s/%s" % (sk.owner, sk.repo), value)
                value = _OWNER_VALUE.sub("%s/%s" % (sk.owner, sk.repo), value)
        else:
            r = rand()
            if r < 0.5:
                c = donor["cells"].get(slug)
                value, status = (c["value"], c["status"]) if c else _pick(rng, model.global_cells[slug])[:2]
            elif r < 0.85:
                c = _pick(rng, sec_recs)["cells"].get(slug)
                value, status = (c["value"], c["status"]) if c else _pick(rng, model.global_cells[slug])[:2]
            else:
                value, status = _pick(rng, model.global_cells[slug])[:2]
        if status == "not-applicable":
            na_site.append(value)
        if slug == "license":
            lic_value = value if status == "real-data" else None
        elif slug == "mcp-support":
            mcp_value = value if status == "real-data" else None
        cells[slug] = _cell(model, ctx, sk, slug, value, status, rng)
    ctx.na_texts = na_site or GENERIC_NA
    tech_status = [cells[s]["status"] for s in model.tech_slugs]
    # the cells the catalog's own tools read, in its formats, drawn together so that they agree
    ctx.catalog = {**recommend_cells(rng, category(sec, sk.paperish), date_ord, ctx.na_texts),
                   **citation_cells(rng, sk.paperish)}

    for slug in model.slugs:
        if slug in cells:
            continue
        value, status = _seed_slug_value(model, ctx, sk, slug, tech_status, lic_value, mcp_value, indeg, rng)
        cells[slug] = _cell(model, ctx, sk, slug, value, status, rng)
    cells = {s: cells[s] for s in model.slugs}
    for slug, path in (("citation-trajectory", "api.semanticscholar.org/graph/v1/paper/"),
                       ("citations", "www.semanticscholar.org/paper/")):
        if cells[slug]["status"] == "real-data":  # as the catalog cites them: the paper on Semantic Scholar
            cells[slug].update(citation="https://" + path + _hex(rng, 40), tier="T2", source_class="third-party")

    fd = cells["freshness-date"]
    if "last_verified_at" in fd:
        fd["last_verified_at"] = date

    # tricky real citations: "URL (remark)" like the seed's integration-count cell
    ic = cells["integration-count"]
    if ic["citation"] and ic["status"] == "real-data" and rand() < 0.3:
        ic["citation"] = ic["citation"] + (" (%d catalog inbound edges; %s)" % (indeg, _pick(rng, ("barebones", "docs list more", "vendor count differs", "as of %s" % date))))
    if rand() < 0.004:
        c = cells["desc"]
        c["value"] = c["value"] + " 🧠 " + _pick(rng, ("Zürich-built", "北京 lab", "naïve café test", "Ünïcödé ✓"))

    rec = {"id": sk.id, "name": sk.name, "tier": tier, "url": sk.url, "last_verified_at": date,
           "sections": sections, "taxonomy": taxonomy, "cells": cells}

    # _provenance for a share of cells
    if rand() < 0.6:
        k = 3 + int(rand() * 25)
        chosen = sorted(rng.sample(range(len(model.slugs)), k))
        prov = {}
        for j in chosen:
            slug = model.slugs[j]
            src = PROVENANCE_SOURCES[bisect.bisect_right((0.3, 0.65, 0.9), rand())]
            verified = rand() < {"human": 0.9, "scrape": 0.6, "llm": 0.4, "legacy": 0.3}[src]
            p = {"source": src, "verified": verified}
            if src == "human":
                p["author"] = _pick(rng, AUTHORS)
            elif src == "llm":
                p["model_id"] = _pick(rng, MODEL_IDS)
            elif src == "scrape":
                p["scraper"] = _pick(rng, SCRAPERS)
            # minutes since day 0; recorded before the record's verification day,
            # verified after recorded and no later than the record's verification day
            t_rec = (date_ord - 1 - int(rand() * 90)) * 1440 + int(rand() * 1440)
            p["recorded_at"] = _ts(t_rec)
            if verified:
                p["verified_at"] = _ts(min(t_rec + 60 + int(rand() * 20 * 1440), date_ord * 1440 + 1439))
            prov[slug] = p
        rec["_provenance"] = prov
    catalog_prov = recommend_provenance(rng, cells, date_ord)
    if catalog_prov:
        rec.setdefault("_provenance", {}).update(catalog_prov)

    # lifecycle, decay
    decayed = rand() < 0.03
    if decayed:
        cause = DECAY_CAUSES[bisect.bisect_right((0.12, 0.22, 0.37, 0.42, 0.57, 0.82, 0.92), rand())]
        d_ord = date_ord - 20 - int(rand() * 500)
        ev = _pick(rng, DECAY_EVIDENCE[cause]).format(
            o=_pick(rng, ("Databricks", "Salesforce", "Snowflake", "ServiceNow", "Atlassian")),
            d=_date(d_ord), u=ctx.vendor[0] if cause != "archived" else ctx.gh)
        rec["lifecycle"] = {"status": "decayed", "severity": 3, "note": "decay: " + cause}
    else:
        r = rand()
        if r < 0.88:
            rec["lifecycle"] = {"status": "active", "severity": 0, "note": None}
        elif r < 0.94:
            rec["lifecycle"] = {"status": "watch", "severity": 1, "note": "release cadence slowed"}
        else:
            rec["lifecycle"] = {"status": "stale", "severity": 2, "note": "no release or commit in 6+ months"}

    # history
    r = rand()
    n_hist = 0 if r < 0.3 else 1 if r < 0.7 else 2 if r < 0.88 else 3 if r < 0.96 else 4
    hist = []
    if n_hist:
        days = sorted(date_ord - int(rand() * 160) for _ in range(n_hist))
        pr = 20 + int(rand() * 150)
        for h, d in enumerate(days):
            pr += 1 + int(rand() * 40)
            kind = "update" if rand() < 0.75 else ("correction" if rand() < 0.7 else "reclassify")
            changes = []
            if kind == "reclassify":
                changes.append({"field": "section", "label": "Section", "from": model.sections(rng), "to": sec, "source": None})
            else:
                for _ in range(1 + (rand() < 0.3) + (rand() < 0.1)):
                    slug = _pick(rng, model.site_slugs) if rand() < 0.7 else _pick(rng, model.slugs)
                    cur = cells[slug]
                    prev = model.global_cells[slug] if slug in model.global_cells else None
                    frm = _pick(rng, prev)[0] if prev else ("" if rand() < 0.5 else "searched not found")
                    changes.append({"field": slug, "label": _label(slug), "from": frm,
                                    "to": cur["value"] if h == n_hist - 1 else _pick(rng, prev)[0] if prev else cur["value"],
                                    "source": cur["citation"]})
            hist.append({"date": _date(d), "commit": _hex(rng, 10), "pr": pr, "kind": kind, "changes": changes})
    rec["history"] = hist

    cited = sum(1 for c in cells.values() if c["citation"])
    third = sum(1 for c in cells.values() if c.get("source_class") == "third-party")
    rec["corroboration"] = {"cited_cells": cited, "third_party_cells": third}
    if decayed:
        rec["decay_cause"] = cause
        rec["decay_date"] = _date(d_ord)
        rec["decay_evidence"] = ev
    return rec
