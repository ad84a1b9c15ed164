"""The essay's measurements (its page, notebooks/geometry-of-anchors.ipynb): every stored run of
the paper's studies (``ESSAY_STUDIES``) in the weak-basis regime at the request's seeds, a task
per run (``essay_task``) on the executor (``executor.each``); the essay trains nothing. Its
predictions, judged on these tables, are the package's (``anchorkit.studies.essay``).
"""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd

from anchorkit.core.config import RunConfig
from anchorkit.core.store import RunStore
from anchorkit.core.train import load_run
from anchorkit.executor import THREADS, each, threads
from anchorkit.measures import geometry
from anchorkit.profiles import PAPER, Profile
from anchorkit.provenance import read_tables, source_state, write_study, written_for
from anchorkit.regimes import WEAK
from anchorkit.request import Request
from anchorkit.studies import STUDIES  # the studies whose runs it measures
from anchorkit.study import PAPER_SEEDS

ESSAY = "geometry-of-anchors"
ESSAY_REGIME = WEAK  # the regime whose runs the essay page measures (its first screen names it)
ESSAY_STUDIES = tuple(STUDIES[s] for s in ("control", "split-anti-seeds", "rotated-basis",
                                           "reference-baseline"))


def essay_runs(seeds, profile: Profile = PAPER, epochs: int | None = None, store=None
               ) -> list[RunConfig]:
    """Every finished run of the paper's studies at these seeds (the essay measures what is
    stored; it trains nothing)."""
    store = store if store is not None else RunStore()
    out: dict[str, RunConfig] = {}
    for s in ESSAY_STUDIES:
        for c in s.runs(seeds, profile, ESSAY_REGIME, epochs):
            if store.has_final(c):
                out.setdefault(c.hash, c)
    return list(out.values())


def essay_task(cfg: RunConfig, store, device: str) -> dict[str, pd.DataFrame]:
    """One stored run's rows of the essay's tables: ``heads`` at its initial and final weights and
    at the snapshots the store keeps between them, and ``layers`` of every kind of map."""
    with threads(THREADS):
        run = load_run(cfg, store)  # stored and finished: the essay trains nothing
        snapshots = {cfg.hash: {e: store.load_snapshot(cfg, e) for e in store.snapshot_epochs(cfg)
                                if 0 < e < cfg.epochs}}  # epoch 0 is the initial weights
        return {"heads": geometry.head_table([run], device=device, snapshots=snapshots),
                **{k: geometry.layer_table([run], kind=k, device=device)
                   for k in geometry.MAP_KINDS}}


def run_geometry(req: Request) -> dict[str, pd.DataFrame]:
    """The essay's measurements (the essay's page, notebooks/geometry-of-anchors.ipynb) on every
    stored run at the request's seeds, a task per run (``essay_task``) through the executor
    (``executor.each``): ``heads`` (per head and stage) and ``layers`` (per layer and measure,
    W_OV and W_QK, each kind's rows run by run), written to
    ``req.reports_dir/geometry-of-anchors/`` with ``provenance.json``."""
    t0 = time.perf_counter()
    source = source_state()
    runs = essay_runs(req.seeds, req.profile, req.epochs, req.store)
    if not runs:
        raise ValueError(f"no finished runs at seeds {req.seeds} ({req.profile.name}) in "
                         f"{req.store.root}")
    where = Path(req.reports_dir) / ESSAY if req.reports_dir is not None else None
    if req.reuse and where is not None and written_for(where, ESSAY, req.seeds, req.profile.name,
                                                       runs):
        return read_tables(where)
    measured = each(essay_task, runs, req.store, req.device, scheduler=req.scheduler,
                    progress=req.progress, desc=ESSAY)
    out = {"heads": pd.concat([m["heads"] for m in measured], ignore_index=True),
           "layers": pd.concat([m[k] for k in geometry.MAP_KINDS for m in measured],
                               ignore_index=True)}
    if where is not None:
        write_study(where, out, ESSAY, req.seeds, req.profile.name, runs,
                    time.perf_counter() - t0, source, publish=req.publish)
    return out


def paper_written(reports: Path) -> bool:
    """Whether a reports folder holds the essay's tables of every stored run at the paper seeds."""
    return written_for(Path(reports) / ESSAY, ESSAY, PAPER_SEEDS, PAPER.name,
                       essay_runs(PAPER_SEEDS))
