"""Direction-sweep speed: one run's sweep as it was, as it is, and a pair's sweep on the executor.

The directions are the 63 coordinate axes other than e₁, the 64 rotated axes of the seed and 16
random directions (143 in all), each projected out at full dose and scored on the probe set.
Prints, in one run:
- one run's sweep the reference way: one direction per forward over every probe context at once,
  in one process (what the committed tables' sweeps did);
- the same with ``--contexts`` probe contexts per forward (``predictions.SWEEP_CONTEXTS``);
- with ``--workers N``: a pair's sweep (two runs) through the executor's sweep tasks on a
  LocalCluster of N single-thread workers, against twice the reference time;
and checks that every way gives the same predictions.

usage: python bench/sweep_speed.py [--per-op 512] [--contexts 128] [--threads 1]
       [--directions 143] [--workers 2]
"""

from __future__ import annotations

import argparse
import time

import torch

from anchorkit import RunConfig, TaskConfig
from anchorkit.measures.measure import edited_predictions
from anchorkit.measures.answers import sweep_directions
from anchorkit.core.task import probe_set
from anchorkit.core.train import initial_state, load_model


def pair_on_cluster(cfgs: list[RunConfig], n_dirs: int, workers: int) -> tuple[float, list]:
    """Wall time of the executor's sweep tasks for both runs of a pair on a fresh LocalCluster
    (started before the clock), and the answers per run."""
    from distributed import Client

    from anchorkit.engine import executor
    from anchorkit.core.store import RunStore

    store = RunStore("/nonexistent-bench-store", published=None)  # the tasks read weights only
    with executor.local_cluster(workers) as cluster, Client(cluster) as client:
        client.submit(sum, [1]).result()  # workers up
        t = time.perf_counter()
        futures = {c.hash: [client.submit(_sweep_slice, c, a, min(a + executor.SWEEP_SLICE, n_dirs),
                                          pure=False)
                            for a in range(0, n_dirs, executor.SWEEP_SLICE)] for c in cfgs}
        answers = [torch.cat([f.result() for f in futures[c.hash]]) for c in cfgs]
        return time.perf_counter() - t, answers


def _sweep_slice(cfg: RunConfig, start: int, stop: int) -> torch.Tensor:
    from anchorkit.engine.executor import THREADS, threads
    from anchorkit.measures.answers import sweep_answers

    with threads(THREADS):
        return sweep_answers(cfg, initial_state(cfg), start, stop)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--per-op", type=int, default=512, help="probe contexts per op")
    p.add_argument("--contexts", type=int, default=128, help="probe contexts per forward")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--directions", type=int, default=143, help="use the first N directions")
    p.add_argument("--workers", type=int, default=0, help="also sweep a pair on N workers")
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    cfg = RunConfig(seed=704, task=TaskConfig(probe_per_op=args.per_op))
    model = load_model([cfg], [initial_state(cfg)])  # speed does not depend on the weights
    dirs = sweep_directions(cfg)[2][: args.directions]
    batch = probe_set(cfg.task).clean
    print(f"threads: {args.threads}; directions: {len(dirs)}; probe contexts: {len(batch.ops)}")
    with torch.inference_mode():
        t = time.perf_counter()
        reference = edited_predictions(model, batch, dirs, 1.0, chunk=1)[0]
        t_ref = time.perf_counter() - t
        t = time.perf_counter()
        batched = edited_predictions(model, batch, dirs, 1.0, chunk=1, contexts=args.contexts)[0]
        t_ctx = time.perf_counter() - t
    same = torch.equal(reference, batched)
    print(f"one run, all contexts per forward (reference): {t_ref:.2f} s")
    print(f"one run, {args.contexts} contexts per forward: {t_ctx:.2f} s")
    print(f"reference / {args.contexts} contexts: {t_ref / t_ctx:.2f}")
    if args.workers and args.directions == 143:
        twin = cfg.replace(recipe="falloff")
        wall, answers = pair_on_cluster([cfg, twin], args.directions, args.workers)
        same = same and torch.equal(answers[0], reference)
        print(f"a pair on {args.workers} workers (executor's sweep tasks): {wall:.2f} s")
        print(f"pair, reference (2 x one run) / executor: {2 * t_ref / wall:.2f}")
    print(f"same predictions: {same}")
    if not same:
        raise SystemExit("the ways of sweeping disagree")


if __name__ == "__main__":
    main()
