"""The readers of the premise's claims (P0–P4): the privileged basis under plain Adam, its
existence apart from its size.
"""

from __future__ import annotations

import pandas as pd
from scipy.stats import binomtest

from anchorkit.formatting import number
from anchorkit.core.task import SYNTAX
from anchorkit.measures.verdicts import INF, NOT_COMPARABLE, NOT_REPRODUCED
from anchorkit.ledger.base import (Part, RESOLUTION, SHARE_TOL, SOURCE, Tables, _chance, _paired,
                                   _results, judged, sized)


# ------------------------------------------------------------------------------ premise
def p1(t):
    r = _results(t, "adam")
    text, verdict = judged([sized(f"“{s}”", r[f"control_syntax_cos_{s}_axes"],
                                  (SOURCE["P1"]["cos"].region()[0], INF)) for s in SYNTAX])
    return f"{text}; {_chance()}", verdict


def p2(t):
    r = _results(t, "adam")
    return judged([sized("top-axis share", r.control_top_share_axes,
                         SOURCE["P2"]["share"].region(), ".3f", "top-axis share ")])


def _costs(t: Tables, optimizer: str, role: str = "control") -> pd.DataFrame:
    b = t.need("rotated-basis", "basis")
    return b[(b.optimizer == optimizer) & (b.role == role) & b.cost.notna()]


def _per_run_cost(b: pd.DataFrame, mask) -> pd.Series:
    """Each run's median cost over the directions in ``mask``."""
    return b[mask].groupby("run").cost.median()


def p3(t):
    b = _costs(t, "adam")
    axes = _per_run_cost(b, (b.basis == "axes") & (b.direction != 0))
    rand = _per_run_cost(b, b.basis == "random")
    src = SOURCE["P3"]
    return judged([
        sized("random dearer than an axis", (rand - axes).dropna(), (RESOLUTION, INF), ".4f",
              "random minus axis, per control "),
        sized(f"axis about {src['axis']}", axes, src["axis"].region(), ".4f"),
        sized(f"random {src['random']}", rand, src["random"].region(), ".4f")])


def existence(rot: pd.DataFrame, sto: pd.DataFrame) -> Part:
    """Whether plain Adam builds a privileged basis at all, apart from its size: per seed, the
    plain control's top-axis share minus its rotated twin's along the same coordinate axes (to
    rotated Adam those axes are arbitrary directions: the mirror image makes the twin the null),
    its median interval against at least ``SHARE_TOL``; the exact sign test beside."""
    d = _paired(sto, rot, "control_top_share_axes", "control_top_share_axes")
    part = sized("plain above its rotated twin", d, (SHARE_TOL, INF), ".3f",
                 "plain minus rotated top-axis share, per seed ")
    if not len(d):
        return part
    k = int((d > 0).sum())
    p = float(binomtest(k, len(d)).pvalue)
    return Part(part.name, f"{part.text}; plain higher on {k} of {len(d)} seeds (exact sign "
                f"test p = {number(p, '.3f')})", part.verdict)


def _no_structure(plain: Part) -> bool:
    """Plain Adam builds no privileged basis to mirror or lose: the existence part (P0,
    ``existence``) is not reproduced (or cannot be compared)."""
    return plain.verdict in (NOT_REPRODUCED, NOT_COMPARABLE)


def p0(t):
    rot, sto = _results(t, "rotated"), _results(t, "adam")
    return judged([existence(rot, sto)])


def p4(t):
    rot, sto = _results(t, "rotated"), _results(t, "adam")
    plain = existence(rot, sto)
    if _no_structure(plain):
        return (f"{plain.text}: plain Adam builds no privileged basis to mirror (P0 "
                f"{plain.verdict})"), NOT_COMPARABLE
    return judged([
        sized("on the rotated axes", rot.control_top_share_rotated - rot.control_top_share_axes,
              (SHARE_TOL, INF), ".3f", "rotated minus axis share, per rotated control "),
        sized("as strong as plain Adam's", _paired(rot, sto, "control_top_share_rotated",
                                                  "control_top_share_axes"),
              SOURCE["P4"]["same"].region(), ".3f",
              "rotated share minus the plain twin's axis share ")])
