"""Phase 1b of the generator: the edges over the record skeletons (one RNG stream).

Targets follow the real in-degree share curve (hub sections first), types the real mix given the
target's section, sources the real out-degree curve times each type's section affinity.
"""

from __future__ import annotations

import bisect
import math
import random

from gen_model import Model
from gen_random import _hex, _largest_remainder, _pick
from gen_vocabulary import EDGE_TYPES


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
