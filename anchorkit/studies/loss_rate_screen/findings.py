"""The loss-rate screen's page texts: the figures its prose quotes, its rate table, the chance of
losses in a study, and the report's scope sentence drawn from it (``registry.findings
("loss-rate-screen")``). The thresholds come from ``anchorkit.measures.criteria``."""

from __future__ import annotations

import pandas as pd

from anchorkit.engine.formatting import captioned, count
from anchorkit.measures import criteria
from anchorkit.measures.stats import pearson

RATE_HEADERS = {"rule": "rule", "losses": "losses", "runs": "runs", "rate": "loss rate",
                "low": "95% low", "high": "95% high", "p_at_least_1": "P(≥1 in 8)",
                "p_at_least_2": "P(≥2 in 8)", "p_at_least_3": "P(≥3 in 8)"}


def with_control_e1_share(results: pd.DataFrame, spectra: pd.DataFrame) -> pd.DataFrame:
    """The screen's results with each control's energy share along e₁ at the last slice."""
    e1 = spectra[(spectra.role == "control") & (spectra.basis == "axes") & (spectra.direction == 0)]
    return results.merge(e1[["run", "share"]].rename(columns={"share": "control_e1_share"}), on="run")


def _run_op(run: str, column: str) -> str:
    role, op = column.split("_score_")
    return f"{run if role == 'anchored' else run.replace('falloff', 'control')} on {op}"


def screen_facts(results: pd.DataFrame, rate: pd.DataFrame) -> dict[str, str]:
    """The screen page's figures: losses and their rate under each rule, the chance of losses in
    eight runs, the seeds that lost, spikes on e₁, and the calibration criteria at unseen seeds.
    ``results`` with ``control_e1_share`` (``with_control_e1_share``)."""
    rate = rate.set_index("rule")
    net, raw = rate.loc["net removal"], rate.loc["raw removal"]
    out = {"screen-losses": f"{int(net.losses)} of {int(net.runs)}",
           "screen-rate": f"{net.rate:.3f} (95% interval {net.low:.3f} to {net.high:.3f})",
           "screen-raw-losses": f"{int(raw.losses)} of {int(raw.runs)}"}
    for m in (1, 2, 3):
        out[f"screen-p{m}"] = chance_of_losses(net, m) + (
            f" {NO_LOSS_NOTE}" if m == 3 and net.losses == 0 else "")
    lost = ~results.kept
    out["screen-lost-seeds"] = ", ".join(map(str, results.seed[lost].sort_values())) or "none"
    has = results.control_has_spike_axes  # a spike stands out at the syntax positions
    on_e1 = has & (results.control_cos_e1_spike_axes > 0.5)  # along the axes, cos(e₁, spike) is 1 or 0
    out["screen-spikes"] = count(has)
    out["screen-spike-lost"] = (f"{on_e1[lost].sum()} of the {has[lost].sum()} with a spike among the "
                                f"{lost.sum()} seeds that lost" if lost.any()
                                else "none of the seeds that lost (no seed lost)")
    out["screen-spike-kept"] = (f"{on_e1[~lost].sum()} of the {has[~lost].sum()} with a spike among "
                                f"the {(~lost).sum()} seeds that kept")
    r, n = pearson(results.control_e1_share, results.net_removal)
    out["screen-r"] = f"r = {r:.2f} (n = {n})"
    scores = results.set_index("run")[[c for c in results.columns if "_score_" in c]].stack()
    below = scores[scores < criteria.SCORE_MIN]  # every op in every run
    out["screen-below"] = ", ".join(f"{_run_op(r, c)} ({v:.3f})" for (r, c), v in below.items()) or "none"
    short = results.raw_removal < criteria.REMOVAL_MIN
    out["screen-raw-below"] = count(short)
    out["screen-raw-min"] = f"{results.raw_removal.min():.2f}"
    out["screen-raw-short-lost"] = (f"{(short & lost).sum()} of them also crossed the kept/lost threshold"
                                    if (short & lost).any() else
                                    "though none crossed the kept/lost threshold")
    out["screen-score-min"] = str(criteria.SCORE_MIN)
    out["screen-removal-min"] = str(criteria.REMOVAL_MIN)
    return out


def rate_table(rate: pd.DataFrame):
    return captioned(rate, RATE_HEADERS,
                     "Loss rate under each kept/lost rule with its exact (Clopper–Pearson) 95% "
                     "interval, and the probability of at least m losses among eight runs at that rate.")


NO_LOSS_NOTE = "(at the upper end of the interval: with no loss seen, the rate itself is 0)"


def chance_of_losses(rate_row, m: int) -> str:
    """The probability of at least m losses in a study, from a row of the screen's rate table:
    ``p (low to high ...)`` at the rate and at the ends of its interval; with no loss observed
    the rate is 0, so only the upper end says anything: ``at most high`` (``NO_LOSS_NOTE`` says
    why, once per sentence)."""
    p, low, high = (float(rate_row[f"p_at_least_{m}{k}"]) for k in ("", "_low", "_high"))
    if float(rate_row["losses"]) == 0:
        return f"at most {high:.2f}"
    return f"{p:.2f} ({low:.2f} to {high:.2f} at the interval's ends)"


def screen_scope(rate: pd.DataFrame | None, earlier_definitions: bool = False) -> str:
    """The report's scope sentence on lost anchors, from the loss-rate screen's ``rate`` table
    (its net-removal row), or, without one, a sentence that makes no claim; with
    ``earlier_definitions`` it says that the screen was measured under the earlier ones."""
    if rate is None:
        return ("The loss-rate screen that would provide it has not been run yet, so this page "
                "makes no claim that a given number of losses is, or is not, an effect of the "
                "rotation.")
    r = rate.set_index("rule").loc["net removal"]
    n = int(r["study_runs"])

    def p(m: int) -> str:
        return chance_of_losses(r, m)

    return (f"The loss-rate screen ({int(r['runs'])} seeds of falloff under plain Adam, "
            f"{int(r['losses'])} lost) puts the loss rate at {r['rate']:.3f} (exact 95% interval "
            f"{r['low']:.3f} to {r['high']:.3f}); at that rate {n} runs show at least one loss "
            f"with probability {p(1)}, at least two with {p(2)} and at least three with {p(3)}"
            + (f" {NO_LOSS_NOTE}." if int(r["losses"]) == 0 else ".") + (
                " These counts use the earlier removal, against the evidence null "
                "(see the screen's page)." if earlier_definitions else ""))


def measured_before_bounded_removal(results: pd.DataFrame) -> bool:
    """Whether a study's ``results`` table predates removal against the null of another op (it
    has no over-removal column): its removals are ratios to the evidence null."""
    return "over_removal" not in results.columns


EARLIER_DEFINITIONS = (
    "This screen's tables were measured before removal was taken against the null of another op "
    "and before the spike needed to stand out: its removals are ratios to the evidence null and "
    "its spike is the largest-share axis. Its runs' weights are not in the repository (too large "
    "to publish), so re-measuring it means retraining them.")
