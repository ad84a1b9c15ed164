"""The scout's regimes, seeds and lengths, and its decision rule, written before any scout run:
the levels of basis a regime reaches and the regime adopted (``anchorkit.studies.scout``)."""

from __future__ import annotations


import pandas as pd

from anchorkit.measures import criteria
from anchorkit.engine import regimes as _regimes
from anchorkit.core.config import RunConfig
from anchorkit.core.optimizers import ARM_NAMES
from anchorkit.engine.profiles import SCOUT as SCOUT_PROFILE
from anchorkit.engine.profiles import Profile
from anchorkit.core.task import OPS


SEEDS = (1, 2)  # calibration seeds: never 704-711 (the paper's) or 800-839 (the screen's)
LENGTHS = (400, 800, 1600)  # epochs at which the premise is measured (snapshots of one run)
# its profile: "scout", the method's task with every run trained with the compiled step
# (BENCHMARKS.md); "quick" for a smoke run of the pipeline (``anchorkit.engine.profiles``)

# the regimes screened (anchorkit.engine.regimes holds the catalogue)
REGIMES = _regimes.SCREENED

# Fixed on 2026-11-30 before any scout run (issue 16); judged at the calibration seeds only.
SCORE_MIN = criteria.SCORE_MIN  # every op, every run (control and falloff, both optimizers)
FUNCTIONAL_COST = 0.2  # cost of projecting the spike direction out (mean drop over ops) ...
FUNCTIONAL_RATIO = 5.0  # ... and at least this many times the median cost of the basis' others
REPORT_SHARE, REPORT_COS, REPORT_TOKENS = 0.3, 0.8, 3  # top-axis share; syntax |cos| on 3 of 4
CLEAR_SHARE, CLEAR_RATIO, CLEAR_KURTOSIS = 0.2, 2.0, 6.0  # plain control along the axes
ROTATED_AXES_MAX, ROTATED_KURTOSIS_MAX = 0.08, 3.2  # the rotated twin's coordinate axes stay flat
ROTATED_SHARE, ROTATED_RATIO = 0.2, 2.0  # the rotated twin's spike along its rotated axes
ANCHOR = {"alignment_high": criteria.ALIGNMENT_HIGH, "removal": criteria.REMOVAL_MIN,
          "spill": criteria.SPILL_MAX}  # book/methods.md, *Training* (removal: bounded)
LEVELS = ("none", "functional", "clear", "report-strength")

DECISION_RULE = f"""\
Every op scores at least {SCORE_MIN} in every run ({{term}}`control <Control>` and falloff, both
optimizers), and falloff meets the calibration's {{term}}`anchor <Anchor>` criteria ({{doc}}`/book/methods`):
{{term}}`alignment <Alignment>` at the difference answers at least {ANCHOR['alignment_high']} at
{{term}}`slices <Slice>` 3 and 4, {{term}}`removal <Removal>` at least {ANCHOR['removal']} (the
bounded definition) and {{term}}`spill <Spill>` at most {ANCHOR['spill']}. A seed's controls reach:

- a **functional {{term}}`spike <Spike>`**: projecting the plain-Adam control's top coordinate axis
  out at full {{term}}`dose <Dose>` costs at least {FUNCTIONAL_COST} (mean drop over ops) and at
  least {FUNCTIONAL_RATIO:g} times the median cost of its other axes; the same for the rotated
  {{term}}`twin <Twin>`'s top rotated axis;
- a **report-strength basis**: a functional spike, a top-axis share at the last slice of at least
  {REPORT_SHARE}, and a syntax embedding |cos| with some axis of at least {REPORT_COS} for at least
  {REPORT_TOKENS} of the 4 syntax tokens;
- a **clear basis**: a functional spike, a top-axis share of at least {CLEAR_SHARE} with
  top/second at least {CLEAR_RATIO:g} and {{term}}`kurtosis <Kurtosis>` along the axes at least
  {CLEAR_KURTOSIS:g}; the rotated twin's coordinate axes at most {ROTATED_AXES_MAX} (top share) with
  kurtosis at most {ROTATED_KURTOSIS_MAX}, and its rotated top share at least {ROTATED_SHARE} with
  top/second at least {ROTATED_RATIO:g}.

A regime and length reaches a level when every calibration seed does. The cheapest (fewest
training epochs) report-strength regime is adopted if any, else the cheapest clear-basis one; a
large but inert spike is reported, not adopted."""

# what the page that stands in for the scout's says besides, while its tables are not computed
PENDING = (f"\nThe decision rule it will apply, fixed before any scout run (regimes: "
           f"{', '.join(REGIMES)}; lengths: {', '.join(map(str, LENGTHS))} epochs; calibration "
           f"seeds {' and '.join(map(str, SEEDS))}):\n\n{DECISION_RULE}\n")


def regime_config(regime: _regimes.Regime, seed: int, recipe: str = "control",
                  optimizer: str = "adam", epochs: int = max(LENGTHS),
                  profile: Profile = SCOUT_PROFILE) -> RunConfig:
    """The run of a regime: today's configuration with the regime's changes, at a profile (its
    task and step)."""
    return RunConfig(seed=seed, **regime.settings(recipe, optimizer, epochs, profile.step,
                                                  profile.task))


def scout_runs(regimes=tuple(REGIMES.values()), seeds=SEEDS, recipes=("control",),
               epochs: int = max(LENGTHS), profile: Profile = SCOUT_PROFILE) -> list[RunConfig]:
    """Every run of the scout: each regime (a ``Regime``), recipe, optimizer and seed, twins side
    by side."""
    return [regime_config(r, s, rec, o, epochs, profile) for r in regimes for rec in recipes
            for s in seeds for o in ARM_NAMES]


# ---------------------------------------------------------------------- judging
def functional(x):
    """DECISION_RULE's functional spike, for one control's premise row (or, element-wise, for a
    premise table): its top direction's cost is at least FUNCTIONAL_COST and FUNCTIONAL_RATIO
    times the median cost of the other directions of its basis."""
    return ((x["top_cost"] >= FUNCTIONAL_COST)
            & (x["top_cost"] >= FUNCTIONAL_RATIO * x["median_other_cost"]))


def reversed_basis(r):
    """DECISION_RULE's rotated twin of a clear basis, for a rotated control's row (or table): flat
    along the coordinate axes, with a spike that stands out along its own rotated axes."""
    return ((r["top_share_axes"] <= ROTATED_AXES_MAX) & (r["kurtosis_axes"] <= ROTATED_KURTOSIS_MAX)
            & (r["top_share_rotated"] >= ROTATED_SHARE)
            & (r["top_ratio_rotated"] >= ROTATED_RATIO))


def seed_levels(premise_table: pd.DataFrame) -> pd.DataFrame:
    """Per regime, epochs and seed: which levels of DECISION_RULE its two controls reach (the
    basis criteria; the scores and anchor criteria are judged in ``decide``)."""
    rows = []
    for (regime, epochs, seed), g in premise_table.groupby(["regime", "epochs", "seed"]):
        by = {r["optimizer"]: r for _, r in g.iterrows()}
        if set(by) != set(ARM_NAMES):
            continue
        p, r = by["adam"], by["rotated"]

        func = bool(functional(p) and functional(r))
        report = bool(func and p["top_share_axes"] >= REPORT_SHARE
                      and p[f"syntax_tokens_over_{REPORT_COS}_axes"] >= REPORT_TOKENS)
        clear = bool(func and p["top_share_axes"] >= CLEAR_SHARE
                     and p["top_ratio_axes"] >= CLEAR_RATIO
                     and p["kurtosis_axes"] >= CLEAR_KURTOSIS and reversed_basis(r))
        scores = bool(min(p["min_score"], r["min_score"]) >= SCORE_MIN)
        level = "report-strength" if report else "clear" if clear else (
            "functional" if func else "none")
        rows.append({"regime": regime, "epochs": int(epochs), "seed": int(seed),
                     "functional": func, "clear": clear, "report_strength": report,
                     "controls_score": scores, "level": level})
    return pd.DataFrame(rows)


def regime_levels(levels: pd.DataFrame, n_seeds: int | None = None) -> pd.DataFrame:
    """Per regime and epochs: the level every calibration seed reaches (the weakest seed's; none
    unless all ``n_seeds``, default every seed of SEEDS, were judged), and whether every control
    scores at least SCORE_MIN."""
    n_seeds = n_seeds or len(SEEDS)
    rank = {name: i for i, name in enumerate(LEVELS)}
    rows = []
    for (regime, epochs), g in levels.groupby(["regime", "epochs"]):
        weakest = min(g["level"], key=rank.__getitem__)
        rows.append({"regime": regime, "epochs": int(epochs), "seeds": len(g),
                     "level": weakest if len(g) == n_seeds else "none",
                     "controls_score": bool(g["controls_score"].all())})
    return pd.DataFrame(rows)


def anchors_met(anchor_results: pd.DataFrame) -> bool:
    """Whether falloff meets book/methods.md, *Training* in every run given (``results`` rows of measure_pair plus
    ``alignment_3`` and ``alignment_4``): every op ≥ SCORE_MIN for both runs of the pair, high
    alignment at slices 3-4, bounded removal ≥ 0.8, spill ≤ 0.02."""
    if anchor_results.empty:
        return False
    ok = pd.Series(True, index=anchor_results.index)
    for role in ("anchored", "control"):
        for op in OPS:
            ok &= anchor_results[f"{role}_score_{op}"] >= SCORE_MIN
    ok &= anchor_results[["alignment_3", "alignment_4"]].min(axis=1) >= ANCHOR["alignment_high"]
    ok &= anchor_results["raw_removal"] >= ANCHOR["removal"]
    ok &= anchor_results["spill"] <= ANCHOR["spill"]
    return bool(ok.all())


def cost_first(regimes: pd.DataFrame) -> pd.DataFrame:
    """Cheapest first: fewest epochs (every regime trains the same contexts per epoch)."""
    return regimes.sort_values(["epochs", "regime"], kind="stable")


def decide(regimes: pd.DataFrame, anchors: dict[tuple[str, int], bool] | None = None
           ) -> dict:
    """The decision: the cheapest regime and length at the highest level reached (report
    strength, else clear basis) whose controls score and whose falloff meets the anchor criteria
    (``anchors`` maps (regime, epochs) to that; a candidate without it is ``pending``)."""
    anchors = anchors or {}
    for level in ("report-strength", "clear"):
        cands = regimes[(regimes["level"] == level) & regimes["controls_score"]]
        for _, c in cost_first(cands).iterrows():
            key = (c["regime"], int(c["epochs"]))
            if key not in anchors:
                return {"decision": "pending", "regime": key[0], "epochs": key[1],
                        "level": level}
            if anchors[key]:
                return {"decision": "adopt", "regime": key[0], "epochs": key[1], "level": level}
    return {"decision": "none", "regime": None, "epochs": None, "level": None}


