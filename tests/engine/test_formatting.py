"""How numbers, counts and loss rates read on a page (formatting, stats, and the screen's
sentences in supporting), on constructed cases."""

import pandas as pd
import pytest

from anchorkit.engine.formatting import count, paired, summary
from anchorkit.measures.stats import at_least, loss_rate


def test_summary_is_median_with_range_and_ignores_missing():
    assert summary([0.1, 0.3, 0.2, float("nan")]) == "0.20 (range 0.10 to 0.30)"
    assert summary([]) == "n/a"


def test_count_and_paired_count_what_they_say():
    assert count([True, False, True]) == "2 of 3"
    assert paired([1, 2, 3], [0, 2, 4]) == "higher in 1, lower in 1 of 3 seeds"


def test_loss_rate_interval_is_the_exact_binomial_one():
    r = loss_rate([True] * 38 + [False] * 2)
    assert (r["losses"], r["runs"], r["rate"]) == (2, 40, 0.05)
    # Clopper-Pearson for 2 of 40, by the beta quantiles
    from scipy.stats import beta
    assert r["low"] == pytest.approx(beta.ppf(0.025, 2, 39))
    assert r["high"] == pytest.approx(beta.ppf(0.975, 3, 38))
    assert loss_rate([True] * 10)["low"] == 0.0


def test_at_least_m_losses_in_n():
    assert at_least(1, 8, 0.0) == 0.0
    assert at_least(0, 8, 0.3) == pytest.approx(1.0)
    assert at_least(1, 8, 0.1) == pytest.approx(1 - 0.9 ** 8)
    assert at_least(2, 8, 0.1) == pytest.approx(1 - 0.9 ** 8 - 8 * 0.1 * 0.9 ** 7)


def test_screen_scope_reads_the_net_removal_row_of_the_rate_table():
    import pandas as pd

    from anchorkit.studies.loss_rate_screen.findings import screen_scope
    from anchorkit.studies.loss_rate_screen import rate_table

    results = pd.DataFrame({"kept": [True] * 38 + [False] * 2,
                            "kept_raw": [True] * 35 + [False] * 5})
    text = screen_scope(rate_table(results))
    assert "40 seeds" in text and "2 lost" in text and "0.050" in text  # net rule, not raw
    r = loss_rate(results["kept"])
    assert f"{r['low']:.3f} to {r['high']:.3f}" in text
    assert f"at least two with {at_least(2, 8, 0.05):.2f}" in text
    assert "no claim" in screen_scope(None) and "no claim" not in text
    assert "evidence null" not in text and "evidence null" in screen_scope(rate_table(results), True)


def test_a_moved_count_names_its_denominator_and_the_seeds_it_leaves_out():
    from anchorkit.engine.formatting import count_moved

    # 8 seeds: both runs have a spike on 2 (one moved), one run only on 4, neither on 2
    has_a = [True, True, True, True, False, False, False, False]
    has_c = [True, True, False, False, True, True, False, False]
    moved = pd.Series([True, False] + [None] * 6, dtype="boolean")
    assert count_moved(moved, has_a, has_c) == (
        "moved on 1 of the 2 seeds where both runs have a spike "
        "(4 with a spike in one run only, 2 in neither)")
    none = count_moved(pd.Series([None] * 8, dtype="boolean"), [False] * 7 + [True], [False] * 8)
    assert none.startswith("cannot be compared") and "1 with a spike in one run only, 7 in neither" in none


def test_seed_text_reads_a_run_of_seeds_as_a_range():
    from anchorkit.engine.formatting import seed_text

    assert seed_text(range(800, 840)) == "800–839"
    assert seed_text([704, 706]) == "704, 706" and seed_text([1, 2, 4]) == "1, 2, 4"
    assert seed_text([]) == "none"


def test_with_no_loss_observed_only_the_upper_end_of_the_interval_is_quoted():
    from anchorkit.studies.loss_rate_screen.findings import chance_of_losses, screen_scope
    from anchorkit.studies.loss_rate_screen import rate_table

    none_lost = rate_table(pd.DataFrame({"kept": [True] * 40, "kept_raw": [True] * 40}))
    row = none_lost.set_index("rule").loc["net removal"]
    text = chance_of_losses(row, 1)
    assert text.startswith("at most 0.52") and "0.00 (" not in text
    assert "0.00 (0.00 to" not in screen_scope(none_lost)


def test_a_cpu_reads_without_trademarks_or_the_architecture():
    from anchorkit.engine.formatting import cpu_name

    assert cpu_name("Intel(R) Xeon(R) Processor, x86_64") == "Intel Xeon"
    assert cpu_name("AMD EPYC 7B13 64-Core Processor, x86_64") == "AMD EPYC 7B13 64-Core"
    assert cpu_name("not recorded") == "not recorded"


def test_myst_said_as_plain_text_keeps_every_roles_words():
    from anchorkit.engine.formatting import plain_text

    text = plain_text("in 2 {term}`regimes <Regime>`: the **weak** ({doc}`/book/methods`, *Its "
                      "section*), after the {doc}`optimizer scout <optimizer-scout>`")
    assert text == ("in 2 regimes: the weak (the Methods page, Its section), after the "
                    "optimizer scout")


def test_the_introduction_names_each_regimes_own_seeds():
    from anchorkit.pages.report_page import seeds_named
    from anchorkit.engine.regimes import RECALIBRATED, SECOND, WEAK
    from anchorkit.engine.registry import PAPER_SEEDS, ROTATED_BASIS

    assert seeds_named(ROTATED_BASIS, [704, 705], {WEAK: {}, SECOND: {}}) == "seeds 704–705"
    assert (seeds_named(ROTATED_BASIS, PAPER_SEEDS, {WEAK: {}, RECALIBRATED: {}})
            == f"seeds 704–711 (704–719 in the {RECALIBRATED.title})")
