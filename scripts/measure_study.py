"""Measure a study's pairs into the run store's cache ahead of (or beside) its notebook, so that a
second process can share the work: the notebook then reads the cached pairs.

usage: python -m scripts.measure_study rotated-basis [--seeds 704 ...] [--reverse] [--threads 1]
"""

from __future__ import annotations

import argparse

import torch
from tqdm.std import tqdm

from anchorkit.store import RunStore
from anchorkit.studies import PAPER_SEEDS, STUDIES, SWEEPS, measured, study_pairs, study_runs
from anchorkit.train import train


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("study", choices=STUDIES)
    p.add_argument("--seeds", type=int, nargs="+", default=PAPER_SEEDS)
    p.add_argument("--profile", default="paper")
    p.add_argument("--reverse", action="store_true", help="last pair first")
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    store = RunStore()
    trained = {r.config.hash: r for r in train(study_runs(args.study, args.seeds, args.profile),
                                               store)}
    pairs = study_pairs(args.study, args.seeds, args.profile)
    for pair in tqdm(pairs[::-1] if args.reverse else pairs, desc=f"measuring {args.study}"):
        measured(pair, SWEEPS[args.study], trained, store)


if __name__ == "__main__":
    main()
