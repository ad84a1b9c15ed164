"""Running the diagnosis study (``anchorkit.studies.diagnosis`` holds its predictions and rules): each
part's tables are written into ``reports_dir/<regime>/diagnosis/`` for every report regime,
beside the parts already there (the folder lands whole, with one provenance listing the parts and
the runs each read). Parts: ``rank`` (``rank``: the probe and the rank curves), ``overlap``
(``overlap``), ``mirror`` (``symmetry``), and ``notable``: the directions of note of every run of
the rotated-basis study (``directions.notable_table``), which the report page reads rather than
computing them from weights. The parts that measure run by run (rank, the second family, the
overlap's curves, the mirror check) are a task per run on the executor (``executor.each``:
in-process or on Dask, ``scheduler`` as a study's), each with the tasks' thread count, so that
their tables do not depend on where they ran.
"""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd

from anchorkit.studies import diagnosis
from anchorkit.measures.directions import notable_table
from anchorkit.engine.executor import THREADS, each, threads
from anchorkit.studies.diagnosis.overlap import overlap_study
from anchorkit.engine.profiles import PAPER
from anchorkit.engine.provenance import has_tables, read_study, read_tables, source_state, write_study
from anchorkit.studies.diagnosis.rank import family_curves, probe_verdicts, rank_curves, rank_verdicts, ranks_table
from anchorkit.engine.regimes import Regime
from anchorkit.core.store import RunStore
from anchorkit.engine.registry import ROTATED_BASIS  # the study whose runs it diagnoses
from anchorkit.engine.study import PAPER_SEEDS, run_config
from anchorkit.studies.diagnosis.symmetry import mirror_table

STUDY = diagnosis.STUDY.name  # its tables' folder in each regime's reports


def write_part(reports_dir, regime: Regime, part: str, tables: dict[str, pd.DataFrame], runs,
               wall_s: float, source: dict, publish: bool = False, extra: dict | None = None
               ) -> Path:
    """Write one part's tables into the regime's diagnosis folder, keeping the other parts'
    tables and records (a part written again replaces its own)."""
    where = Path(regime.reports(reports_dir)) / STUDY
    old_prov, old = read_study(where) if has_tables(where) else ({}, {})
    parts = old_prov.get("parts") if isinstance(old_prov.get("parts"), dict) else {}
    replaced = parts.pop(part, {}).get("tables", [])
    keep = {name: t for name, t in old.items()
            if name not in replaced and any(name in rec["tables"] for rec in parts.values())}
    parts[part] = {"tables": sorted(tables), "runs": sorted(c.name for c in runs),
                   "commit": source.get("commit"), "wall_seconds": round(wall_s, 1),
                   **(extra or {})}
    every = {c.hash: c for c in runs}
    every.update({h: c for h, c in _runs_of(old_prov, regime).items()})
    write_study(where, {**keep, **tables}, STUDY, seeds_of(regime), "paper", list(every.values()),
                sum(rec["wall_seconds"] for rec in parts.values()), source,
                regime.recorded, publish=publish, extra={"parts": parts})
    return where


def seeds_of(regime: Regime) -> list[int]:
    """The paper seeds of the rotated-basis study in a regime (``Study.seeds_in``: the
    recalibrated regime's 16), the seeds its diagnosis reads."""
    return ROTATED_BASIS.seeds_in(PAPER_SEEDS, regime)


def _runs_of(prov: dict, regime) -> dict:
    """The runs an earlier provenance of the folder lists, as configurations (by hash)."""
    known = {c.hash: c for r in ("control", "falloff") for o in ("rotated", "adam")
             for c in [run_config(s, r, o, PAPER, regime) for s in seeds_of(regime)]}
    return {h: known[h] for h in prov.get("runs", {}).values() if h in known}


def run_mirror(reports_dir, steps: int, seeds=None, publish: bool = False,
               progress: bool = True, regimes=None, scheduler: str | None = None
               ) -> dict[str, pd.DataFrame]:
    """Part 3 in every regime of the diagnosis (or those named): the ``mirror`` table, at each
    regime's paper seeds (``seeds_of``) unless ``seeds`` are given."""
    out = {}
    for regime in regimes or diagnosis.REGIMES:
        t0, source = time.perf_counter(), source_state()
        seeds_here = seeds if seeds is not None else seeds_of(regime)
        table = mirror_table(regime, seeds_here, steps, progress, scheduler)
        runs = [run_config(s, r, o, PAPER, regime) for s in seeds_here
                for r in ("control", "falloff") for o in ("rotated", "adam")]
        write_part(reports_dir, regime, "mirror", {"mirror": table}, runs,
                   time.perf_counter() - t0, source, publish,
                   {"float": "float64", "steps": steps})
        out[regime] = table
    return out


def run_overlap(reports_dir, regime: Regime, store=None, publish: bool = False,
                progress: bool = True, scheduler: str | None = None) -> dict[str, pd.DataFrame]:
    """Part 2 in one report regime, on its rotated-basis study's published controls."""
    t0, source = time.perf_counter(), source_state()
    store = store if store is not None else RunStore()
    with threads(THREADS):  # as the tasks: the tables do not depend on the cores
        tables = overlap_study(regime, reports_dir, store, progress, scheduler)
    runs = [c for c in ROTATED_BASIS.runs(PAPER_SEEDS, PAPER, regime) if c.recipe == "control"]
    write_part(reports_dir, regime, "overlap", tables, runs, time.perf_counter() - t0, source,
               publish)
    return tables


def _published_runs(regime: Regime, reports_dir):
    """The rotated-basis study's runs in a regime and its committed tables."""
    tables = read_tables(regime.reports(reports_dir) / ROTATED_BASIS.name)
    return ROTATED_BASIS.runs(PAPER_SEEDS, PAPER, regime), tables


def rank_task(cfg, store) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One run's rank curves and probe rows (``rank.rank_curves``), on its stored weights."""
    with threads(THREADS):
        return rank_curves(cfg, store.load_final(cfg))


def family_task(cfg, store, family: str, random: pd.DataFrame) -> pd.DataFrame:
    """One run's curves by rank for another family (``rank.family_curves``), on its stored
    weights."""
    with threads(THREADS):
        return family_curves(cfg, store.load_final(cfg), family, random)


def run_rank(reports_dir, regime: Regime, store=None, publish: bool = False, progress: bool = True,
             scheduler: str | None = None) -> dict[str, pd.DataFrame]:
    """Part 1 in one report regime, on the published weights of its rotated-basis study (every
    falloff run and control, both arms): the ``probe``, ``rank_curves``, ``ranks``,
    ``rank_verdicts`` and ``probe_verdicts`` tables."""
    t0, source = time.perf_counter(), source_state()
    store = store if store is not None else RunStore()
    runs, _ = _published_runs(regime, reports_dir)
    measured = each(rank_task, runs, store, scheduler=scheduler, progress=progress,
                    desc=f"rank curves ({regime.name})")
    curves = pd.concat([c for c, _ in measured], ignore_index=True)
    probes = pd.concat([p for _, p in measured], ignore_index=True)
    ranks = ranks_table(curves)
    name = regime.name
    tables = {"rank_curves": curves.assign(regime=name), "probe": probes.assign(regime=name),
              "ranks": ranks.assign(regime=name),
              "rank_verdicts": rank_verdicts(ranks).assign(regime=name),
              "probe_verdicts": probe_verdicts(probes).assign(regime=name)}
    write_part(reports_dir, regime, "rank", tables, runs, time.perf_counter() - t0, source,
               publish, {"erasure": "concept-erasure LeaceFitter (method leace), read direction"})
    return tables


def run_family(reports_dir, regime: Regime, family: str = diagnosis.SECOND_FAMILY, store=None,
               publish: bool = False, progress: bool = True, scheduler: str | None = None
               ) -> dict[str, pd.DataFrame]:
    """Part 1 with another family of erasure directions (``diagnosis.FAMILIES``), on the published
    weights of the regime's falloff runs, beside part 1's random subspaces (its committed
    ``rank_curves``): the ``<family>_curves``, ``<family>_ranks`` and ``<family>_verdicts``
    tables, a part of their own."""
    t0, source = time.perf_counter(), source_state()
    store = store if store is not None else RunStore()
    random = read_tables(Path(regime.reports(reports_dir)) / STUDY)["rank_curves"]
    runs = [c for c in _published_runs(regime, reports_dir)[0] if c.recipe != "control"]
    curves = pd.concat(each(family_task, runs, store, family, random, scheduler=scheduler,
                            progress=progress, desc=f"{family} family ({regime.name})"),
                       ignore_index=True)
    ranks = ranks_table(curves)
    name = regime.name
    tables = {f"{family}_curves": curves.assign(regime=name),
              f"{family}_ranks": ranks.assign(regime=name),
              f"{family}_verdicts": rank_verdicts(ranks).assign(regime=name)}
    write_part(reports_dir, regime, family, tables, runs, time.perf_counter() - t0, source,
               publish, {"fitted at": diagnosis.FAMILIES[family]})
    return tables


def rejudge_rank(reports_dir, regime: Regime, publish: bool = False) -> dict[str, pd.DataFrame]:
    """Part 1's derived tables (``ranks``, ``rank_verdicts``, ``probe_verdicts``) again from its
    committed measurements (``rank_curves``, ``probe``), by today's rules: nothing is measured,
    the part keeps its measuring time and the commit that measured it (``measured``)."""
    where = Path(regime.reports(reports_dir)) / STUDY
    prov, old = read_study(where)
    part = prov["parts"]["rank"]
    curves, probes = old["rank_curves"], old["probe"]
    ranks = ranks_table(curves.drop(columns="regime"))
    name = regime.name
    tables = {"rank_curves": curves, "probe": probes, "ranks": ranks.assign(regime=name),
              "rank_verdicts": rank_verdicts(ranks).assign(regime=name),
              "probe_verdicts": probe_verdicts(probes.drop(columns="regime")).assign(regime=name)}
    if all(k in old and _same(old[k], t) for k, t in tables.items()):
        return tables  # today's rules judge as the committed tables say: no file is rewritten
    runs, _ = _published_runs(regime, reports_dir)
    source = source_state()
    kept = {k: v for k, v in part.items() if k not in ("tables", "runs", "commit", "wall_seconds")}
    write_part(reports_dir, regime, "rank", tables, runs, part["wall_seconds"], source, publish,
               {**kept, "measured": part.get("measured", part.get("commit"))})
    return tables


def _same(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    """Whether two tables hold the same values (a committed one read back, and one derived again)."""
    try:
        pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True),
                                      check_dtype=False, check_exact=True)
    except AssertionError:
        return False
    return True


def run_notable(reports_dir, regime: str, store=None, publish: bool = False
                ) -> dict[str, pd.DataFrame]:
    """The directions of note of every run of a regime's rotated-basis study, as a table."""
    t0, source = time.perf_counter(), source_state()
    store = store if store is not None else RunStore()
    runs, tables = _published_runs(regime, reports_dir)
    with threads(THREADS):
        table = notable_table(runs, tables["spectra"], tables["basis"], store)
    write_part(reports_dir, regime, "notable", {"notable": table}, runs,
               time.perf_counter() - t0, source, publish)
    return {"notable": table}
