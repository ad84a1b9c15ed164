"""Helpers for the study pages: summaries over seeds, the provenance block, captioned tables.

Numbers quoted in a page's prose are summaries computed here from the study's tables and glued
into the text; nothing here knows a result.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

from anchorkit.formatting import number, unsigned_zero


def count(flags) -> str:
    """``k of n`` for a boolean column."""
    f = pd.Series(flags).astype(bool)
    return f"{int(f.sum())} of {len(f)}"


def count_moved(moved, anchored_has, control_has) -> str:
    """Whether falloff's spike moved, counted over the seeds where it is defined (both runs have a
    spike), with the other seeds split by their denominators: a spike in one run only, in neither.
    ``moved on k of n seeds where both runs have a spike (m with a spike in one run only, j in
    neither)``."""
    a = pd.Series(anchored_has, dtype=bool).to_numpy()
    c = pd.Series(control_has, dtype=bool).to_numpy()
    m = pd.Series(moved, dtype="boolean")
    both, one, neither = int((a & c).sum()), int((a ^ c).sum()), int((~a & ~c).sum())
    k = int(m[a & c].fillna(False).sum())
    rest = f"{one} with a spike in one run only, {neither} in neither"
    if both == 0:
        return f"cannot be compared: no seed where both runs have one ({rest})"
    return f"moved on {k} of the {both} seeds where both runs have a spike ({rest})"


def seed_text(seeds) -> str:
    """Seeds as a reader takes them in: ``704–711`` for a run of three or more, else a list."""
    seeds = list(seeds)
    if not seeds:
        return "none"
    if len(seeds) > 2 and seeds == list(range(seeds[0], seeds[-1] + 1)):
        return f"{seeds[0]}–{seeds[-1]}"
    return ", ".join(map(str, seeds))


def captioned(df: pd.DataFrame, headers: Mapping[str, str], caption: str, fmt: str = "{:.3f}"):
    """``df[headers]`` renamed to the headers (which carry ↑/↓ where a direction is better),
    numbers formatted, with a caption, as a pandas Styler."""
    out = df[list(headers)].rename(columns=dict(headers))
    numeric = [h for c, h in headers.items() if pd.api.types.is_float_dtype(df[c])]
    flags = [h for c, h in headers.items() if pd.api.types.is_bool_dtype(df[c])]
    other = [h for h in out.columns if h not in numeric and h not in flags]
    return (out.style.hide(axis="index")
            .format(lambda v: unsigned_zero(fmt.format(v)), subset=numeric, na_rep="–")
            .format(lambda v: "yes" if v else "no", subset=flags, na_rep="–")
            .format(subset=other, na_rep="–").set_caption(caption))


def pearson(x, y) -> tuple[float, int]:
    """Pearson r and n over the pairs where both are defined."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 3:
        return float("nan"), int(ok.sum())
    return float(np.corrcoef(x[ok], y[ok])[0, 1]), int(ok.sum())


def paired(a, b) -> str:
    """Seed by seed, how often ``a`` is above and below ``b``: ``higher in k, lower in j of n seeds``."""
    with np.errstate(invalid="ignore"):  # undefined values (e.g. no span) are left out
        d = np.asarray(a, float) - np.asarray(b, float)
    d = d[np.isfinite(d)]
    return f"higher in {int((d > 0).sum())}, lower in {int((d < 0).sum())} of {len(d)} seeds"


def glued(text):
    """Text to glue into a page's prose, marked (``<span class="glued">``) so that a reader or a
    test can tell numbers computed by the notebook from numbers typed into the prose."""
    from IPython.display import Markdown

    return Markdown(f'<span class="glued">{text}</span>')


def loss_rate(kept_flags, confidence: float = 0.95) -> dict:
    """How often runs lost their anchor: losses k of n, the rate k/n and its exact binomial
    (Clopper–Pearson) interval."""
    from scipy.stats import binomtest

    kept = pd.Series(kept_flags).astype(bool)
    n, k = len(kept), int((~kept).sum())
    if n == 0:
        raise ValueError("kept_flags: expected at least one run")
    ci = binomtest(k, n).proportion_ci(confidence_level=confidence, method="exact")
    return {"losses": k, "runs": n, "rate": k / n, "low": float(ci.low), "high": float(ci.high)}


def at_least(m: int, n: int, rate: float) -> float:
    """The probability of at least ``m`` losses in ``n`` runs when each loses with ``rate``."""
    from scipy.stats import binom

    return float(binom.sf(m - 1, n, rate))


def measured_before_bounded_removal(results: pd.DataFrame) -> bool:
    """Whether a study's ``results`` table predates removal against the null of another op (it
    has no over-removal column): its removals are ratios to the evidence null."""
    return "over_removal" not in results.columns


EARLIER_DEFINITIONS = (
    "This screen's tables were measured before removal was taken against the null of another op "
    "and before the spike needed to stand out: its removals are ratios to the evidence null and "
    "its spike is the largest-share axis. Its runs' weights are not in the repository (too large "
    "to publish), so re-measuring it means retraining them.")


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


def by_seed(df: pd.DataFrame, headers: Mapping[str, str], caption: str, fmt: str = "{:.3f}"):
    """A per-seed table turned on its side, so that a table of many measures fits the page: one
    row per measure (``headers`` maps its column to its label), one column per seed; numbers in
    ``fmt``, flags as yes/no, undefined values as "–". A pandas Styler with the caption."""
    def cell(v):
        if v is None or (not isinstance(v, str) and pd.isna(v)):
            return "–"
        if isinstance(v, (bool, np.bool_)):
            return "yes" if v else "no"
        if isinstance(v, (float, np.floating)):
            return unsigned_zero(fmt.format(v))
        return str(v)

    rows = {label: [cell(v) for v in df[col]] for col, label in headers.items() if col != "seed"}
    out = pd.DataFrame.from_dict(rows, orient="index", columns=[str(s) for s in df["seed"]])
    out.columns.name = "seed"
    return out.style.set_caption(caption)


def rerun_verdict(comparison: pd.DataFrame, prov: dict) -> str:
    """What a re-run from scratch showed, from its comparison table and its provenance record
    (``scripts.rerun_compare``): the machine and kernels it ran on, whether the retrained weights
    equal the published ones bit for bit, and how many values of the results table agree."""
    k = prov.get("kernels")
    where = ("on a machine that was not recorded" if not k else
             f"on {k['cpu']} ({', '.join(k['vector_extensions']) or 'no vector extensions'}; torch "
             f"kernels {k['capability']}, "
             + ("pinned to AVX2" if k.get("pinned") else "the machine's own, not pinned")
             + f"; {k['threads']} thread{'s' * (k['threads'] != 1)})")
    n, out = len(comparison), int((~comparison.within_tolerance).sum())
    tol = prov["tolerance"]
    weights = prov.get("weights_bitwise_equal")
    largest = number(float(comparison.difference.abs().max()), ".2g") if n else "–"
    values = (f"all {n} values of its results table agree within {tol:g}" if out == 0 else
              f"{out} of {n} values of its results table differ beyond {tol:g} (largest {largest})")
    if weights is None:
        w = "whether its weights equal the published ones was not recorded"
    elif all(weights.values()):
        w = (f"its final weights equal the published ones bit for bit ({len(weights)} of "
             f"{len(weights)} runs)")
    else:
        w = (f"its final weights differ from the published ones ({sum(weights.values())} of "
             f"{len(weights)} runs equal): training here rounded differently from the machine "
             "that trained them")
    return f"Retrained from scratch {where}, {w}; {values}."
