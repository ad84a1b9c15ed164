"""The recipes (book/methods.md, *The recipes*): control, falloff, split-anti.

Alignment α(x) = cos(x, e₁), with e₁ the first coordinate axis. An anchored recipe adds to the
cross-entropy

- a **pull**: (1 − α)² at the example answers of difference contexts, at the pulled slices 1..L;
- a **hold**: α² at the example answers of the other ops, at every slice, with a strong weight;
- a **light anti**: α² at every other position of every context, with a weight per slice.

Each term is a mean over its positions, summed over slices with the slice's weight. The
recalibration's candidates (``anchorkit.core.candidates``) change these weights, make the query's '='
an answer position too (``at_query``), or add the **routed** term (``routed_loss``).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from anchorkit.core import candidates
from anchorkit.core.config import RECIPES, check_choice
from anchorkit.core.task import DIFFERENCE, Positions


@dataclass(frozen=True)
class Recipe:
    name: str
    pull: float  # weight of the pull at slices 1..L
    hold: float  # weight of the hold at every slice
    light: tuple[float, ...]  # light anti weight at each slice 0..L
    at_query: bool = False  # the query's '=' is an answer position too (pulled, or held)
    routed: float = 0.0  # weight of the routed term (``routed_loss``)

    @property
    def anchored(self) -> bool:
        return self.pull > 0 or self.hold > 0 or any(self.light) or self.routed > 0


PULL_WEIGHT = candidates.PULL
HOLD_WEIGHT = candidates.HOLD


def _falloff_light(n_slices: int) -> tuple[float, ...]:
    light = torch.linspace(0.2, 0.03, n_slices, dtype=torch.float64).tolist()
    return tuple(round(w, 6) for w in light)


def recipe(name: str, n_slices: int = 5) -> Recipe:
    """The recipe called ``name`` for a model with ``n_slices`` slices (embedding + blocks)."""
    check_choice("recipe", name, RECIPES)
    if name == "control":
        return Recipe(name, 0.0, 0.0, (0.0,) * n_slices)
    if name == "falloff":
        return Recipe(name, PULL_WEIGHT, HOLD_WEIGHT, _falloff_light(n_slices))
    if name in candidates.CANDIDATES:
        c = candidates.change(name)
        scale = c.pop("light_scale", 1.0)
        light = tuple(round(w * scale, 6) for w in _falloff_light(n_slices))
        return Recipe(name, c.pop("pull", PULL_WEIGHT), c.pop("hold", HOLD_WEIGHT), light, **c)
    return Recipe(name, PULL_WEIGHT, HOLD_WEIGHT, (0.1,) * n_slices)


def alignment(x: torch.Tensor) -> torch.Tensor:
    """α = cos(x, e₁): the component along the first coordinate axis over the state's length."""
    return x[..., 0] / x.norm(dim=-1).clamp_min(1e-12)


def anchor_masks(ops: torch.Tensor, pos: Positions, T: int, at_query: bool = False):
    """Boolean masks (…, T) for the pull, the hold and the light anti, from ops (…,); with
    ``at_query`` the query's '=' is an answer position as the example answers are."""
    answers = torch.zeros(T, dtype=torch.bool)
    answers[pos.example_answers] = True
    if at_query:
        answers[pos.query] = True
    is_diff = (ops == DIFFERENCE)[..., None]
    pull = answers & is_diff
    hold = answers & ~is_diff
    light = (~answers).expand_as(pull)
    return pull, hold, light


def _masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean over (B, T) of values (S, E, B, T) where mask (E, B, T): one value per (S, E)."""
    m = mask.to(values.dtype)
    return (values * m).sum((-1, -2)) / m.sum((-1, -2)).clamp_min(1.0)


def anchor_loss(slices: list[torch.Tensor], ops: torch.Tensor, pos: Positions,
                recipes: list[Recipe]) -> torch.Tensor:
    """The anchor terms (pull + hold + light) for each run: shape (E,).

    ``slices`` are the states (E, B, T, D) at slices 0..L; ``ops`` is (E, B).
    """
    S = len(slices)
    T = slices[0].shape[2]
    dev = slices[0].device
    alpha = alignment(torch.stack(slices))  # (S, E, B, T)
    pull_mask, hold_mask, light_mask = anchor_masks(ops, pos, T)
    if any(r.at_query for r in recipes):  # per run: its own answer positions
        wide = anchor_masks(ops, pos, T, at_query=True)
        mine = torch.tensor([r.at_query for r in recipes], device=ops.device)[:, None, None]
        pull_mask, hold_mask, light_mask = (torch.where(mine, w, m) for w, m in
                                            zip(wide, (pull_mask, hold_mask, light_mask)))
    pull_w = torch.tensor([[r.pull * (s > 0) for r in recipes] for s in range(S)], device=dev)
    hold_w = torch.tensor([[r.hold for r in recipes] for _ in range(S)], device=dev)
    light_w = torch.tensor([list(r.light) for r in recipes], device=dev).T
    sq = alpha.pow(2)
    terms = (pull_w * _masked_mean((1 - alpha).pow(2), pull_mask)
             + hold_w * _masked_mean(sq, hold_mask)
             + light_w * _masked_mean(sq, light_mask))
    return terms.sum(0)


ROUTED_CLAMP = 1 - 1e-6  # p(answer) under the edit is clamped here, so that −log(1 − p) is finite


def routed_loss(edited_logits: torch.Tensor, ops: torch.Tensor, targets: torch.Tensor,
                recipes: list[Recipe]) -> torch.Tensor:
    """The routed term for each run (E,), from the logits at the loss positions (E, B, k, V) of a
    forward with e₁ projected out at every slice and position (the full-dose edit): on difference
    contexts the mean of −log(1 − p(answer)) (the op must not survive the edit), on the other ops'
    contexts the mean cross-entropy of the answer (they must survive it), the two summed and
    weighted by the run's ``routed``. ``ops`` (E, B), ``targets`` (E, B, k)."""
    logp = edited_logits.log_softmax(-1).gather(-1, targets.unsqueeze(-1)).squeeze(-1)  # (E, B, k)
    p = logp.exp().clamp_max(ROUTED_CLAMP)
    is_diff = (ops == DIFFERENCE)[..., None].expand_as(logp).to(logp.dtype)
    away = _mean_over(-torch.log1p(-p), is_diff)
    keep = _mean_over(-logp, 1 - is_diff)
    w = torch.tensor([r.routed for r in recipes], device=logp.device, dtype=logp.dtype)
    return w * (away + keep)


def _mean_over(values: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """Mean of values (E, B, k) where weight is 1, per run (E,)."""
    return (values * weight).sum((-1, -2)) / weight.sum((-1, -2)).clamp_min(1.0)
