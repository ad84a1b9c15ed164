"""Compute the query answers of a study's runs into the run store's cache ahead of (or beside)
its notebook, so that several processes can share the sweeps: each takes every n-th run
(``--shard i/n``), and the notebook then derives its tables from the cache.

usage: python -m scripts.measure_study rotated-basis [--seeds 704 ...] [--shard 0/2] [--threads 1]
"""

from __future__ import annotations

import argparse

import torch
from tqdm.std import tqdm

from anchorkit.predictions import PARTS, cached_predictions
from anchorkit.store import RunStore
from anchorkit.studies import (DEFAULT_SEEDS, STUDIES, SWEEP_CHUNK, SWEEPS, study_runs)
from anchorkit.train import train


def shard(text: str) -> tuple[int, int]:
    i, n = (int(x) for x in text.split("/"))
    if not 0 <= i < n:
        raise argparse.ArgumentTypeError(f"--shard {text}: expected i/n with 0 <= i < n")
    return i, n


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("study", choices=STUDIES)
    p.add_argument("--seeds", type=int, nargs="+")
    p.add_argument("--profile", default="paper")
    p.add_argument("--shard", type=shard, default=(0, 1), help="i/n: every n-th run from the i-th")
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    store = RunStore()
    runs = study_runs(args.study, args.seeds or DEFAULT_SEEDS[args.study], args.profile)
    i, n = args.shard
    mine = runs[i::n]
    parts = PARTS if SWEEPS[args.study] else ("base",)
    for run in tqdm(mine, desc=f"answers of {args.study} ({i}/{n})"):
        (trained,) = train([run], store, progress=False)
        cached_predictions(run, trained.final, parts, store, SWEEP_CHUNK)


if __name__ == "__main__":
    main()
