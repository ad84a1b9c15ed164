"""The confirmation's rule (anchorkit.studies.rotated_basis.confirmation) on constructed cases:
its exact one-sided test, every outcome it can give, the pooled second look, its two analyses,
and the committed rule equal to the code's."""

import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from anchorkit.studies.rotated_basis import confirmation as c

ROOT = Path(__file__).resolve().parents[2]


def table(diffs, seeds, measure="raw_removal"):
    """A results table of both arms whose rotated − plain differences are ``diffs``."""
    rows = []
    for s, d in zip(seeds, diffs):
        rows.append({"seed": s, "optimizer": "adam", measure: 0.5})
        rows.append({"seed": s, "optimizer": "rotated", measure: 0.5 + d})
    return pd.DataFrame(rows)


def judged(diffs, exploratory=np.linspace(0.0, 0.3, 16)):
    return c.confirm(table(diffs, c.SEEDS[:len(diffs)]), table(exploratory, c.EXPLORATORY))


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_the_signed_rank_p_is_scipy_s_exact_one_without_ties(alternative):
    d = np.random.default_rng(3).normal(0.1, 0.2, 14)
    want = stats.wilcoxon(d, alternative=alternative, method="exact").pvalue
    assert c.signed_rank_p(d, alternative) == pytest.approx(want, rel=1e-12)


def test_with_ties_and_zeros_the_p_is_counted_over_every_pattern_of_signs():
    d = np.array([0.1, 0.1, -0.1, 0.2, 0.3, -0.3, 0.0, 0.4, 0.1])
    nz = d[d != 0]
    ranks = stats.rankdata(np.abs(nz))
    observed = ranks[nz > 0].sum()
    sums = [sum(r for r, s in zip(ranks, signs) if s) for signs in
            itertools.product([0, 1], repeat=len(nz))]
    brute = np.mean([s >= observed - 1e-9 for s in sums])
    assert c.signed_rank_p(d) == pytest.approx(brute, rel=1e-12)
    assert np.isnan(c.signed_rank_p([0.0, 0.0]))


def test_a_set_that_confirms():
    verdict, rows = judged(np.linspace(0.05, 0.35, 24))
    assert verdict == c.CONFIRMED
    first = rows.iloc[0]
    assert first["look"] == "new seeds" and first["seeds"] == 24 and first["one-sided p"] < 1e-6
    assert first["rotated larger on"] == 24


def test_a_set_that_does_not_confirm():
    verdict, rows = judged(np.linspace(-0.3, 0.3, 24))
    assert verdict == c.NOT_CONFIRMED
    assert rows.iloc[0]["one-sided p"] > c.ALPHA and not rows.iloc[0]["non-inferior"]


def test_a_set_non_inferior_but_not_superior():
    verdict, rows = judged(np.linspace(-0.06, 0.05, 24))
    assert verdict == c.NON_INFERIOR_ONLY
    assert rows.iloc[0]["non-inferior"] and not rows.iloc[0]["superior"]


def test_a_set_superior_in_direction_only():
    # seven small losses beyond the margin, seventeen large gains: the ranks favour rotated,
    # the interval's lower bound (the 7th difference) still lies below −0.1
    verdict, rows = judged([-0.11] * 7 + [0.6] * 17)
    assert verdict == c.DIRECTION_ONLY
    assert rows.iloc[0]["superior"] and not rows.iloc[0]["non-inferior"]


def test_a_reversed_set():
    assert judged(np.linspace(-0.4, -0.2, 24))[0] == c.REVERSED


def test_fewer_pairs_than_the_set_is_pending_and_every_outcome_has_its_words():
    assert judged(np.linspace(0.05, 0.35, 20))[0] == c.PENDING
    assert c.confirm(pd.DataFrame({"seed": [], "optimizer": []}), pd.DataFrame())[0] == c.PENDING
    assert set(c.SAYS) == set(c.OUTCOMES) and all(c.SAYS.values())


def test_the_pooled_look_is_a_second_look_read_at_the_wider_interval():
    new = np.linspace(0.0, 0.5, 24)
    explo = np.linspace(0.0, 0.5, 16)
    _, rows = judged(new, explo)
    pooled = rows[(rows.measure == "raw_removal") & (rows.look == "pooled")].iloc[0]
    assert pooled["seeds"] == 40 and pooled["confidence"] == pytest.approx(0.975)
    both = np.sort(np.concatenate([explo, new]))
    from anchorkit.measures.verdicts import median_interval
    _, lo95, hi95 = median_interval(both, 0.95)
    assert pooled["interval low"] <= lo95 and pooled["interval high"] >= hi95
    assert (pooled["interval low"], pooled["interval high"]) != (lo95, hi95)
    # the correction matters: a pooled set that 95% would call "removes more" stays undecided
    d = np.concatenate([np.full(13, 0.05), np.full(27, 0.3)])  # the 13th and 14th
    _, lo, _ = median_interval(d, 0.95)
    _, lo_c, _ = median_interval(d, c.POOLED_CONFIDENCE)
    assert lo > c.MARGIN >= lo_c
    assert c.read(d, "raw_removal", c.POOLED_CONFIDENCE).four_way != c.read(d, "x").four_way


def test_the_secondary_measure_is_read_beside_and_does_not_change_the_outcome():
    t = table(np.linspace(0.05, 0.35, 24), c.SEEDS)
    t["removal_net_of_reference"] = t["raw_removal"] * 0  # no difference at all on it
    verdict, rows = c.confirm(t, table(np.zeros(16), c.EXPLORATORY))
    assert verdict == c.CONFIRMED
    second = rows[(rows.measure == "removal_net_of_reference") & (rows.look == "new seeds")]
    assert len(second) == 1 and np.isnan(second.iloc[0]["one-sided p"])


@pytest.mark.parametrize("change, reading", [(-0.1, c.SHRINKS), (0.1, c.GROWS), (0.0, c.STEADY)])
def test_the_training_length_analysis_gives_each_reading(change, reading):
    rng = np.random.default_rng(0)
    earlier = rng.normal(0.2, 0.1, 24)
    noise = rng.normal(0, 0.02, 24)
    assert c.training_length(earlier, earlier + change + noise)["reading"] == reading


def test_the_loss_analysis_gives_each_reading_and_the_difference_at_equal_loss():
    rng = np.random.default_rng(1)
    loss = rng.normal(0.03, 0.02, 24)
    follows = c.against_loss(0.1 + 3 * loss + rng.normal(0, 0.01, 24), loss)
    assert follows["reading"] == c.LESS_TRAINED
    assert follows["equal-loss low"] < 0.1 < follows["equal-loss high"]
    assert c.against_loss(0.1 - 3 * loss, loss)["reading"] == c.BETTER_TRAINED
    assert c.against_loss(rng.normal(0.2, 0.1, 24), loss)["reading"] == c.UNTIED
    assert np.isnan(c.against_loss([0.1, 0.2], [0.0, 0.1])["r"])


def test_the_committed_rule_is_the_code_s():
    from anchorkit.engine import regimes
    text = c.rule(regimes.RECALIBRATED.title, regimes.RECALIBRATED.recipes["falloff"])
    committed = ROOT / "calibration" / "second-regime" / "confirmation.md"
    assert committed.read_text() == text
    assert "the 7th to the 18th difference" in text and "97.5%" in text
    assert not set(c.SEEDS) & set(regimes.RECALIBRATED_SEEDS)  # fresh seeds, never trained


@pytest.mark.slow
def test_a_run_read_on_its_own_gives_the_anchored_columns_of_its_pair(tmp_path, monkeypatch):
    """The set has no controls: raw removal and removal net of the reference baseline are read
    with the run as its own pair. They equal the anchored columns of the run's real pair (the
    measure keeps its meaning), at its end and at a snapshot, and the loss is that epoch's."""
    import anchorkit.core.train as training
    from anchorkit.core.config import ModelConfig
    from anchorkit.core.store import RunStore
    from anchorkit.engine.pairs import Pair, measured
    from anchorkit.studies.rotated_basis import confirming
    from tests.conftest import small

    monkeypatch.setattr(training, "SNAPSHOT_EPOCHS", (2,))
    store = RunStore(tmp_path / "store")
    narrow = ModelConfig(d_model=16, d_mlp=64)  # a third of the sweep's directions: quicker
    a = small(seed=4, recipe="falloff", epochs=4, model=narrow)
    ctl = small(seed=4, epochs=4, model=narrow)
    training.train([a, ctl], store, progress=False)
    real = measured(Pair(a, ctl), True, store)["results"].iloc[0]
    alone = confirming.run_row(a, store)
    for k in confirming.READ:
        assert alone[k] == pytest.approx(float(real[k]), abs=1e-12), k
    traj = store.load_trajectory(a)
    assert alone["loss"] == float(traj[traj.epoch == 4].loss.iloc[0]) and alone["epoch"] == 4
    early = confirming.run_row(a, store, 2)
    state = store.load_snapshot(a, 2)
    from anchorkit.engine.pairs import measure_pair
    by_hand = measure_pair(Pair(a, ctl), state, store.load_final(ctl))["results"].iloc[0]
    assert early["epoch"] == 2
    assert early["raw_removal"] == pytest.approx(float(by_hand["raw_removal"]), abs=1e-12)


def test_the_confirmation_s_tables_from_constructed_readings():
    from anchorkit.studies.rotated_basis import confirming

    rng = np.random.default_rng(2)
    rows = []
    for s in c.SEEDS:
        base, gain, loss = rng.normal(0.6, 0.05), rng.normal(0.2, 0.05), rng.normal(0.3, 0.01)
        for epoch, shrink in ((c.EARLIER, 0.1), (c.EPOCHS, 0.0)):
            rows.append({"seed": s, "optimizer": "adam", "epoch": epoch, "raw_removal": base,
                         "removal_net_of_reference": base - 0.1, "loss": loss})
            rows.append({"seed": s, "optimizer": "rotated", "epoch": epoch,
                         "raw_removal": base + gain + shrink,
                         "removal_net_of_reference": base + gain - 0.1, "loss": loss + 0.02})
    t = confirming.tables(pd.DataFrame(rows), table(np.linspace(0.0, 0.3, 16), c.EXPLORATORY))
    assert t["outcome"].outcome.iloc[0] == c.CONFIRMED and t["outcome"].seeds.iloc[0] == 24
    length = t["analyses"].set_index("analysis").loc["training length"]
    assert length["reading"] == c.SHRINKS and length["seeds"] == 24
    assert len(c.runs()) == 48 and {r.recipe for r in c.runs()} == {"falloff-pull-0.3"}
    assert all(r.train.flush_denormals for r in c.runs())
