"""The rotated-basis study's claims of the premise (P0–P4): the privileged basis under plain Adam, its existence apart from
its size; each claim's parts are rules (``anchorkit.judging.rules``) over the readers here.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
from scipy.stats import binomtest

from anchorkit.engine.formatting import number
from anchorkit.core.task import SYNTAX
from anchorkit.judging.base import (RESOLUTION, SHARE_TOL, SOURCE, Tables, _chance, _paired,
                                   _results)
from anchorkit.judging.rules import AtLeast, Claim, Given, Inside, Premise, Size

_ = SOURCE  # the figures each claim's text quotes, read from the one table


def _adam(column: str):
    """A column of the plain-Adam controls' results."""
    return lambda t: _results(t, "adam")[column]


def _costs(t: Tables, optimizer: str, role: str = "control") -> pd.DataFrame:
    b = t.need("rotated-basis", "basis")
    return b[(b.optimizer == optimizer) & (b.role == role) & b.cost.notna()]


def _per_run_cost(b: pd.DataFrame, mask) -> pd.Series:
    """Each run's median cost over the directions in ``mask``."""
    return b[mask].groupby("run").cost.median()


def _axis_cost(t: Tables) -> pd.Series:
    b = _costs(t, "adam")
    return _per_run_cost(b, (b.basis == "axes") & (b.direction != 0))


def _random_cost(t: Tables) -> pd.Series:
    b = _costs(t, "adam")
    return _per_run_cost(b, b.basis == "random")


def _plain_above_twin(t: Tables) -> pd.Series:
    """Per seed, the plain control's top-axis share minus its rotated twin's along the same axes."""
    return _paired(_results(t, "adam"), _results(t, "rotated"), "control_top_share_axes",
                   "control_top_share_axes")


def _sign_test(t: Tables) -> str:
    d = _plain_above_twin(t)
    if not len(d):
        return ""
    k = int((d > 0).sum())
    p = float(binomtest(k, len(d)).pvalue)
    return f"; plain higher on {k} of {len(d)} seeds (exact sign test p = {number(p, '.3f')})"


@dataclass(frozen=True)
class Existence(Size):
    """Whether plain Adam builds a privileged basis at all, apart from its size: per seed, the
    plain control's top-axis share minus its rotated twin's along the same coordinate axes (to
    rotated Adam those axes are arbitrary directions: the mirror image makes the twin the null),
    its median interval against at least ``SHARE_TOL``; the exact sign test beside."""

    def text(self) -> str:
        return f"{super().text()}; the exact sign test beside"


EXISTENCE = Existence("plain above its rotated twin", _plain_above_twin, AtLeast(SHARE_TOL),
                      "the plain control's top-axis share minus its rotated twin's along the same "
                      "axes, per seed", ".3f", "plain minus rotated top-axis share, per seed ",
                      beside=_sign_test)


# P0's finding, which P4 and E3a's axis part presume
A_BASIS = Premise(EXISTENCE, "plain Adam builds no privileged basis (P0 not reproduced)", "P0")


def given_a_basis(rule: Size, lost: str) -> Given:
    """``rule``, not comparable where plain Adam builds no privileged basis (P0, ``EXISTENCE``,
    not reproduced or not comparable)."""
    return Given(rule, A_BASIS, lost)


def _rotated_minus_axis(t: Tables) -> pd.Series:
    rot = _results(t, "rotated")
    return rot.control_top_share_rotated - rot.control_top_share_axes


def _rotated_minus_twin(t: Tables) -> pd.Series:
    return _paired(_results(t, "rotated"), _results(t, "adam"), "control_top_share_rotated",
                   "control_top_share_axes")


PREMISE = [
    Claim("P0", "a privileged basis forms", "premise",
          "Plain Adam builds a privileged basis: its controls' energy gathers on "
          "the coordinate axes more than a rotated-Adam twin's, to which those axes are arbitrary.",
          f"plain about {_['P0']['plain']}; rotated runs' coordinate axes "
          f"{_['P0']['axes_median']} ({_['P0']['axes']})", (EXISTENCE,),
          lead="existence apart from size: "),
    Claim("P1", "syntax tokens on axes", "premise",
          "Plain Adam parks each syntax token's embedding on a coordinate axis.",
          f"largest |cos| with an axis {_['P1']['cos']}",
          tuple(Size(f"“{s}”", _adam(f"control_syntax_cos_{s}_axes"), AtLeast(_["P1"]["cos"]),
                     "the plain-Adam controls' largest |cos| of the token's embedding with an "
                     "axis") for s in SYNTAX),
          beside=lambda t: f"; {_chance()}", lead="one part per syntax token: "),
    Claim("P2", "one axis holds half", "premise",
          "One coordinate holds about half the stream's energy at the last slice.",
          f"about {_['P2']['share']}",
          (Size("top-axis share", _adam("control_top_share_axes"), Inside(_["P2"]["share"]),
                "the plain-Adam controls' top-axis share", ".3f", "top-axis share "),)),
    Claim("P3", "an axis is cheap to remove", "premise",
          "A coordinate axis is cheaper to project out than a random direction.",
          f"axis about {_['P3']['axis']}, random {_['P3']['random']} (controls)",
          (Size("random dearer than an axis", lambda t: (_random_cost(t) - _axis_cost(t)).dropna(),
                AtLeast(RESOLUTION), "random minus axis cost, per plain-Adam control", ".4f",
                "random minus axis, per control "),
           Size(f"axis about {_['P3']['axis']}", _axis_cost, Inside(_["P3"]["axis"]),
                "the plain-Adam controls' axis cost", ".4f"),
           Size(f"random {_['P3']['random']}", _random_cost, Inside(_["P3"]["random"]),
                "the plain-Adam controls' random-direction cost", ".4f"))),
    Claim("P4", "rotated Adam mirrors it", "premise",
          "Adam in a rotated basis builds the same structure on the rotated axes.",
          "same structure, rotated",
          (Size("on the rotated axes", _rotated_minus_axis, AtLeast(SHARE_TOL),
                "the rotated controls' top rotated minus top axis share", ".3f",
                "rotated minus axis share, per rotated control "),
           Size("as strong as plain Adam's", _rotated_minus_twin, Inside(_["P4"]["same"]),
                "the rotated controls' top rotated share minus the plain twin's top axis share",
                ".3f", "rotated share minus the plain twin's axis share ")),
          premise=A_BASIS, lost=": plain Adam builds no privileged basis to mirror"),
]
