"""Where a training step's time goes, for one ensemble of a regime's runs (the confirmation's by
default: falloff-pull-0.3 in the recalibrated regime, its compiled step).

Prints, in one run: seconds per run-epoch of the ensemble (epochs after the first, so no
compiling), the GEMM floor at the same shapes (``train_speed.gemm_floor``) and their ratio, and
the torch profiler's table of the step's operators over ``--profiled`` epochs (self CPU time,
top ``--rows``), so a change to the step is measured against the same table.

usage: python bench/step_profile.py [--runs 4] [--optimizer adam|rotated] [--epochs 4]
       [--profiled 1] [--rows 25] [--regime NAME] [--recipe falloff] [--threads 1]
"""

from __future__ import annotations

import argparse
import time

import torch
from torch.profiler import ProfilerActivity, profile

from anchorkit import RunConfig
from anchorkit.core.train import train
from anchorkit.engine.regimes import RECALIBRATED, REGIMES

from train_speed import gemm_floor, matmul_gflops


def ensemble(regime, recipe: str, optimizer: str, runs: int, epochs: int) -> list[RunConfig]:
    settings = regime.settings(recipe, optimizer, epochs)
    return [RunConfig(seed=900 + i, **settings) for i in range(runs)]


def trajectory_record_seconds(cfgs) -> float:
    """Seconds of one trajectory record of the ensemble (its scores and alignment on the probe
    set), at its initial weights."""
    from anchorkit.core.scores import scores_and_alignment
    from anchorkit.core.task import Batch, probe_set
    from anchorkit.core.train import initial_state, load_model

    model = load_model(cfgs, [initial_state(c) for c in cfgs])
    probe = Batch(*vars(probe_set(cfgs[0].task).clean).values())
    scores_and_alignment(model, probe)
    t = time.perf_counter()
    scores_and_alignment(model, probe)
    return time.perf_counter() - t


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=4)
    p.add_argument("--optimizer", default="adam")
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--profiled", type=int, default=1, help="epochs under the profiler")
    p.add_argument("--rows", type=int, default=25)
    p.add_argument("--regime", default=RECALIBRATED.name, choices=tuple(REGIMES))
    p.add_argument("--recipe", default="falloff")
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args(argv)
    torch.set_num_threads(a.threads)
    regime = REGIMES[a.regime]
    # one more epoch after the profiled ones, so that the run's last trajectory record and its
    # finish fall outside the profile
    cfgs = ensemble(regime, a.recipe, a.optimizer, a.runs, a.epochs + a.profiled + 1)
    print(f"{regime.name}, {cfgs[0].recipe}, {a.optimizer}, {a.runs} runs, step "
          f"{cfgs[0].train.step}, {a.threads} thread(s)")
    print(f"matmul ceiling: {matmul_gflops():.1f} GFLOP/s")
    floor = gemm_floor(cfgs[0], a.runs)
    stamps, prof = {}, {}

    def on_epoch(e):
        stamps[e] = time.perf_counter()
        if e == a.epochs:  # the timed epochs are done: profile the next ones
            prof["p"] = profile(activities=[ProfilerActivity.CPU])
            prof["p"].__enter__()
        if e == a.epochs + a.profiled:
            prof["p"].__exit__(None, None, None)

    train(cfgs, progress=False, on_epoch_end=on_epoch)
    record = trajectory_record_seconds(cfgs)
    per = (stamps[a.epochs] - stamps[1]) / (a.epochs - 1) / a.runs
    print(f"step: {per:.3f} s per run-epoch; GEMM floor {floor:.3f}; floor / step {floor / per:.2f}")
    every = cfgs[0].train.trajectory_every
    print(f"a trajectory record (scores and alignment on the probe set): {record:.2f} s for the "
          f"ensemble, every {every} epochs: {record / every / a.runs:.3f} s per run-epoch")
    print(prof["p"].key_averages().table(sort_by="self_cpu_time_total", row_limit=a.rows,
                                         max_name_column_width=60))


if __name__ == "__main__":
    main()
