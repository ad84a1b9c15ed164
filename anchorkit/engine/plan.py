"""What executing a study will do, said before it starts: the runs it trains and those it loads
(from the run store or from ``published/``), the runs it sweeps, the pairs it measures, and an
estimate of how long that takes from the figures recorded in ``BENCHMARKS.md``.

The plan is the study's own task graph (``Study.graph``, in every regime its page
shows), built and not executed: what it lists is what the execution will do when nothing else
writes to the store meanwhile, and its tracks are the ones the tasks report on
(``anchorkit.core.progress``).
"""

from __future__ import annotations

import heapq
from collections import Counter
from dataclasses import dataclass, field

from anchorkit.measures.answers import n_sweep_directions
from anchorkit.core.config import RunConfig
from anchorkit.engine.formatting import seed_text
from anchorkit.engine.profiles import Profile
from anchorkit.engine.regimes import Regime
from anchorkit.core.store import RunStore
from anchorkit.engine.registry import Study, runs_of
from anchorkit.core.task import OPS

# Seconds of one single-thread worker on the project's machine (2 cores, AMD EPYC), each from a
# line of BENCHMARKS.md (its section, and the line at the time of writing):
FIGURES = {
    # "Training speed" (line 17): eager step, "0.367 s per run-epoch" on one thread
    # (two processes side by side: 5.38 run-epochs/s for the machine, the same 0.37 s each)
    "run-epoch eager": 0.37,
    # "The second regime's paper set, finished and measured" (line 242): six 4-run ensembles
    # of the compiled step, two at a time, "0.40 s per run-epoch"
    "run-epoch compiled": 0.40,
    # "Training speed" (line 44): "Compiling costs about 25 s at the start of each ensemble"
    "compile": 25.0,
    # "Direction sweep" (line 62): one run, 143 directions on 2048 probe contexts, 128
    # contexts per forward: "56.6 s"; scaled here by the probe contexts of the run's task
    "direction per context": 56.6 / 143 / 2048,
    # "The loss-rate screen" (line 131): "Measuring needs no sweep: about 21 s per pair on
    # one thread" (2048 probe contexts; scaled the same way)
    "pair per context": 21.0 / 2048,
    # "The book and the tests" (line 175): "each page executes against the committed tables
    # in 2–8 s"
    "page": 8.0,
}


LISTED = 12  # the runs (and ensembles, and swept runs) a plan names one by one, per regime
LONG = 3600.0  # seconds of estimate past which the plan says that the work is long


def epoch_seconds(cfg: RunConfig) -> float:
    return FIGURES[f"run-epoch {cfg.train.step}"]


def contexts(cfg: RunConfig) -> int:
    return cfg.task.probe_per_op * len(OPS)


@dataclass
class RegimePlan:
    """One regime's part of a study's execution."""

    regime: Regime
    runs: list[RunConfig]
    graph: object  # executor.Graph
    ensembles: list[tuple[list[RunConfig], int]] = field(default_factory=list)  # (runs, from epoch)
    swept: list[RunConfig] = field(default_factory=list)
    n_pairs: int = 0


@dataclass
class StudyPlan:
    study: Study
    seeds: list[int]
    profile: Profile
    store: object
    regimes: list[RegimePlan]

    def tracks(self) -> list:
        return [t for r in self.regimes for t in r.graph.tracks.values()]

    def where(self, cfg: RunConfig) -> str:
        """Where a run's final weights come from: trained now, the store, or published/."""
        if RunStore(self.store.root, published=None).has_final(cfg):  # the store's own
            return "in the run store"
        if self.store.has_final(cfg):
            return "in published/"
        return "to train"

    def estimate(self, workers: int) -> tuple[float, list[str]]:
        """Seconds of wall time on ``workers`` single-thread workers, and how they add up (the
        regimes one after another, as the page computes them; in each, the training, then the
        sweeps and measures spread over the workers)."""
        train = sweep = pairs = 0.0
        n_ensembles = 0
        for r in self.regimes:
            jobs = [len(g) * (g[0].epochs - start) * epoch_seconds(g[0])
                    + (FIGURES["compile"] if g[0].train.step == "compiled" else 0.0)
                    for g, start in r.ensembles]
            n_ensembles += len(jobs)
            train += makespan(jobs, workers)
            sweep += sum(self._directions(c) * contexts(c) * FIGURES["direction per context"]
                         for c in r.swept) / workers
            if r.runs:
                pairs += r.n_pairs * contexts(r.runs[0]) * FIGURES["pair per context"] / workers
        parts = []
        if n_ensembles:
            parts.append(f"training {duration(train)} ({n_ensembles} ensemble"
                         f"{'s' * (n_ensembles != 1)}, {workers} worker{'s' * (workers != 1)})")
        if sweep:
            parts.append(f"sweeps {duration(sweep)}")
        parts.append(f"measuring {duration(pairs)}")
        parts.append(f"the page {FIGURES['page']:.0f} s")
        return train + sweep + pairs + FIGURES["page"], parts

    @staticmethod
    def _directions(cfg: RunConfig) -> int:
        return n_sweep_directions(cfg)

    def lines(self, workers: int) -> list[str]:
        """What the execution will train and measure, and the estimate, as lines to print: each
        run by name up to ``LISTED`` of a regime (then how many more, by where they come from), and
        a word of warning when the estimate runs past an hour."""
        out = [f"{self.study.name}, seeds {seed_text(self.seeds)}, profile {self.profile.name}:"]
        for r in self.regimes:
            out.append(f"  {r.regime.title}:")
            where = [self.where(c) for c in r.runs]
            for c, w in list(zip(r.runs, where))[:LISTED]:
                out.append(f"    {c.name:<28} {c.epochs} epochs, {w}")
            if len(r.runs) > LISTED:
                rest = Counter(where[LISTED:])
                out.append(f"    … {len(r.runs) - LISTED} more runs ("
                           + ", ".join(f"{n} {w}" for w, n in rest.items()) + ")")
            for group, start in r.ensembles[:LISTED]:
                resumed = f", resumed at epoch {start}" if start else ""
                out.append(f"    trains together: {', '.join(c.name for c in group)}{resumed}")
            if len(r.ensembles) > LISTED:
                out.append(f"    … {len(r.ensembles) - LISTED} more ensembles")
            if r.swept:
                n = self._directions(r.swept[0])
                out.append(f"    sweeps {n} directions of {len(r.swept)} run"
                           f"{'s' * (len(r.swept) != 1)}: " + ", ".join(
                               c.name for c in r.swept[:LISTED])
                           + (" …" if len(r.swept) > LISTED else ""))
            out.append(f"    measures {r.n_pairs} pair{'s' * (r.n_pairs != 1)}")
        total, parts = self.estimate(workers)
        out.append(f"estimate: about {duration(total)} ({'; '.join(parts)}; from the figures of "
                   "BENCHMARKS.md on 2 cores)")
        if total > LONG:
            out.append(f"long: about {total / 3600:.1f} hours on {workers} worker"
                       f"{'s' * (workers != 1)}; every finished run is kept, so Ctrl-C stops it and "
                       "the same command resumes; a cluster (--scheduler) spreads the work")
        return out


def duration(seconds: float) -> str:
    if seconds >= 90 * 60:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.1f} min"


def makespan(jobs: list[float], workers: int) -> float:
    """The wall time of jobs (seconds each) handed to ``workers`` in the order given, each to the
    first worker free (how Dask's scheduler hands out the training tasks)."""
    free = [0.0] * max(1, min(workers, len(jobs)))
    for j in jobs:
        heapq.heappush(free, heapq.heappop(free) + j)
    return max(free) if jobs else 0.0


def study_plan(study: Study, seeds: list[int], profile: Profile, regimes: list[Regime], store
               ) -> StudyPlan:
    """The plan of a study at these (checked) seeds and profile in each of ``regimes`` (as its
    page shows them, the weak-basis regime first)."""
    parts = []
    for regime in regimes:
        pairs = study.pairs(seeds, profile, regime)
        runs = runs_of(pairs)
        graph = study.graph(pairs, store)
        r = RegimePlan(regime, runs, graph, n_pairs=len(pairs))
        for key, (fn, args) in graph.tasks.items():
            if key in graph.trains:
                group = args[0]  # an ensemble resumes from its runs' checkpoint, if any
                ckpt = store.load_checkpoint(group[0])
                r.ensembles.append((group, ckpt["epoch"] if ckpt else 0))
        swept = {t.names[0] for t in graph.tracks.values() if t.kind == "sweep"}
        r.swept = [c for c in runs if c.name in swept]
        parts.append(r)
    return StudyPlan(study, seeds, profile, store, parts)
