"""The recipe recalibrated in the second regime (the Methods page, *Recalibration in the second
regime*; issue 44): the rule, written before any of its runs, and the decision it gives from
their tables.

The recipe of record met the calibration criteria on 0 of the second regime's 16 falloff runs, so
calibration reopens there (the Methods page, *Training*). The candidates (``anchorkit.core.candidates``)
are tried in their order on the calibration seeds ``SEEDS`` (none of the paper seeds), under
**plain** Adam first, each falloff run measured against the plain control at its seed. The rule:

- the **chosen** recipe is the first candidate, in order, whose falloff runs meet every
  calibration criterion (``criteria``: every op ≥ SCORE_MIN in the run and its control,
  alignment ≥ ALIGNMENT_HIGH at slices 3 and 4, |alignment| ≤ ALIGNMENT_LOW at the other ops'
  answers, raw removal ≥ REMOVAL_MIN, spill ≤ SPILL_MAX at every dose) on at least ``PASS`` of
  the 4 seeds under plain Adam; a later candidate never overtakes an earlier one, so the decision
  waits while an earlier candidate is not yet measured on every seed;
- the chosen recipe is then trained under **rotated** Adam at the same seeds (with the rotated
  controls) and its count there is reported whatever it is: it is the question's arm, not a gate;
- if **none** passes, the question cannot be asked in this model family with the recipe's
  levers, and the grid is the evidence: the book says so on the report, ledger and Methods pages
  and shows the grid (a result, not a failure).

Nothing here reads a paper seed. A candidate is new configuration: its runs have new hashes.
"""

from __future__ import annotations

import pandas as pd

from anchorkit.engine import regimes
from anchorkit.core import candidates
from anchorkit.measures import criteria
from anchorkit.core.config import RunConfig
from anchorkit.core.task import OPS
from anchorkit.core.optimizers import PLAIN_ADAM, ROTATED_ADAM

REGIME = regimes.SECOND
SEEDS = (1, 2, 3, 4)  # calibration seeds: 1 and 2 are the scout's and the viability check's
PAPER_SEEDS = range(704, 720)  # never calibrated on
PASS = 3  # seeds of the 4 on which a candidate must meet every criterion under plain Adam
ORDER = candidates.ORDER

CHOSEN, NONE_PASSES, PENDING = "chosen", "none passes", "pending"

RULE = f"""\
The candidates are tried in the order listed, on the calibration seeds {', '.join(map(str, SEEDS))}
(none of the paper seeds), under plain Adam first, each falloff run against the plain
{{term}}`control <Control>` at its seed, {REGIME.epochs} epochs in the {REGIME.title}. The
**chosen** recipe is the first candidate in that order whose falloff runs meet every calibration
criterion on at least {PASS} of the {len(SEEDS)} seeds: every op scores at least
{criteria.SCORE_MIN} in the run and its control, {{term}}`alignment <Alignment>` is at least
{criteria.ALIGNMENT_HIGH} at {{term}}`slices <Slice>` 3 and 4 and at most {criteria.ALIGNMENT_LOW}
in size at the other ops' answers, raw {{term}}`removal <Removal>` is at least
{criteria.REMOVAL_MIN} and {{term}}`spill <Spill>` at most {criteria.SPILL_MAX} at every
{{term}}`dose <Dose>`. The chosen recipe is then trained under rotated Adam at the same seeds and
its count there is reported whatever it is. If no candidate passes, the question cannot be asked
in this model family with the recipe's levers, and the grid is the evidence."""


def check_seeds_are_calibration(seeds) -> list[int]:
    """The seeds, refused (a ``ValueError`` naming them) if any is a paper seed."""
    bad = [s for s in seeds if s in PAPER_SEEDS]
    if bad:
        raise ValueError(f"seeds {bad} are paper seeds (704–719): the recalibration never reads "
                         "them")
    return list(seeds)


def runs(name: str, optimizer: str = "adam", seeds=SEEDS) -> list[tuple[RunConfig, RunConfig]]:
    """(falloff run of candidate ``name``, its control) at each seed, in the second regime at its
    own length and step."""
    seeds = check_seeds_are_calibration(seeds)
    falloff, control = REGIME.settings(name, optimizer), REGIME.settings("control", optimizer)
    return [(RunConfig(seed=s, **falloff), RunConfig(seed=s, **control)) for s in seeds]


MET = {"lowest op": lambda v: v >= criteria.SCORE_MIN,
       "alignment, slices 3–4": lambda v: v >= criteria.ALIGNMENT_HIGH,
       "|alignment|, other ops": lambda v: v <= criteria.ALIGNMENT_LOW,
       "raw removal": lambda v: v >= criteria.REMOVAL_MIN,
       "spill, any dose": lambda v: v <= criteria.SPILL_MAX}


def criteria_row(results: dict, alignment: pd.DataFrame, dose: pd.DataFrame) -> dict:
    """One falloff run beside the calibration criteria, from ``measure_pair``'s tables of its pair
    (its ``results`` row as a dict, its ``alignment`` and ``dose`` rows): the figure each
    criterion reads, whether it is met, and whether all are."""
    a = alignment[alignment.role == "anchored"]
    deep = a[(a.context == "difference") & a.slice.isin([3, 4])].alignment.min()
    other = a[a.context == "other"].alignment.abs().max()
    figures = {"lowest op": min(results[f"{role}_score_{op}"] for role in ("anchored", "control")
                                for op in OPS),
               "alignment, slices 3–4": float(deep), "|alignment|, other ops": float(other),
               "raw removal": float(results["raw_removal"]),
               "spill, any dose": float(dose.spill.max())}
    met = {k: bool(MET[k](v)) for k, v in figures.items()}
    return {"recipe": results.get("recipe"), "optimizer": results.get("optimizer"),
            "seed": int(results["seed"]), **figures,
            **{f"meets {k}": v for k, v in met.items()},
            "criteria met": sum(met.values()), "meets all": all(met.values())}


def decide(table: pd.DataFrame, order=ORDER, seeds=SEEDS, need: int = PASS) -> dict:
    """The rule's decision from the criteria rows (``criteria_row``) measured so far.

    ``verdict`` is ``chosen`` (``recipe`` names it), ``none passes`` (every candidate measured on
    every seed, none passing) or ``pending`` (``waiting`` names the first candidate in order not
    yet measured on every seed). ``tried`` lists, in order, each measured candidate's count of
    seeds meeting every criterion under plain Adam; ``rotated`` the chosen recipe's count under
    rotated Adam (None until measured)."""
    plain = table[table.optimizer == PLAIN_ADAM.name] if len(table) else table
    tried = []
    for name in order:
        mine = plain[plain.recipe == name] if len(plain) else plain
        if set(seeds) - set(mine.seed if len(mine) else ()):
            return {"verdict": PENDING, "recipe": None, "waiting": name, "tried": tried,
                    "rotated": None}
        passing = int(mine[mine.seed.isin(seeds)]["meets all"].sum())
        tried.append((name, passing))
        if passing >= need:
            rot = table[(table.optimizer == ROTATED_ADAM.name) & (table.recipe == name)]
            rotated = (int(rot["meets all"].sum()), len(rot)) if set(seeds) <= set(rot.seed) else None
            return {"verdict": CHOSEN, "recipe": name, "waiting": None, "tried": tried,
                    "rotated": rotated}
    return {"verdict": NONE_PASSES, "recipe": None, "waiting": None, "tried": tried,
            "rotated": None}


def decision_text(decision: dict, seeds=SEEDS) -> str:
    """The decision in words, from ``decide``'s value."""
    n = len(seeds)
    tried = "; ".join(f"{name}: {k} of {n}" for name, k in decision["tried"]) or "none yet"
    if decision["verdict"] == PENDING:
        return (f"Not yet decided: {decision['waiting']} is not measured on every calibration "
                f"seed (seeds meeting every criterion under plain Adam so far: {tried}).")
    if decision["verdict"] == NONE_PASSES:
        return (f"No candidate passes (seeds meeting every criterion under plain Adam: {tried}): "
                "the report's question cannot be asked in this model family with the recipe's "
                "levers, and the grid is the evidence.")
    rot = decision["rotated"]
    rotated = ("not yet trained under rotated Adam" if rot is None else
               f"under rotated Adam it meets every criterion on {rot[0]} of {rot[1]} seeds")
    return (f"Chosen: {decision['recipe']}, the first candidate in order to meet every criterion "
            f"on at least {PASS} of {n} seeds under plain Adam (so far: {tried}); {rotated}.")
