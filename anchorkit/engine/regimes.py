"""Training regimes: the settings every run of a study shares, as values.

A regime (``Regime``) is a set of changes to today's configuration (the calibrated **weak-basis**
regime, ``WEAK``, changes nothing, so its runs keep the hashes they were published under), the
length and step its studies train with at the paper profile, how a page names it, and the key its
glue and its folder use. The optimizer scout screens several at the calibration seeds; the
**second regime** (``SECOND``) is the one chosen after the scout, from the rotated arm's premise at
the calibration seeds, for the report's study at the paper seeds; the **recalibrated** regime
(``RECALIBRATED``) is the second regime with the recipe the recalibration chose there (the Methods
page, *Recalibration in the second regime*) in place of the recipe of record, at 16 paper seeds. A
run's hash names its regime (a
changed field is a different run); the weak-basis regime's tables stay in ``reports/<study>/``,
every other regime's in ``reports/<regime>/<study>/``. ``REGIMES`` is the catalogue, by name
(``SCREENED``, the scout's, is all of it but the recalibrated regime); ``regime(name)`` looks one
up (the entry points do, once).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from anchorkit.core.config import ModelConfig, RunConfig, TaskConfig, TrainConfig, check_choice

# how a regime outside the weak basis is trained: the compiled step (BENCHMARKS.md), and for the
# second regime's studies this many epochs (fixed with the viability check, before any paper seed)
STEP = "compiled"
SECOND_EPOCHS = 1600


@dataclass(frozen=True)
class Regime:
    """One regime: ``changes`` from today's configuration by part of the ``RunConfig`` (``model``,
    ``train``); ``epochs`` and ``step``, how its studies train at the paper profile; ``title``, how
    a page names it; ``glue``, the suffix of its glue keys; ``folder``, its folder under a tables
    root (by default its name; None: the root itself); ``recipes``, the recipe its runs train in
    place of a study's (by the study's name for it: ``{"falloff": "falloff-pull-0.3"}``);
    ``origin``, how it came to the report, as the report page says it; ``seeds``, the paper seeds
    its studies run at in place of a study's own (empty: the study's)."""

    name: str
    changes: Mapping[str, Mapping] = field(default_factory=dict)
    epochs: int = SECOND_EPOCHS
    step: str = STEP
    title: str = ""
    glue: str = ""
    folder: str | None = ""  # "": its name
    recipes: Mapping[str, str] = field(default_factory=dict)
    origin: str = ""  # how it came to the report's pages, a clause in MyST (its runs ignore it)
    seeds: tuple[int, ...] = ()  # its own paper seeds, where not a study's (``Study.seeds_in``)

    def __post_init__(self):
        if not self.title:
            object.__setattr__(self, "title", f"{self.name} regime")
        if self.folder == "":
            object.__setattr__(self, "folder", self.name)
        if not self.glue and self.folder is not None:
            object.__setattr__(self, "glue", f"-{self.name}")

    def __hash__(self):  # ``changes`` is a dict, not hashable; a regime is known by its name
        return hash(self.name)

    def key(self, base: str) -> str:
        """A page's glue key for this regime: ``answer-e1`` in the weak-basis regime,
        ``answer-e1-second`` in the second."""
        return base + self.glue

    def reports(self, root) -> Path:
        """Where this regime's study tables live under ``root``."""
        return Path(root) if self.folder is None else Path(root) / self.folder

    @property
    def recorded(self) -> str | None:
        """The regime a table folder's provenance records: None for the regime whose tables sit
        at the folder's top (``folder`` None), so that its committed provenance keeps its bytes."""
        return None if self.folder is None else self.name

    def settings(self, recipe: str = "control", optimizer: str = "adam",
                 epochs: int | None = None, step: str | None = None,
                 task: TaskConfig = TaskConfig()) -> dict:
        """Every field of this regime's run but its seed, a regime's business being the model,
        the training, the recipe and the length, never the seed: today's configuration with its
        changes and its recipe in place of the study's (its own length and step unless given).
        ``RunConfig(seed=seed, **settings)`` is the run (``study.run_config``)."""
        model = dataclasses.replace(ModelConfig(), **self.changes.get("model", {}))
        train = dataclasses.replace(TrainConfig(), step=step or self.step,
                                    **self.changes.get("train", {}))
        return dict(recipe=self.recipes.get(recipe, recipe), optimizer=optimizer,
                    epochs=self.epochs if epochs is None else epochs, model=model, train=train,
                    task=task)

    def configure(self, seed: int, recipe: str = "control", optimizer: str = "adam",
                  epochs: int | None = None) -> RunConfig:
        """A reader's shorthand for one run of this regime at its own length and step (a
        published run, to open: the Methods page's TransformerLens example)."""
        return RunConfig(seed=seed, **self.settings(recipe, optimizer, epochs))

    def describe(self) -> str:
        """Its changes from the weak-basis regime, in words (every value from the catalogue)."""
        model, train = self.changes.get("model", {}), self.changes.get("train", {})
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
        words += [f"{new} in place of {old}" for old, new in self.recipes.items()]
        return ", ".join(words) if words else "the calibrated settings"


_DECAYED = {"lr": 1e-2, "lr_decay": 0.25}
_NO_POSITIONS = {"learned_positions": False}
_NO_POSITIONS_NO_BIASES = {"learned_positions": False, "residual_biases": False}

# the calibrated regime: today's configuration, its 400 epochs and the eager step
WEAK = Regime("weak-basis", epochs=400, step="eager", title="weak-basis regime", folder=None,
              origin="the one the method was calibrated in")
SECOND = Regime("no-positions-no-biases-lr-decayed",
                {"model": _NO_POSITIONS_NO_BIASES, "train": _DECAYED},
                title="second regime", glue="-second",
                origin=("chosen after the {doc}`optimizer scout <optimizer-scout>`, on the "
                        "calibration seeds only, from the rotated arm's premise (the scout's own "
                        "rule did not adopt it)"))

# every regime the scout screens, by name
SCREENED: dict[str, Regime] = {r.name: r for r in (
    WEAK,
    Regime("no-positions-no-biases", {"model": _NO_POSITIONS_NO_BIASES}),
    Regime("no-positions", {"model": _NO_POSITIONS}),
    Regime("no-residual-biases", {"model": {"residual_biases": False}}),
    Regime("beta2-0.999", {"train": {"beta2": 0.999}}),
    # added after the scout's first grid: a high learning rate, decayed linearly over the last
    # quarter of the run, in the calibrated regime and in the two without learned positions
    Regime("lr-decayed", {"train": _DECAYED}),
    SECOND,
    Regime("no-positions-lr-decayed", {"model": _NO_POSITIONS, "train": _DECAYED}),
)}

# the second regime with the recipe the recalibration chose there (calibration/second-regime/
# decision.json, 2026-12-03: the first candidate to meet every criterion on 3 of 4 calibration
# seeds under plain Adam), its falloff runs at 16 paper seeds, 704-719; its controls are the second
# regime's own (the same configuration, so the same runs)
RECALIBRATED_SEEDS = tuple(range(704, 720))
RECALIBRATED = Regime("no-positions-no-biases-lr-decayed-pull-0.3", SECOND.changes,
                      title="second regime, recalibrated", glue="-recalibrated",
                      recipes={"falloff": "falloff-pull-0.3"}, seeds=RECALIBRATED_SEEDS,
                      origin=("its recipe recalibrated there, on calibration seeds, before "
                              "its paper seeds trained "
                              "({doc}`/book/methods`, *Recalibration in the second regime*)"))

# the catalogue, by name
REGIMES: dict[str, Regime] = {**SCREENED, RECALIBRATED.name: RECALIBRATED}

# the regimes the report's study runs in, side by side on its pages
REPORT = (WEAK, SECOND, RECALIBRATED)
# the regime a study runs in when none is named (the report's first): what every module below the
# entry points reads, never a regime by its own name
DEFAULT = REPORT[0]
# the regime the method's criteria were calibrated in (book/methods.md, *Training*)
CALIBRATED = WEAK


def regime(name) -> Regime:
    """The regime of this name (a ``Regime`` is returned as it is, None is ``DEFAULT``, the
    weak-basis regime); an unknown name is a ``ParameterError`` naming the parameter."""
    if isinstance(name, Regime):
        return name
    if name is None:
        return DEFAULT
    return REGIMES[check_choice("regime", name, tuple(REGIMES))]
