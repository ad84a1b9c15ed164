"""What a control's collateral damage tracks (the diagnosis study, part 2).

The source's mechanism: under rotated Adam, e₁ overlaps the vector holding a control's syntax
tokens by a cosine of about a quarter on two seeds, and there the control loses half or more of
difference under the e₁ edit. Here the overlap is set by hand: for v a vector of the control's own
basis (its energy spike, its syntax-holding vector, its costliest direction), project out
d = c·v + √(1 − c²)·u at full dose (u a random unit vector orthogonal to v, ``DRAWS`` draws) for
each c in ``OVERLAPS``, and read the control's drop on difference (a share of its span, as the
control drop is everywhere) and its largest drop on another op (score units). The verdict per
regime, arm and v follows ``diagnosis.PREDICTIONS["overlap"]``; the source's overlap relation on
our seeds (``relation``) follows ``diagnosis.PREDICTIONS["relation"]``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import torch

from anchorkit.core.config import RunConfig, generator
from anchorkit.engine.executor import THREADS, each, threads
from anchorkit.studies.diagnosis import (ALPHA, AT, DRAWS, OVERLAPS, SOURCE_STRENGTH, TARGETS,
                                 WEAK_STRENGTH)
from anchorkit.measures.directions import notable_table
from anchorkit.core.edit import own_basis
from anchorkit.core.scores import query_predictions, scores_of_predictions
from anchorkit.measures.measure import (DIFFERENCE, drop, edited_predictions, null_of_other_ops,
                                        other_ops_drop, span)
from anchorkit.core import optimizers
from anchorkit.engine.provenance import read_tables
from anchorkit.engine.profiles import PAPER
from anchorkit.engine.regimes import Regime
from anchorkit.engine.registry import ROTATED_BASIS  # the study whose runs it diagnoses
from anchorkit.engine.study import PAPER_SEEDS
from anchorkit.core.task import probe_set
from anchorkit.core.train import load_model

SOURCE, IN_BETWEEN, WEAK_VERDICT = "source strength", "in between", "weak"


def blended(v: torch.Tensor, c: float, draws: int, seed: int) -> torch.Tensor:
    """``draws`` unit directions (draws, D) whose cosine with the unit vector ``v`` is exactly
    ``c``: c·v + √(1 − c²)·u, u a random unit vector orthogonal to v (seeded)."""
    g = generator("overlap", seed, c)
    u = torch.randn(draws, v.shape[0], generator=g, dtype=torch.float64)
    v64 = v.double() / v.double().norm()
    u = u - (u @ v64)[:, None] * v64[None]
    u = u / u.norm(dim=1, keepdim=True)
    return (c * v64[None] + math.sqrt(max(0.0, 1 - c * c)) * u).to(v.dtype)


def overlap_curves(cfg: RunConfig, state: dict, targets: dict[str, int | None],
                   basis: torch.Tensor, chunk: int = 1) -> pd.DataFrame:
    """One row per v, c and draw: the control's drop on difference (share of its span) and its
    largest drop on another op when d (cosine c with v) is projected out at full dose. ``targets``
    names each v by its index along ``basis`` (None: the control has none; left out)."""
    model = load_model([cfg], [state])
    probe = probe_set(cfg.task).clean
    with torch.inference_mode():
        clean_pred = query_predictions(model, probe)
    clean = scores_of_predictions(clean_pred, probe)[0]
    spans = span(clean, null_of_other_ops(clean_pred, probe)[0])
    rows = []
    for name, index in targets.items():
        if index is None or pd.isna(index):
            continue
        index = int(index)
        dirs = torch.cat([blended(basis[index], c, DRAWS, cfg.seed) for c in OVERLAPS])
        with torch.inference_mode():
            pred = edited_predictions(model, probe, dirs, 1.0, chunk)[0]  # (n, B)
        drops = drop(clean, scores_of_predictions(pred, probe))  # (n, n_ops)
        for k, (c, draw) in enumerate(itertools.product(OVERLAPS, range(DRAWS))):
            rows.append({"target": name, "index": int(index), "overlap": c, "draw": draw,
                         "control_drop": float(drops[k, DIFFERENCE] / spans[DIFFERENCE]),
                         "control_other_ops": float(other_ops_drop(drops[k]))})
    out = pd.DataFrame(rows)
    return out.assign(run=cfg.name, seed=cfg.seed, optimizer=cfg.optimizer)


def verdict(median_drop: float) -> str:
    """The decision rule at c = AT: source strength, weak, or in between."""
    return (SOURCE if median_drop >= SOURCE_STRENGTH
            else WEAK_VERDICT if median_drop <= WEAK_STRENGTH else IN_BETWEEN)


def verdicts(curves: pd.DataFrame) -> pd.DataFrame:
    """Per regime, arm (optimizer) and v: the median over controls of the mean drop over draws at
    c = AT, and its verdict."""
    at = curves[np.isclose(curves.overlap, AT)]
    per_run = at.groupby(["regime", "optimizer", "target", "run"], sort=False).control_drop.mean()
    med = per_run.groupby(["regime", "optimizer", "target"], sort=False).median()
    n = per_run.groupby(["regime", "optimizer", "target"], sort=False).size()
    out = pd.DataFrame({"median_drop": med, "controls": n}).reset_index()
    out["verdict"] = [verdict(m) for m in out.median_drop]
    return out


# up to this many seeds every ordering of y is tried (8! = 40320); beyond it (16 seeds: 2·10¹³
# orderings) this many orderings drawn at random with a fixed seed, so the tables stay the same
EXACT_MAX, PERMUTATIONS, PERMUTATION_SEED = 8, 100_000, 0


def relation(x, y) -> dict[str, float]:
    """Pearson and Spearman correlations of ``y`` against ``x`` with one-sided permutation
    p-values: exact (every ordering of y) up to ``EXACT_MAX`` seeds, else from ``PERMUTATIONS``
    random orderings, (1 + as large) / (1 + drawn), which never reads 0; NaN where either is
    constant."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    out = {"n": len(x)}
    for name, (a, b) in {"pearson": (x, y), "spearman": (_ranks(x), _ranks(y))}.items():
        observed = _correlations(a, b[None])[0]
        out[name] = float(observed)
        if not np.isfinite(observed):
            out[f"p_{name}"] = float("nan")
        elif len(b) <= EXACT_MAX:
            r = _correlations(a, np.array(list(itertools.permutations(b))))  # (P, n)
            out[f"p_{name}"] = float(np.mean(r >= observed - 1e-12))
        else:
            rng = np.random.default_rng(PERMUTATION_SEED)
            r = _correlations(a, rng.permuted(np.tile(b, (PERMUTATIONS, 1)), axis=1))
            out[f"p_{name}"] = float((1 + np.sum(r >= observed - 1e-12)) / (1 + PERMUTATIONS))
    return out


def _ranks(a: np.ndarray) -> np.ndarray:
    return pd.Series(a).rank().to_numpy()


def _correlations(x: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Pearson r of x with each row of Y (NaN where either is constant)."""
    xc = x - x.mean()
    Yc = Y - Y.mean(axis=1, keepdims=True)
    denom = np.linalg.norm(xc) * np.linalg.norm(Yc, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom > 0, Yc @ xc / denom, np.nan)


def control_targets(results: pd.DataFrame, basis: pd.DataFrame, notable: pd.DataFrame,
                    bases: dict[str, torch.Tensor]) -> pd.DataFrame:
    """Per control of a study with a sweep: the index along its own basis (``bases`` by run name)
    of its energy spike (the vector with the largest energy share at the syntax positions, from
    the study's ``basis`` table, whether or not it is twice the second: ``has_spike`` says), its
    syntax-holding vector and its costliest direction (``directions.notable_table``), |cos(e₁, ·)|
    of the spike and the syntax vector, its control drop under the e₁ edit and the pair's net
    removal (the study's ``results``)."""
    rows = []
    mine = notable[notable.role == "control"].set_index(["run", "kind"])
    for _, r in results.iterrows():
        own = optimizers.optimizer(r.optimizer).basis
        name = r.control_run
        g = basis[(basis.control_run == name) & (basis.role == "control") & (basis.basis == own)]
        spike = int(g.loc[g.syntax_share.idxmax(), "direction"])
        syntax = mine.loc[(name, "syntax")]
        rows.append({"run": name, "seed": int(r.seed), "optimizer": r.optimizer,
                     "spike": spike, "has_spike": bool(r[f"control_has_spike_{own}"]),
                     "syntax": None if pd.isna(syntax["index"]) else int(syntax["index"]),
                     "costliest": int(mine.loc[(name, "costliest"), "index"]),
                     "cos_e1_spike": abs(float(bases[name][spike, 0])),
                     "cos_e1_syntax": abs(float(syntax.cos_e1)),
                     "control_drop": float(r.control_drop),
                     "shortfall": 1.0 - float(r.net_removal)})
    return pd.DataFrame(rows)


def relations(targets: pd.DataFrame) -> pd.DataFrame:
    """Per arm: the shortfall in net removal (1 − net removal) and the control's own drop under
    the e₁ edit, each against |cos(e₁, syntax-holding vector)| and |cos(e₁, energy spike)|."""
    rows = []
    for optimizer, g in targets.groupby("optimizer", sort=False):
        for measure in ("shortfall", "control_drop"):
            for against in ("cos_e1_syntax", "cos_e1_spike"):
                ok = g[[measure, against]].dropna()
                rows.append({"optimizer": optimizer, "measure": measure, "against": against,
                             **relation(ok[against], ok[measure])})
    out = pd.DataFrame(rows)
    out["testable"] = out.pearson.notna()  # a cosine the same on every seed cannot be tested
    out["relation"] = ((out.pearson > 0) & (out.spearman > 0) & (out.p_pearson < ALPHA)
                       & (out.p_spearman < ALPHA))
    return out


def overlap_task(target: tuple, store) -> pd.DataFrame:
    """One control's overlap curves (``overlap_curves``) on its stored weights: ``target`` is the
    control's configuration, its targets (``TARGETS``) and its own basis."""
    cfg, targets, basis = target
    with threads(THREADS):
        return overlap_curves(cfg, store.load_final(cfg), targets, basis)


def overlap_study(regime: Regime, reports_dir, store, progress: bool = True,
                  scheduler: str | None = None) -> dict[str, pd.DataFrame]:
    """Part 2 for one report regime, on the published weights of its rotated-basis study's
    controls (both arms) and that study's committed tables: the controls' targets, the overlap
    curves (a task per control on the executor, ``executor.each``), their verdicts and the
    overlap relations."""
    tables = read_tables(regime.reports(reports_dir) / ROTATED_BASIS.name)
    runs = ROTATED_BASIS.runs(PAPER_SEEDS, PAPER, regime)
    by_name = {c.name: c for c in runs}
    notable = notable_table(runs, tables["spectra"], tables["basis"], store, roles=("control",))
    bases = {c.name: own_basis(c)[1] for c in runs if c.recipe == "control"}
    targets = control_targets(tables["results"], tables["basis"], notable, bases)
    todo = [(by_name[t.run], {k: t[k] for k in TARGETS}, bases[t.run])
            for _, t in targets.iterrows()]
    curves = pd.concat(each(overlap_task, todo, store, scheduler=scheduler, progress=progress,
                            desc=f"overlap curves ({regime.name})", measured="controls"),
                       ignore_index=True).assign(regime=regime.name)
    return {"overlap_targets": targets.assign(regime=regime.name), "overlap": curves,
            "overlap_verdicts": verdicts(curves),
            "relation": relations(targets).assign(regime=regime.name)}
