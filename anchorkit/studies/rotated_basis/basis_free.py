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
"""

from __future__ import annotations

import dataclasses

import pandas as pd

from anchorkit import regimes
from anchorkit.core.config import RunConfig
from anchorkit.core.optimizers import SHARED_ADAM
from anchorkit.core.task import OPS
from anchorkit.measures import criteria

REGIME = regimes.RECALIBRATED
SEEDS = (1, 2, 3, 4)
RECIPES = ("control", "falloff")  # the study's names (the regime's recipe in place of falloff)
FALLBACK = (3e-3, 1e-3)  # learning rates tried, in order, where the regime's own fails

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
    out = []
    for r in recipes:
        settings = REGIME.settings(r, SHARED_ADAM.name)
        if lr is not None:
            settings["train"] = dataclasses.replace(settings["train"], lr=lr)
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
        "",
    ])
