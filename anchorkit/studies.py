"""The studies: which runs each one needs (in a regime, at a profile), and running one.

A study names runs by configuration only. Runs shared between studies (the plain-Adam control and
falloff runs are the stored twins of the rotated-basis study) have the same configuration and so
the same hash: they are loaded from the store, never retrained under another name.
"""

from __future__ import annotations

import pandas as pd

from anchorkit.config import ParameterError, RunConfig, TaskConfig, check_choice, check_seeds
from anchorkit.derived import derived_tables
from anchorkit.pairs import Pair
from anchorkit.provenance import read_tables, source_state, write_study, written_for
from anchorkit.train import train

STUDIES = ("control", "split-anti-seeds", "rotated-basis", "reference-baseline",
           "loss-rate-screen")
PAPER_SEEDS = list(range(704, 712))  # the seeds of the published runs
SCREEN_SEEDS = list(range(800, 840))  # the loss-rate screen's 40 seeds, disjoint from the paper's
DEFAULT_SEEDS = {**{s: PAPER_SEEDS for s in STUDIES}, "loss-rate-screen": SCREEN_SEEDS}
PROFILES = {
    # the paper's runs
    "paper": {"epochs": 400, "task": TaskConfig()},
    # a smoke run of the whole pipeline: few epochs, a small probe set
    "quick": {"epochs": 4, "task": TaskConfig(probe_per_op=64)},
}


def run_config(seed: int, recipe: str, optimizer: str, profile: str,
               epochs: int | None = None, regime: str | None = None) -> RunConfig:
    """The run of a study at a profile, in a regime (None: the weak-basis regime, whose runs keep
    their published hashes); ``epochs`` overrides the profile's (or the regime's)."""
    from anchorkit import regimes

    check_choice("profile", profile, tuple(PROFILES))
    settings = dict(PROFILES[profile])
    if regime in (None, regimes.WEAK):
        if epochs is not None:
            settings["epochs"] = epochs
        return RunConfig(seed=seed, recipe=recipe, optimizer=optimizer, **settings)
    # another regime: its changes, the compiled step at the paper profile (the eager one for a
    # quick smoke run), the regime's length unless given
    paper = profile == "paper"
    return regimes.configure(
        regime, seed, recipe, optimizer,
        epochs if epochs is not None else regimes.SECOND_EPOCHS if paper else settings["epochs"],
        step=regimes.STEP if paper else "eager", task=settings["task"])


def study_pairs(study: str, seeds, profile: str = "paper", epochs: int | None = None,
                regime: str | None = None) -> list[Pair]:
    """The (anchored, control) pairs a study measures; the control study pairs each control with
    itself (it has no anchored run)."""
    check_choice("study", study, STUDIES)
    seeds = check_seeds(seeds)
    cfg = lambda s, r, o: run_config(s, r, o, profile, epochs, regime)  # noqa: E731
    if study == "control":
        return [Pair(cfg(s, "control", "adam"), cfg(s, "control", "adam")) for s in seeds]
    if study == "split-anti-seeds":
        return [Pair(cfg(s, r, "adam"), cfg(s, "control", "adam"))
                for r in ("split-anti", "falloff") for s in seeds]
    if study == "rotated-basis":
        return [Pair(cfg(s, "falloff", o), cfg(s, "control", o))
                for o in ("rotated", "adam") for s in seeds]
    # reference-baseline (every coordinate axis swept) and the loss-rate screen (many seeds)
    return [Pair(cfg(s, "falloff", "adam"), cfg(s, "control", "adam")) for s in seeds]


def study_runs(study: str, seeds, profile: str = "paper", epochs: int | None = None,
               regime: str | None = None) -> list[RunConfig]:
    """Every distinct run the study reads, in a stable order."""
    out: dict[str, RunConfig] = {}
    for p in study_pairs(study, seeds, profile, epochs, regime):
        out.setdefault(p.anchored.hash, p.anchored)
        out.setdefault(p.control.hash, p.control)
    return list(out.values())


# ---------------------------------------------------------------------- executing a study
SWEEPS = {"control": False, "split-anti-seeds": False, "rotated-basis": True,
          "reference-baseline": True, "loss-rate-screen": False}


def run_study(study: str, seeds, profile: str = "paper", epochs: int | None = None,
              reports_dir=None, store=None, device: str = "cpu", progress: bool = True,
              reuse: bool = False, scheduler: str | None = None, regime: str | None = None,
              publish: bool = False) -> dict[str, pd.DataFrame]:
    """Train (or load) a study's runs, measure every pair, and write its tables atomically to
    ``reports_dir/<study>/`` (Parquet, with CSV beside) with ``provenance.json``; in a ``regime``
    other than the weak basis, to ``reports_dir/<regime>/<study>/``.

    The work runs through ``anchorkit.executor`` on ``scheduler`` (None: ``$ANCHORKIT_SCHEDULER``,
    else a LocalCluster of one single-thread worker per core; "in-process": no Dask); the tables
    do not depend on where it ran.

    With ``reuse``, tables already written there for exactly these runs are read back instead
    (nothing is trained or measured, and the provenance is left as it was). The committed
    ``reports/`` is written only with ``publish`` (``provenance.write_study``).
    """
    import time
    from pathlib import Path

    from anchorkit.executor import execute
    from anchorkit.pipeline import study_graph
    from anchorkit.store import RunStore

    t0 = time.perf_counter()
    source = source_state()
    seeds = check_seeds(seeds)
    pairs = study_pairs(study, seeds, profile, epochs, regime)
    runs = study_runs(study, seeds, profile, epochs, regime)
    if reports_dir is not None:
        from anchorkit.regimes import reports_path
        reports_dir = reports_path(reports_dir, regime)
    if reuse and reports_dir is not None and written_for(Path(reports_dir) / study, study, seeds,
                                                         profile, runs):
        return read_tables(Path(reports_dir) / study)
    store = store if store is not None else RunStore()
    graph = study_graph(runs, pairs, SWEEPS[study], store, device=device)
    measured_pairs = execute(graph, scheduler, progress, desc=study)
    tables: dict[str, list[pd.DataFrame]] = {}
    for key in graph.outputs:
        for name, df in measured_pairs[key].items():
            tables.setdefault(name, []).append(df)
    out = {name: pd.concat(dfs, ignore_index=True) for name, dfs in tables.items()}
    out["trajectories"] = pd.concat([store.load_trajectory(c) for c in runs], ignore_index=True)
    out.update(derived_tables(study, out))
    if reports_dir is not None:
        write_study(Path(reports_dir) / study, out, study, seeds, profile, runs,
                    time.perf_counter() - t0, source, regime, publish=publish)
    return out


def paper_set(study: str, seeds, profile: str, epochs: int | None = None) -> bool:
    """Whether these are the study's paper set, the runs its committed tables hold: its default
    seeds (in order) at the paper profile, with the same runs as at the profile's own epochs in
    every regime of the report."""
    from anchorkit.regimes import REPORT

    if list(seeds) != DEFAULT_SEEDS[study] or profile != "paper":
        return False
    return epochs is None or all(study_runs(study, seeds, profile, epochs, r)
                                 == study_runs(study, seeds, profile, None, r) for r in REPORT)


def written_regimes(study: str, seeds, profile: str, epochs: int | None, reports_dir,
                    regimes=None) -> bool:
    """Whether ``reports_dir`` holds these runs' tables in every regime the page would show
    (checked: a folder that does not verify is an error)."""
    from anchorkit.regimes import reports_path

    return all(written_for(reports_path(reports_dir, r) / study, study, seeds, profile,
                           study_runs(study, seeds, profile, epochs, r))
               for r in shown_regimes(study, seeds, profile, epochs, reports_dir, regimes))


def shown_regimes(study: str, seeds, profile: str = "paper", epochs: int | None = None,
                  reports_dir=None, regimes=None) -> list[str]:
    """The regimes a study's page shows, the weak-basis regime first: with ``regimes`` None, every
    regime of the report (``regimes.REPORT``) whose tables for these runs are written under
    ``reports_dir`` (the weak-basis one always, computing it if need be); else those named (a
    named regime without tables is computed)."""
    from pathlib import Path

    from anchorkit import regimes as catalogue

    if regimes is None:
        out = [catalogue.WEAK]
        for r in catalogue.REPORT[1:]:
            where = catalogue.reports_path(reports_dir, r) / study if reports_dir is not None else None
            if where is not None and written_for(Path(where), study, check_seeds(seeds), profile,
                                                 study_runs(study, seeds, profile, epochs, r)):
                out.append(r)
        return out
    if isinstance(regimes, str) or not list(regimes):
        raise ParameterError("regimes", regimes, "expected a list of regime names, or None")
    named = [catalogue.check_regime(r) for r in regimes]
    return [catalogue.WEAK] + [r for r in dict.fromkeys(named) if r != catalogue.WEAK]


# ---------------------------------------------------------------------- the essay's measurements
ESSAY = "geometry-of-anchors"
ESSAY_STUDIES = ("control", "split-anti-seeds", "rotated-basis", "reference-baseline")


def essay_runs(seeds, profile: str = "paper", epochs: int | None = None, store=None
               ) -> list[RunConfig]:
    """Every finished run of the paper's studies at these seeds (the essay measures what is
    stored; it trains nothing)."""
    from anchorkit.store import RunStore

    store = store if store is not None else RunStore()
    out: dict[str, RunConfig] = {}
    for s in ESSAY_STUDIES:
        for c in study_runs(s, seeds, profile, epochs):
            if store.has_final(c):
                out.setdefault(c.hash, c)
    return list(out.values())


def run_geometry(seeds, profile: str = "paper", epochs: int | None = None, reports_dir=None,
                 store=None, device: str = "cpu", progress: bool = True, reuse: bool = False,
                 publish: bool = False) -> dict[str, pd.DataFrame]:
    """The essay's measurements (the essay's page, notebooks/geometry-of-anchors.ipynb) on every stored run at these seeds, initial and final
    weights (and at the snapshots the store keeps of them): ``heads`` (per head and stage) and
    ``layers`` (per layer and measure, W_OV and W_QK), written to
    ``reports_dir/geometry-of-anchors/`` with ``provenance.json``."""
    import time
    from pathlib import Path

    from anchorkit import geometry
    from anchorkit.store import RunStore

    t0 = time.perf_counter()
    source = source_state()
    seeds = check_seeds(seeds)
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
        from tqdm.std import tqdm
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
