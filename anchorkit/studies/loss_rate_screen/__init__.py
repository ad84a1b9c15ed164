"""Falloff under plain Adam at many seeds, for the loss rate: how often a run loses its anchor,
with its exact interval (the ``rate`` table), and how many losses in a study of eight that rate
makes unremarkable."""

from __future__ import annotations

import pandas as pd

from anchorkit.measures.stats import at_least, loss_rate
from anchorkit.study import Study

SCREEN_SEEDS = list(range(800, 840))  # the loss-rate screen's 40 seeds, disjoint from the paper's


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


STUDY = Study("loss-rate-screen", (("falloff", "adam"),), tuple(SCREEN_SEEDS), derive=rate_tables,
              place=5)
