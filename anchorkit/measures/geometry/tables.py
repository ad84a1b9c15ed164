"""The essay's per-run tables: every head's and every layer's measures at each stage of a run
(initial, snapshots, final) (``anchorkit.measures.geometry``)."""

from __future__ import annotations

from typing import Mapping, Sequence

import pandas as pd
import torch

from anchorkit.measures.geometry.alignment import TAU, gradient_alignment, gradient_classes
from anchorkit.measures.geometry.heads import (ANCHOR_FRACTION, SINK_THRESHOLD, WORKER_FRACTION, classify_heads,
                                               find_sinks, head_activity, relative_change)
from anchorkit.measures.geometry.maps import (enrichment, functional_noncommutativity, head_heterogeneity,
                                              head_maps, head_noncommutativity, mean_noncommutativity,
                                              noncommutativity_cv, pairwise_noncommutativity)
from anchorkit.core.task import Batch, probe_set, vocab
from anchorkit.core.train import load_model


# ---------------------------------------------------------------------------- tables
def _stages(run, device, snapshots: Mapping[int, dict] | None = None):
    """The run's weights at every stage as one ensemble: its initial weights, any snapshots
    (epoch → weights) strictly between, and its final weights. Returns the model, the stages'
    names and epochs, and the probe contexts."""
    cfg = run.config
    kept = sorted(e for e in (snapshots or {}) if 0 < e < cfg.epochs)
    stages = [("initial", 0)] + [("snapshot", e) for e in kept] + [("final", cfg.epochs)]
    states = [run.initial] + [snapshots[e] for e in kept] + [run.final]
    model = load_model([cfg] * len(states), states, device)
    return model, stages, probe_set(cfg.task).clean


def _batch_on(batch: Batch, device) -> Batch:
    return Batch(*(t.to(device) for t in vars(batch).values()))


def _run_columns(cfg) -> dict:
    return {"run": cfg.name, "hash": cfg.hash, "seed": cfg.seed, "recipe": cfg.recipe,
            "optimizer": cfg.optimizer}


def head_table(runs: Sequence, batch: Batch | None = None, gradients: bool = True,
               sink_threshold: float = SINK_THRESHOLD, anchor_fraction: float = ANCHOR_FRACTION,
               worker_fraction: float = WORKER_FRACTION, tau: float = TAU,
               device: str = "cpu", snapshots: Mapping[str, Mapping[int, dict]] | None = None
               ) -> pd.DataFrame:
    """One row per (run, stage, layer, head) of trained runs (objects with ``config``,
    ``initial`` and ``final`` weights, e.g. ``train.TrainedRun``). Stages: ``initial`` (epoch 0),
    a ``snapshot`` row for every epoch of ``snapshots[run hash]`` (weights kept during
    training), ``final``.

    Measured on ``batch`` (default: the run's clean probe set) at every stage: value_content,
    the sink (position, token, score, dominated), mean_noncommutativity (the head's mean W_OV
    non-commutativity with the other heads of its layer), class (anchor/worker/neither, from
    that stage's sinks and value content), ov_change (relative Frobenius change of W_OV from
    initial to final, the same on every row), ov_change_to_final (from this stage to the end),
    and with ``gradients`` the W_OV gradient_alignment and its gradient_class.
    """
    rows = []
    for run in runs:
        cfg = run.config
        model, stages, probe = _stages(run, device, (snapshots or {}).get(cfg.hash))
        b = _batch_on(probe if batch is None else batch, device)
        act = head_activity(model, b)
        sinks = find_sinks(act.received, b.tokens, sink_threshold)
        with torch.no_grad():
            ov = head_maps(model, "ov")  # (stages, L, H, D, D)
            nc = head_noncommutativity(pairwise_noncommutativity(ov))
            to_final = relative_change(ov, ov[-1:].expand_as(ov))  # (stages, L, H)
        classes = classify_heads(sinks.dominated, act.value_content, anchor_fraction,
                                 worker_fraction)
        grad = gradient_alignment(model, b) if gradients else None
        gclass = gradient_classes(grad, tau) if gradients else None
        names = vocab(cfg.task)
        base = _run_columns(cfg)
        for e, (stage, epoch) in enumerate(stages):
            for layer in range(cfg.model.n_blocks):
                for h in range(cfg.model.n_heads):
                    i = (e, layer, h)
                    row = {**base, "stage": stage, "epoch": epoch, "layer": layer, "head": h,
                           "value_content": float(act.value_content[i]),
                           "sink_position": int(sinks.position[i]),
                           "sink_token": names[int(sinks.token[i])],
                           "sink_score": float(sinks.score[i]),
                           "sink_dominated": bool(sinks.dominated[i]),
                           "mean_noncommutativity": float(nc[i]),
                           "class": classes[i], "ov_change": float(to_final[0, layer, h]),
                           "ov_change_to_final": float(to_final[i])}
                    if gradients:
                        row["gradient_alignment"] = float(grad[i])
                        row["gradient_class"] = gclass[i]
                    rows.append(row)
    return pd.DataFrame(rows)


LAYER_MEASURES = ("noncommutativity", "noncommutativity_cv", "head_heterogeneity",
                  "functional_noncommutativity")


def layer_table(runs: Sequence, batch: Batch | None = None, kind: str = "ov",
                device: str = "cpu") -> pd.DataFrame:
    """One row per (run, layer, measure) with its initial and final value and the enrichment.

    Measures (of ``kind`` maps): noncommutativity (mean over head pairs), noncommutativity_cv,
    head_heterogeneity, functional_noncommutativity (weighted by value content on ``batch``,
    default the probe set). ``boundary`` marks the first and last layers.
    """
    rows = []
    for run in runs:
        cfg = run.config
        model, _, probe = _stages(run, device)  # initial and final weights
        act = head_activity(model, _batch_on(probe if batch is None else batch, device))
        with torch.no_grad():
            pw = pairwise_noncommutativity(head_maps(model, kind))  # (2, L, H, H)
            values = {"noncommutativity": mean_noncommutativity(pw),
                      "noncommutativity_cv": noncommutativity_cv(pw),
                      "head_heterogeneity": head_heterogeneity(pw),
                      "functional_noncommutativity": functional_noncommutativity(
                          pw, act.value_content.to(pw.dtype))}
        L = cfg.model.n_blocks
        for layer in range(L):
            for measure in LAYER_MEASURES:
                ini, fin = (float(values[measure][e, layer]) for e in range(2))
                rows.append({**_run_columns(cfg), "layer": layer,
                             "boundary": layer in (0, L - 1), "kind": kind, "measure": measure,
                             "initial": ini, "final": fin, "enrichment": enrichment(ini, fin)})
    return pd.DataFrame(rows)
