"""Every coordinate axis swept on the stored plain-Adam falloff runs and controls: where each
run's spike sits, and the reference baseline of every stored run (the ``spikes`` table); the
ledger's later finding (L1), that plain Adam's spikes move too, is judged on its results."""

from __future__ import annotations

import pandas as pd

from anchorkit.judging.rules import Claim, Moved
from anchorkit.judging.base import SOURCE
from anchorkit.engine.study import Study


def spikes_table(results: pd.DataFrame) -> pd.DataFrame:
    """One row per run of the pairs: where its spike sits along the coordinate axes and the
    rotated axes, with its share, cos(e₁, spike), kurtosis and reference baseline."""
    rows = []
    for _, r in results.iterrows():
        for role, name in (("anchored", r["run"]), ("control", r["control_run"])):
            row = {"run": name, "seed": r["seed"], "optimizer": r["optimizer"], "role": role,
                   "recipe": r["recipe"] if role == "anchored" else "control"}
            for col in results.columns:
                if col.startswith(f"{role}_") and any(w in col for w in (
                        "spike", "kurtosis", "reference", "top_share")):
                    row[col[len(role) + 1:]] = r[col]
            rows.append(row)
    out = pd.DataFrame(rows).drop_duplicates("run").reset_index(drop=True)
    for col in ("spike_axes", "spike_rotated"):
        if col in out:
            out[col] = out[col].astype("Int64")
    return out


def spikes_tables(tables: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """The reference-baseline study's: ``spikes``, one row per stored run."""
    return {"spikes": spikes_table(tables["results"])}


L1 = Claim("L1", "plain spikes move too", "later",
           "Under plain Adam too, falloff's spike moves on some seeds.", str(SOURCE["L1"]["moved"]),
           (Moved(f"on about {SOURCE['L1']['moved']}", "reference-baseline", "moved_axes",
                  "both runs have a spike", SOURCE["L1"]["moved"]),))

STUDY = Study("reference-baseline", (("falloff", "adam"),), sweep=True, derive=spikes_tables,
              side_by_side=True, place=4, claims=(L1,))
