"""Verdicts that carry their uncertainty: how the ledger's rules compare what our seeds can say
with what a claim of the source report says.

Every rule ends in one of four verdicts: **reproduced**, **not reproduced**, **cannot be decided
at this number of seeds** (our interval straddles the claim's boundary, or our count is not
decisive either way) and **not comparable** (our runs cannot answer the claim). Three kinds of
claim, three comparisons:

- **A size** (a median, a range, "about x"): our median over seeds with its exact,
  distribution-free 95% interval (``median_interval``: the order statistics x₍ⱼ₎ and x₍ₙ₊₁₋ⱼ₎
  for the largest j whose coverage 1 − 2·P(Binomial(n, ½) < j) is at least 95%: at 8 seeds the
  whole range, at 16 the 4th to the 13th value; under 6 seeds no such interval exists and a size
  cannot be decided) against the region the claim allows: the source's range (or "about x"'s
  x) widened by the claim's tolerance. Inside: reproduced; no overlap: not reproduced; straddling
  a boundary: cannot be decided. An ordering of two quantities is a size of their paired
  difference, seed by seed, against "at least the resolution".
- **A count** ("8 of 8", "none", "3 of 8"): Fisher's exact test (two-sided, 5%) of our count
  against the source's, and our share's exact (Clopper–Pearson) 95% interval against the shares
  the claim allows (``Claimed.allows``: "every seed" allows 7 of 8 or more, "none" 1 of 8 or
  fewer, "about s" s ± its tolerance, "most" more than half; ``COUNT_TOL`` is the one seed in
  eight). Either excluding: not reproduced (the second decides where the source's denominator is
  too small for Fisher's test to reject: against 2 of 2 no count of ours can differ, but 0 of 2
  lies outside what "every" allows). Our share's interval inside what the claim allows:
  reproduced (added 2026-12-05, after every regime's tables were read; it changed no verdict
  of them: it lets a share near the claim, 15 of 16 against "every seed", be decided by enough
  seeds). Otherwise reproduced when our count says what the claim says on at least as many
  seeds as the source had, else cannot be decided; an undecided count carries the seeds that
  would decide it at the share seen (``count_seeds_needed``). A run whose measure
  lies within one standard error of the line that classifies it is counted both ways; when the
  two counts give different verdicts, the claim cannot be decided.
- **A relation** (Pearson r across seeds): our r with its Fisher-z 95% interval. Excluding the
  source's r: not reproduced; above zero and containing it: reproduced; else cannot be decided.

A size claim whose region has two bounds carries an **equivalence margin** (``Region.margin``,
stated per claim in ``ledger.SOURCE`` before the recalibrated column's tables were read): values
within the margin of a bound are not told apart. An interval that straddles a bound is reproduced
when it lies inside the region widened by the margin, not reproduced when it misses the region
narrowed by it, and when it does both (it lies within the margin of the bound) the median's side
decides; the text says when the margin was needed. Without a margin a median on a bound is
decided by no number of seeds; with one, every interval narrower than the margin is decided.

A size that cannot be decided carries the seeds that would decide it (``seeds_needed``: the
median's large-sample error set against the distance to the region's nearer bound, plus the
margin where there is one, a rough guide that assumes the spread stays as seen; no number of
seeds when the median sits on a bound without a margin).

A claim of several named parts is reproduced when every part is, not reproduced when any part is
not, cannot be decided when a part cannot (and none failed), and not comparable when a part is not
comparable and the rest hold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy.stats import beta, binom, fisher_exact, norm

REPRODUCED, NOT_REPRODUCED, UNDECIDED, NOT_COMPARABLE = (
    "reproduced", "not reproduced", "cannot be decided at this number of seeds", "not comparable")
VERDICTS = (REPRODUCED, NOT_REPRODUCED, UNDECIDED, NOT_COMPARABLE)
CONFIDENCE = 0.95
INF = math.inf
COUNT_TOL = 1 / 8  # a count's tolerance: one seed in eight


def median_interval(values, confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """Our median and its exact order-statistic interval (low, high) at ``confidence``; the
    interval is (−∞, ∞) when too few values exist for one (under 6 at 95%). NaNs are dropped."""
    x = np.sort(np.asarray(values, float))
    x = x[np.isfinite(x)]
    n = len(x)
    if n == 0:
        return math.nan, -INF, INF
    med = float(np.median(x))
    j = 0
    while j + 1 <= n // 2 and 2 * binom.cdf(j, n, 0.5) <= 1 - confidence:
        j += 1  # coverage of [x(j+1), x(n−j)] is 1 − 2·P(B ≤ j)
    if j == 0:
        return med, -INF, INF
    return med, float(x[j - 1]), float(x[n - j])


class Region(tuple):
    """What a size claim allows, ``(low, high)`` (bounds included), with its **equivalence
    margin** (``margin``, 0 for none): the distance from a bound within which two values are not
    told apart. A plain ``(low, high)`` tuple is a region without a margin."""

    margin: float

    def __new__(cls, low: float, high: float, margin: float = 0.0):
        if margin < 0:
            raise ValueError(f"margin {margin}: expected at least 0")
        r = super().__new__(cls, (low, high))
        r.margin = float(margin)
        return r


def margin_of(region) -> float:
    return getattr(region, "margin", 0.0)


def size_verdict(low: float, high: float, region: tuple[float, float], median: float) -> str:
    """An interval (low, high) with its median against the region a claim allows (bounds
    included) and the region's equivalence margin m. Inside the region: reproduced; missing it:
    not reproduced. Otherwise it straddles a bound: inside the region widened by m and missing
    the region narrowed by m (the interval lies within m of the bound), the median's side of the
    bound decides; inside the widened region only, reproduced; missing the narrowed region only,
    not reproduced; neither, cannot be decided. Without a margin a straddling interval cannot be
    decided, and a median on a bound is decided by no number of seeds; with one, every interval
    narrower than m is decided."""
    lo, hi = region
    m = margin_of(region)
    inner_lo, inner_hi = lo + m, hi - m                # the region narrowed by m (a region
    if inner_lo > inner_hi:                            # narrower than 2m: its midpoint)
        inner_lo = inner_hi = (lo + hi) / 2
    within = lo - m <= low and high <= hi + m          # inside the widened region
    apart = high < inner_lo or low > inner_hi          # misses the narrowed region
    if within and apart:
        return REPRODUCED if lo <= median <= hi else NOT_REPRODUCED
    if within:
        return REPRODUCED
    if apart:
        return NOT_REPRODUCED
    return UNDECIDED


def margin_case(low: float, high: float, region) -> str | None:
    """How the margin entered a decided verdict: ``"within"`` (the interval passes a bound by
    less than the margin), ``"apart"`` (it reaches into the region by less than the margin),
    ``"both"`` (it lies within the margin of a bound: the median's side decided), or None (the
    margin was not needed, or the verdict is undecided)."""
    lo, hi = region
    if margin_of(region) == 0 or (lo <= low and high <= hi) or high < lo or low > hi:
        return None
    verdict_within = size_verdict(low, high, region, lo)   # the median inside,
    verdict_outside = size_verdict(low, high, region, -INF)  # and outside the region
    if verdict_within != verdict_outside:
        return "both"
    return {REPRODUCED: "within", NOT_REPRODUCED: "apart"}.get(verdict_within)


def size(values, region: tuple[float, float]) -> tuple[float, float, float, str]:
    """Median, interval and verdict of a size claim."""
    med, low, high = median_interval(values)
    if math.isnan(med):
        return med, low, high, NOT_COMPARABLE
    return med, low, high, size_verdict(low, high, region, med)


@dataclass(frozen=True)
class Claimed:
    """What a count claim says: ``says(k, n)``, its statement of our count, and ``allows``, the
    shares of units at which it could still be true (bounds included; ``above``: the low bound
    excluded)."""

    says: Callable[[int, int], bool]
    allows: tuple[float, float] = (0.0, 1.0)
    above: bool = False

    def __call__(self, k: int, n: int) -> bool:
        return self.says(k, n)

    def excludes(self, k: int, n: int, confidence: float = CONFIDENCE) -> bool:
        """Whether our share's exact interval lies outside what the claim allows."""
        low, high = share_interval(k, n, confidence)
        lo, hi = self.allows
        return high < lo or (self.above and high <= lo) or low > hi

    def within(self, k: int, n: int, confidence: float = CONFIDENCE) -> bool:
        """Whether our share's exact interval lies inside what the claim allows (the count's
        equivalence: 15 of 16 seeds never say "every" seed, but enough seeds at that share lie
        within the one seed in eight "every" allows)."""
        low, high = share_interval(k, n, confidence)
        lo, hi = self.allows
        return (low > lo if self.above else low >= lo) and high <= hi


def share_interval(k: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The exact (Clopper–Pearson) interval of a share k of n."""
    a = (1 - confidence) / 2
    low = 0.0 if k == 0 else float(beta.ppf(a, k, n - k + 1))
    high = 1.0 if k == n else float(beta.ppf(1 - a, k + 1, n - k))
    return low, high


def _count_at(k: int, n: int, source: tuple[int, int], says: Callable[[int, int], bool]) -> str:
    sk, sn = source
    if fisher_exact([[k, n - k], [sk, sn - sk]]).pvalue < 1 - CONFIDENCE:
        return NOT_REPRODUCED
    if isinstance(says, Claimed) and says.excludes(k, n):
        return NOT_REPRODUCED
    if isinstance(says, Claimed) and says.within(k, n):
        return REPRODUCED
    return REPRODUCED if says(k, n) and n >= sn else UNDECIDED


def count_seeds_needed(k: int, n: int, source: tuple[int, int], says: Callable[[int, int], bool],
                       most: int = 1000) -> float | None:
    """About how many seeds would decide a count that cannot be decided, were our share to stay
    k/n: the fewest N > n (up to ``most``) at which round(N·k/n) of N gets a decided verdict
    (``count_verdict``); ``math.inf`` when none up to ``most`` does (the share sits on what the
    claim allows), None when n is 0. A rough guide, as ``seeds_needed`` is for a size."""
    if n == 0:
        return None
    for big in range(n + 1, most + 1):
        if count_verdict(round(big * k / n), big, source, says) != UNDECIDED:
            return big
    return INF


def count_verdict(k: int, n: int, source: tuple[int, int], says: Callable[[int, int], bool],
                  down: int = 0, up: int = 0) -> str:
    """A count k of n against the source's (k, n). ``says(k, n)`` is the claim's own statement at
    its tolerance (a ``Claimed`` adds the shares it allows). ``down`` of the k counted and ``up``
    of the others lie within one standard error of the classifying line: every count from
    k − down to k + up is judged, and when they disagree the claim cannot be decided."""
    if n == 0:
        return NOT_COMPARABLE
    verdicts = {_count_at(i, n, source, says) for i in range(k - down, k + up + 1)}
    return verdicts.pop() if len(verdicts) == 1 else UNDECIDED


every = Claimed(lambda k, n: k == n, (1 - COUNT_TOL, 1.0))
none_of = Claimed(lambda k, n: k == 0, (0.0, COUNT_TOL))
most = Claimed(lambda k, n: k > n / 2, (0.5, 1.0), above=True)


def about_share(share: float, tolerance: float = COUNT_TOL) -> Claimed:
    """A claim "about share of the seeds", within ``tolerance`` of the share."""
    return Claimed(lambda k, n: abs(k / n - share) <= tolerance + 1e-12,
                   (share - tolerance, share + tolerance))


def seeds_needed(values, region: tuple[float, float], confidence: float = CONFIDENCE
                 ) -> float | None:
    """About how many seeds a size's interval would need to decide, were the values to keep the
    median and spread seen: the median's large-sample standard error, 1.2533·σ/√n (σ from the
    interquartile range, IQR/1.349, robust to one outlier), set so that the interval's half-width
    fits between the median and the region's nearer (finite) bound. ``math.inf`` when the median
    sits on a bound (no number of seeds decides it), None when fewer than 4 values exist; at
    least one more than seen (the seeds seen did not decide). A rough guide, not a rule: it
    assumes the spread stays as seen."""
    x = np.asarray(values, float)
    x = x[np.isfinite(x)]
    if len(x) < 4:
        return None
    med = float(np.median(x))
    gaps = [abs(med - b) for b in region if math.isfinite(b)]
    if not gaps:
        return None
    m = margin_of(region)
    if m > 0:  # decided once the half-width fits within m beyond the median's distance to a bound
        gaps = [g + m for g in gaps]
    if min(gaps) < 1e-9:
        return INF
    sigma = float(np.subtract(*np.percentile(x, [75, 25]))) / 1.349
    z = float(norm.ppf(0.5 + confidence / 2))
    return max(len(x) + 1, math.ceil((z * 1.2533 * sigma / min(gaps)) ** 2))


def relation_interval(r: float, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Fisher-z interval of a Pearson r over n pairs ((−1, 1) when n < 4 or r undefined)."""
    if n < 4 or not np.isfinite(r):
        return -1.0, 1.0
    half = norm.ppf(0.5 + confidence / 2) / math.sqrt(n - 3)
    z = math.atanh(max(min(r, 1 - 1e-12), -1 + 1e-12))
    return math.tanh(z - half), math.tanh(z + half)


def relation_verdict(r: float, n: int, source_r: float) -> str:
    if n < 4 or not np.isfinite(r):
        return NOT_COMPARABLE
    low, high = relation_interval(r, n)
    if not low <= source_r <= high:
        return NOT_REPRODUCED
    return REPRODUCED if low > 0 else UNDECIDED


def combine(parts: dict[str, str]) -> str:
    """The verdict of a claim of named parts (see the module's docstring)."""
    got = set(parts.values())
    for v in (NOT_REPRODUCED, UNDECIDED, NOT_COMPARABLE):
        if v in got:
            return v
    return REPRODUCED
