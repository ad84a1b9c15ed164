"""The essay's head-level measurements (the essay's page, notebooks/geometry-of-anchors.ipynb): Killing form, sinks, value content, alignment.

Every measure works per head of each block. Weights come as an ensemble model (leading run
dimension E) or as a state dict (one run's, keys like ``blocks.0.W_Q`` of shape (D, D), or an
ensemble's, shape (E, D, D)); either way the result carries a leading run axis E (1 for a single
state). Shapes below: E runs, L blocks, H heads, D = d_model, dh = D / H, B contexts, T positions.

Head h of a block reads columns ``h*dh:(h+1)*dh`` of W_Q, W_K, W_V and writes through rows
``h*dh:(h+1)*dh`` of W_O (row-vector convention, ``q = n @ W_Q + b_Q``), so its maps on the
residual stream are the D×D matrices

- W_OV_h = W_V[:, h] @ W_O[h, :]  (what the head writes, given what it attends to),
- W_QK_h = W_Q[:, h] @ W_K[:, h]ᵀ (which states attend to which).

The essay's "Killing form" of a layer is its heads' pairwise non-commutativity; the bilinear
Killing form on gl(D) is given too (``killing_form``). "Anchor" and "worker" here name classes of
heads (an anchor head), not the glossary's anchor (a concept put on a direction by a recipe).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence, Union

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F

from anchorkit.config import ModelConfig, ParameterError
from anchorkit.model import Transformer, per_block
from anchorkit.task import Batch, positions, probe_set, vocab
from anchorkit.train import load_model

SINK_THRESHOLD = 3.0  # sink-dominated: a candidate position receives ≥ this × its uniform share
ANCHOR_FRACTION = 0.5  # anchor: sink-dominated, value content < this × the run's median head's
WORKER_FRACTION = 1.0  # worker: value content >= this × the run's median head's
TAU = 0.1  # gradient alignment: agreeing > τ, disagreeing < −τ, else neutral
MAP_KINDS = ("ov", "qk")

Weights = Union[Transformer, Mapping[str, torch.Tensor]]


# ---------------------------------------------------------------------------- head maps
def _stacked(weights: Weights, leaf: str) -> torch.Tensor:
    """One weight of every block, stacked: (E, L, ...)."""
    if isinstance(weights, Transformer):
        return torch.stack([getattr(blk, leaf) for blk in weights.blocks], dim=1)
    if not isinstance(weights, Mapping):
        raise ParameterError("weights", type(weights).__name__,
                             "expected a Transformer or a state dict")
    L = sum(1 for k in weights if k.startswith("blocks.") and k.endswith(".W_Q"))
    if L == 0:
        raise ParameterError("weights", sorted(weights)[:4], "expected keys like 'blocks.0.W_Q'")
    per = [weights[f"blocks.{layer}.{leaf}"] for layer in range(L)]
    if per[0].dim() == 2:  # one run's state: add the run axis
        per = [w.unsqueeze(0) for w in per]
    return torch.stack(per, dim=1)


def _n_heads(weights: Weights, n_heads: int | None) -> int:
    if isinstance(weights, Transformer):
        if n_heads is not None and n_heads != weights.cfg.n_heads:
            raise ParameterError("n_heads", n_heads, f"the model has {weights.cfg.n_heads} heads")
        return weights.cfg.n_heads
    return ModelConfig().n_heads if n_heads is None else n_heads


def head_maps(weights: Weights, kind: str = "ov", n_heads: int | None = None) -> torch.Tensor:
    """W_OV (``kind="ov"``) or W_QK (``kind="qk"``) of every head: (E, L, H, D, D).

    W_OV_h = W_V[:, h] @ W_O[h, :] and W_QK_h = W_Q[:, h] @ W_K[:, h]ᵀ, where [:, h] are the
    head's dh columns and [h, :] its dh rows. ``n_heads`` is read from a model; for a state dict
    it defaults to ``ModelConfig().n_heads``. Differentiable in the weights.
    """
    if kind not in MAP_KINDS:
        raise ParameterError("kind", kind, f"expected one of {MAP_KINDS}")
    H = _n_heads(weights, n_heads)
    first, second = ("W_V", "W_O") if kind == "ov" else ("W_Q", "W_K")
    A, Bw = _stacked(weights, first), _stacked(weights, second)
    E, L, D, _ = A.shape
    if D % H:
        raise ParameterError("n_heads", H, f"must divide d_model = {D}")
    dh = D // H
    A = A.reshape(E, L, D, H, dh).permute(0, 1, 3, 2, 4)  # (E, L, H, D, dh)
    if kind == "ov":
        return A @ Bw.reshape(E, L, H, dh, D)
    return A @ Bw.reshape(E, L, D, H, dh).permute(0, 1, 3, 4, 2)  # @ W_K[:, h]ᵀ


# ---------------------------------------------------------------------------- algebra
def _check_square(name: str, X: torch.Tensor) -> None:
    if X.dim() < 2 or X.shape[-1] != X.shape[-2]:
        raise ParameterError(name, tuple(X.shape), "expected square matrices (..., n, n)")


def noncommutativity(X: torch.Tensor, Y: torch.Tensor) -> torch.Tensor:
    """‖XY − YX‖_F / (√2 ‖X‖_F ‖Y‖_F), in [0, 1] by Böttcher–Wenzel; batched over leading axes.

    0 when X and Y commute, and 0 by definition when either is zero (its gradient there is 0).
    """
    _check_square("X", X)
    _check_square("Y", Y)
    if X.shape[-1] != Y.shape[-1]:
        raise ParameterError("Y", tuple(Y.shape), f"expected {X.shape[-1]}×{X.shape[-1]} matrices")
    comm = torch.linalg.matrix_norm(X @ Y - Y @ X)
    den = math.sqrt(2) * torch.linalg.matrix_norm(X) * torch.linalg.matrix_norm(Y)
    ok = den > 0
    return torch.where(ok, comm / torch.where(ok, den, torch.ones_like(den)), torch.zeros_like(den))


def killing_form(X: torch.Tensor, Y: torch.Tensor) -> torch.Tensor:
    """The Killing form of gl(n): B(X, Y) = 2n tr(XY) − 2 tr X tr Y, n = X's size; batched."""
    _check_square("X", X)
    _check_square("Y", Y)
    if X.shape[-1] != Y.shape[-1]:
        raise ParameterError("Y", tuple(Y.shape), f"expected {X.shape[-1]}×{X.shape[-1]} matrices")
    n = X.shape[-1]
    tr_xy = (X * Y.transpose(-1, -2)).sum((-1, -2))
    tr_x, tr_y = (M.diagonal(dim1=-2, dim2=-1).sum(-1) for M in (X, Y))
    return 2 * n * tr_xy - 2 * tr_x * tr_y


def coefficient_of_variation(values: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """CV = std / mean along ``dim``, with the population std (the values are the whole set of
    heads or pairs, not a sample). NaN where the mean is 0."""
    return values.std(dim, correction=0) / values.mean(dim)


def enrichment(initial, final):
    """Enrichment = final / initial (of any measure: a layer's mean non-commutativity, its CV,
    head heterogeneity). Elementwise for tensors and arrays; inf or NaN where initial is 0."""
    if isinstance(initial, torch.Tensor) or isinstance(final, torch.Tensor):
        return torch.as_tensor(final) / torch.as_tensor(initial)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.divide(np.asarray(final, dtype=float), np.asarray(initial, dtype=float))
    return float(out) if out.ndim == 0 else out


def _check_heads(maps: torch.Tensor) -> None:
    _check_square("maps", maps)
    if maps.dim() < 3 or maps.shape[-3] < 2:
        raise ParameterError("maps", tuple(maps.shape), "expected (..., H, D, D) with H >= 2")


def pairwise_noncommutativity(maps: torch.Tensor) -> torch.Tensor:
    """Non-commutativity of every pair of a layer's heads: maps (..., H, D, D) → (..., H, H),
    symmetric, with a zero diagonal."""
    _check_heads(maps)
    H = maps.shape[-3]
    nc = noncommutativity(maps.unsqueeze(-3), maps.unsqueeze(-4))
    return nc * (1 - torch.eye(H, dtype=nc.dtype, device=nc.device))


def _pairs(pairwise: torch.Tensor) -> torch.Tensor:
    """The H(H−1)/2 values above the diagonal: (..., H, H) → (..., P)."""
    if pairwise.dim() < 2 or pairwise.shape[-1] != pairwise.shape[-2] or pairwise.shape[-1] < 2:
        raise ParameterError("pairwise", tuple(pairwise.shape), "expected (..., H, H) with H >= 2")
    i, j = torch.triu_indices(pairwise.shape[-1], pairwise.shape[-1], 1, device=pairwise.device)
    return pairwise[..., i, j]


def mean_noncommutativity(pairwise: torch.Tensor) -> torch.Tensor:
    """A layer's mean pairwise non-commutativity over its H(H−1)/2 head pairs:
    (..., H, H) → (...)."""
    return _pairs(pairwise).mean(-1)


def noncommutativity_cv(pairwise: torch.Tensor) -> torch.Tensor:
    """The CV of a layer's pairwise non-commutativity over its head pairs: (..., H, H) → (...)."""
    return coefficient_of_variation(_pairs(pairwise))


def head_noncommutativity(pairwise: torch.Tensor) -> torch.Tensor:
    """Each head's mean non-commutativity with the other heads of its layer:
    (..., H, H) → (..., H)."""
    _pairs(pairwise)  # validates
    return pairwise.sum(-1) / (pairwise.shape[-1] - 1)


def head_heterogeneity(pairwise: torch.Tensor) -> torch.Tensor:
    """Head heterogeneity of a layer: the CV across heads of ``head_noncommutativity``: (...)."""
    return coefficient_of_variation(head_noncommutativity(pairwise))


def functional_noncommutativity(pairwise: torch.Tensor, value_content: torch.Tensor
                                ) -> torch.Tensor:
    """The essay's *functional Killing form*: a layer's pairwise non-commutativity averaged over head
    pairs i < j with weights c_i c_j / Σ c_i c_j, c the heads' value content.

    ``pairwise`` (..., H, H), ``value_content`` (..., H) → (...). With equal value contents it is
    the unweighted mean; NaN when every weight is 0.
    """
    if value_content.shape != pairwise.shape[:-1]:
        raise ParameterError("value_content", tuple(value_content.shape),
                             f"expected {tuple(pairwise.shape[:-1])} to match pairwise")
    w = _pairs(value_content.unsqueeze(-1) * value_content.unsqueeze(-2))
    return (w * _pairs(pairwise)).sum(-1) / w.sum(-1)




# ---------------------------------------------------------------------------- attention sinks
def attention_received(pattern: torch.Tensor) -> torch.Tensor:
    """How much attention each key position receives from strictly later queries, relative to
    what uniform attention would give it: entry k is the mean over contexts and over queries
    q > k of pattern[q, k] / (1 / (q + 1)) (a causal query q spreads uniform attention over
    q + 1 positions). 1 means "no more than uniform"; the last position has no later query: NaN.

    ``pattern`` (..., B, H, T, T) (query, key), as the model returns per block → (..., H, T).
    Without the normalisation, late positions seen by one or two queries and the positions a
    query needs (the op's evidence) would read as sinks."""
    if pattern.dim() < 4 or pattern.shape[-1] != pattern.shape[-2]:
        raise ParameterError("pattern", tuple(pattern.shape), "expected (..., B, H, T, T)")
    T = pattern.shape[-1]
    later = torch.ones(T, T, dtype=pattern.dtype, device=pattern.device).tril(-1)  # [q, k]: q > k
    uniform_share = 1 / torch.arange(1, T + 1, dtype=pattern.dtype, device=pattern.device)
    ratio = pattern * (later / uniform_share[:, None])  # [q, k]: pattern[q, k] (q + 1), q > k
    return ratio.sum(-2).mean(-3) / later.sum(0)


def candidate_positions(tokens: torch.Tensor) -> torch.Tensor:
    """(T,) bool: the positions that hold the same token in every context (``?`` and the syntax
    tokens in this task's fixed layout); only these can be a sink."""
    if tokens.dim() != 2:
        raise ParameterError("tokens", tuple(tokens.shape), "expected (B, T) contexts")
    return (tokens == tokens[:1]).all(0)


@dataclass
class Sinks:
    """Per head (leading shape of ``received`` without T): the top candidate position, its score
    (attention received from later queries over the uniform share), whether the head is
    sink-dominated, and the token that sits there (token id)."""

    position: torch.Tensor
    score: torch.Tensor
    dominated: torch.Tensor
    token: torch.Tensor


def find_sinks(received: torch.Tensor, tokens: torch.Tensor,
               threshold: float = SINK_THRESHOLD) -> Sinks:
    """The top candidate position of every head and whether the head is sink-dominated: that
    position receives at least ``threshold`` times its uniform share. ``received`` (..., T) from
    ``attention_received``, ``tokens`` (B, T) the contexts it was measured on; candidates are
    ``candidate_positions(tokens)``."""
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not threshold > 1:
        raise ParameterError("threshold", threshold, "expected a number above 1 (uniform share)")
    if tokens.dim() != 2 or tokens.shape[1] != received.shape[-1]:
        raise ParameterError("tokens", tuple(tokens.shape),
                             f"expected (B, {received.shape[-1]}) contexts")
    candidate = candidate_positions(tokens).to(received.device)
    masked = torch.where(candidate, torch.nan_to_num(received, nan=-math.inf),
                         torch.full_like(received, -math.inf))
    score, position = masked.max(-1)
    common = tokens[0].to(received.device)  # (T,): at a candidate, every context's token
    return Sinks(position=position, score=score, dominated=score >= threshold,
                 token=common[position])


# ---------------------------------------------------------------------------- value content
def value_content(outputs: torch.Tensor) -> torch.Tensor:
    """Value content of each head: the norm of its output, mean over contexts and positions.
    ``outputs`` (E, B, H, T, D), a block's ``head_out`` hook point → (E, H)."""
    return outputs.norm(dim=-1).mean((1, 3))


@dataclass
class HeadActivity:
    """From one forward on a batch: ``received`` (E, L, H, T), the mean attention every position
    receives from later queries; ``value_content`` (E, L, H)."""

    received: torch.Tensor
    value_content: torch.Tensor


@torch.inference_mode()
def head_activity(model: Transformer, batch: Batch) -> HeadActivity:
    """Attention received and value content of every head of every block on ``batch``."""
    _, cache = model.run_with_cache(batch.tokens, model.hook_names("pattern") + model.hook_names("head_out"))
    L = model.cfg.n_blocks
    received = torch.stack([attention_received(p) for p in per_block(cache, "pattern", L)], dim=1)
    content = torch.stack([value_content(out) for out in per_block(cache, "head_out", L)], dim=1)
    return HeadActivity(received=received, value_content=content)


# ---------------------------------------------------------------------------- anchors and workers
def classify_heads(sink_dominated: torch.Tensor, value_content: torch.Tensor,
                   anchor_fraction: float = ANCHOR_FRACTION,
                   worker_fraction: float = WORKER_FRACTION) -> np.ndarray:
    """"anchor", "worker" or "neither" for every head; inputs (..., L, H), a run per leading index.

    With m the median value content over all L×H heads of the run: anchor = sink-dominated and
    value content < ``anchor_fraction`` × m; worker = value content ≥ ``worker_fraction`` × m
    (whatever its attention); neither otherwise. ``anchor_fraction`` ≤ ``worker_fraction`` keeps
    the classes disjoint.
    """
    if sink_dominated.shape != value_content.shape or value_content.dim() < 2:
        raise ParameterError("value_content", tuple(value_content.shape),
                             "expected (..., L, H) matching sink_dominated "
                             f"{tuple(sink_dominated.shape)}")
    for name, f in (("anchor_fraction", anchor_fraction), ("worker_fraction", worker_fraction)):
        if isinstance(f, bool) or not isinstance(f, (int, float)) or not f > 0:
            raise ParameterError(name, f, "expected a positive number")
    if anchor_fraction > worker_fraction:
        raise ParameterError("anchor_fraction", anchor_fraction,
                             f"expected at most worker_fraction = {worker_fraction}")
    vc = value_content.double()
    m = vc.flatten(-2).quantile(0.5, dim=-1)[..., None, None]
    out = np.full(tuple(vc.shape), "neither", dtype=object)
    out[(sink_dominated.bool() & (vc < anchor_fraction * m)).cpu().numpy()] = "anchor"
    out[(vc >= worker_fraction * m).cpu().numpy()] = "worker"
    return out


# ---------------------------------------------------------------------------- change
def relative_change(initial: torch.Tensor, final: torch.Tensor) -> torch.Tensor:
    """‖final − initial‖_F / ‖initial‖_F of every map (..., D, D) → (...), e.g. W_OV per head."""
    if initial.shape != final.shape:
        raise ParameterError("final", tuple(final.shape), f"expected {tuple(initial.shape)}")
    return torch.linalg.matrix_norm(final - initial) / torch.linalg.matrix_norm(initial)


# ---------------------------------------------------------------------------- gradient alignment
MAP_LEAVES = {"ov": ("W_V", "W_O"), "qk": ("W_Q", "W_K")}


def _per_head(g: dict[str, torch.Tensor], H: int) -> torch.Tensor:
    """A block's gradients of some of W_Q, W_K, W_V, W_O (E, D, D) → each head's slices,
    concatenated (E, H, n·D·dh): its columns of W_Q, W_K, W_V and its rows of W_O."""
    E, D, _ = next(iter(g.values())).shape
    dh = D // H
    parts = [g[k].reshape(E, D, H, dh).transpose(1, 2).reshape(E, H, -1) if k != "W_O"
             else g[k].reshape(E, H, dh * D) for k in g]
    return torch.cat(parts, dim=-1)


def cross_entropy(model: Transformer, batch: Batch) -> torch.Tensor:
    """The training cross-entropy of every run on ``batch`` (E,): the answers at ``loss_equals``."""
    logits = model(batch.tokens)
    E = logits.shape[0]
    at = logits[:, :, positions(model.task).loss_equals]  # (E, B, k, V)
    targets = batch.targets.to(at.device).expand(E, *batch.targets.shape)
    ce = F.cross_entropy(at.flatten(0, 2), targets.flatten(), reduction="none")
    return ce.view(E, -1).mean(1)


def gradient_alignment(model: Transformer, batch: Batch, kind: str = "ov") -> torch.Tensor:
    """Per head (E, L, H): cos(∇ NC_layer, ∇ CE) with respect to the head's own weights of the
    ``kind`` map: its columns of W_V and rows of W_O for W_OV (the default), its columns of W_Q
    and W_K for W_QK. NC_layer is its layer's mean pairwise non-commutativity of those maps, CE
    the training cross-entropy on ``batch``. (The other two weights do not enter the maps, so the
    gradient of NC with respect to them is zero and would only dilute the cosine.) The cosine is
    0 where either gradient is zero (e.g. a head whose map is zero)."""
    if kind not in MAP_KINDS:
        raise ParameterError("kind", kind, f"expected one of {MAP_KINDS}")
    leaves = MAP_LEAVES[kind]
    params = [getattr(blk, k) for blk in model.blocks for k in leaves]
    was = [p.requires_grad for p in params]
    try:
        with torch.enable_grad():
            for p in params:
                p.requires_grad_(True)
            g_ce = torch.autograd.grad(cross_entropy(model, batch).sum(), params, allow_unused=True)
            nc = mean_noncommutativity(pairwise_noncommutativity(head_maps(model, kind)))  # (E, L)
            g_nc = torch.autograd.grad(nc.sum(), params, allow_unused=True)
    finally:
        for p, w in zip(params, was):
            p.requires_grad_(w)
    H, n = model.cfg.n_heads, len(leaves)
    out = []
    for layer in range(len(model.blocks)):
        at = slice(layer * n, (layer + 1) * n)
        a, b = ({k: torch.zeros_like(p) if gr is None else gr
                 for k, p, gr in zip(leaves, params[at], grads[at])} for grads in (g_nc, g_ce))
        a, b = _per_head(a, H), _per_head(b, H)
        den = a.norm(dim=-1) * b.norm(dim=-1)
        dot = (a * b).sum(-1)
        out.append(torch.where(den > 0, dot / torch.where(den > 0, den, torch.ones_like(den)),
                               torch.zeros_like(den)))
    return torch.stack(out, dim=1).detach()


def gradient_classes(cosine: torch.Tensor, tau: float = TAU) -> np.ndarray:
    """"agreeing" (cos > τ), "disagreeing" (cos < −τ) or "neutral" (|cos| ≤ τ), per head."""
    if isinstance(tau, bool) or not isinstance(tau, (int, float)) or not 0 <= tau < 1:
        raise ParameterError("tau", tau, "expected a number in [0, 1)")
    c = cosine.detach().cpu().numpy()
    out = np.full(c.shape, "neutral", dtype=object)
    out[c > tau] = "agreeing"
    out[c < -tau] = "disagreeing"
    return out


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
