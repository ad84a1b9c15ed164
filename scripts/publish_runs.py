"""Copy the paper's runs (every run of the studies at seeds 704-711) from the run store to
``published/``, the committed weights a fresh clone measures without retraining; ``index.parquet``
(CSV beside) lists every published run with its regime.

usage: python -m scripts.publish_runs [--seeds 704 ... 711] [--studies control ...]
       [--regime R]         (the studies' runs in another regime than the weak basis)
       [--finished-only]    (a set still training: publish the finished runs, name the others)
       [--snapshots 50 800] (their weights at these epochs too, from the store's snapshots)
   or: python -m scripts.publish_runs --regime R --recipes falloff --optimizers adam rotated
       --seeds 720 ... 743 [--snapshots 50 800] [--finished-only]
       (runs that are no study's: regime R's own, as train_runs --regime trains them)
"""

from __future__ import annotations

import argparse

import pandas as pd

from anchorkit.engine.regimes import REGIMES, WEAK
from anchorkit.core.store import PUBLISHED, RunStore, write_table
from anchorkit.core.config import ParameterError, RunConfig, check_int, check_seeds
from anchorkit.engine.registry import PAPER_SEEDS, STUDIES, study_runs
from scripts.train_runs import regime_runs


def add_to_index(new: pd.DataFrame) -> None:
    """Add published runs' rows to ``published/index.parquet`` (CSV beside), one row per hash."""
    f = PUBLISHED / "index.parquet"
    old = pd.read_parquet(f) if f.exists() else new.iloc[:0]
    if "regime" not in old:
        old = old.assign(regime=WEAK.name)  # published before regimes were named: the weak basis
    index = (pd.concat([old, new], ignore_index=True).drop_duplicates("hash", keep="last")
             .sort_values(["regime", "run"], kind="stable"))
    write_table(f, index, csv=True, verified=False)


def publish_set(cfgs: list[RunConfig], regime: str, set_name: str | None = None,
                snapshots=(), finished_only: bool = False) -> str:
    """Publish these runs (their weights, and at ``snapshots`` too) and index them under
    ``regime`` (and ``set_name``, a set of runs that is no study's), all of them, or with
    ``finished_only`` the finished ones; one line saying what was published and left out. A run
    not finished is an error otherwise."""
    store = RunStore()
    missing = [c.name for c in cfgs if not store.has_final(c)]
    if missing and not finished_only:
        raise SystemExit(f"not finished in {store.root}: {', '.join(missing)}")
    done = {c.hash: c for c in cfgs if store.has_final(c)}
    for c in done.values():
        store.publish(c, snapshots=list(snapshots))
    new = pd.DataFrame([{"run": c.name, "hash": h, "seed": c.seed, "recipe": c.recipe,
                         "optimizer": c.optimizer, "epochs": c.epochs, "regime": regime,
                         **({"set": set_name} if set_name else {})} for h, c in done.items()])
    if done:  # nothing published: the index stays as it is
        add_to_index(new)
    return (f"published {len(done)} runs to {PUBLISHED}"
            + (f" with their weights at epochs {', '.join(map(str, snapshots))}" if snapshots
               else "")
            + (f"; not finished, left out: {', '.join(missing)}" if missing else ""))


def planned(args) -> list[RunConfig]:
    """The runs to publish: the studies' at the seeds in the regime, or, given --recipes and
    --optimizers, regime R's own runs (``train_runs.regime_runs``)."""
    if args.recipes or args.optimizers:
        if args.studies:
            raise ParameterError("--studies", args.studies, "give the studies or --recipes and "
                                 "--optimizers, not both")
        return regime_runs(argparse.Namespace(regime=args.regime, seeds=args.seeds, set=None,
                                              recipes=args.recipes, optimizers=args.optimizers,
                                              epochs=None))
    return [c for s in args.studies or list(STUDIES)
            for c in study_runs(s, args.seeds, "paper", regime=args.regime)]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, nargs="+", default=PAPER_SEEDS)
    p.add_argument("--studies", nargs="+", choices=tuple(STUDIES))
    p.add_argument("--regime", choices=tuple(REGIMES), default=WEAK.name)
    p.add_argument("--recipes", nargs="+", help="with --optimizers: regime R's own runs, no study's")
    p.add_argument("--optimizers", nargs="+")
    p.add_argument("--snapshots", type=int, nargs="+", default=[], metavar="EPOCH",
                   help="publish each run's weights at these epochs too")
    p.add_argument("--finished-only", action="store_true")
    args = p.parse_args(argv)
    try:
        check_seeds(args.seeds)
        for e in args.snapshots:
            check_int("--snapshots", e, 0)
        cfgs = planned(args)
    except ParameterError as e:
        p.error(str(e))
    print(publish_set(list({c.hash: c for c in cfgs}.values()), args.regime,
                      snapshots=args.snapshots, finished_only=args.finished_only))

if __name__ == "__main__":
    main()
