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
        self.exp_avg_sq = {k: self._second_moment_like(k, p) for k, p in self.params.items()}

    def _second_moment_like(self, name: str, p: torch.Tensor) -> torch.Tensor:
        """The zero second-moment estimate of parameter ``name``: one per coordinate."""
        return torch.zeros_like(p)

    def _accumulate(self, name: str, v: torch.Tensor, grad: torch.Tensor, beta2: float) -> None:
        """v ← β₂ v + (1 − β₂) g², coordinate by coordinate (in place)."""
        v.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)

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
            self._accumulate(name, v, grad, beta2)
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


class SharedAdam(BasisAdam):
    """Adam whose second moment is shared along the residual axis (the basis-free arm, book/methods.md,
    *The optimizers*): for every parameter with a residual axis, the estimate of g² is averaged over
    that axis, one value for the D coordinates of each other index, so the update commutes with
    any rotation of the residual coordinates (the mean of g² over the axis is g's squared norm
    along it, over D, which a rotation keeps). Every other axis keeps Adam's per-coordinate
    scaling; with a residual axis of size 1 it is Adam. It takes no rotation."""

    def __init__(self, params, axes, rotations=None, **kw):
        if rotations is not None:
            raise ValueError("shared Adam scales in no basis: it takes no rotation")
        super().__init__(params, axes, None, **kw)

    def _second_moment_like(self, name, p):
        axis = self.axes[name]
        if axis is None:
            return torch.zeros_like(p)
        return torch.zeros_like(p.mean(axis + 1, keepdim=True))

    def _accumulate(self, name, v, grad, beta2):
        axis = self.axes[name]
        if axis is None:
            return super()._accumulate(name, v, grad, beta2)
        v.mul_(beta2).add_((grad * grad).mean(axis + 1, keepdim=True), alpha=1 - beta2)


# the update rules an optimizer value names (``optimizers.Optimizer.update``)
UPDATES = {"adam": BasisAdam, "shared-adam": SharedAdam}
