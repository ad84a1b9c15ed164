"""The diagnosis page's figures ("Why our runs differ from the source's"), one builder per
figure, each from the frames ``diagnosis.findings`` reads out of the committed tables."""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from anchorkit.studies import diagnosis
from anchorkit.measures import criteria
from anchorkit.studies.diagnosis.findings import ARMS, FITTED, TARGET_NAMES
from anchorkit.pages.theme import LEGIBLE  # noqa: F401 (registers the book's chart theme)
from anchorkit.judging.ledger import E1B_SOURCE, E2A_SOURCE


def dissociation_chart(df: pd.DataFrame):
    """Alignment against raw removal, one dot per falloff run, a panel per regime; the source's
    rotated runs marked (alignment about E1B_SOURCE, raw removal over E2A_SOURCE's range)."""
    source = pd.DataFrame([{"alignment": E1B_SOURCE, "low": E2A_SOURCE[0], "high": E2A_SOURCE[1],
                            "mid": float(np.mean(E2A_SOURCE)), "label": "the source's runs"}])
    x = alt.X("alignment:Q", title="alignment with e₁, slices 3–4",
              scale=alt.Scale(domain=[0.4, 1.0]))
    y = alt.Y("raw_removal:Q", title="raw removal at full dose", scale=alt.Scale(domain=[0, 1]))
    dots = alt.Chart().mark_circle(size=60, opacity=0.85).encode(
        x=x, y=y, color=alt.Color("arm:N", title=None, legend=alt.Legend(orient="bottom"),
                                  scale=alt.Scale(domain=list(ARMS.values()),
                                                  range=["#d95f02", "#1b9e77"])),
        tooltip=["run:N", "seed:Q", alt.Tooltip("alignment:Q", format=".3f"),
                 alt.Tooltip("raw_removal:Q", format=".3f")])
    mark = alt.Chart(source).mark_point(shape="cross", size=160, color="black", filled=True
                                        ).encode(x="alignment:Q", y="mid:Q", tooltip=["label:N"])
    bar = alt.Chart(source).mark_rule(color="black").encode(x="alignment:Q", y="low:Q", y2="high:Q")
    criterion = alt.Chart(pd.DataFrame({"y": [criteria.REMOVAL_MIN]})).mark_rule(
        strokeDash=[4, 3], color="#888").encode(y="y:Q")
    layers = alt.layer(dots, criterion, bar, mark, data=df).properties(width=180, height=240)
    return layers.facet(column=alt.Column("regime:N", title=None, sort=[r.title for r in diagnosis.REGIMES]))


SUBSPACES = [f"erasure, {w}" for w in FITTED.values()] + ["random"]  # ``rank_long``'s, in order


def rank_chart(long: pd.DataFrame, measure: str = "removal"):
    """Median over falloff runs of raw removal (or raw spill) against k, erasure and random
    subspaces, a panel per arm and regime; thin lines per run."""
    label = {"removal": "raw removal", "spill": "raw spill"}[measure]
    colour = alt.Color("subspace:N", title=None,
                       legend=alt.Legend(orient="bottom", symbolOpacity=1, symbolStrokeWidth=3),
                       scale=alt.Scale(domain=SUBSPACES, range=["#7570b3", "#d95f02", "#999"]))
    base = alt.Chart().encode(x=alt.X("k:O", title="directions projected out (k)"), color=colour)
    runs = base.mark_line(opacity=0.25, strokeWidth=1).encode(
        y=alt.Y(f"{measure}:Q", title=label), detail="run:N")
    med = base.mark_line(strokeWidth=3).encode(y=f"median({measure}):Q")
    line = criteria.REMOVAL_MIN if measure == "removal" else criteria.SPILL_MAX
    rule = alt.Chart().mark_rule(strokeDash=[4, 3], color="#888").encode(y=alt.datum(line))
    return alt.layer(runs, med, rule, data=long).properties(width=220, height=160).facet(
        row=alt.Row("regime:N", title=None, sort=[r.title for r in diagnosis.REGIMES]),
        column=alt.Column("arm:N", title=None, sort=list(ARMS.values())))


def probe_chart(tables):
    """The probe's balanced accuracy by slice, before and after the e₁ edit: the median over runs
    and its lowest, a panel per regime; colour and marker by recipe and arm."""
    rows = []
    for regime, t in tables.items():
        rows.append(t["probe"].assign(regime=regime.title))
    df = pd.concat(rows, ignore_index=True)
    df["runs"] = df.recipe + ", " + df.optimizer.map(ARMS)
    # colour and marker shape both by runs (the colour legend names them): lines that lie on top
    # of each other, as the weak-basis regime's do, stay told apart by their markers
    legend = alt.Legend(orient="bottom", columns=2)
    base = alt.Chart().encode(
        x=alt.X("slice:O"), color=alt.Color("runs:N", title=None, legend=legend),
        y=alt.Y("median(accuracy):Q", title="balanced accuracy (median over runs)",
                scale=alt.Scale(domain=[0.4, 1.0])))
    # the dashes on a line layer of their own and the markers on another: a line drawn with
    # point=True gives the dash legend transparent strokes (vega-lite), so it showed no glyphs
    dashed = base.mark_line().encode(
        strokeDash=alt.StrokeDash("edit:N", title="e₁ edit", sort=["before", "after"],
                                  legend=alt.Legend(symbolType="stroke", orient="bottom",
                                                    symbolStrokeColor="#555", symbolStrokeWidth=2)),
        detail="edit:N")
    marked = base.mark_point(filled=True, size=40).encode(shape=alt.Shape("runs:N", legend=None),
                                                          detail="edit:N")
    med = alt.layer(dashed, marked)
    chance = alt.Chart().mark_rule(color="#888", strokeDash=[2, 2]).encode(
        y=alt.datum(diagnosis.PROBE_CHANCE))
    return alt.layer(med, chance, data=df).properties(width=180, height=200).facet(
        column=alt.Column("regime:N", title=None, sort=[r.title for r in diagnosis.REGIMES]))


def overlap_chart(tables, measure: str = "control_drop"):
    """The controls' median drop (over controls, each the mean over draws) against the overlap c,
    one line per v, a panel per arm and regime."""
    label = {"control_drop": "drop on difference (share of span)",
             "control_other_ops": "largest drop on another op"}[measure]
    rows = []
    for regime, t in tables.items():
        per = t["overlap"].groupby(["optimizer", "target", "run", "overlap"], as_index=False)[
            measure].mean()
        rows.append(per.groupby(["optimizer", "target", "overlap"], as_index=False)[measure]
                    .median().assign(regime=regime.title))
    df = pd.concat(rows, ignore_index=True)
    df["arm"], df["v"] = df.optimizer.map(ARMS), df.target.map(TARGET_NAMES)
    lines = alt.Chart().mark_line(point=True).encode(
        x=alt.X("overlap:Q", title="cosine of the projected direction with v (c)"),
        y=alt.Y(f"{measure}:Q", title=label, scale=alt.Scale(domainMin=0)),
        color=alt.Color("v:N", title=None, legend=alt.Legend(orient="bottom")),
        tooltip=["v:N", "overlap:Q", alt.Tooltip(f"{measure}:Q", format=".3f")])
    at = alt.Chart().mark_rule(strokeDash=[4, 3], color="#888").encode(x=alt.datum(diagnosis.AT))
    return alt.layer(lines, at, data=df).properties(width=220, height=170).facet(
        row=alt.Row("regime:N", title=None, sort=[r.title for r in diagnosis.REGIMES]),
        column=alt.Column("arm:N", title=None, sort=list(ARMS.values())))
