"""Directions and the projection edit (book/methods.md, *The edit*).

The edit projects a unit direction d out of the residual state at every slice and every position,
with a dose δ: x ← x − δ (x·d) d. At δ = 1 the state keeps no component along d; at δ = 0 it is
unchanged. Directions: e₁ and the other coordinate axes, the rotated axes (the columns of a run's
R), and random unit directions from a fixed seed.
"""

from __future__ import annotations

import torch

from anchorkit.core.config import check_dose, generator
from anchorkit.core.model import Hook, every_slice, haar_rotation
from anchorkit.core.optimizers import AXES, ROTATED_AXES, of

DOSES = (0.25, 0.5, 0.75, 1.0)
RANDOM_DIRECTIONS_SEED = 2024


def coordinate_axes(d_model: int) -> torch.Tensor:
    """The coordinate axes as rows (d_model, d_model); row 0 is e₁."""
    return torch.eye(d_model)


def e1(d_model: int) -> torch.Tensor:
    return coordinate_axes(d_model)[0]


def rotated_axes(R: torch.Tensor) -> torch.Tensor:
    """The rotated axes as rows: the columns of R."""
    return R.T.contiguous()


def seed_rotation(cfg) -> torch.Tensor:
    """The Haar rotation R drawn from a run's seed, whatever its optimizer: rotated Adam scales
    in its axes, and the plain-Adam twin at that seed is measured along the same ones."""
    return haar_rotation(cfg.seed, cfg.model.d_model)


def measured_bases(cfg) -> dict[str, torch.Tensor]:
    """The two bases every run is measured along, by name: the coordinate axes and the rotated
    axes of its seed's R (vectors as rows)."""
    return {AXES: coordinate_axes(cfg.model.d_model), ROTATED_AXES: rotated_axes(seed_rotation(cfg))}


def own_basis(cfg) -> tuple[str | None, torch.Tensor]:
    """The name and vectors (rows) of the basis the run's optimizer scales in (its own basis,
    ``optimizers.Optimizer.basis``); for a basis-free optimizer, None and no vectors (0, D)."""
    o = of(cfg)
    if o.basis is None:
        return None, torch.empty(0, cfg.model.d_model)
    return o.basis, measured_bases(cfg)[o.basis]


def random_directions(n: int, d_model: int, seed: int = RANDOM_DIRECTIONS_SEED) -> torch.Tensor:
    """n random unit directions (rows) from a fixed seed."""
    v = torch.randn(n, d_model, generator=generator("random-directions", seed))
    return v / v.norm(dim=1, keepdim=True)


def project_out(x: torch.Tensor, d: torch.Tensor, dose: float) -> torch.Tensor:
    """x − δ (x·d) d along the last axis; d is a unit vector (D,), one per run (E, D), or any
    shape that broadcasts against x (the sweep's (E, c, 1, 1, D): c directions per run)."""
    if d.dim() == 2:  # one direction per run: broadcast over (E, B, T, D)
        d = d.view(d.shape[0], *([1] * (x.dim() - 2)), d.shape[1])
    return x - dose * (x * d).sum(-1, keepdim=True) * d


def projection_edit(d: torch.Tensor, dose: float, n_slices: int) -> dict[str, Hook]:
    """Hooks (keyed by slice name) that project d out at every slice with the given dose."""
    dose = check_dose(dose)
    d = d / d.norm(dim=-1, keepdim=True)
    return every_slice(lambda x: project_out(x, d.to(x.device, x.dtype), dose), n_slices)


def project_out_subspace(x: torch.Tensor, Q: torch.Tensor) -> torch.Tensor:
    """x − (x Q) Qᵀ along the last axis: the projection edit of a subspace at full dose, Q (…, D, k)
    with orthonormal columns (zero columns are no direction), broadcast against x (…, D). With
    one column it is ``project_out(x, d, 1)``."""
    return x - ((x.unsqueeze(-2) @ Q) @ Q.transpose(-1, -2)).squeeze(-2)
