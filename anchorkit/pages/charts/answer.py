"""The picture of the report's answer (issue 70): an estimation plot of the paired difference.

One row per set of seeds that asks the question (a regime's paper seeds, the confirmation's):
each seed's rotated − plain raw removal as a dot, the median as a bar with its exact interval as
a line, the ±margin band and the zero line, and the two sides named in words above the plot. A
row's name is drawn on two lines above its seeds (what it is; how many seeds), so that no name is
cut at a phone's width; a row that cannot ask the question is drawn grey, with the reason in a
word after its seeds.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from anchorkit.pages.charts.base import _require

# the two sides in words, each on two short lines so that both fit above a 260 px plot
LESS = "← rotated removes less:\nthe anchor needs the axis"
MORE = "rotated removes\nmore →"
# where another arm than rotated Adam is drawn (issue 69: each row names its arm)
ANY_LESS = "← the arm removes less:\nthe anchor needs the basis"
ANY_MORE = "the arm removes\nmore →"
ASKED, GREY = "#333333", "#b3b3b3"
ROW = 78  # px: a row's height, its name's two lines at the top, its seeds beneath


def answer_rows(summary: pd.DataFrame) -> list[str]:
    """Each row's label as the chart draws it: its name (a line break between what the row is
    and its seeds), and where it cannot ask the question, the reason after a dash."""
    return [r["row"] if r["asked"] else f"{r['row']} — {r['reason']}"
            for _, r in summary.iterrows()]


def answer_picture(diffs: pd.DataFrame, summary: pd.DataFrame, margin: float,
                   width: int = 260):
    """The estimation plot. ``diffs``: row, seed, difference (one per seed); ``summary``: row,
    median, low, high, asked (whether the row can ask the question), reason (a word where it
    cannot), in the order drawn; ``margin``: the question's equivalence margin. At the default
    ``width`` the whole chart, with vega-embed's menu, fits a 390 px phone. Where ``summary``'s
    optional ``arm`` names another arm than rotated Adam, the axis and its sides speak of "the
    arm" (each row names its own)."""
    _require(diffs, ["row", "seed", "difference"], "answer_picture")
    _require(summary, ["row", "median", "low", "high", "asked", "reason"], "answer_picture")
    labels = dict(zip(summary.row, answer_rows(summary)))
    asked = dict(zip(summary.row, summary.asked))
    order = [labels[r] for r in summary.row]
    d = diffs.assign(label=diffs.row.map(labels), asked=diffs.row.map(asked))
    s = summary.assign(label=summary.row.map(labels))
    span = max(0.5, float(diffs.difference.abs().max()) * 1.1, margin * 2)
    x_scale = alt.Scale(domain=[-span, span], nice=False)
    # rows named above their dots, not beside them, so that the chart is no wider than its plot
    y = alt.Y("label:N", sort=order, title=None, axis=None)
    shade = alt.condition("datum.asked", alt.value(ASKED), alt.value(GREY))
    one = "arm" not in summary or (summary.arm == "rotated").all()
    x_title = ("rotated − plain raw removal of difference, per seed" if one else
               "the arm − plain raw removal of difference, per seed")
    band = alt.Chart(pd.DataFrame({"a": [-margin], "b": [margin]})).mark_rect(
        color="#e8e8e8").encode(x=alt.X("a:Q", scale=x_scale, title=x_title), x2="b:Q")
    zero = alt.Chart(pd.DataFrame({"x": [0.0]})).mark_rule(color="#777").encode(x="x:Q")
    dots = alt.Chart(d).mark_circle(size=40, opacity=0.6).encode(
        x=alt.X("difference:Q", scale=x_scale), y=y, color=shade,
        yOffset=alt.YOffset("jitter:Q", scale=alt.Scale(domain=[-1, 1], range=[ROW - 30, ROW - 6])),
        tooltip=["row:N", "seed:Q", alt.Tooltip("difference:Q", format=".3f")]
    ).transform_calculate(jitter="(datum.seed % 7) / 3.5 - 1")
    # px from the row's top: the name's two lines, then the interval and median, then the seeds
    below = alt.value(34)
    interval = alt.Chart(s).mark_rule(strokeWidth=3).encode(
        x="low:Q", x2="high:Q", y=y, yOffset=below, color=alt.condition("datum.asked", alt.value("#d95f02"),
                                                       alt.value(GREY)),
        tooltip=["row:N", alt.Tooltip("median:Q", format=".2f"),
                 alt.Tooltip("low:Q", format=".2f", title="95% interval from"),
                 alt.Tooltip("high:Q", format=".2f", title="to")])
    median = alt.Chart(s).mark_tick(thickness=3, size=14).encode(
        x="median:Q", y=y, yOffset=below, color=alt.condition("datum.asked", alt.value("#d95f02"),
                                               alt.value(GREY)))
    names = alt.Chart(s).mark_text(align="left", baseline="top", fontSize=12, limit=width - 4,
                                   lineBreak="\n", lineHeight=14).encode(
        x=alt.value(2), y=y, yOffset=alt.value(0), text="label:N",
        color=alt.condition("datum.asked", alt.value(ASKED), alt.value("#777777")))
    less, more = (LESS, MORE) if one else (ANY_LESS, ANY_MORE)
    return alt.layer(band, zero, dots, interval, median, names, _side(less, -span, "left"),
                     _side(more, span, "right")).properties(
        width=width, height=ROW * len(summary), padding={"top": 34, "left": 5, "right": 5,
                                                         "bottom": 5})


def _side(text: str, x: float, align: str):
    """A side of the axis named in words, at the top of the plot."""
    return alt.Chart(pd.DataFrame({"x": [x], "t": [text]})).mark_text(
        align=align, baseline="bottom", dy=-4 - 14 * text.count("\n"), fontSize=12,
        lineBreak="\n").encode(
        x="x:Q", y=alt.value(0), text="t:N")


def training_length_chart(readings: pd.DataFrame, measure: str, earlier: int, final: int,
                          width: int = 260):
    """The confirmation's training-length analysis as a picture: each fresh seed's rotated −
    plain ``measure`` at epoch ``earlier`` and at the end (``final``), joined by a thin line, the
    median over seeds in bold; zero marked. ``readings``: seed, optimizer, epoch, ``measure``."""
    _require(readings, ["seed", "optimizer", "epoch", measure], "training_length_chart")
    wide = readings[readings.epoch.isin([earlier, final])].pivot_table(
        index=["seed", "epoch"], columns="optimizer", values=measure)
    d = (wide["rotated"] - wide["adam"]).rename("difference").reset_index()
    med = d.groupby("epoch", as_index=False).difference.median()
    x = alt.X("epoch:O", title="epoch of training", axis=alt.Axis(labelAngle=0))
    y = alt.Y("difference:Q", title="rotated − plain, per seed")
    seeds = alt.Chart(d).mark_line(point=True, opacity=0.35, color="#777777").encode(
        x=x, y=y, detail="seed:N", tooltip=["seed:Q", "epoch:O",
                                            alt.Tooltip("difference:Q", format=".3f")])
    bold = alt.Chart(med).mark_line(point=True, strokeWidth=3, color="#d95f02").encode(
        x=x, y=y, tooltip=["epoch:O", alt.Tooltip("difference:Q", format=".3f",
                                                  title="median")])
    zero = alt.Chart(pd.DataFrame({"z": [0.0]})).mark_rule(color="#777").encode(y="z:Q")
    return alt.layer(zero, seeds, bold).properties(width=width, height=220)
