"""The values and pieces the ledger's rules are made of: the tolerances, the source's figures
(``SOURCE``, one table), a claim's part, the tables a rule reads, and the sized, counted and
paired helpers every reader shares (``anchorkit.judging.ledger``'s docstring states the rules).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from anchorkit.measures import criteria
from anchorkit.engine.formatting import number
from anchorkit.measures.measure import OVER_REMOVAL_Z, chance_cos
from anchorkit.engine.provenance import has_tables, read_tables
from anchorkit.measures.verdicts import (NOT_COMPARABLE, UNDECIDED, combine, count_verdict, seeds_needed,
                                         size, count_seeds_needed, Region,
                                         margin_case)


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


# the source's figures the pages quote beside ours (E1b, E2a)
E1B_SOURCE = SOURCE["E1b"]["alignment"].value  # the source's alignment at slices 3–4 (rotated)
E2A_SOURCE = (SOURCE["E2a"]["rotated"].low, SOURCE["E2a"]["rotated"].high)  # rotated raw removal
E2A_MEDIAN = SOURCE["E2a"]["rotated_median"].value  # its median


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
