"""Part 4, the diagnosis's summary table, and the styles of the page's tables
(``anchorkit.studies.diagnosis.findings``)."""

from __future__ import annotations

import pandas as pd

from anchorkit.studies import diagnosis
from anchorkit.core.optimizers import ARMS
from anchorkit.engine.formatting import captioned, summary
from anchorkit.engine.regimes import SECOND_EPOCHS
from anchorkit.engine.study import PAPER_SEEDS
from anchorkit.core.optimizers import ROTATED_ADAM
from anchorkit.studies.diagnosis.findings.tables import FAMILY, FITTED, SOURCE_R, read_beyond_input
from anchorkit.studies.diagnosis.findings.words import families_verdict, source_r_verdicts


def syntax_is_spike(t) -> tuple[int, int]:
    """Rotated controls whose syntax-holding vector is their energy spike, of those with one."""
    g = t["overlap_targets"]
    g = g[(g.optimizer == ROTATED_ADAM.name) & g.syntax.notna()]
    return int((g.syntax.astype(int) == g.spike.astype(int)).sum()), len(g)


def selection(t) -> str:
    """The second regime's viability check against its paper seeds: rotated falloff runs whose
    raw removal kept the anchor."""
    a = t["anchors"]
    cal = a[(a.optimizer == ROTATED_ADAM.name) & (a.recipe != "control") & (a.epochs == a.run_epochs)
            & (a.run_epochs == SECOND_EPOCHS)]  # the paper's length, at its end
    r = t["results"]
    paper = r[(r.optimizer == ROTATED_ADAM.name) & (r.recipe != "control")]
    return (f"kept on {int(cal.kept_raw.sum())} of {len(cal)} rotated calibration runs, on "
            f"{int(paper.kept_raw.sum())} of {len(paper)} rotated paper seeds")


def summary_table(tables) -> pd.DataFrame:
    """Each candidate explanation of the ledger's failures, the test that addresses it and its
    outcome per regime, every cell computed from the tables."""
    rows = []

    def add(candidate, test, outcome):
        rows.append({"candidate explanation": candidate, "test": test,
                     **{r.title: outcome(t) for r, t in tables.items()}})

    add("The premise is smaller than the source's (the rotated controls' energy spike)",
        "top energy share of the rotated controls along their rotated axes (the source's about "
        "half)", lambda t: summary(t["results"].query("optimizer == 'rotated'")
                                   .control_top_share_rotated))
    add("The op is carried by more directions than e₁",
        f"removal curves by rank, k = 1–{diagnosis.RANKS[-1]}, of two erasure families (fitted "
        f"{' and '.join(FITTED.values())}) beside random subspaces",
        lambda t: "; ".join(f"{ARMS[o]}: {families_verdict(t, o)}"
                            for o in t["rank_verdicts"].optimizer))
    add("The op is no longer computed, so nothing is left to remove",
        "a held-out probe after the e₁ edit, slices 1–4, against the input's own level (slice 0)",
        lambda t: "beyond the input on {} of {} falloff runs".format(*read_beyond_input({0: t})))
    add("The syntax vector is not the energy spike",
        "rotated controls whose syntax-holding vector is their top-energy direction",
        lambda t: "{} of {}".format(*syntax_is_spike(t)))
    add("The control's collateral damage is small",
        f"overlap curves: median drop at c = {diagnosis.AT}, each v and arm",
        lambda t: summary(t["overlap_verdicts"].median_drop, ".3f") + " — "
                  + f"{int((t['overlap_verdicts'].verdict == 'weak').sum())} of "
                    f"{len(t['overlap_verdicts'])} weak")
    add("The arms differ by more than chance",
        "float64 mirror check over a training loop",
        lambda t: "controls equal on " + _count(t["mirror"][t["mirror"].recipe == "control"].equal))
    rows.append({"candidate explanation": "The regime was chosen on 2 calibration seeds",
                 "test": "the viability check's rotated falloff runs against the paper seeds "
                         f"({len(PAPER_SEEDS)})",
                 **{r.title: selection(t) if "anchors" in t else
                    "not chosen that way (its recipe calibrated first)"
                    for r, t in tables.items()}})
    return pd.DataFrame(rows)


def _count(flags) -> str:
    return f"{int(flags.sum())} of {len(flags)}"


def summary_styler(df: pd.DataFrame):
    return captioned(df, {c: c for c in df.columns},
                     "Each candidate explanation, the test that addresses it, and its outcome in "
                     "each regime (every cell computed from the committed tables).")


def ranks_styler(t, regime):
    """Per falloff run: its effective rank ("–": none up to 8) and the erasure subspace's removal
    beyond the random one's, at that rank and at k = 8; and its effective rank by the second
    family."""
    ranks = t["ranks"]
    other = t[f"{FAMILY}_ranks"].set_index("run").effective_rank
    df = ranks[ranks.recipe != "control"].assign(arm=lambda d: d.optimizer.map(ARMS),
                                                 other=lambda d: d.run.map(other))
    return captioned(df, {"arm": "arm", "seed": "seed", "effective_rank": "effective rank",
                          "over_random_at_rank": "beyond random, at that rank",
                          "over_random_at_top": f"beyond random, k = {diagnosis.RANKS[-1]}",
                          "other": f"effective rank, fitted {FITTED[FAMILY]}"},
                     f"Effective ranks, {regime.title} (– : none up to {diagnosis.RANKS[-1]})",
                     fmt="{:.2f}")


RELATION_NAMES = {"shortfall": "shortfall in net removal", "control_drop": "control's own drop",
                  "cos_e1_syntax": "|cos(e₁, syntax-holding vector)|",
                  "cos_e1_spike": "|cos(e₁, energy spike)|"}


def seed_count(n: pd.Series) -> str:
    """How many seeds a table's tests ran over: one number, or its range where a test had fewer
    (a run without a spike leaves its seed out of the spike's)."""
    return f"{n.max()}" if n.min() == n.max() else f"{n.min()} to {n.max()}"


def relation_styler(rel: pd.DataFrame, regime):
    """The overlap relation's correlations with their exact permutation p-values."""
    df = source_r_verdicts(rel)
    df = df.assign(arm=df.optimizer.map(ARMS), measure=df.measure.map(RELATION_NAMES),
                   against=df.against.map(RELATION_NAMES))
    return captioned(df, {"arm": "arm", "measure": "measure", "against": "against",
                          "pearson": "Pearson r", "p_pearson": "p", "spearman": "Spearman ρ",
                          "p_spearman": "p", "testable": "testable", "relation": "relation",
                          "low": "r, 95% low", "high": "r, 95% high",
                          "against_source": f"against the source's r = {SOURCE_R}"},
                     f"The overlap relation on our seeds, {regime.title} (exact one-sided "
                     f"permutation p-values over {seed_count(rel.n)} seeds; Fisher-z interval of r and the "
                     f"ledger's relation rule against the source's r beside)", fmt="{:.3f}")
