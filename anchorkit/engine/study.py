"""A study as a value. Most studies are paired runs (``Study``): its name, its default seeds, its
arms (the anchored recipe and the optimizer of each; every arm is paired with the control of its
optimizer), whether its pairs are measured with the direction sweep, the tables its page reads
derived from the measured ones, its page and its place among the studies, and its work as a graph of
tasks (``Study.graph``). Each study's value lives in its own folder (``anchorkit/studies/<name>/``,
discovered by ``anchorkit.engine.registry``); this module is what they share: the value, the run of a study
at a profile in a regime, and the paper seeds. The others (``Survey``: the essay, the scout, the
diagnosis) are folders of the same registry whose work is a graph of their own.

A study names runs by configuration only. Runs shared between studies (the plain-Adam control and
falloff runs are the stored twins of the rotated-basis study) have the same configuration and so
the same hash: they are loaded from the store, never retrained under another name.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

from anchorkit.core import progress as tracking
from anchorkit.core.config import RunConfig
from anchorkit.core.edit import DOSES
from anchorkit.engine.executor import ENSEMBLE_RUNS, Graph, add_training
from anchorkit.measures.answers import cached_part, n_sweep_directions
from anchorkit.engine.pairs import Pair
from anchorkit.engine.pipeline import SWEEP_SLICE, base_task, pair_task, save_sweep_task, sweep_task
from anchorkit.engine.profiles import PAPER, Profile
from anchorkit.engine.regimes import DEFAULT, REPORT, Regime

PAPER_SEEDS = list(range(704, 712))  # the seeds of the published runs


def nothing(tables: dict) -> dict:
    """A study whose page reads only its measured tables."""
    return {}


@dataclass(frozen=True)
class Study:
    """One study: ``arms``, the (anchored recipe, optimizer) of each arm, each paired with the
    control of its optimizer (the control study's one arm is the control itself, paired with
    itself); ``seeds``, its default seeds; ``sweep``, whether its pairs are measured with the
    direction sweep; ``derive``, the tables its page reads, from the measured ones;
    ``side_by_side``, whether its page shows the report's regimes side by side (else the default
    regime only); ``page``, its notebook's name (``notebooks/<page>.ipynb``); ``place``, where it
    stands among the studies (the registry's order, in which pages are executed and listed);
    ``claims``, the source's claims judged on its tables (``anchorkit.judging.rules.Claim``, gathered by
    the ledger)."""

    name: str
    arms: tuple[tuple[str, str], ...]
    seeds: tuple[int, ...] = tuple(PAPER_SEEDS)
    sweep: bool = False
    derive: Callable[[dict], dict] = nothing
    side_by_side: bool = False
    page: str = ""
    place: int = 100
    claims: tuple = ()

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

    def graph(self, pairs: list[Pair], store, device: str = "cpu", doses=DOSES,
              size: int = ENSEMBLE_RUNS) -> Graph:
        """Its work on these pairs (``pairs``): train the unfinished runs; answer every run (base,
        with e₁ at ``doses``, and, with ``sweep``, the sweep in slices) whose answers are not
        cached; measure every pair once both its runs are answered (the tasks of
        ``anchorkit.engine.pipeline``, run by ``anchorkit.engine.executor``)."""
        runs = runs_of(pairs)
        g = Graph()
        trained_by = add_training(g, runs, store, device, size=size)
        answered: dict[str, list] = {}
        for c in runs:
            after = [trained_by[c.hash]] if c.hash in trained_by else []
            done = []
            if c.hash in trained_by or cached_part(c, "base", store, doses=doses) is None:
                done.append(g.add(f"base-{c.hash}", base_task, c, store, doses, *after))
            if self.sweep and (c.hash in trained_by or cached_part(c, "sweep", store) is None):
                n = n_sweep_directions(c)
                slices = []
                for a in range(0, n, SWEEP_SLICE):
                    b = min(a + SWEEP_SLICE, n)
                    slices.append(g.add(f"sweep-{c.hash}-{a}", sweep_task, c, store, a, b, *after))
                    g.tracks[slices[-1].key] = tracking.sweep_track(store, c, a, b)
                done.append(g.add(f"save-sweep-{c.hash}", save_sweep_task, c, store, *slices))
            answered[c.hash] = done
        for i, p in enumerate(pairs):
            deps = answered[p.anchored.hash] + (answered[p.control.hash]
                                                if p.control != p.anchored else [])
            ref = g.output(f"pair-{i}", pair_task, p, self.sweep, store, doses, *deps)
            g.tracks[ref.key] = tracking.pair_track(store, p)
        return g

    def paper_set(self, seeds: list[int], profile: Profile, epochs: int | None = None) -> bool:
        """Whether these are its paper set, the runs its committed tables hold: its default seeds
        (in order) at the paper profile, with the same runs as at the profile's own epochs in
        every regime of the report."""
        if tuple(seeds) != self.seeds or profile != PAPER:
            return False
        return epochs is None or all(self.runs(seeds, profile, r, epochs)
                                     == self.runs(seeds, profile, r) for r in REPORT)


@dataclass(frozen=True)
class Survey:
    """A study whose work is not a set of paired runs but a graph of its own on the executor (the
    essay measures every stored run of the paper's studies head by head; the scout trains its
    controls in every candidate regime and measures them at several lengths; the diagnosis probes
    the report study's published runs part by part). ``protocol`` names the module of its folder
    that its page asks (imported when asked; empty for a survey whose page reads committed tables
    only, which its script writes), each function taking the page's request
    (``request.Request``): ``check(req)``, a ``ParameterError`` for a parameter it does not use or
    accept; ``paper(req)``, whether the request asks for its paper set; ``written(reports,
    req)``, whether a reports folder holds the request's tables (``req`` None: the paper set's);
    ``compute(req)``, its tables at ``req.reports_dir`` (read there when written, else computed
    and written); ``folders(home)``, the table folders whose provenance its page shows, each with
    its label. ``pending``, what the page standing in for it says besides while its tables are
    not there; ``page``, ``place`` and ``claims`` as a ``Study``'s."""

    name: str
    place: int
    protocol: str = ""
    pending: str = ""
    page: str = ""
    claims: tuple = ()

    def __post_init__(self):
        if not self.page:
            object.__setattr__(self, "page", self.name)

    @property
    def computes(self) -> bool:
        """Whether its page computes its tables (else it reads the committed ones only)."""
        return bool(self.protocol)

    def asked(self):
        """Its page's protocol (the module ``protocol`` names); a LookupError where it has none."""
        if not self.protocol:
            raise LookupError(f"the {self.name} page reads committed tables only: it has no "
                              "protocol to compute them")
        return importlib.import_module(self.protocol)

    def written(self, reports, req=None) -> bool:
        """Whether ``reports`` holds the request's tables (None: the paper set's)."""
        return self.asked().written(reports, req)


def run_config(seed: int, recipe: str, optimizer: str, profile: Profile = PAPER,
               regime: Regime = DEFAULT, epochs: int | None = None) -> RunConfig:
    """The run of a study at a profile, in a regime (the weak-basis regime's runs keep their
    published hashes): the profile's task, and its length and step where it sets them, else the
    regime's; ``epochs`` overrides both."""
    length = epochs if epochs is not None else profile.epochs
    return RunConfig(seed=seed, **regime.settings(recipe, optimizer, length, profile.step,
                                                  profile.task))


def runs_of(pairs: list[Pair]) -> list[RunConfig]:
    """Every distinct run of these pairs, in order."""
    out: dict[str, RunConfig] = {}
    for p in pairs:
        out.setdefault(p.anchored.hash, p.anchored)
        out.setdefault(p.control.hash, p.control)
    return list(out.values())
