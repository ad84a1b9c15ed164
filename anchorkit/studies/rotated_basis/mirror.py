"""Two predictions about the plain and rotated arms, committed before the second regime's paper
seeds were trained, and tested in both regimes.

**(a) The arms are mirror images.** The model has no per-coordinate parameter in the residual
stream (RMS norm without gain, i.i.d. Gaussian initialisation, zero-initialised biases, and in the
second regime no positions or residual biases at all), so rotated Adam is plain Adam on
re-parameterised weights: a plain control measured along the coordinate axes and a rotated
control measured along its rotated axes are draws of one distribution. Rule (``MIRROR_RULE``): for
each own-basis measure (``MEASURES``), a two-sided exact Wilcoxon signed-rank test of the
per-seed difference rotated − plain, Holm-adjusted across the measures; the prediction holds when
no adjusted p falls below ``ALPHA``. A difference points to a coordinate-dependent part of the
model, optimizer or measure, to be found before anything else is believed.

**(b) e₁ is no privileged syntax axis.** e₁ is one of a plain control's syntax-holding axes (the
axis with the largest |cos| with a syntax token's embedding, for any of the four, where that |cos|
is above chance: ``directions.SYNTAX_CHANCE``) no more often than chance: on each seed, chance is
the number of distinct syntax-holding axes over 64. Rule
(``E1_RULE``): the prediction holds when e₁ is one of them on at most ``E1_ALLOWED`` of the seeds;
more is a finding to explain (where it is, the plain twin's comparisons change: projecting e₁ out
then also removes a syntax axis).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from anchorkit.core.config import WIDTH
from anchorkit.measures.directions import SYNTAX_CHANCE
from anchorkit.measures.stats import best_p, holm
from anchorkit.engine.formatting import number
from anchorkit.core.optimizers import PLAIN_ADAM, optimizer
from anchorkit.core.task import SYNTAX

ALPHA = 0.05
E1_ALLOWED = 1
MEASURES = {  # measure → its label on the page
    "top_share": "top share",
    "top_ratio": "top / second share",
    "kurtosis": "kurtosis",
    "syntax_cos": "syntax |cos| (mean of four)",
    "costliest_cost": "cost of the costliest direction",
}
MIRROR_RULE = (f"for each own-basis measure, a two-sided exact Wilcoxon signed-rank test of "
               f"rotated − plain across seeds, Holm-adjusted over the {len(MEASURES)} measures; "
               f"the arms are mirror images when no adjusted p is below {ALPHA}")
E1_RULE = (f"e₁ is one of a plain control's syntax-holding axes (an axis holding a syntax token "
           f"with |cos| above the chance level of {SYNTAX_CHANCE:.2f}) on at most {E1_ALLOWED} "
           "of the seeds (chance: the number of distinct syntax-holding axes over 64, summed over "
           "seeds)")


def own_basis_measures(results: pd.DataFrame, spectra: pd.DataFrame, basis: pd.DataFrame
                       ) -> pd.DataFrame:
    """One row per control (seed, optimizer): each measure along the run's own basis, read from
    a rotated-basis study's ``results``, ``spectra`` and ``basis`` tables. A basis-free
    optimizer's runs have no own basis to be a mirror image along: no row."""
    rows = []
    for _, r in results.iterrows():
        own = optimizer(r["optimizer"]).basis
        if own is None:
            continue
        sp = spectra[(spectra.run == r["run"]) & (spectra.role == "control")
                     & (spectra.basis == own)].share.sort_values(ascending=False)
        costs = basis[(basis.run == r["run"]) & (basis.role == "control")
                      & (basis.basis == own)].cost.dropna()
        rows.append({"seed": int(r["seed"]), "optimizer": r["optimizer"],
                     "run": r["control_run"], "basis": own,
                     "top_share": float(r[f"control_top_share_{own}"]),
                     "top_ratio": float(sp.iloc[0] / sp.iloc[1]),
                     "kurtosis": float(r[f"control_kurtosis_{own}"]),
                     "syntax_cos": float(np.mean([r[f"control_syntax_cos_{s}_{own}"]
                                                  for s in SYNTAX])),
                     "costliest_cost": float(costs.max())})
    return pd.DataFrame(rows)


def mirror_test(measures: pd.DataFrame) -> pd.DataFrame:
    """Per measure: the median of plain and rotated, the per-seed differences' median, the exact
    two-sided Wilcoxon p and its Holm adjustment, and whether it differs."""
    wide = measures.pivot(index="seed", columns="optimizer", values=list(MEASURES))
    rows, p = [], {}
    for m in MEASURES:
        d = (wide[(m, "rotated")] - wide[(m, "adam")]).dropna()
        p[m] = (float("nan") if len(d) < 2 else 1.0 if (d == 0).all()
                else float(stats.wilcoxon(d, alternative="two-sided", method="exact").pvalue))
        rows.append({"measure": m, "label": MEASURES[m], "seeds": len(d),
                     "plain": float(wide[(m, "adam")].median()),
                     "rotated": float(wide[(m, "rotated")].median()),
                     "difference": float(d.median()), "rotated_larger": int((d > 0).sum()),
                     "rotated_smaller": int((d < 0).sum()),
                     "p": p[m], "smallest_possible_p": best_p(len(d), "two-sided")})
    adjusted = holm(p)
    out = pd.DataFrame(rows)
    out["p_holm"] = out.measure.map(adjusted)
    out["differs"] = out.p_holm < ALPHA
    return out


def mirror_verdict(test: pd.DataFrame) -> tuple[bool, str]:
    """Whether the arms are mirror images, and the sentence that says so from the test table."""
    n = int(test.seeds.max()) if len(test) else 0
    differ = test[test.differs]
    can = bool((test.smallest_possible_p * len(test) < ALPHA).any())
    if differ.empty:
        text = (f"not rejected at n = {n}: no own-basis measure differs between plain and rotated "
                f"controls by the rule (smallest Holm-adjusted p {test.p_holm.min():.2f})")
        if not can:
            text += f"; with {n} seeds no difference could have been detected"
        lean = [(r.rotated_larger, "larger", r) if r.rotated_larger >= r.seeds - 2 else
                (r.rotated_smaller, "smaller", r) for r in test.itertuples()
                if max(r.rotated_larger, r.rotated_smaller) >= r.seeds - 2]
        if n >= 6 and lean:  # a one-sided tendency the test does not reject, said as one
            text += "; the tendency: " + ", ".join(
                f"rotated {way} on {k} of {r.seeds} seeds in {r.label} (unadjusted p {r.p:.3f})"
                for k, way, r in lean)
        return True, text
    said = ", ".join(f"{r.label} (rotated − plain {r.difference:+.3f}, Holm p {r.p_holm:.3f})"
                     for r in differ.itertuples())
    return False, f"plain and rotated controls differ over {n} seeds in {said}"


def e1_syntax_axis(directions: pd.DataFrame) -> pd.DataFrame:
    """Per plain control: its syntax-holding axes (``directions.notable_table``'s syntax rows),
    whether e₁ is one of them, and the chance of that (distinct axes over 64)."""
    syn = directions[(directions.kind == "syntax") & (directions.optimizer == PLAIN_ADAM.name)
                     & (directions.role == "control")]
    rows = []
    for _, r in syn.iterrows():
        axes = sorted({int(r[f"syntax_vector_{s}"]) for s in SYNTAX} - {-1})  # -1: on none
        rows.append({"seed": int(r["seed"]), "run": r["run"], "syntax_axes": axes,
                     "e1_is_one": 0 in axes, "chance": len(axes) / WIDTH})
    return pd.DataFrame(rows)


def e1_verdict(table: pd.DataFrame, results: pd.DataFrame | None = None) -> tuple[bool, str]:
    """Whether e₁ is a syntax axis no more often than allowed, as a sentence from the table. With
    the study's ``results``, the plain controls whose energy spike at the syntax positions sits on
    e₁ are named (another measure than the syntax embeddings' |cos|, and a seed that can decide
    verdicts: the source's mechanism in the other arm)."""
    k, n = int(table.e1_is_one.sum()), len(table)
    expected = float(table.chance.sum())
    tail = (f"; {k} or more by chance with probability "
            f"{at_least_by_chance(table.chance.tolist(), k):.2f}" if k else "")
    text = (f"e₁ is a syntax-holding axis of {k} of {n} plain controls (chance: {expected:.2f} "
            f"of {n}{tail})")
    if results is not None:
        plain = results[(results.optimizer == PLAIN_ADAM.name)
                        & results.control_has_spike_axes.fillna(False).astype(bool)
                        & (results.control_spike_axes == 0)].sort_values("seed")
        if len(plain):
            named = ", ".join(f"{int(r.seed)} (share {r.control_spike_share_axes:.2f})"
                              for r in plain.itertuples())
            text += (f"; yet the energy spike at the syntax positions sits on e₁ in plain "
                     f"control{'s' if len(plain) > 1 else ''} {named}, the source's mechanism in "
                     f"the other arm")
    return k <= E1_ALLOWED, text


def at_least_by_chance(chances: list[float], k: int) -> float:
    """The probability that at least ``k`` of independent seeds, each with its own chance, hit."""
    dist = np.array([1.0])
    for q in chances:  # the count's distribution, one seed at a time
        dist = np.concatenate([dist * (1 - q), [0.0]]) + np.concatenate([[0.0], dist * q])
    return float(dist[k:].sum())


def mirror_page_table(test: pd.DataFrame):
    """The mirror-image test as a reader's table (words for headers, numbers rounded)."""
    out = pd.DataFrame({
        "measure": test.label,
        "plain Adam": [number(v, ".3f") for v in test.plain],
        "rotated Adam": [number(v, ".3f") for v in test.rotated],
        "rotated − plain (per seed, median)": [number(v, "+.3f") for v in test.difference],
        "seeds with rotated larger": [f"{k} of {n}" for k, n in zip(test.rotated_larger,
                                                                   test.seeds)],
        "p": [number(v, ".3f") for v in test.p], "p after Holm": [number(v, ".3f")
                                                                 for v in test.p_holm]})
    return out.style.hide(axis="index")
