"""The reproduction ledger: each claim of the source report beside what our committed tables give.

Every claim carries the source's figure, a function that reads our tables (the ``reports/``
folder of one regime) and returns our figure with a verdict, and the rule that verdict follows,
written here before the tables are read. The rules compare intervals, never a fixed cut-off on an
8-seed median (``anchorkit.verdicts`` states the three comparisons: a size's median interval
against the region the claim allows, a count by Fisher's exact test against the source's count, a
relation's Fisher-z interval against the source's r); their verdicts are reproduced, not
reproduced, cannot be decided at this number of seeds, and not comparable. A claim of several
named parts says each part's verdict in our figure's text. A rule reads its claim's own scope: a
claim about the rotated runs is judged on the rotated runs.

Tolerances (stated once, used by every rule): a size quoted as a range allows the range widened
by ``SHARE_TOL`` (energy shares, |cos|, alignment) or ``SCORE_TOL`` (removal, landing, task
scores); "about x" allows x ± ``ABOUT``; an ordering of two quantities needs their paired
difference to be at least ``RESOLUTION`` (a few probe contexts), so that two costs both near zero
never order. A kept/lost line is blurred by one standard error of the removal it classifies
(``REMOVAL_SE``). Every |cos| claim is shown beside its chance level (``chance_cos``): the median
largest |cos| of a random unit vector with the 64 vectors of a basis, and its 95th percentile, the
level below which a |cos| places a token on no vector.

The claims are the source report's, in our words, never tuned towards.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from anchorkit.formatting import number, summary
from anchorkit.measure import OVER_REMOVAL_Z, chance_cos
from anchorkit.provenance import has_tables, read_tables
from anchorkit.task import SYNTAX
from anchorkit.verdicts import (INF, NOT_COMPARABLE, NOT_REPRODUCED, REPRODUCED, UNDECIDED,
                                VERDICTS, about_share, combine, count_verdict, every,
                                none_of, relation_interval, relation_verdict, size)

SHARE_TOL = 0.05  # energy shares, |cos|, alignment
SCORE_TOL = 0.03  # removal, landing, scores (about one run's sampling error of removal)
ABOUT = 0.1  # "about x": within 0.1 of x
RESOLUTION = 0.01  # the smallest difference of two costs (score units) that orders them
KURTOSIS_TOL = 0.2
KEPT_LINE = 0.5  # the kept/lost rule: removal at least half


class Tables:
    """The committed tables of one regime, read on demand (``reports/<study>/<table>.parquet``),
    each study's folder checked against its manifest once (``provenance.read_tables``): an edited
    table is refused by name, never judged."""

    def __init__(self, where):
        self.where = Path(where)
        self._cache: dict[str, dict[str, pd.DataFrame]] = {}

    def get(self, study: str, table: str) -> pd.DataFrame | None:
        if study not in self._cache:
            folder = self.where / study
            self._cache[study] = read_tables(folder) if has_tables(folder) else {}
        return self._cache[study].get(table)


@dataclass(frozen=True)
class Claim:
    id: str
    section: str
    claim: str
    source: str
    rule: str
    ours: Callable[[Tables], tuple[str, str]]


@dataclass(frozen=True)
class Part:
    """One named part of a claim: our figure's text and its verdict."""
    name: str
    text: str
    verdict: str


def judged(parts: list[Part]) -> tuple[str, str]:
    """Our figure's text and the claim's verdict (``verdicts.combine``); with more than one part,
    each part's name and verdict are said."""
    verdict = combine({p.name: p.verdict for p in parts})
    if len(parts) == 1:
        return parts[0].text, verdict
    return "; ".join(f"{p.name}: {p.text} ({p.verdict})" for p in parts), verdict


def sized(name: str, values, region: tuple[float, float], fmt: str = ".2f",
          what: str = "") -> Part:
    """A size part: our median with its 95% interval against the claim's region."""
    med, low, high, verdict = size(pd.Series(values, dtype=float).dropna(), region)
    if math.isnan(med):
        return Part(name, f"{what}no values".strip(), NOT_COMPARABLE)
    n = int(pd.Series(values, dtype=float).notna().sum())
    return Part(name, f"{what}{number(med, fmt)} ({interval_text(low, high, fmt)}, n = {n})",
                verdict)


def counted(name: str, k: int, n: int, source: tuple[int, int], says, text: str,
            near: tuple[list, list] = ((), ())) -> Part:
    """A count part: k of n against the source's count. ``near``: the seeds within one standard
    error of the classifying line, those counted in k and the others; each is counted both ways."""
    inside, outside = near
    seeds = sorted([*inside, *outside])
    if seeds:
        text += (f"; within one standard error of the line: seed{'s' if len(seeds) > 1 else ''} "
                 f"{', '.join(str(s) for s in seeds)}")
    return Part(name, text, count_verdict(k, n, source, says, len(inside), len(outside)))


def removal_se(r: pd.DataFrame, net: bool = False) -> pd.Series:
    """One standard error of a run's removal (``removal_error`` is ``OVER_REMOVAL_Z`` of them);
    net removal subtracts a second run's, so its error is √2 times larger."""
    se = r.removal_error / OVER_REMOVAL_Z
    return se * math.sqrt(2) if net else se


def interval_text(low: float, high: float, fmt: str = ".2f") -> str:
    """``95% interval a to b``, or why there is none."""
    if not math.isfinite(low):
        return "too few seeds for a 95% interval"
    return f"95% interval {number(low, fmt)} to {number(high, fmt)}"


def _results(t: Tables, optimizer: str) -> pd.DataFrame | None:
    r = t.get("rotated-basis", "results")
    return None if r is None else r[r.optimizer == optimizer]


def _missing() -> tuple[str, str]:
    return "not measured (no committed table)", NOT_COMPARABLE


def _chance() -> str:
    return (f"chance {chance_cos():.2f} at the median, {chance_cos(quantile=0.95):.2f} at the "
            "95th percentile")


def _paired(a: pd.DataFrame, b: pd.DataFrame, col_a: str, col_b: str) -> pd.Series:
    """``a[col_a] − b[col_b]`` seed by seed."""
    return (a.set_index("seed")[col_a] - b.set_index("seed")[col_b]).dropna()


# ------------------------------------------------------------------------------ premise
P1_LOW = 0.86


def p1(t):
    r = _results(t, "adam")
    if r is None:
        return _missing()
    text, verdict = judged([sized(f"“{s}”", r[f"control_syntax_cos_{s}_axes"],
                                  (P1_LOW - SHARE_TOL, INF)) for s in SYNTAX])
    return f"{text}; {_chance()}", verdict


def p2(t):
    r = _results(t, "adam")
    if r is None:
        return _missing()
    return judged([sized("top-axis share", r.control_top_share_axes, (0.5 - ABOUT, 0.5 + ABOUT),
                         ".3f", "top-axis share ")])


def _costs(t: Tables, optimizer: str, role: str = "control") -> pd.DataFrame | None:
    b = t.get("rotated-basis", "basis")
    return None if b is None else b[(b.optimizer == optimizer) & (b.role == role) & b.cost.notna()]


def _per_run_cost(b: pd.DataFrame, mask) -> pd.Series:
    """Each run's median cost over the directions in ``mask``."""
    return b[mask].groupby("run").cost.median()


def p3(t):
    b = _costs(t, "adam")
    if b is None:
        return _missing()
    axes = _per_run_cost(b, (b.basis == "axes") & (b.direction != 0))
    rand = _per_run_cost(b, b.basis == "random")
    return judged([
        sized("random dearer than an axis", (rand - axes).dropna(), (RESOLUTION, INF), ".4f",
              "random minus axis, per control "),
        sized("axis about 0.03", axes, (0.03 - 0.02, 0.03 + 0.02), ".4f"),
        sized("random 0.08–0.13", rand, (0.08 - 0.02, 0.13 + 0.02), ".4f")])


P4_STRUCTURE = 0.2  # a plain-Adam top-axis share below this is no structure (the scout's clear level)


def _no_structure(plain: pd.DataFrame) -> bool:
    """Plain Adam builds no axis structure: its controls' top-axis share's interval lies below
    ``P4_STRUCTURE`` (or it has no controls)."""
    _, _, _, v = size(plain.control_top_share_axes, (P4_STRUCTURE, INF))
    return v in (NOT_REPRODUCED, NOT_COMPARABLE)


def p4(t):
    rot, sto = _results(t, "rotated"), _results(t, "adam")
    if rot is None or sto is None:
        return _missing()
    plain = sized("plain controls' top axis share", sto.control_top_share_axes,
                  (P4_STRUCTURE, INF), ".3f")
    if _no_structure(sto):
        return (f"{plain.name} {plain.text}: plain Adam builds no structure to mirror (below "
                f"{P4_STRUCTURE})"), NOT_COMPARABLE
    return judged([
        sized("on the rotated axes", rot.control_top_share_rotated - rot.control_top_share_axes,
              (SHARE_TOL, INF), ".3f", "rotated minus axis share, per rotated control "),
        sized("as strong as plain Adam's", _paired(rot, sto, "control_top_share_rotated",
                                                  "control_top_share_axes"),
              (-SHARE_TOL, SHARE_TOL), ".3f", "rotated share minus the plain twin's axis share ")])


# ------------------------------------------------------------------------------ E1
def _kept_count(r: pd.DataFrame, name: str, column: str, source: tuple[int, int], says,
                what: str, lost: bool = False) -> Part:
    """A count of runs kept (or ``lost``) by the kept/lost rule on ``column`` ("kept": net
    removal, "kept_raw": raw), each run within one standard error of the line counted both ways."""
    net = column == "kept"
    flags = r[column].astype(bool).to_numpy()
    counted_flags = ~flags if lost else flags
    values = (r.net_removal if net else r.raw_removal).to_numpy()
    near = np.abs(values - KEPT_LINE) <= removal_se(r, net).to_numpy()
    seeds = r.seed.to_numpy()
    k = int(counted_flags.sum())
    return counted(name, k, len(r), source, says, f"{what} {k} of {len(r)}",
                   (seeds[near & counted_flags].tolist(), seeds[near & ~counted_flags].tolist()))


def e1a(t):
    r = _results(t, "rotated")
    if r is None:
        return _missing()
    return judged([_kept_count(r, "every seed", "kept", (8, 8), every,
                               "kept (net removal ≥ 0.5) on")])


def _alignment(t: Tables) -> pd.DataFrame | None:
    a = t.get("rotated-basis", "alignment")
    return None if a is None else a[a.role == "anchored"]


E1B_GAP = 0.04  # the source's largest gap between a rotated run and its twin
E1B_SOURCE = 0.6  # the source's alignment at slices 3–4, rotated runs ("about 0.6")


def e1b(t):
    a = _alignment(t)
    if a is None:
        return _missing()
    diff = a[a.context == "difference"]
    deep = diff[diff.slice >= 3].groupby(["optimizer", "seed"]).alignment.mean()
    by = diff[diff.slice >= 1].pivot_table(index=["seed", "slice"], columns="optimizer",
                                             values="alignment")
    gap = (by["rotated"] - by["adam"]).abs().groupby("seed").max()
    close = int((gap <= E1B_GAP + RESOLUTION).sum())
    return judged([
        sized("about 0.6", deep["rotated"], (E1B_SOURCE - ABOUT, E1B_SOURCE + ABOUT), ".2f",
              "slices 3–4, rotated "),
        counted("on top of the twins", close, len(gap), (8, 8), every,
                f"largest gap to the twin {number(float(gap.max()), '.3f')}; within "
                f"{E1B_GAP} + {RESOLUTION} on {close} of {len(gap)} seeds")])


def e1c(t):
    a = _alignment(t)
    if a is None:
        return _missing()
    other = a[(a.context == "other") & (a.slice >= 1) & (a.optimizer == "rotated")]
    return judged([sized("0.1–0.2", other.groupby("seed").alignment.mean(),
                         (0.1 - SHARE_TOL, 0.2 + SHARE_TOL), ".2f", "slices 1–4, rotated ")])


def e1d(t):
    a = _alignment(t)
    if a is None:
        return _missing()
    emb = a[(a.context == "difference") & (a.slice == 0)].pivot_table(
        index="seed", columns="optimizer", values="alignment")
    d = (emb["rotated"] - emb["adam"]).dropna()
    return judged([sized("rotated higher", d, (RESOLUTION, INF), ".3f",
                         "at the embedding, rotated minus its twin "),
                   sized("by a few hundredths (0.02–0.06)", d, (0.02, 0.06), ".3f")])


# ------------------------------------------------------------------------------ E2
E2A_LOWEST = 0.87  # the source's lowest raw removal of any run (stored)
E2A_SOURCE = (0.97, 0.99)  # the source's rotated raw removal at full dose (its range)
E2A_MEDIAN = 0.98  # its median


def e2a(t):
    rot, sto = _results(t, "rotated"), _results(t, "adam")
    if rot is None or sto is None:
        return _missing()
    both = pd.concat([rot, sto])
    high = int((both.raw_removal >= E2A_LOWEST - SCORE_TOL).sum())
    return judged([
        sized("rotated 0.97–0.99", rot.raw_removal,
              (E2A_SOURCE[0] - SCORE_TOL, E2A_SOURCE[1] + SCORE_TOL), ".2f", "rotated "),
        counted("high on every run", high, len(both), (16, 16), every,
                f"at least {E2A_LOWEST} − {SCORE_TOL} on {high} of {len(both)} runs (stored "
                f"{summary(sto.raw_removal)})")])


E2B_NET = (0.90, 0.84, 0.47, 0.60, 0.80, 0.86, 0.26, 0.90)  # the source's rotated net removal
E2B_LOST = sum(v < KEPT_LINE for v in E2B_NET)  # 2 of 8
COS_QUARTER = 0.18  # "about a quarter": midway between the source's two groups (≤ 0.11, ≥ 0.25)


def e2b(t):
    rot, sto = _results(t, "rotated"), _results(t, "adam")
    if rot is None or sto is None:
        return _missing()
    lost = rot[~rot.kept.astype(bool)]
    held = int(lost.kept_raw.astype(bool).sum())
    return judged([
        _kept_count(rot, "lost on about 2 of 8", "kept", (E2B_LOST, len(E2B_NET)),
                    about_share(E2B_LOST / len(E2B_NET), 1 / 8), "lost by net removal on",
                    lost=True),
        counted("the shortfall in the control", held, len(lost), (E2B_LOST, E2B_LOST), every,
                f"raw removal at least half on {held} of the {len(lost)} runs lost by net "
                "removal") if len(lost) else
        Part("the shortfall in the control", "no run lost by net removal", NOT_COMPARABLE),
        sized("stored controls lose 0.07–0.19", sto.control_drop,
              (0.07 - SCORE_TOL, 0.19 + SCORE_TOL), ".2f", "stored controls' drop ")])


def _quarter(t: Tables) -> pd.DataFrame | None:
    """The rotated controls with their cos(e₁, syntax-holding vector), drop and largest drop on
    another op (the diagnosis study's ``overlap_targets`` beside the results)."""
    o, rot = t.get("diagnosis", "overlap_targets"), _results(t, "rotated")
    if o is None or rot is None:
        return None
    o = o[o.optimizer == "rotated"].merge(
        rot[["control_run", "raw_spill", "control_other_ops"]], left_on="run",
        right_on="control_run")
    return o


def e2c(t):
    o, rel = _quarter(t), t.get("diagnosis", "relation")
    if o is None or rel is None:
        return _missing()
    at = o[o.cos_e1_syntax >= COS_QUARTER]
    big = int((at.control_drop >= KEPT_LINE).sum())
    row = rel[(rel.optimizer == "rotated") & (rel.measure == "shortfall")
              & (rel.against == "cos_e1_syntax")].iloc[0]
    low, high = relation_interval(float(row.pearson), int(row.n))
    return judged([
        counted("half or more where the cosine is about a quarter", big, len(at), (2, 2), every,
                f"drop at least half on {big} of the {len(at)} rotated controls with cos ≥ "
                f"{COS_QUARTER} (drops {summary(at.control_drop)})") if len(at) else
        Part("half or more where the cosine is about a quarter",
             f"no rotated control with cos ≥ {COS_QUARTER}", NOT_COMPARABLE),
        Part("the shortfall tracks the cosine (r = 0.94)",
             f"Pearson r {number(float(row.pearson))} (95% interval {number(low)} to "
             f"{number(high)}, n = {int(row.n)})",
             relation_verdict(float(row.pearson), int(row.n), 0.94))])


E2D_OTHER = (0.18, 0.44)  # the source's largest other-op drop of the two rotated controls
E2D_ANCHORED = 0.024  # the source's largest other-op drop of the anchored runs at those seeds
E2D_STORED = 0.10  # the source's largest other-op drop of any stored control


def e2d(t):
    o, sto = _quarter(t), _results(t, "adam")
    if o is None or sto is None:
        return _missing()
    at = o[o.cos_e1_syntax >= COS_QUARTER]
    big = int((at.control_other_ops >= E2D_OTHER[0] - SCORE_TOL).sum())
    calm = int((at.raw_spill <= E2D_ANCHORED + SCORE_TOL).sum())
    stored = int((sto.control_other_ops <= E2D_STORED + SCORE_TOL).sum())
    parts = [
        counted("the control loses on another op", big, len(at), (2, 2), every,
                f"largest other-op drop at least {E2D_OTHER[0]} − {SCORE_TOL} on {big} of the "
                f"{len(at)} rotated controls with cos ≥ {COS_QUARTER} "
                f"({summary(at.control_other_ops)})"),
        counted("the anchored run does not", calm, len(at), (2, 2), every,
                f"the anchored run's raw spill at most {E2D_ANCHORED} + {SCORE_TOL} on {calm} of "
                f"{len(at)}")]
    if not len(at):  # not comparable either way (a count of none); said in words
        parts = [Part(p.name, f"no rotated control with cos ≥ {COS_QUARTER}", NOT_COMPARABLE)
                 for p in parts]
    return judged(parts + [counted(
        "stored controls at most 0.10", stored, len(sto), (8, 8), every,
        f"at most {E2D_STORED:.2f} + {SCORE_TOL} on {stored} of {len(sto)} stored controls "
        f"({summary(sto.control_other_ops)})")])


def e2e(t):
    rot = _results(t, "rotated")
    if rot is None:
        return _missing()
    ok = int((rot.spill <= 0.02).sum())
    return judged([counted("every rotated run within 0.02", ok, len(rot), (8, 8), every,
                           f"net spill rotated {summary(rot.spill, '.3f')}; raw spill "
                           f"{summary(rot.raw_spill, '.3f')}; within 0.02 on {ok} of "
                           f"{len(rot)} rotated runs")])


def _rotated_size(t, column, low, high, name, fmt=".2f", tol=SCORE_TOL):
    rot, sto = _results(t, "rotated"), _results(t, "adam")
    if rot is None:
        return _missing()
    part = sized(name, rot[column], (low - tol, high + tol), fmt, "rotated ")
    stored = "" if sto is None else f"; stored {summary(sto[column], fmt)}"
    return judged([Part(part.name, part.text + stored, part.verdict)])


def e2f(t):
    return _rotated_size(t, "landing", 0.42, 0.54, "0.42–0.54")


def e2g(t):
    return _rotated_size(t, "task_change", -0.013, 0.006, "−0.013 to 0.006", ".3f", tol=0.01)


def e2h(t):
    r = _results(t, "rotated")
    if r is None:
        return _missing()
    return judged([_kept_count(r, "none lost", "kept_raw", (0, 8), none_of,
                               "below half by raw removal on", lost=True)])


# ------------------------------------------------------------------------------ E3
def e3a(t):
    rot, sto = _results(t, "rotated"), _results(t, "adam")
    if rot is None or sto is None:
        return _missing()
    flat = sized("the axes stay at 0.05–0.10", rot.control_top_share_axes,
                 (0.05 - SHARE_TOL, 0.10 + SHARE_TOL), ".3f", "top axis share ")
    if _no_structure(sto):
        flat = Part(flat.name, flat.text + ", as flat as plain Adam's own (no structure to lose)",
                    NOT_COMPARABLE)
    return judged([sized("a rotated direction holds 0.46–0.50", rot.control_top_share_rotated,
                         (0.46 - SHARE_TOL, 0.50 + SHARE_TOL), ".3f",
                         "rotated controls' top rotated share "), flat])


def e3b(t):
    rot, sto = _results(t, "rotated"), _results(t, "adam")
    if rot is None or sto is None:
        return _missing()
    return judged([
        sized("reversed in the rotated controls",
              rot.control_kurtosis_rotated - rot.control_kurtosis_axes, (KURTOSIS_TOL, INF),
              ".2f", "rotated basis minus axes "),
        sized("as in the plain controls", sto.control_kurtosis_axes - sto.control_kurtosis_rotated,
              (KURTOSIS_TOL, INF), ".2f", "axes minus rotated basis "),
        sized("axes 2.9–3.4", rot.control_kurtosis_axes,
              (2.9 - KURTOSIS_TOL, 3.4 + KURTOSIS_TOL)),
        sized("rotated 4.0–4.4", rot.control_kurtosis_rotated,
              (4.0 - KURTOSIS_TOL, 4.4 + KURTOSIS_TOL))])


E3C_LOW = 0.74
E3C_MOST = (5, 8)  # "on most seeds": the fewest of 8 that is most


def e3c(t):
    rot, o = _results(t, "rotated"), t.get("diagnosis", "overlap_targets")
    if rot is None:
        return _missing()
    per = rot[[f"control_syntax_cos_{s}_rotated" for s in SYNTAX]].mean(axis=1)
    along = sized("along a rotated vector", per, (E3C_LOW - SHARE_TOL, INF), ".2f",
                  "mean over the four tokens, per rotated control ")
    parts = [Part(along.name, f"{along.text}; {_chance()}", along.verdict)]
    if o is None:
        parts.append(Part("on the spike's vector on most seeds", "not measured", NOT_COMPARABLE))
    else:
        o = o[(o.optimizer == "rotated") & o.syntax.notna()]
        on = int((o.syntax == o.spike).sum())
        parts.append(counted("on the spike's vector on most seeds", on, len(o), E3C_MOST,
                             lambda k, n: k > n / 2,
                             f"the syntax-holding vector is the top-energy direction on {on} "
                             f"of {len(o)} rotated controls"))
    return judged(parts)


def _moved(t: Tables, study: str, column: str, optimizer: str | None = None):
    r = t.get(study, "results")
    if r is None:
        return None
    if optimizer is not None:
        r = r[r.optimizer == optimizer]
    return pd.Series(r[column], dtype="boolean")


def _moved_claim(m: pd.Series | None, where: str) -> tuple[str, str]:
    """A "spike moved on 3 of 8 seeds" claim: not comparable unless at least half the seeds have
    a spike in both runs; then a count against the source's 3 of 8 (our share within 1/8 of it)."""
    if m is None:
        return _missing()
    n, k = int(m.notna().sum()), int(m.fillna(False).sum())
    text = (f"moved on {k} of the {n} seeds where {where} ({len(m) - n} without)" if n
            else f"no seed where {where} (all {len(m)} without)")
    if n < len(m) / 2:
        return text, NOT_COMPARABLE
    return judged([counted("on about 3 of 8", k, n, (3, 8), about_share(3 / 8, 1 / 8), text)])


def e3d(t):
    return _moved_claim(_moved(t, "rotated-basis", "moved_rotated", "rotated"),
                        "falloff and its control both have a spike")


E3E_SPIKE = 0.57


def e3e(t):
    b = _costs(t, "rotated")
    rot = _results(t, "rotated")
    if b is None or rot is None:
        return _missing()
    spikes = rot.set_index("control_run").control_spike_rotated.dropna()
    rotated = b[b.basis == "rotated"]
    is_spike = rotated.apply(lambda r: spikes.get(r.control_run) == r.direction, axis=1)
    axes = _per_run_cost(b, (b.basis == "axes") & (b.direction != 0))
    off = rotated[~is_spike].groupby("run").cost.median()
    on = rotated[is_spike].cost
    return judged([
        sized("the spike's axis costs about 0.57", on, (E3E_SPIKE - 0.2, E3E_SPIKE + 0.2), ".3f",
              "the spike's axis ") if len(on) else
        Part("the spike's axis costs about 0.57", "no control has a spike", NOT_COMPARABLE),
        sized("rotated axes off it cheaper than the coordinate axes", (axes - off).dropna(),
              (RESOLUTION, INF), ".4f", "coordinate axes minus rotated axes off the spike, "
              "per control ")])


E3E_E1 = (0.09, 0.10)  # the source's e₁ cost in rotated falloff runs (its range)


def e3e_e1(t):
    b = _costs(t, "rotated", "anchored")
    if b is None:
        return _missing()
    e1 = b[(b.basis == "axes") & (b.direction == 0)].cost
    low, high = E3E_E1[0] - SCORE_TOL, E3E_E1[1] + SCORE_TOL
    k = int(e1.between(low, high).sum())
    return judged([counted("on every seed", k, len(e1), (8, 8), every,
                           f"e₁'s cost in rotated falloff runs {summary(e1, '.3f')}; inside "
                           f"0.09–0.10 (±{SCORE_TOL}) on {k} of {len(e1)}")])


# ------------------------------------------------------------------------------ later, scope
def l1(t):
    return _moved_claim(_moved(t, "reference-baseline", "moved_axes"),
                        "both runs have a spike")


S1_RATE, S1_BOUND = 1 / 40, 1 / 9  # the source's loss rate and its upper bound


def s1(t):
    rate = t.get("loss-rate-screen", "rate")
    if rate is None:
        return _missing()
    r = rate.set_index("rule").loc["net removal"]
    text = (f"{int(r.losses)} of {int(r.runs)} lost; rate {r.rate:.3f}, exact 95% interval "
            f"{r.low:.3f} to {r.high:.3f}")
    if not r.low <= S1_RATE <= r.high:
        return text, NOT_REPRODUCED
    return text, REPRODUCED if r.high <= S1_BOUND else UNDECIDED


T = f"(tolerance ±{SHARE_TOL})"
I = "our median's 95% interval"
CLAIMS = [
    Claim("P1", "premise", "Plain Adam parks each syntax token's embedding on a coordinate axis.",
          "largest |cos| with an axis 0.86–1.0", f"one part per syntax token (plain-Adam "
          f"controls): {I} at least {P1_LOW} {T}", p1),
    Claim("P2", "premise", "One coordinate holds about half the stream's energy at the last slice.",
          "about 0.5", f"{I} (plain-Adam controls' top-axis share) inside 0.5 ± {ABOUT}", p2),
    Claim("P3", "premise", "A coordinate axis is cheaper to project out than a random direction.",
          "axis about 0.03, random 0.08–0.13 (controls)", "three parts, plain-Adam controls: "
          f"{I} of random minus axis cost, per control, at least {RESOLUTION}; {I} of each "
          "inside the source's figure ±0.02", p3),
    Claim("P4", "premise", "Adam in a rotated basis builds the same structure on the rotated axes.",
          "same structure, rotated", "not comparable when the plain-Adam controls' top axis "
          f"share's interval lies below {P4_STRUCTURE}; then two parts: {I} of the rotated "
          f"controls' top rotated minus top axis share at least {SHARE_TOL}; of the rotated minus "
          f"the plain twin's share inside ±{SHARE_TOL}", p4),
    Claim("E1a", "E1", "The anchor holds on every seed under rotated Adam.", "8 of 8",
          "the count of rotated falloff runs kept (net removal ≥ 0.5) against 8 of 8: Fisher's "
          "exact test; reproduced at 8 of 8 or more seeds kept, each run within one standard "
          "error of 0.5 counted both ways", e1a),
    Claim("E1b", "E1", "Alignment at difference's example answers rises to about 0.6 at slices "
          "3–4, rotated runs on top of their twins.", "about 0.6; largest gap 0.04",
          f"two parts: {I} (rotated, slices 3–4) inside 0.6 ± {ABOUT}; the seeds whose largest "
          f"gap to the twin is at most {E1B_GAP} + {RESOLUTION}, against 8 of 8", e1b),
    Claim("E1c", "E1", "In the other ops' contexts alignment stays near 0.1–0.2 from slice 1.",
          "about 0.1–0.2", f"{I} (rotated, slices 1–4) inside 0.1–0.2 {T}", e1c),
    Claim("E1d", "E1", "At the embedding the rotated runs sit a few hundredths higher.",
          "0.06 against 0.02", f"two parts, on the rotated minus twin difference per seed: {I} "
          f"at least {RESOLUTION}; inside 0.02–0.06", e1d),
    Claim("E2a", "E2", "Raw removal at full dose is about 0.97 on every run.",
          "0.98 (0.97–0.99) rotated, 0.96 (0.87–0.99) stored", f"two parts: {I} (rotated) inside "
          f"0.97–0.99 (±{SCORE_TOL}); the runs of both arms at least {E2A_LOWEST} (−{SCORE_TOL}) "
          "against 16 of 16", e2a),
    Claim("E2b", "E2", "Net of the control, removal falls short on 2 of 8 rotated seeds; the "
          "shortfall sits in the control; stored controls lose about a tenth of the op.",
          "lost on 2 of 8; raw about 0.97 on every run; stored controls 0.07–0.19",
          "three parts: the rotated runs lost by net removal against 2 of 8 (within 1/8, each "
          "run within one standard error of 0.5 counted both ways); of those, raw removal at "
          f"least half on every one; {I} of the stored controls' drop inside 0.07–0.19 "
          f"(±{SCORE_TOL})", e2b),
    Claim("E2c", "E2", "The rotated control loses half or more of the op where cos(e₁, the "
          "vector holding its syntax tokens) is about a quarter, and the shortfall in net removal "
          "tracks that cosine.", "0.07–0.72; half or more on the 2 seeds at 0.25–0.26; r = 0.94",
          f"two parts: the rotated controls with cos ≥ {COS_QUARTER} (midway between the "
          "source's two groups) dropping at least half, against 2 of 2; Pearson r of shortfall "
          "against the cosine (the diagnosis study's relation): reproduced if its Fisher-z 95% "
          "interval lies above 0 and holds 0.94, not if it excludes 0.94", e2c),
    Claim("E2d", "E2", "On those seeds the rotated control loses on other ops too, the anchored "
          "run does not, and stored controls lose at most 0.10 on any other op.",
          "up to 0.31 (0.18–0.44); anchored at most 0.024; stored at most 0.10",
          f"three parts, each a count against the source's (every one): the rotated controls "
          f"with cos ≥ {COS_QUARTER} whose largest other-op drop is at least 0.18 "
          f"(−{SCORE_TOL}); their anchored runs' raw spill at most 0.024 (+{SCORE_TOL}); the "
          f"stored controls' largest other-op drop at most 0.10 (+{SCORE_TOL})", e2d),
    Claim("E2e", "E2", "Every rotated run is within the 0.02 spill criterion.",
          "net spill 0.000 (−0.009 to 0.005); raw 0.017", "the rotated runs with spill at most "
          "0.02 against 8 of 8 (Fisher's exact test)", e2e),
    Claim("E2f", "E2", "About half of the edited difference answers land on another op.",
          "0.50 (0.42–0.54) rotated, 0.52 stored", f"{I} (rotated) inside 0.42–0.54 "
          f"(±{SCORE_TOL})", e2f),
    Claim("E2g", "E2", "The recipe barely changes the task's clean scores.",
          "−0.001 (−0.013 to 0.006)", f"{I} (rotated) inside −0.013 to 0.006 (±0.01)", e2g),
    Claim("E2h", "E2", "By raw removal no rotated run lost the anchor.", "0 below half",
          "the rotated falloff runs with raw removal below 0.5 against 0 of 8 (Fisher's exact "
          "test), each run within one standard error of 0.5 counted both ways", e2h),
    Claim("E3a", "E3", "Under rotated Adam one rotated direction holds about half the energy; the "
          "coordinate axes stay flat.", "0.48 (0.46–0.50); axes 0.07 (0.05–0.10)",
          f"two parts (rotated controls): {I} of the top rotated share inside 0.46–0.50 {T}; of "
          f"the top axis share inside 0.05–0.10 {T}, not comparable where plain Adam's own axes "
          f"are flat (interval below {P4_STRUCTURE})", e3a),
    Claim("E3b", "E3", "Kurtosis reverses: near 3 along the axes, above it along the rotated "
          "basis, the opposite of the stored runs.", "axes 3.2 (2.9–3.4), rotated 4.2 (4.0–4.4)",
          f"four parts: {I} of the paired difference at least {KURTOSIS_TOL}, rotated controls "
          "(rotated basis above axes) and plain controls (axes above rotated basis); the rotated "
          f"controls' medians inside the source's ranges (±{KURTOSIS_TOL})", e3b),
    Claim("E3c", "E3", "Syntax embeddings lie along a rotated basis vector, on most seeds the "
          "spike's.", "|cos| 0.88 (0.74–0.99); about a third (chance) with the axes",
          f"two parts: {I} of each rotated control's mean |cos| over the four tokens at least "
          f"{E3C_LOW} {T}, the chance levels beside; the controls whose syntax-holding vector is "
          f"the top-energy direction against {E3C_MOST[0]} of {E3C_MOST[1]} (the fewest that is "
          "most), reproduced on more than half", e3c),
    Claim("E3d", "E3", "Falloff's spike sits on another rotated axis than its control's on some "
          "seeds.", "3 of 8", "not comparable unless at least half the seeds have a spike in "
          "both runs; then the count against 3 of 8 (Fisher's exact test), reproduced within 1/8 "
          "of 3/8 on 8 seeds or more", e3d),
    Claim("E3e", "E3", "In rotated controls the rotated axes off the spike are the cheap "
          "directions, and the spike's axis is costly.", "axes 0.07, rotated off-spike 0.03, "
          "spike 0.57", f"two parts: {I} of the spike's axis cost inside 0.57 ± 0.2; of the "
          f"coordinate axes minus the rotated axes off the spike, per control, at least "
          f"{RESOLUTION}", e3e),
    Claim("E3e′", "E3", "In falloff e₁ costs about 0.1 on every seed.", "0.10 (0.09–0.10)",
          f"the rotated falloff runs whose e₁ cost lies inside 0.09–0.10 (±{SCORE_TOL}) against "
          "8 of 8 (Fisher's exact test)", e3e_e1),
    Claim("L1", "later", "Under plain Adam too, falloff's spike moves on some seeds.", "3 of 8",
          "not comparable unless at least half the seeds have a spike in both runs; then the "
          "count against 3 of 8 (Fisher's exact test), reproduced within 1/8 of 3/8 on 8 seeds "
          "or more", l1),
    Claim("S1", "scope", "The loss rate is near 1 in 40, with an upper bound near 1 in 9.",
          "about 1/40 (up to 1/9)", "not reproduced if 1/40 lies outside our exact 95% interval; "
          "reproduced if inside and the interval's top is at most 1/9", s1),
]


def ledger(where, regime: str = "weak basis") -> pd.DataFrame:
    """One row per claim: id, section, claim, the source's figure, the rule, and for the regime
    whose tables are in ``where``: our figure and the verdict."""
    t = Tables(where)
    rows = []
    for c in CLAIMS:
        ours, verdict = c.ours(t)
        assert verdict in VERDICTS, (c.id, verdict)
        rows.append({"id": c.id, "section": c.section, "claim": c.claim, "source": c.source,
                     "rule": c.rule, "regime": regime, "ours": ours, "verdict": verdict})
    return pd.DataFrame(rows)


def tally(table: pd.DataFrame) -> dict[str, int]:
    """How many claims got each verdict."""
    return {v: int((table.verdict == v).sum()) for v in VERDICTS}


def verdict_list(table: pd.DataFrame, verdict: str) -> str:
    """The ids with that verdict, e.g. ``E1a, E2e``, or ``none``."""
    ids = table[table.verdict == verdict].id.tolist()
    return ", ".join(ids) if ids else "none"


GROUPS = (("the premise (P1–P4)", ("premise",)), ("what the anchor does (E1–E2)", ("E1", "E2")),
          ("where the basis goes under rotation (E3)", ("E3",)),
          ("the later finding and the scope (L1, S1)", ("later", "scope")))


def by_group(table: pd.DataFrame) -> str:
    """The verdicts counted per group of claims, as one sentence for a page."""
    parts = []
    for name, sections in GROUPS:
        rows = table[table.section.isin(sections)]
        counts = tally(rows)
        said = ", ".join(f"{n} {v}" for v, n in counts.items() if n)
        parts.append(f"{name}: {said}")
    return "; ".join(parts)


def counts_text(table: pd.DataFrame) -> str:
    """One regime's ledger counted by verdict, with the ids, then by group: a sentence for a page."""
    n = tally(table)
    return (f"Of the {len(table)} claims, {n[REPRODUCED]} are reproduced "
            f"({verdict_list(table, REPRODUCED)}), {n[NOT_REPRODUCED]} not reproduced "
            f"({verdict_list(table, NOT_REPRODUCED)}), {n[UNDECIDED]} cannot be decided at this "
            f"number of seeds ({verdict_list(table, UNDECIDED)}) and {n[NOT_COMPARABLE]} are not "
            f"comparable ({verdict_list(table, NOT_COMPARABLE)}). By group, {by_group(table)}.")


SECTIONS = (("premise", "Premise: the privileged basis under plain Adam"),
            ("E1", "E1: does the anchor hold?"), ("E2", "E2: removal, spill and landing"),
            ("E3", "E3: where the privileged basis went"), ("later", "A later finding"),
            ("scope", "Scope"))


def section_tables(wide: pd.DataFrame) -> list[tuple[str, str]]:
    """The side-by-side ledger (``side_by_side``) as one HTML table per section of claims, with
    its title: the claim, the source's figure, ours and the verdict per regime, the rule."""
    ours = [col for col in wide.columns if col.startswith(("ours (", "verdict ("))]
    out = []
    for section, title in SECTIONS:
        rows = wide[wide.section == section]
        html = (rows[["id", "claim", "source", *ours, "rule"]]
                .rename(columns={"source": "the source's figure", "rule": "rule for the verdict"})
                .to_html(index=False, classes="ledger", border=0, escape=True)
                .replace('<tr style="text-align: right;">', '<tr style="text-align: left;">'))
        out.append((title, html))
    return out


def regimes_ledger(reports_dir) -> pd.DataFrame:
    """The ledger of every regime whose report tables are committed: the weak-basis regime's in
    ``reports_dir``, the second regime's in ``reports_dir/<regime>/`` once its rotated-basis study
    is there (``regime`` names each row's)."""
    from anchorkit.regimes import SECOND, WEAK, reports_path

    tables = [ledger(reports_dir, WEAK)]
    second = reports_path(reports_dir, SECOND)
    if has_tables(second / "rotated-basis"):
        tables.append(ledger(second, SECOND))
    return pd.concat(tables, ignore_index=True)


def side_by_side(table: pd.DataFrame) -> pd.DataFrame:
    """One row per claim: the source's figure and rule, then ours and the verdict per regime."""
    first = table.drop_duplicates("id")[["id", "section", "claim", "source", "rule"]]
    out = first.set_index("id")
    for regime, rows in table.groupby("regime", sort=False):
        r = rows.set_index("id")
        out[f"ours ({regime})"] = r["ours"]
        out[f"verdict ({regime})"] = r["verdict"]
    return out.reset_index()
