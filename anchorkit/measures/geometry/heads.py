"""Each head's attention sinks, value content and class (anchor or worker), and how much a map
changed over training (``anchorkit.measures.geometry``)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from anchorkit.core.config import ParameterError
from anchorkit.core.model import Transformer, per_block
from anchorkit.core.task import Batch

SINK_THRESHOLD = 3.0  # sink-dominated: a candidate position receives ≥ this × its uniform share
ANCHOR_FRACTION = 0.5  # anchor: sink-dominated, value content < this × the run's median head's
WORKER_FRACTION = 1.0  # worker: value content >= this × the run's median head's


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


