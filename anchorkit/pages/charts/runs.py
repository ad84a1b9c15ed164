"""The figures of runs and their measures: recipes, alignment, removal, spectra, costs,
trajectories, layers and the scout's measures over training (``anchorkit.pages.charts``)."""

from __future__ import annotations

import altair as alt
import pandas as pd

from anchorkit.measures import criteria
from anchorkit.core.config import WIDTH
from anchorkit.pages.charts.base import (BASIS_NAMES, GROUP_COLORS, GROUPS, ROLE_NAMES, _grouped, _require,
                                         _runs_and_median)
from anchorkit.core.recipes import recipe


def recipe_weights(name: str = "falloff", n_slices: int = 5) -> pd.DataFrame:
    """The recipe's weights by slice as a tidy table (term, slice, weight)."""
    r = recipe(name, n_slices)
    rows = [{"term": "light anti", "slice": s, "weight": w} for s, w in enumerate(r.light)]
    rows += [{"term": "hold", "slice": s, "weight": r.hold} for s in range(n_slices)]
    rows += [{"term": "pull", "slice": s, "weight": r.pull} for s in range(1, n_slices)]
    return pd.DataFrame(rows)


def alignment_by_slice(alignment: pd.DataFrame, weights: pd.DataFrame | None = None):
    """E1: mean alignment at the example answers by slice, in difference and other-op contexts,
    for the anchored runs; with ``weights`` (``recipe_weights``) a panel of the recipe beneath."""
    _require(alignment, ["run", "seed", "optimizer", "role", "slice", "context", "alignment"],
             "alignment_by_slice")
    df = _grouped(alignment[alignment["role"] == "anchored"], "optimizer")
    x = alt.X("slice:O", title="slice", axis=alt.Axis(labelExpr=_slice_label_expr(), labelAngle=0))
    runs, median = _runs_and_median(df, x, "alignment", "alignment α at the example answers")
    chart = alt.layer(runs, median, data=df).facet(
        column=alt.Column("context:N", title=None, header=alt.Header(
            labelExpr="datum.value == 'difference' ? 'difference contexts' : 'other-op contexts'")))
    if weights is None:
        return chart
    _require(weights, ["term", "slice", "weight"], "alignment_by_slice weights")
    panel = alt.Chart(weights).mark_line(point=True).encode(
        x=alt.X("slice:O", axis=alt.Axis(labelExpr=_slice_label_expr(), labelAngle=0)),
        y=alt.Y("weight:Q", scale=alt.Scale(type="symlog", constant=0.01), title="recipe weight",
                axis=alt.Axis(values=[0, 0.03, 0.1, 0.2, 0.5, 1.0], format="~g")),  # their own scale
        color=alt.Color("term:N", title="recipe term", legend=alt.Legend(orient="bottom")),
        tooltip=["term:N", "slice:O", alt.Tooltip("weight:Q", format=".3f")],
    ).properties(width=220, height=90)
    return alt.vconcat(chart, panel).resolve_scale(color="independent")


def _slice_label_expr() -> str:
    return "datum.value == 0 ? 'emb.' : datum.value"


def removal_by_dose(dose: pd.DataFrame, criterion: float = criteria.SPILL_MAX, by: str = "optimizer"):
    """E2: removal net of the control, raw removal and spill against dose, runs grouped ``by``
    optimizer (or recipe); a dashed rule at the selectivity criterion on the spill panel."""
    _require(dose, ["run", "seed", by, "dose", "net_removal", "raw_removal", "spill"],
             "removal_by_dose")
    df = _grouped(dose, by)
    x = alt.X("dose:Q", title="dose δ", scale=alt.Scale(domain=[0, 1]))
    panels = []
    for col, title in (("net_removal", "removal net of the control"),
                       ("raw_removal", "raw removal"), ("spill", "spill")):
        layers = list(_runs_and_median(df, x, col, title, by))
        if col == "spill":
            layers.append(alt.Chart(pd.DataFrame({"criterion": [criterion]})).mark_rule(
                strokeDash=[5, 4], color="black").encode(
                y="criterion:Q", tooltip=[alt.Tooltip("criterion:Q", title="selectivity criterion")]))
        panels.append(alt.layer(*layers).properties(width=150, height=170, title=title))
    return alt.hconcat(*panels)


def energy_spectrum(spectra: pd.DataFrame, n_basis: int = WIDTH):
    """E3: the share of energy per direction at the last slice, sorted, on a log scale; coordinate
    axes and rotated axes in two colours; one hairline per run; a dotted rule at 1/n."""
    _require(spectra, ["run", "seed", "role", "basis", "share"], "energy_spectrum")
    df = spectra.copy()
    df["rank"] = df.groupby(["run", "role", "basis"])["share"].rank(ascending=False, method="first")
    df["basis_name"] = df["basis"].map(BASIS_NAMES)
    df["role_name"] = df["role"].map(ROLE_NAMES)
    lines = alt.Chart().mark_line(strokeWidth=0.9, opacity=0.6).encode(
        x=alt.X("rank:Q", title="direction, by share (largest first)"),
        y=alt.Y("share:Q", scale=alt.Scale(type="log"), title="energy share at the last slice"),
        color=alt.Color("basis_name:N", title=None, legend=alt.Legend(orient="bottom")),
        detail="run:N",
        tooltip=["run:N", "seed:Q", "basis_name:N", "rank:Q", alt.Tooltip("share:Q", format=".4f")])
    rule = alt.Chart().mark_rule(strokeDash=[2, 2], color="gray").encode(
        y=alt.datum(1 / n_basis))
    return alt.layer(lines, rule, data=df).properties(width=260, height=200).facet(
        column=alt.Column("role_name:N", title=None, sort=["control", "falloff"]))


def direction_cost(basis: pd.DataFrame):
    """E3: the direction cost (mean drop over ops at full dose) of every swept direction, one
    column per seed, control and falloff in rows: coordinate axes and rotated axes as dots,
    random directions as open circles, e₁ as a square."""
    _require(basis, ["run", "seed", "role", "basis", "direction", "cost"], "direction_cost")
    df = basis.dropna(subset=["cost"]).copy()
    df["kind"] = df["basis"].map(BASIS_NAMES)
    df.loc[(df["basis"] == "axes") & (df["direction"] == 0), "kind"] = "e₁"
    df["role_name"] = df["role"].map(ROLE_NAMES)
    kinds = ["coordinate axes", "rotated axes", "random", "e₁"]
    enc = dict(
        x=alt.X("kind:N", sort=kinds, title=None, axis=alt.Axis(labels=False, ticks=False)),
        xOffset=alt.XOffset("jitter:Q"),
        y=alt.Y("cost:Q", title=None),
        color=alt.Color("kind:N", sort=kinds, title=None, legend=alt.Legend(orient="bottom")),
        tooltip=["run:N", "seed:Q", "kind:N", "direction:Q", alt.Tooltip("cost:Q", format=".3f")])
    base = alt.Chart().transform_calculate(jitter="random()")
    dots = base.mark_point(filled=True, size=14, opacity=0.7).encode(**enc).transform_filter(
        "datum.kind == 'coordinate axes' || datum.kind == 'rotated axes'")
    random = base.mark_point(filled=False, size=22).encode(**enc).transform_filter(
        "datum.kind == 'random'")
    e1 = base.mark_square(size=70).encode(**enc).transform_filter("datum.kind == 'e₁'")
    # narrow enough for eight seeds in the book's column; one title instead of a y title per row
    return alt.layer(dots, random, e1, data=df).properties(width=44, height=150).facet(
        column=alt.Column("seed:O", title="seed"),
        row=alt.Row("role_name:N", title=None, sort=["control", "falloff"]), spacing=6,
    ).properties(title="direction cost: mean drop over the ops at full dose")


def trajectories(trajectory: pd.DataFrame, columns: list[str], title: str):
    """Supporting pages: the given trajectory columns over training, one line per run, coloured
    by recipe, one panel per column."""
    _require(trajectory, ["run", "seed", "recipe", "epoch", *columns], "trajectories")
    df = trajectory.melt(id_vars=["run", "seed", "recipe", "optimizer", "epoch"],
                         value_vars=columns, var_name="column", value_name="value")
    df["measure"] = df["column"].map(trajectory_label)
    line = alt.Chart().mark_line(strokeWidth=1, opacity=0.7).encode(
        x=alt.X("epoch:Q"), y=alt.Y("value:Q", title=title),
        color=alt.Color("recipe:N", legend=alt.Legend(orient="bottom")), detail="run:N",
        tooltip=["run:N", "seed:Q", "epoch:Q", alt.Tooltip("value:Q", format=".3f")])
    return alt.layer(line, data=df).properties(width=120, height=110).facet(
        column=alt.Column("measure:N", title=None, sort=[trajectory_label(c) for c in columns]))


def trajectory_label(column: str) -> str:
    """A trajectory column in the book's words: ``score_sum`` → "sum", ``alignment_other_4`` →
    "other-op contexts, slice 4"."""
    if column.startswith("score_"):
        return column[len("score_"):]
    for prefix, words in (("alignment_difference_", "difference contexts"),
                          ("alignment_other_", "other-op contexts")):
        if column.startswith(prefix):
            return f"{words}, slice {column[len(prefix):]}"
    return column.replace("_", " ")


VERDICT_SCALE = alt.Scale(domain=["kept", "lost"], range=["#1b9e77", "#d95f02"])  # kept/lost rule


def removal_by_seed(results: pd.DataFrame, threshold: float = 0.5):
    """The loss-rate screen: net and raw removal at full dose of every seed, kept and lost runs in
    two colours, a dashed rule at the kept/lost threshold."""
    _require(results, ["run", "seed", "net_removal", "raw_removal", "kept"], "removal_by_seed")
    df = results.melt(id_vars=["run", "seed", "kept"], value_vars=["net_removal", "raw_removal"],
                      var_name="measure", value_name="removal")
    df["verdict"] = df["kept"].map({True: "kept", False: "lost"})
    dots = alt.Chart().mark_circle(size=40, opacity=0.8).encode(
        x=alt.X("removal:Q", title="removal at full dose"),
        y=alt.Y("jitter:Q", axis=None), yOffset=alt.value(0),
        color=alt.Color("verdict:N", scale=VERDICT_SCALE, title="net-removal rule",
                        legend=alt.Legend(orient="bottom")),
        tooltip=["run:N", "seed:Q", alt.Tooltip("removal:Q", format=".3f"), "verdict:N"],
    ).transform_calculate(jitter="(datum.seed * 0.618034) % 1")  # by seed: the same at each load
    rule = alt.Chart().mark_rule(strokeDash=[5, 4], color="black").encode(x=alt.datum(threshold))
    return alt.layer(dots, rule, data=df).properties(width=420, height=70).facet(
        row=alt.Row("measure:N", title=None, header=alt.Header(
            labelExpr="datum.value == 'net_removal' ? 'net removal' : 'raw removal'")))


def scatter(df: pd.DataFrame, x: str, y: str, x_title: str, y_title: str, color: str | None = None,
            scale: alt.Scale = alt.Undefined):
    """One dot per run: ``y`` against ``x``, with run, seed and both values on hover; ``color``
    names a column to colour by (``scale``: its colours, e.g. VERDICT_SCALE)."""
    _require(df, ["run", "seed", x, y], "scatter")
    enc = dict(x=alt.X(f"{x}:Q", title=x_title), y=alt.Y(f"{y}:Q", title=y_title),
               tooltip=["run:N", "seed:Q", alt.Tooltip(f"{x}:Q", format=".3f"),
                        alt.Tooltip(f"{y}:Q", format=".3f")])
    if color is not None:
        enc["color"] = alt.Color(f"{color}:N", scale=scale, legend=alt.Legend(orient="bottom"))
    return alt.Chart(df).mark_circle(size=45, opacity=0.8).encode(**enc).properties(
        width=320, height=220)


def by_layer(layers: pd.DataFrame, measure: str, title: str):
    """The essay: a layer measure's enrichment (final / initial) by layer, one line per run,
    coloured by recipe, log scale."""
    _require(layers, ["run", "seed", "recipe", "layer", "measure", "enrichment"], "by_layer")
    df = layers[layers["measure"] == measure]
    return alt.Chart(df).mark_line(point=True, strokeWidth=1, opacity=0.6).encode(
        x=alt.X("layer:O", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("enrichment:Q", scale=alt.Scale(type="log"), title=title),
        color=alt.Color("recipe:N", legend=alt.Legend(orient="bottom")), detail="run:N",
        tooltip=["run:N", "seed:Q", "layer:O", alt.Tooltip("enrichment:Q", format=".2f")],
    ).properties(width=260, height=200)


def strip(df: pd.DataFrame, category: str, value: str, title: str, log: bool = False):
    """One dot per item, jittered within its category, with the category's median as a tick."""
    _require(df, ["run", "seed", category, value], "strip")
    # a log scale for positive values (a symlog's linear zone crushed them into its foot)
    y = alt.Y(f"{value}:Q", title=title, scale=alt.Scale(type="log") if log else alt.Undefined)
    dots = alt.Chart().mark_circle(size=14, opacity=0.5).encode(
        x=alt.X(f"{category}:N", title=None, axis=alt.Axis(labelAngle=0)),
        xOffset=alt.XOffset("jitter:Q"), y=y, color=alt.Color(f"{category}:N", legend=None),
        tooltip=["run:N", "seed:Q", f"{category}:N", alt.Tooltip(f"{value}:Q", format=".3f")],
    ).transform_calculate(jitter="random()")
    median = alt.Chart().mark_tick(color="black", size=30, thickness=2).encode(
        x=alt.X(f"{category}:N"), y=f"median({value}):Q",
        tooltip=[f"{category}:N", alt.Tooltip(f"median({value}):Q", format=".3f")])
    return alt.layer(dots, median, data=df).properties(width=260, height=200)


OPTIMIZER_NAMES = {"adam": "plain Adam", "rotated": "rotated Adam"}


def over_training(premise: pd.DataFrame, measure: str, title: str, log: bool = False):
    """The optimizer scout: one premise measure against training length, a hairline per seed and
    the median over seeds in bold, coloured by regime, plain and rotated Adam side by side."""
    _require(premise, ["regime", "epochs", "seed", "optimizer", "run", measure], "over_training")
    df = premise.assign(optimizer_name=premise["optimizer"].map(OPTIMIZER_NAMES),
                        line=premise["regime"] + " " + premise["run"])
    y = alt.Scale(type="log") if log else alt.Undefined
    color = alt.Color("regime:N", title=None, legend=alt.Legend(orient="bottom", columns=3))
    base = alt.Chart().encode(x=alt.X("epochs:Q", title="epochs"), color=color)
    seeds = base.mark_line(strokeWidth=0.8, opacity=0.45).encode(
        y=alt.Y(f"{measure}:Q", title=title, scale=y), detail="line:N",
        tooltip=["regime:N", "seed:Q", "epochs:Q", alt.Tooltip(f"{measure}:Q", format=".3f")])
    median = base.mark_line(strokeWidth=3, point=True).encode(
        y=alt.Y(f"median({measure}):Q", scale=y),
        tooltip=["regime:N", "epochs:Q",
                 alt.Tooltip(f"median({measure}):Q", format=".3f", title=f"median {title}")])
    return alt.layer(seeds, median, data=df).properties(width=220, height=160).facet(
        column=alt.Column("optimizer_name:N", title=None,
                          sort=list(OPTIMIZER_NAMES.values())))



# an arm's name on an axis of two narrow columns: its first word (the full name is in the tooltip)
SHORT_ARM = "split(datum.label, ' ')[0]"


def paired_by_seed(results: pd.DataFrame, column: str, title: str, threshold: float | None = None):
    """One value per run for the rotated runs and their plain-Adam twins, joined by a line per
    seed (a paired dot plot); a dashed rule at ``threshold``."""
    _require(results, ["seed", "optimizer", column], "paired_by_seed")
    df = results.assign(optimizer_name=results.optimizer.map(GROUPS))
    x = alt.X("optimizer_name:N", title=None, sort=[GROUPS["adam"], GROUPS["rotated"]],
              axis=alt.Axis(labelAngle=0, labelExpr=SHORT_ARM))  # the legend keeps the long names
    y = alt.Y(f"{column}:Q", title=title)
    lines = alt.Chart().mark_line(color="#999", strokeWidth=1).encode(x=x, y=y, detail="seed:N")
    dots = alt.Chart().mark_circle(size=60, opacity=0.9).encode(
        x=x, y=y, color=alt.Color("optimizer_name:N", legend=None, scale=GROUP_COLORS),
        tooltip=["seed:Q", "optimizer_name:N", alt.Tooltip(f"{column}:Q", format=".3f")])
    layers = [lines, dots]
    if threshold is not None:
        layers.append(alt.Chart(pd.DataFrame({"y": [threshold]})).mark_rule(
            strokeDash=[4, 3], color="black").encode(y="y:Q"))
    return alt.layer(*layers, data=df).properties(width=160, height=220)


def e2_pairs(results: pd.DataFrame, kept: float = 0.5):
    """E2 per seed as paired dot plots: raw and net removal at full dose, each rotated run beside
    its plain-Adam twin (a line per seed), with the kept/lost threshold dashed."""
    return alt.hconcat(paired_by_seed(results, "raw_removal", "raw removal, full dose", kept),
                       paired_by_seed(results, "net_removal", "net removal, full dose", kept)
                       ).resolve_scale(y="shared")  # the two panels are compared: one y scale



def by_regime(charts_by_regime: dict):
    """One chart per regime (its title → the chart), stacked, each under its regime's title."""
    return alt.vconcat(*[c.properties(title=alt.TitleParams(t, anchor="start", fontSize=13))
                         for t, c in charts_by_regime.items()]).resolve_scale(color="shared")
