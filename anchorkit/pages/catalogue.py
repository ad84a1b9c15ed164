"""The book's executed pages, one entry each, in the order they are executed: every study of the
registry (``registry.EVERY``, in the studies' places: a new study folder is a new page here, with
nothing to write), its paired studies and the essay and the scout computing their tables from
runs (a survey says whether its paper tables are written, and the scout what its stand-in page
adds), the diagnosis reading its committed tables; then the report's pages that read committed
tables only (the reproduction ledger, reproducibility). Each page says
whether a reports folder holds its paper-scale tables (``Page.written``), which is what
``anchorkit/commands/execute_studies.py`` asks before executing it, and what its stand-in adds when they are
not there (``Page.pending``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from anchorkit.engine.profiles import PAPER
from anchorkit.engine.protocol import written_regimes
from anchorkit.engine.regimes import DEFAULT
from anchorkit.engine.registry import EVERY, Study, Survey

READ_ONLY = ("reproduction-ledger", "reproducibility")  # the report's pages: committed tables only


@dataclass(frozen=True)
class Page:
    """A page of the book, ``notebooks/<name>.ipynb``: ``written(reports)``, whether that folder
    holds its paper-scale tables (None for a page that computes nothing); ``pending``, what the
    page that stands in for it says besides, while they are not computed."""

    name: str
    written: Callable[[Path], bool] | None = None
    pending: str = ""

    @property
    def computes(self) -> bool:
        return self.written is not None


def study_written(s: Study) -> Callable[[Path], bool]:
    """Whether a reports folder holds a study's tables at its default seeds (its paper set), in
    the default regime (``protocol.written_regimes``)."""
    return lambda reports: written_regimes(s, list(s.seeds), PAPER, None, reports, [DEFAULT])


def page_of(s: Study | Survey) -> Page:
    """A study's page: a study of paired runs computes its default seeds' tables; a survey says
    whether its tables are written and what its stand-in adds."""
    if isinstance(s, Study):
        return Page(s.page, study_written(s))
    return Page(s.page, s.written if s.computes else None, s.pending)


def catalogue(studies: dict[str, Study | Survey] = EVERY) -> dict[str, Page]:
    """Every page, by name, in the order the pages are executed."""
    return {**{s.page: page_of(s) for s in studies.values()},
            **{name: Page(name) for name in READ_ONLY}}


CATALOGUE = catalogue()
