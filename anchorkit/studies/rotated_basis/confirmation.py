"""The report's answer confirmed on fresh seeds: the confirmation's rule (issue 66; the Methods
page, *The confirmation*), written and committed before any run of its seeds trains.

The recalibrated column's 16 seeds (704–719) are the question's **exploratory** set: there raw
removal, rotated − plain, lay above zero on most seeds, but the pre-set four-way rule
(``anchorkit.studies.rotated_basis.question``) could not decide between "alike" and "removes more". This module states
the **confirmatory** test of the hypothesis those seeds suggest, on seeds never trained before:

- **the set** (``SEEDS``, ``runs``): falloff-pull-0.3 under plain and rotated Adam at 24 fresh
  seeds, 720–743, 1600 epochs, the recalibrated regime unchanged but for one arithmetic setting,
  denormal floats flushed to zero in training (``FLUSH``; amended before any run of the set was
  kept, see the rule's text) (48 runs; controls are not needed);
- **primary** (``signed_rank_p``): raw removal at full dose, rotated − plain per seed, the exact
  one-sided Wilcoxon signed-rank test at ``ALPHA`` in the direction the exploratory set showed
  (rotated removes more); confirmed when p < ``ALPHA``. Reported beside it: the median with its
  exact 95% interval and the sign count;
- **secondary**: non-inferiority (the exact 95% interval's lower bound above −``MARGIN``); the
  same two tests on removal net of the reference baseline; the four-way rule on the 24 new seeds
  alone (95%) and on all 40 seeds pooled, the pooled one a **second look** at the same question and
  so read at ``POOLED_CONFIDENCE`` (97.5%: Bonferroni over the two looks, the new seeds' and the
  pooled; it needs no assumption about how the two looks correlate, which, sharing 24 seeds,
  they do);
- **analyses of the new seeds** (they judge no claim): the paired difference at epoch 800
  against epoch 1600 (does "removes more" shrink as training goes on?) and the paired difference
  in removal against the twins' difference in final training loss (is the arm that removes more
  the less-trained one?).

What the book says for every outcome is ``SAYS``, written here before the runs.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from anchorkit.engine import regimes
from anchorkit.core.config import RunConfig
from anchorkit.core.paths import REPORTS
from anchorkit.measures.verdicts import CONFIDENCE, median_interval
from anchorkit.engine.provenance import has_tables, read_tables
from anchorkit.studies.rotated_basis.question import MARGIN, NEEDS, answer, paired_differences

REGIME = regimes.RECALIBRATED  # the regime whose question the confirmation asks again
FOLDER = "confirmation"  # its committed tables: reports/<regime>/confirmation/
SEEDS = tuple(range(720, 744))
EXPLORATORY = tuple(range(704, 720))
ALPHA = 0.05
POOLED_CONFIDENCE = 1 - (1 - CONFIDENCE) / 2  # two looks at one question: Bonferroni
EPOCHS = 1600
EARLIER = 800  # the epoch the paired difference is compared at
FLUSH = True  # denormals flushed to zero in training (TrainConfig.flush_denormals)
FALLOFF = "falloff"  # the study's name for the recipe (the regime's: falloff-pull-0.3)
PRIMARY = "raw_removal"
SECONDARY = "removal_net_of_reference"

# the outcomes, judged on the new seeds alone (the primary test, non-inferiority and, for a
# reversal, the four-way rule)
CONFIRMED = "confirmed"
DIRECTION_ONLY = "confirmed in direction only"
NON_INFERIOR_ONLY = "not confirmed, non-inferior"
NOT_CONFIRMED = "not confirmed"
REVERSED = "reversed"
PENDING = "pending"
OUTCOMES = (CONFIRMED, DIRECTION_ONLY, NON_INFERIOR_ONLY, NOT_CONFIRMED, REVERSED, PENDING)

# what the book says for each outcome (its first sentence on the report's question)
SAYS = {
    CONFIRMED: "Confirmed on fresh seeds: rotated Adam removes more of difference than plain "
               "Adam, and no less by more than the margin, so the anchor does not need the "
               "privileged axis.",
    DIRECTION_ONLY: "Confirmed in direction only: on fresh seeds rotated Adam removes more of "
                    "difference more often than not, but its interval still reaches a loss "
                    "beyond the margin, so that the anchor does not need the privileged axis "
                    "is not shown.",
    NON_INFERIOR_ONLY: "Not confirmed that rotated Adam removes more: the fresh seeds do not show "
                       "it. They do show that it removes no less than plain Adam by more than "
                       "the margin: the anchor does not need the privileged axis, and \"removes "
                       "more\" was the exploratory seeds' alone.",
    NOT_CONFIRMED: "Not confirmed: the fresh seeds show neither that rotated Adam removes more "
                   "nor that it removes no less by more than the margin; the exploratory answer "
                   "did not replicate, and whether the anchor needs the privileged axis stays "
                   "open.",
    REVERSED: "Reversed: on the fresh seeds rotated Adam removes less of difference than plain "
              "Adam by more than the margin, so there the anchor needs the privileged axis, "
              "against what the exploratory seeds showed.",
    PENDING: "Not yet judged: the confirmation's seeds are not all trained and measured.",
}


def runs(seeds=SEEDS) -> list[RunConfig]:
    """The set's runs: falloff under plain and rotated Adam at the seeds, in the regime's own
    settings with denormals flushed in training."""
    out = []
    for optimizer in ("adam", "rotated"):
        settings = REGIME.settings(FALLOFF, optimizer)
        settings["train"] = dataclasses.replace(settings["train"], flush_denormals=FLUSH)
        out += [RunConfig(seed=s, **settings) for s in seeds]
    return out


def signed_rank_p(diffs, alternative: str = "greater") -> float:
    """The exact p of the Wilcoxon signed-rank test that the differences are centred above zero
    (``alternative="greater"``) or below it (``"less"``): zero differences dropped (Wilcoxon's
    own convention), tied magnitudes given their mid-ranks, and the null distribution of the
    positive rank sum counted exactly over every pattern of signs (so ties keep it exact). NaN
    when no non-zero difference is left."""
    if alternative not in ("greater", "less"):
        raise ValueError(f"alternative {alternative!r}: expected 'greater' or 'less'")
    d = np.asarray(diffs, float)
    d = d[np.isfinite(d) & (d != 0)]
    if len(d) == 0:
        return math.nan
    if alternative == "less":
        d = -d
    ranks2 = np.rint(2 * stats.rankdata(np.abs(d))).astype(int)  # doubled mid-ranks: integers
    observed = int(ranks2[d > 0].sum())
    dist = np.zeros(int(ranks2.sum()) + 1)  # P(positive doubled rank sum = s), sign by sign
    dist[0] = 1.0
    for r in ranks2:
        dist = 0.5 * (dist + np.concatenate([np.zeros(r), dist[:-r]]))
    return float(dist[observed:].sum())


@dataclass(frozen=True)
class Reading:
    """One measure's paired differences read by the confirmation's tests."""

    measure: str
    seeds: int
    median: float
    low: float    # the exact interval at ``confidence``
    high: float
    confidence: float
    rotated_higher: int
    p: float      # the one-sided signed-rank p (rotated removes more)
    four_way: str

    @property
    def superior(self) -> bool:
        return self.p < ALPHA

    @property
    def non_inferior(self) -> bool:
        return self.low > -MARGIN


def read(diffs, measure: str, confidence: float = CONFIDENCE) -> Reading:
    """The tests of one set of paired differences (rotated − plain)."""
    d = np.asarray(diffs, float)
    d = d[np.isfinite(d)]
    med, low, high = median_interval(d, confidence)
    four = answer(low, high) if np.isfinite([low, high]).all() else answer(-math.inf, math.inf)
    return Reading(measure, len(d), med, low, high, confidence, int((d > 0).sum()),
                   signed_rank_p(d), four)


def outcome(primary: Reading, expected: int = len(SEEDS)) -> str:
    """What the confirmation concludes from its primary reading on the new seeds alone."""
    if primary.seeds < expected:
        return PENDING
    if primary.four_way == NEEDS:
        return REVERSED
    if primary.superior:
        return CONFIRMED if primary.non_inferior else DIRECTION_ONLY
    return NON_INFERIOR_ONLY if primary.non_inferior else NOT_CONFIRMED


def confirm(new: pd.DataFrame, exploratory: pd.DataFrame) -> tuple[str, pd.DataFrame]:
    """The outcome and every reading: the primary and the secondary measure on the new seeds (at
    95%), and each pooled with the exploratory seeds (at ``POOLED_CONFIDENCE``, a second look).
    ``new`` and ``exploratory``: results tables of both arms (seed, optimizer, the measures)."""
    rows, primary = [], None
    for measure in (PRIMARY, SECONDARY):
        if measure not in new.columns:
            continue
        d_new = paired_differences(new, measure)
        both = pd.concat([paired_differences(exploratory, measure), d_new]) \
            if measure in exploratory.columns else d_new
        r = read(d_new.values, measure)
        pooled = read(both.values, measure, POOLED_CONFIDENCE)
        primary = r if measure == PRIMARY else primary
        for look, x in (("new seeds", r), ("pooled", pooled)):
            rows.append({"measure": measure, "look": look, "seeds": x.seeds,
                         "median difference": x.median, "interval low": x.low,
                         "interval high": x.high, "confidence": x.confidence,
                         "rotated larger on": x.rotated_higher, "one-sided p": x.p,
                         "superior": x.superior, "non-inferior": x.non_inferior,
                         "four-way answer": x.four_way})
    verdict = PENDING if primary is None else outcome(primary)
    return verdict, pd.DataFrame(rows)


def status(regime, reports=REPORTS) -> str | None:
    """The confirmation's outcome for a regime's first screens: None for a regime it does not
    ask again; its committed outcome (``reports/<regime>/confirmation/``), else ``PENDING``."""
    if regime.name != REGIME.name:
        return None
    where = regime.reports(reports) / FOLDER
    if not has_tables(where):
        return PENDING
    return str(read_tables(where)["outcome"].outcome.iloc[0])


# ---------------------------------------------------------------------- the analyses
SHRINKS, GROWS, STEADY = ("shrinks with training", "grows with training",
                          "no change shown at this number of seeds")
LESS_TRAINED, BETTER_TRAINED, UNTIED = (
    "follows the loss: the arm that removes more is the less-trained one",
    "goes against the loss: the arm that removes more is the better-trained one",
    "not tied to the loss at this number of seeds")


def training_length(d_earlier, d_final) -> dict:
    """Does the paired difference change between epoch ``EARLIER`` and the end? Per seed, the
    final difference minus the earlier one; its median's exact 95% interval below zero: it
    shrinks; above: it grows; else no change shown."""
    change = np.asarray(d_final, float) - np.asarray(d_earlier, float)
    med, low, high = median_interval(change)
    word = SHRINKS if high < 0 else GROWS if low > 0 else STEADY
    return {"seeds": int(np.isfinite(change).sum()), "median change": med, "interval low": low,
            "interval high": high, "reading": word}


def against_loss(d_removal, d_loss) -> dict:
    """The paired difference in removal against the twins' difference in final training loss
    (rotated − plain, seed by seed): Pearson r with its Fisher-z 95% interval (above zero: the
    arm that removes more is the less-trained one; below: the better-trained one; else not tied),
    and the difference in removal at equal loss (the least-squares intercept, with its 95%
    t interval)."""
    x, y = np.asarray(d_loss, float), np.asarray(d_removal, float)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    n = len(x)
    if n < 4 or np.ptp(x) == 0:
        return {"seeds": n, "r": math.nan, "r low": math.nan, "r high": math.nan,
                "reading": UNTIED, "at equal loss": math.nan, "equal-loss low": math.nan,
                "equal-loss high": math.nan, "rotated loss higher on": int((x > 0).sum())}
    fit = stats.linregress(x, y)
    z, half = np.arctanh(np.clip(fit.rvalue, -0.999999, 0.999999)), 1.959964 / math.sqrt(n - 3)
    r_low, r_high = float(np.tanh(z - half)), float(np.tanh(z + half))
    t = stats.t.ppf(1 - (1 - CONFIDENCE) / 2, n - 2)
    word = LESS_TRAINED if r_low > 0 else BETTER_TRAINED if r_high < 0 else UNTIED
    return {"seeds": n, "r": float(fit.rvalue), "r low": r_low, "r high": r_high, "reading": word,
            "at equal loss": float(fit.intercept),
            "equal-loss low": float(fit.intercept - t * fit.intercept_stderr),
            "equal-loss high": float(fit.intercept + t * fit.intercept_stderr),
            "rotated loss higher on": int((x > 0).sum())}


# ---------------------------------------------------------------------- the rule, in words
def rule(regime: str, recipe: str) -> str:
    """The confirmation's rule as committed before its runs (``calibration/second-regime/
    confirmation.md``; a test keeps the file equal to this)."""
    n, n0 = len(SEEDS), len(EXPLORATORY)
    _, lo, hi = median_interval(np.arange(1.0, n + 1))
    _, plo, phi = median_interval(np.arange(1.0, n + n0 + 1), POOLED_CONFIDENCE)
    says = "\n".join(f"  - *{o}*: {SAYS[o]}" for o in OUTCOMES)
    return "\n".join([
        f"Written before any run of seeds {SEEDS[0]}–{SEEDS[-1]} trains. The recalibrated "
        f"column's seeds {EXPLORATORY[0]}–{EXPLORATORY[-1]} are the question's exploratory set; "
        f"these {n} seeds are its confirmation.",
        "",
        f"- **The set**: {recipe} under plain and rotated Adam at seeds {SEEDS[0]}–{SEEDS[-1]} "
        f"({n} seeds, {2 * n} runs), {EPOCHS} epochs in the {regime}, unchanged; weights kept at "
        f"epochs 0, 10, 50, 150 and {EARLIER}, and published at 50, {EARLIER} and the end. "
        f"Controls are not needed for the primary test.",
        "- **Amended before any run of the set was kept or measured**: training flushes "
        "denormal floats to zero (`TrainConfig.flush_denormals`). Without it the step slowed "
        "about 4.6 times by epoch 550 (denormal intermediates of sharp attention; BENCHMARKS.md), "
        "which would have made the set about 15 hours of both cores. The setting changes the "
        "runs' rounding, as another CPU does (the exploratory seeds were trained on another "
        "machine), not the model, data, optimizer, recipe or schedule; both arms share it. The "
        "first 4 pairs, stopped at a third of their training without it, were discarded "
        "unmeasured.",
        f"- **Primary**: raw removal at full dose, rotated minus plain per seed; the exact "
        f"one-sided Wilcoxon signed-rank test (zero differences dropped, tied magnitudes at "
        f"their mid-ranks, the null counted exactly over every pattern of signs) that rotated "
        f"Adam removes more, the direction the exploratory set showed. **Confirmed when p < "
        f"{ALPHA:g}.** Reported beside it: the median with its exact 95% interval (at {n} seeds "
        f"the {int(lo)}th to the {int(hi)}th difference) and the number of seeds on which "
        f"rotated removes more.",
        f"- **Secondary**: non-inferiority, the exact 95% interval's lower bound above "
        f"−{MARGIN:g} (the question's margin); the same two tests on removal net of the "
        f"reference baseline; the four-way rule of `anchorkit.studies.rotated_basis.question` on the {n} new seeds "
        f"alone (95%) and on all {n + n0} seeds pooled. The pooled reading is a second look at "
        f"the question the exploratory seeds already asked, so it is read at "
        f"{POOLED_CONFIDENCE:.1%} (Bonferroni over the two looks, which needs no assumption "
        f"about how they correlate; at {n + n0} seeds the {int(plo)}th to the {int(phi)}th "
        f"difference). Secondary readings are reported; they do not change the outcome.",
        f"- **The outcome** (on the new seeds alone): *{CONFIRMED}* where p < {ALPHA:g} and "
        f"the interval's lower bound is above −{MARGIN:g}; *{DIRECTION_ONLY}* where p < "
        f"{ALPHA:g} but the lower bound is not; *{NON_INFERIOR_ONLY}* where p ≥ {ALPHA:g} and "
        f"the lower bound is above −{MARGIN:g}; *{REVERSED}* where the whole interval lies "
        f"below −{MARGIN:g}; *{NOT_CONFIRMED}* otherwise; *{PENDING}* until all {n} pairs are "
        f"measured. What the book says for each:",
        says,
        f"- **Analyses of the new seeds** (they judge no claim): the paired difference at epoch "
        f"{EARLIER} against epoch {EPOCHS}, seed by seed (final minus earlier; its median's "
        f"exact 95% interval below zero: \"{SHRINKS}\"; above: \"{GROWS}\"; else "
        f"\"{STEADY}\"); and the paired difference in raw removal against the twins' "
        f"difference in final training loss (rotated minus plain): Pearson r with its Fisher-z "
        f"95% interval (above zero: \"{LESS_TRAINED}\"; below: \"{BETTER_TRAINED}\"; else "
        f"\"{UNTIED}\"), and the least-squares difference in removal at equal loss with its "
        f"95% interval.",
        "",
    ])
