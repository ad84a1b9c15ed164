"""Training speed: seconds per run-epoch, one run at a time vs one ensemble, and matmul GFLOP/s.

Prints, in one run (so the ratios share one state of a shared, noisy machine):
- the machine's fp32 matmul throughput (GFLOP/s, 1024×1024 matrices);
- seconds per run-epoch for the per-run loop (each run trained alone, one after another);
- seconds per run-epoch for the same runs trained as one ensemble.

usage: python bench/train_speed.py [--runs 4] [--epochs 4] [--threads 2] [--contexts 512]
"""

from __future__ import annotations

import argparse
import time

import torch

from anchorkit import RunConfig, TrainConfig
from anchorkit.train import train


def matmul_gflops(n: int = 1024, repeats: int = 20) -> float:
    a, b = torch.randn(n, n), torch.randn(n, n)
    a @ b
    t = time.perf_counter()
    for _ in range(repeats):
        a @ b
    return 2 * n ** 3 * repeats / (time.perf_counter() - t) / 1e9


def seconds_per_run_epoch(cfgs: list[RunConfig]) -> float:
    """Wall time of epochs 2..N-1 (no trajectory record, no start-up) per run and epoch."""
    stamps = {}
    train(cfgs, progress=False, on_epoch_end=lambda e: stamps.__setitem__(e, time.perf_counter()))
    n = cfgs[0].epochs
    return (stamps[n - 1] - stamps[1]) / (n - 2) / len(cfgs)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=4)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--contexts", type=int, default=512)
    p.add_argument("--batch", type=int, default=128)
    args = p.parse_args(argv)
    if args.epochs < 3:
        p.error("--epochs must be at least 3 (the first and last epochs are not timed)")
    torch.set_num_threads(args.threads)
    tcfg = TrainConfig(contexts_per_epoch=args.contexts, batch_size=min(args.batch, args.contexts),
                       trajectory_every=10 ** 6, checkpoint_every=10 ** 6)
    recipes = ["falloff", "control"]
    opts = ["adam", "rotated"]
    cfgs = [RunConfig(seed=100 + i, recipe=recipes[i % 2], optimizer=opts[(i // 2) % 2],
                      epochs=args.epochs, train=tcfg) for i in range(args.runs)]
    print(f"threads: {args.threads}; runs: {args.runs}; epochs: {args.epochs}; "
          f"contexts per epoch: {args.contexts}; batch: {tcfg.batch_size}")
    print(f"matmul GFLOP/s (fp32, 1024x1024): {matmul_gflops():.1f}")
    per_run = sum(seconds_per_run_epoch([c]) for c in cfgs) / len(cfgs)
    print(f"per-run loop: {per_run:.3f} s per run-epoch")
    ensemble = seconds_per_run_epoch(cfgs)
    print(f"ensemble of {len(cfgs)}: {ensemble:.3f} s per run-epoch")
    print(f"ensemble / per-run: {ensemble / per_run:.2f}")
    print(f"400-epoch run at the per-run rate: {per_run * 400 / 60:.1f} min")


if __name__ == "__main__":
    main()
