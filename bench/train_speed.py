"""Training speed: the eager reference step against the compiled step, side by side in one run.

Prints, in one run (so the ratios share one state of a shared, noisy machine):
- the machine's fp32 matmul ceiling (GFLOP/s, 1024×1024 matrices);
- the GEMM floor: the matrix products of a training step alone, at the model's shapes, timed
  without anything else (the time a step could not go below without faster GEMMs);
- seconds per run-epoch of one ensemble trained with ``TrainConfig.step = "eager"`` (the
  reference, every published run) and ``"compiled"``, with useful GFLOP/s (the model's matmul
  and attention arithmetic, forward and backward) and the share of the ceiling;
- the compiled step's speed-up over the reference;
- with ``--side-by-side``: the same ensemble trained in two single-thread processes at once (what
  the executor's default LocalCluster does on two cores), eager and compiled, and in one eager
  process of two threads, as run-epochs per second of the whole machine.

usage: python bench/train_speed.py [--runs 4] [--epochs 5] [--threads 1] [--side-by-side]
       [--device cpu|cuda]
"""

from __future__ import annotations

import argparse
import time

import torch

from anchorkit import RunConfig, TrainConfig
from anchorkit.core.task import context_length, vocab_size
from anchorkit.core.train import train

STEPS = ("eager", "compiled")


def matmul_gflops(n: int = 1024, repeats: int = 20, device: str = "cpu") -> float:
    a, b = torch.randn(n, n, device=device), torch.randn(n, n, device=device)
    a @ b
    _sync(device)
    t = time.perf_counter()
    for _ in range(repeats):
        a @ b
    _sync(device)
    return 2 * n ** 3 * repeats / (time.perf_counter() - t) / 1e9


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def useful_flops(cfg: RunConfig) -> float:
    """FLOPs of one run-epoch: the weight matmuls and the attention products, forward and
    backward (3× the forward), over every token of every context."""
    m, task = cfg.model, cfg.task
    T, D, V = context_length(task), m.d_model, vocab_size(task)
    per_token = m.n_blocks * (2 * (4 * D * D + 2 * D * m.d_mlp) + 2 * 2 * T * D) + 2 * D * V
    return 3 * per_token * T * cfg.train.contexts_per_epoch


def gemm_floor(cfg: RunConfig, E: int, device: str = "cpu", repeats: int = 5) -> float:
    """Seconds per run-epoch of a training step's matrix products alone (each weight product
    forward, and its two backward products), at the model's shapes, for an ensemble of E."""
    m, task = cfg.model, cfg.task
    N = cfg.train.batch_size * context_length(task)
    D, M, V = m.d_model, m.d_mlp, vocab_size(task)
    shapes = [(D, 3 * D), (D, D), (D, M), (M, D)] * m.n_blocks + [(D, V)]
    ops = []
    for k, n in shapes:
        x, w = torch.randn(E, N, k, device=device), torch.randn(E, k, n, device=device)
        g = torch.randn(E, N, n, device=device)
        ops += [lambda x=x, w=w: x @ w, lambda g=g, w=w: g @ w.transpose(1, 2),
                lambda x=x, g=g: x.transpose(1, 2) @ g]
    for f in ops:
        f()
    _sync(device)
    t = time.perf_counter()
    for _ in range(repeats):
        for f in ops:
            f()
    _sync(device)
    steps = cfg.train.contexts_per_epoch // cfg.train.batch_size
    return (time.perf_counter() - t) / repeats * steps / E


def configs(runs: int, epochs: int, step: str, contexts: int, batch: int) -> list[RunConfig]:
    tcfg = TrainConfig(contexts_per_epoch=contexts, batch_size=min(batch, contexts),
                       trajectory_every=10 ** 6, checkpoint_every=10 ** 6, step=step)
    recipes, opts = ["falloff", "control"], ["adam", "rotated"]
    return [RunConfig(seed=100 + i, recipe=recipes[i % 2], optimizer=opts[(i // 2) % 2],
                      epochs=epochs, train=tcfg) for i in range(runs)]


def seconds_per_run_epoch(cfgs: list[RunConfig], device: str = "cpu") -> float:
    """Wall time of epochs 2..N-1 (no trajectory record, no start-up or compiling) per run and
    epoch."""
    stamps = {}

    def stamp(e):
        _sync(device)
        stamps[e] = time.perf_counter()

    train(cfgs, device=device, progress=False, on_epoch_end=stamp)
    n = cfgs[0].epochs
    return (stamps[n - 1] - stamps[1]) / (n - 2) / len(cfgs)


def _child(args) -> float:
    threads, cfgs = args
    torch.set_num_threads(threads)
    return seconds_per_run_epoch(cfgs)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=4)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--contexts", type=int, default=512)
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--side-by-side", action="store_true",
                   help="also train in two single-thread processes at once (machine throughput)")
    p.add_argument("--device", default="cpu")
    args = p.parse_args(argv)
    if args.epochs < 3:
        p.error("--epochs must be at least 3 (the first and last epochs are not timed)")
    torch.set_num_threads(args.threads)
    dev = args.device
    cfg0 = configs(1, args.epochs, "eager", args.contexts, args.batch)[0]
    flops = useful_flops(cfg0)
    print(f"device: {dev}; threads: {args.threads}; runs: {args.runs}; epochs: {args.epochs} "
          f"(2..{args.epochs - 1} timed); contexts per epoch: {args.contexts}; "
          f"batch: {cfg0.train.batch_size}")
    ceiling = matmul_gflops(device=dev)
    print(f"matmul ceiling (fp32, 1024x1024): {ceiling:.1f} GFLOP/s")
    print(f"useful work: {flops / 1e9:.2f} GFLOP per run-epoch")
    floor = gemm_floor(cfg0, args.runs, dev)
    print(f"GEMM floor (a step's matrix products alone): {floor:.3f} s per run-epoch "
          f"({flops / floor / 1e9:.1f} GFLOP/s, {flops / floor / 1e9 / ceiling:.0%} of the "
          "ceiling)")
    timed = {}
    for step in STEPS:
        s = seconds_per_run_epoch(configs(args.runs, args.epochs, step, args.contexts,
                                          args.batch), dev)
        timed[step] = s
        print(f"{step:>8} step: {s:.3f} s per run-epoch, {flops / s / 1e9:.1f} GFLOP/s useful, "
              f"{flops / s / 1e9 / ceiling:.0%} of the ceiling; a 400-epoch run "
              f"{s * 400 / 60:.1f} min")
    print(f"compiled / eager speed-up: {timed['eager'] / timed['compiled']:.2f}x")
    if args.side_by_side:
        import multiprocessing as mp

        ctx = mp.get_context("spawn")
        for step in STEPS:
            cfgs = configs(args.runs, args.epochs, step, args.contexts, args.batch)
            with ctx.Pool(2) as pool:
                per = pool.map(_child, [(1, cfgs), (1, cfgs)])
            rate = sum(1 / s for s in per)
            timed[f"pair-{step}"] = rate
            print(f"two single-thread processes, {step}: {rate:.2f} run-epochs/s for the "
                  f"machine ({', '.join(f'{s:.3f}' for s in per)} s per run-epoch each)")
        torch.set_num_threads(2)
        two = seconds_per_run_epoch(configs(args.runs, args.epochs, "eager", args.contexts,
                                            args.batch), dev)
        print(f"one process of two threads, eager: {1 / two:.2f} run-epochs/s for the machine "
              f"({two:.3f} s per run-epoch)")
        print(f"machine throughput, compiled pair / eager pair: "
              f"{timed['pair-compiled'] / timed['pair-eager']:.2f}x; compiled pair / one eager "
              f"process of two threads: {timed['pair-compiled'] * two:.2f}x")


if __name__ == "__main__":
    main()
