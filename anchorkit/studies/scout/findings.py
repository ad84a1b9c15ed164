"""The optimizer scout's findings: the sentences and reader's tables its page and the report's
draw from the scout's committed tables (``premise``, ``regimes``, ``decision``, ``where``).

Nothing here measures or decides: the decision rule, the premise measures and the run of the
scout are the folder's other modules; this one only reads what they wrote (the scout's page
texts, kept in its folder: ``scout.findings``, not re-exported by the package).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from anchorkit.core.config import WIDTH
from anchorkit.engine.formatting import and_list, captioned
from anchorkit.studies.scout import (FUNCTIONAL_COST, REPORT_TOKENS, ROTATED_AXES_MAX, ROTATED_KURTOSIS_MAX,
                             ROTATED_RATIO, ROTATED_SHARE, SCORE_MIN, cost_first, functional,
                             reversed_basis)
from anchorkit.core.task import SYNTAX
from anchorkit.core.optimizers import PLAIN_ADAM, ROTATED_ADAM


def decision_text(decision: pd.Series, regimes: pd.DataFrame) -> str:
    """The decision in one or two sentences, from the tables."""
    reached = regimes[regimes["level"] != "none"]
    found = ("; ".join(f"{r['regime']} at {r['epochs']} epochs: {r['level']}"
                       + ("" if r["controls_score"] else
                          f", though a control scores below {SCORE_MIN}, which the rule asks "
                          "of every run")
                       for _, r in cost_first(reached).iterrows())
             if len(reached) else "no regime and length reached even a functional spike")
    if decision["decision"] == "adopt":
        head = (f"Adopted: **{decision['regime']}** at {int(decision['epochs'])} epochs "
                f"({decision['level']} basis on every calibration seed, and its falloff runs meet "
                "the anchor criteria).")
    else:
        head = ("No regime was adopted: none reached a clear or report-strength basis whose "
                "falloff runs met the anchor criteria.")
    return f"{head} Levels reached (the weakest calibration seed's): {found}."


# ---------------------------------------------------------------------- what the scout found
def _cells(premise: pd.DataFrame, optimizer: str, column: str) -> pd.DataFrame:
    """Per regime and length: ``column`` of the controls under ``optimizer``, its weakest seed's
    value (the minimum) and every seed's, seed order."""
    df = premise[premise.optimizer == optimizer].sort_values("seed")
    return (df.groupby(["regime", "epochs"])[column]
            .agg(weakest="min", seeds=lambda v: and_list([f"{x:.2f}" for x in v]))
            .reset_index())


def _best(premise: pd.DataFrame, optimizer: str, column: str) -> pd.Series:
    """The regime and length whose weakest seed has the largest ``column`` (cheapest on ties)."""
    cells = cost_first(_cells(premise, optimizer, column))
    return cells.loc[cells["weakest"].idxmax()]


def _on_every_seed(premise: pd.DataFrame, optimizer: str, criterion) -> str:
    """The regimes and lengths (cheapest first) where every seed's ``optimizer`` control meets
    ``criterion``, in words."""
    df = premise[premise.optimizer == optimizer]
    every = df.assign(ok=criterion(df)).groupby(["regime", "epochs"])["ok"].all()
    cells = [f"{r} at {int(e)}" for r, e in cost_first(
        every[every].reset_index()[["regime", "epochs"]]).itertuples(index=False)]
    return ", ".join(cells) if cells else "no regime and length"


def _elsewhere(premise: pd.DataFrame, share: pd.DataFrame) -> str:
    """The costliest single coordinate axis of a plain-Adam control, top or not, and what its
    cell's top axis cost: the rule's spike is the top-energy direction, so a costlier axis
    elsewhere is said apart."""
    plain = premise.assign(costliest=premise[["top_cost", "costliest_other_cost"]].max(axis=1),
                           elsewhere=premise["costliest_other_cost"] > premise["top_cost"])
    most = _best(plain, "adam", "costliest")
    cell = plain[(plain.optimizer == PLAIN_ADAM.name) & (plain.regime == most["regime"])
                 & (plain.epochs == most["epochs"])].sort_values("seed")
    tops = and_list([f"{x:.2f}" for x in cell["top_cost"]])
    return (
        f"The costliest single coordinate axis of a plain-Adam control, top or not, counted by "
        f"its weakest seed, cost {most['seeds']} ({most['regime']} at {int(most['epochs'])} "
        f"epochs), where the top axis (share {share.loc[(most['regime'], most['epochs']), 'seeds']}) "
        f"cost {tops}" + (
            ": on every seed the axis the task could least lose was not the one holding the most "
            "energy, which the rule's functional spike (the top direction) does not count"
            if cell["elsewhere"].all() else ""))


def premise_findings(premise: pd.DataFrame, reference: str = "weak-basis") -> dict[str, str]:
    """What the scout's controls show about each part of the report's premise, as sentences
    computed from its ``premise`` table: ``size`` (the plain-Adam top-axis share), ``reversal``
    (the rotated twin flat along the axes with a spike along its own), ``function`` (the cost of
    projecting the top direction out), ``elsewhere`` (the costliest coordinate axis of a plain-Adam
    control, top or not) and ``growth`` (the top-axis share from the shortest to the longest
    length, per regime). A regime and length counts by its weakest calibration seed;
    values are listed per seed in seed order."""
    seeds = and_list([str(s) for s in sorted(premise["seed"].unique())])
    short, long = int(premise["epochs"].min()), int(premise["epochs"].max())
    size = _best(premise, "adam", "top_share_axes")
    share = _cells(premise, "adam", "top_share_axes").set_index(["regime", "epochs"])
    ref = (f", against {share.loc[(reference, short), 'seeds']} in the {reference} regime at "
           f"{short} epochs" if (reference, short) in share.index else "")
    found = {"size": (
        f"The largest top-axis share of a plain-Adam control at the last slice, on every "
        f"calibration seed, was {size['seeds']} (seeds {seeds}) in the {size['regime']} regime at "
        f"{int(size['epochs'])} epochs{ref}; an even spread gives 1/{WIDTH} ≈ {1 / WIDTH:.3f}")}
    top_rot = _best(premise, "rotated", "top_share_rotated")
    found["reversal"] = (
        f"Rotated Adam's controls kept the coordinate axes flat (top share at most "
        f"{ROTATED_AXES_MAX}, kurtosis at most {ROTATED_KURTOSIS_MAX}) while one of their own "
        f"rotated axes held at least {ROTATED_SHARE} with {ROTATED_RATIO:g} times the next, on "
        f"every seed, in {_on_every_seed(premise, 'rotated', reversed_basis)}; their largest "
        f"rotated share was {top_rot['seeds']} ({top_rot['regime']} at {int(top_rot['epochs'])} epochs)")
    cost_p, cost_r = _best(premise, "adam", "top_cost"), _best(premise, "rotated", "top_cost")

    found["function"] = (
        f"The costliest top direction, projected out at full dose and counted by its weakest "
        f"seed, cost a plain-Adam control {cost_p['seeds']} ({cost_p['regime']} at "
        f"{int(cost_p['epochs'])} epochs) and a rotated control {cost_r['seeds']} "
        f"({cost_r['regime']} at {int(cost_r['epochs'])} epochs), against {FUNCTIONAL_COST} "
        f"for a functional spike. The plain-Adam spike was functional on every seed in "
        f"{_on_every_seed(premise, 'adam', functional)}; the rotated twin's in "
        f"{_on_every_seed(premise, 'rotated', functional)}")
    found["elsewhere"] = _elsewhere(premise, share)
    grew = [f"{r} {share.loc[(r, short), 'seeds']} → {share.loc[(r, long), 'seeds']}"
            for r in dict.fromkeys(premise["regime"])
            if (r, short) in share.index and (r, long) in share.index]
    found["growth"] = (f"From {short} to {long} epochs the plain-Adam top-axis share went "
                       + "; ".join(grew))
    return found


def syntax_kth(premise: pd.DataFrame, basis: str = "axes", k: int = REPORT_TOKENS) -> pd.Series:
    """Per control, the k-th largest of the syntax tokens' largest |cos| with a basis vector:
    report strength needs it at least REPORT_COS for k = REPORT_TOKENS."""
    cos = premise[[f"syntax_cos_{s}_{basis}" for s in SYNTAX]].to_numpy()
    return pd.Series(np.sort(cos, axis=1)[:, -k], index=premise.index)


def premise_by_seed(premise: pd.DataFrame) -> pd.DataFrame:
    """One row per regime, length and seed: the plain-Adam control and its rotated twin side by
    side, in the decision rule's terms, cheapest first."""
    keys = ["regime", "epochs", "seed"]
    p = premise[premise.optimizer == PLAIN_ADAM.name].assign(syntax_kth=lambda d: syntax_kth(d))
    r = premise[premise.optimizer == ROTATED_ADAM.name]

    def side(df, columns, suffix):
        return df[keys + columns].rename(columns={c: f"{c}_{suffix}" for c in columns})

    plain = side(p, ["top_share_axes", "top_ratio_axes", "kurtosis_axes", "syntax_kth",
                     "top_cost", "median_other_cost", "costliest_other_cost", "min_score"], "plain")
    twin = side(r, ["top_share_axes", "kurtosis_axes", "top_share_rotated", "top_ratio_rotated",
                    "top_cost", "median_other_cost", "costliest_other_cost", "min_score"],
                "rotated")
    out = plain.merge(twin, on=keys)
    return out.sort_values(["epochs", "regime", "seed"], kind="stable")


def where_summary(where: pd.DataFrame) -> pd.DataFrame:
    """Where each control's top direction holds its energy, per regime, length, optimizer and
    seed: the slice where its share peaks (and that share), its share at the last slice, the
    position at the last slice where its share is largest (and that share) and the median share
    over positions, against which that largest reads: near it, the position is an argmax of a
    flat profile, not a place the direction sits."""
    rows = []
    for key, g in where.groupby(["regime", "epochs", "optimizer", "seed"]):
        sl, pos = g[g["where"] == "slice"], g[g["where"] == "position"]
        peak, at = sl.loc[sl["share"].idxmax()], pos.loc[pos["share"].idxmax()]
        rows.append(dict(zip(["regime", "epochs", "optimizer", "seed"], key),
                         peak_slice=int(peak["slice"]), peak_share=float(peak["share"]),
                         last_slice_share=float(sl.loc[sl["slice"].idxmax(), "share"]),
                         top_position=int(at["position"]), top_position_share=float(at["share"]),
                         median_position_share=float(pos["share"].median())))
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------- the page's figures and tables
def page_facts(tables: dict[str, pd.DataFrame], regimes, lengths) -> dict[str, str]:
    """The scout page's glued figures (glue key → text): the decision, the regimes and lengths."""
    decision = tables["decision"].iloc[0]
    return {"scout-decision": decision_text(decision, tables["regimes"]),
            "scout-regimes": ", ".join(regimes),
            "scout-lengths": ", ".join(str(x) for x in sorted(lengths))}


def findings_list(premise: pd.DataFrame) -> str:
    """The scout's findings as a Markdown list, one glued item each."""
    found = premise_findings(premise)
    return "\n".join(f'- <span class="glued">{found[k]}.</span>'
                     for k in ("size", "reversal", "function", "elsewhere", "growth"))


def levels_table(levels: pd.DataFrame):
    return captioned(cost_first(levels), {"regime": "regime", "epochs": "epochs",
                                          "level": "level (weakest seed)",
                                          "controls_score": f"every control ≥ {SCORE_MIN}"},
                     "Each regime and length: the strongest level of the decision rule that every "
                     "calibration seed reached, cheapest first.")


PLAIN_HEADERS = {
    "top_share_axes_plain": "top-axis share", "top_ratio_axes_plain": "top / 2nd",
    "kurtosis_axes_plain": "kurtosis", "syntax_kth_plain": "3rd syntax |cos|",
    "top_cost_plain": "top cost", "median_other_cost_plain": "median other cost",
    "costliest_other_cost_plain": "costliest other", "min_score_plain": "lowest op"}
ROTATED_HEADERS = {
    "top_share_axes_rotated": "top-axis share", "kurtosis_axes_rotated": "kurtosis on axes",
    "top_share_rotated_rotated": "top rotated share", "top_ratio_rotated_rotated": "top / 2nd (rotated)",
    "top_cost_rotated": "top cost", "median_other_cost_rotated": "median other cost",
    "costliest_other_cost_rotated": "costliest other", "min_score_rotated": "lowest op"}


def premise_tables(premise: pd.DataFrame) -> list:
    """The plain-Adam controls and their rotated twins, per regime, length and seed."""
    by_seed = premise_by_seed(premise.assign(syntax_kth_axes=syntax_kth(premise)))
    keys = {"regime": "regime", "epochs": "epochs", "seed": "seed"}
    return [captioned(by_seed, {**keys, **PLAIN_HEADERS},
                      "Plain-Adam controls at every length, last slice. Top cost: the direction cost of "
                      "the top coordinate axis at full dose; median other cost and costliest other: the "
                      "median and the largest over the other axes. 3rd syntax |cos|: the third largest "
                      "over the four syntax tokens of their largest |cos| with a coordinate axis."),
            captioned(by_seed, {**keys, **ROTATED_HEADERS},
                      "Their rotated twins (rotated Adam, same seed and regime). Top cost: the direction "
                      "cost of the top rotated axis at full dose; median other cost and costliest other: "
                      "the median and the largest over the other rotated axes.")]


WHERE_HEADERS = {
    "regime": "regime", "optimizer": "optimizer", "seed": "seed", "peak_slice": "peak slice",
    "peak_share": "share there", "last_slice_share": "share at the last slice",
    "top_position": "top position (last slice)", "top_position_share": "share there",
    "median_position_share": "median over positions"}


def where_table(where: pd.DataFrame):
    w = where_summary(where)
    return captioned(w[w.epochs == w.epochs.max()].sort_values(["regime", "optimizer", "seed"]),
                     WHERE_HEADERS,
                     "Where each control's top direction (own basis) holds its energy at the longest "
                     "length: by slice over every position, and by position at the last slice, with the "
                     "median share over positions to read the top one against.")


ANCHOR_HEADERS = {
    "regime": "regime", "epochs": "epochs", "optimizer": "optimizer", "seed": "seed",
    "raw_removal": "removal ↑", "over_removal": "over-removal", "spill": "spill ↓",
    "alignment_3": "alignment, slice 3 ↑", "alignment_4": "alignment, slice 4 ↑",
    "anchored_score_min": "falloff: score of min", "control_score_min": "control: score of min"}


def anchors_table(anchors: pd.DataFrame):
    """Falloff against its control where the rule called for it, or None when it never did."""
    if not len(anchors):
        return None
    return captioned(anchors.sort_values(["epochs", "optimizer", "seed"]), ANCHOR_HEADERS,
                     "Falloff against its control in the regime the rule reached, at each length: the "
                     "anchor criteria (removal is the bounded one).")
