"""The published runs: their weights copied from the run store to ``published/`` (the committed
weights a fresh clone measures without retraining), indexed in ``published/index.parquet`` (CSV
beside) with their regime and, for a set that is no study's, the set's name. Every command that
publishes (``python -m anchorkit publish``, a study's own sets) publishes through ``publish_set``.
"""

from __future__ import annotations

import pandas as pd

from anchorkit.core.config import RunConfig
from anchorkit.core.store import PUBLISHED, RunStore, write_table
from anchorkit.engine.regimes import DEFAULT


def add_to_index(new: pd.DataFrame) -> None:
    """Add published runs' rows to ``published/index.parquet`` (CSV beside), one row per hash."""
    f = PUBLISHED / "index.parquet"
    old = pd.read_parquet(f) if f.exists() else new.iloc[:0]
    if "regime" not in old:
        old = old.assign(regime=DEFAULT.name)  # published before regimes were named: the default
    index = (pd.concat([old, new], ignore_index=True).drop_duplicates("hash", keep="last")
             .sort_values(["regime", "run"], kind="stable"))
    write_table(f, index, csv=True, verified=False)


def publish_set(cfgs: list[RunConfig], regime: str, set_name: str | None = None,
                snapshots=(), finished_only: bool = False) -> str:
    """Publish these runs (their weights, and at ``snapshots`` too) and index them under
    ``regime`` (and ``set_name``, a set of runs that is no study's), all of them, or with
    ``finished_only`` the finished ones; one line saying what was published and left out. A run
    not finished is an error otherwise."""
    store = RunStore()
    missing = [c.name for c in cfgs if not store.has_final(c)]
    if missing and not finished_only:
        raise SystemExit(f"not finished in {store.root}: {', '.join(missing)}")
    done = {c.hash: c for c in cfgs if store.has_final(c)}
    for c in done.values():
        store.publish(c, snapshots=list(snapshots))
    new = pd.DataFrame([{"run": c.name, "hash": h, "seed": c.seed, "recipe": c.recipe,
                         "optimizer": c.optimizer, "epochs": c.epochs, "regime": regime,
                         **({"set": set_name} if set_name else {})} for h, c in done.items()])
    if done:  # nothing published: the index stays as it is
        add_to_index(new)
    return (f"published {len(done)} runs to {PUBLISHED}"
            + (f" with their weights at epochs {', '.join(map(str, snapshots))}" if snapshots
               else "")
            + (f"; not finished, left out: {', '.join(missing)}" if missing else ""))
