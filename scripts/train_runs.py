"""Train a set of runs into the run store (calibration runs, or a study's runs ahead of its notebook).

The runs are trained through ``anchorkit.executor``: on a LocalCluster of one single-thread worker
per core, or on the Dask cluster named by ``--scheduler`` / ``$ANCHORKIT_SCHEDULER``. Finished runs
are skipped and unfinished ones resume from their last checkpoint, so it can be rerun after a stop.

usage: python -m scripts.train_runs --seeds 1 2 --recipes control falloff --optimizers adam
       [--epochs 400] [--set key=value ...]   (key: a ModelConfig/TrainConfig/TaskConfig field)
       [--ignore-published]   (retrain runs that published/ holds, e.g. to keep their snapshots)
       [--scheduler in-process|tcp://host:8786]
   or: python -m scripts.train_runs --study loss-rate-screen [--seeds 800 801 ...]
       (every run of a study at the paper profile, its default seeds unless given)
"""

from __future__ import annotations

import argparse
import dataclasses

from anchorkit import ModelConfig, RunConfig, TaskConfig, TrainConfig
from anchorkit.executor import execute, training_graph
from anchorkit.store import RunStore
from anchorkit.studies import DEFAULT_SEEDS, STUDIES, study_runs


def configs_from_args(args) -> list[RunConfig]:
    overrides = {"model": {}, "train": {}, "task": {}}
    fields = {name: {f.name: f.type for f in dataclasses.fields(cls)}
              for name, cls in (("model", ModelConfig), ("train", TrainConfig), ("task", TaskConfig))}
    for item in args.set or []:
        key, value = item.split("=", 1)
        for part, names in fields.items():
            if key in names:
                caster = {"int": int, "float": float, "str": str,
                          "bool": lambda v: {"true": True, "false": False}[v.lower()]}[names[key]]
                overrides[part][key] = caster(value)
                break
        else:
            raise SystemExit(f"unknown setting {key!r}")
    model = ModelConfig(**overrides["model"])
    tr = TrainConfig(**overrides["train"])
    task = TaskConfig(**overrides["task"])
    return [RunConfig(seed=s, recipe=r, optimizer=o, epochs=args.epochs, model=model, train=tr,
                      task=task)
            for o in args.optimizers for r in args.recipes for s in args.seeds]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--study", choices=STUDIES, help="train every run of this study (paper profile)")
    p.add_argument("--seeds", type=int, nargs="+")
    p.add_argument("--recipes", nargs="+", default=["control", "falloff"])
    p.add_argument("--optimizers", nargs="+", default=["adam"])
    p.add_argument("--epochs", type=int, default=400)
    p.add_argument("--set", nargs="*")
    p.add_argument("--scheduler", help="a Dask scheduler's address, or in-process "
                   "(default: $ANCHORKIT_SCHEDULER, else a LocalCluster)")
    p.add_argument("--ignore-published", action="store_true",
                   help="train runs found in published/ again (their weights keep no snapshots)")
    args = p.parse_args(argv)
    if args.study:
        cfgs = study_runs(args.study, args.seeds or DEFAULT_SEEDS[args.study], "paper")
    else:
        args.seeds = args.seeds or [1, 2]
        cfgs = configs_from_args(args)
    for c in cfgs:
        print(c.name, c.hash, flush=True)
    store = RunStore(published=None) if args.ignore_published else RunStore()
    execute(training_graph(cfgs, store), args.scheduler, desc="training")


if __name__ == "__main__":
    main()
