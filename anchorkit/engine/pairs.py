"""Measuring a pair of runs: an anchored run and the control at the same seed and optimizer.

``measure_pair`` derives every measurement of the Methods page from the two runs' cached query
answers (``anchorkit.measures.answers``) and one clean forward of the probe set (the basis measures),
as tidy tables; ``measured`` reads the answers from the store's cache (computing and caching what
is missing) and measures.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import torch

from anchorkit.measures.answers import PARTS, cached_answers, predict, sweep_directions
from anchorkit.core.config import RunConfig
from anchorkit.core.edit import DOSES, measured_bases
from anchorkit.core.scores import alignment_profile, last_slice_states, scores_of_predictions
from anchorkit.measures.measure import (basis_block, contexts_per_op, cos_e1, direction_cost, drop,
                                        kept, landing, moved, null_of_other_ops, other_ops_drop,
                                        over_removal, reference_baseline, removal, removal_error,
                                        span, spike, spill, syntax_positions, task_change)
from anchorkit.core.optimizers import AXES, of
from anchorkit.core.task import DIFFERENCE, OPS, probe_set
from anchorkit.core.train import load_model


@dataclass(frozen=True)
class Pair:
    """An anchored run and the control at the same seed under the same optimizer."""

    anchored: RunConfig
    control: RunConfig


def _roles(pair: Pair):
    return (("anchored", pair.anchored), ("control", pair.control))


def _stack(answers, name: str) -> torch.Tensor:
    """The answers ``name`` of both runs of a pair, stacked (2, …), as integers."""
    return torch.stack([a[name] for a in answers]).long()


@dataclass
class Scores:
    """A pair's scores from its answers: clean and edited (e₁ at every dose), the nulls, spans
    and sampling error they are read against, and the drops (anchored first, control second)."""

    clean: torch.Tensor  # (2, ops)
    null: torch.Tensor
    evidence_null: torch.Tensor
    spans: torch.Tensor
    evidence_spans: torch.Tensor
    error: torch.Tensor
    e1_answers: torch.Tensor  # (2, doses, B)
    drops: torch.Tensor  # (doses, 2, ops)
    over: torch.Tensor


def pair_scores(answers: tuple[dict, dict], probe) -> Scores:
    """Every score a pair's tables read, from its two runs' answers."""
    batch = probe.clean
    clean_answers = _stack(answers, "clean")
    clean = scores_of_predictions(clean_answers, batch)
    null = null_of_other_ops(clean_answers, batch)
    evidence_null = scores_of_predictions(_stack(answers, "null"), probe.null)
    spans = span(clean, null)
    n_ops = contexts_per_op(batch)
    others = n_ops.sum() - n_ops[DIFFERENCE]
    error = removal_error(null[:, DIFFERENCE], spans[:, DIFFERENCE], n_ops[DIFFERENCE], others)
    e1_answers = _stack(answers, "e1")
    edited = scores_of_predictions(e1_answers, batch).transpose(0, 1)  # (doses, 2, ops)
    over = over_removal(edited[:, 0, DIFFERENCE], null[0, DIFFERENCE], n_ops[DIFFERENCE], others)
    return Scores(clean, null, evidence_null, spans, span(clean, evidence_null), error,
                  e1_answers, drop(clean, edited), over)


def dose_rows(sc: Scores, base: dict, doses=DOSES) -> list[dict]:
    """One row per dose of the e₁ edit (``doses``, those the answers were computed at): removal
    (raw, net, against the evidence null), spill."""
    drops = sc.drops
    raw, control_drop = removal(drops[:, 0], sc.spans[0]), removal(drops[:, 1], sc.spans[1])
    raw_ev = removal(drops[:, 0], sc.evidence_spans[0])
    control_ev = removal(drops[:, 1], sc.evidence_spans[1])
    return [{**base, "dose": d, "raw_removal": float(raw[i]),
             "control_drop": float(control_drop[i]),
             "net_removal": float(raw[i] - control_drop[i]),
             "over_removal": bool(sc.over[i]),
             "raw_removal_vs_evidence_null": float(raw_ev[i]),
             "net_removal_vs_evidence_null": float(raw_ev[i] - control_ev[i]),
             "spill": float(spill(drops[i:i + 1, 0], drops[i:i + 1, 1])),
             "raw_spill": float(other_ops_drop(drops[i, 0])),
             "control_other_ops": float(other_ops_drop(drops[i, 1]))}
            for i, d in enumerate(doses)]


def results_row(pair: Pair, sc: Scores, full: dict, base: dict, batch) -> dict:
    """The results row's scores at full dose: removal, spill, landing, task change, kept, and
    each run's clean scores, null and span."""
    res = {**base, **{k: full[k] for k in (
        "raw_removal", "control_drop", "net_removal", "over_removal",
        "raw_removal_vs_evidence_null", "net_removal_vs_evidence_null", "raw_spill",
        "control_other_ops")}}
    res["removal_error"] = float(sc.error[0])
    res["spill"] = float(spill(sc.drops[:, 0], sc.drops[:, 1]))
    res["landing"] = float(landing(sc.e1_answers[0, -1], batch))
    res["task_change"] = float(task_change(sc.clean[0], sc.clean[1]))
    res["kept"] = bool(kept(res["net_removal"]))
    res["kept_raw"] = bool(kept(res["raw_removal"]))
    for role_i, (role, _) in enumerate(_roles(pair)):
        for j, op in enumerate(OPS):
            res[f"{role}_score_{op}"] = float(sc.clean[role_i, j])
        res[f"{role}_null_difference"] = float(sc.null[role_i, DIFFERENCE])
        res[f"{role}_evidence_null_difference"] = float(sc.evidence_null[role_i, DIFFERENCE])
        res[f"{role}_span_difference"] = float(sc.spans[role_i, DIFFERENCE])
    return res


def alignment_rows(pair: Pair, model, batch, base: dict) -> list[dict]:
    """Alignment with e₁ by slice, at difference's contexts and at the other ops'."""
    align_diff, align_other = alignment_profile(model, batch)
    return [{**base, "role": role, "slice": s, "context": ctx, "alignment": float(v[i, s])}
            for i, (role, _) in enumerate(_roles(pair))
            for ctx, v in (("difference", align_diff), ("other", align_other))
            for s in range(v.shape[1])]


def deep_alignment(alignment: pd.DataFrame) -> pd.Series:
    """Mean alignment with e₁ at slices 3–4 in difference contexts, per (optimizer, seed), for
    the anchored runs (read from a study's ``alignment`` table, ``alignment_rows``)."""
    a = alignment[(alignment.role == "anchored") & (alignment.context == "difference")
                  & (alignment.slice >= 3)]
    return a.groupby(["optimizer", "seed"]).alignment.mean()


def basis_measures(pair: Pair, model, batch, res: dict, base: dict) -> list[dict]:
    """Each run's energy spectrum along the coordinate axes and the seed's rotated axes (the
    ``spectra`` rows); its spike, shares, kurtosis and syntax |cos| added to ``res``."""
    a_cfg = pair.anchored
    D = a_cfg.model.d_model
    states = last_slice_states(model, batch)
    at_syntax = syntax_positions(a_cfg.task, batch)
    bases = measured_bases(a_cfg)  # the seed's R: for plain Adam, an arbitrary basis
    anchored_run = pair.anchored != pair.control and a_cfg.recipe != "control"
    rows = []
    for name, basis in bases.items():
        block = basis_block(model, states, at_syntax, basis)
        shares, syntax_shares, kurt, cos = (block.shares, block.syntax_shares, block.kurtosis,
                                            block.syntax_cos)
        found = {}
        for i, (role, _) in enumerate(_roles(pair)):
            # along the axes e₁ is never an anchored run's spike: the anchor put energy there
            exclude = 0 if name == AXES and role == "anchored" and anchored_run else None
            index, has = spike(syntax_shares[i], exclude)
            found[role] = index, has = int(index), bool(has)
            res[f"{role}_has_spike_{name}"] = has
            res[f"{role}_spike_{name}"] = index if has else None
            res[f"{role}_spike_share_{name}"] = float(shares[i, index]) if has else float("nan")
            res[f"{role}_cos_e1_spike_{name}"] = (float(cos_e1(basis, torch.tensor(index)))
                                                  if has else float("nan"))
            res[f"{role}_top_share_{name}"] = float(shares[i].max())
            res[f"{role}_kurtosis_{name}"] = float(kurt[i])
            for sym, v in cos.items():
                res[f"{role}_syntax_cos_{sym}_{name}"] = float(v[i])
            rows += [{**base, "role": role, "basis": name, "direction": k,
                      "share": float(shares[i, k]),
                      "syntax_share": float(syntax_shares[i, k])} for k in range(D)]
        (a_index, a_has), (c_index, c_has) = found["anchored"], found["control"]
        res[f"moved_{name}"] = moved(a_index, c_index, a_has, c_has)
    return rows


def direction_rows(pair: Pair, sc: Scores, answers, batch, res: dict, base: dict) -> list[dict]:
    """Every swept direction's cost and drop of difference at full dose (e₁ from the dose
    sweep); each run's reference baseline, and removal net of it, added to ``res``."""
    a_cfg = pair.anchored
    kinds, idx, _ = sweep_directions(a_cfg)
    scores = scores_of_predictions(_stack(answers, "sweep"), batch)  # (2, n, ops)
    drops_dir = sc.clean[:, None] - scores
    cost = direction_cost(drops_dir)
    share = removal(drops_dir, sc.spans[:, None])
    rows = [{**base, "role": role, "kind": k, "index": ix, "cost": float(cost[i, n]),
             "difference_share": float(share[i, n])}
            for i, (role, _) in enumerate(_roles(pair))
            for n, (k, ix) in enumerate(zip(kinds, idx))]
    rows += [{**base, "role": role, "kind": "e1", "index": 0,
              "cost": float(direction_cost(sc.drops[-1, i])),
              "difference_share": float(removal(sc.drops[-1, i], sc.spans[i]))}
             for i, (role, _) in enumerate(_roles(pair))]
    ref = pd.DataFrame(rows)
    # reference directions: the optimizer's own basis, off the spike (the axes: off e₁ too); a
    # basis-free optimizer's, the random directions (no spike to leave out)
    name = of(a_cfg).basis
    kind = of(a_cfg).reference_kind
    for role, _ in _roles(pair):
        mine = ref[(ref.role == role) & (ref.kind == kind)]
        off = ([res[f"{role}_spike_{name}"]] if name is not None and res[f"{role}_has_spike_{name}"]
               else [])
        pick = mine[~mine["index"].isin(off)]
        res[f"{role}_reference_baseline"] = float(
            reference_baseline(torch.tensor(pick["difference_share"].to_numpy())))
    res["removal_net_of_reference"] = res["raw_removal"] - res["anchored_reference_baseline"]
    return rows


def measure_pair(pair: Pair, anchored_state: dict, control_state: dict, sweep: bool = True,
                 chunk: int = 8, answers: tuple[dict, dict] | None = None, doses=DOSES
                 ) -> dict[str, pd.DataFrame]:
    """Every measurement of book/methods.md, *Measurements* on one pair of runs, as tidy tables.

    ``results`` (one row, full dose), ``dose`` (one row per dose), ``alignment`` (by slice),
    ``spectra`` (energy share per basis vector at the last slice, over all positions and over the
    syntax positions), and with ``sweep`` the ``directions`` table (every swept direction's cost
    and drop of difference at full dose).

    Scores come from the runs' query answers (``anchorkit.measures.answers``; ``answers`` gives them,
    one dict per run, as cached; else they are computed here); the basis measures come from one
    clean forward of the probe set. Nothing here runs an edited forward when ``answers`` is given.
    ``doses``: those of the e₁ edit (the answers' ``e1`` rows, one per dose; the last is 1).
    """
    a_cfg, c_cfg = pair.anchored, pair.control
    if answers is None:
        parts = PARTS if sweep else ("base",)
        answers = tuple({k: v for part in parts
                         for k, v in predict(cfg, st, part, chunk, doses).items()}
                        for cfg, st in ((a_cfg, anchored_state), (c_cfg, control_state)))
    model = load_model([a_cfg, c_cfg], [anchored_state, control_state])
    probe = probe_set(a_cfg.task)
    batch = probe.clean
    sc = pair_scores(answers, probe)
    base = {"seed": a_cfg.seed, "optimizer": a_cfg.optimizer, "recipe": a_cfg.recipe,
            "run": a_cfg.name, "control_run": c_cfg.name}
    rows = dose_rows(sc, base, doses)
    res = results_row(pair, sc, rows[-1], base, batch)
    out = {"results": res, "dose": rows, "alignment": alignment_rows(pair, model, batch, base),
           "spectra": basis_measures(pair, model, batch, res, base)}
    if sweep:
        out["directions"] = direction_rows(pair, sc, answers, batch, res, base)
    return _typed({k: pd.DataFrame([v] if isinstance(v, dict) else v) for k, v in out.items()})


def _typed(tables: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """Columns that may be undefined get nullable types (a spike's index, moved), so that the
    tables of many pairs concatenate and round-trip through Parquet alike."""
    res = tables["results"]
    for col in res.columns:
        if col.startswith("moved_"):
            res[col] = res[col].astype("boolean")
        elif col.startswith(("anchored_spike_", "control_spike_")) and "share" not in col:
            res[col] = res[col].astype("Int64")
    return tables


# directions per forward in a sweep: one at a time is the fastest on this CPU (BENCHMARKS.md); the
# predictions do not depend on it
SWEEP_CHUNK = 1


def measured(pair: Pair, sweep: bool, store, doses=DOSES) -> dict[str, pd.DataFrame]:
    """A pair's tables, derived from its runs' answers (e₁ at ``doses``): read from the store's
    cache, or computed (a sweep, if asked for) and cached first."""
    parts = PARTS if sweep else ("base",)
    states = [store.load_final(c) for c in (pair.anchored, pair.control)]
    answers = tuple(cached_answers(c, st, parts, store, SWEEP_CHUNK, doses)
                    for c, st in zip((pair.anchored, pair.control), states))
    return measure_pair(pair, *states, sweep=sweep, answers=answers, doses=doses)
