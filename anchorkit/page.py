"""What every study page does first: show a bad parameter as one line instead of a traceback,
find where its tables live, train or load its runs and measure them (``study_page``), say where
its tables came from, and glue the figures its prose quotes.

The parameters a study page takes (its first cell, which papermill replaces) are listed on the
Reproducibility page, *Re-running a study* (``notebooks/reproducibility.ipynb``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

import pandas as pd

from anchorkit.config import ParameterError
from anchorkit.formatting import cpu_name, seed_text
from anchorkit.store import REPO

REPORTS = REPO / "reports"


def reports_root(reports_dir=None) -> Path:
    """The folder of committed tables: the repository's ``reports/`` when None, so that a page
    executed from any working directory writes there; a given path as the user gave it."""
    return REPORTS if reports_dir is None else Path(reports_dir).absolute()


def shown(where: Path) -> str:
    """A tables folder as a reader should see it: relative to the repository when inside it."""
    where = Path(where).absolute()
    try:
        return f"{where.relative_to(REPO)}/"
    except ValueError:
        return f"{where}/"


def one_line_parameter_errors() -> None:
    """In a notebook, a ``ParameterError`` prints as the one line that names the parameter (other
    errors keep their tracebacks)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None:
        return

    def handler(self, etype, value, tb, tb_offset=None):
        line = f"ParameterError: {value}"
        self._showtraceback(etype, value, [line])  # the cell's error output: this line only
        return [line]

    shell.set_custom_exc((ParameterError,), handler)


def provenance_block(prov: Mapping, where=None) -> str:
    """A short Markdown block saying what produced a study's tables (in ``where``, when given:
    the folder they were read from)."""
    folder = shown(where) if where is not None else f"reports/{prov.get('study')}/"
    commit = (prov.get("commit") or "unknown")[:10]
    dirty = " (with uncommitted changes)" if prov.get("dirty") else ""
    seeds = seed_text(prov.get("seeds", []))
    versions = prov.get("versions", {})
    minutes = prov.get("wall_seconds", float("nan")) / 60
    k = prov.get("kernels")  # the machine and the threads every task computed with, where recorded
    threads = (f"{k['threads']} thread{'s' * (k['threads'] != 1)} per task" if k
               else f"{prov.get('threads')} thread(s)")
    machine = (f" on {cpu_name(prov['machine'])}, kernels {k['capability']}"
               f"{' (pinned)' if k.get('pinned') else ''}" if k and prov.get("machine") else "")
    return (f"**Provenance.** Tables `{folder}`, computed {prov.get('date')}{machine} "
            f"from commit `{commit}`{dirty}: profile *{prov.get('profile')}*, seeds {seeds}, "
            f"{prov.get('epochs')} epochs, {len(prov.get('runs', {}))} runs; "
            f"torch {versions.get('torch')}, Python {prov.get('python')}, "
            f"{threads}; {minutes:.1f} min to train (or load) and measure.")


def glue(key: str, value, text: bool = False) -> None:
    """Glue one figure into the page's prose, marked as computed (``formatting.glued``); with
    ``text``, as plain text for another page's ``{glue:text}``."""
    from myst_nb import glue as _glue

    from anchorkit.formatting import glued

    _glue(key, value if text else glued(value), display=False)


def glue_all(figures: Mapping[str, object]) -> None:
    """Glue every figure of a mapping (glue key → text)."""
    for key, value in figures.items():
        glue(key, value)


@dataclass
class StudyPage:
    """A study's page once its runs are loaded and measured: ``shown`` maps each regime shown to
    its tables and ``provenance`` to its ``provenance.json``; ``tables`` and ``prov`` are the
    first regime's (the weak-basis one)."""

    study: str
    seeds: list[int]
    reports_dir: Path
    store: object
    shown: dict[str, dict[str, pd.DataFrame]] = field(default_factory=dict)
    provenance: dict[str, dict] = field(default_factory=dict)

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        return next(iter(self.shown.values()))

    @property
    def prov(self) -> dict:
        return next(iter(self.provenance.values()))


def study_page(study: str, seeds, profile: str = "paper", epochs: int | None = None,
               device: str = "cpu", reports_dir=None, store_dir=None, reuse: bool = True,
               progress: bool = True, scheduler: str | None = None, regimes=None,
               side_by_side: bool = False) -> StudyPage:
    """A study page's first step (the module docstring lists the parameters): train or load the
    runs, measure them, write or read the tables, show their provenance and glue
    ``<study>-seeds`` and ``<study>-epochs``. With ``side_by_side`` every regime of the report
    whose tables are written (``studies.shown_regimes``), each with its provenance."""
    from IPython.display import Markdown, display

    from anchorkit.config import check_seeds
    from anchorkit.regimes import WEAK, reports_path, title
    from anchorkit.store import RunStore
    from anchorkit.studies import run_study, shown_regimes

    one_line_parameter_errors()
    if regimes is not None and not side_by_side:
        raise ParameterError("regimes", regimes, f"the {study} page shows one regime only")
    reports_dir = reports_root(reports_dir)
    seeds = check_seeds(seeds)
    page = StudyPage(study, seeds, reports_dir, RunStore(store_dir))
    which = (shown_regimes(study, seeds, profile, epochs, reports_dir, regimes) if side_by_side
             else [WEAK])
    for regime in which:
        page.shown[regime] = run_study(study, seeds, profile, epochs=epochs, reports_dir=reports_dir,
                                       store=page.store, device=device, reuse=reuse,
                                       progress=progress, scheduler=scheduler, regime=regime)
        where = reports_path(reports_dir, regime) / study
        page.provenance[regime] = prov = json.loads((where / "provenance.json").read_text())
        label = f"*{title(regime).capitalize()}.* " if side_by_side else ""
        display(Markdown(label + provenance_block(prov, where)))
    glue(f"{study}-seeds", len(seeds))
    glue(f"{study}-epochs", page.prov["epochs"])
    return page
