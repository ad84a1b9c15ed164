"""Measurements on the probe sets (SPEC §8).

Every function takes an ensemble model (leading run dimension E) and returns one value per run.
Scores are accuracies of the query answer (argmax over the number tokens) on an op's probe
contexts, clean (no edit), null (null set) or edited (with hooks).
"""

from __future__ import annotations

import torch

from anchorkit.model import Hook, Transformer
from anchorkit.recipes import alignment
from anchorkit.task import DIFFERENCE, OPS, Batch, n_numbers, positions


def _scores_from_logits(model: Transformer, logits: torch.Tensor, batch: Batch) -> torch.Tensor:
    q = positions(model.task).query
    predicted = logits[:, :, q, : n_numbers(model.task)].argmax(-1)
    correct = (predicted == batch.targets[:, -1]).float()
    return torch.stack([correct[:, batch.ops == op].mean(1) for op in range(len(OPS))], dim=1)


def _alignment_from_slices(model: Transformer, slices, batch: Batch):
    alpha = alignment(torch.stack(slices))[..., positions(model.task).example_answers]  # S,E,B,k
    is_diff = batch.ops == DIFFERENCE
    return alpha[:, :, is_diff].mean((-1, -2)).T, alpha[:, :, ~is_diff].mean((-1, -2)).T


@torch.inference_mode()
def op_scores(model: Transformer, batch: Batch, hooks: dict[int, Hook] | None = None
              ) -> torch.Tensor:
    """Score of every op (E, n_ops): accuracy of the query answer (argmax over the number
    tokens at the final '=') on that op's contexts."""
    return _scores_from_logits(model, model(batch.tokens, hooks=hooks), batch)


@torch.inference_mode()
def alignment_profile(model: Transformer, batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
    """Mean α at the example answers by slice (E, S): in difference contexts, in other-op contexts."""
    _, slices = model(batch.tokens, return_slices=True)
    return _alignment_from_slices(model, slices, batch)


@torch.inference_mode()
def scores_and_alignment(model: Transformer, batch: Batch):
    """op_scores and alignment_profile from one forward (what a trajectory point records)."""
    logits, slices = model(batch.tokens, return_slices=True)
    return (_scores_from_logits(model, logits, batch),) + _alignment_from_slices(model, slices, batch)


@torch.inference_mode()
def last_slice_states(model: Transformer, batch: Batch) -> torch.Tensor:
    """The residual states (E, N, D) at the last slice, every position of every context."""
    _, slices = model(batch.tokens, return_slices=True)
    x = slices[-1]
    return x.reshape(x.shape[0], -1, x.shape[-1])


def energy_shares(states: torch.Tensor, basis: torch.Tensor) -> torch.Tensor:
    """Energy share of each basis vector (E, n): mean (x·b)² over the sum of the same over the basis.

    ``states`` is (E, N, D); ``basis`` is (n, D) or one per run (E, n, D), orthonormal rows.
    """
    if basis.dim() == 2:
        basis = basis.unsqueeze(0).expand(states.shape[0], -1, -1)
    energy = (states @ basis.transpose(1, 2)).pow(2).mean(1)
    return energy / energy.sum(1, keepdim=True)


def syntax_cosines(model: Transformer, basis: torch.Tensor) -> dict[str, torch.Tensor]:
    """For each syntax token, the largest |cos| between its embedding and any basis vector (E,)."""
    from anchorkit.task import SYNTAX, token_id

    if basis.dim() == 2:
        basis = basis.unsqueeze(0).expand(model.n_members, -1, -1)
    out = {}
    with torch.inference_mode():
        for sym in SYNTAX:
            e = model.W_E[:, token_id(model.task, sym)]  # (E, D)
            cos = (basis @ e.unsqueeze(-1)).squeeze(-1) / (e.norm(dim=-1, keepdim=True)
                                                           * basis.norm(dim=-1))
            out[sym] = cos.abs().max(1).values
    return out
