"""The basis-free arm (anchorkit.studies.rotated_basis.basis_free; its rule in
``calibration/basis-free/rule.md``, its predictions in ``predictions.md``, both committed before
its runs): its calibration, then its paper set.

usage: python -m anchorkit basis-free calibrate [--publish] [--scheduler ...]
       (trains what the rule waits for, in its order, until it decides; the scores and the
       decision go to the run store's scratch folder, or with --publish to
       calibration/basis-free/)
   or: python -m anchorkit basis-free train [--seeds 704 ...] [--scheduler ...]
       (the paper set at the learning rate the committed decision chose: the control and the
       regime's falloff at its paper seeds; finished runs are skipped, unfinished ones resume)
   or: python -m anchorkit basis-free publish [--seeds 704 ...] [--finished-only]
       (its finished paper runs' weights to published/, indexed as the set "basis-free")
   or: python -m anchorkit basis-free measure [--publish] [--scheduler ...]
       (its finished pairs measured with the sweep and judged by the committed predictions with
       the other two arms' tables: to the scratch folder, or with --publish to
       reports/<regime>/basis-free/)
"""

from __future__ import annotations

import argparse
import json
import time

from anchorkit.engine.executor import resumable
from anchorkit.core.config import ParameterError
from anchorkit.engine.request import check_seeds_of
from anchorkit.core.paths import check_writable
from anchorkit.core.store import RunStore, StoreError
from anchorkit.engine.executor import check_scheduler, execute, training_graph
from anchorkit.core.paths import REPORTS
from anchorkit.engine.provenance import read_tables, scratch_root, source_state, write_study
from anchorkit.studies.rotated_basis import basis_free as bf

COMMITTED = bf.COMMITTED


def calibrate(args) -> None:
    store = RunStore()
    while (d := bf.decide(scores := bf.scores(store)))["verdict"] == bf.PENDING:
        lr, recipes = d["waiting"]
        cfgs = bf.runs(lr, recipes)
        print(f"training {len(cfgs)} runs at learning rate {lr:g} ({', '.join(recipes)})",
              flush=True)
        execute(training_graph(cfgs, store), args.scheduler, desc="basis-free calibration")
    out = COMMITTED if args.publish else scratch_root() / "basis-free"
    out.mkdir(parents=True, exist_ok=True)
    scores.to_csv(out / "scores.csv", index=False, float_format="%.6g")
    (out / "decision.md").write_text(bf.decision_text(scores))
    (out / "decision.json").write_text(json.dumps({"verdict": d["verdict"], "lr": d["lr"]}) + "\n")
    print(bf.decision_text(scores))
    print(f"written to {out}")


def train(args) -> None:
    cfgs = [c for c in bf.paper_runs(args.lr) if c.seed in args.seeds]
    for cfg in cfgs:
        print(cfg.name, cfg.hash, flush=True)
    execute(training_graph(cfgs, RunStore()), args.scheduler, desc="basis-free paper set")


def publish(args) -> None:
    from anchorkit.studies.rotated_basis.third_arm import FOLDER
    from anchorkit.engine.published import publish_set

    cfgs = [c for c in bf.paper_runs(args.lr) if c.seed in args.seeds]
    print(publish_set(cfgs, bf.REGIME.name, FOLDER, finished_only=args.finished_only))


def measure(args) -> None:
    from anchorkit.studies.rotated_basis import third_arm

    t0, source, store = time.perf_counter(), source_state(), RunStore()
    cfgs = [c for c in bf.paper_runs(args.lr) if store.has_final(c)]
    others = read_tables(bf.REGIME.reports(REPORTS) / "rotated-basis")
    out = third_arm.tables(third_arm.measure(cfgs, store, args.scheduler), others)
    root = REPORTS if args.publish else scratch_root()
    where = bf.REGIME.reports(root) / third_arm.FOLDER
    write_study(where, out, third_arm.FOLDER, sorted({c.seed for c in cfgs}), "paper", cfgs,
                time.perf_counter() - t0, source, bf.REGIME.name, publish=args.publish)
    print(out["question"].to_string(index=False))
    print(f"tables written to {where}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("verb", choices=("calibrate", "train", "publish", "measure"))
    p.add_argument("--seeds", type=int, nargs="+", default=list(bf.PAPER_SEEDS))
    p.add_argument("--scheduler")
    p.add_argument("--publish", action="store_true",
                   help="calibrate, measure: write the committed record or tables")
    p.add_argument("--finished-only", action="store_true",
                   help="publish: the finished runs only, naming the others")
    args = p.parse_args(argv)
    try:
        check_seeds_of(args.seeds, bf.PAPER_SEEDS, "the paper set's")
        check_scheduler(args.scheduler)
        if args.verb == "calibrate" and args.seeds != list(bf.PAPER_SEEDS):
            raise ParameterError("--seeds", args.seeds, "calibrate trains the rule's seeds")
        if args.publish and args.verb in ("train", "publish"):
            raise ParameterError("--publish", True, "applies to calibrate and measure only")
        if args.finished_only and args.verb != "publish":
            raise ParameterError("--finished-only", True, "applies to publish only")
        if args.verb == "measure" and args.seeds != list(bf.PAPER_SEEDS):
            raise ParameterError("--seeds", args.seeds, "measure reads every finished pair")
        if args.verb in ("train", "publish", "measure"):
            args.lr = bf.chosen_rate()
        check_writable("ANCHORKIT_STORE", RunStore().root)
    except ParameterError as e:
        p.error(str(e))
    try:
        {"calibrate": calibrate, "train": train, "publish": publish,
         "measure": measure}[args.verb](args)
    except (StoreError, OSError) as e:
        p.exit(1, f"{p.prog}: error: {e}\n")


if __name__ == "__main__":
    resumable(main)
