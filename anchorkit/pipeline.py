"""A study as a graph of tasks: train each ensemble of unfinished runs, answer every run (its
``base`` answers, and its sweep in slices of directions), then measure each pair once the answers
of its two runs are cached. Every task reads its inputs from the run store and writes its outputs
there (``anchorkit.executor`` runs the graph in-process or on Dask), so a finished task is a load
and a lost one runs again.
"""

from __future__ import annotations

import pandas as pd
import torch

from anchorkit.core import progress as tracking
from anchorkit.core.config import RunConfig
from anchorkit.core.edit import DOSES
from anchorkit.executor import ENSEMBLE_RUNS, THREADS, Graph, add_training, threads
from anchorkit.pairs import SWEEP_CHUNK, Pair, measured
from anchorkit.core.train import load_model
from anchorkit.measures.answers import (cached_part, cached_answers, n_sweep_directions,
                                        answers_key, sweep_answers)

SWEEP_SLICE = 36  # directions per sweep task (143 directions: four tasks per run)


def base_task(cfg: RunConfig, store, doses, *after) -> str:
    """A run's ``base`` answers (e₁ at ``doses``), computed into the store's cache unless already
    there."""
    with threads(THREADS):
        cached_answers(cfg, store.load_final(cfg), ("base",), store, doses=doses)
    return cfg.hash


def sweep_task(cfg: RunConfig, store, start: int, stop: int, *after) -> torch.Tensor:
    """The sweep answers of directions ``start:stop`` of a run, reporting each direction swept
    (each is projected out on its own, so the answers equal those of one call)."""
    state, track = store.load_final(cfg), tracking.sweep_track(store, cfg, start, stop)
    model = load_model([cfg], [state])
    out = []
    with threads(THREADS):
        for a in range(start, stop):
            out.append(sweep_answers(cfg, state, a, a + 1, SWEEP_CHUNK, model))
            tracking.report(track, a + 1 - start)
    return torch.cat(out)


def save_sweep_task(cfg: RunConfig, store, *slices: torch.Tensor) -> str:
    """Cache a run's sweep answers from its slices, in order."""
    store.save_answers(answers_key(cfg, "sweep", store.load_final(cfg)),
                           {"sweep": torch.cat(slices)})
    return cfg.hash


def pair_task(pair: Pair, sweep: bool, store, doses, *after) -> dict[str, pd.DataFrame]:
    """A pair's tables, derived from its runs' cached answers (e₁ at ``doses``)."""
    with threads(THREADS):
        out = measured(pair, sweep, store, doses)
    tracking.report(tracking.pair_track(store, pair), 1)
    return out


def study_graph(runs: list[RunConfig], pairs: list[Pair], sweep: bool, store,
                size: int = ENSEMBLE_RUNS, device: str = "cpu", doses=DOSES) -> Graph:
    """Train the unfinished runs; answer every run (base, with e₁ at ``doses``, and the sweep in
    slices) whose answers are not cached; measure every pair once both its runs are answered."""
    g = Graph()
    trained_by = add_training(g, runs, store, device, size=size)
    answered: dict[str, list] = {}
    for c in runs:
        after = [trained_by[c.hash]] if c.hash in trained_by else []
        done = []
        if c.hash in trained_by or cached_part(c, "base", store, doses=doses) is None:
            done.append(g.add(f"base-{c.hash}", base_task, c, store, doses, *after))
        if sweep and (c.hash in trained_by or cached_part(c, "sweep", store) is None):
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
        ref = g.output(f"pair-{i}", pair_task, p, sweep, store, doses, *deps)
        g.tracks[ref.key] = tracking.pair_track(store, p)
    return g
