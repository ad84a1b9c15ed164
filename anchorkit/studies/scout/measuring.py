"""The premise measured on one control at one length: its bases' energy, kurtosis and syntax
|cos|, and what projecting directions out costs the task (``anchorkit.studies.scout``)."""

from __future__ import annotations


import pandas as pd
import torch

from anchorkit.measures.answers import N_RANDOM, answers_key
from anchorkit.core.config import ParameterError, RunConfig
from anchorkit.core.edit import measured_bases, random_directions
from anchorkit.core.scores import last_slice_states, op_scores, scores_of_predictions
from anchorkit.measures.measure import (basis_block, direction_cost, drop, edited_predictions,
                                        spike, syntax_positions)
from anchorkit.core.model import slice_states
from anchorkit.core.optimizers import of
from anchorkit.core.task import OPS, SYNTAX, probe_set
from anchorkit.core.train import load_model
from anchorkit.studies.scout.rule import REPORT_COS



@torch.inference_mode()
def premise(cfg: RunConfig, state: dict, contexts: int = 128, store=None, epochs: int | None = None
            ) -> tuple[dict, pd.DataFrame]:
    """The premise measures of one run's weights: one row, and where its top direction's energy
    sits (by slice over every position, and by position at the last slice). With a ``store``,
    the answers under the direction edits (the costly part) are read from or written to its
    answer cache, keyed by the run, ``epochs`` (which weights) and the code that makes them."""
    model = load_model([cfg], [state])
    batch = probe_set(cfg.task).clean
    D = cfg.model.d_model
    clean = op_scores(model, batch)  # (1, ops)
    states = last_slice_states(model, batch)  # (1, B, T, D)
    row = {"seed": cfg.seed, "optimizer": cfg.optimizer, "recipe": cfg.recipe, "run": cfg.name,
           "hash": cfg.hash, "min_score": float(clean.min()),
           "residual_rms": float(states.pow(2).mean().sqrt())}
    row.update({f"score_{op}": float(clean[0, j]) for j, op in enumerate(OPS)})
    bases = measured_bases(cfg)
    row.update(_basis_row(model, states, syntax_positions(cfg.task, batch), bases))
    # costs along the run's own basis (the axes under plain Adam, its rotated axes under rotated)
    own = of(cfg).basis
    dirs = torch.cat([bases[own], random_directions(N_RANDOM, D)])
    if store is not None and epochs is None:
        raise ParameterError("epochs", epochs, "expected the epoch of the weights, to cache "
                             "their answers in the store")
    key = (answers_key(cfg, f"premise/{epochs}/{own}/{N_RANDOM}/{contexts}", state)
           if store is not None else None)
    answers = _edited_answers(model, batch, dirs, contexts, store, key)
    cost = direction_cost(drop(clean[:, None], scores_of_predictions(answers, batch)))[0]
    top = row[f"top_{own}"]
    others = torch.cat([cost[:top], cost[top + 1:D]])
    row.update({"own_basis": own, "top_cost": float(cost[top]),
                "median_other_cost": float(others.median()),
                "costliest_other_cost": float(others.max()),
                "costliest_other": int(torch.cat([torch.arange(top), torch.arange(top + 1, D)])[
                    others.argmax()]),
                "median_random_cost": float(cost[D:].median())})
    where = _where(model, batch, bases[own][top])
    where = where.assign(seed=cfg.seed, optimizer=cfg.optimizer, run=cfg.name, basis=own,
                         direction=top)
    return row, where


def _basis_row(model, states, at_syntax, bases: dict) -> dict:
    """Along each basis: the top direction's share and its ratio to the second, kurtosis, the
    syntax tokens' |cos| (and how many reach ``REPORT_COS``), whether a syntax spike forms."""
    row = {}
    for name, basis in bases.items():
        block = basis_block(model, states, at_syntax, basis)
        shares, cos = block.shares[0], block.syntax_cos
        top2 = shares.topk(2)
        row[f"top_share_{name}"] = float(top2.values[0])
        row[f"top_ratio_{name}"] = float(top2.values[0] / top2.values[1])
        row[f"top_{name}"] = int(top2.indices[0])
        row[f"kurtosis_{name}"] = float(block.kurtosis[0])
        for sym in SYNTAX:
            row[f"syntax_cos_{sym}_{name}"] = float(cos[sym][0])
        row[f"syntax_tokens_over_{REPORT_COS}_{name}"] = int(sum(
            float(cos[sym][0]) >= REPORT_COS for sym in SYNTAX))
        _, has = spike(block.syntax_shares[0])
        row[f"has_syntax_spike_{name}"] = bool(has)
    return row


def _edited_answers(model, batch, dirs, contexts: int, store, key) -> torch.Tensor:
    """The answers with each direction projected out at full dose, from the store's answer cache
    under ``key`` when there (else computed, and cached when a key is given)."""
    cached = store.load_answers(key) if key is not None else None
    if cached is not None:
        return cached["answers"]
    answers = edited_predictions(model, batch, dirs, 1.0, chunk=1, contexts=contexts)
    if key is not None:
        store.save_answers(key, {"answers": answers})
    return answers


def _where(model, batch, direction: torch.Tensor) -> pd.DataFrame:
    """The share of the state's energy along ``direction``, by slice (every position) and, at the
    last slice, by position (over the probe contexts)."""
    slices = slice_states(model.run_with_cache(batch.tokens, model.hook_names("resid"))[1])
    rows = []
    for s, x in enumerate(slices):
        along = (x[0] @ direction).pow(2)  # (B, T)
        total = x[0].pow(2).sum(-1)
        rows.append({"where": "slice", "slice": s, "position": -1,
                     "share": float(along.sum() / total.sum())})
        if s == len(slices) - 1:
            rows += [{"where": "position", "slice": s, "position": t,
                      "share": float(along[:, t].sum() / total[:, t].sum())}
                     for t in range(x.shape[2])]
    return pd.DataFrame(rows)


