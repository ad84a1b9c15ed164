"""Are the two arms mirror images by construction? (the diagnosis study, part 3)

The model has no per-coordinate parameter in the residual stream (an RMS norm without gain), so
rotating every weight's residual axis into a basis R (x′ = Rᵀx) changes no function the model
computes, and plain Adam on the rotated weights is rotated Adam on the original ones
(``optim.BasisAdam``). Step for step: plain Adam from the rotated initial weights, rotated back,
should equal rotated Adam from the original weights. Checked here in float64 over a full training
loop (warm-up and the regime's learning-rate schedule, its data stream and loss); the anchor's pull
onto e₁ (a coordinate axis in both trainings) is expected to break it for falloff runs.
"""

from __future__ import annotations

import pandas as pd
import torch

from anchorkit.core.config import RunConfig
from anchorkit.studies.diagnosis import MIRROR_TOL
from anchorkit.engine.executor import THREADS, each, threads
from anchorkit.core.model import Transformer, haar_rotation, residual_axis
from anchorkit.core.optim import BasisAdam
from anchorkit.core.optimizers import PLAIN_ADAM, of
from anchorkit.engine.profiles import PAPER
from anchorkit.core.recipes import recipe
from anchorkit.engine.study import run_config
from anchorkit.core.task import epoch_batches, positions
from anchorkit.core.train import data_seed, initial_state, learning_rate, step_loss


def rotate(state: dict[str, torch.Tensor], R: torch.Tensor, back: bool = False
           ) -> dict[str, torch.Tensor]:
    """Every weight's residual axis in R's basis (components x′ = Rᵀx), or ``back`` from it."""
    out = {}
    for name, w in state.items():
        axis = residual_axis(name)
        if axis is None:
            out[name] = w.clone()
            continue
        moved = w.movedim(axis, -1)
        out[name] = (moved @ (R.T if back else R)).movedim(-1, axis)
    return out


def train64(cfg: RunConfig, state: dict[str, torch.Tensor], R: torch.Tensor | None, steps: int
            ) -> dict[str, torch.Tensor]:
    """``steps`` optimizer steps of ``cfg``'s training (its data stream, loss, learning-rate
    schedule and Adam settings) in float64 from ``state``, with Adam's scaling in basis ``R``
    (None: plain Adam); the weights after them."""
    tcfg, task = cfg.train, cfg.task
    model = Transformer(1, cfg.model, cfg.task).double()
    model.load_state_dict({k: v[None] for k, v in state.items()})  # float64 kept, not cast
    params = dict(model.named_parameters())
    opt = BasisAdam(params, {k: residual_axis(k) for k in params},
                    None if R is None else R.double()[None], lr=tcfg.lr,
                    betas=(tcfg.beta1, tcfg.beta2), eps=tcfg.eps)
    loss_of = step_loss(model, [recipe(cfg.recipe, model.n_slices)], positions(task), "eager")
    per_epoch = tcfg.contexts_per_epoch // tcfg.batch_size
    total = cfg.epochs * per_epoch
    for step in range(steps):
        epoch, i = divmod(step, per_epoch)
        b = epoch_batches(task, data_seed(cfg.seed), epoch, tcfg.contexts_per_epoch,
                          tcfg.batch_size)[i]
        opt.lr = learning_rate(tcfg, opt.step_count + 1, total)
        loss = loss_of(b.tokens[None], b.ops[None], b.targets[None])
        opt.zero_grad()
        loss.sum().backward()
        opt.step()
    return {k: v.detach() for k, v in model.member_state(0).items()}


def mirror_gap(cfg: RunConfig, steps: int) -> float:
    """The largest |Δ weight| between rotated Adam from ``cfg``'s initial weights and plain Adam
    from those weights rotated into R's basis, rotated back, after ``steps`` steps (float64).
    ``cfg`` is a run under rotated Adam."""
    if not of(cfg).rotated:
        raise ValueError(f"{cfg.name}: the mirror check starts from a rotated-Adam run")
    # the run's Haar draw computed in float64 (training uses it rounded to float32, which is
    # orthogonal only to float32 precision)
    R = haar_rotation(cfg.seed, cfg.model.d_model, torch.float64)
    start = {k: v.double() for k, v in initial_state(cfg).items()}
    rotated_adam = train64(cfg, start, R, steps)
    plain_adam = train64(cfg.replace(optimizer=PLAIN_ADAM.name), rotate(start, R), None, steps)
    back = rotate(plain_adam, R, back=True)
    return max(float((rotated_adam[k] - back[k]).abs().max()) for k in rotated_adam)


def mirror_row(item: tuple[int, str], regime, steps: int) -> dict:
    """The check for one (seed, recipe) of a report regime's paper runs: the largest |Δ weight|
    after ``steps`` steps and whether it is within ``diagnosis.MIRROR_TOL`` (equal step for
    step), with the tasks' thread count."""
    seed, rec = item
    with threads(THREADS):
        gap = mirror_gap(run_config(seed, rec, "rotated", PAPER, regime), steps)
    return {"regime": regime.name, "seed": seed, "recipe": rec, "steps": steps,
            "largest_gap": gap, "equal": gap <= MIRROR_TOL}


def mirror_table(regime, seeds, steps: int, progress: bool = True,
                 scheduler: str | None = None) -> pd.DataFrame:
    """The check for every seed and recipe (control, falloff) of a report regime's paper runs,
    one row each (``mirror_row``), a task each on the executor (``executor.each``)."""
    todo = [(s, r) for s in seeds for r in ("control", "falloff")]
    return pd.DataFrame(each(mirror_row, todo, regime, steps, scheduler=scheduler,
                             progress=progress, desc=f"mirror check ({regime.name})",
                             measured="checks"))
