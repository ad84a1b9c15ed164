"""The second regime's viability check, at the calibration seeds, before any paper seed trains.

The rule (``RULE``) was fixed before the runs were read (issue 26). Falloff and its control are
trained in the second regime at the calibration seeds under both optimizers, to the regime's
length (1600 epochs; the weights at 400 and 800 kept) and, as a cheaper option, to 800 epochs with
the same decay fraction. Falloff is measured against its control at the end of each run
(``measure_pair``, no sweep) and every control's premise with the scout's measures.

This is a check that the study can be asked in the regime, not a calibration: the method
(recipes, weights, doses) stays frozen and nothing is tuned. Plain Adam's outcome is not a
condition (it is what the report asks about) and is reported whatever it is; the calibration
criteria of the weak-basis regime are shown beside each run, not applied as a gate.
"""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd

from anchorkit.engine import regimes
from anchorkit.studies import scout
from anchorkit.measures import criteria
from anchorkit.engine.executor import execute
from anchorkit.engine.formatting import and_list, captioned
from anchorkit.measures.measure import KEPT_THRESHOLD
from anchorkit.core.optimizers import PLAIN_ADAM, ROTATED_ADAM, optimizer
from anchorkit.engine.profiles import SCOUT as SCOUT_PROFILE
from anchorkit.engine.profiles import Profile
from anchorkit.engine.profiles import profile as resolve_profile
from anchorkit.engine.provenance import source_state, write_study
from anchorkit.core.store import RunStore
from anchorkit.core.task import OPS

REGIME = regimes.SECOND  # the regime the check judges
SEEDS = scout.SEEDS
RUNS = {regimes.SECOND_EPOCHS: (400, 800, 1600), 800: (800,)}  # run length → epochs measured
SHORT = 800  # the cheaper length
SPILL_MAX = criteria.SPILL_MAX
SCORE_MIN = 0.90  # every op, falloff and its control
# the cheaper length's premise, on both seeds
SHORT_PREMISE = {"rotated_share": 0.3, "rotated_ratio": 2.0, "twin_axes_max": 0.10,
                 "score_min": 0.93}

RULE = f"""\
**Go on** to the paper seeds if, under **rotated** Adam, at least one of the two calibration seeds
keeps the {{term}}`anchor <Anchor>` at the end of the {regimes.SECOND_EPOCHS}-epoch runs by the
kept/lost rule on raw {{term}}`removal <Removal>` (at least {KEPT_THRESHOLD}) with
{{term}}`spill <Spill>` at most {SPILL_MAX} and every op scoring at least {SCORE_MIN} in both
falloff and its {{term}}`control <Control>`. Plain Adam's outcome is reported, not a condition.
**Train {SHORT} epochs instead** (the same decay fraction, half the cost) if the {SHORT}-epoch runs
also meet that rule and, on both seeds, the rotated control's top rotated axis holds at least
{SHORT_PREMISE['rotated_share']} of the energy at {SHORT_PREMISE['rotated_ratio']:g}× the next or
more, its coordinate axes at most {SHORT_PREMISE['twin_axes_max']}, and every op of every control
scores at least {SHORT_PREMISE['score_min']}."""


def _scores_ok(row, roles=("anchored", "control"), least: float = SCORE_MIN) -> bool:
    return all(row[f"{role}_score_{op}"] >= least for role in roles for op in OPS)


def keeps(row) -> bool:
    """Whether one falloff run (a row of ``anchors``) meets the rule: raw removal, spill, ops."""
    return bool(row["raw_removal"] >= KEPT_THRESHOLD and row["spill"] <= SPILL_MAX
                and _scores_ok(row))


def viable(anchors: pd.DataFrame) -> bool:
    """At least one rotated falloff run keeps its anchor by the rule (rows of one run length,
    measured at its end)."""
    rot = anchors[anchors.optimizer == ROTATED_ADAM.name]
    return bool(len(rot) and any(keeps(r) for _, r in rot.iterrows()))


def premise_short_enough(premise: pd.DataFrame) -> bool:
    """The cheaper length's premise on every seed (rows of the controls at that length)."""
    rot = premise[premise.optimizer == ROTATED_ADAM.name]
    if rot.seed.nunique() < len(SEEDS) or premise.seed.nunique() < len(SEEDS):
        return False
    s = SHORT_PREMISE
    return bool((rot.top_share_rotated >= s["rotated_share"]).all()
                and (rot.top_ratio_rotated >= s["rotated_ratio"]).all()
                and (rot.top_share_axes <= s["twin_axes_max"]).all()
                and (premise.min_score >= s["score_min"]).all())


def decide(anchors: pd.DataFrame, premise: pd.DataFrame) -> dict:
    """The decision: go on or not, and at which length (``anchors`` and ``premise`` carry
    ``run_epochs``, the run's length, and ``epochs``, the weights measured)."""
    def at_end(t, length):
        return t[(t.run_epochs == length) & (t.epochs == length)]

    full = viable(at_end(anchors, regimes.SECOND_EPOCHS))
    short = (viable(at_end(anchors, SHORT)) and premise_short_enough(at_end(premise, SHORT)))
    epochs = (SHORT if short else regimes.SECOND_EPOCHS) if full else None
    return {"regime": REGIME.name, "viable": full, "short_viable": short, "epochs": epochs}


def run_lengths(profile: Profile) -> dict[int, tuple[int, ...]]:
    """Each run length of the check and the epochs measured in it: ``RUNS``, or for a profile
    that fixes its runs' length (the quick one), that length and its half."""
    if profile.epochs is None:
        return RUNS
    return {profile.epochs: (profile.epochs // 2, profile.epochs)}


def viability_runs(profile: Profile = SCOUT_PROFILE):
    """Every run of the check: controls and falloff, both optimizers, both seeds, each length."""
    return [c for length in run_lengths(profile)
            for c in scout.scout_runs([REGIME], SEEDS, ("control", "falloff"), length, profile)]


def run_viability(reports_dir=None, store=None, scheduler: str | None = None,
                  profile: str = "scout", progress: bool = True, publish: bool = False
                  ) -> dict[str, pd.DataFrame]:
    """Train what is missing, measure, decide; write ``premise``, ``anchors`` and ``decision``
    to ``reports_dir/<regime>/viability/`` with provenance (the committed ``reports/`` only with
    ``publish``). ``profile`` is a name or a ``Profile``."""
    t0, source = time.perf_counter(), source_state()
    profile = resolve_profile(profile)
    store = store if store is not None else RunStore()
    premise_rows, anchor_rows = [], []
    for length, measured in run_lengths(profile).items():
        for recipe, rows in (("control", premise_rows), ("falloff", anchor_rows)):
            graph, _ = scout.scout_graph([REGIME], SEEDS, measured, store, profile, recipe)
            out = execute(graph, scheduler, progress, desc=f"viability {length} {recipe}",
                          measured="measurements")
            for v in out.values():
                row = v[0] if recipe == "control" else v
                rows.append({**row, "run_epochs": length})
    premise, anchors = pd.DataFrame(premise_rows), pd.DataFrame(anchor_rows)
    anchors["keeps"] = [keeps(r) for _, r in anchors.iterrows()]
    tables = {"premise": premise, "anchors": anchors,
              "decision": pd.DataFrame([decide(anchors, premise)])}
    if reports_dir is not None:
        where = REGIME.reports(reports_dir) / "viability"
        write_study(Path(where), tables, "viability", list(SEEDS), profile.name,
                    viability_runs(profile), time.perf_counter() - t0, source, REGIME.name,
                    publish=publish)
    return tables


def decision_text(tables: dict[str, pd.DataFrame]) -> str:
    """The check's outcome in words, from its tables: the decision, and per optimizer how many
    falloff runs kept the anchor by the rule at the regime's length."""
    d = tables["decision"].iloc[0]
    a = tables["anchors"]
    full = a[(a.run_epochs == regimes.SECOND_EPOCHS) & (a.epochs == regimes.SECOND_EPOCHS)]

    def kept(opt):
        rows = full[full.optimizer == opt]
        return f"{int(rows.keeps.sum())} of {len(rows)}"

    counts = (f"at {regimes.SECOND_EPOCHS} epochs, {kept('rotated')} rotated and {kept('adam')} "
              "plain-Adam falloff runs keep the anchor by the rule")
    if not bool(d["viable"]):
        return (f"Not viable: {counts}, so the report's study is not run in the {REGIME.name} regime "
                "and the book says so.")
    length = int(d["epochs"])
    why = ("the cheaper length also meets the rule and the premise on both seeds" if length == SHORT
           else f"the cheaper length of {SHORT} epochs does not meet the rule and the premise on "
                "both seeds")
    return (f"Viable: {counts}; the paper seeds are trained to {length} epochs ({why}).")


def anchor_table(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per falloff run measured at the end of its run: the rule's quantities."""
    a = tables["anchors"]
    a = a[a.epochs == a.run_epochs].sort_values(["run_epochs", "optimizer", "seed"])
    low = a[[c for c in a.columns if c.startswith(("anchored_score_", "control_score_"))]]
    return pd.DataFrame({
        "epochs": a.run_epochs, "optimizer": a.optimizer.map(lambda n: optimizer(n).label),
        "seed": a.seed, "raw removal": a.raw_removal, "net removal": a.net_removal,
        "spill": a.spill, "lowest op score (either run)": low.min(axis=1),
        "alignment, slice 3": a.alignment_3, "alignment, slice 4": a.alignment_4,
        "keeps the anchor": a.keeps.map({True: "yes", False: "no"})})


def findings_text(tables: dict[str, pd.DataFrame]) -> str:
    """What the check shows beyond its decision, from its tables at the regime's length: plain
    Adam's falloff runs (reported, not a condition) and the controls' premise, per seed."""
    L = regimes.SECOND_EPOCHS
    a, p = tables["anchors"], tables["premise"]
    a = a[(a.run_epochs == L) & (a.epochs == L)].sort_values("seed")
    p = p[(p.run_epochs == L) & (p.epochs == L)].sort_values("seed")
    plain = a[a.optimizer == PLAIN_ADAM.name]
    low = plain[[c for c in plain.columns if c.startswith(("anchored_score_", "control_score_"))]]

    def values(col, rows=plain, fmt=".2f"):
        return and_list([f"{x:{fmt}}" for x in rows[col]])

    pa, pr = p[p.optimizer == PLAIN_ADAM.name], p[p.optimizer == ROTATED_ADAM.name]
    seeds = and_list([str(s) for s in plain.seed])
    return (f"Under plain Adam (seeds {seeds}, {L} epochs), falloff's raw removal was "
            f"{values('raw_removal')}, its control's drop under the same edit "
            f"{values('control_drop')}" + (
                " (a drop of 1 or more: that control loses difference entirely when e₁ is "
                "projected out)" if (plain.control_drop >= 1).any() else "")
            + f", alignment at slice 4 {values('alignment_4')}, and the lowest op "
            f"score of falloff or its control {and_list([f'{x:.3f}' for x in low.min(axis=1)])}. "
            f"The controls' premise at {L} epochs: under plain Adam the top coordinate axis holds "
            f"{values('top_share_axes', pa)} of the last slice's energy "
            f"({values('top_ratio_axes', pa, '.1f')} times the next, kurtosis "
            f"{values('kurtosis_axes', pa, '.1f')}); under rotated Adam the top rotated axis holds "
            f"{values('top_share_rotated', pr)} ({values('top_ratio_rotated', pr, '.1f')} times "
            f"the next, kurtosis {values('kurtosis_rotated', pr, '.1f')}), its coordinate axes "
            f"at most {values('top_share_axes', pr)}")


def anchor_page_table(tables: dict[str, pd.DataFrame]):
    """``anchor_table`` as a reader's table, with its caption."""
    t = anchor_table(tables)
    return captioned(t, {c: c for c in t.columns},
                     "Falloff against its control in the second regime at the calibration seeds, at the "
                     "end of each run: the viability rule's quantities (removal bounded; lowest op score "
                     "of falloff and its control).")
