"""The tables a study's page reads, built from its measured tables: E2 and E3 per seed (a rotated
run beside its stored twin), ``basis`` (energy and cost per direction), ``spikes`` (where each
run's spike sits) and ``rate`` (the loss rate with its exact interval).
"""

from __future__ import annotations

import pandas as pd

from anchorkit.stats import at_least, loss_rate
from anchorkit.task import SYNTAX


def _beside(results: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """One row per seed: each column for the rotated run and, beside it, its stored (plain-Adam)
    twin, as ``<column>_rotated`` and ``<column>_stored``."""
    label = {"rotated": "rotated", "adam": "stored"}
    wide = results.pivot(index="seed", columns="optimizer", values=columns)
    wide.columns = [f"{c}_{label[o]}" for c, o in wide.columns]
    order = [f"{c}_{label[o]}" for c in columns for o in ("rotated", "adam")
             if f"{c}_{label[o]}" in wide.columns]
    return wide[order].reset_index()


E2_COLUMNS = ["raw_removal", "control_drop", "control_other_ops", "net_removal", "over_removal",
              "removal_error", "raw_removal_vs_evidence_null", "spill", "raw_spill", "landing",
              "task_change", "control_has_spike_rotated", "control_cos_e1_spike_rotated",
              "control_has_spike_axes", "control_cos_e1_spike_axes", "removal_net_of_reference",
              "kept", "kept_raw"]


E3_COLUMNS = (["control_top_share_rotated", "anchored_top_share_rotated",
               "control_top_share_axes", "anchored_top_share_axes",
               "control_has_spike_rotated", "anchored_has_spike_rotated",
               "control_spike_share_rotated", "anchored_spike_share_rotated",
               "control_spike_rotated", "anchored_spike_rotated",
               "control_has_spike_axes", "anchored_has_spike_axes",
               "control_spike_axes", "anchored_spike_axes"]
              + [f"{role}_syntax_cos_{sym}_rotated" for role in ("control", "anchored")
                 for sym in SYNTAX]
              + ["control_cos_e1_spike_rotated", "anchored_cos_e1_spike_rotated",
                 "control_kurtosis_rotated", "anchored_kurtosis_rotated",
                 "control_kurtosis_axes", "anchored_kurtosis_axes", "moved_rotated", "moved_axes"])


def basis_table(spectra: pd.DataFrame, directions: pd.DataFrame) -> pd.DataFrame:
    """One row per run and direction: its energy share at the last slice (coordinate axes and
    rotated axes; none for random directions) beside its direction cost and its drop of
    difference as a share of span at full dose (e₁ is coordinate axis 0)."""
    dirs = directions.assign(basis=directions["kind"].replace({"axis": "axes", "e1": "axes"}),
                             direction=directions["index"]).drop(columns=["kind", "index"])
    keys = ["seed", "optimizer", "recipe", "run", "control_run", "role", "basis", "direction"]
    out = spectra.merge(dirs, on=keys, how="outer")
    return out.sort_values(keys, kind="stable").reset_index(drop=True)


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


def nothing(tables: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """A study whose page reads only its measured tables."""
    return {}


def rotated_tables(tables: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """The rotated-basis study's: the E2 and E3 tables (rotated beside stored) and ``basis``."""
    res = tables["results"]
    out = {"e2": _beside(res, [c for c in E2_COLUMNS if c in res]),
           "e3": _beside(res, [c for c in E3_COLUMNS if c in res])}
    if "directions" in tables:  # measured with the direction sweep
        out["basis"] = basis_table(tables["spectra"], tables["directions"])
    return out


def spikes_tables(tables: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """The reference-baseline study's: ``spikes``, one row per stored run."""
    return {"spikes": spikes_table(tables["results"])}


def rate_tables(tables: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """The loss-rate screen's: ``rate``."""
    return {"rate": rate_table(tables["results"])}


def rate_table(results: pd.DataFrame, runs_per_study: int = 8) -> pd.DataFrame:
    """The loss rate under each kept/lost rule (net removal, raw removal) with its exact 95%
    interval, and the probability of at least m losses in a study of ``runs_per_study`` runs
    (m = 1, 2, 3) at that rate and at the interval's ends."""
    rows = []
    for rule, col in (("net removal", "kept"), ("raw removal", "kept_raw")):
        r = loss_rate(results[col])
        row = {"rule": rule, **r, "study_runs": runs_per_study}
        for m in (1, 2, 3):
            for name, p in (("", r["rate"]), ("_low", r["low"]), ("_high", r["high"])):
                row[f"p_at_least_{m}{name}"] = at_least(m, runs_per_study, p)
        rows.append(row)
    return pd.DataFrame(rows)
