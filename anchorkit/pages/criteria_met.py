"""Each falloff run against the calibration's criteria (``anchorkit.measures.criteria``; the
Methods page, *Training*), for the report page's criteria tables and its first screen: the figure
each criterion reads, whether the run meets it, and the runs that miss one at the limit of what the
measure resolves."""

from __future__ import annotations

import pandas as pd

from anchorkit.core.config import TaskConfig
from anchorkit.engine.formatting import and_list, number
from anchorkit.measures import criteria
from anchorkit.core.optimizers import ARMS
from anchorkit.studies.rotated_basis.recalibration import MET, criteria_row


def criteria_table(results: pd.DataFrame, alignment: pd.DataFrame, dose: pd.DataFrame) -> pd.DataFrame:
    """Each falloff run beside the calibration's criteria (``anchorkit.measures.criteria``; the Methods
    page, *Training*): the figure each criterion reads and whether the run meets it, and whether
    it meets all of them. In the weak-basis regime the criteria were calibrated; elsewhere they
    are shown, not applied as a gate. One row per run, rotated arm first."""
    rows = []
    for arm in ARMS:
        for r in results[results.optimizer == arm].sort_values("seed").to_dict("records"):
            mine = lambda t: t[(t.optimizer == arm) & (t.seed == r["seed"])]  # noqa: E731
            c = criteria_row(r, mine(alignment), mine(dose))
            rows.append({"arm": ARMS[arm], "seed": r["seed"], **{k: c[k] for k in MET},
                         "criteria met": f"{c['criteria met']} of {len(MET)}",
                         "meets all": c["meets all"]})
    return pd.DataFrame(rows)


CRITERIA = {"lowest op": f"every op ≥ {criteria.SCORE_MIN} (falloff and control)",
            "alignment, slices 3–4": f"alignment ≥ {criteria.ALIGNMENT_HIGH} at slices 3 and 4",
            "|alignment|, other ops": f"|alignment| ≤ {criteria.ALIGNMENT_LOW} at the other ops",
            "raw removal": f"raw removal ≥ {criteria.REMOVAL_MIN}",
            "spill, any dose": f"spill ≤ {criteria.SPILL_MAX} at every dose"}


SPILL = "spill, any dose"
# one probe context's share of an op's score: the finest step a spill can take (paper profile)
SPILL_RESOLUTION = 1 / TaskConfig().probe_per_op


def at_resolution_limit(table: pd.DataFrame, resolution: float = SPILL_RESOLUTION) -> pd.DataFrame:
    """The runs of a ``criteria_table`` whose spill misses its criterion by less than one probe
    context (``resolution``): a miss at the limit of what the measure resolves."""
    over = table[SPILL] - criteria.SPILL_MAX
    return table[(over > 0) & (over < resolution)]


def criteria_text(table: pd.DataFrame, resolution: float = SPILL_RESOLUTION) -> str:
    """How many falloff runs of each arm meet every calibration criterion, from ``criteria_table``,
    and the runs whose spill misses its criterion at the measure's resolution limit."""
    parts = [f"{int(t['meets all'].sum())} of {len(t)} {name} runs"
             for name, t in ((n, table[table.arm == n]) for n in ARMS.values()) if len(t)]
    text = " and ".join(parts) + " meet every criterion"
    near = at_resolution_limit(table, resolution)
    if len(near):
        runs = and_list([f"{r.arm} {r.seed} (spill {number(r[SPILL], '.4f')}; "
                         f"{r['criteria met']} criteria met)" for _, r in near.iterrows()])
        text += (f"; the spill of {runs} misses its criterion by less than one probe context, "
                 f"at the limit of what the measure resolves")
    return text
