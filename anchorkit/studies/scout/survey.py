"""What the scout's page asks of the scout (``engine.study.Survey``'s protocol): it trains its
controls in the regimes of its catalogue the request names (``regimes``; None for all) at the
request's seeds and profile, and measures them at the request's ``lengths`` (None: its own,
``LENGTHS``), on the CPU, with no edit at doses: ``epochs``, ``device`` and ``doses`` are
refused."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from anchorkit.core.config import check_choice
from anchorkit.engine import profiles
from anchorkit.engine.request import Request, refuse_unused
from anchorkit.studies.scout import running
from anchorkit.studies.scout.rule import LENGTHS, REGIMES, SEEDS, scout_runs
from anchorkit.studies.scout.running import SCOUT


def _names(req: Request) -> list[str]:
    return list(REGIMES) if req.regimes is None else [r.name for r in req.regimes]


def _lengths(req: Request) -> list[int]:
    return list(LENGTHS) if req.lengths is None else list(req.lengths)


def check(req: Request) -> None:
    refuse_unused(req, "scout", ("epochs", "device", "doses"))
    for r in _names(req):
        check_choice("regimes", r, tuple(REGIMES))


def paper(req: Request) -> bool:
    return (_names(req) == list(REGIMES) and req.seeds == list(SEEDS)
            and _lengths(req) == list(LENGTHS) and req.profile == profiles.SCOUT)


def written(reports, req: Request | None = None) -> bool:
    if req is None:
        return running.paper_written(reports)
    lengths = _lengths(req)
    controls = scout_runs([REGIMES[r] for r in _names(req)], req.seeds, ("control",),
                                  max(lengths), req.profile)
    return running.written(Path(reports) / SCOUT, req.seeds, req.profile.name, controls, lengths)


def compute(req: Request) -> dict[str, pd.DataFrame]:
    return running.compute_scout([REGIMES[r] for r in _names(req)], _lengths(req), req)


def folders(home) -> list[tuple[Path, str]]:
    return [(Path(home) / SCOUT, "")]
