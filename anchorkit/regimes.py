"""Training regimes: the settings every run of a study shares, by name.

A regime is a set of changes to today's configuration (the calibrated **weak-basis** regime,
whose runs keep the hashes they were published under). The optimizer scout screens several at the
calibration seeds; the **second regime** (``SECOND``) is the one chosen after the scout, from the
rotated arm's premise at the calibration seeds, for the report's study at the paper seeds. A run's
hash names its regime (a changed field is a different run); the weak-basis regime's tables stay in
``reports/<study>/``, every other regime's in ``reports/<regime>/<study>/``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from anchorkit.config import ModelConfig, RunConfig, TaskConfig, TrainConfig, check_choice

WEAK = "weak-basis"
SECOND = "no-positions-no-biases-lr-decayed"

# name → changes from today's configuration (the weak-basis regime), by part of the RunConfig
REGIMES: dict[str, dict[str, dict]] = {
    WEAK: {},
    "no-positions-no-biases": {"model": {"learned_positions": False, "residual_biases": False}},
    "no-positions": {"model": {"learned_positions": False}},
    "no-residual-biases": {"model": {"residual_biases": False}},
    "beta2-0.999": {"train": {"beta2": 0.999}},
    # added after the scout's first grid: a high learning rate, decayed linearly over the last
    # quarter of the run, in the calibrated regime and in the two without learned positions
    "lr-decayed": {"train": {"lr": 1e-2, "lr_decay": 0.25}},
    SECOND: {"model": {"learned_positions": False, "residual_biases": False},
             "train": {"lr": 1e-2, "lr_decay": 0.25}},
    "no-positions-lr-decayed": {"model": {"learned_positions": False},
                                "train": {"lr": 1e-2, "lr_decay": 0.25}},
}

# how a regime outside the weak basis is trained: the compiled step (BENCHMARKS.md), and for the
# second regime's studies this many epochs (fixed with the viability check, before any paper seed)
STEP = "compiled"
SECOND_EPOCHS = 1600
# the quick profile's task (a smoke run of the pipeline)
QUICK_TASK = TaskConfig(probe_per_op=16)


def check_regime(regime: str) -> str:
    return check_choice("regime", regime, tuple(REGIMES))


def configure(regime: str, seed: int, recipe: str = "control", optimizer: str = "adam",
              epochs: int = SECOND_EPOCHS, step: str = STEP, task: TaskConfig = TaskConfig()
              ) -> RunConfig:
    """The run of ``regime``: today's configuration with the regime's changes."""
    changes = REGIMES[check_regime(regime)]
    model = dataclasses.replace(ModelConfig(), **changes.get("model", {}))
    train = dataclasses.replace(TrainConfig(), step=step, **changes.get("train", {}))
    return RunConfig(seed=seed, recipe=recipe, optimizer=optimizer, epochs=epochs, model=model,
                     train=train, task=task)


def reports_path(reports_dir, regime: str | None) -> Path:
    """Where a regime's study tables live: ``reports_dir`` itself for the weak-basis regime,
    ``reports_dir/<regime>`` for any other."""
    if regime in (None, WEAK):
        return Path(reports_dir)
    return Path(reports_dir) / check_regime(regime)


# the regimes the report's study runs in, side by side on its pages
REPORT = (WEAK, SECOND)
# how a page names a regime
TITLES = {WEAK: "weak-basis regime", SECOND: "second regime"}
# a page's glue keys: the weak-basis regime's plain, the second's suffixed (``answer-e1-second``)
GLUE_SUFFIX = {WEAK: "", SECOND: "-second"}


def title(regime: str) -> str:
    """A regime's name on a page: the two of the report by role, any other by its catalogue name."""
    return TITLES.get(check_regime(regime), f"{regime} regime")


def describe(regime: str) -> str:
    """A regime's changes from the weak-basis regime, in words (every value from the catalogue)."""
    changes = REGIMES[check_regime(regime)]
    model, train = changes.get("model", {}), changes.get("train", {})
    words = []
    if model.get("learned_positions") is False:
        words.append("no learned positions")
    if model.get("residual_biases") is False:
        words.append("no residual biases")
    if "beta2" in train:
        words.append(f"Adam's β₂ at {train['beta2']}")
    if "lr" in train:
        rate = f"learning rate {train['lr']:g}"
        if train.get("lr_decay"):
            rate += f", decayed linearly over the last {train['lr_decay']:g} of the run"
        words.append(rate)
    return ", ".join(words) if words else "the calibrated settings"
