"""Adam with its per-coordinate scaling applied in a rotated basis of the residual stream (book/methods.md, *The optimizers*).

For every parameter with a residual axis, the gradient's residual axis is rotated into the basis R
(x' = Rᵀx), Adam's moments are kept there, and the update is rotated back. Every other axis is
untouched. This is exactly plain Adam on the reparameterised weights W' = RᵀW. With no rotation
(or R = I) it is torch's Adam, step for step.

Weights carry a leading run dimension; R has one per run, shape (E, D, D).
"""

from __future__ import annotations

import torch


class BasisAdam:
    """Adam over named ensemble parameters, optionally in a rotated basis per run.

    ``params`` maps a name to a parameter of shape (E, ...); ``axes`` maps a name to its residual
    axis in the per-run tensor (None: no residual axis). ``rotations`` is (E, D, D) or None.
    """

    def __init__(self, params: dict[str, torch.nn.Parameter], axes: dict[str, int | None],
                 rotations: torch.Tensor | None = None, lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8):
        self.params = dict(params)
        self.axes = {k: axes.get(k) for k in self.params}
        self.rotations = rotations
        self.lr, self.betas, self.eps = lr, betas, eps
        self.step_count = 0
        self.exp_avg = {k: torch.zeros_like(p) for k, p in self.params.items()}
        self.exp_avg_sq = {k: torch.zeros_like(p) for k, p in self.params.items()}

    def _rotate(self, t: torch.Tensor, axis: int, inverse: bool) -> torch.Tensor:
        """Components along R's basis of the residual axis (or back, with ``inverse``)."""
        R = self.rotations
        moved = t.movedim(axis + 1, -1)
        shape = moved.shape
        flat = moved.reshape(shape[0], -1, shape[-1])
        out = flat @ (R.transpose(1, 2) if inverse else R)
        return out.reshape(shape).movedim(-1, axis + 1)

    @torch.no_grad()
    def step(self):
        self.step_count += 1
        beta1, beta2 = self.betas
        bias_correction1 = 1 - beta1 ** self.step_count
        bias_correction2_sqrt = (1 - beta2 ** self.step_count) ** 0.5
        step_size = self.lr / bias_correction1
        for name, p in self.params.items():
            if p.grad is None:
                continue
            axis = self.axes[name]
            rotated = self.rotations is not None and axis is not None
            grad = self._rotate(p.grad, axis, inverse=False) if rotated else p.grad
            m, v = self.exp_avg[name], self.exp_avg_sq[name]
            m.lerp_(grad, 1 - beta1)
            v.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            denom = (v.sqrt() / bias_correction2_sqrt).add_(self.eps)
            if rotated:
                p.sub_(self._rotate(m / denom, axis, inverse=True) * step_size)
            else:
                p.addcdiv_(m, denom, value=-step_size)

    def zero_grad(self):
        for p in self.params.values():
            p.grad = None

    # ------------------------------------------------------------------ per-run state
    def member_state(self, i: int) -> dict[str, torch.Tensor]:
        state = {f"exp_avg.{k}": v[i].clone() for k, v in self.exp_avg.items()}
        state.update({f"exp_avg_sq.{k}": v[i].clone() for k, v in self.exp_avg_sq.items()})
        return state

    def load_members(self, states: list[dict[str, torch.Tensor]], step_count: int):
        for k in self.params:
            self.exp_avg[k] = torch.stack([s[f"exp_avg.{k}"] for s in states])
            self.exp_avg_sq[k] = torch.stack([s[f"exp_avg_sq.{k}"] for s in states])
        self.step_count = step_count


# the update rules an optimizer value names (``optimizers.Optimizer.update``)
UPDATES = {"adam": BasisAdam}
