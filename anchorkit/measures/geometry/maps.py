"""The heads' maps on the residual stream (W_OV, W_QK) and their algebra: non-commutativity,
the Killing form and their spread over heads (``anchorkit.measures.geometry``, its shapes and conventions)."""

from __future__ import annotations

import math
from typing import Mapping, Union

import numpy as np
import torch

from anchorkit.core.config import ModelConfig, ParameterError
from anchorkit.core.model import Transformer

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




