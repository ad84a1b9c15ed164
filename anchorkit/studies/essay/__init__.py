"""The essay's testable predictions (its page, notebooks/geometry-of-anchors.ipynb), each as a test
on the tables its measurements write (``anchorkit.studies.essay.measuring``: every stored run of the
paper's studies, a task per run on the executor; this folder is the essay's).

The rules are fixed here, before the tables are read:

- **The unit is the seed.** Runs at one seed share their initial weights and their data, so their
  heads are not independent. Every test first reduces the heads (or layers) of a seed's runs to
  one number per seed, within layer where the prediction is about heads (the layers differ in
  scale, so pooling them would test the layer, not the head), and then tests that number across
  seeds: a Wilcoxon signed-rank test, one-sided in the predicted direction (two-sided where the
  essay predicts a difference without a sign), with at least ``MIN_SEEDS`` seeds.
- **Classes never hold the answer.** Anchor and worker heads are classified at an early
  checkpoint (``EARLY_EPOCH``) and their change is measured from there to the end, so the class
  (which reads value content, a function of ‖W_OV‖) is not computed from the change it is
  compared on. Runs without that snapshot (the published ones carry none) make these tests not
  testable, and the verdict says so.
- **Holm across the page.** The p-values of every test on the page are corrected together
  (Holm–Bonferroni) and a verdict needs a corrected p below ``ALPHA``.

Each test returns a dict with ``unit``, ``n`` (seeds), ``median`` (of the per-seed statistic),
``agree`` (seeds going the predicted way), ``p`` (uncorrected) and, without enough data, a
``reason``; ``judge`` adds ``p_holm``, ``verdict`` and ``would_change`` to every test.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from anchorkit.measures.stats import best_p, holm
from anchorkit.engine.study import Survey

# its value: its page measures every stored run of the paper's studies (``measuring.ESSAY``), as
# its survey module says (imported when asked: the measuring reads the registry, which imports
# this value)
STUDY = Survey("geometry-of-anchors", place=6, protocol="anchorkit.studies.essay.survey")

ALPHA = 0.05
MIN_SEEDS = 5
EARLY_EPOCH = 50  # the checkpoint at which heads are classified (a snapshot epoch of training)
SUPPORTED, NOT_SUPPORTED, NOT_TESTABLE = "supported", "not supported", "not testable"
# a one-sided prediction whose test misses alpha: "not supported" only where the seeds go against
# it (the reverse one-sided test passes at the same corrected level); else merely not shown
NOT_SHOWN = "not shown at this number of seeds"
UNDECIDABLE = "cannot be decided at this n"  # the smallest p it can give misses alpha over m
DIFFERS, NO_DIFFERENCE = "differs", "no difference detected"


def _final(heads: pd.DataFrame) -> pd.DataFrame:
    return heads[heads["stage"] == "final"]


def _early(heads: pd.DataFrame) -> pd.DataFrame:
    return heads[(heads["stage"] == "snapshot") & (heads["epoch"] == EARLY_EPOCH)]


def _across_seeds(per_seed: pd.Series, alternative: str, statistic: str) -> dict:
    """The per-seed statistic (index: seed) tested across seeds against 0 (Wilcoxon)."""
    v = per_seed.dropna()
    sign = {"greater": 1, "less": -1, "two-sided": 0}[alternative]
    out = {"unit": "seed", "n": len(v), "statistic": statistic, "alternative": alternative,
           "median": float(v.median()) if len(v) else float("nan"),
           # one-sided: seeds on the predicted side; two-sided: seeds above zero (the count of
           # non-zero values would say nothing: a continuous value is never exactly zero)
           "agree": int((np.sign(v) == sign).sum()) if sign else int((v > 0).sum()),
           "per_seed": {int(k): float(x) for k, x in v.items()}}
    if len(v) < MIN_SEEDS:
        return {**out, "p": float("nan"),
                "reason": f"{len(v)} seeds with a value (at least {MIN_SEEDS} needed)"}
    if (v == 0).all():
        return {**out, "p": 1.0}
    return {**out, "p": float(stats.wilcoxon(v, alternative=alternative).pvalue)}


def boundary_heterogeneity(layers: pd.DataFrame) -> dict:
    """Boundary layers (first, last) develop more within-layer head heterogeneity than interior
    layers: per run, log(mean heterogeneity enrichment at the boundary / the same in the
    interior), averaged over the seed's runs; above 0 across seeds."""
    het = layers[(layers["measure"] == "head_heterogeneity") & (layers["kind"] == "ov")]
    per = het.groupby(["seed", "run", "boundary"])["enrichment"].mean().unstack("boundary")
    ratio = np.log(per[True] / per[False]).groupby("seed").mean()
    return _across_seeds(ratio, "greater", "log(boundary / interior enrichment)")


def sinks_carry_little_value(heads: pd.DataFrame) -> dict:
    """Sink-dominated heads write less than the other heads of their layer (trained weights): in
    every (run, layer) holding both kinds, log(median value content of its sink-dominated heads /
    that of its other heads), averaged per seed; below 0 across seeds."""
    f = _final(heads)
    med = f.groupby(["seed", "run", "layer", "sink_dominated"])["value_content"].median()
    both = med.unstack("sink_dominated").dropna()
    if not {True, False} <= set(both.columns):
        return _across_seeds(pd.Series(dtype=float), "less", "log(sink / other value content)")
    ratio = np.log(both[True] / both[False]).groupby("seed").mean()
    return {**_across_seeds(ratio, "less", "log(sink / other value content)"),
            "sink_heads": int(f["sink_dominated"].sum()), "heads": len(f)}


def functional_split(layers: pd.DataFrame, heads: pd.DataFrame) -> dict:
    """Weighting the layer's non-commutativity by value content discounts anchor heads: in trained
    layers that hold an anchor head, log(functional / plain non-commutativity), averaged per seed;
    below 0 across seeds. (The class is read on the same weights, but the test compares two
    non-commutativities, not the class's own quantity.)"""
    f = _final(heads)
    with_anchor = f[f["class"] == "anchor"][["run", "layer"]].drop_duplicates()
    nc = layers[layers["kind"] == "ov"].pivot_table(index=["seed", "run", "layer"],
                                                    columns="measure", values="final")
    ratio = np.log(nc["functional_noncommutativity"] / nc["noncommutativity"]).rename("ratio")
    ratio = ratio.reset_index().merge(with_anchor, on=["run", "layer"]).set_index("seed")["ratio"]
    return {**_across_seeds(ratio.groupby("seed").mean(), "less",
                            "log(functional / plain non-commutativity)"),
            "layers_with_anchor": len(ratio)}


def initial_contribution_predicts_change(heads: pd.DataFrame) -> dict:
    """Heads that start with lower value content change more. Each distinct initial head counts
    once: per seed and layer, Spearman ρ between the heads' initial value content (shared by the
    seed's runs) and their relative change of W_OV averaged over the seed's runs; ρ averaged over
    layers per seed; below 0 across seeds."""
    init = heads[heads["stage"] == "initial"]
    per_head = init.groupby(["seed", "layer", "head"]).agg(
        value_content=("value_content", "first"), change=("ov_change", "mean"))
    rho = per_head.groupby(["seed", "layer"]).apply(
        lambda g: stats.spearmanr(g["value_content"], g["change"]).statistic
        if len(g) >= 3 else float("nan"))
    return {**_across_seeds(rho.groupby("seed").mean(), "less", "within-layer Spearman ρ"),
            "distinct_heads": len(per_head)}


def pooled_change_correlation(heads: pd.DataFrame) -> dict:
    """The earlier, pooled version of the same test, kept to show on the page what it gave:
    Spearman ρ over every head of every run, each initial head counted once per run and every
    layer pooled. Not a verdict."""
    init = heads[heads["stage"] == "initial"]
    r = stats.spearmanr(init["value_content"], init["ov_change"])
    return {"rho": float(r.statistic), "p": float(r.pvalue), "n": len(init)}


def _classes_and_change(heads: pd.DataFrame, classes_at: str) -> pd.DataFrame | None:
    if classes_at == "early":
        early = _early(heads)
        return None if early.empty else early.assign(change=early["ov_change_to_final"])
    if classes_at == "final":  # the circular rule: kept for the constructed test and the page
        f = _final(heads)
        return f.assign(change=f["ov_change"])
    raise ValueError(f"parameter 'classes_at' = {classes_at!r}: expected 'early' or 'final'")


NO_SNAPSHOTS = (f"no run has weights kept at epoch {EARLY_EPOCH} (the published runs carry no "
                "snapshots; retraining them with `python -m anchorkit train --ignore-published` "
                "keeps them, and with the CPU kernels pinned gives the published runs' weights "
                "bit for bit on the machines where the pin holds: see the Reproducibility page)")


def anchors_change_less(heads: pd.DataFrame, classes_at: str = "early") -> dict:
    """Anchor heads change less than worker heads. Classes at epoch ``EARLY_EPOCH`` and change
    of W_OV from there to the end; per seed, log(median change of its anchor heads / that of its
    worker heads) over the seed's runs; below 0 across seeds. ``classes_at="final"`` is the
    earlier rule (classes from the trained weights, change from the start), which is circular:
    value content grows with ‖W_OV‖, and so does the relative change."""
    t = _classes_and_change(heads, classes_at)
    label = "log(anchor / worker change)"
    if t is None:
        return {**_across_seeds(pd.Series(dtype=float), "less", label), "reason": NO_SNAPSHOTS}
    med = t[t["class"] != "neither"].groupby(["seed", "class"])["change"].median().unstack()
    if not {"anchor", "worker"} <= set(med.columns):
        return _across_seeds(pd.Series(dtype=float), "less", label)
    out = _across_seeds(np.log(med["anchor"] / med["worker"]), "less", label)
    return {**out, "anchor_heads": int((t["class"] == "anchor").sum()),
            "worker_heads": int((t["class"] == "worker").sum())}


def gradient_alignment_differs(heads: pd.DataFrame) -> dict:
    """Anchor and worker heads differ in gradient alignment (the cosine between the gradient of
    the layer's W_OV non-commutativity and that of the cross-entropy, over the head's W_V and W_O)
    while they are being shaped: classes and alignment at epoch ``EARLY_EPOCH``; per seed, the
    median alignment of its anchor heads minus that of its worker heads; two-sided across seeds.
    At converged weights the cross-entropy gradient is mostly noise, so the final weights are
    not used."""
    early = _early(heads)
    label = "anchor minus worker alignment"
    if early.empty:
        return {**_across_seeds(pd.Series(dtype=float), "two-sided", label), "reason": NO_SNAPSHOTS}
    med = early[early["class"] != "neither"].groupby(["seed", "class"])[
        "gradient_alignment"].median().unstack()
    if not {"anchor", "worker"} <= set(med.columns):
        return _across_seeds(pd.Series(dtype=float), "two-sided", label)
    return _across_seeds(med["anchor"] - med["worker"], "two-sided", label)


def recipe_changes_heterogeneity(layers: pd.DataFrame) -> dict:
    """Whether anchoring changes the boundary/interior heterogeneity ratio: falloff minus the
    control at the same seed and optimizer, averaged over optimizers per seed; two-sided."""
    het = layers[(layers["measure"] == "head_heterogeneity") & (layers["kind"] == "ov")]
    per = het.groupby(["seed", "optimizer", "recipe", "boundary"])["enrichment"].mean()
    ratio = np.log(per.unstack("boundary")[True] / per.unstack("boundary")[False]).unstack("recipe")
    if not {"falloff", "control"} <= set(ratio.columns):
        return _across_seeds(pd.Series(dtype=float), "two-sided", "falloff minus control")
    d = (ratio["falloff"] - ratio["control"]).groupby("seed").mean()
    return _across_seeds(d, "two-sided", "falloff minus control, log heterogeneity ratio")


def recipe_changes_sinks(heads: pd.DataFrame) -> dict:
    """Whether anchoring changes the number of sink-dominated heads (trained weights): falloff
    minus the control at the same seed and optimizer, averaged over optimizers per seed;
    two-sided."""
    sinks = _final(heads).groupby(["seed", "optimizer", "recipe"])["sink_dominated"].sum()
    sinks = sinks.unstack("recipe")
    if not {"falloff", "control"} <= set(sinks.columns):
        return _across_seeds(pd.Series(dtype=float), "two-sided", "falloff minus control")
    d = (sinks["falloff"] - sinks["control"]).groupby("seed").mean()
    return _across_seeds(d, "two-sided", "falloff minus control, sink-dominated heads")


def judge(tests: dict[str, dict]) -> dict[str, dict]:
    """Every test with ``p_holm`` (Holm across the tests given), a ``verdict`` and a sentence on
    what would have changed it (``would_change``)."""
    adjusted = holm({k: t["p"] for k, t in tests.items()})
    m = sum(not np.isnan(t["p"]) for t in tests.values())
    out = {}
    for k, t in tests.items():
        two = t["alternative"] == "two-sided"
        yes, no = (DIFFERS, NO_DIFFERENCE) if two else (SUPPORTED, NOT_SUPPORTED)
        p = adjusted[k]
        if np.isnan(p):
            verdict = NOT_TESTABLE
            change = f"It is not testable here: {t.get('reason', 'too little data')}."
        elif best_p(t["n"], t["alternative"]) * m >= ALPHA:
            verdict = UNDECIDABLE
            change = (f"With {t['n']} seeds the smallest p this test can give is "
                      f"{best_p(t['n'], t['alternative']):.4f}, which cannot reach {ALPHA}/{m}, "
                      f"Holm's threshold for the smallest p of {m} tests: it would take more "
                      "seeds to support or reject it.")
        else:
            verdict = yes if p < ALPHA else no if two or against(t, m) else NOT_SHOWN
            way = "above zero" if two else "the predicted way"
            change = (f"With {t['n']} seeds the smallest p this test can give is "
                      f"{best_p(t['n'], t['alternative']):.4f} (every seed {way}), and Holm over "
                      f"{m} tests asks for a corrected p below {ALPHA}; {t['agree']} of {t['n']} "
                      f"seeds went {way}.")
        out[k] = {**t, "p_holm": p, "verdict": verdict, "would_change": change}
    return out


def against(t: dict, m: int) -> bool:
    """Whether a one-sided test's seeds go against its prediction: the reverse one-sided Wilcoxon
    over the same per-seed values below ``ALPHA`` / ``m`` (Bonferroni over the ``m`` tests, which
    Holm's first step is)."""
    v = pd.Series(t["per_seed"], dtype=float)
    if len(v) < MIN_SEEDS or (v == 0).all():
        return False
    reverse = {"greater": "less", "less": "greater"}[t["alternative"]]
    return float(stats.wilcoxon(v, alternative=reverse).pvalue) * m < ALPHA


RECIPE_TESTS = ("recipe-heterogeneity", "recipe-sinks")  # they compare falloff with its control


def column_tests(heads: pd.DataFrame, layers: pd.DataFrame) -> dict[str, dict]:
    """The predictions on a regime column whose rows carry their ``set``
    (``measuring.column_geometry``): the two on what anchoring changes on the ``recipe`` set
    (controls and falloff runs), the six others on the ``early`` set (falloff runs with their
    early weights), judged together: one Holm family of eight, as on the page."""
    def of(name):
        return heads[heads["set"] == name], layers[layers["set"] == name]

    return all_tests(*of("early"), recipe=tuple(as_falloff(t) for t in of("recipe")))


def as_falloff(table: pd.DataFrame) -> pd.DataFrame:
    """A set of controls and one anchored recipe with that recipe named ``falloff``, the name the
    tests on what anchoring changes compare with ``control`` (a regime names its own falloff,
    e.g. ``falloff-pull-0.3``); a ValueError where the set holds more than one anchored recipe."""
    anchored = sorted(set(table["recipe"]) - {"control"})
    if len(anchored) > 1:
        raise ValueError(f"the recipe set holds {anchored}: one anchored recipe expected")
    return table.replace({"recipe": dict.fromkeys(anchored, "falloff")})


def all_tests(heads: pd.DataFrame, layers: pd.DataFrame,
              recipe: tuple[pd.DataFrame, pd.DataFrame] | None = None) -> dict[str, dict]:
    """Every prediction of the essay judged on the geometry tables (``judge``); ``recipe``: the
    (heads, layers) the two predictions on what anchoring changes read, where they are other
    runs than the rest's (default: the same tables)."""
    recipe_heads, recipe_layers = recipe if recipe is not None else (heads, layers)
    return judge({
        "boundary": boundary_heterogeneity(layers),
        "sinks": sinks_carry_little_value(heads),
        "split": functional_split(layers, heads),
        "change": initial_contribution_predicts_change(heads),
        "populations": anchors_change_less(heads),
        "gradients": gradient_alignment_differs(heads),
        "recipe-heterogeneity": recipe_changes_heterogeneity(recipe_layers),
        "recipe-sinks": recipe_changes_sinks(recipe_heads),
    })
