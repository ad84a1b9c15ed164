"""Copy the paper's runs (every run of the studies at seeds 704-711) from the run store to
``published/``, the committed weights a fresh clone measures without retraining; ``index.parquet``
(CSV beside) lists every published run with its regime.

usage: python -m anchorkit publish [--seeds 704 ... 711] [--studies control ...]
       [--regime R]         (the studies' runs in another regime than the weak basis)
       [--finished-only]    (a set still training: publish the finished runs, name the others)
       [--snapshots 50 800] (their weights at these epochs too, from the store's snapshots)
   or: python -m anchorkit publish --regime R --recipes falloff --optimizers adam rotated
       --seeds 720 ... 743 [--snapshots 50 800] [--finished-only]
       (runs that are no study's: regime R's own, as `train --regime` trains them)
"""

from __future__ import annotations

import argparse

from anchorkit.engine.regimes import DEFAULT, REGIMES
from anchorkit.core.config import ParameterError, RunConfig, check_int, check_seeds
from anchorkit.engine.registry import PAPER_SEEDS, STUDIES, study_runs
from anchorkit.commands.train_runs import regime_runs
from anchorkit.engine.published import publish_set


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
    p.add_argument("--regime", choices=tuple(REGIMES), default=DEFAULT.name)
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
