"""Running a study: train (or load) its runs, measure every pair and write its tables, through
the one graph path (``pipeline.study_graph`` on ``executor``); which regimes its page shows; and
the essay's measurements on the stored runs of the paper's studies.
"""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd
from tqdm.std import tqdm

from anchorkit.measures import geometry
from anchorkit.core.config import ParameterError, RunConfig, check_doses, check_seeds
from anchorkit.core.edit import DOSES
from anchorkit.executor import execute
from anchorkit.pipeline import study_graph
from anchorkit.profiles import PAPER, Profile, profile as resolve_profile
from anchorkit.provenance import read_tables, source_state, write_study, written_for
from anchorkit.regimes import DEFAULT, REPORT, WEAK, Regime, regime as resolve_regime
from anchorkit.core.store import RunStore
from anchorkit.studies import STUDIES, Study, runs_of, study
from anchorkit.core.train import train


# ---------------------------------------------------------------------- executing a study
def run_study(name, seeds, profile="paper", epochs: int | None = None, reports_dir=None,
              store=None, device: str = "cpu", progress: bool = True, reuse: bool = False,
              scheduler: str | None = None, regime=DEFAULT, publish: bool = False, doses=DOSES
              ) -> dict[str, pd.DataFrame]:
    """Train (or load) a study's runs, measure every pair, and write its tables (an entry point:
    the study, seeds, profile, regime and doses are checked here, then ``compute_study``)."""
    return compute_study(study(name), check_seeds(seeds), resolve_profile(profile),
                         resolve_regime(regime), epochs, reports_dir, store, device, progress,
                         reuse, scheduler, publish, check_doses(doses))


def compute_study(s: Study, seeds: list[int], profile: Profile, regime: Regime,
                  epochs: int | None = None, reports_dir=None, store=None, device: str = "cpu",
                  progress: bool = True, reuse: bool = False, scheduler: str | None = None,
                  publish: bool = False, doses: tuple[float, ...] = DOSES
                  ) -> dict[str, pd.DataFrame]:
    """Train (or load) a study's runs, measure every pair, and write its tables atomically to
    ``regime.reports(reports_dir)/<study>/`` (Parquet, with CSV beside) with ``provenance.json``.

    The work runs through ``anchorkit.executor`` on ``scheduler`` (None: ``$ANCHORKIT_SCHEDULER``,
    else a LocalCluster of one single-thread worker per core; "in-process": no Dask); the tables
    do not depend on where it ran. ``doses``: those the e₁ edit is measured at (a reader's tweak
    of the method's ``edit.DOSES``, which re-reads the runs' weights and retrains nothing);
    tables at other doses record them in their provenance and are reused only at the same doses.

    With ``reuse``, tables already written there for exactly these runs are read back instead
    (nothing is trained or measured, and the provenance is left as it was). The committed
    ``reports/`` is written only with ``publish`` (``provenance.write_study``).
    """
    t0 = time.perf_counter()
    source = source_state()
    seeds = s.seeds_in(seeds, regime)
    pairs = s.pairs(seeds, profile, regime, epochs)
    runs = runs_of(pairs)
    where = regime.reports(reports_dir) / s.name if reports_dir is not None else None
    if reuse and where is not None and written_for(where, s.name, seeds, profile.name, runs,
                                                   analysis(doses)):
        return read_tables(where)
    store = store if store is not None else RunStore()
    graph = study_graph(runs, pairs, s.sweep, store, device=device, doses=doses)
    measured_pairs = execute(graph, scheduler, progress, desc=s.name)
    tables: dict[str, list[pd.DataFrame]] = {}
    for key in graph.outputs:
        for table, df in measured_pairs[key].items():
            tables.setdefault(table, []).append(df)
    out = {table: pd.concat(dfs, ignore_index=True) for table, dfs in tables.items()}
    out["trajectories"] = pd.concat([store.load_trajectory(c) for c in runs], ignore_index=True)
    out.update(s.derive(out))
    if where is not None:
        write_study(where, out, s.name, seeds, profile.name, runs, time.perf_counter() - t0,
                    source, regime.recorded, publish=publish,
                    extra=analysis(doses))
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
    """The regimes a study's page shows, the weak-basis regime first: with ``regimes`` None, every
    regime of the report (``regimes.REPORT``) whose tables for these runs are written under
    ``reports_dir`` (the weak-basis one always, computing it if need be); else those named (a
    named regime without tables is computed; names are checked here)."""
    if regimes is None:
        return [DEFAULT] + [r for r in REPORT[1:] if reports_dir is not None and written_for(
            r.reports(reports_dir) / s.name, s.name, s.seeds_in(seeds, r), profile.name,
            s.runs(seeds, profile, r, epochs))]
    if isinstance(regimes, (str, Regime)) or not list(regimes):
        raise ParameterError("regimes", regimes, "expected a list of regime names, or None")
    named = [resolve_regime(r) for r in regimes]
    return [DEFAULT] + [r for r in dict.fromkeys(named) if r != DEFAULT]


# ---------------------------------------------------------------------- the essay's measurements
ESSAY = "geometry-of-anchors"
ESSAY_REGIME = WEAK  # the regime whose runs the essay page measures (its first screen names it)
ESSAY_STUDIES = tuple(STUDIES[s] for s in ("control", "split-anti-seeds", "rotated-basis",
                                           "reference-baseline"))


def essay_runs(seeds, profile="paper", epochs: int | None = None, store=None
               ) -> list[RunConfig]:
    """Every finished run of the paper's studies at these seeds (the essay measures what is
    stored; it trains nothing)."""
    store = store if store is not None else RunStore()
    seeds, profile = check_seeds(seeds), resolve_profile(profile)
    out: dict[str, RunConfig] = {}
    for s in ESSAY_STUDIES:
        for c in s.runs(seeds, profile, ESSAY_REGIME, epochs):
            if store.has_final(c):
                out.setdefault(c.hash, c)
    return list(out.values())


def run_geometry(seeds, profile="paper", epochs: int | None = None, reports_dir=None,
                 store=None, device: str = "cpu", progress: bool = True, reuse: bool = False,
                 publish: bool = False) -> dict[str, pd.DataFrame]:
    """The essay's measurements (the essay's page, notebooks/geometry-of-anchors.ipynb) on every
    stored run at these seeds, initial and final weights (and at the snapshots the store keeps of
    them): ``heads`` (per head and stage) and ``layers`` (per layer and measure, W_OV and W_QK),
    written to ``reports_dir/geometry-of-anchors/`` with ``provenance.json``."""
    t0 = time.perf_counter()
    source = source_state()
    seeds, profile = check_seeds(seeds), resolve_profile(profile).name
    store = store if store is not None else RunStore()
    runs = essay_runs(seeds, profile, epochs, store)
    if not runs:
        raise ValueError(f"no finished runs at seeds {seeds} ({profile}) in {store.root}")
    where = Path(reports_dir) / ESSAY if reports_dir is not None else None
    if reuse and where is not None and written_for(where, ESSAY, seeds, profile, runs):
        return read_tables(where)
    trained = train(runs, store, device=device, progress=False)  # all finished: loads them
    iterator = trained
    if progress:
        iterator = tqdm(trained, desc="measuring heads")
    # the snapshots between start and end (epoch 0 is the initial weights, already loaded)
    heads = pd.concat([geometry.head_table([r], device=device, snapshots={
        r.config.hash: {e: store.load_snapshot(r.config, e)
                        for e in store.snapshot_epochs(r.config) if 0 < e < r.config.epochs}})
        for r in iterator], ignore_index=True)
    layers = pd.concat([geometry.layer_table(trained, kind=k, device=device)
                        for k in geometry.MAP_KINDS], ignore_index=True)
    out = {"heads": heads, "layers": layers}
    if where is not None:
        write_study(where, out, ESSAY, seeds, profile, runs, time.perf_counter() - t0, source,
                    publish=publish)
    return out
