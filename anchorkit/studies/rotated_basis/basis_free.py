"""The basis-free arm's calibration (issue 69; the Methods page, *The optimizers*): the rule, written
before any of its runs, and the decision it gives from their scores.

The third arm is Adam with its second moment shared along the residual axis
(``optim.SharedAdam``, registry value ``optimizers.SHARED_ADAM``): no direction of the residual
stream is cheaper for it than another. Before its paper set trains, it must show that it learns
the task in the recalibrated regime. The recipe is **not** re-tuned; only whether the arm trains
is checked:

- the runs: the control and falloff-pull-0.3 under the arm at the calibration seeds ``SEEDS``,
  the recalibrated regime's settings and length;
- the arm **passes** at a learning rate when every op scores at least ``criteria.SCORE_MIN`` on
  its probe set in every one of those runs (the first calibration criterion, the one that says a
  run learned the ops);
- first at the regime's own learning rate; if it fails there, the **fallback**: the learning
  rates ``FALLBACK`` in order (lower first, the simplest change that steadies a step), each
  tried on the controls alone, and the first whose controls all pass is tried with the falloff
  runs; the first learning rate at which every run passes is the arm's, and the book says that
  the arm trains at another rate than the other two;
- if none passes, the arm does not learn the task in this regime at any rate tried: the question
  cannot be asked against it, and the book says so with the grid.

Nothing here reads a paper seed. Every run of the arm is new configuration (new hashes).

Its **predictions** for the paper set (``predictions_text``, committed before the set trains):
the premise absent (no spike along either basis, top shares near an even 1/64, per-position
kurtosis near the finite-D Gaussian value ``GAUSSIAN_KURTOSIS``), the question asked against both
other arms with the question's own test, and the source's conjecture about the anti term made
testable.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pandas as pd

from anchorkit.engine import regimes
from anchorkit.core.config import ParameterError, RunConfig
from anchorkit.core.optimizers import SHARED_ADAM
from anchorkit.core.paths import REPO
from anchorkit.core.task import OPS
from anchorkit.measures import criteria
from anchorkit.studies.rotated_basis.question import MARGIN

REGIME = regimes.RECALIBRATED
COMMITTED = REPO / "calibration" / "basis-free"  # the rule, the predictions, the decision
SEEDS = (1, 2, 3, 4)
RECIPES = ("control", "falloff")  # the study's names (the regime's recipe in place of falloff)
FALLBACK = (3e-3, 1e-3)  # learning rates tried, in order, where the regime's own fails
# denormals flushed to zero in training (TrainConfig.flush_denormals), calibration and paper set
# alike: amended before any run of the arm was kept or measured (``AMENDMENT``)
FLUSH = True
AMENDMENT = (
    "- **Amended before any run of the arm was kept or measured**: training flushes denormal "
    "floats to zero (`TrainConfig.flush_denormals`), in the calibration and the paper set alike, "
    "as the confirmation's set does. Unflushed, the arm's step slowed as its runs trained (at "
    "about epoch 610 of its first calibration runs, two quiet minutes: about 2.5 s per "
    "run-epoch, six times the flushed confirmation's), so that its 40 runs would have taken "
    "about a day of both cores. The first calibration runs were stopped unfinished and "
    "discarded. The setting changes the runs' rounding as another CPU does: the arm's paper "
    "runs are then compared with plain and rotated Adam runs trained without it, which the book "
    "says beside the comparison.")

PASSES, FALLBACK_CHOSEN, NONE_PASSES, PENDING = (
    "passes", "passes at a fallback learning rate", "none passes", "pending")
VERDICTS = (PASSES, FALLBACK_CHOSEN, NONE_PASSES, PENDING)


def rates() -> tuple[float, ...]:
    """The learning rates in the order the rule tries them: the regime's own, then the fallback."""
    return (REGIME.settings()["train"].lr, *FALLBACK)


def runs(lr: float | None = None, recipes=RECIPES, seeds=SEEDS) -> list[RunConfig]:
    """The arm's calibration runs at a learning rate (the regime's own by default)."""
    bad = [s for s in seeds if s in REGIME.seeds]
    if bad:
        raise ValueError(f"seeds {bad} are paper seeds: the calibration never reads them")
    return _runs(lr, recipes, seeds)


def _runs(lr, recipes, seeds) -> list[RunConfig]:
    out = []
    for r in recipes:
        settings = REGIME.settings(r, SHARED_ADAM.name)
        settings["train"] = dataclasses.replace(settings["train"], flush_denormals=FLUSH,
                                                **({} if lr is None else {"lr": lr}))
        out += [RunConfig(seed=s, **settings) for s in seeds]
    return out


def learned(row) -> bool:
    """Whether a run learned every op (its lowest op score at least ``SCORE_MIN``)."""
    return min(row[f"score_{op}"] for op in OPS) >= criteria.SCORE_MIN


def _at(scores: pd.DataFrame, lr: float, recipe: str) -> list[bool]:
    """Whether each run of ``recipe`` at ``lr`` learned every op."""
    if not len(scores):
        return []
    at = scores[(scores.lr == lr) & (scores.recipe == recipe)]
    return [learned(r) for _, r in at.iterrows()]


def decide(scores: pd.DataFrame) -> dict:
    """The rule's decision from the arm's runs' final scores: one row per run with ``lr``,
    ``recipe`` (``control`` or the study's ``falloff``), ``seed`` and ``score_<op>``. Returns the
    verdict, the learning rate chosen (or None) and, while pending, what to train next
    (``waiting``: (lr, recipes))."""
    n = len(SEEDS)
    for i, lr in enumerate(rates()):
        asked = RECIPES if i == 0 else ("control",)  # a fallback rate: the controls first
        got = {r: _at(scores, lr, r) for r in RECIPES}
        if any(len(got[r]) < n for r in asked):
            return {"verdict": PENDING, "lr": None, "waiting": (lr, asked)}
        if not all(all(got[r]) for r in asked):
            continue  # fails at this rate: the next
        if len(got["falloff"]) < n:
            return {"verdict": PENDING, "lr": None, "waiting": (lr, ("falloff",))}
        if all(got["falloff"]):
            return {"verdict": PASSES if i == 0 else FALLBACK_CHOSEN, "lr": lr, "waiting": None}
    return {"verdict": NONE_PASSES, "lr": None, "waiting": None}


def scores(store) -> pd.DataFrame:
    """The final op scores (the last trajectory point: probe-set accuracy) of every calibration
    run of the arm finished in ``store``, at every rate the rule may try: ``decide``'s input."""
    rows = []
    for lr in rates():
        for recipe in RECIPES:
            for cfg in runs(lr, (recipe,)):
                if store.has_final(cfg):
                    last = store.load_trajectory(cfg).iloc[-1]
                    rows.append({"lr": lr, "recipe": recipe, "seed": cfg.seed, "run": cfg.name,
                                 "hash": cfg.hash, "epoch": int(last.epoch),
                                 **{f"score_{op}": float(last[f"score_{op}"]) for op in OPS}})
    return pd.DataFrame(rows, columns=["lr", "recipe", "seed", "run", "hash", "epoch",
                                       *(f"score_{op}" for op in OPS)])


def decision_text(scores: pd.DataFrame) -> str:
    """The rule's decision on the runs' scores, in the words the rule set for it, with each run's
    lowest op score (``calibration/basis-free/decision.md``)."""
    d = decide(scores)
    lowest = scores.assign(lowest=scores[[f"score_{op}" for op in OPS]].min(axis=1))
    lines = [f"- {r.run} (learning rate {r.lr:g}): lowest op score {r.lowest:.3f}"
             + ("" if learned(r) else f", below {criteria.SCORE_MIN}")
             for _, r in lowest.iterrows()]
    rate = "" if d["lr"] is None else f" at learning rate {d['lr']:g}"
    return "\n".join([f"**{d['verdict']}**{rate}. {SAYS[d['verdict']]}", "",
                       f"By the rule committed before the runs (`rule.md`), on {len(scores)} "
                       f"runs:", "", *lines, ""])


def chosen_rate(committed=COMMITTED) -> float:
    """The learning rate the committed decision chose (``committed``/decision.json): a
    ParameterError naming what is missing where there is no decision or it chose no rate."""
    f = Path(committed) / "decision.json"
    if not f.exists():
        raise ParameterError("train", str(f), "no committed decision: run calibrate --publish")
    d = json.loads(f.read_text())
    if d["lr"] is None:
        raise ParameterError("train", d["verdict"], "the calibration chose no learning rate")
    return float(d["lr"])


def paper_runs(lr: float) -> list[RunConfig]:
    """The arm's paper set at the learning rate its calibration chose: the control and the
    regime's falloff at the regime's paper seeds."""
    return _runs(lr, RECIPES, PAPER_SEEDS)


SAYS = {
    PASSES: "The basis-free arm learns every op at the regime's own settings; its paper set "
            "trains with them.",
    FALLBACK_CHOSEN: "The basis-free arm learns every op only at a lower learning rate than the "
                     "other two arms; its paper set trains at that rate, and the book says the "
                     "arms differ in it.",
    NONE_PASSES: "The basis-free arm does not learn the task in this regime at any learning "
                 "rate tried: the question cannot be asked against it, and the book shows the "
                 "grid.",
    PENDING: "Not yet decided: the arm's calibration runs are not all trained.",
}


def rule_text() -> str:
    """The rule as committed before any of its runs (``calibration/basis-free/rule.md``; a test
    keeps the file equal to this)."""
    own, *fallback = rates()
    says = "\n".join(f"  - *{v}*: {SAYS[v]}" for v in VERDICTS)
    return "\n".join([
        f"Written before any run of the basis-free arm (Adam with its second moment shared along "
        f"the residual axis, `{SHARED_ADAM.name}`) trains.",
        "",
        f"- **The runs**: the control and {REGIME.recipes['falloff']} under the arm at the "
        f"calibration seeds {', '.join(map(str, SEEDS))} (none of the paper seeds), "
        f"{REGIME.epochs} epochs in the {REGIME.title}, its settings unchanged; the recipe is "
        f"not re-tuned.",
        f"- **Passes** at a learning rate when every op scores at least {criteria.SCORE_MIN} on "
        f"its probe set in every one of those runs.",
        f"- **First** at the regime's own learning rate, {own:g}. **Fallback**, where it fails "
        f"there: the learning rates {', '.join(f'{r:g}' for r in fallback)} in that order, each "
        f"tried on the controls alone; the first whose controls all pass is tried with the "
        f"falloff runs, and the first at which every run passes is the arm's.",
        "- **What the book says**:",
        says,
        AMENDMENT,
        "",
    ])


# ---------------------------------------------------------------------- the paper set's predictions
PAPER_SEEDS = REGIME.seeds  # 704–719, the recalibrated column's, twins of its two arms
D = 64
GAUSSIAN_KURTOSIS = 3 * (D - 1) / (D + 1)  # E[m4 / m2²] of D i.i.d. Gaussian components
EVEN = 1 / D
SPIKE_FREE = 14  # runs of 16 with no spike along a basis, for "no spike"


def predictions_text() -> str:
    """The basis-free arm's predictions, committed before its paper set trains
    (``calibration/basis-free/predictions.md``; a test keeps the file equal to this)."""
    n = len(PAPER_SEEDS)
    return "\n".join([
        f"Written before any paper seed of the basis-free arm trains: "
        f"{REGIME.recipes['falloff']} and its control under the arm at seeds "
        f"{PAPER_SEEDS[0]}–{PAPER_SEEDS[-1]} ({n} seeds, {2 * n} runs), {REGIME.epochs} epochs in the "
        f"{REGIME.title}, at the learning rate its calibration chose, denormals flushed in "
        f"training (the rule's amendment); measured with the same sweeps "
        f"(e₁, the coordinate axes, the seed's rotated axes as ordinary directions, the random "
        f"directions), its reference baseline over the random directions.",
        "",
        f"- **The premise absent.** Along the coordinate axes and along the seed's rotated axes, "
        f"the basis-free controls have no spike on at least {SPIKE_FREE} of {n} runs each; their "
        f"top share is below the plain controls' at the same seed (one-sided exact Wilcoxon, 5%), "
        f"with a median under {2 * EVEN:.3f} (twice an even share, 1/{D}); their per-position "
        f"kurtosis has a median within 10% of {GAUSSIAN_KURTOSIS:.2f}, the value D Gaussian "
        f"components give at D = {D} (3(D−1)/(D+1), not 3), and below the plain controls' (paired, "
        f"one-sided). Each part reported whatever it gives.",
        f"- **The question against both arms.** Per seed, basis-free minus plain and basis-free "
        f"minus rotated raw removal (and removal net of the reference baseline); the median's "
        f"exact 95% interval against the margin ±{MARGIN:g}, read by the question's four-way "
        f"rule (`anchorkit.studies.rotated_basis.question`): inside, the anchor does not need a privileged basis at "
        f"all; below, it needs one; above, it removes more without one; across, cannot be "
        f"decided, with the seeds that would decide.",
        "- **The source's conjecture made testable** (its Discussion: with no privileged basis "
        "the anti term has a larger job, there being no cheap direction to steer the syntax "
        "onto). (a) The syntax tokens' embeddings sit on no basis vector: their largest |cos| "
        "with any coordinate or rotated axis is at chance (below the 95th-percentile chance "
        "level) in the basis-free controls. (b) The anchor costs the other ops more: raw spill "
        "of the e₁ edit, basis-free minus rotated per seed, its median's exact 95% interval, "
        "above zero if the conjecture holds. (c) The anchor sits as well: alignment with e₁ at "
        "slices 3–4 in difference contexts, basis-free minus rotated per seed, reported with its "
        "interval.",
        "",
    ])

