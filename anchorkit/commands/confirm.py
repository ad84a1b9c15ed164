"""The confirmation of the report's answer (anchorkit.studies.rotated_basis.confirmation; its rule in
``calibration/second-regime/confirmation.md``): train its set, publish it, measure and judge it.
A study's verb kept with the reader's commands, not in the study's folder: its ``essay`` step
measures the essay study's column from the same runs, and one study's folder reads no other's.

usage: python -m anchorkit confirm train [--seeds 720 ... 743] [--scheduler ...]
       (the set's runs, both arms, as ensembles; finished runs are skipped, unfinished ones resume)
   or: python -m anchorkit confirm publish [--seeds ...] [--finished-only]
       (final weights and those of epochs 50 and 800 into published/, the index updated)
   or: python -m anchorkit confirm measure [--publish] [--scheduler ...]
       (every run read at epoch 800 and at its end, judged by the rule: the tables go to the run
       store's scratch folder, or with --publish to reports/<regime>/confirmation/)
   or: python -m anchorkit confirm essay [--publish] [--scheduler ...]
       (the essay's recalibrated column, issue 71: the set's runs at their initial, epoch-50 and
       final weights, and the recalibrated paper seeds' controls and falloff runs; to the scratch
       folder, or with --publish to reports/<regime>/geometry-of-anchors/)
"""

from __future__ import annotations

import argparse
import time

from anchorkit.engine.executor import resumable
from anchorkit.engine.published import publish_set
from anchorkit.core.config import ParameterError
from anchorkit.engine.request import check_seeds_of
from anchorkit.core.paths import REPORTS, check_writable
from anchorkit.core.store import RunStore, StoreError
from anchorkit.engine.executor import check_scheduler, execute, training_graph
from anchorkit.engine.provenance import read_tables, scratch_root, source_state, write_study
from anchorkit.studies.rotated_basis import confirmation as c

PUBLISHED_EPOCHS = (50, c.EARLIER)  # the weights published beside the final ones


def train(args) -> None:
    cfgs = c.runs(args.seeds)
    for cfg in cfgs:
        print(cfg.name, cfg.hash, flush=True)
    execute(training_graph(cfgs, RunStore()), args.scheduler, desc="confirmation")


def publish(args) -> None:
    print(publish_set(c.runs(args.seeds), c.REGIME.name, c.FOLDER, PUBLISHED_EPOCHS,
                      args.finished_only))


def measure(args) -> None:
    from anchorkit.studies.rotated_basis import confirming

    t0, source = time.perf_counter(), source_state()
    exploratory = read_tables(c.REGIME.reports(REPORTS) / "rotated-basis")["results"]
    read = confirming.readings(RunStore(), args.seeds, args.scheduler)
    tables = confirming.tables(read, exploratory)
    root = REPORTS if args.publish else scratch_root()
    where = c.REGIME.reports(root) / c.FOLDER
    write_study(where, tables, c.FOLDER, args.seeds, "paper", c.runs(args.seeds),
                time.perf_counter() - t0, source, c.REGIME.name, publish=args.publish)
    print(tables["outcome"].says.iloc[0])
    print(f"tables written to {where}")


def essay(args) -> None:
    from anchorkit.studies.essay import EARLY_EPOCH, measuring

    out = measuring.column_geometry(c.runs(), (EARLY_EPOCH,), RunStore(), args.scheduler,
                                    publish=args.publish)
    print(f"{out['heads'].run.nunique()} runs measured for the essay's "
          f"{measuring.COLUMN_REGIME.title} column"
          + (" (reports/)" if args.publish else " (the scratch folder)"))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("verb", choices=("train", "publish", "measure", "essay"))
    p.add_argument("--seeds", type=int, nargs="+", default=list(c.SEEDS))
    p.add_argument("--scheduler")
    p.add_argument("--finished-only", action="store_true", help="publish: the finished runs only")
    p.add_argument("--publish", action="store_true", help="measure: write the committed tables")
    args = p.parse_args(argv)
    try:
        check_seeds_of(args.seeds, c.SEEDS, "the confirmation's")
        check_scheduler(args.scheduler)
        if args.finished_only and args.verb != "publish":
            raise ParameterError("--finished-only", True, "applies to publish only")
        if args.verb == "essay" and args.seeds != list(c.SEEDS):
            raise ParameterError("--seeds", args.seeds, "essay measures the whole set")
        if args.publish and args.verb not in ("measure", "essay"):
            raise ParameterError("--publish", True, "applies to measure and essay only")
        check_writable("ANCHORKIT_STORE", RunStore().root)  # read-only, or a file: named first
    except ParameterError as e:
        p.error(str(e))
    try:
        {"train": train, "publish": publish, "measure": measure, "essay": essay}[args.verb](args)
    except (StoreError, OSError) as e:  # a file that does not verify, a disk that fills up
        p.exit(1, f"{p.prog}: error: {e}\n")


if __name__ == "__main__":
    resumable(main)
