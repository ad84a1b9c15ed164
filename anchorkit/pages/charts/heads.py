"""The heads the essay calls anchors and workers, shown (``anchorkit.pages.charts``): each head's
attention pattern over the bar of what each position would write through it
(``measures.geometry.head_picture``)."""

from __future__ import annotations

import json

import altair as alt
import pandas as pd

from anchorkit.pages.charts.base import _require

SIDE = 260  # px: a pattern's width and height (a context's positions at about 11 px each)
BARS = 80  # px: the height of the bars under it


def head_pictures(shown: list[tuple[str | list[str], pd.DataFrame, pd.DataFrame]]):
    """One panel per head (``shown``: its title, a line or lines, and ``head_picture``'s two
    tables), one above the other: the mean attention pattern (query down, key across; darker,
    more attention) over the norm of what each key position would write through the head, the
    positions named by their tokens under the bars."""
    panels = []
    for title, pattern, written in shown:
        _require(pattern, ("query", "key", "attention"), "head_pictures")
        _require(written, ("key", "written", "token"), "head_pictures")
        labels = f"{json.dumps(list(written.sort_values('key').token))}[datum.value]"
        key = alt.X("key:O", title=None, axis=None)
        grid = alt.Chart(pattern[pattern.key <= pattern["query"]]).mark_rect().encode(
            x=key, y=alt.Y("query:O", title="query position", axis=alt.Axis(labels=False, ticks=False)),
            color=alt.Color("attention:Q", scale=alt.Scale(scheme="greys", domain=[0, 1]),
                            legend=alt.Legend(orient="top", title="attention")),
            tooltip=["query:O", "key:O", alt.Tooltip("attention:Q", format=".2f")],
        ).properties(width=SIDE, height=SIDE, title=title)
        bars = alt.Chart(written).mark_bar(color="#4c78a8").encode(
            x=alt.X("key:O", title="key position (its token; n: a number)",
                    axis=alt.Axis(labelExpr=labels, labelAngle=0)),
            y=alt.Y("written:Q", title="writes"),
            tooltip=["key:O", "token:N", alt.Tooltip("written:Q", format=".3f")],
        ).properties(width=SIDE, height=BARS)
        panels.append(alt.vconcat(grid, bars, spacing=4))
    return alt.vconcat(*panels, spacing=24).resolve_scale(color="shared")
