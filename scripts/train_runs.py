"""Train a set of runs into the run store (calibration runs, or a study's runs ahead of its notebook).

usage: python -m scripts.train_runs --seeds 1 2 --recipes control falloff --optimizers adam
       [--epochs 400] [--set key=value ...]   (key: a ModelConfig/TrainConfig/TaskConfig field)
       [--ignore-published]   (retrain runs that published/ holds, e.g. to keep their snapshots)
"""

from __future__ import annotations

import argparse
import dataclasses

import torch

from anchorkit import ModelConfig, RunConfig, TaskConfig, TrainConfig
from anchorkit.store import RunStore
from anchorkit.train import train


def configs_from_args(args) -> list[RunConfig]:
    overrides = {"model": {}, "train": {}, "task": {}}
    fields = {name: {f.name: f.type for f in dataclasses.fields(cls)}
              for name, cls in (("model", ModelConfig), ("train", TrainConfig), ("task", TaskConfig))}
    for item in args.set or []:
        key, value = item.split("=", 1)
        for part, names in fields.items():
            if key in names:
                caster = {"int": int, "float": float, "str": str}[names[key]]
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


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    p.add_argument("--recipes", nargs="+", default=["control", "falloff"])
    p.add_argument("--optimizers", nargs="+", default=["adam"])
    p.add_argument("--epochs", type=int, default=400)
    p.add_argument("--set", nargs="*")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--ignore-published", action="store_true",
                   help="train runs found in published/ again (their weights keep no snapshots)")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    cfgs = configs_from_args(args)
    for c in cfgs:
        print(c.name, c.hash, flush=True)
    train(cfgs, RunStore(published=None) if args.ignore_published else RunStore())


if __name__ == "__main__":
    main()
