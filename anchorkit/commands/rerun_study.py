"""Re-run one study with other seeds: its notebook executed, its tables, and a page to open.

Every parameter is checked before any work (a bad one is one line naming it). The command then
prints what it will train and measure (each run by name, whether it is in the run store or in
``published/`` already, the ensembles trained together, the runs whose directions are swept) with
an estimate of the time from the figures of ``BENCHMARKS.md``, executes the study's notebook with
papermill while it shows the work's progress (epochs trained, directions swept, pairs measured,
each with an ETA: ``anchorkit.core.progress``, the same bars the notebook draws when run on its own),
and ends by printing three paths: the tables, the executed notebook, and the notebook rendered to a
standalone HTML page that opens offline.

The tables never go to the repository's committed ``reports/``: they go to the run store's
scratch folder (``anchorkit.engine.provenance.scratch_root``: ``.runs/reports/`` by default), in a folder
of their own named by what was run (``rerun_folder``: study, profile and seeds), under
``<regime>/`` for a regime other than the weak basis, so that re-runs with other seeds keep each
other; the notebook and the page go beside them (or to ``--out``). A store or an ``--out`` in the
repository's tracked tree is refused (git ignores ``.runs/``).

usage: python -m anchorkit rerun <study> --seeds 712 [713 ...] [--profile paper|quick]
       [--regime R] [--scheduler in-process|tcp://host:8786] [--out DIR] [--store DIR]
       (--regime: for the pages that show a second regime beside the weak basis, rotated-basis
       and reference-baseline; --store: the run store, default $ANCHORKIT_STORE, else .runs/)
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from anchorkit.engine.executor import resumable
from anchorkit.core.config import ParameterError, check_choice, check_seeds, derive_seed
from anchorkit.core.paths import check_outside_tracked
from anchorkit.engine.profiles import PROFILES
from anchorkit.engine.regimes import DEFAULT, regime
from anchorkit.core.store import REPO
from anchorkit.engine.protocol import shown_regimes
from anchorkit.engine.request import check_regimes
from anchorkit.engine.registry import study

NOTEBOOKS = REPO / "notebooks"


def rerun_folder(study: str, profile: str, seeds: list[int]) -> str:
    """The scratch folder's name for one re-run: the study, the profile and the seeds (a digest
    of the seeds past six of them), e.g. ``control-paper-seeds-712-713``."""
    if len(seeds) <= 6:
        tag = "-".join(map(str, seeds))
    else:
        tag = f"{seeds[0]}-to-{seeds[-1]}-{len(seeds)}-{derive_seed(*seeds) % 16**8:08x}"
    return f"{study}-{profile}-seeds-{tag}"


def seeds_of(values: list[str]) -> list[int]:
    out = []
    for v in values:
        try:
            out.append(int(v))
        except ValueError:
            raise ParameterError("--seeds", v, "expected integers, e.g. --seeds 712 713") from None
    return check_seeds(out)


class Rerun:
    """A re-run's checked parameters and where its files go."""

    def __init__(self, args):
        from anchorkit.engine.executor import check_scheduler
        from anchorkit.core.paths import check_writable
        from anchorkit.engine.provenance import scratch_root
        from anchorkit.core.store import RunStore

        self.study = study(args.study)
        self.seeds = seeds_of(args.seeds)
        self.profile = PROFILES[check_choice("--profile", args.profile, tuple(PROFILES))]
        self.regime = regime(args.regime)
        self.scheduler = check_scheduler(args.scheduler)
        self.notebook = NOTEBOOKS / f"{self.study.page}.ipynb"
        self.side_by_side = self.study.side_by_side  # its page shows regimes side by side
        if self.regime != DEFAULT and not self.side_by_side:
            raise ParameterError("--regime", args.regime, f"the {self.study.name} page shows the "
                                 f"{DEFAULT.name} regime only")
        self.store = RunStore(check_outside_tracked("--store", args.store) if args.store else None)
        self.reports = check_writable("--store", scratch_root(self.store.root) / rerun_folder(
            self.study.name, self.profile.name, self.seeds))
        self.out = check_writable("--out", check_outside_tracked("--out", args.out) if args.out
                                  else self.regime.reports(self.reports))
        self.parameters = {"seeds": self.seeds, "profile": self.profile.name,
                           "reports_dir": str(self.reports), "store_dir": str(self.store.root),
                           "reuse": False, "progress": False}
        if self.regime != DEFAULT:
            self.parameters["regimes"] = [self.regime.name]

    def shown(self) -> list:
        """The regimes the page will compute, as it decides (``protocol.shown_regimes``)."""
        if not self.side_by_side:
            return [DEFAULT]
        return shown_regimes(self.study, self.seeds, self.profile, None, self.reports,
                             check_regimes(self.parameters.get("regimes")))

    def tables(self, regime) -> Path:
        return regime.reports(self.reports) / self.study.name


def assets() -> None:
    """The book's vendored JavaScript, copied from npm if it is not there yet (before any work)."""
    from anchorkit.pages.standalone import vendored_scripts

    try:
        vendored_scripts()
    except FileNotFoundError:
        import subprocess

        print("the page's JavaScript is not copied yet: installing it from npm once "
              "(npm ci, package-lock.json) into node_modules/ and book/_static/vendor/", flush=True)
        subprocess.run([sys.executable, "-m", "scripts.book_assets"], cwd=REPO, check=True)


def workers(client) -> int:
    """How many workers the tasks share (one in-process)."""
    return 1 if client is None else max(1, len(client.scheduler_info().get("workers", {})))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("study")
    p.add_argument("--seeds", nargs="+", required=True, help="the seeds to run, e.g. 712")
    p.add_argument("--profile", default="paper", help="paper (400 epochs) or quick (4)")
    p.add_argument("--regime", help="with rotated-basis or reference-baseline: show this regime "
                   "beside the weak-basis one")
    p.add_argument("--scheduler", help="in-process, or a Dask scheduler's address (default: "
                   "$ANCHORKIT_SCHEDULER, else a LocalCluster of one worker per core)")
    p.add_argument("--out", help="where the executed notebook and its page go (default: beside "
                   "the tables)")
    p.add_argument("--store", help="the run store (default: $ANCHORKIT_STORE, else .runs/)")
    args = p.parse_args(argv)
    try:
        rerun = Rerun(args)
        assets()
        from anchorkit.engine.executor import SCHEDULER_ENV, check_scheduler, connect, describe
        from anchorkit.engine.plan import study_plan

        scheduler = check_scheduler(rerun.scheduler or os.environ.get(SCHEDULER_ENV) or None)
        shown = rerun.shown()
        if (rerun.tables(shown[0]) / "provenance.json").exists():
            print(f"replaces the earlier re-run of the same study, profile and seeds in "
                  f"{rerun.tables(shown[0])}/", flush=True)
        with connect(scheduler) as client:
            plan = study_plan(rerun.study, rerun.seeds, rerun.profile, shown, rerun.store)
            print("\n".join(plan.lines(workers(client))), flush=True)
            print(describe(client), flush=True)  # where the work runs; the dashboard, once
            rerun.parameters["scheduler"] = "in-process" if client is None else (
                scheduler or client.scheduler.address)
            notebook = execute(rerun, plan)
    except ParameterError as e:
        p.error(str(e))  # one line and exit status 2, before any work
    from anchorkit.pages.standalone import write

    try:
        page = write(notebook, rerun.out / f"{rerun.study.name}.html")
    except OSError as e:  # a full disk: the page's temporary file is removed, the old page kept
        p.exit(1, f"{p.prog}: error: the page could not be written ({e}); the tables and the "
               f"notebook are written ({notebook})\n")
    print()
    for r in shown:
        print(f"tables:   {rerun.tables(r)}/")
    print(f"notebook: {notebook}")
    print(f"page:     {page}")
    return 0


def execute(rerun: Rerun, plan) -> Path:
    """Execute the study's notebook with papermill, its progress drawn here from the tasks'
    tracks; the executed notebook's path. Papermill writes the notebook as it goes, so it writes
    to ``<study>.running.ipynb``, renamed onto ``<study>.ipynb`` only once every cell ran: a
    notebook that stops (an error, a killed kernel, Ctrl-C) is kept as ``<study>.failed.ipynb``
    and the previous notebook and page stay as they were; its stop is one line."""
    import papermill
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    from anchorkit.core.progress import Watch

    out = rerun.out / f"{rerun.study.name}.ipynb"
    running, failed = (out.with_name(f"{rerun.study.name}.{s}.ipynb") for s in ("running", "failed"))
    try:
        with Watch(plan.tracks()):
            papermill.execute_notebook(str(rerun.notebook), str(running),
                                       parameters=rerun.parameters, cwd=str(NOTEBOOKS),
                                       progress_bar=False)
    except BaseException as e:
        if running.exists():
            os.replace(running, failed)
        kept = f"executed as far as it got: {failed}; {out.name} and its page are unchanged"
        if isinstance(e, papermill.PapermillExecutionError):
            sys.exit(f"{rerun.study.name}: the notebook stopped with {e.ename}: {e.evalue} "
                     f"({kept})")
        if isinstance(e, (DeadKernelError, CellTimeoutError)):
            sys.exit(f"{rerun.study.name}: the notebook's kernel died or stopped answering "
                     f"({type(e).__name__}; out of memory?); every finished run is in the store "
                     f"and the same command resumes ({kept})")
        raise
    os.replace(running, out)
    failed.unlink(missing_ok=True)
    return out


if __name__ == "__main__":
    sys.exit(resumable(main))
