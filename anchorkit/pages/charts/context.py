"""The layout of a context drawn as SVG, from the task's positions (``anchorkit.pages.charts``)."""

from __future__ import annotations

from anchorkit.core.config import TaskConfig
from anchorkit.core.task import positions

def context_svg(task=None) -> str:
    """The layout of a context as an SVG drawing, one box per position (from ``task.positions``,
    so that it follows the code): the example answers, where the anchor pulls (difference) or holds
    (the other ops), filled; the answers the loss reads (at each ``=`` from the second example on,
    the query's included) outlined; the query's ``=`` marked."""
    task = task if task is not None else TaskConfig()
    pos = positions(task)
    line = ["a", ",", "b", "=", "c", "⏎"]
    tokens = ["?"] + line * task.k + line[:4]
    w, h, pad, top = 30, 34, 8, 22
    width = pad * 2 + w * len(tokens)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} 118" '
             f'width="100%" style="max-width:{width}px" font-family="sans-serif" '
             'role="img" aria-label="the positions of a context">']
    for t, tok in enumerate(tokens):
        x = pad + w * t
        fill = "#fdd49e" if t in pos.example_answers else "#ffffff"
        stroke = "#d95f02" if t in pos.loss_equals else "#999999"
        sw = 2.5 if t in pos.loss_equals else 1
        parts.append(f'<rect x="{x + 1}" y="{top}" width="{w - 2}" height="{h}" rx="3" '
                     f'fill="{fill}" stroke="{stroke}" stroke-width="{sw}"/>')
        parts.append(f'<text x="{x + w / 2}" y="{top + 22}" font-size="15" '
                     f'text-anchor="middle">{tok}</text>')
        parts.append(f'<text x="{x + w / 2}" y="{top - 6}" font-size="9" fill="#666" '
                     f'text-anchor="middle">{t}</text>')
    qx = pad + w * pos.query + w / 2
    parts.append(f'<text x="{qx}" y="{top + h + 16}" font-size="10" text-anchor="middle">'
                 'query</text>')
    legend = [("#fdd49e", "#999999", 1, "example answer: the anchor pulls (difference) or holds"),
              ("#ffffff", "#d95f02", 2.5, "= whose next answer the loss reads")]
    for i, (fill, stroke, sw, text) in enumerate(legend):
        y = top + h + 28 + 16 * i
        parts.append(f'<rect x="{pad}" y="{y}" width="12" height="12" fill="{fill}" '
                     f'stroke="{stroke}" stroke-width="{sw}"/>')
        parts.append(f'<text x="{pad + 18}" y="{y + 10}" font-size="11">{text}</text>')
    parts.append("</svg>")
    return "\n".join(parts)
