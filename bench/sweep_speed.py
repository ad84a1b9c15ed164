"""Direction-cost sweep speed: one run, every direction at full dose, batched vs one at a time.

The directions are the 63 coordinate axes other than e₁, the 64 rotated axes of the seed and 16
random directions (143 in all), scored on the probe set. Prints seconds for the batched sweep
(``chunk`` directions per forward) and for projecting the directions out one at a time, in one
run, and checks that both give the same predictions.

usage: python bench/sweep_speed.py [--per-op 512] [--chunk 8] [--threads 2] [--directions 143]
"""

from __future__ import annotations

import argparse
import time

import torch

from anchorkit import RunConfig, TaskConfig
from anchorkit.edit import coordinate_axes, random_directions, rotated_axes
from anchorkit.measure import edited_predictions
from anchorkit.model import haar_rotation
from anchorkit.task import probe_set
from anchorkit.train import initial_state, load_model


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--per-op", type=int, default=512, help="probe contexts per op")
    p.add_argument("--chunk", type=int, default=8, help="directions per batched forward")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--directions", type=int, default=143, help="use the first N directions")
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    cfg = RunConfig(seed=704, task=TaskConfig(probe_per_op=args.per_op))
    model = load_model([cfg], [initial_state(cfg)])  # speed does not depend on the weights
    D = cfg.model.d_model
    dirs = torch.cat([coordinate_axes(D)[1:], rotated_axes(haar_rotation(cfg.seed, D)),
                      random_directions(16, D)])[: args.directions]
    batch = probe_set(cfg.task).clean
    print(f"threads: {args.threads}; directions: {len(dirs)}; probe contexts: {len(batch.ops)}; "
          f"chunk: {args.chunk}")
    t = time.perf_counter()
    batched = edited_predictions(model, batch, dirs, 1.0, chunk=args.chunk)
    t_batched = time.perf_counter() - t
    t = time.perf_counter()
    single = torch.cat([edited_predictions(model, batch, d[None], 1.0) for d in dirs], dim=1)
    t_single = time.perf_counter() - t
    same = torch.equal(batched, single)
    print(f"batched: {t_batched:.2f} s")
    print(f"one at a time: {t_single:.2f} s")
    print(f"one at a time / batched: {t_single / t_batched:.2f}")
    print(f"same predictions: {same}")
    if not same:
        raise SystemExit("batched and one-at-a-time sweeps disagree")


if __name__ == "__main__":
    main()
