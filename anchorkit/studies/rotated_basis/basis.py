"""The rotated-basis study's claims of where the privileged basis went (E3); each claim's parts
are rules (``anchorkit.judging.rules``) over the readers here.
"""

from __future__ import annotations

import pandas as pd

from anchorkit.engine.formatting import summary
from anchorkit.core.task import SYNTAX
from anchorkit.measures.verdicts import every, most
from anchorkit.core.optimizers import ROTATED_ADAM
from anchorkit.judging.base import KURTOSIS_TOL, RESOLUTION, SOURCE, Tables, _chance, _results
from anchorkit.studies.rotated_basis.premise import _costs, _per_run_cost, given_a_basis
from anchorkit.judging.rules import AtLeast, Claim, Inside, Moved, Size, Tally

_ = SOURCE  # the figures each claim's text quotes, read from the one table


def _rot(column: str):
    """A column of the rotated controls' results."""
    return lambda t: _results(t, "rotated")[column]


def _difference(optimizer: str, a: str, b: str):
    """One arm's ``a`` minus ``b``, per run."""
    return lambda t: _results(t, optimizer)[a] - _results(t, optimizer)[b]


# ------------------------------------------------------------------------------ E3
def _along(t: Tables) -> pd.Series:
    """Each rotated control's mean |cos| of the four syntax tokens with the rotated basis."""
    return _results(t, "rotated")[[f"control_syntax_cos_{s}_rotated" for s in SYNTAX]].mean(axis=1)


def _on_spike(t: Tables):
    o = t.get("diagnosis", "overlap_targets")
    if o is None:
        return None
    o = o[(o.optimizer == ROTATED_ADAM.name) & o.syntax.notna()]
    on = int((o.syntax == o.spike).sum())
    return (on, len(o), f"the syntax-holding vector is the top-energy direction on {on} of "
            f"{len(o)} rotated controls", ((), ()))


def _spike_costs(t: Tables) -> tuple[pd.Series, pd.Series]:
    """In the rotated controls, the cost of the spike's rotated axis (per control) and each
    control's median cost over the rotated axes off its spike."""
    b = _costs(t, "rotated")
    spikes = _results(t, "rotated").set_index("control_run").control_spike_rotated.dropna()
    rotated = b[b.basis == "rotated"]
    # a control with no spike maps to <NA>: never its spike's axis
    is_spike = (rotated.control_run.map(spikes) == rotated.direction).fillna(False).astype(bool)
    return rotated[is_spike].cost, rotated[~is_spike].groupby("run").cost.median()


def _axes_minus_off(t: Tables) -> pd.Series:
    b = _costs(t, "rotated")
    axes = _per_run_cost(b, (b.basis == "axes") & (b.direction != 0))
    return (axes - _spike_costs(t)[1]).dropna()


def _e1_cost(t: Tables):
    b = _costs(t, "rotated", "anchored")
    e1 = b[(b.basis == "axes") & (b.direction == 0)].cost
    src = _["E3e′"]
    k = int(e1.between(*src["e1"].region()).sum())
    return (k, len(e1), f"e₁'s cost in rotated falloff runs {summary(e1, '.3f')}; inside "
            f"{src['e1']} (±{src['e1'].tol}) on {k} of {len(e1)}", ((), ()))


ROTATED = "the rotated controls'"

E3 = [
    Claim("E3a", "a rotated axis holds half", "E3",
          "Under rotated Adam one rotated direction holds about half the energy; the "
          "coordinate axes stay flat.", f"{_['E3a']['rotated_median']} ({_['E3a']['rotated']}); "
          f"axes {_['E3a']['axes_median']} ({_['E3a']['axes']})",
          (Size(f"a rotated direction holds {_['E3a']['rotated']}",
                _rot("control_top_share_rotated"), Inside(_["E3a"]["rotated"]),
                f"{ROTATED} top rotated share", ".3f", "rotated controls' top rotated share "),
           given_a_basis(Size(f"the axes stay at {_['E3a']['axes']}",
                              _rot("control_top_share_axes"), Inside(_["E3a"]["axes"]),
                              f"{ROTATED} top axis share", ".3f", "top axis share "),
                         ", as flat as plain Adam's own (no privileged basis to lose, P0)"))),
    Claim("E3b", "kurtosis reverses", "E3",
          "Kurtosis reverses: near 3 along the axes, above it along the rotated "
          "basis, the opposite of the stored runs.", f"axes {_['E3b']['axes_median']} "
          f"({_['E3b']['axes']}), rotated {_['E3b']['rotated_median']} ({_['E3b']['rotated']})",
          (Size("reversed in the rotated controls",
                _difference("rotated", "control_kurtosis_rotated", "control_kurtosis_axes"),
                AtLeast(KURTOSIS_TOL), f"{ROTATED} kurtosis along the rotated basis minus along "
                "the axes", ".2f", "rotated basis minus axes "),
           Size("as in the plain controls",
                _difference("adam", "control_kurtosis_axes", "control_kurtosis_rotated"),
                AtLeast(KURTOSIS_TOL), "the plain controls' kurtosis along the axes minus along "
                "the rotated basis", ".2f", "axes minus rotated basis "),
           Size(f"axes {_['E3b']['axes']}", _rot("control_kurtosis_axes"),
                Inside(_["E3b"]["axes"]), f"{ROTATED} kurtosis along the axes"),
           Size(f"rotated {_['E3b']['rotated']}", _rot("control_kurtosis_rotated"),
                Inside(_["E3b"]["rotated"]), f"{ROTATED} kurtosis along the rotated basis"))),
    Claim("E3c", "syntax on a rotated axis", "E3",
          "Syntax embeddings lie along a rotated basis vector, on most seeds the "
          "spike's.", f"|cos| {_['E3c']['cos_median']} ({_['E3c']['cos']}); about a third "
          "(chance) with the axes",
          (Size("along a rotated vector", _along, AtLeast(_["E3c"]["cos"]), "each rotated "
                "control's mean largest |cos| of the four syntax tokens with a rotated basis "
                "vector (the chance levels beside)", ".2f",
                "mean over the four tokens, per rotated control ",
                beside=lambda t: f"; {_chance()}"),
           Tally("on the spike's vector on most seeds", _on_spike, _["E3c"]["most"], most,
                 "the rotated controls whose syntax-holding vector is the top-energy direction",
                 unit="such controls"))),
    Claim("E3d", "falloff's spike moves", "E3",
          "Falloff's spike sits on another rotated axis than its control's on some "
          "seeds.", str(_["E3d"]["moved"]),
          (Moved(f"on about {_['E3d']['moved']}", "rotated-basis", "moved_rotated",
                 "falloff and its control both have a spike", _["E3d"]["moved"], "rotated"),)),
    Claim("E3e", "the spike's axis is costly", "E3",
          "In rotated controls the rotated axes off the spike are the cheap "
          "directions, and the spike's axis is costly.", f"axes {_['E3e']['axes']}, rotated "
          f"off-spike {_['E3e']['off']}, spike {_['E3e']['spike']}",
          (Size(f"the spike's axis costs about {_['E3e']['spike']}",
                lambda t: _spike_costs(t)[0], Inside(_["E3e"]["spike"]),
                f"{ROTATED} cost of the spike's axis", ".3f", "the spike's axis ",
                none="no control has a spike"),
           Size("rotated axes off it cheaper than the coordinate axes", _axes_minus_off,
                AtLeast(RESOLUTION), "the coordinate axes' cost minus the rotated axes' off the "
                "spike, per rotated control", ".4f", "coordinate axes minus rotated axes off the "
                "spike, per control "))),
    Claim("E3e′", "e₁ costs about a tenth", "E3",
          "In falloff e₁ costs about 0.1 on every seed.",
          f"{_['E3e′']['median']} ({_['E3e′']['e1']})",
          (Tally("on every seed", _e1_cost, _["E3e′"]["every"], every, "the rotated falloff runs "
                 f"whose e₁ cost lies inside {_['E3e′']['e1']} (±{_['E3e′']['e1'].tol:g})"),)),
]
