"""Copy the paper's runs (every run of the studies at seeds 704-711, 400 epochs) from the run
store to ``published/``, the committed weights a fresh clone measures without retraining.

usage: python -m scripts.publish_runs [--seeds 704 ... 711] [--studies control ...]
"""

from __future__ import annotations

import argparse

import pandas as pd

from anchorkit.store import PUBLISHED, RunStore, write_table
from anchorkit.studies import PAPER_SEEDS, STUDIES, study_runs


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, nargs="+", default=PAPER_SEEDS)
    p.add_argument("--studies", nargs="+", choices=STUDIES, default=list(STUDIES))
    args = p.parse_args(argv)
    store = RunStore()
    runs = {c.hash: c for s in args.studies for c in study_runs(s, args.seeds, "paper")}
    missing = [c.name for c in runs.values() if not store.has_final(c)]
    if missing:
        raise SystemExit(f"not finished in {store.root}: {', '.join(missing)}")
    for c in runs.values():
        store.publish(c)
    index = pd.DataFrame([{"run": c.name, "hash": h, "seed": c.seed, "recipe": c.recipe,
                           "optimizer": c.optimizer, "epochs": c.epochs} for h, c in runs.items()])
    write_table(PUBLISHED / "index.parquet", index.sort_values("run"), csv=True, verified=False)
    print(f"published {len(runs)} runs to {PUBLISHED}")


if __name__ == "__main__":
    main()
