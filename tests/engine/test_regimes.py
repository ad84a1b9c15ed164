"""Regimes: the second regime is new configuration with its own run hashes; the weak-basis
regime's runs keep the hashes they were published under."""

import json
from pathlib import Path

import pytest

from anchorkit.engine import regimes
from anchorkit.studies import scout
from anchorkit.core.config import ParameterError
from anchorkit.engine.registry import study_runs

ROOT = Path(__file__).resolve().parents[2]


def test_the_weak_basis_regime_keeps_the_published_hashes():
    published = json.loads((ROOT / "reports" / "rotated-basis" / "provenance.json").read_text())
    for regime in (None, regimes.WEAK):
        runs = study_runs("rotated-basis", range(704, 712), regime=regime)
        assert {c.name: c.hash for c in runs} == published["runs"]


def test_the_second_regime_has_its_own_hashes_and_its_settings():
    weak = study_runs("rotated-basis", [704, 705])
    second = study_runs("rotated-basis", [704, 705], regime=regimes.SECOND)
    assert [c.name for c in weak] == [c.name for c in second]
    assert not {c.hash for c in weak} & {c.hash for c in second}
    for c in second:
        assert not c.model.learned_positions and not c.model.residual_biases
        assert (c.train.lr, c.train.lr_decay, c.train.step) == (1e-2, 0.25, "compiled")
        assert c.epochs == regimes.SECOND_EPOCHS


def test_the_paper_seeds_are_trained_as_the_viability_runs_were():
    # the same configuration as the scout's runs of the regime, at other seeds
    for rec in ("control", "falloff"):
        for opt in ("adam", "rotated"):
            at_1 = study_runs("rotated-basis", [1], regime=regimes.SECOND)
            mine = next(c for c in at_1 if c.recipe == rec and c.optimizer == opt)
            assert mine == scout.regime_config(regimes.SECOND, 1, rec, opt, regimes.SECOND_EPOCHS)


def test_a_regime_other_than_the_weak_basis_writes_under_its_own_folder():
    assert regimes.regime(None).reports("reports") == Path("reports")
    assert regimes.WEAK.reports("reports") == Path("reports")
    assert regimes.SECOND.reports("reports") == Path("reports") / regimes.SECOND.name


def test_a_provenance_records_the_regime_of_every_folder_but_the_top_one():
    """``Regime.recorded``: the regime whose tables sit at the folder's top records none (the
    committed provenance keeps its bytes); every other records its name, whatever the default."""
    assert regimes.WEAK.recorded is None and regimes.DEFAULT.recorded is None
    assert regimes.SECOND.recorded == regimes.SECOND.name
    assert regimes.Regime("toy", folder=None).recorded is None
    assert regimes.Regime("toy").recorded == "toy"


def test_an_unknown_regime_is_refused_by_name():
    with pytest.raises(ParameterError, match="regime"):
        study_runs("rotated-basis", [704], regime="no-such-regime")


def test_the_recalibrated_regime_is_the_second_with_the_chosen_recipe():
    decision = json.loads((ROOT / "calibration" / "second-regime" / "decision.json").read_text())
    assert decision["verdict"] == "chosen"
    r = regimes.RECALIBRATED
    assert r.recipes == {"falloff": decision["recipe"]}
    assert not set(r_seed for r_seed in regimes.RECALIBRATED_SEEDS) & set(decision["seeds"])
    mine = study_runs("rotated-basis", list(regimes.RECALIBRATED_SEEDS), regime=r)
    second = study_runs("rotated-basis", list(regimes.RECALIBRATED_SEEDS), regime=regimes.SECOND)
    by_name = {c.name: c for c in second}
    # the controls are the second regime's own runs; the falloff runs the chosen recipe's
    controls = [c for c in mine if c.recipe == "control"]
    assert len(controls) == 32 and all(by_name[c.name] == c for c in controls)
    anchored = [c for c in mine if c.recipe != "control"]
    assert len(anchored) == 32 and {c.recipe for c in anchored} == {decision["recipe"]}
    for c in anchored:
        twin = by_name[c.name.replace(decision["recipe"], "falloff")]
        assert c.hash != twin.hash and c.model == twin.model and c.train == twin.train
    assert decision["recipe"] in r.describe()


def test_the_scout_screens_the_regimes_it_screened():
    assert regimes.RECALIBRATED.name not in scout.REGIMES
    assert set(scout.REGIMES) | {regimes.RECALIBRATED.name} == set(regimes.REGIMES)


def test_a_study_at_its_paper_seeds_runs_at_a_regimes_own_in_that_regime():
    from anchorkit.pages.page import seed_counts
    from anchorkit.engine.registry import PAPER_SEEDS, ROTATED_BASIS, STUDIES

    r = regimes.RECALIBRATED
    # the paper seeds stand for the regime's own 16, so the page at its defaults reads them
    assert ROTATED_BASIS.seeds_in(PAPER_SEEDS, r) == list(regimes.RECALIBRATED_SEEDS)
    assert ({c.seed for c in ROTATED_BASIS.runs(PAPER_SEEDS, regime=r)}
            == set(regimes.RECALIBRATED_SEEDS))
    # other regimes, a reader's seeds and the loss-rate screen's own seeds are left as they are
    assert ROTATED_BASIS.seeds_in(PAPER_SEEDS, regimes.SECOND) == PAPER_SEEDS
    assert ROTATED_BASIS.seeds_in([704, 705], r) == [704, 705]
    screen = STUDIES["loss-rate-screen"]
    assert screen.seeds_in(list(screen.seeds), r) == list(screen.seeds)
    # the page's seed count says where a regime has its own
    assert seed_counts(ROTATED_BASIS, PAPER_SEEDS, [regimes.WEAK, regimes.SECOND]) == "8"
    assert (seed_counts(ROTATED_BASIS, PAPER_SEEDS, [regimes.WEAK, regimes.SECOND, r])
            == f"8 (16 in the {r.title})")
    assert seed_counts(ROTATED_BASIS, [704, 705], [regimes.WEAK, r]) == "2"


def test_a_regime_hands_out_everything_of_a_run_but_its_seed():
    """The seed is the study's, never the regime's: a regime's settings have no seed, and a run
    is the settings at a seed (the reader's shorthand ``configure`` is that run)."""
    from anchorkit.core.config import RunConfig

    for r in regimes.REGIMES.values():
        s = r.settings("falloff", "rotated")
        assert "seed" not in s and s["recipe"] == r.recipes.get("falloff", "falloff")
        assert r.configure(704, "falloff", "rotated") == RunConfig(seed=704, **s)
    second = regimes.SECOND.settings("falloff", epochs=3)
    assert second["epochs"] == 3 and second["model"] != regimes.WEAK.settings()["model"]
