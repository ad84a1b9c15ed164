"""The book's executed pages, one entry each, in the order they are executed: every study of runs
(the registry, ``studies.STUDIES``: a new study folder is a new page here, with nothing to write),
the essay and the scout, whose tables are measured from runs too (each folder says whether its
paper tables are written, and the scout what its stand-in page adds), and the pages that read
committed tables only (the diagnosis, the reproduction ledger, reproducibility). Each page says
whether a reports folder holds its paper-scale tables (``Page.written``), which is what
``scripts/execute_studies.py`` asks before executing it, and what its stand-in adds when they are
not there (``Page.pending``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from anchorkit import scout
from anchorkit.essay import measuring
from anchorkit.essay.measuring import ESSAY
from anchorkit.profiles import PAPER
from anchorkit.protocol import written_regimes
from anchorkit.regimes import DEFAULT
from anchorkit.studies import STUDIES, Study

READ_ONLY = ("diagnosis", "reproduction-ledger", "reproducibility")  # read committed tables only


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


def catalogue(studies: dict[str, Study] = STUDIES) -> dict[str, Page]:
    """Every page, by name, in the order the pages are executed."""
    return {**{name: Page(name, study_written(s)) for name, s in studies.items()},
            ESSAY: Page(ESSAY, measuring.paper_written),
            scout.SCOUT: Page(scout.SCOUT, scout.paper_written, scout.PENDING),
            **{name: Page(name) for name in READ_ONLY}}


CATALOGUE = catalogue()
