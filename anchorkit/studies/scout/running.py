"""The scout run through the work graph: its controls trained to the longest length, the premise
measured at each, the rule applied, the cheapest regime's falloff runs trained and judged, the
tables written (``anchorkit.studies.scout``)."""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd

from anchorkit.engine import regimes as _regimes
from anchorkit.core.config import RunConfig, check_lengths
from anchorkit.engine.executor import THREADS, Graph, add_training, execute, threads
from anchorkit.engine.pairs import Pair, measure_pair
from anchorkit.engine.profiles import SCOUT as SCOUT_PROFILE
from anchorkit.engine.profiles import Profile
from anchorkit.engine.provenance import has_tables, read_study, read_tables, source_state, write_study
from anchorkit.engine.request import Request, request
from anchorkit.studies.scout.measuring import premise
from anchorkit.studies.scout.rule import (LENGTHS, REGIMES, SEEDS, anchors_met, decide, regime_levels,
                                  scout_runs, seed_levels)


SCOUT = "optimizer-scout"


def _state_at(cfg: RunConfig, store, epochs: int) -> dict:
    if epochs == cfg.epochs:
        return store.load_final(cfg)
    return store.load_snapshot(cfg, epochs)


def premise_task(cfg: RunConfig, store, epochs: int, regime: str, *after) -> tuple[dict, pd.DataFrame]:
    """The premise measures of a run's weights after ``epochs`` epochs (executor task)."""
    with threads(THREADS):
        row, where = premise(cfg, _state_at(cfg, store, epochs), store=store, epochs=epochs)
    return {"regime": regime, "epochs": epochs, **row}, where.assign(regime=regime, epochs=epochs)


def anchor_task(anchored: RunConfig, control: RunConfig, store, epochs: int, regime: str,
                *after) -> dict:
    """Falloff against its control after ``epochs`` epochs: measure_pair's results row (no
    sweep) with the falloff run's alignment at the difference answers of slices 3 and 4."""
    with threads(THREADS):
        t = measure_pair(Pair(anchored, control), _state_at(anchored, store, epochs),
                         _state_at(control, store, epochs), sweep=False)
    al = t["alignment"]
    row = {"regime": regime, "epochs": epochs, **t["results"].iloc[0].to_dict()}
    for s in (3, 4):
        row[f"alignment_{s}"] = float(al[(al.role == "anchored") & (al.context == "difference")
                                         & (al.slice == s)]["alignment"].iloc[0])
    return row


def scout_graph(regimes, seeds, lengths, store, profile: Profile = SCOUT_PROFILE,
                recipe: str = "control"):
    """Train the runs of ``recipe`` in every regime (``Regime`` values) to the longest length,
    keeping the weights at every length; then, for controls, measure the premise at each length,
    for falloff, measure it against its control (already trained) at each length. Returns the
    graph and its runs."""
    lengths = sorted(set(lengths))
    runs = {r: scout_runs([r], seeds, (recipe,), max(lengths), profile) for r in regimes}
    every = [c for rs in runs.values() for c in rs]
    g = Graph()
    trained_by = add_training(g, every, store, snapshots=lengths)
    for regime, rs in runs.items():
        for c in rs:
            after = [trained_by[c.hash]] if c.hash in trained_by else []
            for L in lengths:
                if recipe == "control":
                    g.output(f"premise-{c.hash}-{L}", premise_task, c, store, L, regime.name,
                             *after)
                else:
                    g.output(f"anchor-{c.hash}-{L}", anchor_task, c, c.replace(recipe="control"),
                             store, L, regime.name, *after)
    return g, every


def written(where, seeds, profile: str, controls: list[RunConfig], lengths) -> bool:
    """Whether ``where`` holds the scout's tables for these seeds, profile, controls and lengths
    (its falloff runs follow from the decision rule)."""
    if not has_tables(where):
        return False
    prov, tables = read_study(where)  # checked: a bad folder is an error, not a recompute
    if "premise" not in tables:
        return False
    epochs = sorted(tables["premise"]["epochs"].unique())
    return (prov.get("study") == SCOUT and prov.get("seeds") == list(seeds)
            and prov.get("profile") == profile
            and {c.hash for c in controls} <= set(prov.get("runs", {}).values())
            and [int(e) for e in epochs] == sorted(set(lengths)))


def paper_written(reports) -> bool:
    """Whether a reports folder holds the scout's tables at its calibration seeds and lengths."""
    return written(Path(reports) / SCOUT, list(SEEDS), "scout", scout_runs(), LENGTHS)


def run_scout(regimes=tuple(REGIMES), seeds=SEEDS, lengths=LENGTHS, profile="scout",
              reports_dir=None, store=None, progress: bool = True, reuse: bool = False,
              scheduler: str | None = None, publish: bool = False) -> dict[str, pd.DataFrame]:
    """The scout (``compute_scout``) from names or values, an entry point for scripts: the
    regimes looked up, the lengths checked, the rest checked by ``request.request``."""
    return compute_scout([_regimes.regime(r) for r in regimes], check_lengths(list(lengths)),
                         request(list(seeds), profile, reports_dir=reports_dir, store_dir=store,
                                 reuse=reuse, progress=progress, scheduler=scheduler,
                                 publish=publish))


def compute_scout(regimes: list, lengths: list[int], req: Request) -> dict[str, pd.DataFrame]:
    """Train and measure the scout's controls in ``regimes`` at the request's seeds and profile,
    judge them by DECISION_RULE, and while the rule's candidate has no falloff runs, train and
    measure them (a candidate whose falloff misses the anchor criteria passes the turn to the
    next). Writes to ``req.reports_dir/optimizer-scout/``: ``premise`` (per control and length),
    ``where`` (where each control's top direction holds its energy), ``levels`` (per regime,
    length and seed), ``regimes`` (per regime and length), ``anchors`` (falloff against control,
    for the regimes the rule reached) and ``decision``."""
    t0 = time.perf_counter()
    source = source_state()
    seeds, profile, store = req.seeds, req.profile, req.store
    scheduler, progress = req.scheduler, req.progress
    graph, runs = scout_graph(regimes, seeds, lengths, store, profile)
    where_dir = Path(req.reports_dir) / SCOUT if req.reports_dir is not None else None
    if req.reuse and where_dir is not None and written(where_dir, seeds, profile.name, runs,
                                                       lengths):
        return read_tables(where_dir)
    out = execute(graph, scheduler, progress, desc=SCOUT, measured="measurements")
    tables = {"premise": pd.DataFrame([row for row, _ in out.values()]),
              "where": pd.concat([w for _, w in out.values()], ignore_index=True)}
    tables["levels"] = seed_levels(tables["premise"])
    tables["regimes"] = regime_levels(tables["levels"], len(seeds))
    anchors, met, by_name = [], {}, {r.name: r for r in regimes}
    while (d := decide(tables["regimes"], met))["decision"] == "pending":
        graph, falloff = scout_graph([by_name[d["regime"]]], seeds, lengths, store, profile,
                                     "falloff")
        rows = pd.DataFrame(list(execute(graph, scheduler, progress, desc=f"{SCOUT} falloff",
                                         measured="pairs").values()))
        for L, g in rows.groupby("epochs"):
            met[(d["regime"], int(L))] = anchors_met(g) and len(g) == 2 * len(seeds)
        anchors.append(rows)
        runs += falloff
    tables["anchors"] = pd.concat(anchors, ignore_index=True) if anchors else pd.DataFrame(
        {"regime": pd.Series(dtype=str), "epochs": pd.Series(dtype=int)})
    tables["decision"] = pd.DataFrame([d])
    if where_dir is not None:
        write_study(where_dir, tables, SCOUT, seeds, profile.name, runs, time.perf_counter() - t0,
                    source, publish=req.publish)
    return tables
