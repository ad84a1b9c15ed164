"""Falloff under plain Adam at many seeds, for the loss rate: how often a run loses its anchor,
with its exact interval (the ``rate`` table), and how many losses in a study of eight that rate
makes unremarkable; the ledger's scope (S1), the source's loss rate, is judged on that table."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from anchorkit.measures.stats import at_least, loss_rate
from anchorkit.measures.verdicts import NOT_REPRODUCED, REPRODUCED, UNDECIDED
from anchorkit.judging.rules import Claim
from anchorkit.judging.base import SOURCE, Part, Tables
from anchorkit.engine.study import Study

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


@dataclass(frozen=True)
class Rate:
    """The loss rate: not reproduced if the source's rate lies outside our exact 95% interval;
    reproduced if inside and the interval's top is at most the source's bound, else undecided."""

    name: str
    rate: object  # the source's Figures
    bound: object

    def judge(self, t: Tables) -> Part:
        r = t.need("loss-rate-screen", "rate").set_index("rule").loc["net removal"]
        text = (f"{int(r.losses)} of {int(r.runs)} lost; rate {r.rate:.3f}, exact 95% interval "
                f"{r.low:.3f} to {r.high:.3f}")
        if not r.low <= self.rate.value <= r.high:
            return Part(self.name, text, NOT_REPRODUCED)
        return Part(self.name, text, REPRODUCED if r.high <= self.bound.value else UNDECIDED)

    def text(self) -> str:
        return (f"not reproduced if {self.rate} lies outside our exact 95% interval of the loss "
                f"rate by net removal; reproduced if inside and the interval's top is at most "
                f"{self.bound}")


S1_RATE, S1_BOUND = SOURCE["S1"]["rate"].value, SOURCE["S1"]["bound"].value  # rate, its bound
S1 = Claim("S1", "the loss rate", "scope",
           f"The loss rate is near 1 in {SOURCE['S1']['rate'].printed.split('/')[1]}, with an "
           f"upper bound near 1 in {SOURCE['S1']['bound'].printed.split('/')[1]}.",
           f"about {SOURCE['S1']['rate']} (up to {SOURCE['S1']['bound']})",
           (Rate("the loss rate", SOURCE["S1"]["rate"], SOURCE["S1"]["bound"]),))

STUDY = Study("loss-rate-screen", (("falloff", "adam"),), tuple(SCREEN_SEEDS), derive=rate_tables,
              place=5, claims=(S1,))
