"""A study as a value: its name, its default seeds, its arms (the anchored recipe and the
optimizer of each; every arm is paired with the control of its optimizer), whether its pairs are
measured with the direction sweep, the tables its page reads derived from the measured ones, its
page and its place among the studies. Each study's value lives in its own folder
(``anchorkit/studies/<name>/``, discovered by ``anchorkit.studies``); this module is what they
share: the value, the run of a study at a profile in a regime, and the paper seeds.

A study names runs by configuration only. Runs shared between studies (the plain-Adam control and
falloff runs are the stored twins of the rotated-basis study) have the same configuration and so
the same hash: they are loaded from the store, never retrained under another name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from anchorkit.core.config import RunConfig
from anchorkit.pairs import Pair
from anchorkit.profiles import PAPER, Profile
from anchorkit.regimes import DEFAULT, REPORT, Regime

PAPER_SEEDS = list(range(704, 712))  # the seeds of the published runs


def nothing(tables: dict) -> dict:
    """A study whose page reads only its measured tables."""
    return {}


@dataclass(frozen=True)
class Study:
    """One study: ``arms``, the (anchored recipe, optimizer) of each arm, each paired with the
    control of its optimizer (the control study's one arm is the control itself, paired with
    itself); ``seeds``, its default seeds; ``sweep``, whether its pairs are measured with the
    direction sweep; ``derive``, the tables its page reads, from the measured ones; ``page``, its
    notebook's name (``notebooks/<page>.ipynb``); ``place``, where it stands among the studies
    (the registry's order, in which pages are executed and listed)."""

    name: str
    arms: tuple[tuple[str, str], ...]
    seeds: tuple[int, ...] = tuple(PAPER_SEEDS)
    sweep: bool = False
    derive: Callable[[dict], dict] = nothing
    page: str = ""
    place: int = 100

    def __post_init__(self):
        if not self.page:
            object.__setattr__(self, "page", self.name)

    def seeds_in(self, seeds, regime: Regime) -> list[int]:
        """The seeds its runs in ``regime`` are at: the regime's own paper seeds
        (``Regime.seeds``, the recalibrated regime's 16) where ``seeds`` are the study's defaults,
        those are the paper seeds and the regime has its own, else ``seeds`` (a reader's seeds,
        and the loss-rate screen's, are never replaced)."""
        if regime.seeds and tuple(seeds) == self.seeds == tuple(PAPER_SEEDS):
            return list(regime.seeds)
        return list(seeds)

    def pairs(self, seeds: list[int], profile: Profile = PAPER, regime: Regime = DEFAULT,
              epochs: int | None = None) -> list[Pair]:
        """The (anchored, control) pairs it measures, arm by arm, seed by seed (at
        ``seeds_in(seeds, regime)``)."""
        seeds = self.seeds_in(seeds, regime)
        return [Pair(run_config(s, recipe, optimizer, profile, regime, epochs),
                     run_config(s, "control", optimizer, profile, regime, epochs))
                for recipe, optimizer in self.arms for s in seeds]

    def runs(self, seeds: list[int], profile: Profile = PAPER, regime: Regime = DEFAULT,
             epochs: int | None = None) -> list[RunConfig]:
        """Every distinct run it reads, in a stable order."""
        return runs_of(self.pairs(seeds, profile, regime, epochs))

    def paper_set(self, seeds: list[int], profile: Profile, epochs: int | None = None) -> bool:
        """Whether these are its paper set, the runs its committed tables hold: its default seeds
        (in order) at the paper profile, with the same runs as at the profile's own epochs in
        every regime of the report."""
        if tuple(seeds) != self.seeds or profile != PAPER:
            return False
        return epochs is None or all(self.runs(seeds, profile, r, epochs)
                                     == self.runs(seeds, profile, r) for r in REPORT)


def run_config(seed: int, recipe: str, optimizer: str, profile: Profile = PAPER,
               regime: Regime = DEFAULT, epochs: int | None = None) -> RunConfig:
    """The run of a study at a profile, in a regime (the weak-basis regime's runs keep their
    published hashes): the profile's task, and its length and step where it sets them, else the
    regime's; ``epochs`` overrides both."""
    length = epochs if epochs is not None else profile.epochs
    return regime.configure(seed, recipe, optimizer, length, profile.step, profile.task)


def runs_of(pairs: list[Pair]) -> list[RunConfig]:
    """Every distinct run of these pairs, in order."""
    out: dict[str, RunConfig] = {}
    for p in pairs:
        out.setdefault(p.anchored.hash, p.anchored)
        out.setdefault(p.control.hash, p.control)
    return list(out.values())
