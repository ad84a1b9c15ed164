"""Measuring and judging the confirmation's runs (issue 66; its rule is ``confirmation``).

The set has no controls, so each falloff run is read **on its own**: raw removal at full dose and
its reference baseline (with removal net of it) are measures of the anchored run alone, which
``pairs.measure_pair`` computes on the anchored side whatever the control (a test holds the
anchored columns equal for a run paired with its control and with itself). Each run is read at
its end and at epoch ``confirmation.EARLIER`` (its snapshot), with the training loss of that
epoch from its trajectory; a task per run and epoch on the executor.

``tables(readings, exploratory)`` then gives what the confirmation commits: the readings, the
confirmation's rows (``confirmation.confirm``), its outcome with the book's words, and the two
analyses of the new seeds (``training_length``, ``against_loss``).
"""

from __future__ import annotations

import pandas as pd

from anchorkit.core.config import RunConfig
from anchorkit.engine.executor import each
from anchorkit.measures.answers import PARTS, cached_answers
from anchorkit.engine.pairs import SWEEP_CHUNK, Pair, measure_pair
from anchorkit.studies.rotated_basis.question import paired_differences
from anchorkit.studies.rotated_basis import confirmation as c

READ = ("raw_removal", "anchored_reference_baseline", "removal_net_of_reference")


def run_row(cfg: RunConfig, store, epoch: int | None = None) -> dict:
    """One run read on its own at ``epoch`` (None: its end): raw removal, its reference baseline,
    removal net of it, and the training loss of that epoch."""
    state = store.load_final(cfg) if epoch is None else store.load_snapshot(cfg, epoch)
    answers = cached_answers(cfg, state, PARTS, store, SWEEP_CHUNK)
    res = measure_pair(Pair(cfg, cfg), state, state, answers=(answers, answers))["results"]
    at = cfg.epochs if epoch is None else epoch
    traj = store.load_trajectory(cfg)
    loss = traj.loc[traj.epoch == at, "loss"]
    return {"seed": cfg.seed, "optimizer": cfg.optimizer, "run": cfg.name, "hash": cfg.hash,
            "epoch": at, **{k: float(res[k].iloc[0]) for k in READ},
            "loss": float(loss.iloc[0]) if len(loss) else float("nan")}


def _task(item, store) -> dict:
    cfg, epoch = item
    return run_row(cfg, store, epoch)


def readings(store, seeds=c.SEEDS, scheduler=None, progress: bool = True) -> pd.DataFrame:
    """Every run of the set read at epoch ``EARLIER`` and at its end (a task each)."""
    items = [(cfg, e) for cfg in c.runs(seeds) for e in (c.EARLIER, None)]
    rows = each(_task, items, store, scheduler=scheduler, progress=progress,
                desc="confirmation readings", measured="readings")
    return pd.DataFrame(rows).sort_values(["epoch", "optimizer", "seed"], ignore_index=True)


def tables(read: pd.DataFrame, exploratory: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """What the confirmation commits, from its readings and the exploratory seeds' results table
    (``reports/<regime>/rotated-basis/results``)."""
    final = read[read.epoch == c.EPOCHS]
    verdict, rows = c.confirm(final, exploratory)
    early = paired_differences(read[read.epoch == c.EARLIER])
    late = paired_differences(final)
    both = early.index.intersection(late.index)
    loss = paired_differences(final, "loss")
    analyses = pd.DataFrame([
        {"analysis": "training length", **c.training_length(early[both], late[both])},
        {"analysis": "final loss", **c.against_loss(late[loss.index.intersection(late.index)],
                                                    loss[loss.index.intersection(late.index)])}])
    outcome = pd.DataFrame([{"outcome": verdict, "says": c.SAYS[verdict],
                             "seeds": int(len(late))}])
    return {"readings": read, "confirmation": rows, "outcome": outcome, "analyses": analyses}
