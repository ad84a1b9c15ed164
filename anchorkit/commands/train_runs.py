"""Train a set of runs into the run store (calibration runs, or a study's runs ahead of its notebook).

The runs are trained through ``anchorkit.engine.executor``: on a LocalCluster of one single-thread worker
per core, or on the Dask cluster named by ``--scheduler`` / ``$ANCHORKIT_SCHEDULER``. Finished runs
are skipped and unfinished ones resume from their last checkpoint, so it can be rerun after a stop.

usage: python -m anchorkit train --seeds 1 2 --recipes control falloff --optimizers adam
       [--epochs 400] [--set key=value ...]   (key: a ModelConfig/TrainConfig/TaskConfig field)
       (every value is checked before any work starts; a bad one is named in one line)
       [--ignore-published]   (retrain runs that published/ holds, e.g. to keep their snapshots)
       [--scheduler in-process|tcp://host:8786]
   or: python -m anchorkit train --study loss-rate-screen [--seeds 800 801 ...] [--regime R]
       (every run of a study at the paper profile, its default seeds unless given; the per-run
       flags --epochs, --recipes, --optimizers and --set are refused with --study)
   or: python -m anchorkit train --regime R --seeds 720 721 ... --recipes falloff
       --optimizers adam rotated [--epochs N]
       (runs in regime R's settings, its recipe in place of a study's name for it and its own
       length unless given: the confirmation's set; --set is refused with --regime)
"""

from __future__ import annotations

import argparse
import dataclasses

from anchorkit.engine.executor import resumable
from anchorkit import ModelConfig, RunConfig, TaskConfig, TrainConfig
from anchorkit.core.config import RECIPES, ParameterError, check_choice, check_int, check_seeds
from anchorkit.core.paths import check_writable
from anchorkit.engine.executor import check_scheduler, execute, training_graph
from anchorkit.engine.regimes import REGIMES
from anchorkit.core.store import RunStore, StoreError
from anchorkit.engine.registry import STUDIES, study_runs
from anchorkit.core import optimizers


def parse_setting(item: str, fields: dict) -> tuple[str, str, object]:
    """``key=value`` of ``--set`` → (part of the configuration, key, typed value); a
    ParameterError naming the setting otherwise."""
    if "=" not in item:
        raise ParameterError("--set", item, "expected key=value, e.g. lr=0.01")
    key, value = item.split("=", 1)
    part = next((p for p, names in fields.items() if key in names), None)
    if part is None:
        known = sorted(n for names in fields.values() for n in names)
        raise ParameterError("--set", item, f"unknown setting {key!r} (known: {', '.join(known)})")
    kind = fields[part][key]
    try:
        if kind == "bool":
            typed = {"true": True, "false": False}[value.lower()]
        else:
            typed = {"int": int, "float": float, "str": str}[kind](value)
    except (KeyError, ValueError):
        expected = "true or false" if kind == "bool" else f"a value of type {kind}"
        raise ParameterError(key, value, f"expected {expected}") from None
    return part, key, typed


def configs_from_args(args) -> list[RunConfig]:
    overrides = {"model": {}, "train": {}, "task": {}}
    fields = {name: {f.name: f.type for f in dataclasses.fields(cls)}
              for name, cls in (("model", ModelConfig), ("train", TrainConfig), ("task", TaskConfig))}
    for item in args.set or []:
        part, key, value = parse_setting(item, fields)
        overrides[part][key] = value
    model = ModelConfig(**overrides["model"])
    tr = TrainConfig(**overrides["train"])
    task = TaskConfig(**overrides["task"])
    check_int("epochs", args.epochs, 1)
    for r in args.recipes:
        check_choice("recipe", r, RECIPES)
    for o in args.optimizers:
        check_choice("optimizer", o, optimizers.names())
    return [RunConfig(seed=s, recipe=r, optimizer=o, epochs=args.epochs, model=model, train=tr,
                      task=task)
            for o in args.optimizers for r in args.recipes for s in args.seeds]


PER_RUN = ("epochs", "recipes", "optimizers", "set")  # flags that describe runs one by one


def regime_runs(args) -> list[RunConfig]:
    """The runs of ``--regime`` at the given seeds, recipes and optimizers, in the regime's own
    settings (``Regime.settings``: its recipe in place of a study's name for it, its length and
    step unless ``--epochs`` is given)."""
    if args.set:
        raise ParameterError("--set", args.set, "a regime's runs take the regime's settings; "
                             "without --regime give the settings with --set")
    missing = [f"--{f}" for f in ("seeds", "recipes", "optimizers") if not getattr(args, f)]
    if missing:
        raise ParameterError("--regime", args.regime, f"names runs by {', '.join(missing)} too")
    if args.epochs is not None:
        check_int("epochs", args.epochs, 1)
    for r in args.recipes:
        check_choice("recipe", r, RECIPES)
    for o in args.optimizers:
        check_choice("optimizer", o, optimizers.names())
    regime = REGIMES[args.regime]
    return [RunConfig(seed=s, **regime.settings(r, o, args.epochs))
            for o in args.optimizers for r in args.recipes for s in args.seeds]


def plan(args) -> list[RunConfig]:
    """The runs the command line asks for, every value checked before any work starts."""
    if args.seeds is not None:
        args.seeds = check_seeds(args.seeds)
    check_scheduler(args.scheduler)
    if args.study:
        given = [f"--{f}" for f in PER_RUN if getattr(args, f) is not None]
        if given:
            raise ParameterError(
                "--study", args.study, f"trains the study's own runs at the paper profile; "
                f"{', '.join(given)} would be ignored (train those runs without --study)")
        return study_runs(args.study, args.seeds or STUDIES[args.study].seeds, "paper",
                          regime=args.regime)
    if args.regime is not None:
        return regime_runs(args)
    args.seeds = args.seeds or [1, 2]
    args.recipes = args.recipes or ["control", "falloff"]
    args.optimizers = args.optimizers or ["adam"]
    args.epochs = 400 if args.epochs is None else args.epochs
    return configs_from_args(args)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--study", choices=tuple(STUDIES), help="train every run of this study (paper profile)")
    p.add_argument("--regime", choices=tuple(REGIMES),
                   help="with --study: the study's runs in this regime (default: weak-basis); "
                   "without it, the --seeds, --recipes and --optimizers given in this regime")
    p.add_argument("--seeds", type=int, nargs="+")
    p.add_argument("--recipes", nargs="+", help="default: control falloff")
    p.add_argument("--optimizers", nargs="+", help="default: adam")
    p.add_argument("--epochs", type=int, help="default: 400")
    p.add_argument("--set", nargs="+", metavar="KEY=VALUE")
    p.add_argument("--scheduler", help="a Dask scheduler's address, or in-process "
                   "(default: $ANCHORKIT_SCHEDULER, else a LocalCluster)")
    p.add_argument("--ignore-published", action="store_true",
                   help="train runs found in published/ again (their weights keep no snapshots)")
    args = p.parse_args(argv)
    try:
        cfgs = plan(args)
        store = RunStore(published=None) if args.ignore_published else RunStore()
        check_writable("ANCHORKIT_STORE", store.root)  # read-only, or a file: named before work
    except ParameterError as e:
        p.error(str(e))  # one line and exit status 2, no traceback
    for c in cfgs:
        print(c.name, c.hash, flush=True)
    try:
        execute(training_graph(cfgs, store), args.scheduler, desc="training")
    except ParameterError as e:  # an unreachable scheduler
        p.exit(2, f"{p.prog}: error: {e}\n")
    except (StoreError, OSError) as e:  # a file that does not verify (a truncated checkpoint
        p.exit(1, f"{p.prog}: error: {e}\n")  # ...), a disk that fills up while training


if __name__ == "__main__":
    resumable(main)
