"""Training a list of runs as one ensemble, with checkpoints, trajectories and resume (book/methods.md, *Training*).

All runs that share a shape (task, model, training settings, epochs) and start from the same
epoch train together: their weights carry a leading run dimension, each run keeps its own
recipe, optimizer basis and data stream, and the summed loss gives each run exactly its own
gradient. An ensemble of one is the per-run path; every member of a larger ensemble matches it.
"""

from __future__ import annotations

import contextlib
import functools
import time
from dataclasses import dataclass
from typing import Callable, Sequence

import pandas as pd
import torch
import torch.nn.functional as F
from tqdm.std import tqdm

from anchorkit.core import kernels
from anchorkit.core.config import ParameterError, RunConfig, derive_seed
from anchorkit.core.scores import scores_and_alignment
from anchorkit.core.model import Transformer, residual_axis, slice_states
from anchorkit.core.optim import UPDATES, BasisAdam
from anchorkit.core.optimizers import of
from anchorkit.core.progress import label
from anchorkit.core.edit import e1, projection_edit, seed_rotation
from anchorkit.core.recipes import anchor_loss, recipe, routed_loss
from anchorkit.core.store import RunStore
from anchorkit.core.task import OPS, Batch, epoch_batches, positions, probe_set


@dataclass
class TrainedRun:
    config: RunConfig
    initial: dict[str, torch.Tensor]
    final: dict[str, torch.Tensor]
    trajectory: pd.DataFrame


# epochs at which the training loop keeps a copy of the weights in the run store (the essay reads
# them: classes at an early epoch, gradient alignment over training; the confirmation compares
# its runs at epoch 800 with their end); a fixed list, not part of a run's configuration, so it
# changes no run's hash. A published run carries those publish_runs was asked to publish.
SNAPSHOT_EPOCHS = (0, 10, 50, 150, 800)


def learning_rate(tcfg, step: int, total_steps: int) -> float:
    """The learning rate of optimizer step ``step`` (from 1) of a run of ``total_steps``: a linear
    warm-up over ``warmup_steps``, then ``lr``; with ``lr_decay`` > 0 it then falls linearly over
    the run's final ``lr_decay`` fraction of steps, to ``lr`` / (steps in the decay) at the last."""
    lr = tcfg.lr * min(1.0, step / tcfg.warmup_steps) if tcfg.warmup_steps else tcfg.lr
    if tcfg.lr_decay:
        decay_steps = max(1, round(tcfg.lr_decay * total_steps))
        lr *= min(1.0, (total_steps - step + 1) / decay_steps)
    return lr


def data_seed(seed: int) -> int:
    """The data stream's seed, derived from the model seed (twins share it)."""
    return derive_seed("data-seed", seed)


def rotation(cfg: RunConfig) -> torch.Tensor:
    """R of the run's optimizer: its seed's Haar rotation where it scales in the rotated axes
    (rotated Adam), else I."""
    return seed_rotation(cfg) if of(cfg).rotated else torch.eye(cfg.model.d_model)


def initial_state(cfg: RunConfig) -> dict[str, torch.Tensor]:
    """The run's initial weights, re-derived from its model seed."""
    return Transformer(1, cfg.model, cfg.task).initialise([cfg.seed]).member_state(0)


def load_model(cfgs: Sequence[RunConfig], states: Sequence[dict], device="cpu") -> Transformer:
    """An ensemble model holding the given per-run weights."""
    cfg = cfgs[0]
    return Transformer.from_members(list(states), cfg.model, cfg.task).to(device)


def _loss(model: Transformer, recipes, pos, attention: str, tokens, ops, targets) -> torch.Tensor:
    """Each run's training loss (E,): cross-entropy at the loss positions plus its anchor terms."""
    anchored = any(r.anchored for r in recipes)
    if anchored:
        logits, cache = model.run_with_cache(tokens, model.hook_names("resid"), attention=attention)
        states = slice_states(cache)
    else:
        logits = model(tokens, attention=attention)
    at = logits[:, :, pos.loss_equals]  # (E, B, k, V)
    ce = F.cross_entropy(at.flatten(0, 2), targets.flatten(), reduction="none")
    loss = ce.view(model.n_members, -1).mean(1)
    if anchored:
        loss = loss + anchor_loss(states, ops, pos, recipes)
    if any(r.routed > 0 for r in recipes):  # the routed term: a second forward under the e₁ edit
        edit = projection_edit(e1(model.cfg.d_model), 1.0, model.n_slices)
        edited = model(tokens, hooks=edit, attention=attention)[:, :, pos.loss_equals]
        loss = loss + routed_loss(edited, ops, targets, recipes)
    return loss


def step_loss(model: Transformer, recipes, pos, step: str) -> Callable:
    """``loss(tokens, ops, targets)`` for the training step ``step`` (``TrainConfig.step``): the
    eager reference, or the same loss compiled by ``torch.compile`` with matmul attention (the
    first steps of an ensemble then spend seconds compiling)."""
    if step == "eager":
        return functools.partial(_loss, model, recipes, pos, "fused")
    return torch.compile(functools.partial(_loss, model, recipes, pos, "matmul"), dynamic=False)


def _check_configs(configs) -> list[RunConfig]:
    configs = list(configs)
    if not configs:
        raise ParameterError("configs", configs, "expected at least one RunConfig")
    for c in configs:
        if not isinstance(c, RunConfig):
            raise ParameterError("configs", c, "expected RunConfig objects")
    if len({c.hash for c in configs}) != len(configs):
        raise ParameterError("configs", [c.name for c in configs], "expected distinct runs")
    return configs


# a checkpoint is also taken at the end of any epoch this long after the last one, so that a run
# interrupted after a minute resumes whatever its length or checkpoint_every (epochs are
# deterministic given their index, so any epoch boundary resumes to the same bits)
CHECKPOINT_SECONDS = 60.0


def train(configs: Sequence[RunConfig], store: RunStore | None = None, device: str = "cpu",
          progress: bool = True, on_epoch_end: Callable[[int], None] | None = None,
          snapshots: Sequence[int] = ()) -> list[TrainedRun]:
    """Train (or load, or resume) every run; return them in the order given.

    With a store, finished runs are loaded rather than retrained, unfinished ones resume from
    their last checkpoint, and every finished run is written to the store as it completes.
    ``on_epoch_end(epoch)`` is called after each epoch (epochs counted from 1). ``snapshots``:
    epochs at which the weights are kept in the store besides ``SNAPSHOT_EPOCHS`` (they change
    nothing in the run).
    """
    configs = _check_configs(configs)  # ``device`` is checked where a request is built
    kernels.check()
    done = {c.hash: load_run(c, store) for c in configs
            if store is not None and store.has_final(c)}
    todo = [c for c in configs if c.hash not in done]
    with store.writing(todo) if store is not None and todo else contextlib.nullcontext():
        pending: dict[tuple, list] = {}
        for cfg in todo:
            if store is not None and store.has_final(cfg):  # another writer finished it meanwhile
                done[cfg.hash] = load_run(cfg, store)
                continue
            ckpt = store.load_checkpoint(cfg) if store is not None else None
            start = ckpt["epoch"] if ckpt else 0
            pending.setdefault((cfg.shape_key(), of(cfg).update, start), []).append((cfg, ckpt))
        for (_, _, start), group in pending.items():
            for run in _train_ensemble(group, start, store, device, progress, on_epoch_end,
                                       set(SNAPSHOT_EPOCHS) | set(snapshots)):
                done[run.config.hash] = run
    return [done[c.hash] for c in configs]


def load_run(cfg: RunConfig, store: RunStore) -> TrainedRun:
    """A finished run from the store, trained by nothing (a published run has no initial weights
    on disk: they are re-derived from the seed)."""
    initial = store.load_initial(cfg) if store.has_initial(cfg) else initial_state(cfg)
    return TrainedRun(cfg, initial, store.load_final(cfg), store.load_trajectory(cfg))


@dataclass
class _Ensemble:
    """One ensemble's training state: its runs, their stacked model and optimizer, the loss of a
    step, the probe set the trajectory is recorded on, and the trajectory so far."""

    cfgs: list[RunConfig]
    initial: list[dict]
    model: Transformer
    opt: BasisAdam
    loss_of: Callable
    probe: Batch
    seeds: list[int]
    traj_rows: list[dict]
    store: RunStore | None
    snapshot_epochs: Sequence[int]
    device: str

    @property
    def steps_per_epoch(self) -> int:
        t = self.cfgs[0].train
        return t.contexts_per_epoch // t.batch_size


def _prepare(group, start: int, store, device, snapshot_epochs) -> _Ensemble:
    """The ensemble's model and optimizer at epoch ``start`` (its initial weights, or the
    checkpoints in ``group``), the initial weights saved to the store."""
    cfgs = [c for c, _ in group]
    cfg0 = cfgs[0]
    tcfg, task = cfg0.train, cfg0.task
    initial = [initial_state(c) for c in cfgs]
    if start == 0:
        model = load_model(cfgs, initial, device)
        traj_rows: list[dict] = []
    else:
        model = load_model(cfgs, [ck["model"] for _, ck in group], device)
        traj_rows = [row for _, ck in group for row in ck["trajectory"]]
    if store is not None:
        for c, s in zip(cfgs, initial):
            store.save_initial(c, s)
    params = dict(model.named_parameters())
    rotations = None
    if any(of(c).rotated for c in cfgs):
        rotations = torch.stack([rotation(c) for c in cfgs]).to(device)
    # train() groups runs by update rule: plain and rotated Adam share Adam's (R = I for plain)
    update = UPDATES[of(cfg0).update]
    opt = update(params, {k: residual_axis(k) for k in params}, rotations, lr=tcfg.lr,
                 betas=(tcfg.beta1, tcfg.beta2), eps=tcfg.eps)
    if start:
        opt.load_members([ck["optimizer"] for _, ck in group], group[0][1]["step"])
    recipes = [recipe(c.recipe, model.n_slices) for c in cfgs]
    loss_of = step_loss(model, recipes, positions(task), tcfg.step)
    probe = probe_set(task)
    probe = Batch(*(t.to(device) for t in vars(probe.clean).values()))
    return _Ensemble(cfgs, initial, model, opt, loss_of, probe, [data_seed(c.seed) for c in cfgs],
                     traj_rows, store, snapshot_epochs, device)


def _record(ens: _Ensemble, epoch: int, losses) -> None:
    """The trajectory's row of every run at ``epoch``: its loss, op scores and alignment."""
    scores, diff, other = scores_and_alignment(ens.model, ens.probe)
    for i, c in enumerate(ens.cfgs):
        row = {"run": c.name, "hash": c.hash, "seed": c.seed, "recipe": c.recipe,
               "optimizer": c.optimizer, "epoch": epoch,
               "loss": float("nan") if losses is None else float(losses[i])}
        row.update({f"score_{op}": float(scores[i, j]) for j, op in enumerate(OPS)})
        row.update({f"alignment_difference_{s}": float(diff[i, s]) for s in range(diff.shape[1])})
        row.update({f"alignment_other_{s}": float(other[i, s]) for s in range(other.shape[1])})
        ens.traj_rows.append(row)


def _snapshot(ens: _Ensemble, epoch: int) -> None:
    if ens.store is not None and epoch in ens.snapshot_epochs:
        for i, c in enumerate(ens.cfgs):
            ens.store.save_snapshot(c, epoch, ens.model.member_state(i))


def _train_epoch(ens: _Ensemble, epoch: int) -> torch.Tensor:
    """One epoch of every run, step by step; the runs' mean losses over it."""
    cfg0, device = ens.cfgs[0], ens.device
    tcfg, steps = cfg0.train, ens.steps_per_epoch
    per_run = [epoch_batches(cfg0.task, s, epoch, tcfg.contexts_per_epoch, tcfg.batch_size)
               for s in ens.seeds]
    epoch_loss = torch.zeros(len(ens.cfgs), device=device)
    for step in range(steps):
        tokens = torch.stack([b[step].tokens for b in per_run]).to(device)
        ops = torch.stack([b[step].ops for b in per_run]).to(device)
        targets = torch.stack([b[step].targets for b in per_run]).to(device)
        global_step = ens.opt.step_count + 1
        ens.opt.lr = learning_rate(tcfg, global_step, cfg0.epochs * steps)
        loss = ens.loss_of(tokens, ops, targets)
        bad = ~torch.isfinite(loss)
        if bad.any():
            i = int(bad.nonzero()[0])
            raise FloatingPointError(
                f"non-finite loss in run {ens.cfgs[i].name} ({ens.cfgs[i].hash}) at epoch "
                f"{epoch + 1}, step {global_step}")
        ens.opt.zero_grad()
        loss.sum().backward()
        ens.opt.step()
        epoch_loss += loss.detach()
    return epoch_loss / steps


def _checkpoint(ens: _Ensemble, done: int) -> None:
    """Every run's checkpoint after epoch ``done``: weights, optimizer state and trajectory."""
    for i, c in enumerate(ens.cfgs):
        ens.store.save_checkpoint(c, {
            "hash": c.hash, "epoch": done, "step": ens.opt.step_count,
            "model": ens.model.member_state(i), "optimizer": ens.opt.member_state(i),
            "trajectory": [r for r in ens.traj_rows if r["hash"] == c.hash]})


def _finish(ens: _Ensemble, start: int, wall: float) -> list[TrainedRun]:
    """Every run's final weights and trajectory, saved to the store with how they were made."""
    runs = []
    for i, c in enumerate(ens.cfgs):
        traj = pd.DataFrame([r for r in ens.traj_rows if r["hash"] == c.hash])
        run = TrainedRun(c, ens.initial[i], ens.model.member_state(i), traj)
        if ens.store is not None:
            ens.store.save_final(c, run.final, traj, {
                "wall_seconds_ensemble": wall, "ensemble_size": len(ens.cfgs),
                "resumed_from_epoch": start, "step": ens.cfgs[0].train.step,
                "machine": kernels.record()})
        runs.append(run)
    return runs


@contextlib.contextmanager
def denormals(flush: bool):
    """Run the block with denormal floats flushed to zero or kept (``TrainConfig.flush_denormals``),
    the process's setting restored after (kept: the default)."""
    torch.set_flush_denormal(flush)
    try:
        yield
    finally:
        torch.set_flush_denormal(False)


def _train_ensemble(group, start: int, store, device, progress, on_epoch_end, snapshot_epochs
                    ) -> list[TrainedRun]:
    """Train an ensemble from epoch ``start`` to the end: the trajectory recorded every
    ``trajectory_every`` epochs, snapshots at ``snapshot_epochs``, a checkpoint every
    ``checkpoint_every`` epochs or ``CHECKPOINT_SECONDS``; denormals flushed or kept as the
    training settings say, for every step and record alike."""
    with denormals(group[0][0].train.flush_denormals):
        return _run_ensemble(group, start, store, device, progress, on_epoch_end, snapshot_epochs)


def _run_ensemble(group, start: int, store, device, progress, on_epoch_end, snapshot_epochs
                  ) -> list[TrainedRun]:
    ens = _prepare(group, start, store, device, snapshot_epochs)
    cfg0 = ens.cfgs[0]
    tcfg = cfg0.train
    t0 = last_checkpoint = time.perf_counter()
    if start == 0:
        _record(ens, 0, None)
        _snapshot(ens, 0)
    bar = tqdm(range(start, cfg0.epochs), desc=label("training", [c.name for c in ens.cfgs], 1),
               unit="epoch", disable=not progress, initial=start, total=cfg0.epochs)
    for epoch in bar:
        epoch_loss = _train_epoch(ens, epoch)
        done = epoch + 1
        if done % tcfg.trajectory_every == 0 or done == cfg0.epochs:
            _record(ens, done, epoch_loss.tolist())
        _snapshot(ens, done)
        due = (done % tcfg.checkpoint_every == 0
               or time.perf_counter() - last_checkpoint >= CHECKPOINT_SECONDS)
        if store is not None and due and done < cfg0.epochs:
            last_checkpoint = time.perf_counter()
            _checkpoint(ens, done)
        bar.set_postfix(loss=f"{float(epoch_loss.mean()):.3f}")
        if on_epoch_end is not None:
            on_epoch_end(done)
    bar.close()
    return _finish(ens, start, time.perf_counter() - t0)
