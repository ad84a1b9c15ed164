"""The report's question asked by its own test (issue 44; the Methods page, *Recalibration in the
second regime*): does the anchor need the optimizer's privileged axis?

Written before any paper seed of the recalibrated column trains. Per seed, the **rotated minus
plain** twin difference of a removal measure (raw removal, net removal, removal net of the
reference baseline); its median with the exact, distribution-free 95% interval of the paired
differences (``verdicts.median_interval``: at 16 seeds the 4th to the 13th difference) against an
**equivalence margin** ``MARGIN`` fixed here:

- the interval inside [−MARGIN, MARGIN]: **the anchor does not need the privileged axis** (the
  two arms remove alike, within the margin);
- the interval below −MARGIN: **it needs it** (rotated Adam removes less, by more than the margin);
- the interval above +MARGIN: **it removes more without it** (rotated Adam removes more: it does
  not need the axis either, but the arms are not alike);
- otherwise (the interval straddles a margin): **cannot be decided at this number of seeds**, with
  the number of seeds the interval would need at the spread seen (``seeds_needed``).

The margin, 0.1 of difference's span: a third of the distance between the removal criterion (0.8)
and the kept/lost line (0.5), so a difference inside it cannot by itself turn a kept anchor into a
lost one; and about three times one run's sampling error of removal at 512 probe contexts per op
(a score's standard error is at most 0.022, over a span near 0.8).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from anchorkit.measures.verdicts import CONFIDENCE, median_interval, seeds_needed as _seeds_needed

MARGIN = 0.1
MEASURES = {"raw_removal": "raw removal", "net_removal": "net removal",
            "removal_net_of_reference": "removal net of the reference baseline"}

ALIKE = "does not need the privileged axis"
NEEDS = "needs the privileged axis"
MORE = "removes more without the privileged axis"
UNDECIDED = "cannot be decided at this number of seeds"
ANSWERS = (ALIKE, NEEDS, MORE, UNDECIDED)


def answer(low: float, high: float, margin: float = MARGIN) -> str:
    """The answer an interval (low, high) of rotated − plain differences gives."""
    if -margin <= low and high <= margin:
        return ALIKE
    if high < -margin:
        return NEEDS
    if low > margin:
        return MORE
    return UNDECIDED


ARMS = ("rotated", "adam")  # the question's difference: the first arm minus the second


def paired_differences(results: pd.DataFrame, measure: str = "raw_removal",
                       arms: tuple[str, str] = ARMS) -> pd.Series:
    """The first arm minus the second (rotated minus plain unless given), seed by seed, from a
    results table of both arms (seeds in only one arm are left out)."""
    wide = results.pivot(index="seed", columns="optimizer", values=measure)
    if not set(arms) <= set(wide.columns):
        return pd.Series(dtype=float)
    return (wide[arms[0]] - wide[arms[1]]).dropna()


def seeds_needed(diffs, margin: float = MARGIN, confidence: float = CONFIDENCE) -> int | None:
    """About how many seeds the interval would need to decide, were the differences to keep the
    median and spread seen (``verdicts.seeds_needed`` against the margins): None when the median
    sits on a margin or fewer than 4 differences exist. A rough guide, not a rule."""
    n = _seeds_needed(diffs, (-margin, margin), confidence)
    return None if n is None or math.isinf(n) else n


def question_rows(results: pd.DataFrame, margin: float = MARGIN,
                  arms: tuple[str, str] = ARMS) -> pd.DataFrame:
    """The question's test on every removal measure (the first arm minus the second): n, the
    median difference, its interval, the answer and, where undecided, the seeds the interval
    would need."""
    rows = []
    for col, name in MEASURES.items():
        if col not in results.columns:
            continue
        d = paired_differences(results, col, arms)
        med, low, high = median_interval(d.values)
        verdict = UNDECIDED if math.isnan(med) or not np.isfinite([low, high]).all() else answer(
            low, high, margin)
        rows.append({"measure": name, "seeds": len(d), "median difference": med,
                     "interval low": low, "interval high": high, "margin": margin,
                     f"{arms[0]} larger on": int((d > 0).sum()), "answer": verdict,
                     "seeds needed": seeds_needed(d.values, margin) if verdict == UNDECIDED
                     else None})
    return pd.DataFrame(rows)


def predictions(seeds, regime: str, recipe: str, epochs: int, kept: float,
                removal: float) -> str:
    """What the recalibrated column's paper seeds will be judged by, written before any of them
    trains (``calibration/second-regime/predictions.md``; a test keeps the file equal to this)."""
    seeds = list(seeds)
    n = len(seeds)
    _, low, high = median_interval(np.arange(1.0, n + 1))  # the interval's ranks themselves
    return "\n".join([
        f"Written before any paper seed of the recalibrated column trains: {recipe} and its "
        f"control under plain and rotated Adam at seeds {seeds[0]}–{seeds[-1]} ({n} seeds), "
        f"{epochs} epochs in the {regime}, snapshots kept.",
        "",
        f"- **The question** (`anchorkit.studies.rotated_basis.question`): per seed, rotated minus plain in raw removal, "
        f"net removal and removal net of the reference baseline; the median's exact 95% interval "
        f"(at {n} seeds, the {int(low)}th to the {int(high)}th difference) against the margin "
        f"±{MARGIN:g}. Inside it: the anchor does not need the privileged axis; below it: it "
        f"needs it; above it: it removes more without it; across a margin: cannot be decided, "
        f"with the seeds that would decide.",
        f"- **Kept or lost, per arm**: a run keeps its anchor where its net removal at full dose "
        f"is at least {kept:g}; each arm's count of {n}, and the count meeting raw removal "
        f"{removal:g}, are reported whatever they are.",
        "- **The mirror image of the controls**: the plain controls' privileged basis against the "
        "rotated controls' coordinate axes, paired by seed, as the second regime's controls were.",
        f"- **The ledger**: every claim of the column judged by the ledger's rules with the "
        f"{n}-seed intervals; a rule revised before these tables are read is revised for every "
        f"column alike, in a commit before them. The second regime's claims that could not be "
        f"decided at 8 seeds are listed with what {n} seeds decide.",
        "",
    ])
