"""The generator's vocabulary: catalog constants and the seed-like texts the real files do not hold.

The statuses, axes, edge types and decay causes of the catalog schema; cell labels; the value
pools of the 86 slugs that only the seed record has; names, tags, model ids; the decay evidence.
"""

from __future__ import annotations

import re

from gen_random import Weighted


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
