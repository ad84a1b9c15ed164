"""The measuring tasks of a study's graph (``Study.graph``, after each ensemble's training task):
answer every run (its ``base`` answers, and its sweep in slices of directions), then measure each
pair once the answers of its two runs are cached. Every task reads its inputs from the run store
and writes its outputs there (``anchorkit.engine.executor`` runs the graph in-process or on Dask), so a
finished task is a load and a lost one runs again.
"""

from __future__ import annotations

import pandas as pd
import torch

from anchorkit.core import progress as tracking
from anchorkit.core.config import RunConfig
from anchorkit.engine.executor import THREADS, threads
from anchorkit.engine.pairs import SWEEP_CHUNK, Pair, measured
from anchorkit.core.train import load_model
from anchorkit.measures.answers import cached_answers, answers_key, sweep_answers

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
