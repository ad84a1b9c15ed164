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
never order. A size whose region has two bounds also carries an equivalence margin
(``Figure.margin``, the measure's unit tolerance, stated per claim in ``SOURCE``): an interval
within it of a bound is decided (``verdicts.size_verdict``). A kept/lost line is blurred by one standard error of the removal it classifies
(``REMOVAL_SE``). Every |cos| claim is shown beside its chance level (``chance_cos``): the median
largest |cos| of a random unit vector with the 64 vectors of a basis, and its 95th percentile, the
level below which a |cos| places a token on no vector.

The claims are the source report's, in our words, never tuned towards.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd
from scipy.stats import binomtest

from anchorkit import criteria
from anchorkit.regimes import REPORT
from anchorkit.formatting import number, summary
from anchorkit.measure import OVER_REMOVAL_Z, chance_cos
from anchorkit.provenance import has_tables, read_tables
from anchorkit.task import SYNTAX
from anchorkit.verdicts import (INF, NOT_COMPARABLE, NOT_REPRODUCED, REPRODUCED, UNDECIDED,
                                VERDICTS, about_share, combine, count_verdict, every, most,
                                none_of, relation_interval, relation_verdict, seeds_needed, size,
                                count_seeds_needed,
                                Region, margin_case)
from anchorkit.optimizers import ROTATED_ADAM

SHARE_TOL = 0.05  # energy shares, |cos|, alignment
SCORE_TOL = 0.03  # removal, landing, scores (about one run's sampling error of removal)
ABOUT = 0.1  # "about x": within 0.1 of x
RESOLUTION = 0.01  # the smallest difference of two costs (score units) that orders them
KURTOSIS_TOL = 0.2
KEPT_LINE = criteria.KEPT  # the kept/lost rule: removal at least half


def _value(printed: str) -> float:
    """A figure as the source prints it (``0.10``, ``−0.013``, ``1/40``) as a number."""
    text = printed.replace("−", "-")
    if "/" in text:
        top, bottom = text.split("/")
        return float(top) / float(bottom)
    return float(text)


@dataclass(frozen=True)
class Figure:
    """One figure of the source report as it prints it (a number, or a range as two), with the
    tolerance our rule allows beyond it (``region``)."""

    printed: str | tuple[str, str]
    tol: float = 0.0
    margin: float = 0.0  # the equivalence margin of a two-sided size (``verdicts.Region``)

    @property
    def low(self) -> float:
        return _value(self.printed[0] if isinstance(self.printed, tuple) else self.printed)

    @property
    def high(self) -> float:
        return _value(self.printed[1] if isinstance(self.printed, tuple) else self.printed)

    @property
    def value(self) -> float:
        """The figure (a range's midpoint)."""
        return (self.low + self.high) / 2

    def region(self) -> Region:
        """What the claim allows: the figure widened by the tolerance, with its margin."""
        return Region(self.low - self.tol, self.high + self.tol, self.margin)

    def __str__(self) -> str:
        if not isinstance(self.printed, tuple):
            return self.printed
        joint = " to " if any("−" in p for p in self.printed) else "–"
        return joint.join(self.printed)


@dataclass(frozen=True)
class Count:
    """A count of the source report: ``k`` of ``n`` runs."""

    k: int
    n: int

    def __str__(self) -> str:
        return f"{self.k} of {self.n}"


# The source report's figures, as it prints them, claim by claim, each with the tolerance its
# rule allows: the one table that the rules below and the claims' texts read (never tuned to ours).
SOURCE: dict[str, dict[str, object]] = {
    # existence: the source's plain controls (P2) against its rotated controls' axes (E3a)
    "P0": {"plain": Figure("0.5"), "axes": Figure(("0.05", "0.10")), "axes_median": Figure("0.07")},
    "P1": {"cos": Figure(("0.86", "1.0"), SHARE_TOL)},
    "P2": {"share": Figure("0.5", ABOUT, SHARE_TOL)},
    "P3": {"axis": Figure("0.03", 0.02, RESOLUTION),
           "random": Figure(("0.08", "0.13"), 0.02, RESOLUTION)},
    # "the same structure": rotated Adam's top rotated share minus its plain twin's top axis share
    "P4": {"same": Figure("0", SHARE_TOL, SHARE_TOL)},
    "E1a": {"kept": Count(8, 8)},
    "E1b": {"alignment": Figure("0.6", ABOUT, SHARE_TOL), "gap": Figure("0.04", RESOLUTION),
            "close": Count(8, 8)},
    "E1c": {"alignment": Figure(("0.1", "0.2"), SHARE_TOL, SHARE_TOL)},
    # "a few hundredths": the source's rotated runs at 0.06 against their twins' 0.02
    "E1d": {"rotated": Figure("0.06"), "twin": Figure("0.02"), "few": Figure(("0.02", "0.06"), 0.0, RESOLUTION)},
    "E2a": {"rotated": Figure(("0.97", "0.99"), SCORE_TOL, SCORE_TOL), "rotated_median": Figure("0.98"),
            "stored": Figure(("0.87", "0.99")), "stored_median": Figure("0.96"),
            "lowest": Figure("0.87", SCORE_TOL), "high": Count(16, 16)},
    "E2b": {"net": tuple(Figure(v) for v in ("0.90", "0.84", "0.47", "0.60", "0.80", "0.86",
                                             "0.26", "0.90")),
            "lost": Count(2, 8), "raw": Figure("0.97"),
            "stored_drop": Figure(("0.07", "0.19"), SCORE_TOL, SCORE_TOL)},
    # the two groups of the source's rotated controls by cos(e₁, syntax-holding vector)
    "E2c": {"drop": Figure(("0.07", "0.72")), "low_group": Figure("0.11"),
            "high_group": Figure(("0.25", "0.26")), "big": Count(2, 2), "r": Figure("0.94")},
    "E2d": {"other_median": Figure("0.31"), "other": Figure(("0.18", "0.44"), SCORE_TOL),
            "anchored": Figure("0.024", SCORE_TOL), "stored": Figure("0.10", SCORE_TOL),
            "seeds": Count(2, 2), "stored_runs": Count(8, 8)},
    "E2e": {"spill": Figure("0.02"), "net": Figure("0.000"), "net_range": Figure(("−0.009", "0.005")),
            "raw": Figure("0.017"), "within": Count(8, 8)},
    "E2f": {"landing": Figure(("0.42", "0.54"), SCORE_TOL, SCORE_TOL), "median": Figure("0.50"),
            "stored": Figure("0.52")},
    "E2g": {"change": Figure(("−0.013", "0.006"), 0.01, RESOLUTION), "median": Figure("−0.001")},
    "E2h": {"lost": Count(0, 8)},
    "E3a": {"rotated": Figure(("0.46", "0.50"), SHARE_TOL, SHARE_TOL),
            "rotated_median": Figure("0.48"),
            "axes": Figure(("0.05", "0.10"), SHARE_TOL, SHARE_TOL), "axes_median": Figure("0.07")},
    "E3b": {"axes": Figure(("2.9", "3.4"), KURTOSIS_TOL, KURTOSIS_TOL), "axes_median": Figure("3.2"),
            "rotated": Figure(("4.0", "4.4"), KURTOSIS_TOL, KURTOSIS_TOL),
            "rotated_median": Figure("4.2")},
    "E3c": {"cos": Figure(("0.74", "0.99"), SHARE_TOL), "cos_median": Figure("0.88"),
            "most": Count(5, 8)},  # "on most seeds": the fewest of 8 that is most
    "E3d": {"moved": Count(3, 8)},
    "E3e": {"axes": Figure("0.07"), "off": Figure("0.03"), "spike": Figure("0.57", 0.2, SCORE_TOL)},
    "E3e′": {"e1": Figure(("0.09", "0.10"), SCORE_TOL), "median": Figure("0.10"),
             "every": Count(8, 8)},
    "L1": {"moved": Count(3, 8)},
    "S1": {"rate": Figure("1/40"), "bound": Figure("1/9")},
}


class Tables:
    """The committed tables of one regime, read on demand (``reports/<study>/<table>.parquet``),
    each study's folder checked against its manifest once (``provenance.read_tables``): an edited
    table is refused by name, never judged."""

    def __init__(self, where):
        self.where = Path(where)
        self._cache: dict[str, dict[str, pd.DataFrame]] = {}

    def get(self, study: str, table: str) -> pd.DataFrame | None:
        """The table, or None where it is not committed (a table a rule can do without)."""
        if study not in self._cache:
            folder = self.where / study
            self._cache[study] = read_tables(folder) if has_tables(folder) else {}
        return self._cache[study].get(table)

    def need(self, study: str, table: str) -> pd.DataFrame:
        """The table a rule cannot do without (``Missing`` where it is not committed: the claim
        is then not comparable, ``ledger`` says so once for every rule)."""
        got = self.get(study, table)
        if got is None:
            raise Missing(f"{study}/{table}")
        return got


class Missing(LookupError):
    """A table a rule needs is not committed."""


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
    need = ""
    if verdict == UNDECIDED:
        need = needed_text(seeds_needed(pd.Series(values, dtype=float).dropna(), region))
    else:
        need = margin_words(margin_case(low, high, region), med, region, fmt)
    return Part(name, f"{what}{number(med, fmt)} ({interval_text(low, high, fmt)}, n = {n}){need}",
                verdict)


def margin_words(case: str | None, med: float, region, fmt: str) -> str:
    """What a decided size says when its equivalence margin was needed (``verdicts.margin_case``)."""
    if case is None:
        return ""
    m = f"the equivalence margin ±{number(region.margin, fmt)}"
    if case == "within":
        return f"; the interval passes the region's bound by less than {m}"
    if case == "apart":
        return f"; the interval reaches into the region by less than {m}"
    side = "inside" if region[0] <= med <= region[1] else "outside"
    return f"; the interval lies within {m} of a bound: the median, {side} the region, decides"


NEEDED_MAX = 1000  # above this many seeds, "more than" (the guide is rough)


def needed_text(more) -> str:
    """What an undecided size's ``seeds_needed`` says, as a clause ("" with too few values)."""
    if more is None:
        return ""
    if math.isinf(more):
        return "; no number of seeds decides a median on the bound"
    if more > NEEDED_MAX:
        return (f"; more than {NEEDED_MAX} seeds would be needed at the spread seen (the median "
                "sits near the bound)")
    return f"; about {int(more)} seeds would decide it at the spread seen"


def counted(name: str, k: int, n: int, source: tuple[int, int], says, text: str,
            near: tuple[list, list] = ((), ()), unit: str = "seeds") -> Part:
    """A count part: k of n against the source's count. ``near``: the seeds within one standard
    error of the classifying line, those counted in k and the others; each is counted both ways.
    ``unit``: what the count is out of, in the seeds-needed clause of an undecided count."""
    inside, outside = near
    seeds = sorted([*inside, *outside])
    if seeds:
        text += (f"; within one standard error of the line: seed{'s' if len(seeds) > 1 else ''} "
                 f"{', '.join(str(s) for s in seeds)}")
    verdict = count_verdict(k, n, source, says, len(inside), len(outside))
    if verdict == UNDECIDED:
        text += count_needed_text(count_seeds_needed(k, n, source, says), unit)
    return Part(name, text, verdict)


def count_needed_text(more, unit: str = "seeds") -> str:
    """What an undecided count's ``count_seeds_needed`` says, as a clause."""
    if more is None:
        return ""
    if math.isinf(more):
        return (f"; no number of {unit} up to {NEEDED_MAX} decides it at the share seen (it sits "
                f"on what the claim allows)")
    return f"; about {int(more)} {unit} would decide it at the share seen"


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


def _results(t: Tables, optimizer: str, optional: bool = False) -> pd.DataFrame | None:
    """The rotated-basis study's results of one arm (``Missing`` where not committed, or None
    when ``optional``)."""
    r = t.get("rotated-basis", "results") if optional else t.need("rotated-basis", "results")
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
    kept = SOURCE["E1a"]["kept"]
    return judged([_kept_count(r, "every seed", "kept", (kept.k, kept.n), every,
                               "kept (net removal ≥ 0.5) on")])


def _alignment(t: Tables) -> pd.DataFrame:
    a = t.need("rotated-basis", "alignment")
    return a[a.role == "anchored"]


E1B_SOURCE = SOURCE["E1b"]["alignment"].value  # the source's alignment at slices 3–4 (rotated)


def e1b(t):
    a = _alignment(t)
    diff = a[a.context == "difference"]
    deep = diff[diff.slice >= 3].groupby(["optimizer", "seed"]).alignment.mean()
    by = diff[diff.slice >= 1].pivot_table(index=["seed", "slice"], columns="optimizer",
                                             values="alignment")
    gap = (by["rotated"] - by["adam"]).abs().groupby("seed").max()
    src = SOURCE["E1b"]
    close = int((gap <= src["gap"].region()[1]).sum())
    return judged([
        sized(f"about {src['alignment']}", deep["rotated"], src["alignment"].region(), ".2f",
              "slices 3–4, rotated "),
        counted("on top of the twins", close, len(gap), (src["close"].k, src["close"].n), every,
                f"largest gap to the twin {number(float(gap.max()), '.3f')}; within "
                f"{src['gap']} + {src['gap'].tol} on {close} of {len(gap)} seeds")])


def e1c(t):
    a = _alignment(t)
    other = a[(a.context == "other") & (a.slice >= 1) & (a.optimizer == ROTATED_ADAM.name)]
    src = SOURCE["E1c"]["alignment"]
    return judged([sized(str(src), other.groupby("seed").alignment.mean(), src.region(), ".2f",
                         "slices 1–4, rotated ")])


def e1d(t):
    a = _alignment(t)
    emb = a[(a.context == "difference") & (a.slice == 0)].pivot_table(
        index="seed", columns="optimizer", values="alignment")
    d = (emb["rotated"] - emb["adam"]).dropna()
    return judged([sized("rotated higher", d, (RESOLUTION, INF), ".3f",
                         "at the embedding, rotated minus its twin "),
                   sized(f"by a few hundredths ({SOURCE['E1d']['few']})", d,
                         SOURCE["E1d"]["few"].region(), ".3f")])


# ------------------------------------------------------------------------------ E2
E2A_SOURCE = (SOURCE["E2a"]["rotated"].low, SOURCE["E2a"]["rotated"].high)  # rotated raw removal
E2A_MEDIAN = SOURCE["E2a"]["rotated_median"].value  # its median


def e2a(t):
    rot, sto = _results(t, "rotated"), _results(t, "adam")
    both = pd.concat([rot, sto])
    src = SOURCE["E2a"]
    high = int((both.raw_removal >= src["lowest"].region()[0]).sum())
    return judged([
        sized(f"rotated {src['rotated']}", rot.raw_removal, src["rotated"].region(), ".2f",
              "rotated "),
        counted("high on every run", high, len(both), (src["high"].k, src["high"].n), every,
                f"at least {src['lowest']} − {src['lowest'].tol} on {high} of {len(both)} runs "
                f"(stored {summary(sto.raw_removal)})")])


E2B_LOST = SOURCE["E2b"]["lost"].k  # the source's runs lost by net removal (its figures agree)
# "about a quarter": midway between the source's two groups of rotated controls (0.18)
COS_QUARTER = round((SOURCE["E2c"]["low_group"].value + SOURCE["E2c"]["high_group"].low) / 2, 2)


def e2b(t):
    rot, sto = _results(t, "rotated"), _results(t, "adam")
    lost = rot[~rot.kept.astype(bool)]
    held = int(lost.kept_raw.astype(bool).sum())
    n, drop = SOURCE["E2b"]["lost"].n, SOURCE["E2b"]["stored_drop"]
    return judged([
        _kept_count(rot, f"lost on about {E2B_LOST} of {n}", "kept", (E2B_LOST, n),
                    about_share(E2B_LOST / n, 1 / 8), "lost by net removal on", lost=True),
        counted("the shortfall in the control", held, len(lost), (E2B_LOST, E2B_LOST), every,
                f"raw removal at least half on {held} of the {len(lost)} runs lost by net "
                "removal", unit="lost runs") if len(lost) else
        Part("the shortfall in the control", "no run lost by net removal", NOT_COMPARABLE),
        sized(f"stored controls lose {drop}", sto.control_drop, drop.region(), ".2f",
              "stored controls' drop ")])


def _quarter(t: Tables) -> pd.DataFrame:
    """The rotated controls with their cos(e₁, syntax-holding vector), drop and largest drop on
    another op (the diagnosis study's ``overlap_targets`` beside the results)."""
    o, rot = t.need("diagnosis", "overlap_targets"), _results(t, "rotated")
    o = o[o.optimizer == ROTATED_ADAM.name].merge(
        rot[["control_run", "raw_spill", "control_other_ops"]], left_on="run",
        right_on="control_run")
    return o


def e2c(t):
    o, rel = _quarter(t), t.need("diagnosis", "relation")
    at = o[o.cos_e1_syntax >= COS_QUARTER]
    big = int((at.control_drop >= KEPT_LINE).sum())
    src = SOURCE["E2c"]
    def row(measure):
        rows = rel[(rel.optimizer == ROTATED_ADAM.name) & (rel.measure == measure)
                   & (rel.against == "cos_e1_syntax")]
        return rows.iloc[0] if len(rows) else None

    def r_text(row):
        low, high = relation_interval(float(row.pearson), int(row.n))
        return (f"Pearson r {number(float(row.pearson))} (95% interval {number(low)} to "
                f"{number(high)}, n = {int(row.n)})")

    drop, shortfall = row("control_drop"), row("shortfall")
    # the source's mechanism is the control's own drop; the shortfall (1 − net removal) is shown
    # beside, unjudged: where the anchored run's own raw removal falls short, it measures the run
    beside = "" if shortfall is None else f"; the shortfall in net removal: {r_text(shortfall)}"
    tracks = (Part(f"the control's drop tracks the cosine (r = {src['r']})", "not measured",
                   NOT_COMPARABLE) if drop is None else
              Part(f"the control's drop tracks the cosine (r = {src['r']})",
                   f"{r_text(drop)}{beside}",
                   relation_verdict(float(drop.pearson), int(drop.n), src["r"].value)))
    return judged([
        counted("half or more where the cosine is about a quarter", big, len(at),
                (src["big"].k, src["big"].n), every,
                f"drop at least half on {big} of the {len(at)} rotated controls with cos ≥ "
                f"{COS_QUARTER} (drops {summary(at.control_drop)})", unit="such controls")
        if len(at) else
        Part("half or more where the cosine is about a quarter",
             f"no rotated control with cos ≥ {COS_QUARTER}", NOT_COMPARABLE),
        tracks])


def e2d(t):
    o, sto = _quarter(t), _results(t, "adam")
    src = SOURCE["E2d"]
    other, anchored, stored_max = src["other"], src["anchored"], src["stored"]
    at = o[o.cos_e1_syntax >= COS_QUARTER]
    big = int((at.control_other_ops >= other.region()[0]).sum())
    calm = int((at.raw_spill <= anchored.region()[1]).sum())
    stored = int((sto.control_other_ops <= stored_max.region()[1]).sum())
    seeds = (src["seeds"].k, src["seeds"].n)
    parts = [
        counted("the control loses on another op", big, len(at), seeds, every,
                f"largest other-op drop at least {other.printed[0]} − {other.tol} on {big} of the "
                f"{len(at)} rotated controls with cos ≥ {COS_QUARTER} "
                f"({summary(at.control_other_ops)})", unit="such controls"),
        counted("the anchored run does not", calm, len(at), seeds, every,
                f"the anchored run's raw spill at most {anchored} + {anchored.tol} on {calm} of "
                f"{len(at)}", unit="such controls")]
    if not len(at):  # not comparable either way (a count of none); said in words
        parts = [Part(p.name, f"no rotated control with cos ≥ {COS_QUARTER}", NOT_COMPARABLE)
                 for p in parts]
    return judged(parts + [counted(
        f"stored controls at most {stored_max}", stored, len(sto),
        (src["stored_runs"].k, src["stored_runs"].n), every,
        f"at most {stored_max} + {stored_max.tol} on {stored} of {len(sto)} stored controls "
        f"({summary(sto.control_other_ops)})")])


def e2e(t):
    rot = _results(t, "rotated")
    src = SOURCE["E2e"]
    ok = int((rot.spill <= src["spill"].value).sum())
    return judged([counted(f"every rotated run within {src['spill']}", ok, len(rot),
                           (src["within"].k, src["within"].n), every,
                           f"net spill rotated {summary(rot.spill, '.3f')}; raw spill "
                           f"{summary(rot.raw_spill, '.3f')}; within {src['spill']} on {ok} of "
                           f"{len(rot)} rotated runs")])


def _rotated_size(t, column, figure: Figure, fmt=".2f"):
    rot, sto = _results(t, "rotated"), _results(t, "adam", optional=True)
    part = sized(str(figure), rot[column], figure.region(), fmt, "rotated ")
    stored = "" if sto is None else f"; stored {summary(sto[column], fmt)}"
    return judged([Part(part.name, part.text + stored, part.verdict)])


def e2f(t):
    return _rotated_size(t, "landing", SOURCE["E2f"]["landing"])


def e2g(t):
    return _rotated_size(t, "task_change", SOURCE["E2g"]["change"], ".3f")


def e2h(t):
    r = _results(t, "rotated")
    lost = SOURCE["E2h"]["lost"]
    return judged([_kept_count(r, "none lost", "kept_raw", (lost.k, lost.n), none_of,
                               "below half by raw removal on", lost=True)])


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


T = f"(tolerance ±{SHARE_TOL})"
I = "our median's 95% interval"
_ = SOURCE  # the figures each claim's text quotes, read from the one table
CLAIMS = [
    Claim("P0", "premise", "Plain Adam builds a privileged basis: its controls' energy gathers on "
          "the coordinate axes more than a rotated-Adam twin's, to which those axes are arbitrary.",
          f"plain about {_['P0']['plain']}; rotated runs' coordinate axes "
          f"{_['P0']['axes_median']} ({_['P0']['axes']})",
          f"existence apart from size: {I} of the plain control's top-axis share minus its "
          f"rotated twin's along the same axes, per seed, at least {SHARE_TOL} (the share "
          "tolerance): reproduced; wholly below it: not reproduced; the exact sign test beside",
          p0),
    Claim("P1", "premise", "Plain Adam parks each syntax token's embedding on a coordinate axis.",
          f"largest |cos| with an axis {_['P1']['cos']}", f"one part per syntax token (plain-Adam "
          f"controls): {I} at least {_['P1']['cos'].printed[0]} {T}", p1),
    Claim("P2", "premise", "One coordinate holds about half the stream's energy at the last slice.",
          f"about {_['P2']['share']}", f"{I} (plain-Adam controls' top-axis share) inside "
          f"{_['P2']['share']} ± {_['P2']['share'].tol}", p2),
    Claim("P3", "premise", "A coordinate axis is cheaper to project out than a random direction.",
          f"axis about {_['P3']['axis']}, random {_['P3']['random']} (controls)", "three parts, "
          f"plain-Adam controls: {I} of random minus axis cost, per control, at least "
          f"{RESOLUTION}; {I} of each inside the source's figure ±{_['P3']['axis'].tol}", p3),
    Claim("P4", "premise", "Adam in a rotated basis builds the same structure on the rotated axes.",
          "same structure, rotated", "not comparable where plain Adam builds no privileged basis "
          f"(P0 not reproduced); else two parts: {I} of the rotated "
          f"controls' top rotated minus top axis share at least {SHARE_TOL}; of the rotated minus "
          f"the plain twin's share inside ±{SHARE_TOL}", p4),
    Claim("E1a", "E1", "The anchor holds on every seed under rotated Adam.", str(_["E1a"]["kept"]),
          "the count of rotated falloff runs kept (net removal ≥ 0.5) against "
          f"{_['E1a']['kept']}: Fisher's exact test; reproduced at {_['E1a']['kept']} or more "
          "seeds kept, each run within one standard error of 0.5 counted both ways", e1a),
    Claim("E1b", "E1", f"Alignment at difference's example answers rises to about "
          f"{_['E1b']['alignment']} at slices 3–4, rotated runs on top of their twins.",
          f"about {_['E1b']['alignment']}; largest gap {_['E1b']['gap']}",
          f"two parts: {I} (rotated, slices 3–4) inside {_['E1b']['alignment']} ± "
          f"{_['E1b']['alignment'].tol}; the seeds whose largest gap to the twin is at most "
          f"{_['E1b']['gap']} + {_['E1b']['gap'].tol}, against {_['E1b']['close']}", e1b),
    Claim("E1c", "E1", f"In the other ops' contexts alignment stays near {_['E1c']['alignment']} "
          "from slice 1.", f"about {_['E1c']['alignment']}",
          f"{I} (rotated, slices 1–4) inside {_['E1c']['alignment']} {T}", e1c),
    Claim("E1d", "E1", "At the embedding the rotated runs sit a few hundredths higher.",
          f"{_['E1d']['rotated']} against {_['E1d']['twin']}", "two parts, on the rotated minus "
          f"twin difference per seed: {I} at least {RESOLUTION}; inside {_['E1d']['few']}", e1d),
    Claim("E2a", "E2", f"Raw removal at full dose is about {_['E2a']['rotated'].printed[0]} on "
          f"every run.", f"{_['E2a']['rotated_median']} ({_['E2a']['rotated']}) rotated, "
          f"{_['E2a']['stored_median']} ({_['E2a']['stored']}) stored", f"two parts: {I} "
          f"(rotated) inside {_['E2a']['rotated']} (±{_['E2a']['rotated'].tol}); the runs of "
          f"both arms at least {_['E2a']['lowest']} (−{_['E2a']['lowest'].tol}) against "
          f"{_['E2a']['high']}", e2a),
    Claim("E2b", "E2", f"Net of the control, removal falls short on {_['E2b']['lost']} rotated "
          "seeds; the shortfall sits in the control; stored controls lose about a tenth of the op.",
          f"lost on {_['E2b']['lost']}; raw about {_['E2b']['raw']} on every "
          f"run; stored controls {_['E2b']['stored_drop']}",
          f"three parts: the rotated runs lost by net removal against {_['E2b']['lost']} "
          "(within 1/8, each run within one standard error of 0.5 "
          "counted both ways); of those, raw removal at least half on every one; "
          f"{I} of the stored controls' drop inside {_['E2b']['stored_drop']} "
          f"(±{_['E2b']['stored_drop'].tol})", e2b),
    Claim("E2c", "E2", "The rotated control loses half or more of the op where cos(e₁, the "
          "vector holding its syntax tokens) is about a quarter, and the shortfall in net removal "
          "tracks that cosine.", f"{_['E2c']['drop']}; half or more on the "
          f"{_['E2c']['big'].n} seeds at {_['E2c']['high_group']}; r = {_['E2c']['r']}",
          f"two parts: the rotated controls with cos ≥ {COS_QUARTER} (midway between the "
          "source's two groups) dropping at least half, against "
          f"{_['E2c']['big']} (Fisher's exact test and our share's interval); Pearson r of the "
          "control's own drop against the cosine (the source's mechanism; the diagnosis study's "
          "relation): reproduced if its Fisher-z 95% interval lies above 0 and holds "
          f"{_['E2c']['r']}, not if it excludes {_['E2c']['r']}; the shortfall's r beside", e2c),
    Claim("E2d", "E2", "On those seeds the rotated control loses on other ops too, the anchored "
          f"run does not, and stored controls lose at most {_['E2d']['stored']} on any other op.",
          f"up to {_['E2d']['other_median']} ({_['E2d']['other']}); anchored at most "
          f"{_['E2d']['anchored']}; stored at most {_['E2d']['stored']}",
          f"three parts, each a count against the source's (every one): the rotated controls "
          f"with cos ≥ {COS_QUARTER} whose largest other-op drop is at least "
          f"{_['E2d']['other'].printed[0]} (−{_['E2d']['other'].tol}); their anchored runs' raw "
          f"spill at most {_['E2d']['anchored']} (+{_['E2d']['anchored'].tol}); the stored "
          f"controls' largest other-op drop at most {_['E2d']['stored']} "
          f"(+{_['E2d']['stored'].tol})", e2d),
    Claim("E2e", "E2", f"Every rotated run is within the {_['E2e']['spill']} spill criterion.",
          f"net spill {_['E2e']['net']} ({_['E2e']['net_range']}); raw {_['E2e']['raw']}",
          f"the rotated runs with spill at most {_['E2e']['spill']} against "
          f"{_['E2e']['within']} (Fisher's exact test)", e2e),
    Claim("E2f", "E2", "About half of the edited difference answers land on another op.",
          f"{_['E2f']['median']} ({_['E2f']['landing']}) rotated, {_['E2f']['stored']} stored",
          f"{I} (rotated) inside {_['E2f']['landing']} (±{_['E2f']['landing'].tol})", e2f),
    Claim("E2g", "E2", "The recipe barely changes the task's clean scores.",
          f"{_['E2g']['median']} ({_['E2g']['change']})",
          f"{I} (rotated) inside {_['E2g']['change']} (±{_['E2g']['change'].tol})", e2g),
    Claim("E2h", "E2", "By raw removal no rotated run lost the anchor.",
          f"{_['E2h']['lost'].k} below half", "the rotated falloff runs with raw removal below "
          f"0.5 against {_['E2h']['lost']} (Fisher's exact test), each run within one standard "
          "error of 0.5 counted both ways", e2h),
    Claim("E3a", "E3", "Under rotated Adam one rotated direction holds about half the energy; the "
          "coordinate axes stay flat.", f"{_['E3a']['rotated_median']} ({_['E3a']['rotated']}); "
          f"axes {_['E3a']['axes_median']} ({_['E3a']['axes']})",
          f"two parts (rotated controls): {I} of the top rotated share inside "
          f"{_['E3a']['rotated']} {T}; of the top axis share inside {_['E3a']['axes']} {T}, not "
          "comparable where plain Adam builds no privileged basis (P0 not reproduced)", e3a),
    Claim("E3b", "E3", "Kurtosis reverses: near 3 along the axes, above it along the rotated "
          "basis, the opposite of the stored runs.", f"axes {_['E3b']['axes_median']} "
          f"({_['E3b']['axes']}), rotated {_['E3b']['rotated_median']} ({_['E3b']['rotated']})",
          f"four parts: {I} of the paired difference at least {KURTOSIS_TOL}, rotated controls "
          "(rotated basis above axes) and plain controls (axes above rotated basis); the rotated "
          f"controls' medians inside the source's ranges (±{_['E3b']['axes'].tol})", e3b),
    Claim("E3c", "E3", "Syntax embeddings lie along a rotated basis vector, on most seeds the "
          "spike's.", f"|cos| {_['E3c']['cos_median']} ({_['E3c']['cos']}); about a third "
          "(chance) with the axes",
          f"two parts: {I} of each rotated control's mean |cos| over the four tokens at least "
          f"{_['E3c']['cos'].printed[0]} {T}, the chance levels beside; the controls whose "
          "syntax-holding vector is the top-energy direction against "
          f"{_['E3c']['most']} (the fewest that is most), reproduced on more than half", e3c),
    Claim("E3d", "E3", "Falloff's spike sits on another rotated axis than its control's on some "
          "seeds.", str(_["E3d"]["moved"]), "not comparable unless at least half the seeds have "
          f"a spike in both runs; then the count against {_['E3d']['moved']} (Fisher's exact "
          f"test), reproduced within 1/8 of {_['E3d']['moved'].k}/{_['E3d']['moved'].n} on "
          f"{_['E3d']['moved'].n} seeds or more", e3d),
    Claim("E3e", "E3", "In rotated controls the rotated axes off the spike are the cheap "
          "directions, and the spike's axis is costly.", f"axes {_['E3e']['axes']}, rotated "
          f"off-spike {_['E3e']['off']}, spike {_['E3e']['spike']}", f"two parts: {I} of the "
          f"spike's axis cost inside {_['E3e']['spike']} ± {_['E3e']['spike'].tol}; of the "
          f"coordinate axes minus the rotated axes off the spike, per control, at least "
          f"{RESOLUTION}", e3e),
    Claim("E3e′", "E3", "In falloff e₁ costs about 0.1 on every seed.",
          f"{_['E3e′']['median']} ({_['E3e′']['e1']})", "the rotated falloff runs whose e₁ cost "
          f"lies inside {_['E3e′']['e1']} (±{_['E3e′']['e1'].tol}) against "
          f"{_['E3e′']['every']} (Fisher's exact test)", e3e_e1),
    Claim("L1", "later", "Under plain Adam too, falloff's spike moves on some seeds.",
          str(_["L1"]["moved"]), "not comparable unless at least half the seeds have a spike in "
          f"both runs; then the count against {_['L1']['moved']} (Fisher's exact test), "
          f"reproduced within 1/8 of {_['L1']['moved'].k}/{_['L1']['moved'].n} on "
          f"{_['L1']['moved'].n} seeds or more", l1),
    Claim("S1", "scope", f"The loss rate is near 1 in {_['S1']['rate'].printed.split('/')[1]}, "
          f"with an upper bound near 1 in {_['S1']['bound'].printed.split('/')[1]}.",
          f"about {_['S1']['rate']} (up to {_['S1']['bound']})", f"not reproduced if "
          f"{_['S1']['rate']} lies outside our exact 95% interval; reproduced if inside and the "
          f"interval's top is at most {_['S1']['bound']}", s1),
]


# each claim's short name, in words, for the pictures that show every claim at once (the lead
# picture labels its rows with them; the id stays beside as the key to the ledger's table)
NAMES = {
    "P0": "a privileged basis forms", "P1": "syntax tokens on axes", "P2": "one axis holds half",
    "P3": "an axis is cheap to remove", "P4": "rotated Adam mirrors it",
    "E1a": "the anchor holds", "E1b": "alignment rises late", "E1c": "other ops stay low",
    "E1d": "rotated higher at embedding", "E2a": "removal near complete",
    "E2b": "shortfall in the control", "E2c": "the cosine drives the loss",
    "E2d": "control loses other ops", "E2e": "spill within criterion",
    "E2f": "half land on another op", "E2g": "task scores unchanged",
    "E2h": "no run lost (raw)", "E3a": "a rotated axis holds half", "E3b": "kurtosis reverses",
    "E3c": "syntax on a rotated axis", "E3d": "falloff's spike moves",
    "E3e": "the spike's axis is costly", "E3e′": "e₁ costs about a tenth",
    "L1": "plain spikes move too", "S1": "the loss rate",
}


def margins_text(claim: str) -> str:
    """The equivalence margins a claim's sizes carry (``SOURCE``), as the rule's last clause."""
    m = sorted({f.margin for f in SOURCE.get(claim, {}).values()
                if isinstance(f, Figure) and f.margin > 0})
    if not m:
        return ""
    return f"; equivalence margin ±{' and ±'.join(f'{v:g}' for v in m)}"


def judge(claim: Claim, t: Tables) -> tuple[str, str]:
    """Our figure and the verdict of one claim on the tables ``t``; a table its rule needs that
    is not committed makes the claim not comparable (said once here, for every rule)."""
    try:
        return claim.ours(t)
    except Missing:
        return _missing()


def ledger(where, regime: str = "weak basis") -> pd.DataFrame:
    """One row per claim: id, section, claim, the source's figure, the rule, and for the regime
    whose tables are in ``where``: our figure and the verdict."""
    t = Tables(where)
    rows = []
    for c in CLAIMS:
        ours, verdict = judge(c, t)
        assert verdict in VERDICTS, (c.id, verdict)
        rows.append({"id": c.id, "name": NAMES[c.id], "section": c.section, "claim": c.claim,
                     "source": c.source,
                     "rule": c.rule + margins_text(c.id), "regime": regime, "ours": ours,
                     "verdict": verdict})
    return pd.DataFrame(rows)


class Without(Tables):
    """A regime's tables with one seed's rows left out of every table that has a ``seed`` column
    (the leave-one-out check of ``pivotal``); read from the same folders, checked once."""

    def __init__(self, tables: Tables, seed: int):
        self.base, self.seed = tables, seed

    def get(self, study: str, table: str) -> pd.DataFrame | None:
        got = self.base.get(study, table)
        if got is None or "seed" not in got.columns:
            return got
        return got[got.seed != self.seed]


def source_runs(claim_id: str) -> int:
    """The most runs any count of the source's for this claim is out of (0: it has none): a count
    rule needs at least as many of ours, so leaving a seed out tests the claim fairly only where
    more than this remain."""
    return max((f.n for f in SOURCE.get(claim_id, {}).values() if isinstance(f, Count)),
               default=0)


def pivotal(where, seeds) -> pd.DataFrame:
    """Where one seed decides a verdict: each claim whose verdict changes when one seed's runs
    are left out of every table (``Without``), with that seed and the verdict without it; a claim
    whose source counts are out of as many runs as would remain is not checked (``checked``
    False: every count would change with n alone)."""
    seeds = sorted(seeds)
    t = where if isinstance(where, Tables) else Tables(where)
    rows = []
    for c in CLAIMS:
        verdict = judge(c, t)[1]
        if source_runs(c.id) > len(seeds) - 1:
            rows.append({"id": c.id, "checked": False, "seed": None, "verdict": verdict,
                         "without": None})
            continue
        for s in seeds:
            v = judge(c, Without(t, s))[1]
            if v != verdict:
                rows.append({"id": c.id, "checked": True, "seed": s, "verdict": verdict,
                             "without": v})
    return pd.DataFrame(rows, columns=["id", "checked", "seed", "verdict", "without"])


def pivotal_text(table: pd.DataFrame, seeds: int) -> str:
    """``pivotal`` in words for a page: the claims one seed decides, with the seeds and the
    verdict without each; how many were checked, and why the rest were not."""
    unchecked = table[~table.checked.astype(bool)].id.tolist()
    changed = table[table.checked.astype(bool)]
    checked = len(CLAIMS) - len(unchecked)
    def seeds_text(s):
        s = [str(int(x)) for x in s]
        return s[0] if len(s) == 1 else ", ".join(s[:-1]) + " or " + s[-1]

    said = [f"{cid} ({rows.verdict.iloc[0]}; "
            + "; ".join(f"without seed {seeds_text(w.seed)}: {v}"
                        for v, w in rows.groupby("without", sort=False)) + ")"
            for cid, rows in changed.groupby("id", sort=False)]
    text = (f"of the {checked} claims checked, {len(said)} change their verdict when one of the "
            f"{seeds} seeds is left out" + (": " + "; ".join(said) if said else ""))
    if unchecked:
        text += (f" ({', '.join(unchecked)} not checked: the source's counts there are out of "
                 f"{seeds} runs or more, which leaving one out would fall below)")
    return text


def pivotal_texts(reports_dir, regimes) -> dict:
    """``pivotal_text`` for each regime, at the seeds of its committed rotated-basis results."""
    out = {}
    for r in regimes:
        seeds = read_tables(r.reports(reports_dir) / "rotated-basis")["results"].seed.unique()
        out[r] = pivotal_text(pivotal(r.reports(reports_dir), seeds), len(seeds))
    return out


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


def _seed_count(r) -> int:
    from anchorkit.studies import PAPER_SEEDS  # the report study's default seeds
    return len(r.seeds) if r.seeds else len(PAPER_SEEDS)


def more_seeds_text(table: pd.DataFrame) -> str:
    """For each regime of the ledger whose runs share an earlier regime's settings at more seeds
    (the recalibrated column beside the second regime: the same model and training, its own
    recipe, 16 seeds against 8), which of the earlier regime's claims that cannot be decided are
    decided there, with the verdict, and which stay undecided; "" where no such pair is shown."""
    from anchorkit.regimes import regime as named

    shown = [named(n) for n in dict.fromkeys(table.regime)]
    out = []
    for i, later in enumerate(shown):
        for earlier in shown[:i]:
            if earlier.changes != later.changes or _seed_count(later) <= _seed_count(earlier):
                continue
            before = table[table.regime == earlier.name].set_index("id").verdict
            after = table[table.regime == later.name].set_index("id").verdict
            open_ids = [c for c in before.index if before[c] == UNDECIDED]
            decided = [f"{c} ({after[c]})" for c in open_ids
                       if after.get(c) in (REPRODUCED, NOT_REPRODUCED)]
            apart = [c for c in open_ids if after.get(c) == NOT_COMPARABLE]
            still = [c for c in open_ids if after.get(c, UNDECIDED) == UNDECIDED]
            cannot = (f"; {', '.join(apart)} cannot be compared there (not a decision)"
                      if apart else "")
            out.append(
                f"Of the {len(open_ids)} claims the {earlier.title} cannot decide at "
                f"{_seed_count(earlier)} seeds, the {later.title} decides {len(decided)} at "
                f"{_seed_count(later)}: {', '.join(decided) or 'none'}; "
                f"{len(still)} {'stays' if len(still) == 1 else 'stay'} undecided "
                f"({', '.join(still) or 'none'}){cannot}. Its falloff runs "
                f"train another recipe ({', '.join(later.recipes.values())}) and its controls are "
                f"the {earlier.title}'s with {_seed_count(later) - _seed_count(earlier)} more "
                f"seeds, so a claim decided there is decided for that column, not for the "
                f"{earlier.title}'s runs.")
    return " ".join(out)


SECTIONS = (("premise", "Premise: the privileged basis under plain Adam"),
            ("E1", "E1: does the anchor hold?"), ("E2", "E2: removal, spill and landing"),
            ("E3", "E3: where the privileged basis went"), ("later", "A later finding"),
            ("scope", "Scope"))


def section_tables(wide: pd.DataFrame) -> list[tuple[str, str]]:
    """The side-by-side ledger (``side_by_side``) as one HTML table per section of claims, with
    its title. A claim's row holds the claim (its id first, the rule for its verdict beneath), the
    source's figure, and one cell per regime with the verdict above our figure, so that a regime
    added to the report adds one column, not two; every cell carries its column's name
    (``data-label``), which a phone's layout shows where it stacks a row's cells."""
    regimes = [col[len("verdict ("):-1] for col in wide.columns if col.startswith("verdict (")]
    labels = ("claim", "the source's figure", *regimes)
    head = "".join(f"<th>{html.escape(h)}</th>" for h in labels)
    out = []
    for section, title in SECTIONS:
        body = []
        for _, row in wide[wide.section == section].iterrows():
            claim = (f"<strong>{html.escape(row.id)}</strong> {html.escape(row.claim)}"
                     f'<span class="ledger-rule">Rule: {html.escape(row.rule)}</span>')
            cells = [claim, html.escape(row.source)] + [
                f'<span class="ledger-verdict">{html.escape(row[f"verdict ({r})"])}</span>'
                f'{html.escape(row[f"ours ({r})"])}' if isinstance(row[f"verdict ({r})"], str)
                else "" for r in regimes]
            body.append("<tr>" + "".join(f'<td data-label="{html.escape(label)}">{c}</td>'
                                         for label, c in zip(labels, cells)) + "</tr>")
        out.append((title, f'<table class="ledger"><thead><tr style="text-align: left;">{head}'
                           f'</tr></thead><tbody>{"".join(body)}</tbody></table>'))
    return out


def regimes_ledger(reports_dir) -> pd.DataFrame:
    """The ledger of every regime on the report (``regimes.REPORT``, in its order) whose
    rotated-basis tables are committed under ``reports_dir`` (``Regime.reports``); the first, the
    regime the method was calibrated in, always (``regime`` names each row's)."""
    first, *others = REPORT
    tables = [ledger(first.reports(reports_dir), first.name)]
    for r in others:
        if has_tables(r.reports(reports_dir) / "rotated-basis"):
            tables.append(ledger(r.reports(reports_dir), r.name))
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
