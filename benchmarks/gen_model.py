"""The generator's model: distributions learned from the three bundled data files.

``Model(data_dir)`` reads ``landscape-site.json``, ``seed-record.json`` and ``landscape.edges.json``
(sections, tiers, taxonomy, URL kinds, the real cells, edge mix and degree curves);
``_model(path)`` caches one per folder.
"""

from __future__ import annotations

import functools
import json
from collections import Counter, defaultdict
from pathlib import Path
from urllib.parse import urlsplit

from gen_random import _counted, _largest_remainder
from gen_vocabulary import AXES, EDGE_TYPES


def _url_kind(url):
    if url is None:
        return "none"
    host = urlsplit(url).hostname or ""
    if host.endswith("arxiv.org"):
        return "arxiv"
    if host == "github.com":
        return "github"
    return "other"


def _is_gh(cit):
    return bool(cit) and cit.startswith("https://github.com/")


class Model:
    """Distributions learned from the three bundled data files."""

    def __init__(self, data_dir: Path):
        site = json.loads((data_dir / "landscape-site.json").read_text(encoding="utf-8"))
        seed = json.loads((data_dir / "seed-record.json").read_text(encoding="utf-8"))
        edges = json.loads((data_dir / "landscape.edges.json").read_text(encoding="utf-8"))
        recs = site["records"]
        self.n_real = len(recs)
        self.seed_cells = seed["cells"]
        self.slugs = tuple(self.seed_cells)
        site_slugs = set()
        for r in recs:
            site_slugs.update(r["cells"])
        self.site_slugs = tuple(s for s in self.slugs if s in site_slugs)
        self.tech_slugs = tuple(s for s in self.site_slugs if s not in ("type", "desc", "claims", "created"))

        # --- sections, tiers, subsections, taxonomy, names, URL kinds ----------------
        sec_count = Counter(r["sections"][0]["section"] for r in recs)
        self.section_counts = dict(sec_count)
        self.sections = _counted(sec_count)
        self.section_list = sorted(sec_count)
        by_sec = defaultdict(list)
        for r in recs:
            by_sec[r["sections"][0]["section"]].append(r)
        self.by_sec = {s: by_sec[s] for s in sorted(by_sec)}
        self.tier = {}
        self.subsection = {}
        self.tax = {}
        self.has_repo_p = {}
        self.url_kind = {}
        self.names = {}
        for s, rs in self.by_sec.items():
            self.tier[s] = _counted(Counter(r["tier"] for r in rs))
            self.subsection[s] = _counted(Counter(r["sections"][0]["subsection"] or "" for r in rs))
            self.tax[s] = {a: _counted(Counter(r["taxonomy"][a][0]["value"] for r in rs)) for a in AXES}
            flags = [_is_gh(r["cells"]["gh"]["citation"]) for r in rs]
            self.has_repo_p[s] = sum(flags) / len(flags)
            kinds = {True: Counter(), False: Counter()}
            for r, f in zip(rs, flags):
                kinds[f][_url_kind(r["url"])] += 1
            self.url_kind[s] = {f: (_counted(c) if c else _counted(Counter({"other": 1})))
                                for f, c in kinds.items()}
            self.names[s] = [r["name"] for r in rs]
        self.all_names = [r["name"] for r in recs]
        self.tax_global = {a: Counter(r["taxonomy"][a][0]["value"] for r in recs) for a in AXES}
        self.tax_secondary = {a: _counted(Counter({v: c for v, c in self.tax_global[a].items() if v != "n/a"}))
                              for a in AXES}
        self.tax_global = {a: _counted(c) for a, c in self.tax_global.items()}
        self.site_dates = _counted(Counter(r["last_verified_at"] for r in recs))

        # hosts of vendor URLs
        hosts = [urlsplit(r["url"]).hostname for r in recs if _url_kind(r["url"]) == "other"]
        self.tld = _counted(Counter(h.rsplit(".", 1)[-1] for h in hosts))
        self.host_prefix = _counted(Counter((h.split(".")[0] if h.count(".") >= 2 else "") for h in hosts))
        paths = [urlsplit(r["url"]).path for r in recs if _url_kind(r["url"]) == "other"]
        self.root_path_p = sum(p in ("", "/") for p in paths) / max(1, len(paths))
        self.arxiv_yymm = sorted(urlsplit(r["url"]).path.rsplit("/", 1)[-1][:4]
                                 for r in recs if _url_kind(r["url"]) == "arxiv")
        owners = Counter()
        for r in recs:
            for u in (r["url"], r["cells"]["gh"]["citation"]):
                if u and u.startswith("https://github.com/") and u.count("/") >= 4:
                    owners[u.split("/")[3]] += 1
        self.gh_owners = sorted(owners)

        # --- the 21 site cells: real (value, status) per section -----------------------
        self.site_status_mix = {}
        for slug in self.site_slugs:
            c = Counter(r["cells"][slug]["status"] for r in recs if slug in r["cells"])
            tot = sum(c.values())
            self.site_status_mix[slug] = {k: v / tot for k, v in c.items()}
        self.global_cells = {slug: [(r["cells"][slug]["value"], r["cells"][slug]["status"], _is_gh(r["cells"][slug]["citation"]))
                                    for r in recs if slug in r["cells"]] for slug in self.site_slugs}
        gh_pairs = self.global_cells["gh"]
        self.gh_pool = {True: [p for p in gh_pairs if p[2]], False: [p for p in gh_pairs if not p[2]]}
        self.na_texts = sorted({c["value"] for r in recs for c in r["cells"].values() if c["status"] == "not-applicable"})
        self.pricing_real = [v for v, st, _ in self.global_cells["pricing"] if st == "real-data"]

        # --- seed-only slugs ------------------------------------------------------------
        self.seed_status = {s: c["status"] for s, c in self.seed_cells.items()}
        self.seed_class = {s: c.get("source_class") for s, c in self.seed_cells.items()}
        self.seed_has_date = {s: "last_verified_at" in c for s, c in self.seed_cells.items()}
        self.date_p = {s: (0.8 if has else 0.25) for s, has in self.seed_has_date.items()}
        adj = [e["evidence"].split(":", 1)[1].strip() for e in edges["edges"]
               if e["evidence"].startswith("adjacent-infrastructure cell:")]
        self.adjacent = sorted(set(adj)) + [self.seed_cells["adjacent-infrastructure"]["value"]]

        # --- edges ----------------------------------------------------------------------
        E = edges["edges"]
        self.edges_per_record = len(E) / self.n_real
        tc = Counter(e["type"] for e in E)
        self.edge_type_counts = {t: tc.get(t, 0) for t in EDGE_TYPES}
        sec_of = {r["id"]: r["sections"][0]["section"] for r in recs}
        self.evidence = {t: sorted({e["evidence"] for e in E if e["type"] == t}) for t in EDGE_TYPES}
        self.edge_gh_p = {t: (sum(e["citation"].startswith("https://github.com/") for e in E if e["type"] == t) / tc[t]
                              if tc[t] else 0.3) for t in EDGE_TYPES}
        self.influential_p = 0.92  # real: all 241 true; a few false keep the boolean honest
        indeg = Counter(e["target"] for e in E)
        outdeg = Counter(e["source"] for e in E)
        self.in_share = self._share_curve(indeg.values())
        self.out_share = self._share_curve(outdeg.values())
        # per-record propensity of a section to be an edge target (hub sections) / source
        n_sec = sec_count
        in_sec = Counter(sec_of[e["target"]] for e in E)
        self.target_prop = {s: (in_sec.get(s, 0) + 0.5) / (n_sec[s] + 1) for s in self.section_list}
        out_sec = Counter(sec_of[e["source"]] for e in E)
        self.source_prop = {s: (out_sec.get(s, 0) + 0.5) / (n_sec[s] + 1) for s in self.section_list}
        # P(type | target section), smoothed; per-record source affinity per type
        glob = {t: tc[t] / len(E) for t in EDGE_TYPES}
        self.type_given_target = {}
        for s in self.section_list:
            cnt = Counter(e["type"] for e in E if sec_of[e["target"]] == s)
            tot = sum(cnt.values())
            self.type_given_target[s] = {t: (cnt.get(t, 0) + 2.0 * glob[t]) / (tot + 2.0) for t in EDGE_TYPES}
        self.source_aff = {}
        for t in EDGE_TYPES:
            cnt = Counter(sec_of[e["source"]] for e in E if e["type"] == t)
            tot = sum(cnt.values()) or 1
            self.source_aff[t] = {s: (cnt.get(s, 0) + 0.5 * n_sec[s] / self.n_real * tot / 10 + 0.01) / n_sec[s]
                                  for s in self.section_list}

    def _share_curve(self, degrees):
        d = sorted(degrees, reverse=True)
        d += [0] * (self.n_real - len(d))
        total = float(sum(d))
        cum, acc = [0.0], 0.0
        for x in d:
            acc += x
            cum.append(acc / total)
        return cum  # cum[k] = share held by the top k of n_real nodes

    def share_profile(self, curve, n: int, m: int):
        """Integer degrees for ranks 1..n whose share curve follows the real one."""
        nr = self.n_real

        def share(q):  # piecewise-linear interpolation of the real curve at quantile q
            x = q * nr
            k = int(x)
            if k >= nr:
                return 1.0
            return curve[k] + (curve[k + 1] - curve[k]) * (x - k)

        prev, w = 0.0, []
        for r in range(1, n + 1):
            cur = share(r / n)
            w.append(max(0.0, cur - prev))
            prev = cur
        return _largest_remainder(m, w)


@functools.lru_cache(maxsize=4)
def _model(data_dir: str) -> Model:
    return Model(Path(data_dir))
