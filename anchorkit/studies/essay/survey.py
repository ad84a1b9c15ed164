"""What the essay's page asks of the essay (``engine.study.Survey``'s protocol): it measures every
stored run of the paper's studies at the request's seeds in one regime at the method's doses
(``measuring.run_geometry``), so ``regimes``, ``doses`` and ``lengths`` are refused; its tables
come with the second column's committed ones (``column_heads``, ...), whose provenance its page
shows beside its own."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from anchorkit.core.paths import REPORTS
from anchorkit.engine.profiles import PAPER
from anchorkit.engine.provenance import has_tables, read_tables, written_for
from anchorkit.engine.request import Request, refuse_unused
from anchorkit.engine.study import PAPER_SEEDS
from anchorkit.studies.essay import measuring
from anchorkit.studies.essay.measuring import COLUMN_REGIME, ESSAY, ESSAY_REGIME


def check(req: Request) -> None:
    refuse_unused(req, "essay", ("regimes", "doses", "lengths"))


def paper(req: Request) -> bool:
    return req.seeds == PAPER_SEEDS and req.profile == PAPER and req.epochs is None


def written(reports, req: Request | None = None) -> bool:
    if req is None:
        return measuring.paper_written(reports)
    return written_for(Path(reports) / ESSAY, ESSAY, req.seeds, req.profile.name,
                       measuring.essay_runs(req.seeds, req.profile, req.epochs, req.store))


def _column() -> Path:
    return COLUMN_REGIME.reports(REPORTS) / ESSAY  # the second column, as committed


def compute(req: Request) -> dict[str, pd.DataFrame]:
    tables = measuring.run_geometry(req)
    column = _column()
    return {**tables, **{f"column_{k}": t for k, t in
                         (read_tables(column).items() if has_tables(column) else ())}}


def folders(home) -> list[tuple[Path, str]]:
    shown = [Path(home) / ESSAY] + ([_column()] if has_tables(_column()) else [])
    return [(where, f"The {r.title} column: " if len(shown) > 1 else "")
            for where, r in zip(shown, (ESSAY_REGIME, COLUMN_REGIME))]
