"""A system's neighbourhood as an inline SVG picture, drawn on the server: the system in
the middle, the other end of each of its direct edges around it (in rings), one line per
edge, each edge type in its own colour and dash pattern, an arrow at the edge's target.

The picture is markup made from escaped text only (names go through
:func:`html.escape`), with links to the neighbours' pages; it needs no script and no
external asset.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

# edge type -> (colour, dash pattern); types not listed are grey and solid
STYLES = {
    "runtime-dependency": ("#cf222e", ""), "cites": ("#6e7781", "2 3"), "integrates-with": ("#0969da", "7 3"),
    "built-on": ("#8250df", ""), "competes-with": ("#bf8700", "1 3"), "extends": ("#1a7f37", "9 3 2 3"),
    "same-team-as": ("#bc4c00", "4 2"), "forks": ("#116329", "1 2"), "succeeds": ("#953800", "12 4"),
}
_OTHER = ("#57606a", "")
_RINGS = (20, 30, 40, 50, 60, 70)  # neighbours a ring holds at most, inside out
WIDTH = 1000.0  # the picture's least width (SVG units; the page scales it to fit)
_LABEL_CHARS = 22


@dataclass(frozen=True)
class Edge:
    """One direct edge: its type, whether it points away from the system, and its other end."""

    type: str
    outgoing: bool
    other: str  # the other end's IRI
    label: str
    href: str | None


def _short(text: str) -> str:
    return text if len(text) <= _LABEL_CHARS else text[:_LABEL_CHARS - 1] + "\u2026"


def _positions(count: int) -> list[tuple[float, float]]:
    """Points around the centre (0, 0): as few rings as hold them all, each ring given its
    share by its size (an outer ring holds more)."""
    rings, held = 0, 0
    while held < count:
        held += _RINGS[min(rings, len(_RINGS) - 1)]
        rings += 1
    sizes = [_RINGS[min(i, len(_RINGS) - 1)] for i in range(rings)]
    shares = [count * size // held for size in sizes]
    for i in range(count - sum(shares)):  # what rounding left over, outermost first
        shares[-1 - i % rings] += 1
    points: list[tuple[float, float]] = []
    for ring, here in enumerate(shares):
        radius = 170.0 + 125.0 * ring
        offset = (ring % 2) * math.pi / max(here, 1)
        for i in range(here):
            angle = offset + 2 * math.pi * i / here - math.pi / 2
            points.append((radius * math.cos(angle), radius * math.sin(angle)))
    return points


def neighbourhood_svg(name: str, edges: list[Edge]) -> str:
    """The picture, as SVG markup for inline use (an ``<svg>`` element with a legend)."""
    others = list(dict.fromkeys(e.other for e in sorted(edges, key=lambda e: (e.type, e.label.lower()))))
    points = _positions(len(others))
    where = dict(zip(others, points))
    top = min([y for _, y in points] + [-60.0]) - 40.0
    height = max([y for _, y in points] + [60.0]) + 40.0 - top
    types = sorted({e.type for e in edges})
    legend_height = 22 * ((len(types) + 3) // 4) + 10 if types else 0
    width = max(WIDTH, 2 * (max([abs(x) for x, _ in points] + [0.0]) + 175.0))  # room for the labels
    cx, cy = width / 2, -top
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="neighbourhood" role="img" '
           f'viewBox="0 0 {width:.0f} {height + legend_height:.0f}" width="100%" '
           f'aria-label="{escape(name)} and the {len(others)} systems at the other end of its edges">',
           f"<title>{escape(name)}: {len(edges)} direct edges</title>", "<defs>"]
    for kind in types + ["other"]:
        colour = STYLES.get(kind, _OTHER)[0]
        out.append(f'<marker id="arrow-{escape(kind)}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
                   f'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{colour}"/></marker>')
    out.append("</defs>")
    seen: dict[str, int] = {}
    for edge in edges:  # lines first, under the nodes
        x, y = where[edge.other]
        n = seen[edge.other] = seen.get(edge.other, -1) + 1
        shift = 3.0 * n  # several edges to one neighbour: side by side
        length = math.hypot(x, y) or 1.0
        nx, ny = -y / length * shift, x / length * shift
        colour, dash = STYLES.get(edge.type, _OTHER)
        start, end = (0.0, 0.0), (x, y)
        if not edge.outgoing:
            start, end = end, start
        # stop short of the circles so the arrowhead shows
        sx, sy, ex, ey = *_toward(start, end, 9.0 if edge.outgoing else 7.0), *_toward(end, start, 7.0 if edge.outgoing else 9.0)
        dashes = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(f'<line class="edge" data-type="{escape(edge.type)}" x1="{cx + sx + nx:.1f}" y1="{cy + sy + ny:.1f}" '
                   f'x2="{cx + ex + nx:.1f}" y2="{cy + ey + ny:.1f}" stroke="{colour}" stroke-width="1.4"{dashes} '
                   f'marker-end="url(#arrow-{escape(edge.type if edge.type in types else "other")})">'
                   f"<title>{escape(edge.type)}: {escape(name if edge.outgoing else edge.label)} \u2192 "
                   f"{escape(edge.label if edge.outgoing else name)}</title></line>")
    for other in others:
        x, y = where[other]
        edge = next(e for e in edges if e.other == other)
        anchor = "start" if x >= 0 else "end"
        dx = 9 if x >= 0 else -9
        node = (f'<circle cx="{cx + x:.1f}" cy="{cy + y:.1f}" r="6" class="node"/>'
                f'<text x="{cx + x + dx:.1f}" y="{cy + y + 4:.1f}" text-anchor="{anchor}">{escape(_short(edge.label))}'
                f"<title>{escape(edge.label)}</title></text>")
        out.append(f'<a href="{escape(edge.href)}" class="neighbour">{node}</a>' if edge.href
                   else f'<g class="neighbour">{node}</g>')
    out.append(f'<circle cx="{cx}" cy="{cy}" r="9" class="centre"/>'
               f'<text x="{cx}" y="{cy - 15}" text-anchor="middle" class="centre-label">{escape(_short(name))}</text>')
    for i, kind in enumerate(types):  # the legend
        colour, dash = STYLES.get(kind, _OTHER)
        lx, ly = 20 + (i % 4) * 240, height + 16 + 22 * (i // 4)
        dashes = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(f'<g class="legend"><line x1="{lx}" y1="{ly}" x2="{lx + 36}" y2="{ly}" stroke="{colour}" '
                   f'stroke-width="2"{dashes}/><text x="{lx + 44}" y="{ly + 4}">{escape(kind)} '
                   f"({sum(e.type == kind for e in edges)})</text></g>")
    out.append("</svg>")
    return "".join(out)


def _toward(a: tuple[float, float], b: tuple[float, float], by: float) -> tuple[float, float]:
    """``a`` moved ``by`` towards ``b``."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy) or 1.0
    return a[0] + dx / length * by, a[1] + dy / length * by
