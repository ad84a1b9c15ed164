"""Running a study as a request asks (``request.Request``): train (or load) its runs, measure
every pair and write its tables, through the one graph path (``Study.graph`` on ``executor``);
which regimes its page shows; and the essay's measurements on the stored runs of the paper's
studies, a task per run on the same executor (``executor.each``).
"""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd

from anchorkit.measures import geometry
from anchorkit.core.config import RunConfig
from anchorkit.core.edit import DOSES
from anchorkit.executor import THREADS, each, execute, threads
from anchorkit.profiles import PAPER, Profile
from anchorkit.provenance import read_tables, source_state, write_study, written_for
from anchorkit.regimes import DEFAULT, REPORT, WEAK, Regime, regime as resolve_regime
from anchorkit.core.store import RunStore
from anchorkit.request import Request, request
from anchorkit.studies import STUDIES, Study, runs_of, study
from anchorkit.core.train import load_run


# ---------------------------------------------------------------------- executing a study
def run_study(name, seeds, profile="paper", epochs: int | None = None, reports_dir=None,
              store=None, device: str = "cpu", progress: bool = True, reuse: bool = False,
              scheduler: str | None = None, regime=DEFAULT, publish: bool = False, doses=None
              ) -> dict[str, pd.DataFrame]:
    """Train (or load) a study's runs, measure every pair, and write its tables (an entry point
    for scripts: the study and regime are looked up and the rest checked by ``request.request``,
    then ``compute_study``)."""
    return compute_study(study(name), resolve_regime(regime), request(
        seeds, profile, epochs, device, reports_dir, store, reuse, progress, scheduler,
        publish=publish, doses=doses))


def compute_study(s: Study, regime: Regime, req: Request) -> dict[str, pd.DataFrame]:
    """Train (or load) a study's runs in ``regime`` as ``req`` asks, measure every pair, and write
    its tables atomically to ``regime.reports(req.reports_dir)/<study>/`` (Parquet, with CSV
    beside) with ``provenance.json`` (nothing is written when ``req.reports_dir`` is None).

    The work is the study's graph (``Study.graph``) run through ``anchorkit.executor`` on
    ``req.scheduler`` (None: ``$ANCHORKIT_SCHEDULER``, else a LocalCluster of one single-thread
    worker per core; "in-process": no Dask); the tables do not depend on where it ran.
    ``req.doses``: those the e₁ edit is measured at (a reader's tweak of the method's
    ``edit.DOSES``, which re-reads the runs' weights and retrains nothing); tables at other doses
    record them in their provenance and are reused only at the same doses.

    With ``req.reuse``, tables already written there for exactly these runs are read back instead
    (nothing is trained or measured, and the provenance is left as it was). The committed
    ``reports/`` is written only with ``req.publish`` (``provenance.write_study``).
    """
    t0 = time.perf_counter()
    source = source_state()
    seeds = s.seeds_in(req.seeds, regime)
    pairs = s.pairs(seeds, req.profile, regime, req.epochs)
    runs = runs_of(pairs)
    where = regime.reports(req.reports_dir) / s.name if req.reports_dir is not None else None
    if req.reuse and where is not None and written_for(where, s.name, seeds, req.profile.name,
                                                       runs, analysis(req.doses)):
        return read_tables(where)
    graph = s.graph(pairs, req.store, device=req.device, doses=req.doses)
    measured_pairs = execute(graph, req.scheduler, req.progress, desc=s.name)
    tables: dict[str, list[pd.DataFrame]] = {}
    for key in graph.outputs:
        for table, df in measured_pairs[key].items():
            tables.setdefault(table, []).append(df)
    out = {table: pd.concat(dfs, ignore_index=True) for table, dfs in tables.items()}
    out["trajectories"] = pd.concat([req.store.load_trajectory(c) for c in runs],
                                    ignore_index=True)
    out.update(s.derive(out))
    if where is not None:
        write_study(where, out, s.name, seeds, req.profile.name, runs, time.perf_counter() - t0,
                    source, regime.recorded, publish=req.publish, extra=analysis(req.doses))
    return out


def analysis(doses) -> dict:
    """What a study's provenance records of its analysis values where they are not the method's
    (nothing at the method's doses, so that the committed provenance files keep their bytes)."""
    return {} if tuple(doses) == DOSES else {"doses": list(doses)}


def written_regimes(s: Study, seeds: list[int], profile: Profile, epochs: int | None,
                    reports_dir, shown: list[Regime]) -> bool:
    """Whether ``reports_dir`` holds these runs' tables in every regime ``shown`` (checked: a
    folder that does not verify is an error)."""
    return all(written_for(r.reports(reports_dir) / s.name, s.name, s.seeds_in(seeds, r),
                           profile.name, s.runs(seeds, profile, r, epochs)) for r in shown)


def shown_regimes(s: Study, seeds: list[int], profile: Profile = PAPER,
                  epochs: int | None = None, reports_dir=None, regimes=None) -> list[Regime]:
    """The regimes a study's page shows, the default regime first: with ``regimes`` None, every
    regime of the report (``regimes.REPORT``) whose tables for these runs are written under
    ``reports_dir`` (the default one always, computing it if need be); else those named (checked
    values, ``request.check_regimes``: a named regime without tables is computed)."""
    if regimes is None:
        return [DEFAULT] + [r for r in REPORT[1:] if reports_dir is not None and written_for(
            r.reports(reports_dir) / s.name, s.name, s.seeds_in(seeds, r), profile.name,
            s.runs(seeds, profile, r, epochs))]
    return [DEFAULT] + [r for r in regimes if r != DEFAULT]


# ---------------------------------------------------------------------- the essay's measurements
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
