#!/usr/bin/env python3
"""Deterministic generator of synthetic landscape catalogs in the full record shape.

The generator learns its distributions from the bundled real data in ``data/``:

* ``landscape-site.json`` (912 records, 21 cells each): primary-section frequencies,
  subsections, tier per section, taxonomy values per section and axis, URL kinds
  (arXiv / GitHub / vendor site / none) and host shapes, GitHub owners, names, and
  the real ``(value, status)`` pairs of its 21 cell columns (conditioned on the
  record's section through a "donor" record), including real license strings,
  MCP/A2A/OTel wording and not-applicable annotations.
* ``seed-record.json`` (one record, 107 cells): the full cell slug list and order,
  each slug's status, ``source_class`` and whether it carries ``last_verified_at``,
  and the seed-like text for the 86 slugs the site data lacks; the shape of
  ``lifecycle``, ``history`` and ``corroboration``.
* ``landscape.edges.json`` (528 edges): edges per record, the type mix, evidence
  texts, citation hosts, source/target section affinity per type, and the in- and
  out-degree share curves (a few hub records receive most edges).

API::

    catalog, edges = generate_catalog(n_records, seed=20261129)

CLI::

    python benchmarks/generate.py --records N [--seed S] --out DIR [--jobs J]

writes ``DIR/catalog.json`` (bulk catalog shape, one record per line) and
``DIR/edges.json`` (edges shape, one edge per line), streaming one record at a
time; the bytes equal ``dumps_catalog(catalog)`` / ``dumps_edges(edges)`` of
``generate_catalog`` for any ``--jobs``. The writer holds only the small record
skeletons and the edges in memory (about 130 MB at 45,600 records); the
``generate_catalog`` API builds everything in memory (about 1.6 GB at 45,600).

Determinism: only ``random.Random`` instances seeded from ``seed`` (one stream for
the record skeletons, one for the edges, one per record for its body, so the
body of record *i* does not depend on the others); no global random state, no
clock, no ``hash()`` and no set iteration order. Standard library only.
"""

from __future__ import annotations

import argparse
import bisect
import datetime as _dt
import functools
import json
import math
import random
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from urllib.parse import urlsplit

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
DEFAULT_SEED = 20261129
SCHEMA_VERSION = "1.0.0"
GENERATED_AT = "2026-11-29T00:00:00Z"
CATALOG_PAGE = "https://mrpeppersdev.github.io/agent-infrastructure-landscape/systems/"
CATALOG_REPO = "https://github.com/MrPeppersDev/agent-infrastructure-landscape"

ID_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*(--[a-z0-9]+(-[a-z0-9]+)*)?$")
STATUSES = ("real-data", "not-applicable", "depth-floor-reached", "no-data", "estimate")
AXES = ("storage", "retrieval", "persistence", "update", "unit", "governance", "conflict")
EDGE_TYPES = (
    "cites", "runtime-dependency", "integrates-with", "built-on", "competes-with",
    "extends", "same-team-as", "forks", "succeeds",
)
DECAY_CAUSES = (
    "acquired", "pivoted", "unfunded", "lost-benchmark-race", "superseded",
    "archived", "research-complete", "unknown",
)
PROVENANCE_SOURCES = ("human", "scrape", "llm", "legacy")

# --------------------------------------------------------------------------------------
# small deterministic helpers
# --------------------------------------------------------------------------------------


class Weighted:
    """Sample items by weight with one ``rng.random()`` call (cumulative + bisect)."""

    __slots__ = ("items", "cum", "total")

    def __init__(self, pairs):
        pairs = [(item, float(w)) for item, w in pairs if w > 0]
        if not pairs:
            raise ValueError("Weighted needs at least one positive weight")
        self.items = [p[0] for p in pairs]
        cum, acc = [], 0.0
        for _, w in pairs:
            acc += w
            cum.append(acc)
        self.cum = cum
        self.total = acc

    def __call__(self, rng):
        i = bisect.bisect_right(self.cum, rng.random() * self.total)
        return self.items[i if i < len(self.items) else -1]


def _counted(counter):
    """Counter -> Weighted, in a data-independent (sorted) order."""
    return Weighted(sorted(counter.items(), key=lambda kv: (-kv[1], str(kv[0]))))


def _pick(rng, seq):
    return seq[int(rng.random() * len(seq))]


def _slugify(text: str, limit: int = 64) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    if len(s) > limit:
        cut = s[:limit]
        s = cut.rsplit("-", 1)[0] if "-" in cut else cut
    return s


_DAY0 = _dt.date(2026, 5, 14).toordinal()


_DATES: dict = {}


def _date(ordinal: int) -> str:
    d = _DATES.get(ordinal)
    if d is None:
        d = _DATES[ordinal] = _dt.date.fromordinal(ordinal).isoformat()
    return d


def _ts(minutes: int) -> str:
    return "%sT%02d:%02d:00Z" % (_date(minutes // 1440), (minutes % 1440) // 60, minutes % 60)


def _hex(rng, n: int) -> str:
    return "".join("0123456789abcdef"[int(rng.random() * 16)] for _ in range(n))


def _largest_remainder(total: int, weights):
    """Split ``total`` into integers proportional to ``weights`` (ties by position)."""
    s = float(sum(weights))
    if total <= 0 or s <= 0:
        return [0] * len(weights)
    raw = [total * w / s for w in weights]
    out = [int(math.floor(x)) for x in raw]
    rest = total - sum(out)
    order = sorted(range(len(weights)), key=lambda i: (-(raw[i] - out[i]), i))
    for i in order[:rest]:
        out[i] += 1
    return out


# --------------------------------------------------------------------------------------
# vocabulary not present in the real files (seed-like text for the 86 seed-only slugs)
# --------------------------------------------------------------------------------------

LABELS = {
    "type": "Memory model", "desc": "What it does & what's distinct", "claims": "Claims / benefits",
    "modalities": "Modalities", "created": "Created", "latest-release": "Latest release",
    "license": "License", "gh": "GitHub", "mindshare": "Mindshare", "citations": "Citations",
    "funding": "Funding", "customers": "Customers / scale", "pricing": "Pricing",
    "compliance": "Compliance", "data-handling": "Data handling", "deployment": "Deployment",
    "hq": "HQ", "founders": "Founders / pedigree", "volume": "Memory volume / scale",
    "perf": "Performance", "repro": "Reproducibility", "code-release": "Code/weights release",
    "api-surface": "API surface", "latency": "Latency p50/p99", "throughput": "Throughput",
    "backend-storage": "Backend storage", "multi-tenancy": "Multi-tenancy",
    "encryption": "Encryption", "sso-rbac": "SSO / RBAC", "embedding-model": "Embedding model",
    "consistency": "Consistency", "versioning": "Versioning", "tombstoning": "Tombstoning",
    "schema-evolution": "Schema evolution", "namespace": "Namespace primitives",
    "contradiction": "Contradiction handling", "forgetting": "Forgetting policy",
    "mcp-support": "MCP support", "a2a-support": "A2A support", "otel": "OTel",
    "webhooks": "Webhooks / events", "import-export": "Import / export",
    "integration-count": "Integration count", "orchestration": "Orchestration",
    "programmatic-control": "Programmatic control", "vendor-benchmarks": "Vendor benchmarks",
    "pricing-specifics": "Pricing specifics", "agent-abstraction": "Agent abstraction",
    "memory-primitives": "Memory primitives", "llm-lock": "LLM lock", "runtimes": "Runtimes",
    "session-handling": "Session handling", "validated-verticals": "Validated verticals",
    "time-to-running": "Time to running", "anti-fit": "Anti-fit", "optimised-for": "Optimised for",
    "adjacent-infrastructure": "Adjacent infrastructure", "pros": "Pros", "cons": "Cons",
    "links": "Project & sources", "obs-opentelemetry": "OpenTelemetry",
}


def _label(slug: str) -> str:
    if slug in LABELS:
        return LABELS[slug]
    return " ".join(w.upper() if len(w) <= 3 and w not in ("per", "the", "vs") else w.capitalize()
                     for w in slug.split("-"))


FEATURE_PREFIXES = ("obs-", "eval-")
COST_FEATURES = (
    "cost-token-budget", "cost-prompt-caching", "cost-semantic-caching", "cost-batching",
    "cost-model-routing", "cost-streaming-only", "cost-observability-cost-attribution",
)
ESTIMATE_SLUGS = (
    "cost-tier", "cost-pricing-model", "cost-last-verified", "capability-composite-score",
    "capability-band", "capability-benchmark-sources", "capability-last-verified",
    "use-case-tags", "use-case-anti-tags",
)
MTOK_SLUGS = ("cost-input-usd-per-mtok", "cost-output-usd-per-mtok")
TRAJECTORY_SLUGS = ("commit-trajectory", "citation-trajectory", "download-trajectory")
PAPER_SLUGS = ("citations", "repro", "code-release")
REPOISH = frozenset((
    "license", "latest-release", "gh", "integration-count", "runtimes", "sdk-languages",
    "protocol-support", "licensing-bucket", "compliance-certifications", "code-release",
    "repro", "commit-trajectory",
))

FEATURE_REAL = (
    "yes — native integration", "yes — first-party SDK hook", "via adapter — community plugin",
    "via adapter — OpenTelemetry exporter", "partial — traces only, no evals", "no",
    "no — not documented", "yes (enterprise tier only)", "planned (roadmap 2026-Q3)",
    "via LiteLLM callback", "yes — built into hosted dashboard",
)

RESEARCH_VALUES = {
    "modalities": ("text", "text, image", "text, image, audio", "text, code", "multimodal (text + vision)",
                   "text, tables, PDFs", "video, text", "speech, text", "text + tool traces",
                   "robot proprioception, RGB video, language"),
    "mindshare": ("{n}/mo PyPI ({pkg} pkg)", "{k} inbound ({h} HN, {p} press)",
                  "~{k}k npm weekly downloads", "HN front page ×{p}; {h} comments",
                  "{n} Docker pulls/mo", "{k} inbound links; trending on X (2026-03)"),
    "customers": ("enterprise unnamed; {k}k+ developer signups", "used by {k}00+ companies (vendor claim)",
                  "Fortune 500 pilots (unnamed)", "design partners only (private beta)",
                  "1-10 ppl. early adopters, no named logos", "{k}M+ consumer users (vendor)"),
    "compliance": ("SOC 2 Type II; GDPR", "SOC 2 Type II, HIPAA-ready", "ISO 27001; SOC 2 Type I",
                   "GDPR DPA available; EU hosting", "FedRAMP Moderate (in process)",
                   "Hugging Face Enterprise: SOC 2 Type II; GDPR premium coverage"),
    "data-handling": ("OSS self-hosted: data handling left to deployer",
                      "zero data retention option on enterprise tier", "EU data residency available",
                      "no training on customer data (ToS)", "data stays on device (local-first)",
                      "retains conversation memory until user deletes it"),
    "hq": ("US (San Francisco, CA)", "US (New York, NY)", "US (Seattle, WA)", "UK (London)",
           "France (Paris)", "Germany (Berlin)", "Switzerland (Zürich)", "Canada (Montréal, QC)",
           "China (Beijing — 北京)", "China (Hangzhou — 杭州)", "Japan (Tokyo — 東京)",
           "South Korea (Seoul — 서울)", "Israel (Tel Aviv)", "India (Bengaluru)", "Singapore",
           "Sweden (Malmö)", "remote-first (US / EU)"),
    "founders": ("{a} (CEO); {b} (CTO)", "{a}, {b} — ex-Google DeepMind", "YC S24; co-founders {a} and {b}",
                 "{a} (Stanford PhD); {b} (ex-Meta FAIR)", "academic lab — PI {a}",
                 "{a} (CEO; ex-OpenAI); {b} (CSO)"),
    "volume": ("no scale claim", "1B+ memories (vendor blog claims)", "10M+ documents indexed",
               "up to 128k-token context", "millions of sessions/month (vendor)",
               "tested to 10M tokens (paper)", "single-user scale (local files)"),
    "perf": ("LoCoMo {f} (vendor)", "LongMemEval {f}% (paper)", "+{i}% on HotpotQA vs RAG baseline",
             "BABILong {i}% at 1M tokens", "{i}% lower p95 latency vs full-context (vendor)"),
    "citations": ("{n} citations (Semantic Scholar)", "{n} citations; {p} influential",
                  "{n} citations (Google Scholar, 2026-05)"),
    "repro": ("code + data released; results reproduced by third party",
              "code released; no independent replication found", "partial (code only, no weights)",
              "official repo + eval scripts; numbers within 1 pt of paper"),
    "code-release": ("code + weights (GitHub)", "code only (MIT)", "code + data (Apache-2.0)",
                     "no code released", "weights on Hugging Face; training code withheld"),
    "latency": ("p50 ~{i}ms / p99 ~{j}ms (vendor)", "sub-50ms retrieval (vendor claim)",
                "~{f}s per agent step (paper)", "not benchmarked publicly"),
    "throughput": ("{k}k QPS per node (vendor)", "batch offline only", "{k}00 req/s on a single GPU (paper)"),
    "encryption": ("AES-256 at rest, TLS 1.2+ in transit", "TLS in transit; at-rest via cloud provider",
                   "BYOK supported (enterprise)", "local files, OS-level encryption only"),
    "sso-rbac": ("SSO + RBAC", "SAML SSO (enterprise tier)", "RBAC only", "no SSO", "OIDC SSO; project-level roles"),
    "consistency": ("eventual", "strong (single-writer)", "read-your-writes", "serializable (Postgres-backed)"),
    "versioning": ("immutable append-log", "snapshots", "git-backed history", "none", "bi-temporal (valid/transaction time)"),
    "tombstoning": ("append-only no delete", "hard-delete supported", "soft-delete with TTL", "tombstones + compaction"),
    "schema-evolution": ("free-form / no schema", "typed schema with migrations", "JSON schema per namespace",
                         "ontology-driven (user-defined entity types)"),
    "namespace": ("hierarchical", "per-user / per-agent", "flat collections", "per-project files"),
    "contradiction": ("always append (no resolution)", "LLM resolves and overwrites", "last-write-wins",
                      "bi-temporal invalidation", "human review queue"),
    "forgetting": ("none (permanent)", "user-controlled forget", "TTL-based expiry", "decay-weighted eviction",
                   "summarise-then-drop (context window)"),
    "webhooks": ("no", "webhooks supported (platform tier)", "event stream via Kafka connector", "callbacks only (SDK)"),
    "import-export": ("JSON memory steps", "JSON (REST export)", "CSV / Parquet export", "Markdown files on disk",
                      "ChatGPT history import; JSON export"),
    "orchestration": ("single-agent (multi-agent via managed_agents parameter)", "both", "multi-agent",
                      "single-agent", "graph / DAG workflows"),
    "programmatic-control": ("read-only API + step-callback hooks (no built-in persistence)",
                             "full CRUD + SDK (Python/Node REST)", "CLI only", "REST API", "config files only"),
    "vendor-benchmarks": ("LoCoMo {f} (vendor)", "LongMemEval {f} (vendor); DMR {g}",
                          "internal eval suite; numbers not published per task"),
    "agent-abstraction": ("ReAct (CodeAct)", "ReAct", "graph / state machine", "plan-and-execute",
                          "role-based crew", "single LLM call + tools"),
    "memory-primitives": ("scratchpad/working (Python list)", "episodic + semantic + procedural",
                          "core / archival / recall blocks", "key-value facts", "files (CLAUDE.md-style)"),
    "llm-lock": ("any (BYO via HF Inference / OpenAI / local)", "OpenAI only", "Claude only",
                 "any OpenAI-compatible endpoint", "own model family"),
    "runtimes": ("Python", "Python, TypeScript", "TypeScript / Node.js", "Go", "Rust", "Java / Kotlin", "Python, Rust core"),
    "session-handling": ("stateless by default (persistence DIY)", "thread-scoped checkpoints",
                         "per-user sessions with TTL", "persistent per-project memory"),
    "validated-verticals": ("research, prototyping, HuggingFace community", "healthcare, legal, financial services",
                            "customer support", "coding agents", "robotics / embodied", "education"),
    "time-to-running": ("<10min (pip install {pkg})", "<1hr (Docker compose self-host)", "days (enterprise onboarding)",
                        "<5min (hosted sign-up)", "hours (research code, GPU required)"),
    "links": ("GitHub {repo}; docs; launch blog post", "arXiv {arxiv}; project page; code",
              "docs; pricing page; changelog", "GitHub {repo} memory tutorial; issue #{i}"),
    "integration-count": ("{i}",),
}

DFR_BY_SLUG = {
    "consistency": ("not specified - vendor docs do not address this dimension", "searched not found"),
    "namespace": ("not specified - vendor docs do not address this dimension", "searched not found"),
    "perf": ("no public benchmark scores found", "searched not found"),
    "vendor-benchmarks": ("searched not found", "no public benchmark scores found"),
}
GENERIC_NA = (
    "not applicable — wrong section", "not applicable — research paper", "not applicable — library",
    "not applicable — not commercial", "not applicable — not a memory product",
)

FIRST_NAMES = ("Alex", "Priya", "Chen", "Sofia", "Mateo", "Aisha", "Jonas", "Yuki", "Omar", "Zoë",
               "José", "Łukasz", "Søren", "Jürgen", "Ana", "Wei", "Li Wei (李伟)", "Hyun-woo", "Chloé", "Rahul")
LAST_NAMES = ("Nguyen", "Okafor", "Schmidt", "García", "Kowalski", "Tanaka", "Haddad", "Müller", "Rossi",
              "Patel", "Kim", "Ivanova", "Dubois", "Andersen", "O'Brien", "Zhang", "Sato", "Novák")

TAGS = ("scoped-agentic", "long-running-session", "memory-augmented-chat", "multi-agent-coordination",
        "coding-assistant", "enterprise-search", "personal-knowledge", "customer-support",
        "research-prototype", "embodied-control", "document-qa", "voice-assistant")
CAP_SOURCES = ("general capability estimate — no specific benchmark recalled",
               "LoCoMo + LongMemEval (vendor-reported)", "SWE-bench Verified (public leaderboard)",
               "MTEB (public leaderboard)", "paper tables only", "Arena Elo (2026-05 snapshot)")
MODEL_IDS = ("claude-sonnet-4-5-20250929", "claude-opus-4-1-20250805", "gpt-4o-2024-08-06",
             "gpt-5-2025-08-07", "gemini-2.5-pro", "llama-3.1-70b-instruct")
AUTHORS = ("mrpeppers", "catalog-bot", "a.okafor", "p.nguyen", "s.muller", "y.tanaka")
SCRAPERS = ("gh-stars@2", "pypi-downloads@1", "s2-citations@3", "opendigger@1", "page-fetch@4")

DECAY_EVIDENCE = {
    "acquired": ("Acquired by {o}; product folded into the parent platform.",
                 "Acquisition announced {d}; standalone sign-ups closed ({u})."),
    "pivoted": ("Company pivoted away from memory to general agent tooling ({u}).",
                "Homepage now markets a different product; memory API removed from docs."),
    "unfunded": ("No funding since seed; team page empty and status page down.",
                 "Founders announced wind-down ({u})."),
    "lost-benchmark-race": ("Outperformed on LoCoMo/LongMemEval by newer systems; no updates since.",
                            "Leaderboard position dropped out of top 20; maintainers stopped submitting."),
    "superseded": ("Superseded by the team's next version ({u}).", "README points to successor project."),
    "archived": ("Repository archived on GitHub ({u}).", "Repo read-only since {d}; last release over a year old."),
    "research-complete": ("Paper published; code frozen at camera-ready, no further work planned.",
                          "Research artefact — authors moved on; repo marked as reference only."),
    "unknown": ("Site unreachable since {d}; cause unknown.", "No activity signals in 12 months."),
}

FEATURE_STATUS = Weighted((("no-data", 0.74), ("real-data", 0.17), ("depth-floor-reached", 0.07),
                           ("not-applicable", 0.02)))

# section -> three-layer rollup value (for the taxonomy-three-layer-rollup cell)
ROLLUP_RULES = (
    ("Foundation models", "model-substrate"), ("Inference", "model-substrate"), ("Training", "model-substrate"),
    ("Embedding", "model-substrate"), ("benchmark", "evaluation"), ("Evaluation", "evaluation"),
    ("observability", "evaluation"), ("papers", "research"), ("Theoretical", "research"),
    ("Research", "research"), ("memory", "memory"), ("Memory", "memory"),
)


def _rollup(section: str) -> str:
    for key, value in ROLLUP_RULES:
        if key in section:
            return value
    return "agent-infra"


# --------------------------------------------------------------------------------------
# the learned model
# --------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------
# phase 1: record skeletons (ids, names, URLs, sections) from one RNG stream
# --------------------------------------------------------------------------------------


class Skel:
    __slots__ = ("idx", "id", "name", "section", "tier", "url", "kind", "has_repo", "owner", "repo",
                 "domain", "arxiv", "pkg", "paperish")


_CAMEL = re.compile(r"[A-Z][a-z0-9]*|[a-z0-9]+|[^A-Za-z0-9]")


def _make_name(model: Model, section: str, rng) -> str:
    name = _blend_name(model, section, rng).strip()
    opened, closed = name.count("("), name.count(")")
    if closed > opened:
        name = name.replace(")", "", closed - opened).strip()
    elif opened > closed:
        name += ")" * (opened - closed)
    return name or "Untitled system"


def _blend_name(model: Model, section: str, rng) -> str:
    names = model.names[section]
    r = rng.random()
    if r < 0.2:
        return _pick(rng, names)
    a = _pick(rng, names)
    b = _pick(rng, names) if rng.random() < 0.7 else _pick(rng, model.all_names)
    wa, wb = a.split(), b.split()
    if not wa or not wb:
        return a or b or "Untitled system"
    if len(wb) > 1 and r < 0.7:
        return wa[0] + " " + " ".join(wb[1:])
    pa, pb = _CAMEL.findall(wa[0]), _CAMEL.findall(wb[0])
    if len(pa) > 1 and len(pb) > 1:
        head = ("".join(pa[: max(1, len(pa) // 2)]).rstrip(".-_ ") + "".join(pb[len(pb) // 2:]).lstrip(".-_ ")) or wa[0]
        return " ".join([head] + wa[1:])
    return wa[0] + " " + wb[-1]


def _skeletons(model: Model, n: int, seed: int):
    rng = random.Random(f"landscape-skeleton:{seed}")
    used = set()
    out = []
    for i in range(n):
        s = Skel()
        s.idx = i
        sec = model.sections(rng)
        s.section = sec
        s.tier = model.tier[sec](rng)
        s.name = _make_name(model, sec, rng)
        s.has_repo = rng.random() < model.has_repo_p[sec]
        kind = model.url_kind[sec][s.has_repo](rng)
        s.kind = kind
        nslug = _slugify(s.name) or "system"
        tok = re.sub(r"[^a-z0-9]", "", nslug.split("-")[0]) or "app"
        if tok.isdigit() or len(tok) < 3:
            tok = nslug.replace("-", "")[:18] or "app"
        owner = _pick(rng, model.gh_owners) if rng.random() < 0.45 else tok
        s.owner = owner
        s.repo = nslug[:40].strip("-") or tok
        s.pkg = tok
        s.domain = tok + "." + model.tld(rng)
        s.arxiv = None
        if kind == "arxiv" or (rng.random() < 0.5 and sec.startswith("Recent method papers")):
            s.arxiv = "%s.%05d" % (_pick(rng, model.arxiv_yymm), int(rng.random() * 30000))
        if kind == "arxiv":
            s.url = "https://arxiv.org/abs/" + s.arxiv
            suffix = "arxiv-" + s.arxiv.replace(".", "-")
        elif kind == "github":
            s.url = "https://github.com/%s/%s" % (owner, s.repo)
            suffix = _slugify("gh-%s-%s" % (owner, s.repo), 200)
        elif kind == "other":
            prefix = model.host_prefix(rng)
            host = (prefix + "." if prefix else "") + s.domain
            path = "/" if rng.random() < model.root_path_p else "/" + _pick(rng, ("docs", "blog", "product", "research", "docs/memory", "platform")) + "/" + s.repo
            s.url = "https://" + host + path
            suffix = _slugify(host[4:] if host.startswith("www.") else host, 200)
        else:
            s.url = None
            suffix = ""
        base = nslug + ("--" + suffix if suffix else "")
        rid, k = base, 2
        while rid in used:
            rid = "%s-%d" % (base, k)
            k += 1
        used.add(rid)
        s.id = rid
        s.paperish = kind == "arxiv" or s.tier in (3, 4, 5) and sec.startswith(("Recent method", "Memory bench", "Theoretical", "Research"))
        out.append(s)
    out.sort(key=lambda x: x.id)
    return out


# --------------------------------------------------------------------------------------
# phase 1b: edges over the skeletons
# --------------------------------------------------------------------------------------


def _edges(model: Model, skels, seed: int):
    n = len(skels)
    if n < 2:
        return []
    rng = random.Random(f"landscape-edges:{seed}")
    m = int(round(n * model.edges_per_record))
    type_counts = dict(zip(EDGE_TYPES, _largest_remainder(m, [model.edge_type_counts[t] for t in EDGE_TYPES])))

    # rank records as targets: hub sections first more often (Efraimidis–Spirakis keys)
    def ranked(prop, power):
        keys = [(math.log(1.0 - rng.random()) / prop[s.section] ** power, k) for k, s in enumerate(skels)]
        keys.sort(key=lambda kv: (-kv[0], kv[1]))
        return [k for _, k in keys]

    t_rank = ranked(model.target_prop, 2.0)  # sharpened: hubs concentrate in hub sections
    indeg = model.share_profile(model.in_share, n, m)
    slots = []
    for r, k in enumerate(t_rank):
        slots.extend([k] * indeg[r])
    # assign types to target slots, rarest type first, weighted by P(type | target section)
    free = list(range(len(slots)))
    slot_type = [None] * len(slots)
    for t in sorted(EDGE_TYPES, key=lambda t: (model.edge_type_counts[t], t)):
        c = type_counts[t]
        if t == "cites":
            continue
        keyed = [(math.log(1.0 - rng.random()) / model.type_given_target[skels[slots[j]].section][t], j) for j in free]
        keyed.sort(key=lambda kv: (-kv[0], kv[1]))
        take = sorted(j for _, j in keyed[:c])
        for j in take:
            slot_type[j] = t
        chosen = set(take)
        free = [j for j in free if j not in chosen]
    for j in free:
        slot_type[j] = "cites"

    # sources: activity from the real out-degree share curve times per-type section affinity
    s_rank = ranked(model.source_prop, 1.0)
    outdeg = model.share_profile(model.out_share, n, m)
    act = [0.0] * n
    for r, k in enumerate(s_rank):
        act[k] = outdeg[r] + 0.05
    samplers = {}
    for t in EDGE_TYPES:
        aff = model.source_aff[t]
        cum, acc = [], 0.0
        for k, s in enumerate(skels):
            acc += act[k] * aff[s.section]
            cum.append(acc)
        samplers[t] = (cum, acc)

    seen = set()
    s2 = {}
    out = []
    order = list(range(len(slots)))
    rng.shuffle(order)
    for j in order:
        tgt, t = slots[j], slot_type[j]
        cum, tot = samplers[t]
        src = None
        for _ in range(25):
            k = bisect.bisect_right(cum, rng.random() * tot)
            k = min(k, n - 1)
            if k != tgt and (k, tgt, t) not in seen:
                src = k
                break
        if src is None:
            start = int(rng.random() * n)
            for d in range(n):
                k = (start + d) % n
                if k != tgt and (k, tgt, t) not in seen:
                    src = k
                    break
        if src is None:
            continue
        seen.add((src, tgt, t))
        a, b = skels[src], skels[tgt]
        edge = {"source": a.id, "target": b.id, "type": t}
        if t == "cites":
            if a.id not in s2:
                s2[a.id] = _hex(rng, 40)
            infl = rng.random() < model.influential_p
            edge["evidence"] = "S2 isInfluential citation" if infl else "S2 citation (not marked influential)"
            edge["citation"] = "https://api.semanticscholar.org/graph/v1/paper/" + s2[a.id]
            edge["isInfluential"] = infl
        else:
            edge["evidence"] = _edge_evidence(model, t, a, b, rng)
            if rng.random() < model.edge_gh_p[t]:
                edge["citation"] = "https://github.com/%s/%s" % (a.owner, a.repo)
            else:
                edge["citation"] = a.url or "https://%s/docs" % a.domain
        out.append(edge)
    out.sort(key=lambda e: (e["source"], e["target"], e["type"]))
    return out


_EDGE_TEMPLATES = {
    "runtime-dependency": ("adjacent-infrastructure cell: requires {t} for inference",
                           "adjacent-infrastructure cell: BYO vector store; defaults to {t}",
                           "adjacent-infrastructure cell: runs on {t}; self-hosting optional"),
    "integrates-with": ("Native integration with {t} documented in {s} docs.",
                        "{s} ships a first-party connector for {t}.", "Listed on {t}'s integrations page."),
    "built-on": ("{s} is implemented on top of {t}.", "{s} packages {t} as its storage layer."),
    "competes-with": ("Positioned as a lightweight alternative to {t}.", "Direct competitor to {t} in the same buyer's shortlist."),
    "extends": ("Extends {t} with long-term memory.", "Generalises {t}'s method to multi-session settings."),
    "same-team-as": ("Same GitHub organisation `{o}` publishes both.", "Same lab (shared first author) as {t}."),
    "forks": ("Fork of {t}.", "Community fork of {t} with persistence added."),
    "succeeds": ("Successor to {t} by the same team.", "{s} replaces the deprecated {t}."),
}


def _edge_evidence(model, t, a, b, rng):
    real = model.evidence.get(t) or ()
    if real and rng.random() < 0.5:
        ev = _pick(rng, real)
    else:
        ev = _pick(rng, _EDGE_TEMPLATES[t]).format(s=a.name, t=b.name, o=a.owner)
    ev = ev.strip() or "evidence not summarised"
    return ev if len(ev) <= 500 else ev[:499] + "…"


# --------------------------------------------------------------------------------------
# phase 2: one full record from its skeleton (own RNG stream)
# --------------------------------------------------------------------------------------


class Ctx:
    __slots__ = ("vendor", "gh", "registry", "third", "page", "date_ord", "date", "na_texts", "na_pool")


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

    for slug in model.slugs:
        if slug in cells:
            continue
        value, status = _seed_slug_value(model, ctx, sk, slug, tech_status, lic_value, mcp_value, indeg, rng)
        cells[slug] = _cell(model, ctx, sk, slug, value, status, rng)
    cells = {s: cells[s] for s in model.slugs}

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
    if slug in ESTIMATE_SLUGS:
        r = rand()
        if r < 0.1:
            return "", "no-data"
        if r < 0.14:
            return _pick(rng, ctx.na_texts), "not-applicable"
        if slug == "cost-tier":
            v = _pick(rng, ("free", "low", "mid", "high", "enterprise"))
        elif slug == "cost-pricing-model":
            v = _pick(rng, ("subscription", "usage-based", "free", "open-source", "freemium", "enterprise-contract"))
        elif slug in ("cost-last-verified", "capability-last-verified"):
            v = _date(ctx.date_ord + int(rand() * 60))
        elif slug == "capability-composite-score":
            v = str(20 + int(rand() * 76))
        elif slug == "capability-band":
            v = _pick(rng, ("frontier", "strong", "competent", "limited", "experimental"))
        elif slug == "capability-benchmark-sources":
            v = _pick(rng, CAP_SOURCES)
        else:
            v = ", ".join(sorted(set(_pick(rng, TAGS) for _ in range(1 + int(rand() * 3)))))
        return v, "estimate"
    if slug in MTOK_SLUGS:
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
        if slug == "citation-trajectory":
            if sk.paperish and rand() < 0.8:
                return _trajectory(rng, ctx.date_ord - 30 * (6 + int(rand() * 24)), ctx.date_ord - 30, "citation"), "real-data"
            return ("not applicable — non-paper row", "not-applicable") if rand() < 0.8 else ("", "no-data")
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


# --------------------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------------------


def _source_note(n: int, seed: int) -> str:
    return ("synthetic: benchmarks/generate.py --records %d --seed %d (distributions learned from "
            "data/landscape-site.json, data/seed-record.json, data/landscape.edges.json)" % (n, seed))


def _plan(n_records: int, seed: int, data_dir):
    if n_records < 0:
        raise ValueError("n_records must be >= 0")
    model = _model(str(Path(data_dir) if data_dir else DATA_DIR))
    skels = _skeletons(model, n_records, seed)
    edges = _edges(model, skels, seed)
    indeg = {}
    for e in edges:
        indeg[e["target"]] = indeg.get(e["target"], 0) + 1
    return model, skels, edges, indeg


def iter_records(n_records: int, seed: int = DEFAULT_SEED, data_dir=None):
    """Yield the records of ``generate_catalog(n_records, seed)`` one at a time (id order)."""
    model, skels, _, indeg = _plan(n_records, seed, data_dir)
    for sk in skels:
        yield _record(model, sk, seed, indeg.get(sk.id, 0))


def generate_catalog(n_records: int, seed: int = DEFAULT_SEED, data_dir=None) -> tuple[dict, dict]:
    """Return ``(catalog, edges)``: bulk-catalog dict and edges-file dict."""
    model, skels, edges, indeg = _plan(n_records, seed, data_dir)
    records = [_record(model, sk, seed, indeg.get(sk.id, 0)) for sk in skels]
    catalog = {"schemaVersion": SCHEMA_VERSION, "generatedAt": GENERATED_AT,
               "sourceHtml": _source_note(n_records, seed), "records": records}
    return catalog, {"schemaVersion": SCHEMA_VERSION, "generatedAt": GENERATED_AT, "edges": edges}


def _chunks(header: dict, key: str, items):
    """JSON text of ``{**header, key: items}``: one item per line (streamable)."""
    return _chunks_encoded(header, key, (json.dumps(it, ensure_ascii=False) for it in items))


def dumps_catalog(catalog: dict) -> str:
    head = {k: v for k, v in catalog.items() if k != "records"}
    return "".join(_chunks(head, "records", catalog["records"]))


def dumps_edges(edges: dict) -> str:
    head = {k: v for k, v in edges.items() if k != "edges"}
    return "".join(_chunks(head, "edges", edges["edges"]))


# worker-process state for write_catalog(jobs > 1): (plan, seed, n, data_dir)
_SHARED = None
_CHUNK = 256


def _worker_init(n_records, seed, data_dir):
    global _SHARED
    if _SHARED is None or _SHARED[1:] != (seed, n_records, data_dir):  # spawn: rebuild the plan
        _SHARED = (_plan(n_records, seed, data_dir), seed, n_records, data_dir)


def _worker_chunk(lo):
    (model, skels, _, indeg), seed = _SHARED[0], _SHARED[1]
    return [json.dumps(_record(model, sk, seed, indeg.get(sk.id, 0)), ensure_ascii=False)
            for sk in skels[lo:lo + _CHUNK]]


def _chunks_encoded(header: dict, key: str, encoded_items):
    yield json.dumps(header, ensure_ascii=False)[:-1] + (", " if header else "") + json.dumps(key) + ": ["
    first = True
    for text in encoded_items:
        yield ("\n" if first else ",\n") + text
        first = False
    yield ("]}\n" if first else "\n]}\n")


def write_catalog(n_records: int, out_dir, seed: int = DEFAULT_SEED, data_dir=None, jobs: int = 1):
    """Stream ``catalog.json`` and ``edges.json`` into ``out_dir``.

    Returns ``(catalog_path, edges_path, n_edges)``. With ``jobs > 1`` the record
    bodies are built and encoded in worker processes; the bytes are the same, since
    every record has its own RNG stream.
    """
    global _SHARED
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    plan = _plan(n_records, seed, data_dir)
    model, skels, edges, indeg = plan
    cat_path, edge_path = out / "catalog.json", out / "edges.json"
    head = {"schemaVersion": SCHEMA_VERSION, "generatedAt": GENERATED_AT, "sourceHtml": _source_note(n_records, seed)}
    pool = None
    if jobs > 1 and n_records > _CHUNK:
        import multiprocessing as mp

        _SHARED = (plan, seed, n_records, data_dir)
        methods = mp.get_all_start_methods()
        ctx = mp.get_context("fork" if "fork" in methods else None)
        pool = ctx.Pool(jobs, initializer=_worker_init, initargs=(n_records, seed, data_dir))
        encoded = (t for batch in pool.imap(_worker_chunk, range(0, n_records, _CHUNK)) for t in batch)
    else:
        encoded = (json.dumps(_record(model, sk, seed, indeg.get(sk.id, 0)), ensure_ascii=False) for sk in skels)
    try:
        with open(cat_path, "w", encoding="utf-8", newline="\n") as fh:
            buf = []
            for chunk in _chunks_encoded(head, "records", encoded):
                buf.append(chunk)
                if len(buf) >= 256:
                    fh.write("".join(buf))
                    buf.clear()
            fh.write("".join(buf))
    finally:
        if pool is not None:
            pool.close()
            pool.join()
            _SHARED = None
    edoc = {"schemaVersion": SCHEMA_VERSION, "generatedAt": GENERATED_AT, "edges": edges}
    with open(edge_path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(dumps_edges(edoc))
    return cat_path, edge_path, len(edges)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Generate a synthetic landscape catalog (full record shape).")
    ap.add_argument("--records", type=int, required=True, help="number of records")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED, help="random seed (default %(default)s)")
    ap.add_argument("--out", required=True, help="output directory (catalog.json, edges.json)")
    ap.add_argument("--data", default=None, help="directory with the real data files (default: repo data/)")
    ap.add_argument("--jobs", type=int, default=1,
                    help="worker processes for record bodies (same bytes for any value; default 1)")
    args = ap.parse_args(argv)
    if args.records < 0:
        ap.error("--records must be >= 0")
    if args.jobs < 1:
        ap.error("--jobs must be >= 1")
    t0 = time.perf_counter()
    cat_path, edge_path, n_edges = write_catalog(args.records, args.out, args.seed, args.data, args.jobs)
    dt = time.perf_counter() - t0
    print("wrote %s (%d records, %d bytes)" % (cat_path, args.records, cat_path.stat().st_size), file=sys.stderr)
    print("wrote %s (%d edges, %d bytes)" % (edge_path, n_edges, edge_path.stat().st_size), file=sys.stderr)
    print("seed %d, %.1f s" % (args.seed, dt), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
