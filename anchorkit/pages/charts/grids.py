"""The book's grids at a glance: one coloured cell per regime and length (the scout), per claim
and regime (the ledger) or per prediction (the essay) (``anchorkit.pages.charts``)."""

from __future__ import annotations

import altair as alt
import pandas as pd

from anchorkit.studies import essay
from anchorkit.pages.charts.base import _require
from anchorkit.measures.verdicts import VERDICTS

LEVEL_COLOURS = {"none": "#e6e6e6", "functional": "#9ecae1", "clear": "#4292c6",
                 "report-strength": "#08306b"}


def level_grid(levels: pd.DataFrame, regimes: pd.DataFrame, adopted: str | None = None,
               mark: str = "adopted after the scout"):
    """The optimizer scout at a glance: one cell per regime and training length, coloured by the
    level of basis every calibration seed reaches (the weakest seed's); each seed's own level and
    whether every control scored above the floor on hover. ``levels``: per regime, epochs, seed;
    ``regimes``: per regime and epochs. ``adopted``: a regime chosen outside the rule, whose row
    label says so (``mark``), since its cells show only the rule's level."""
    _require(levels, ["regime", "epochs", "seed", "level"], "level_grid")
    _require(regimes, ["regime", "epochs", "level", "controls_score"], "level_grid")
    per_seed = (levels.assign(seed_level=levels.seed.astype(str) + ": " + levels.level)
                .groupby(["regime", "epochs"]).seed_level.agg(", ".join).reset_index())
    df = regimes.merge(per_seed, on=["regime", "epochs"]).assign(
        scores=lambda d: d.controls_score.map({True: "every op ≥ floor", False: "below the floor"}))
    order = list(LEVEL_COLOURS)
    return alt.Chart(df).mark_rect(stroke="white", strokeWidth=2).encode(
        x=alt.X("epochs:O", title="training length (epochs)", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("regime:N", title="regime", sort=sorted(df.regime.unique()),
                axis=alt.Axis(labelExpr=(f"datum.value == '{adopted}' ? [datum.value, '({mark})']"
                                         " : datum.value") if adopted else "datum.value",
                              labelLimit=400)),  # the mark on a line of its own
        color=alt.Color("level:N", title="level (both seeds)", sort=order,
                        scale=alt.Scale(domain=order, range=list(LEVEL_COLOURS.values())),
                        legend=alt.Legend(orient="bottom")),
        tooltip=["regime:N", "epochs:O", alt.Tooltip("level:N", title="level, both seeds"),
                 alt.Tooltip("seed_level:N", title="by seed"),
                 alt.Tooltip("scores:N", title="controls' scores")],
    ).properties(width=240, height=28 * df.regime.nunique())  # room for a two-line label


# colour-blind-safe (Okabe–Ito: blue, vermillion, yellow, grey) and each with a glyph drawn in its
# cell, so that a verdict reads without colour (under deuteranopia too) and without hover
VERDICT_COLOURS = dict(zip(VERDICTS, ("#0072b2", "#d55e00", "#f0e442", "#bbbbbb")))
VERDICT_GLYPHS = dict(zip(VERDICTS, ("✓", "✗", "?", "–")))
GLYPH_INK = dict(zip(VERDICTS, ("white", "white", "black", "black")))


def two_lines(labels, longest: int = 24, shown: dict | None = None) -> str:
    """A legend's ``labelExpr`` that writes each label (as ``shown`` gives it, else itself) on two
    lines where longer than ``longest`` characters, broken at the space nearest its middle (a
    phone's width holds the legend)."""
    expr = "datum.label"
    for label in labels:
        text = (shown or {}).get(label, label)
        if len(text) > longest:
            spaces = [i for i, ch in enumerate(text) if ch == " "]
            cut = min(spaces, key=lambda i: abs(i - len(text) / 2))
            expr = f"datum.label == {label!r} ? [{text[:cut]!r}, {text[cut + 1:]!r}] : {expr}"
        elif text != label:
            expr = f"datum.label == {label!r} ? {text!r} : {expr}"
    return expr


def verdict_grid(ledger: pd.DataFrame):
    """The reproduction ledger at a glance: one cell per claim (rows, in the ledger's order, each
    labelled by its id and its short name in words) and regime (columns), coloured by its
    verdict and marked with its glyph (``VERDICT_GLYPHS``: it reads without colour), the legend
    below in one column; the claim, our figure and the rule on hover. Narrow enough for a phone
    (under 390 px with its menu and three regimes, in Chromium; each more adds 32; the regimes
    at a steep angle, so that a long title does not widen it)."""
    _require(ledger, ["id", "name", "claim", "regime", "verdict", "ours"], "verdict_grid")
    order = list(VERDICT_COLOURS)
    df = ledger.assign(label=ledger.id + "  " + ledger.name, glyph=ledger.verdict.map(VERDICT_GLYPHS),
                       ink=ledger.verdict.map(GLYPH_INK))
    x = alt.X("regime:N", title="regime", sort=list(dict.fromkeys(df.regime)),
              axis=alt.Axis(labelAngle=-65, orient="top", labelAlign="left", labelLimit=180))
    # no axis title (the caption names the rows), so that the 12 px labels keep it phone-wide
    y = alt.Y("label:N", title=None, sort=list(dict.fromkeys(df.label)),
              axis=alt.Axis(labelLimit=190))
    tooltip = ["id:N", "name:N", "claim:N", "regime:N", "verdict:N",
               alt.Tooltip("ours:N", title="ours")]
    cells = alt.Chart(df).mark_rect(stroke="white", strokeWidth=2).encode(
        x=x, y=y, tooltip=tooltip,
        color=alt.Color("verdict:N", sort=order, title=None,
                        scale=alt.Scale(domain=order, range=list(VERDICT_COLOURS.values())),
                        legend=alt.Legend(orient="bottom", columns=1, labelLimit=0,
                                          labelExpr=two_lines(order, shown={
                                              v: f"{VERDICT_GLYPHS[v]} {v}" for v in order}))))
    glyphs = alt.Chart(df).mark_text(fontSize=12).encode(
        x=x, y=y, text="glyph:N", color=alt.Color("ink:N", scale=None), tooltip=tooltip)
    return alt.layer(cells, glyphs).properties(width=32 * df.regime.nunique(),
                                               height=18 * df.id.nunique())


ESSAY_COLOURS = {essay.SUPPORTED: "#0072b2", essay.DIFFERS: "#0072b2",
                 essay.NOT_SUPPORTED: "#d55e00", essay.NO_DIFFERENCE: "#e69f00",
                 essay.NOT_SHOWN: "#e69f00",
                 essay.UNDECIDABLE: "#f0e442", essay.NOT_TESTABLE: "#bbbbbb"}
# a glyph per verdict, so that two verdicts of one colour still read apart, and without colour
ESSAY_GLYPHS = {essay.SUPPORTED: "✓", essay.DIFFERS: "≠", essay.NOT_SUPPORTED: "✗",
                essay.NO_DIFFERENCE: "=", essay.NOT_SHOWN: "…", essay.UNDECIDABLE: "?",
                essay.NOT_TESTABLE: "–"}
ESSAY_INK = {v: "black" if c in ("#e69f00", "#f0e442", "#bbbbbb") else "white"
             for v, c in ESSAY_COLOURS.items()}


def prediction_verdicts(columns: dict[str, dict[str, dict]], names: dict[str, str]):
    """The essay's predictions at a glance: one cell per prediction (rows, named by ``names``)
    and regime column (``columns``: a regime's title → its judged tests), coloured by its verdict
    and marked with its glyph (``ESSAY_GLYPHS``), the legend below in one column; the seeds, how
    many went the predicted way and the Holm-corrected p on hover. A phone's width holds it."""
    df = pd.DataFrame([{"prediction": names[k], "regime": title, "verdict": t["verdict"],
                        "seeds": t["n"], "agree": t["agree"], "p (Holm)": t["p_holm"],
                        "glyph": ESSAY_GLYPHS[t["verdict"]], "ink": ESSAY_INK[t["verdict"]]}
                       for title, tests in columns.items() for k, t in tests.items()])
    order = list(ESSAY_COLOURS)
    x = alt.X("regime:N", title=None, sort=list(columns),  # steep titles: the columns narrow
              axis=alt.Axis(orient="top", labelAngle=-65, labelAlign="left", labelLimit=0))
    y = alt.Y("prediction:N", title=None, sort=list(dict.fromkeys(df.prediction)),
              axis=alt.Axis(labelLimit=360, labelExpr=two_lines(df.prediction, longest=28)))
    tooltip = ["prediction:N", "regime:N", "verdict:N", "seeds:Q",
               alt.Tooltip("agree:Q", title="seeds going the predicted way"),
               alt.Tooltip("p (Holm):Q", format=".3f")]
    cells = alt.Chart(df).mark_rect(stroke="white", strokeWidth=2).encode(
        x=x, y=y, tooltip=tooltip, color=alt.Color(
            "verdict:N", sort=order, title=None,
            scale=alt.Scale(domain=order, range=[ESSAY_COLOURS[v] for v in order]),
            legend=alt.Legend(orient="bottom", columns=1, labelLimit=0, labelExpr=two_lines(
                order, longest=30, shown={v: f"{ESSAY_GLYPHS[v]} {v}" for v in order}))))
    glyphs = alt.Chart(df).mark_text(fontSize=14).encode(
        x=x, y=y, text="glyph:N", color=alt.Color("ink:N", scale=None), tooltip=tooltip)
    return alt.layer(cells, glyphs).properties(width=COLUMN * len(columns), height=ROW * len(names))


COLUMN = 40  # px: a regime's column
ROW = 30  # px: a prediction's row (its name on two lines)
