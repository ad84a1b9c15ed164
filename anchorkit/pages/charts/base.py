"""What the book's figures share: the groups' names and colours, the check that a table has
the columns a figure reads, and the per-run lines with their median (``anchorkit.pages.charts``)."""

from __future__ import annotations

import altair as alt
import pandas as pd

from anchorkit.pages.theme import LEGIBLE  # noqa: F401 (registers the book's chart theme)


# the two groups of runs of the rotated-basis study, as the legends name them
GROUPS = {"rotated": "rotated Adam (new)", "adam": "plain Adam (stored twin)"}
GROUP_COLORS = alt.Scale(domain=list(GROUPS.values()), range=["#d95f02", "#1b9e77"])
BASIS_NAMES = {"axes": "coordinate axes", "rotated": "rotated axes", "random": "random"}
ROLE_NAMES = {"anchored": "falloff", "control": "control"}


def _require(df: pd.DataFrame, columns, what: str) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{what}: the table lacks columns {missing}")


def _grouped(df: pd.DataFrame, by: str) -> pd.DataFrame:
    """The runs' groups: by optimizer (new rotated runs against stored twins) or another column."""
    group = df["optimizer"].map(GROUPS) if by == "optimizer" else df[by]
    return df.assign(group=group)


def _runs_and_median(df: pd.DataFrame, x: alt.X, y: str, title: str, by: str = "optimizer"):
    """A hairline per run and the median over runs in bold (the prose quotes medians), coloured
    by group."""
    color = alt.Color("group:N", scale=GROUP_COLORS if by == "optimizer" else alt.Undefined,
                      title=None, legend=alt.Legend(orient="bottom"))
    base = alt.Chart(df).encode(x=x)
    runs = base.mark_line(strokeWidth=0.8, opacity=0.45).encode(
        y=alt.Y(f"{y}:Q", title=title), color=color, detail="run:N",
        tooltip=["run:N", "seed:Q", alt.Tooltip(f"{y}:Q", format=".3f")])
    median = base.mark_line(strokeWidth=3, point=True).encode(
        y=f"median({y}):Q", color=color,
        tooltip=["group:N", alt.Tooltip(f"median({y}):Q", format=".3f", title=f"median {title}")])
    return runs, median


def per_regime(charts: dict) -> alt.VConcatChart:
    """One figure per regime column (``charts``: a regime's title → its figure), one above the
    other, each titled by its regime."""
    return alt.vconcat(*(c.properties(title=t) for t, c in charts.items()), spacing=28)
