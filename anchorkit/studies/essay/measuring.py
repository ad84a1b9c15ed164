"""The essay's measurements (its page, notebooks/geometry-of-anchors.ipynb): every stored run of
the paper's studies (``ESSAY_STUDIES``) in the weak-basis regime at the request's seeds, a task
per run (``essay_task``) on the executor (``executor.each``); the essay trains nothing. Its
predictions, judged on these tables, are the package's (``anchorkit.studies.essay``).

A second **regime column** (issue 71) measures the recalibrated regime, where plain Adam builds a
privileged basis and no learned positions order the tokens (``column_runs``): the confirmation's
fresh seeds (falloff under plain and rotated Adam, seeds 720–743) at their initial weights,
their published epoch-``EARLY_EPOCH`` weights and their end, so that the predictions that read
early weights are testable; and, for the two predictions on what anchoring changes, which need
controls the confirmation does not train, the recalibrated paper seeds (704–719: control and
falloff under both arms, initial and final weights). Only published epochs are read, so that a
fresh clone computes the same tables as the store that trained them.
"""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd

from anchorkit.core.config import RunConfig
from anchorkit.core.store import RunStore
from anchorkit.core.train import load_run
from anchorkit.engine.executor import THREADS, each, threads
from anchorkit.measures import geometry
from anchorkit.engine.profiles import PAPER, Profile
from anchorkit.engine.provenance import read_tables, source_state, write_study, written_for
from anchorkit.engine.regimes import RECALIBRATED, WEAK
from anchorkit.engine.request import Request
from anchorkit.engine.registry import STUDIES  # the studies whose runs it measures
from anchorkit.engine.study import PAPER_SEEDS

ESSAY = "geometry-of-anchors"
ESSAY_REGIME = WEAK  # the regime whose runs the essay page measures (its first screen names it)
ESSAY_STUDIES = tuple(STUDIES[s] for s in ("control", "split-anti-seeds", "rotated-basis",
                                           "reference-baseline"))


def essay_runs(seeds, profile: Profile = PAPER, epochs: int | None = None, store=None
               ) -> list[RunConfig]:
    """Every finished run of the paper's studies at these seeds (the essay measures what is
    stored; it trains nothing)."""
    store = store if store is not None else RunStore()
    out: dict[str, RunConfig] = {}
    for s in ESSAY_STUDIES:
        for c in s.runs(seeds, profile, ESSAY_REGIME, epochs):
            if store.has_final(c):
                out.setdefault(c.hash, c)
    return list(out.values())


def essay_task(cfg: RunConfig, store, device: str) -> dict[str, pd.DataFrame]:
    """One stored run's rows of the essay's tables: ``heads`` at its initial and final weights and
    at the snapshots the store keeps between them, and ``layers`` of every kind of map."""
    with threads(THREADS):
        run = load_run(cfg, store)  # stored and finished: the essay trains nothing
        snapshots = {cfg.hash: {e: store.load_snapshot(cfg, e) for e in store.snapshot_epochs(cfg)
                                if 0 < e < cfg.epochs}}  # epoch 0 is the initial weights
        return {"heads": geometry.head_table([run], device=device, snapshots=snapshots),
                **{k: geometry.layer_table([run], kind=k, device=device)
                   for k in geometry.MAP_KINDS}}


def run_geometry(req: Request) -> dict[str, pd.DataFrame]:
    """The essay's measurements (the essay's page, notebooks/geometry-of-anchors.ipynb) on every
    stored run at the request's seeds, a task per run (``essay_task``) through the executor
    (``executor.each``): ``heads`` (per head and stage) and ``layers`` (per layer and measure,
    W_OV and W_QK, each kind's rows run by run), written to
    ``req.reports_dir/geometry-of-anchors/`` with ``provenance.json``."""
    t0 = time.perf_counter()
    source = source_state()
    runs = essay_runs(req.seeds, req.profile, req.epochs, req.store)
    if not runs:
        raise ValueError(f"no finished runs at seeds {req.seeds} ({req.profile.name}) in "
                         f"{req.store.root}")
    where = Path(req.reports_dir) / ESSAY if req.reports_dir is not None else None
    if req.reuse and where is not None and written_for(where, ESSAY, req.seeds, req.profile.name,
                                                       runs):
        return read_tables(where)
    measured = each(essay_task, runs, req.store, req.device, scheduler=req.scheduler,
                    progress=req.progress, desc=ESSAY)
    out = {"heads": pd.concat([m["heads"] for m in measured], ignore_index=True),
           "layers": pd.concat([m[k] for k in geometry.MAP_KINDS for m in measured],
                               ignore_index=True)}
    if where is not None:
        write_study(where, out, ESSAY, req.seeds, req.profile.name, runs,
                    time.perf_counter() - t0, source, publish=req.publish)
    return out


def paper_written(reports: Path) -> bool:
    """Whether a reports folder holds the essay's tables of every stored run at the paper seeds."""
    return written_for(Path(reports) / ESSAY, ESSAY, PAPER_SEEDS, PAPER.name,
                       essay_runs(PAPER_SEEDS))


# ------------------------------------------------------------------ the recalibrated column
COLUMN_REGIME = RECALIBRATED


def column_runs(early: list[RunConfig]) -> dict[str, list[RunConfig]]:
    """The recalibrated column's runs by what they test: ``early`` (the confirmation's set, given
    by its command, ``python -m anchorkit confirm``: a study's folder does not read another's; read at its
    initial, early (``EARLY_EPOCH``) and final weights) and ``recipe`` (the recalibrated paper
    seeds' controls and falloff runs under both arms, from the registry; initial and final)."""
    return {"early": list(early),
            "recipe": STUDIES["rotated-basis"].runs(list(COLUMN_REGIME.seeds), PAPER,
                                                    COLUMN_REGIME, None)}


def column_task(item, store, device: str) -> dict[str, pd.DataFrame]:
    """One run's rows of the column's tables: ``heads`` at its initial and final weights and at
    the published epochs given (``item``: the run and those epochs), ``layers`` of every map."""
    cfg, epochs = item
    with threads(THREADS):
        run = load_run(cfg, store)
        snapshots = {cfg.hash: {e: store.load_snapshot(cfg, e) for e in epochs}}
        return {"heads": geometry.head_table([run], device=device, snapshots=snapshots),
                **{k: geometry.layer_table([run], kind=k, device=device)
                   for k in geometry.MAP_KINDS}}


def column_geometry(early: list[RunConfig], epochs: tuple[int, ...], store, scheduler=None,
                    progress: bool = True, device: str = "cpu", publish: bool = False,
                    reports=None) -> dict[str, pd.DataFrame]:
    """The recalibrated column's tables on ``column_runs(early)`` (``heads``, ``layers``, each row
    with its ``set``: ``early`` or ``recipe``), the ``early`` runs read at ``epochs`` too (the
    essay's ``EARLY_EPOCH``), a task per run; written to ``<regime's reports>/
    geometry-of-anchors/`` (under ``reports``, default the scratch folder unless ``publish``)."""
    from anchorkit.core.paths import REPORTS
    from anchorkit.engine.provenance import scratch_root

    t0, source = time.perf_counter(), source_state()
    sets = column_runs(early)
    items = [(c, tuple(epochs) if name == "early" else ()) for name, cfgs in sets.items()
             for c in cfgs]
    measured = each(column_task, items, store, device, scheduler=scheduler, progress=progress,
                    desc=f"{ESSAY}, {COLUMN_REGIME.title}")
    of = {c.hash: name for name, cfgs in sets.items() for c in cfgs}
    out = {"heads": pd.concat([m["heads"] for m in measured], ignore_index=True),
           "layers": pd.concat([m[k] for k in geometry.MAP_KINDS for m in measured],
                               ignore_index=True)}
    out = {k: t.assign(set=t.hash.map(of)) for k, t in out.items()}
    root = reports if reports is not None else (REPORTS if publish else scratch_root())
    where = COLUMN_REGIME.reports(root) / ESSAY
    runs = [c for cfgs in sets.values() for c in cfgs]
    write_study(where, out, ESSAY, sorted({c.seed for c in runs}), PAPER.name, runs,
                time.perf_counter() - t0, source, COLUMN_REGIME.name, publish=publish)
    return out


def heads_shown(heads: pd.DataFrame, store=None, device: str = "cpu"
                ) -> list[tuple[list[str], pd.DataFrame, pd.DataFrame]]:
    """The column's anchor and worker heads, shown: the run and heads ``geometry.shown_heads``
    picks among the ``recipe`` set's trained heads (runs the registry names, so a fresh clone
    opens their published weights), each head's title and ``geometry.head_picture`` on the
    run's probe set at its final weights (the title on two lines, to fit a phone); empty where no
    run has both kinds."""
    from anchorkit.core.task import probe_set, vocab
    from anchorkit.core.train import load_model

    final = heads[(heads["stage"] == "final") & (heads["set"] == "recipe")]
    rows = geometry.shown_heads(final)
    if rows is None:
        return []
    cfg = {c.hash: c for c in column_runs([])["recipe"]}[rows.hash.iloc[0]]
    store = store if store is not None else RunStore()
    model = load_model([cfg], [store.load_final(cfg)], device)
    batch, names = probe_set(cfg.task).clean, vocab(cfg.task)
    return [([f"{r.shown} head: block {r.layer}, head {r['head']}",
              f"of {cfg.name}, value content {r.value_content:.2f}"],
             *geometry.head_picture(model, batch, int(r.layer), int(r["head"]), names))
            for _, r in rows.iterrows()]
