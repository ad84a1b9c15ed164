"""Gradient alignment: per head, the cosine between the gradient of its layer's non-commutativity
and the training loss's (``anchorkit.measures.geometry``)."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from anchorkit.core.config import ParameterError
from anchorkit.measures.geometry.maps import MAP_KINDS, head_maps, mean_noncommutativity, pairwise_noncommutativity
from anchorkit.core.model import Transformer
from anchorkit.core.task import Batch, positions

TAU = 0.1  # gradient alignment: agreeing > τ, disagreeing < −τ, else neutral


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


