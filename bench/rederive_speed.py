"""Re-deriving studies' tables from the cached answers: what a definition-only change costs.

Runs each study (default: every committed study whose runs are published) into a temporary
reports folder with the run store's cached query answers, and refuses any edited forward (the
answers must all be cached: run the studies once first). Prints
the wall time per study and in all.

usage: python bench/rederive_speed.py [study ...] [--threads 1] [--scheduler in-process]
"""

from __future__ import annotations

import argparse
import tempfile
import time

import torch

from anchorkit.core.config import check_choice
from anchorkit.engine.executor import IN_PROCESS
from anchorkit.core.store import RunStore
from anchorkit.engine.protocol import run_study
from anchorkit.engine.registry import PAPER_SEEDS, STUDIES, study_pairs


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("studies", nargs="*", help=f"some of {', '.join(STUDIES)}")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--scheduler", default=IN_PROCESS,
                   help="where the pairs are measured (default: in this process)")
    args = p.parse_args(argv)
    args.studies = [check_choice("study", s, tuple(STUDIES)) for s in args.studies] or [
        s for s in STUDIES if list(STUDIES[s].seeds) == PAPER_SEEDS]
    torch.set_num_threads(args.threads)
    store = RunStore()
    for study in args.studies:  # a definition-only change must not need one edited forward
        seeds = list(STUDIES[study].seeds)
        graph = STUDIES[study].graph(study_pairs(study, seeds), store)
        missing = [k for k in graph.tasks if k not in graph.outputs]
        if missing:
            raise SystemExit(f"{study}: answers not cached or runs not trained ({len(missing)} "
                             f"tasks, e.g. {missing[0]}); run the study once first")
    total = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for study in args.studies:
            t0 = time.perf_counter()
            run_study(study, STUDIES[study].seeds, "paper", reports_dir=tmp, store=store,
                      progress=False, scheduler=args.scheduler)
            dt = time.perf_counter() - t0
            total += dt
            print(f"{study}: {dt:.1f} s")
    print(f"threads: {args.threads}; all {len(args.studies)} studies re-derived in {total:.1f} s "
          f"({total / 60:.1f} min), no edited forward")


if __name__ == "__main__":
    main()
