"""The essay's measurements on every stored run at the paper seeds, timed: a task per run on the
executor (``essay.measuring.run_geometry``), in this process or on a LocalCluster of one single-thread
worker per core. Writes into a temporary folder (never ``reports/``) and prints the wall time,
the runs measured and where the work ran.

usage: python bench/essay_speed.py [--scheduler in-process]   (default: a LocalCluster)
"""

from __future__ import annotations

import argparse
import tempfile
import time

from anchorkit.studies.essay.measuring import essay_runs, run_geometry
from anchorkit.engine.request import request
from anchorkit.engine.registry import PAPER_SEEDS


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scheduler", default=None,
                   help="in-process, or a scheduler's address (default: a LocalCluster)")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        req = request(PAPER_SEEDS, reports_dir=tmp, reuse=False, progress=False,
                      scheduler=args.scheduler)
        n = len(essay_runs(req.seeds, req.profile, req.epochs, req.store))
        t0 = time.perf_counter()
        run_geometry(req)
        dt = time.perf_counter() - t0
    print(f"essay: {n} runs measured in {dt:.1f} s ({dt / n:.1f} s a run) on "
          f"{args.scheduler or 'a LocalCluster'}")


if __name__ == "__main__":
    main()
