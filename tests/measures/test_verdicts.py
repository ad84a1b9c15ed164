"""The interval rules every ledger verdict follows, on constructed cases whose answer is known by
hand: each comparison gives each of its verdicts, and the median's interval covers as it says."""

import math

import numpy as np
import pytest
from scipy.stats import binom

from anchorkit.measures import verdicts as v

INF = math.inf
R, N, U, NC = v.REPRODUCED, v.NOT_REPRODUCED, v.UNDECIDED, v.NOT_COMPARABLE


def test_the_median_interval_is_the_range_at_8_seeds_and_the_4th_to_13th_value_at_16():
    x = [5, 1, 7, 3, 2, 8, 6, 4]
    assert v.median_interval(x) == (4.5, 1.0, 8.0)
    y = list(range(1, 17))
    assert v.median_interval(y)[1:] == (4.0, 13.0)
    # the coverage each claims, exactly: [x(j), x(n+1-j)] covers the median with 1 - 2 P(B < j)
    assert 1 - 2 * binom.cdf(0, 8, 0.5) >= 0.95 > 1 - 2 * binom.cdf(1, 8, 0.5)
    assert 1 - 2 * binom.cdf(3, 16, 0.5) >= 0.95 > 1 - 2 * binom.cdf(4, 16, 0.5)


def test_under_six_seeds_there_is_no_95_percent_interval_and_nans_are_dropped():
    assert v.median_interval([1, 2, 3, 4, 5])[1:] == (-math.inf, math.inf)
    assert v.median_interval([1, 2, 3, 4, 5, 6])[1:] == (1.0, 6.0)
    assert v.median_interval([1, 2, 3, 4, 5, 6, np.nan])[1:] == (1.0, 6.0)
    assert math.isnan(v.median_interval([])[0])


def test_the_median_interval_covers_at_least_95_percent_of_the_time():
    rng = np.random.default_rng(0)
    draws = rng.lognormal(size=(4000, 8))  # a skewed distribution with median 1
    low, high = np.sort(draws, 1)[:, 0], np.sort(draws, 1)[:, -1]
    assert ((low <= 1) & (1 <= high)).mean() >= 0.95


@pytest.mark.parametrize("interval, expected", [
    ((0.45, 0.55), R), ((0.4, 0.6), R), ((0.61, 0.7), N), ((0.1, 0.39), N), ((0.3, 0.5), U),
    ((0.5, 0.9), U), ((0.1, 0.9), U)])
def test_a_size_is_judged_by_where_its_interval_lies(interval, expected):
    for median in (interval[0], sum(interval) / 2, interval[1]):  # without a margin it never counts
        assert v.size_verdict(*interval, (0.4, 0.6), median) == expected
        assert v.size_verdict(*interval, v.Region(0.4, 0.6), median) == expected


# the region 0.4-0.6 with the equivalence margin 0.05: widened 0.35-0.65, narrowed 0.45-0.55
@pytest.mark.parametrize("interval, median, expected, case", [
    ((0.45, 0.55), 0.5, R, None),       # inside: the margin is not needed
    ((0.1, 0.3), 0.2, N, None),         # missing the region
    ((0.37, 0.5), 0.45, R, "within"),   # passes the bound 0.4 by less than the margin
    ((0.30, 0.43), 0.36, N, "apart"),   # reaches into the region by less than the margin
    ((0.38, 0.43), 0.41, R, "both"),    # within the margin of the bound: the median's side
    ((0.37, 0.42), 0.39, N, "both"),
    ((0.2, 0.5), 0.35, U, None),        # from beyond the widened bound into the narrowed region
    ((0.1, 0.9), 0.5, U, None)])
def test_an_equivalence_margin_gives_every_verdict_and_says_when_it_was_needed(
        interval, median, expected, case):
    region = v.Region(0.4, 0.6, 0.05)
    assert v.size_verdict(*interval, region, median) == expected
    assert v.margin_case(*interval, region) == case


def test_a_median_on_a_bound_is_decided_with_a_margin_and_never_without():
    rng = np.random.default_rng(1)
    for n in (64, 256):
        x = 0.4 + rng.normal(0, 0.02, n)  # a true median on the bound 0.4
        _, low, high, plain = v.size(x, (0.4, 0.6))
        assert plain == U and low < 0.4 < high
        assert v.size(x, v.Region(0.4, 0.6, 0.05))[-1] in (R, N)
    x = [0.38, 0.39, 0.395, 0.4, 0.4, 0.405, 0.41, 0.42]
    assert v.seeds_needed(x, (0.4, 0.6)) == INF
    assert math.isfinite(v.seeds_needed(x, v.Region(0.4, 0.6, 0.05)))


def test_a_region_narrower_than_twice_its_margin_still_leaves_wide_intervals_undecided():
    region = v.Region(0.5, 0.52, 0.05)  # narrowed, it is its midpoint 0.51
    assert v.size_verdict(0.2, 0.9, region, 0.51) == U
    assert v.size_verdict(0.49, 0.53, region, 0.51) == R
    assert v.size_verdict(0.3, 0.5, region, 0.45) == N  # misses the midpoint, reaches the region
    with pytest.raises(ValueError, match="margin"):
        v.Region(0, 1, -0.1)


def test_a_size_with_too_few_seeds_cannot_be_decided_and_without_values_is_not_comparable():
    assert v.size([0.5] * 4, (0.4, 0.6))[-1] == U
    assert v.size([], (0.4, 0.6))[-1] == NC
    assert v.size([0.5] * 8, (0.4, 0.6))[-1] == R


@pytest.mark.parametrize("k, n, expected", [
    (8, 8, R),  # the source's count
    (3, 8, N),  # Fisher's p = 0.026 against 8 of 8
    (6, 8, U),  # p = 0.47: 8 seeds cannot tell 6 of 8 from 8 of 8
    (4, 4, U),  # every seed, but fewer seeds than the source had
    (0, 0, NC)])
def test_a_count_against_every_seed_gives_every_verdict(k, n, expected):
    assert v.count_verdict(k, n, (8, 8), v.every) == expected


def test_a_count_within_a_stated_share_and_on_the_sources_denominator():
    says = v.about_share(3 / 8, 1 / 8)
    assert v.count_verdict(3, 8, (3, 8), says) == R
    assert v.count_verdict(4, 8, (3, 8), says) == R  # within 1/8 of 3/8
    assert v.count_verdict(2, 4, (3, 8), says) == U  # on 4 seeds, not 8
    assert v.count_verdict(6, 6, (3, 8), says) == N  # p = 0.031
    assert v.count_verdict(0, 8, (3, 8), says) == U  # p = 0.2


def test_runs_near_the_line_are_counted_both_ways():
    assert v.count_verdict(0, 8, (0, 8), v.none_of) == R
    assert v.count_verdict(0, 8, (0, 8), v.none_of, up=1) == U  # 0 or 1 lost
    assert v.count_verdict(5, 8, (0, 8), v.none_of) == N
    # 4 lost is Fisher's p = 0.077, but 4 of 8's interval (0.16-0.84) excludes "none" (≤ 1/8)
    assert v.count_verdict(5, 8, (0, 8), v.none_of, down=1) == N
    assert v.count_verdict(2, 8, (0, 8), v.none_of, down=1) == U  # 1 lost: 0.003-0.53 allows it
    assert v.count_verdict(6, 8, (0, 8), v.none_of, down=1) == N  # 5 or 6: both differ


@pytest.mark.parametrize("k, n, expected", [
    (2, 2, R),  # the source's count
    (1, 2, U),  # one of two: 0.01-0.99
    (0, 2, N),  # Fisher cannot reject (p = 0.33), but 0 of 2 (0-0.84) lies below 7 of 8
    (0, 1, U),  # one unit: 0-0.975 still allows "every"
    (0, 0, NC)])
def test_a_count_against_a_tiny_denominator_can_reject_by_its_share(k, n, expected):
    assert all(v.fisher_exact([[i, n - i], [2, 0]]).pvalue >= 0.05 for i in range(n + 1))
    assert v.count_verdict(k, n, (2, 2), v.every) == expected


def test_every_seed_is_rejected_once_our_share_is_plainly_below_seven_in_eight():
    # Fisher's test against 8 of 8 cannot reject 10 of 16 (p = 0.06); its share's interval can
    assert v.fisher_exact([[10, 6], [8, 0]]).pvalue > 0.05
    assert v.count_verdict(10, 16, (8, 8), v.every) == N
    assert v.count_verdict(5, 8, (8, 8), v.every) == U  # 0.24-0.91 still reaches 7/8
    assert v.count_verdict(16, 16, (8, 8), v.every) == R


def test_a_share_near_the_claim_is_reproduced_once_its_interval_lies_inside_what_it_allows():
    # 15 of 16 never says "every seed", and its interval (0.70-1.00) still reaches below 7/8
    assert v.count_verdict(15, 16, (8, 8), v.every) == U
    assert v.every.within(95, 100) and not v.every.within(15, 16)
    assert v.count_verdict(95, 100, (8, 8), v.every) == R  # 0.89-0.98: every seed but 1 in 8
    assert v.count_verdict(3, 100, (0, 8), v.none_of) == R  # 0.006-0.085 within "none" (≤ 1/8)
    assert v.count_verdict(60, 100, (5, 8), v.most) == R  # 0.50-0.70 above half
    assert not v.most.within(5, 10)  # its interval reaches below half


def test_the_seeds_an_undecided_count_needs_decide_it_at_the_share_seen():
    more = v.count_seeds_needed(15, 16, (8, 8), v.every)
    assert 16 < more < 1000
    assert v.count_verdict(round(more * 15 / 16), more, (8, 8), v.every) == R
    assert v.count_verdict(round((more - 1) * 15 / 16), more - 1, (8, 8), v.every) == U
    low = v.count_seeds_needed(13, 16, (8, 8), v.every)  # 0.81: rejected with enough seeds
    assert v.count_verdict(round(low * 13 / 16), low, (8, 8), v.every) == N
    # a share exactly on what "every" allows (7 of 8) is decided by no number of seeds
    assert v.count_seeds_needed(7, 8, (8, 8), v.every, most=400) == INF
    assert v.count_seeds_needed(0, 0, (8, 8), v.every) is None


def test_most_and_about_a_share_reject_by_their_share_too():
    assert v.count_verdict(1, 12, (5, 8), v.most) == N
    assert v.count_verdict(4, 8, (5, 8), v.most) == U
    assert v.count_verdict(7, 8, (5, 8), v.most) == R
    says = v.about_share(3 / 8)
    assert v.count_verdict(14, 16, (3, 8), says) == N  # 0.62-0.98 against 0.25-0.5
    assert v.share_interval(0, 2)[1] == pytest.approx(1 - 0.025 ** 0.5)


@pytest.mark.parametrize("values, region, expected", [
    ([0.30, 0.35, 0.40, 0.45, 0.50, 0.55, 0.60, 0.65], (0.6, INF), 9),  # far below the bound
    ([0.5, 0.55, 0.6, 0.6, 0.6, 0.65, 0.7, 0.75], (0.6, INF), INF),  # the median on the bound
    ([0.5, 0.6, 0.7], (0.6, INF), None)])  # too few values
def test_the_seeds_a_size_needs(values, region, expected):
    got = v.seeds_needed(values, region)
    if expected is None or expected == INF:
        assert got == expected
    else:
        assert got >= expected and got > len(values)


@pytest.mark.parametrize("r, n, expected", [(0.94, 8, R), (0.2, 8, N), (0.7, 7, U), (0.9, 3, NC),
                                            (math.nan, 8, NC)])
def test_a_relation_against_the_sources_r(r, n, expected):
    assert v.relation_verdict(r, n, 0.94) == expected


def test_the_relation_interval_is_fisher_z():
    low, high = v.relation_interval(0.5, 28)
    assert low == pytest.approx(math.tanh(math.atanh(0.5) - 1.959964 / 5), abs=1e-6)
    assert high == pytest.approx(math.tanh(math.atanh(0.5) + 1.959964 / 5), abs=1e-6)


@pytest.mark.parametrize("parts, expected", [
    ((R, R), R), ((R, N), N), ((U, N), N), ((R, U), U), ((U, NC), U), ((R, NC), NC), ((NC,), NC)])
def test_parts_combine_to_the_claims_verdict(parts, expected):
    assert v.combine({str(i): p for i, p in enumerate(parts)}) == expected
