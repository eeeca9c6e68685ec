"""Phase 1 of the generator: record skeletons (ids, names, URLs, sections) from one RNG stream.
"""

from __future__ import annotations

import random
import re

from gen_model import Model
from gen_random import _pick, _slugify


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
