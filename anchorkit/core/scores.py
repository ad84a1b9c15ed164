"""Scores on the probe sets: the query answers of an ensemble's runs, each op's accuracy, and the
alignment by slice (book/methods.md, *Measurements*). What a trajectory point records during
training, and what every later measurement (``anchorkit.measures``) starts from.

Every function takes an ensemble model (leading run dimension E) and returns one value per run.
Scores are accuracies of the query answer (argmax over the number tokens) on an op's probe
contexts, clean (no edit), null (null set) or edited (with hooks).
"""

from __future__ import annotations

import torch

from anchorkit.core.model import Hook, Transformer, slice_states
from anchorkit.core.recipes import alignment
from anchorkit.core.task import DIFFERENCE, OPS, Batch, n_numbers, positions


def _predictions_from_logits(model: Transformer, logits: torch.Tensor) -> torch.Tensor:
    return logits[:, :, positions(model.task).query, : n_numbers(model.task)].argmax(-1)


def _scores_from_logits(model: Transformer, logits: torch.Tensor, batch: Batch) -> torch.Tensor:
    return scores_of_predictions(_predictions_from_logits(model, logits), batch)


def _alignment_from_slices(model: Transformer, slices, batch: Batch):
    alpha = alignment(torch.stack(slices))[..., positions(model.task).example_answers]  # S,E,B,k
    is_diff = batch.ops == DIFFERENCE
    return alpha[:, :, is_diff].mean((-1, -2)).T, alpha[:, :, ~is_diff].mean((-1, -2)).T


@torch.inference_mode()
def query_predictions(model: Transformer, batch: Batch, hooks: dict[str, Hook] | None = None
                      ) -> torch.Tensor:
    """The query answer of every context (E, B): argmax over the number tokens at the final '='."""
    return _predictions_from_logits(model, model(batch.tokens, hooks=hooks))


@torch.inference_mode()
def op_scores(model: Transformer, batch: Batch, hooks: dict[str, Hook] | None = None
              ) -> torch.Tensor:
    """Score of every op (E, n_ops): accuracy of the query answer (argmax over the number
    tokens at the final '=') on that op's contexts."""
    return _scores_from_logits(model, model(batch.tokens, hooks=hooks), batch)


@torch.inference_mode()
def alignment_profile(model: Transformer, batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
    """Mean α at the example answers by slice (E, S): in difference contexts, in other-op contexts."""
    slices = slice_states(model.run_with_cache(batch.tokens, model.hook_names("resid"))[1])
    return _alignment_from_slices(model, slices, batch)


@torch.inference_mode()
def scores_and_alignment(model: Transformer, batch: Batch):
    """op_scores and alignment_profile from one forward (what a trajectory point records)."""
    logits, cache = model.run_with_cache(batch.tokens, model.hook_names("resid"))
    return ((_scores_from_logits(model, logits, batch),)
            + _alignment_from_slices(model, slice_states(cache), batch))


@torch.inference_mode()
def last_slice_states(model: Transformer, batch: Batch) -> torch.Tensor:
    """The residual states (E, N, D) at the last slice, every position of every context."""
    slices = slice_states(model.run_with_cache(batch.tokens, model.hook_names("resid"))[1])
    x = slices[-1]
    return x.reshape(x.shape[0], -1, x.shape[-1])


def scores_of_predictions(predicted: torch.Tensor, batch: Batch) -> torch.Tensor:
    """Per-op accuracy (…, n_ops) of query predictions (…, B)."""
    correct = (predicted == batch.targets[:, -1]).float()
    return torch.stack([correct[..., batch.ops == op].mean(-1) for op in range(len(OPS))], dim=-1)
