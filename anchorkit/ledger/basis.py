"""The readers of where the privileged basis went (E3), the later finding (L1) and the scope
(S1).
"""

from __future__ import annotations

import pandas as pd

from anchorkit.formatting import summary
from anchorkit.core.task import SYNTAX
from anchorkit.measures.verdicts import (INF, NOT_COMPARABLE, NOT_REPRODUCED, REPRODUCED, UNDECIDED,
                                         about_share, every, most)
from anchorkit.core.optimizers import ROTATED_ADAM
from anchorkit.ledger.base import (Count, KURTOSIS_TOL, Part, RESOLUTION, SOURCE, Tables, _chance,
                                   _results, counted, judged, sized)
from anchorkit.ledger.premise import _costs, _no_structure, _per_run_cost, existence


# ------------------------------------------------------------------------------ E3
def e3a(t):
    rot, sto = _results(t, "rotated"), _results(t, "adam")
    src = SOURCE["E3a"]
    flat = sized(f"the axes stay at {src['axes']}", rot.control_top_share_axes,
                 src["axes"].region(), ".3f", "top axis share ")
    if _no_structure(existence(rot, sto)):
        flat = Part(flat.name, flat.text + ", as flat as plain Adam's own (no privileged basis "
                    "to lose, P0)", NOT_COMPARABLE)
    return judged([sized(f"a rotated direction holds {src['rotated']}",
                         rot.control_top_share_rotated, src["rotated"].region(), ".3f",
                         "rotated controls' top rotated share "), flat])


def e3b(t):
    rot, sto = _results(t, "rotated"), _results(t, "adam")
    src = SOURCE["E3b"]
    return judged([
        sized("reversed in the rotated controls",
              rot.control_kurtosis_rotated - rot.control_kurtosis_axes, (KURTOSIS_TOL, INF),
              ".2f", "rotated basis minus axes "),
        sized("as in the plain controls", sto.control_kurtosis_axes - sto.control_kurtosis_rotated,
              (KURTOSIS_TOL, INF), ".2f", "axes minus rotated basis "),
        sized(f"axes {src['axes']}", rot.control_kurtosis_axes, src["axes"].region()),
        sized(f"rotated {src['rotated']}", rot.control_kurtosis_rotated,
              src["rotated"].region())])


def e3c(t):
    rot, o = _results(t, "rotated"), t.get("diagnosis", "overlap_targets")
    per = rot[[f"control_syntax_cos_{s}_rotated" for s in SYNTAX]].mean(axis=1)
    src = SOURCE["E3c"]
    along = sized("along a rotated vector", per, (src["cos"].region()[0], INF), ".2f",
                  "mean over the four tokens, per rotated control ")
    parts = [Part(along.name, f"{along.text}; {_chance()}", along.verdict)]
    if o is None:
        parts.append(Part("on the spike's vector on most seeds", "not measured", NOT_COMPARABLE))
    else:
        o = o[(o.optimizer == ROTATED_ADAM.name) & o.syntax.notna()]
        on = int((o.syntax == o.spike).sum())
        parts.append(counted("on the spike's vector on most seeds", on, len(o),
                             (src["most"].k, src["most"].n), most,
                             f"the syntax-holding vector is the top-energy direction on {on} "
                             f"of {len(o)} rotated controls", unit="such controls"))
    return judged(parts)


def _moved(t: Tables, study: str, column: str, optimizer: str | None = None):
    r = t.need(study, "results")
    if optimizer is not None:
        r = r[r.optimizer == optimizer]
    return pd.Series(r[column], dtype="boolean")


def _moved_claim(m: pd.Series, where: str, source: Count) -> tuple[str, str]:
    """A "spike moved on 3 of 8 seeds" claim: not comparable unless at least half the seeds have
    a spike in both runs; then a count against the source's (our share within 1/8 of it)."""
    n, k = int(m.notna().sum()), int(m.fillna(False).sum())
    text = (f"moved on {k} of the {n} seeds where {where} ({len(m) - n} without)" if n
            else f"no seed where {where} (all {len(m)} without)")
    if n < len(m) / 2:
        return text, NOT_COMPARABLE
    return judged([counted(f"on about {source}", k, n, (source.k, source.n),
                           about_share(source.k / source.n, 1 / 8), text, unit="such seeds")])


def e3d(t):
    return _moved_claim(_moved(t, "rotated-basis", "moved_rotated", "rotated"),
                        "falloff and its control both have a spike", SOURCE["E3d"]["moved"])


def e3e(t):
    b = _costs(t, "rotated")
    rot = _results(t, "rotated")
    spikes = rot.set_index("control_run").control_spike_rotated.dropna()
    rotated = b[b.basis == "rotated"]
    is_spike = rotated.apply(lambda r: spikes.get(r.control_run) == r.direction, axis=1)
    axes = _per_run_cost(b, (b.basis == "axes") & (b.direction != 0))
    off = rotated[~is_spike].groupby("run").cost.median()
    on = rotated[is_spike].cost
    spike = SOURCE["E3e"]["spike"]
    return judged([
        sized(f"the spike's axis costs about {spike}", on, spike.region(), ".3f",
              "the spike's axis ") if len(on) else
        Part(f"the spike's axis costs about {spike}", "no control has a spike", NOT_COMPARABLE),
        sized("rotated axes off it cheaper than the coordinate axes", (axes - off).dropna(),
              (RESOLUTION, INF), ".4f", "coordinate axes minus rotated axes off the spike, "
              "per control ")])


def e3e_e1(t):
    b = _costs(t, "rotated", "anchored")
    e1 = b[(b.basis == "axes") & (b.direction == 0)].cost
    src = SOURCE["E3e′"]
    k = int(e1.between(*src["e1"].region()).sum())
    return judged([counted("on every seed", k, len(e1), (src["every"].k, src["every"].n), every,
                           f"e₁'s cost in rotated falloff runs {summary(e1, '.3f')}; inside "
                           f"{src['e1']} (±{src['e1'].tol}) on {k} of {len(e1)}")])


# ------------------------------------------------------------------------------ later, scope
def l1(t):
    return _moved_claim(_moved(t, "reference-baseline", "moved_axes"),
                        "both runs have a spike", SOURCE["L1"]["moved"])


S1_RATE, S1_BOUND = SOURCE["S1"]["rate"].value, SOURCE["S1"]["bound"].value  # rate, its bound


def s1(t):
    rate = t.need("loss-rate-screen", "rate")
    r = rate.set_index("rule").loc["net removal"]
    text = (f"{int(r.losses)} of {int(r.runs)} lost; rate {r.rate:.3f}, exact 95% interval "
            f"{r.low:.3f} to {r.high:.3f}")
    if not r.low <= S1_RATE <= r.high:
        return text, NOT_REPRODUCED
    return text, REPRODUCED if r.high <= S1_BOUND else UNDECIDED
