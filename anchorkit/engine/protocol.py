"""Running a study as a request asks (``request.Request``): train (or load) its runs, measure
every pair and write its tables, through the one graph path (``Study.graph`` on ``executor``);
and which regimes its page shows. (The essay's measurements, on the stored runs of the paper's
studies, are ``anchorkit.studies.essay.measuring``; the scout's and the diagnosis's are their
folders'.)
"""

from __future__ import annotations

import time

import pandas as pd

from anchorkit.core.edit import DOSES
from anchorkit.engine.executor import execute
from anchorkit.engine.profiles import PAPER, Profile
from anchorkit.engine.provenance import read_tables, source_state, write_study, written_for
from anchorkit.engine.regimes import DEFAULT, REPORT, Regime, regime as resolve_regime
from anchorkit.engine.request import Request, request
from anchorkit.engine.registry import Study, runs_of, study


# ---------------------------------------------------------------------- executing a study
def run_study(name, seeds, profile="paper", epochs: int | None = None, reports_dir=None,
              store=None, device: str = "cpu", progress: bool = True, reuse: bool = False,
              scheduler: str | None = None, regime=DEFAULT, publish: bool = False, doses=None
              ) -> dict[str, pd.DataFrame]:
    """Train (or load) a study's runs, measure every pair, and write its tables (an entry point
    for scripts: the study and regime are looked up and the rest checked by ``request.request``,
    then ``compute_study``)."""
    return compute_study(study(name), resolve_regime(regime), request(
        seeds, profile, epochs, device, reports_dir, store, reuse, progress, scheduler,
        publish=publish, doses=doses))


def compute_study(s: Study, regime: Regime, req: Request) -> dict[str, pd.DataFrame]:
    """Train (or load) a study's runs in ``regime`` as ``req`` asks, measure every pair, and write
    its tables atomically to ``regime.reports(req.reports_dir)/<study>/`` (Parquet, with CSV
    beside) with ``provenance.json`` (nothing is written when ``req.reports_dir`` is None).

    The work is the study's graph (``Study.graph``) run through ``anchorkit.engine.executor`` on
    ``req.scheduler`` (None: ``$ANCHORKIT_SCHEDULER``, else a LocalCluster of one single-thread
    worker per core; "in-process": no Dask); the tables do not depend on where it ran.
    ``req.doses``: those the e₁ edit is measured at (a reader's tweak of the method's
    ``edit.DOSES``, which re-reads the runs' weights and retrains nothing); tables at other doses
    record them in their provenance and are reused only at the same doses.

    With ``req.reuse``, tables already written there for exactly these runs are read back instead
    (nothing is trained or measured, and the provenance is left as it was). The committed
    ``reports/`` is written only with ``req.publish`` (``provenance.write_study``).
    """
    t0 = time.perf_counter()
    source = source_state()
    seeds = s.seeds_in(req.seeds, regime)
    pairs = s.pairs(seeds, req.profile, regime, req.epochs)
    runs = runs_of(pairs)
    where = regime.reports(req.reports_dir) / s.name if req.reports_dir is not None else None
    if req.reuse and where is not None and written_for(where, s.name, seeds, req.profile.name,
                                                       runs, analysis(req.doses)):
        return read_tables(where)
    graph = s.graph(pairs, req.store, device=req.device, doses=req.doses)
    measured_pairs = execute(graph, req.scheduler, req.progress, desc=s.name)
    tables: dict[str, list[pd.DataFrame]] = {}
    for key in graph.outputs:
        for table, df in measured_pairs[key].items():
            tables.setdefault(table, []).append(df)
    out = {table: pd.concat(dfs, ignore_index=True) for table, dfs in tables.items()}
    out["trajectories"] = pd.concat([req.store.load_trajectory(c) for c in runs],
                                    ignore_index=True)
    out.update(s.derive(out))
    if where is not None:
        write_study(where, out, s.name, seeds, req.profile.name, runs, time.perf_counter() - t0,
                    source, regime.recorded, publish=req.publish, extra=analysis(req.doses))
    return out


def analysis(doses) -> dict:
    """What a study's provenance records of its analysis values where they are not the method's
    (nothing at the method's doses, so that the committed provenance files keep their bytes)."""
    return {} if tuple(doses) == DOSES else {"doses": list(doses)}


def written_regimes(s: Study, seeds: list[int], profile: Profile, epochs: int | None,
                    reports_dir, shown: list[Regime]) -> bool:
    """Whether ``reports_dir`` holds these runs' tables in every regime ``shown`` (checked: a
    folder that does not verify is an error)."""
    return all(written_for(r.reports(reports_dir) / s.name, s.name, s.seeds_in(seeds, r),
                           profile.name, s.runs(seeds, profile, r, epochs)) for r in shown)


def shown_regimes(s: Study, seeds: list[int], profile: Profile = PAPER,
                  epochs: int | None = None, reports_dir=None, regimes=None) -> list[Regime]:
    """The regimes a study's page shows, the default regime first: with ``regimes`` None, every
    regime of the report (``regimes.REPORT``) whose tables for these runs are written under
    ``reports_dir`` (the default one always, computing it if need be); else those named (checked
    values, ``request.check_regimes``: a named regime without tables is computed)."""
    if regimes is None:
        return [DEFAULT] + [r for r in REPORT[1:] if reports_dir is not None and written_for(
            r.reports(reports_dir) / s.name, s.name, s.seeds_in(seeds, r), profile.name,
            s.runs(seeds, profile, r, epochs))]
    return [DEFAULT] + [r for r in regimes if r != DEFAULT]
