"""The benchmark report's profile section: where the profiled ingest's and validation's time goes.
"""

from __future__ import annotations


def profile_buckets(profile: dict, what: str) -> list[tuple[str, float]]:
    """Shares of the profiled time by where it goes (functions' own time, by module)."""
    def bucket(row: dict) -> str:
        file, func = row["file"], row["func"]
        if what == "ingest":
            if "pyoxigraph.Store" in func and ("extend" in func or "bulk" in func):
                return "store writes (pyoxigraph bulk insert)"
            if "pyoxigraph.Store" in func:
                return "SPARQL in the store (clean-up, description)"
            if file.startswith("json/") or func in ("_no_duplicate_keys", "_finite", "_integer") \
                    or "raw_decode" in func or "scan_once" in func:
                return "JSON parsing"
            # file names of the layout before and after the re-partition, so older raw results still classify
            if file.startswith(("kg/mapping", "kg/normalise", "kg/vocab.py")) \
                    or "pyoxigraph.Quad" in func or "pyoxigraph.Literal" in func or "pyoxigraph.NamedNode" in func:
                return "mapping records to quads"
            if file.startswith(("kg/records", "kg/ingest", "kg/sources")):
                return "checking records (kg.records, kg.ingestion, kg.sources)"
            return "other"
        if file.startswith("pyshacl/"):
            return "pySHACL"
        if file.startswith("rdflib/"):
            return "rdflib (graph lookups, terms)"
        if file.startswith(("kg/validation/", "kg/validate.py")):
            return "kg.validation (conversion to rdflib, results)"
        if "pyoxigraph" in func:
            return "pyoxigraph (reading the store, SPARQL checks)"
        return "other"

    totals: dict[str, float] = {}
    for row in profile.get("top", []):
        totals[bucket(row)] = totals.get(bucket(row), 0) + row["tottime"]
    whole = profile.get("total_tottime") or sum(totals.values()) or 1
    listed = sum(totals.values())
    if whole > listed:
        totals["other"] = totals.get("other", 0) + whole - listed
    return sorted(((k, v / whole) for k, v in totals.items()), key=lambda kv: -kv[1])


def profile_section(results: dict) -> str:
    """The section of the cProfile runs ("" without any)."""
    profiles = {k: v for k, v in results.get("profiles", {}).items() if v.get("top")}
    if not profiles:
        return ""
    lines = ["## Where the time goes (cProfile)", ""]
    for key, profile in sorted(profiles.items()):
        what, size = key.split("-", 1)
        title = ("ingest" if what == "ingest" else "validation in one process (`validate(store, jobs=1)`)")
        lines.append(f"### {title}, {int(size):,} records ({profile['wall_s']:.1f} s under the profiler)")
        lines.append("")
        buckets = profile_buckets(profile, what)
        lines.append("Own time by part: " + "; ".join(f"{name} {share:.0%}" for name, share in buckets) + ".")
        lines.append("")
        lines.append("| function | calls | own s | with callees s |")
        lines.append("|---|---:|---:|---:|")
        for row in profile["top"][:12]:
            func = row["func"].replace("|", "/")
            where = f"{row['file']}:{row['line']}" if row["file"] != "~" else "built-in"
            lines.append(f"| `{func}` ({where}) | {row['calls']:,} | {row['tottime']:.2f} | {row['cumtime']:.2f} |")
        lines.append("")
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Command line
