"""Where difference lives when e₁ is gone (the diagnosis study, part 1).

Two readings of one question, per run of the rotated-basis study (falloff runs and controls, both
arms), on its published weights:

- **probe**: is "difference vs the other ops" still linearly readable from the residual stream
  once e₁ is projected out? A logistic probe per slice on the mean state over a context's example
  answers, fitted on the even probe contexts and scored on the odd ones, before and after the e₁
  edit (every slice and position, full dose); its balanced accuracy with an exact interval.
- **rank**: how many directions carry the op? Removal curves by rank: project out e₁ plus k − 1
  erasure directions (``erasure_directions``, defined in ``diagnosis``) at every slice and
  position, full dose, k = 1…8: raw removal and raw spill at each k, beside the mean of
  ``RANK_DRAWS`` random subspaces of the same rank (e₁ plus k − 1 random directions). The
  effective rank and the per-arm verdict follow ``diagnosis.PREDICTIONS["rank"]``.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import torch
from concept_erasure import LeaceFitter
from scipy.stats import beta

from anchorkit.measures import criteria
from anchorkit.core.config import RunConfig, generator
from anchorkit.studies.diagnosis import (DIFFUSE_OVER_RANDOM, FAMILIES, FIT_CONTEXTS_PER_OP, LOW_RANK,
                                 OVER_RANDOM, PROBE_CHANCE, PROBE_READABLE, RANK_DRAWS, RANKS)
from anchorkit.core.edit import e1 as axis_e1, project_out_subspace, projection_edit
from anchorkit.core.scores import query_predictions, scores_of_predictions
from anchorkit.measures.measure import (DIFFERENCE, drop, null_of_other_ops, other_ops_drop, span,
                                        subspace_predictions)
from anchorkit.measures.probe import probe_predictions
from anchorkit.core.model import Transformer, every_slice, slice_states
from anchorkit.core.task import OPS, Batch, draw_contexts, positions, probe_set
from anchorkit.core.train import load_model

LOW_RANK_VERDICT, DIFFUSE, NEITHER = "low-rank redundancy", "a diffuse code", "neither"
LEVEL = 0.95


# ---------------------------------------------------------------------- the probe
def probe_fit(features: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """``probe.probe_predictions`` (fitted on the even rows, predicting the odd ones), once both
    halves hold both classes."""
    for rows, name in ((labels[::2], "even"), (labels[1::2], "odd")):
        if rows.all() or not rows.any():
            raise ValueError(f"the probe needs both classes among the {name} rows")
    return probe_predictions(features, labels)


def balanced_accuracy(pred: torch.Tensor, truth: torch.Tensor, level: float = LEVEL
                      ) -> tuple[float, float, float]:
    """The mean of the two classes' hit rates, and an interval at ``level`` from each rate's
    exact (Clopper–Pearson) interval at 1 − (1 − level)/2 (so both hold together at ``level`` at
    least), averaged."""
    a = (1 - level) / 2
    rates, lows, highs = [], [], []
    for hits, n in ((int(pred[truth].sum()), int(truth.sum())),
                    (int((~pred[~truth]).sum()), int((~truth).sum()))):
        rates.append(hits / n)
        lows.append(0.0 if hits == 0 else float(beta.ppf(a / 2, hits, n - hits + 1)))
        highs.append(1.0 if hits == n else float(beta.ppf(1 - a / 2, hits + 1, n - hits)))
    return float(np.mean(rates)), float(np.mean(lows)), float(np.mean(highs))


def readable(accuracy: float, low: float) -> bool:
    """The op is readable when the probe's balanced accuracy exceeds PROBE_READABLE and its
    interval excludes chance."""
    return accuracy > PROBE_READABLE and low > PROBE_CHANCE


def answer_features(slices: list[torch.Tensor], task) -> torch.Tensor:
    """(S, B, D): at every slice, the mean state over each context's example answers (one run)."""
    at = positions(task).example_answers
    return torch.stack([x[0, :, at].mean(1) for x in slices]).double()


def probe_rows(model: Transformer, batch: Batch) -> list[dict]:
    """Per slice, before and after the e₁ edit: the probe's balanced accuracy for "difference vs
    the other ops", its interval and whether the op is readable there."""
    truth = (batch.ops == DIFFERENCE)[1::2]
    e1 = axis_e1(model.cfg.d_model)
    rows = []
    for when, hooks in (("before", None), ("after", projection_edit(e1, 1.0, model.n_slices))):
        with torch.inference_mode():
            slices = slice_states(model.run_with_cache(batch.tokens, model.hook_names("resid"), hooks)[1])
        features = answer_features(slices, model.task)
        for s in range(features.shape[0]):
            acc, low, high = balanced_accuracy(probe_fit(features[s], batch.ops == DIFFERENCE),
                                               truth)
            rows.append({"edit": when, "slice": s, "accuracy": acc, "low": low, "high": high,
                         "readable": readable(acc, low)})
    return rows


# ---------------------------------------------------------------------- erasure directions
def fitted_at(task, family: str) -> list[int]:
    """The positions a family of erasure directions is fitted at (``diagnosis.FAMILIES``)."""
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {sorted(FAMILIES)}, not {family!r}")
    where = positions(task)
    return where.example_answers if family == "answers" else [where.query]


def pulled_states(model: Transformer, batch: Batch, hooks, family: str = "answers"
                  ) -> tuple[torch.Tensor, torch.Tensor]:
    """The states (N, D) at the family's positions (``fitted_at``) of the pulled slices 1…L
    (after the hooks) and whether each is in a difference context (N,)."""
    at = fitted_at(model.task, family)
    with torch.inference_mode():
        slices = slice_states(model.run_with_cache(batch.tokens, model.hook_names("resid"), hooks)[1])
    x = torch.stack([s[0, :, at] for s in slices[1:]])  # (L, B, k, D)
    z = (batch.ops == DIFFERENCE)[None, :, None].expand(*x.shape[:3])
    return x.reshape(-1, x.shape[-1]).double(), z.reshape(-1)


def read_direction(x: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
    """The direction LEACE's eraser reads the concept along (its ``proj_right``, ∝ Σ⁻¹Σ_xz with the
    package's shrinkage of Σ), unit, for a binary concept z on states x (N, D)."""
    eraser = LeaceFitter.fit(x, z.double()[:, None], method="leace").eraser
    d = eraser.proj_right[0]
    return d / d.norm()


def orthonormal_next(found: torch.Tensor, d: torch.Tensor) -> torch.Tensor:
    """d made orthogonal to the rows of ``found`` (twice, for float error) and unit."""
    for _ in range(2):
        d = d - found.T @ (found @ d)
    return d / d.norm()


def fitting_contexts(cfg: RunConfig) -> Batch:
    """Fresh contexts the erasure directions are fitted on (never the probe set), seeded by the
    run's seed: FIT_CONTEXTS_PER_OP per op."""
    ops = torch.arange(len(OPS)).repeat_interleave(FIT_CONTEXTS_PER_OP)
    return draw_contexts(cfg.task, ops, generator("erasure-fit", cfg.seed))


def erasure_directions(model: Transformer, batch: Batch, first: torch.Tensor,
                       k: int = RANKS[-1], family: str = "answers") -> torch.Tensor:
    """(k, D) orthonormal rows: ``first`` (e₁), then each next direction the LEACE read direction
    on the states at the family's positions of the pulled slices with the directions so far
    projected out at every slice."""
    found = (first / first.norm()).double()[None]
    while found.shape[0] < k:
        Q = found.T.float()[None, None, None]  # (1, 1, 1, D, j)
        hooks = every_slice(lambda x, Q=Q: project_out_subspace(x, Q.to(x.dtype)), model.n_slices)
        x, z = pulled_states(model, batch, hooks, family)
        found = torch.cat([found, orthonormal_next(found, read_direction(x, z))[None]])
    return found.float()


def random_subspaces(first: torch.Tensor, seed: int, draws: int = RANK_DRAWS,
                     k: int = RANKS[-1]) -> torch.Tensor:
    """(draws, k, D): ``first`` then k − 1 random directions, orthonormal (seeded)."""
    out = []
    for draw in range(draws):
        g = generator("rank-random", seed, draw)
        found = (first / first.norm()).double()[None]
        for v in torch.randn(k - 1, first.shape[0], generator=g, dtype=torch.float64):
            found = torch.cat([found, orthonormal_next(found, v)[None]])
        out.append(found.float())
    return torch.stack(out)


def nested(basis: torch.Tensor) -> torch.Tensor:
    """(k, k, D): for each rank j = 1…k the first j rows of ``basis`` (k, D), the rest zero."""
    k = basis.shape[0]
    mask = torch.tril(torch.ones(k, k))[:, :, None]
    return mask * basis[None]


# ---------------------------------------------------------------------- rank curves
def unedited(cfg: RunConfig, state: dict) -> tuple[Transformer, Batch, torch.Tensor, torch.Tensor]:
    """A run's model and probe set, its unedited scores on them and each op's span (what the
    removal curves are measured against)."""
    model = load_model([cfg], [state])
    probe = probe_set(cfg.task).clean
    with torch.inference_mode():
        clean_pred = query_predictions(model, probe)
        clean = scores_of_predictions(clean_pred, probe)[0]
        return model, probe, clean, span(clean, null_of_other_ops(clean_pred, probe)[0])


def rank_curves(cfg: RunConfig, state: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One run's removal curves by rank (raw removal, raw spill: erasure subspace and the mean of
    the random ones) and its probe rows."""
    model, probe, clean, spans = unedited(cfg, state)
    e1 = axis_e1(cfg.model.d_model)
    erasure = erasure_directions(model, fitting_contexts(cfg), e1)
    randoms = random_subspaces(e1, cfg.seed)
    subspaces = torch.cat([nested(erasure)] + [nested(r) for r in randoms])  # (K·(1+draws), K, D)
    drops = drop(clean, scores_of_predictions(subspace_predictions(model, probe, subspaces),
                                              probe))  # (n, n_ops)
    K = len(RANKS)
    removal = (drops[:, DIFFERENCE] / spans[DIFFERENCE]).view(1 + RANK_DRAWS, K)
    spill = other_ops_drop(drops).view(1 + RANK_DRAWS, K)
    who = {"run": cfg.name, "seed": cfg.seed, "optimizer": cfg.optimizer, "recipe": cfg.recipe}
    curves = pd.DataFrame({**who, "k": list(RANKS), "removal": removal[0].numpy(),
                           "spill": spill[0].numpy(),
                           "random_removal": removal[1:].mean(0).numpy(),
                           "random_spill": spill[1:].mean(0).numpy()})
    probes = pd.DataFrame(probe_rows(model, probe)).assign(**who)
    return curves, probes


def family_curves(cfg: RunConfig, state: dict, family: str, random: pd.DataFrame
                  ) -> pd.DataFrame:
    """One run's removal and spill curves by rank for another family of erasure directions
    (``fitted_at``), beside the random subspaces' mean that part 1 measured for the run
    (``random``: its ``rank_curves`` rows, which the same seed would draw again)."""
    model, probe, clean, spans = unedited(cfg, state)
    with torch.inference_mode():
        found = erasure_directions(model, fitting_contexts(cfg), axis_e1(cfg.model.d_model),
                                   family=family)
        drops = drop(clean, scores_of_predictions(
            subspace_predictions(model, probe, nested(found)), probe))
    mine = random[random.run == cfg.name].sort_values("k")
    if list(mine.k) != list(RANKS):
        raise ValueError(f"part 1's rank curves lack run {cfg.name}'s k = {list(RANKS)}")
    return pd.DataFrame({"run": cfg.name, "seed": cfg.seed, "optimizer": cfg.optimizer,
                         "recipe": cfg.recipe, "family": family, "k": list(RANKS),
                         "removal": (drops[:, DIFFERENCE] / spans[DIFFERENCE]).numpy(),
                         "spill": other_ops_drop(drops).numpy(),
                         "random_removal": mine.random_removal.to_numpy(),
                         "random_spill": mine.random_spill.to_numpy()})


def effective_rank(curve: pd.DataFrame) -> int | None:
    """The smallest k whose raw removal reaches the calibration's removal criterion with raw spill
    within its spill criterion; None ("none up to 8") when no k does."""
    ok = curve[(curve.removal >= criteria.REMOVAL_MIN) & (curve.spill <= criteria.SPILL_MAX)]
    return int(ok.k.min()) if len(ok) else None


def e1_spill_cap(curve: pd.DataFrame) -> float:
    """The spill a subspace may have to be compared with the e₁ edit at matched spill: the e₁
    edit's own raw spill (k = 1), or the spill criterion where e₁'s is within it."""
    return max(criteria.SPILL_MAX, float(curve[curve.k == 1].spill.iloc[0]))


def effective_rank_at(curve: pd.DataFrame, spill_cap: float) -> int | None:
    """The smallest k whose raw removal reaches the removal criterion with raw spill at most
    ``spill_cap``; None when no k up to 8 does."""
    ok = curve[(curve.removal >= criteria.REMOVAL_MIN) & (curve.spill <= spill_cap)]
    return int(ok.k.min()) if len(ok) else None


def rank_verdict(ranks: list[int | None], over_at_rank: list[float], over_at_top: list[float]
                 ) -> str:
    """The per-arm rule: ``ranks`` the runs' effective ranks, ``over_at_rank`` how much more the
    erasure subspace removes than the random one at each run's effective rank (the runs with
    one, in order), ``over_at_top`` the same at k = 8 (every run). At k = 1 both subspaces are e₁
    itself, so the excess is 0 by construction and says nothing: a run whose effective rank is 1
    (e₁ alone meets the criteria) passes the comparison (revised 2026-12-03, ``REVISIONS``)."""
    n = len(ranks)
    ranked = [r for r in ranks if r is not None]
    excess = [math.inf if r == 1 else o for r, o in zip(ranked, over_at_rank)]
    low = [r for r in ranked if r <= LOW_RANK]
    if 2 * len(low) >= n and len(excess) and np.median(excess) >= OVER_RANDOM:
        return LOW_RANK_VERDICT
    if 2 * sum(r is None for r in ranks) >= n and np.median(over_at_top) <= DIFFUSE_OVER_RANDOM:
        return DIFFUSE
    return NEITHER


def ranks_table(curves: pd.DataFrame) -> pd.DataFrame:
    """Per run: its effective rank (NaN: none up to 8), and the erasure subspace's removal beyond
    the random one at that rank and at k = 8; at matched spill, the e₁ edit's own spill, the
    effective rank with spill up to it (``e1_spill_cap``) and the largest removal within it."""
    rows = []
    for (run, seed, optimizer, recipe), g in curves.groupby(
            ["run", "seed", "optimizer", "recipe"], sort=False):
        g = g.sort_values("k")
        r = effective_rank(g)
        over = g.removal - g.random_removal
        cap = e1_spill_cap(g)
        matched = effective_rank_at(g, cap)
        rows.append({"run": run, "seed": seed, "optimizer": optimizer, "recipe": recipe,
                     "effective_rank": np.nan if r is None else r,
                     "over_random_at_rank": np.nan if r is None else float(over[g.k == r].iloc[0]),
                     "over_random_at_top": float(over[g.k == RANKS[-1]].iloc[0]),
                     # at matched spill (added 2026-12-04, diagnosis.REVISIONS["rank: matched spill"])
                     "e1_spill": float(g[g.k == 1].spill.iloc[0]),
                     "effective_rank_at_e1_spill": np.nan if matched is None else matched,
                     "removal_at_e1_spill": float(g[g.spill <= cap].removal.max())})
    return pd.DataFrame(rows)


def rank_verdicts(ranks: pd.DataFrame) -> pd.DataFrame:
    """Per arm, over its falloff runs: how many have an effective rank at most LOW_RANK, how many
    none up to 8, the median effective rank (none counted as above 8) and the verdict."""
    rows = []
    for optimizer, g in ranks[ranks.recipe != "control"].groupby("optimizer", sort=False):
        rk = [None if pd.isna(r) else int(r) for r in g.effective_rank]
        at_rank = g.over_random_at_rank.dropna().tolist()
        rows.append({"optimizer": optimizer, "runs": len(g),
                     "low_rank": sum(r is not None and r <= LOW_RANK for r in rk),
                     "none": sum(r is None for r in rk),
                     "median_rank": float(np.median([RANKS[-1] + 1 if r is None else r
                                                     for r in rk])),
                     "median_over_random_at_top": float(g.over_random_at_top.median()),
                     # of the runs e₁ alone leaves short, those a few more directions rescue at
                     # the e₁ edit's own spill (matched spill) rather than at the criterion's
                     "short": int((g.effective_rank != 1).sum()),
                     "rescued_at_e1_spill": int(((g.effective_rank != 1) & g.effective_rank_at_e1_spill
                                                 .between(2, RANKS[-1])).sum()),
                     "verdict": rank_verdict(rk, at_rank, g.over_random_at_top.tolist())})
    return pd.DataFrame(rows)


def beyond_input(probes: pd.DataFrame) -> pd.Series:
    """Per run (its name): whether, after the e₁ edit, the probe's accuracy interval lies above
    the run's own slice-0 accuracy at every one of slices 1–4. Slice 0 sees only the input tokens,
    so its level (about 0.73 here, above ``PROBE_READABLE``) is what a probe reads without any
    computation; the op is read *beyond the input* only above it."""
    after = probes[probes.edit == "after"]
    level = after[after.slice == 0].set_index("run").accuracy
    deep = after[after.slice >= 1]
    above = deep.low > deep.run.map(level)
    return above.groupby(deep.run, sort=False).all()


def probe_verdicts(probes: pd.DataFrame) -> pd.DataFrame:
    """Per arm and recipe: on how many runs the op is readable after the e₁ edit at every one of
    slices 1–4, and the lowest accuracy there."""
    after = probes[(probes.edit == "after") & (probes.slice >= 1)]
    per_run = after.groupby(["optimizer", "recipe", "run"], sort=False).agg(
        readable=("readable", "all"), lowest=("accuracy", "min"))
    out = per_run.groupby(["optimizer", "recipe"], sort=False).agg(
        runs=("readable", "size"), readable=("readable", "sum"), lowest=("lowest", "min"))
    return out.reset_index()
