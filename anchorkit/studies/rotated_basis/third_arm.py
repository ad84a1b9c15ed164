"""The basis-free arm's paper set judged by its predictions (``basis_free.predictions_text``,
committed before the set trains; ``calibration/basis-free/predictions.md``), written before any
of its tables exists.

Every function reads a results table of the recalibrated column's pairs (one row per pair: its
``seed`` and ``optimizer``, ``adam``, ``rotated`` or the arm's, and the columns ``pairs`` writes)
and, for the sink of the anchor, its alignment table. How each prediction is read:

- **The premise absent** (``premise``): along the coordinate axes and along the seed's rotated
  axes, the arm's controls without a spike, counted (the prediction holds at ``SPIKE_FREE`` of
  16 or more, each basis); their top share along the coordinate axes, the basis plain Adam
  privileges, below the plain controls' at the same seed (exact one-sided Wilcoxon signed-rank
  at 5%) with a median under twice an even share (each basis); their per-position kurtosis
  along the coordinate axes with a median within ``KURTOSIS_BAND`` of the finite-D Gaussian
  value and below the plain controls' (paired, one-sided at 5%). A part is ``None`` (pending)
  until all 16 seeds are in.
- **The question against both arms** (``question``): the question's own test
  (``question.question_rows``) on the arm minus plain and the arm minus rotated, per seed.
- **The conjecture** (``conjecture``): (a) each syntax token's largest |cos| with a basis vector,
  its median over the arm's controls below chance (``directions.SYNTAX_CHANCE``), each basis;
  (b) raw spill of the e₁ edit, the arm minus rotated per seed, its median's exact 95% interval
  above zero; (c) alignment with e₁ at slices 3–4 in difference contexts of the falloff runs,
  the arm minus rotated per seed, its interval reported (no side predicted).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from anchorkit.core.optimizers import SHARED_ADAM
from anchorkit.core.task import SYNTAX
from anchorkit.measures.directions import SYNTAX_CHANCE
from anchorkit.measures.verdicts import median_interval
from anchorkit.studies.rotated_basis.question import question_rows
from anchorkit.studies.rotated_basis.basis_free import (EVEN, GAUSSIAN_KURTOSIS, PAPER_SEEDS,
                                                       SPIKE_FREE)
from anchorkit.studies.rotated_basis.confirmation import signed_rank_p

ARM = SHARED_ADAM.name
ALPHA = 0.05
KURTOSIS_BAND = 0.10  # "within 10%" of the Gaussian value
BASIS_NAMES = {"axes": "coordinate axes", "rotated": "rotated axes"}
SLICES = (3, 4)  # where the anchor sits: the conjecture's (c)
REPORTED = "(c) alignment against rotated's"  # the conjecture's part with no side predicted


def _arm(results: pd.DataFrame, optimizer: str) -> pd.DataFrame:
    return results[results["optimizer"] == optimizer].set_index("seed").sort_index()


def _complete(shared: pd.DataFrame) -> bool:
    return sorted(shared.index) == sorted(PAPER_SEEDS)


def premise(results: pd.DataFrame) -> pd.DataFrame:
    """The premise absent, part by part: ``part``, ``basis``, ``figure`` (in words), ``holds``
    (True, False, or None while the set is incomplete)."""
    shared, plain = _arm(results, ARM), _arm(results, "adam")
    done = _complete(shared)
    n = len(shared)
    rows = []
    for basis, name in BASIS_NAMES.items():
        free = int((~shared[f"control_has_spike_{basis}"].astype(bool)).sum())
        rows.append({"part": "no spike", "basis": name,
                     "figure": f"{free} of {n} controls without a spike",
                     "holds": bool(free >= SPIKE_FREE) if done else None})
    for basis, name in BASIS_NAMES.items():
        top = shared[f"control_top_share_{basis}"]
        med = float(top.median()) if n else np.nan
        part = {"part": "top share", "basis": name}
        if basis == "axes":  # below plain's, where plain Adam puts its basis
            d = (top - plain[f"control_top_share_{basis}"]).dropna()
            p = signed_rank_p(d.values, "less") if len(d) else np.nan
            rows.append({**part, "figure": f"median {med:.3f} (an even share is {EVEN:.4f}); "
                         f"below plain's on {int((d < 0).sum())} of {len(d)} seeds, one-sided "
                         f"p {p:.2g}", "holds": bool(p < ALPHA and med < 2 * EVEN) if done else None})
        else:
            rows.append({**part, "figure": f"median {med:.3f} (an even share is {EVEN:.4f})",
                         "holds": bool(med < 2 * EVEN) if done else None})
    k = shared["control_kurtosis_axes"]
    d = (k - plain["control_kurtosis_axes"]).dropna()
    p = signed_rank_p(d.values, "less") if len(d) else np.nan
    med = float(k.median()) if n else np.nan
    near = abs(med - GAUSSIAN_KURTOSIS) <= KURTOSIS_BAND * GAUSSIAN_KURTOSIS
    rows.append({"part": "kurtosis", "basis": BASIS_NAMES["axes"],
                 "figure": f"median {med:.2f} (Gaussian {GAUSSIAN_KURTOSIS:.2f}); below plain's "
                 f"on {int((d < 0).sum())} of {len(d)} seeds, one-sided p {p:.2g}",
                 "holds": bool(near and p < ALPHA) if done else None})
    return pd.DataFrame(rows)


def question(results: pd.DataFrame) -> pd.DataFrame:
    """The question's test against both other arms: one row per comparison and measure."""
    out = [question_rows(results, arms=(ARM, other)).assign(against=other)
           for other in ("adam", "rotated")]
    return pd.concat(out, ignore_index=True)


def _difference(a: pd.Series, b: pd.Series) -> dict:
    d = (a - b).dropna()
    med, low, high = median_interval(d.values)
    return {"seeds": len(d), "median difference": med, "interval low": low,
            "interval high": high, "larger on": int((d > 0).sum())}


def conjecture(results: pd.DataFrame, alignment: pd.DataFrame) -> pd.DataFrame:
    """The source's conjecture made testable, part by part: (a) the syntax tokens at chance,
    (b) raw spill above rotated's, (c) alignment against rotated's (reported)."""
    shared, rotated = _arm(results, ARM), _arm(results, "rotated")
    done = _complete(shared)
    rows = []
    for basis, name in BASIS_NAMES.items():
        cos = {sym: float(shared[f"control_syntax_cos_{sym}_{basis}"].median()) for sym in SYNTAX}
        above = [sym for sym, c in cos.items() if not c < SYNTAX_CHANCE]
        rows.append({"part": "(a) syntax at chance", "basis": name,
                     "figure": ", ".join(f"“{s}” {c:.2f}" for s, c in cos.items())
                     + f" (chance {SYNTAX_CHANCE:.2f})",
                     "holds": (not above) if done else None})
    spill = _difference(shared["raw_spill"], rotated["raw_spill"])
    rows.append({"part": "(b) spill above rotated's", "basis": "", **spill,
                 "figure": _said(spill), "holds": bool(spill["interval low"] > 0) if done else None})
    sits = alignment[(alignment["role"] == "anchored") & (alignment["context"] == "difference")
                     & alignment["slice"].isin(SLICES)]
    per = sits.groupby(["optimizer", "seed"])["alignment"].mean()
    at = {o: per.xs(o) if o in per.index.get_level_values(0) else pd.Series(dtype=float)
          for o in (ARM, "rotated")}
    sat = _difference(at[ARM], at["rotated"])
    rows.append({"part": REPORTED, "basis": "", **sat,
                 "figure": _said(sat), "holds": None})  # no side predicted: reported
    return pd.DataFrame(rows)


def _said(d: dict) -> str:
    return (f"median {d['median difference']:.3f} ({d['interval low']:.3f} to "
            f"{d['interval high']:.3f}), larger on {d['larger on']} of {d['seeds']} seeds")


# ---------------------------------------------------------------------- measuring the paper set
FOLDER = "basis-free"  # reports/<regime>/basis-free/


def _pair_task(item, store) -> dict[str, pd.DataFrame]:
    from anchorkit.engine.pairs import Pair, measured

    anchored, control = item
    return measured(Pair(anchored, control), True, store)


def measure(cfgs, store, scheduler=None, progress: bool = True) -> dict[str, pd.DataFrame]:
    """The arm's finished pairs (falloff with its control at a seed, from ``basis_free.paper_runs``)
    measured with the sweep, as the rotated-basis study measures its own (``pairs.measured``), a
    task per pair on the executor: ``results``, ``alignment`` and ``spectra``."""
    from anchorkit.engine.executor import each

    by = {(c.seed, c.recipe == "control"): c for c in cfgs if store.has_final(c)}
    items = [(by[(s, False)], by[(s, True)]) for s, control in sorted(by) if not control
             and (s, True) in by]
    out = each(_pair_task, items, store, scheduler=scheduler, progress=progress,
               desc="basis-free pairs")
    return {k: pd.concat([o[k] for o in out], ignore_index=True)
            for k in ("results", "alignment", "spectra")}


def tables(mine: dict[str, pd.DataFrame], others: dict[str, pd.DataFrame]
           ) -> dict[str, pd.DataFrame]:
    """What the arm's folder commits: its pairs' tables (``mine``, from ``measure``) and, judged
    with the other two arms' committed tables of the regime (``others``: the rotated-basis
    study's ``results`` and ``alignment``), the premise, the question and the conjecture."""
    results = pd.concat([others["results"], mine["results"]], ignore_index=True)
    alignment = pd.concat([others["alignment"], mine["alignment"]], ignore_index=True)
    return {**mine, "premise": premise(results), "question": question(results),
            "conjecture": conjecture(results, alignment)}
