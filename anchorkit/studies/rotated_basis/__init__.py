"""The report's study: falloff against control under both optimizers (rotated Adam beside its
stored plain-Adam twins), with the direction sweep. Its page reads the E2 and E3 tables (a rotated
run beside its stored twin, per seed) and ``basis`` (energy and cost per direction), derived here
from the measured tables; the diagnosis reads its runs. Its claims, the ledger's premise (P0–P4,
``premise``), what the anchor does (E1–E2, ``anchor``) and where the basis went (E3, ``basis``),
are judged on its tables (and the diagnosis's, which measures its runs).
"""

from __future__ import annotations

import pandas as pd

from anchorkit.engine.study import Study
from anchorkit.core.task import SYNTAX
from anchorkit.studies.rotated_basis.anchor import E1, E2
from anchorkit.studies.rotated_basis.basis import E3
from anchorkit.studies.rotated_basis.premise import PREMISE


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


def rotated_tables(tables: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """The rotated-basis study's: the E2 and E3 tables (rotated beside stored) and ``basis``."""
    res = tables["results"]
    out = {"e2": _beside(res, [c for c in E2_COLUMNS if c in res]),
           "e3": _beside(res, [c for c in E3_COLUMNS if c in res])}
    if "directions" in tables:  # measured with the direction sweep
        out["basis"] = basis_table(tables["spectra"], tables["directions"])
    return out


STUDY = Study("rotated-basis", (("falloff", "rotated"), ("falloff", "adam")), sweep=True,
              derive=rotated_tables, side_by_side=True, place=3,
              claims=(*PREMISE, *E1, *E2, *E3))
