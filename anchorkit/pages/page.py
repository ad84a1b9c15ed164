"""What every study page does first: read its parameters cell into one checked request
(``from_cell``; a bad parameter is one line instead of a traceback), find where its tables live,
train or load its runs and measure them as the request asks (``study_page``, the one entry of
every page: a study of paired runs through ``engine.protocol``, a survey through its own
protocol, ``engine.study.Survey``), say where its tables came from, and glue the figures its
prose quotes.

The parameters a study page takes (its first cell, which papermill replaces) are listed on the
Reproducibility page, *Re-running a study* (``notebooks/reproducibility.ipynb``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping

import pandas as pd

from IPython import get_ipython
from IPython.display import Markdown, display

from anchorkit.engine import registry
from anchorkit.core.config import ParameterError
from anchorkit.core.edit import DOSES
from anchorkit.engine.formatting import cpu_name, glued, seed_text
from anchorkit.core.paths import (check_outside_tracked, check_writable, in_repository, resolved,
                                  same)
from anchorkit.engine.profiles import PAPER, Profile
from anchorkit.pages.rerun import rerun_figures
from anchorkit.engine.provenance import committed, read_provenance, scratch_root
from anchorkit.engine.regimes import DEFAULT, REPORT, Regime
from anchorkit.core.store import REPO, StoreError
from anchorkit.engine.protocol import compute_study, shown_regimes, written_regimes
from anchorkit.engine.request import PARAMETERS, Request, check_injected, refuse_unused, request
from anchorkit.engine.registry import Study, Survey

REPORTS = REPO / "reports"


def reports_root(reports_dir=None) -> Path:
    """The folder of committed tables a page reads: the repository's ``reports/`` when None, so
    that a page executed from any working directory reads there; a given path as the user gave it."""
    return REPORTS if reports_dir is None else resolved(reports_dir)


def tables_home(reports_dir, store_dir, paper: bool, written: Callable[[Path], bool],
                reuse: bool = True, publish: bool = False, force: bool = False) -> Path:
    """Where a page reads and writes its tables. The committed ``reports/`` is written only on
    purpose: with ``publish`` (refused when the runs are not the study's ``paper`` set, unless
    ``force``). Without it, a page whose runs are the paper set reads the committed tables when
    they hold them (``written(root)``, which checks them: a bad folder is an error, never a
    recompute); anything else goes to a folder the user named outside ``reports/``, or to the
    scratch folder in the run store (``provenance.scratch_root``). Checked writable here."""
    given = None if reports_dir is None else resolved(reports_dir)
    named = given is not None and same(given, REPORTS)  # the committed folder, however spelled
    if given is not None and not named:
        if committed(given):
            raise ParameterError("reports_dir", str(given), f"inside the committed {REPORTS}: "
                                 "leave it out, or name a folder outside the repository's reports/")
        check_outside_tracked("reports_dir", given)
    if publish:
        if given is not None and not named:
            raise ParameterError("publish", True, f"publish writes the committed {REPORTS}; "
                                 f"leave reports_dir out (it is {given})")
        if not paper and not force:
            raise ParameterError("publish", True, "these runs are not the study's paper set "
                                 "(its default seeds, profile and epochs), which is what the "
                                 "committed tables hold; add force=True to write them anyway")
        return check_writable("reports_dir", REPORTS)
    if given is not None and not named:
        return check_writable("reports_dir", given)
    if paper and reuse and written(REPORTS):
        return REPORTS
    if named:
        raise ParameterError("reports_dir", str(reports_dir), f"names the committed {REPORTS}, "
                             "which holds the paper set's tables and is written only with publish; "
                             "leave reports_dir out (these tables then go to the scratch folder) "
                             "or name a folder outside the repository")
    return check_writable("reports_dir", scratch_root(store_dir))


def folders_text(study: str, shown=REPORT) -> str:
    """The committed tables' folders of a study in each regime, in words, for a page's prose:
    `` `reports/rotated-basis/` (weak-basis regime) and `reports/<regime>/rotated-basis/`
    (second regime)``."""
    return " and ".join(f"`{r.reports('reports') / study}/` ({r.title})" for r in shown)


def files_text(study: str, tables, shown=REPORT) -> str:
    """Download links to a study's committed CSV tables in each regime (from a page in
    ``book/studies/``), each regime's links followed by its name; a regime whose tables are not
    committed gets the command that computes them instead of links to missing files (which would
    fail the book's build)."""
    parts = []
    for r in shown:
        if all((r.reports(REPORTS) / study / f"{t}.csv").exists() for t in tables):
            links = [f"{{download}}`{t}.csv <{r.reports('../../reports') / study / t}.csv>`"
                     for t in tables]
            parts.append(" and ".join(links) + f" ({r.title})")
        else:
            parts.append(f"{r.title}: not computed yet ({compute_command(r, study)})")
    return ("; " if len(tables) > 1 else " and ").join(parts)


def compute_command(regime: Regime, study: str) -> str:
    """The command that computes a study's tables in a regime, as inline code."""
    flag = "" if regime == DEFAULT else f" --regime {regime.name}"
    return f"`python -m anchorkit compute{flag} {study}`"


def shown(where: Path) -> str:
    """A tables folder as a reader should see it: relative to the repository when inside it."""
    rel = in_repository(where)
    return f"{resolved(where)}/" if rel is None else f"{rel}/"


def one_line_parameter_errors() -> None:
    """In a notebook, a ``ParameterError`` prints as the one line that names the parameter, and a
    ``StoreError`` as the one line that names the file (other errors keep their tracebacks)."""
    shell = get_ipython()
    if shell is None:
        return

    def handler(self, etype, value, tb, tb_offset=None):
        line = f"{etype.__name__}: {value}"
        self._showtraceback(etype, value, [line])  # the cell's error output: this line only
        return [line]

    shell.set_custom_exc((ParameterError, StoreError), handler)
    check_injected(shell.user_ns)  # a misspelt papermill parameter, named


def provenance_block(prov: Mapping, where=None) -> str:
    """A short Markdown block saying what produced a study's tables (in ``where``, when given:
    the folder they were read from)."""
    folder = f"`{shown(where)}`" if where is not None else f"`reports/{prov.get('study')}/`"
    if where is not None and not committed(where):
        folder += " (not the committed tables, which are written only with `publish`)"
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
    doses = (f", the e₁ edit at doses {', '.join(f'{d:g}' for d in prov['doses'])} (the method's: "
             f"{', '.join(f'{d:g}' for d in DOSES)})" if prov.get("doses") else "")
    return (f"**Provenance.** Tables {folder}, computed {prov.get('date')}{machine} "
            f"from commit `{commit}`{dirty}: profile *{prov.get('profile')}*, seeds {seeds}, "
            f"{prov.get('epochs')} epochs, {len(prov.get('runs', {}))} runs{doses}; "
            f"torch {versions.get('torch')}, Python {prov.get('python')}, "
            f"{threads}; {minutes:.1f} min to train (or load) and measure.")


def glue(key: str, value, text: bool = False) -> None:
    """Glue one figure into the page's prose, marked as computed (``formatting.glued``); with
    ``text``, as plain text for another page's ``{glue:text}``."""
    from myst_nb import glue as _glue  # myst-nb loads Sphinx: only once a page glues

    _glue(key, value if text else glued(value), display=False)


def regime_list(texts: Mapping[Regime, str]) -> str:
    """Markdown: a line per regime, ``- *Its title:* text``, each text marked as computed (glue
    it with ``glue(key, Markdown(...), text=True)`` and place it with a ``{glue:md}`` block): a
    regime added to the report is one more line, with no page markdown to write."""
    return "\n".join(f'- *{r.title[0].upper() + r.title[1:]}:* <span class="glued">{t}</span>'
                      for r, t in texts.items())


def glue_all(figures: Mapping[str, object]) -> None:
    """Glue every figure of a mapping (glue key → text)."""
    for key, value in figures.items():
        glue(key, value)


@dataclass
class SurveyPage:
    """A survey's page once its tables are read or computed: its ``tables`` and the folder they
    are in (``reports_dir``: the committed ``reports/`` or where the request wrote them)."""

    study: Survey
    tables: dict[str, pd.DataFrame]
    reports_dir: Path


@dataclass
class StudyPage:
    """A study's page once its runs are loaded and measured: ``shown`` maps each regime shown
    (a ``regimes.Regime``) to its tables and ``provenance`` to its ``provenance.json``;
    ``tables`` and ``prov`` are the first regime's (the weak-basis one)."""

    study: Study
    seeds: list[int]
    reports_dir: Path  # where this page's tables are (``tables_home``)
    store: object
    others: Path = REPORTS  # where the other studies' tables it quotes are read from
    shown: dict[Regime, dict[str, pd.DataFrame]] = field(default_factory=dict)
    provenance: dict[Regime, dict] = field(default_factory=dict)
    profile: Profile = PAPER

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        return next(iter(self.shown.values()))

    @property
    def prov(self) -> dict:
        return next(iter(self.provenance.values()))

    @property
    def report_regimes(self) -> list[Regime]:
        """The regimes the page speaks of (``report_regimes``)."""
        return report_regimes(self.shown)


def report_regimes(shown) -> list[Regime]:
    """The regimes a page of the report's studies speaks of, the weak-basis regime first: the
    report's (``regimes.REPORT``, a line saying "not computed yet" where a regime's tables are not
    written) and any other it shows."""
    return list(dict.fromkeys([*REPORT, *shown]))


def from_cell(namespace: Mapping) -> Request:
    """A page's request from its parameters cell: ``request.request`` of every parameter the cell
    sets (``request.PARAMETERS``), read by name from the notebook's namespace (``globals()``,
    after papermill's injected cell); one the cell does not set keeps its default. A bad one is
    the page's one line of error (``one_line_parameter_errors``)."""
    one_line_parameter_errors()
    return request(**{name: namespace[name] for name in PARAMETERS if name in namespace})


def study_page(study, req: Request, provenance_glued: bool = False) -> StudyPage | SurveyPage:
    """Every page's first step, on the page's checked parameters (``req``, ``from_cell``); a
    survey's through its protocol (``survey_page``). A study of paired runs': train
    or load the runs, measure them, write or read the tables (``tables_home``: the committed ones
    only with ``publish``), show their provenance and glue ``<study>-seeds`` and ``<study>-epochs``.
    A study shown side by side (``Study.side_by_side``) shows every regime of the report whose
    tables are written (``protocol.shown_regimes``), each with its provenance; another the default
    regime only, and naming ``regimes`` for it is an error. With ``provenance_glued`` the provenance
    is glued as ``provenance-<study>`` for the page to place (below its first screen) instead of
    shown first. Doses other than the method's are a tweak of the analysis that re-reads the runs'
    weights and trains nothing; their tables are never the committed ones."""
    one_line_parameter_errors()
    s = registry.study(study, surveys=True)
    if isinstance(s, Survey):
        return survey_page(s, req, provenance_glued)
    refuse_unused(req, s.name, ("lengths",))
    if req.regimes is not None and not s.side_by_side:
        raise ParameterError("regimes", [r.name for r in req.regimes],
                             f"the {s.name} page shows one regime only")
    shown = lambda root: shown_regimes(s, req.seeds, req.profile, req.epochs, root,  # noqa: E731
                                       req.regimes)
    home = tables_home(req.reports_dir, req.store.root,
                       s.paper_set(req.seeds, req.profile, req.epochs) and req.doses == DOSES,
                       lambda root: written_regimes(s, req.seeds, req.profile, req.epochs, root,
                                                    shown(root)),
                       req.reuse, req.publish, req.force)
    page = StudyPage(s, req.seeds, home, req.store,
                     home if req.reports_dir is not None and not committed(req.reports_dir)
                     else REPORTS, profile=req.profile)
    notes: list[str] = []
    for regime in shown(home) if s.side_by_side else [DEFAULT]:
        page.shown[regime] = compute_study(s, regime, req.at(home))
        label = f"*{regime.title.capitalize()}.* " if s.side_by_side else ""
        page.provenance[regime] = _show(regime.reports(home) / s.name, s.name, label,
                                        notes if provenance_glued else None)
    if provenance_glued:
        glue(f"provenance-{s.name}", "\n\n".join(notes))
    glue_all(rerun_figures(s, list(page.shown)))
    glue(f"{s.name}-seeds", seed_counts(s, req.seeds, list(page.shown)))
    glue(f"{s.name}-epochs", page.prov["epochs"])
    return page


def seed_counts(s: Study, seeds, shown) -> str:
    """How many seeds a page's runs are at: "8", or "8 (16 in the second regime, recalibrated)"
    where a regime shown runs at its own paper seeds (``Study.seeds_in``)."""
    n = len(seeds)
    others = [f"{len(s.seeds_in(seeds, r))} in the {r.title}" for r in shown
              if len(s.seeds_in(seeds, r)) != n]
    return f"{n} ({'; '.join(others)})" if others else str(n)


def _show(where: Path, name: str, label: str = "", notes: list | None = None) -> dict:
    """Show a table folder's provenance, or add it to ``notes`` for the page to glue where it
    chooses (and print the folder when it is not the committed one)."""
    prov = read_provenance(where)
    if notes is None:
        display(Markdown(label + provenance_block(prov, where)))
    else:
        notes.append(label + provenance_block(prov, where))
    if not committed(where):
        print(f"{name}: tables in {where}")
    return prov


def survey_page(s: Survey, req: Request, provenance_glued: bool = False) -> SurveyPage:
    """``study_page`` for a survey (``engine.study.Survey``), through its protocol: the request
    checked by it, its tables read or computed where ``tables_home`` says, the provenance of
    every folder it shows (glued as ``provenance-<study>`` with ``provenance_glued``)."""
    if not s.computes:
        raise ParameterError("study", s.name, "its page reads the committed tables only")
    asked = s.asked()
    asked.check(req)
    home = tables_home(req.reports_dir, req.store.root, asked.paper(req),
                       lambda root: asked.written(root, req), req.reuse, req.publish, req.force)
    tables = asked.compute(req.at(home))
    notes: list[str] = []
    for where, label in asked.folders(home):
        _show(where, s.name, label, notes if provenance_glued else None)
    if provenance_glued:
        glue(f"provenance-{s.name}", "\n\n".join(notes))
    return SurveyPage(s, tables, home)
