"""The essay's testable predictions, each as a test on the tables of ``run_geometry`` (SPEC §10).

Every function returns a dict with the numbers it used and a ``verdict``: "supported", "not
supported", or "not testable at this size" (too few heads or runs of a kind to test). The rules
are fixed here, before the tables are read: a one-sided test in the predicted direction at
level ``ALPHA``, with at least ``MIN_GROUP`` items in every group compared.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

ALPHA = 0.05
MIN_GROUP = 5
SUPPORTED, NOT_SUPPORTED, NOT_TESTABLE = "supported", "not supported", "not testable at this size"


def _verdict(p: float, direction_ok: bool) -> str:
    return SUPPORTED if (direction_ok and p < ALPHA) else NOT_SUPPORTED


def _final(heads: pd.DataFrame) -> pd.DataFrame:
    return heads[heads["stage"] == "final"]


def boundary_heterogeneity(layers: pd.DataFrame) -> dict:
    """Boundary layers (first, last) develop more within-layer head heterogeneity than interior
    layers: per run, the log of (mean heterogeneity enrichment at the boundary / the same in the
    interior), Wilcoxon signed-rank test that it is above 0."""
    het = layers[(layers["measure"] == "head_heterogeneity") & (layers["kind"] == "ov")]
    per = het.groupby(["run", "boundary"])["enrichment"].mean().unstack("boundary")
    ratio = np.log(per[True] / per[False]).dropna()
    out = {"runs": len(ratio), "median_ratio": float(np.exp(ratio.median())) if len(ratio) else
           float("nan"), "boundary_higher": int((ratio > 0).sum())}
    if len(ratio) < MIN_GROUP:
        return {**out, "p": float("nan"), "verdict": NOT_TESTABLE}
    p = float(stats.wilcoxon(ratio, alternative="greater").pvalue)
    return {**out, "p": p, "verdict": _verdict(p, ratio.median() > 0)}


def sinks_carry_little_value(heads: pd.DataFrame) -> dict:
    """Sink-dominated heads have lower value content than the other heads (trained weights;
    Mann–Whitney, one-sided)."""
    f = _final(heads)
    sink, other = f[f["sink_dominated"]], f[~f["sink_dominated"]]
    out = {"sink_heads": len(sink), "other_heads": len(other),
           "median_sink": float(sink["value_content"].median()),
           "median_other": float(other["value_content"].median())}
    if len(sink) < MIN_GROUP or len(other) < MIN_GROUP:
        return {**out, "p": float("nan"), "verdict": NOT_TESTABLE}
    p = float(stats.mannwhitneyu(sink["value_content"], other["value_content"],
                                 alternative="less").pvalue)
    return {**out, "p": p, "verdict": _verdict(p, out["median_sink"] < out["median_other"])}


def functional_split(layers: pd.DataFrame, heads: pd.DataFrame) -> dict:
    """Weighting the layer's non-commutativity by value content discounts anchor heads: in trained
    layers that hold an anchor head, functional / plain non-commutativity is below 1 (Wilcoxon
    signed-rank, one-sided)."""
    f = _final(heads)
    with_anchor = f[f["class"] == "anchor"][["run", "layer"]].drop_duplicates()
    nc = layers[layers["kind"] == "ov"].pivot_table(index=["run", "layer"], columns="measure",
                                                    values="final")
    ratio = (nc["functional_noncommutativity"] / nc["noncommutativity"])
    ratio = ratio.reindex(pd.MultiIndex.from_frame(with_anchor)).dropna()
    out = {"layers_with_anchor": len(ratio),
           "median_ratio": float(ratio.median()) if len(ratio) else float("nan")}
    if len(ratio) < MIN_GROUP:
        return {**out, "p": float("nan"), "verdict": NOT_TESTABLE}
    p = float(stats.wilcoxon(np.log(ratio), alternative="less").pvalue)
    return {**out, "p": p, "verdict": _verdict(p, out["median_ratio"] < 1)}


def initial_contribution_predicts_change(correlations: pd.DataFrame) -> dict:
    """Heads that start with lower value content change more: Spearman ρ over all heads is
    negative (p of the two-sided test, halved for the predicted direction)."""
    row = correlations.set_index("group").loc["all"]
    rho, p2, n = float(row["rho"]), float(row["p"]), int(row["n"])
    if n < MIN_GROUP or np.isnan(rho):
        return {"rho": rho, "p": float("nan"), "n": n, "verdict": NOT_TESTABLE}
    p = p2 / 2 if rho < 0 else 1 - p2 / 2
    return {"rho": rho, "p": p, "n": n, "verdict": _verdict(p, rho < 0)}


def anchors_change_less(heads: pd.DataFrame) -> dict:
    """Two populations: anchor heads (classed on trained weights) changed less in training than
    worker heads (relative change of W_OV; Mann–Whitney, one-sided)."""
    f = _final(heads)
    a, w = f[f["class"] == "anchor"]["ov_change"], f[f["class"] == "worker"]["ov_change"]
    out = {"anchor_heads": len(a), "worker_heads": len(w),
           "median_anchor": float(a.median()), "median_worker": float(w.median())}
    if len(a) < MIN_GROUP or len(w) < MIN_GROUP:
        return {**out, "p": float("nan"), "verdict": NOT_TESTABLE}
    p = float(stats.mannwhitneyu(a, w, alternative="less").pvalue)
    return {**out, "p": p, "verdict": _verdict(p, out["median_anchor"] < out["median_worker"])}


def gradient_alignment_differs(heads: pd.DataFrame) -> dict:
    """Anchor heads' gradient alignment (non-commutativity against cross-entropy) differs from
    worker heads' (trained weights; Mann–Whitney, two-sided)."""
    f = _final(heads)
    a = f[f["class"] == "anchor"]["gradient_alignment"]
    w = f[f["class"] == "worker"]["gradient_alignment"]
    out = {"anchor_heads": len(a), "worker_heads": len(w),
           "median_anchor": float(a.median()), "median_worker": float(w.median())}
    if len(a) < MIN_GROUP or len(w) < MIN_GROUP:
        return {**out, "p": float("nan"), "verdict": NOT_TESTABLE}
    p = float(stats.mannwhitneyu(a, w, alternative="two-sided").pvalue)
    return {**out, "p": p, "verdict": _verdict(p, True)}


def recipe_changes_it(layers: pd.DataFrame, heads: pd.DataFrame) -> dict:
    """Whether anchoring (falloff against the control at the same seed and optimizer) changes the
    boundary/interior heterogeneity ratio or the number of sink-dominated heads (Wilcoxon
    signed-rank, two-sided, over the pairs)."""
    het = layers[(layers["measure"] == "head_heterogeneity") & (layers["kind"] == "ov")]
    per = het.groupby(["seed", "optimizer", "recipe", "boundary"])["enrichment"].mean()
    per = per.unstack("boundary")
    log_ratio = np.log(per[True] / per[False]).unstack("recipe")
    sinks = _final(heads).groupby(["seed", "optimizer", "recipe"])["sink_dominated"].sum()
    sinks = sinks.unstack("recipe")
    out = {}
    for name, table in (("heterogeneity_ratio", log_ratio), ("sink_heads", sinks)):
        if not {"falloff", "control"} <= set(table.columns):
            out[name] = {"pairs": 0, "p": float("nan")}
            continue
        d = (table["falloff"] - table["control"]).dropna()
        p = (float(stats.wilcoxon(d).pvalue) if len(d) >= MIN_GROUP and (d != 0).any()
             else float("nan"))
        out[name] = {"pairs": len(d), "median_difference": float(d.median()) if len(d) else
                     float("nan"), "p": p}
    ps = [v["p"] for v in out.values() if not np.isnan(v["p"])]
    verdict = (NOT_TESTABLE if not ps else
               "changes it" if min(ps) < ALPHA / len(out) else "no change detected")
    return {**out, "verdict": verdict}
