"""The optimizer scout: the decision rule on constructed premises, and the scout end to end."""

import pandas as pd
import pytest
import torch

from anchorkit.studies import scout
from anchorkit.studies.scout import findings as scout_findings
from anchorkit.engine.profiles import QUICK
from anchorkit.engine.regimes import WEAK, regime
from anchorkit.core.task import OPS


def control(seed, optimizer, **kw):
    """A premise row of a control: a strong functional spike along its own basis by default."""
    row = {"regime": kw.pop("regime", "r"), "epochs": kw.pop("epochs", 800), "seed": seed,
           "optimizer": optimizer, "min_score": 0.99, "top_cost": 0.5, "median_other_cost": 0.01,
           "costliest_other_cost": 0.02,
           "top_share_axes": 0.35, "top_ratio_axes": 3.0, "kurtosis_axes": 9.0,
           "syntax_tokens_over_0.8_axes": 3, "top_share_rotated": 0.3,
           "top_ratio_rotated": 3.0}
    if optimizer == "rotated":  # flat along the coordinate axes
        row.update(top_share_axes=0.05, top_ratio_axes=1.2, kurtosis_axes=3.0,
                   **{"syntax_tokens_over_0.8_axes": 0})
    row.update(kw)
    return row


def table(*rows):
    return pd.DataFrame(list(rows))


def both(seed, plain=None, rotated=None, **kw):
    return [control(seed, "adam", **{**kw, **(plain or {})}),
            control(seed, "rotated", **{**kw, **(rotated or {})})]


def test_a_strong_functional_spike_on_both_seeds_is_report_strength():
    levels = scout.seed_levels(table(*both(1), *both(2)))
    assert list(levels["level"]) == ["report-strength"] * 2
    assert scout.regime_levels(levels)["level"].tolist() == ["report-strength"]


def test_a_large_but_inert_spike_is_not_functional():
    """E3's geometry without its function: a big, peaked spike that costs the task nothing."""
    inert = {"top_cost": 0.01, "median_other_cost": 0.002}
    levels = scout.seed_levels(table(*both(1, inert, inert), *both(2, inert, inert)))
    assert (levels["level"] == "none").all() and not levels["functional"].any()


def test_a_costly_direction_among_costly_directions_is_not_a_spike():
    """Cost 0.3 is not functional when the median other axis costs 0.1 (every direction hurts)."""
    flat = {"top_cost": 0.3, "median_other_cost": 0.1}
    assert not scout.seed_levels(table(*both(1, flat)))["functional"].any()


def test_the_rotated_twin_must_carry_its_own_functional_spike():
    levels = scout.seed_levels(table(*both(1, rotated={"top_cost": 0.05})))
    assert levels["level"].tolist() == ["none"]


def test_clear_basis_needs_flat_coordinate_axes_in_the_rotated_twin():
    weaker = {"top_share_axes": 0.25, "syntax_tokens_over_0.8_axes": 1}  # clear, not report
    assert scout.seed_levels(table(*both(1, weaker)))["level"].tolist() == ["clear"]
    leaky = scout.seed_levels(table(*both(1, weaker, {"top_share_axes": 0.12})))
    assert leaky["level"].tolist() == ["functional"]


def test_a_regime_reaches_only_its_weakest_seeds_level_and_needs_every_seed():
    weaker = {"top_share_axes": 0.25, "syntax_tokens_over_0.8_axes": 1}
    two = scout.regime_levels(scout.seed_levels(table(*both(1), *both(2, weaker))))
    assert two["level"].tolist() == ["clear"]
    one = scout.regime_levels(scout.seed_levels(table(*both(1))))
    assert one["level"].tolist() == ["none"]  # one calibration seed of two judges nothing


def test_decide_adopts_the_cheapest_at_the_highest_level_once_its_falloff_meets_the_anchor():
    rows = [*both(1, regime="a", epochs=1600), *both(2, regime="a", epochs=1600),
            *both(1, regime="b", epochs=800), *both(2, regime="b", epochs=800),
            *both(1, {"top_share_axes": 0.25}, regime="c", epochs=400),
            *both(2, {"top_share_axes": 0.25}, regime="c", epochs=400)]
    regimes = scout.regime_levels(scout.seed_levels(table(*rows)))
    assert scout.decide(regimes)["decision"] == "pending"  # no falloff yet
    assert scout.decide(regimes)["regime"] == "b"  # report strength beats a cheaper clear basis
    assert scout.decide(regimes, {("b", 800): True}) == {
        "decision": "adopt", "regime": "b", "epochs": 800, "level": "report-strength"}
    assert scout.decide(regimes, {("b", 800): False, ("a", 1600): True})["regime"] == "a"
    failed = {("b", 800): False, ("a", 1600): False, ("c", 400): False}
    assert scout.decide(regimes, failed)["decision"] == "none"


def test_controls_below_the_score_floor_are_never_adopted():
    low = {"min_score": 0.9}
    regimes = scout.regime_levels(scout.seed_levels(table(*both(1, low), *both(2))))
    assert scout.decide(regimes, {("r", 800): True})["decision"] == "none"


def anchor_row(**kw):
    row = {f"{role}_score_{op}": 0.99 for role in ("anchored", "control") for op in OPS}
    row.update(alignment_3=0.9, alignment_4=0.95, raw_removal=0.9, spill=0.01)
    row.update(kw)
    return row


@pytest.mark.parametrize("bad", [{"raw_removal": 0.79}, {"spill": 0.021}, {"alignment_3": 0.7},
                                 {"control_score_max": 0.94}])
def test_anchor_criteria_fail_on_any_one_miss(bad):
    assert scout.anchors_met(pd.DataFrame([anchor_row()]))
    assert not scout.anchors_met(pd.DataFrame([anchor_row(), anchor_row(**bad)]))
    assert not scout.anchors_met(pd.DataFrame([]))


def test_regimes_are_configuration_and_the_scout_stays_off_the_paper_seeds():
    from anchorkit import RunConfig

    assert scout.regime_config(WEAK, 1).model == RunConfig(seed=1).model
    lead = scout.regime_config(regime("no-positions-no-biases"), 1)
    assert not lead.model.learned_positions and not lead.model.residual_biases
    assert lead.train.step == "compiled"
    hashes = {c.hash for c in scout.scout_runs()}
    assert len(hashes) == len(scout.REGIMES) * len(scout.SEEDS) * 2
    assert not set(scout.SEEDS) & set(range(704, 712)) and not set(scout.SEEDS) & set(range(800, 840))
    with pytest.raises(ValueError, match="parameter 'regime'"):
        scout.run_scout(["longer"], progress=False)


@pytest.mark.retrain
@pytest.mark.slow
def test_the_scout_end_to_end_at_the_quick_profile(tmp_path, monkeypatch):
    from anchorkit.core.edit import projection_edit
    from anchorkit.core.scores import last_slice_states, op_scores
    from anchorkit.measures.measure import direction_cost, drop, energy_shares
    from anchorkit.core.store import RunStore
    from anchorkit.engine.provenance import read_tables
    from anchorkit.core.task import probe_set
    from anchorkit.core.train import load_model

    store = RunStore(tmp_path / "store", published=None)
    lenient = {"FUNCTIONAL_COST": 0.0, "FUNCTIONAL_RATIO": 0.0, "REPORT_SHARE": 0.0,
               "REPORT_TOKENS": 0, "SCORE_MIN": 0.0}  # so that the rule reaches the falloff turn
    for name, value in lenient.items():
        monkeypatch.setattr(scout.rule, name, value)  # where the rule reads them
    monkeypatch.setattr(scout.rule, "ANCHOR", {"alignment_high": -1.0, "removal": -10.0, "spill": 10.0})
    tables = scout.run_scout(["weak-basis", "no-positions-no-biases"], [1], (2, 3),
                             profile="quick", reports_dir=tmp_path / "reports", store=store,
                             progress=False)
    written = read_tables(tmp_path / "reports" / scout.SCOUT)
    assert {"premise", "where", "levels", "regimes", "anchors", "decision"} <= set(written)
    prem = tables["premise"]
    assert len(prem) == 2 * 2 * 2  # regimes x optimizers x lengths
    # every regime reaches report strength under the lenient rule: the cheapest (the first by
    # name at the same length) gets its falloff trained and measured at both lengths, and passes
    decision = tables["decision"].iloc[0]
    assert decision["decision"] == "adopt" and decision["epochs"] == 2
    assert decision["regime"] == "no-positions-no-biases"
    anchors = tables["anchors"]
    assert len(anchors) == 2 * 2 and set(anchors["regime"]) == {"no-positions-no-biases"}
    assert {"raw_removal", "spill", "alignment_3", "alignment_4"} <= set(anchors.columns)
    # the premise's top direction and its cost, recomputed by hand for one control
    row = prem[(prem.optimizer == "adam") & (prem.epochs == 2)].iloc[0]
    cfg = scout.regime_config(regime(row["regime"]), 1, "control", "adam", 3, QUICK)
    model = load_model([cfg], [store.load_snapshot(cfg, 2)])
    batch = probe_set(cfg.task).clean
    shares = energy_shares(last_slice_states(model, batch), torch.eye(64))[0]
    assert row["top_axes"] == int(shares.argmax())
    assert row["top_share_axes"] == pytest.approx(float(shares.max()))
    top = projection_edit(torch.eye(64)[row["top_axes"]], 1.0, model.n_slices)
    cost = direction_cost(drop(op_scores(model, batch), op_scores(model, batch, top)))
    assert row["top_cost"] == pytest.approx(float(cost[0]))
    where = tables["where"]
    one = where[(where.run == row["run"]) & (where.epochs == 2) & (where.regime == row["regime"])]
    assert len(one[one["where"] == "slice"]) == 5 and (one["share"].between(0, 1)).all()
    # the edited answers were cached with the run's weights at that length: measuring again reads
    # them (no edited forward) and gives the same row; other weights are another key
    def no_forward(*a, **k):
        raise AssertionError("an edited forward ran although its answers were cached")

    monkeypatch.setattr(scout.measuring, "edited_predictions", no_forward)  # where the scout looks it up
    again, _ = scout.premise(cfg, store.load_snapshot(cfg, 2), store=store, epochs=2)
    assert again["top_cost"] == row["top_cost"] and again["median_other_cost"] == row["median_other_cost"]
    with pytest.raises(AssertionError, match="cached"):
        scout.premise(cfg, store.load_snapshot(cfg, 2), store=store, epochs=1)
    with pytest.raises(ValueError, match="parameter 'epochs'"):
        scout.premise(cfg, store.load_snapshot(cfg, 2), store=store)


def test_premise_findings_judge_each_cell_by_its_weakest_seed():
    rows = [*both(1, plain={"top_share_axes": 0.40, "top_cost": 0.01}, regime="a", epochs=400),
            *both(2, plain={"top_share_axes": 0.10, "top_cost": 0.01}, regime="a", epochs=400),
            *both(1, plain={"top_share_axes": 0.25, "top_cost": 0.30}, regime="b", epochs=400),
            *both(2, plain={"top_share_axes": 0.22, "top_cost": 0.02}, regime="b", epochs=400),
            *both(1, plain={"top_share_axes": 0.30}, regime="a", epochs=800,
                  rotated={"top_share_axes": 0.20}),
            *both(2, plain={"top_share_axes": 0.30}, regime="a", epochs=800)]
    found = scout_findings.premise_findings(table(*rows), reference="a")
    # a at 400 has the largest single share (0.40) but its weakest seed is 0.10; b is 0.22
    assert "0.30 and 0.30 (seeds 1 and 2) in the a regime at 800 epochs" in found["size"]
    assert "against 0.40 and 0.10 in the a regime at 400 epochs" in found["size"]
    # a at 800 has a rotated twin with a large coordinate axis on seed 1: not reversed there
    assert found["reversal"].split("; ")[0].endswith("in a at 400, b at 400")
    # b's spike is costly on one seed only: the weakest seed decides
    assert "cost a plain-Adam control 0.50 and 0.50 (a at 800 epochs)" in found["function"]
    assert found["function"].endswith("functional on every seed in a at 800; the rotated twin's in "
                                      "a at 400, b at 400, a at 800")
    assert found["growth"].endswith("a 0.40 and 0.10 → 0.30 and 0.30")


def test_a_costly_axis_that_is_not_the_top_is_found_and_named_apart():
    """The rule's spike is the top-energy direction: an inert top with a costly axis elsewhere is
    not a functional spike, and the findings say where the costly axis was."""
    hidden = {"top_cost": 0.01, "costliest_other_cost": 0.8}
    rows = [*both(1, plain=hidden, regime="a"), *both(2, plain=hidden, regime="a"),
            *both(1, plain={"top_cost": 0.3}, regime="b"),
            *both(2, plain={"top_cost": 0.01, "costliest_other_cost": 0.9}, regime="b")]
    found = scout_findings.premise_findings(table(*rows))
    assert "cost 0.80 and 0.80 (a at 800 epochs), where the top axis (share 0.35 and 0.35) " \
           "cost 0.01 and 0.01: on every seed" in found["elsewhere"]
    assert not scout.seed_levels(table(*rows[:4]))["functional"].any()
    # in b the costliest axis is the top on seed 1: no claim that it lies elsewhere
    alone = scout_findings.premise_findings(table(*rows[4:]))
    assert alone["elsewhere"].endswith("cost 0.30 and 0.01")


def test_the_decision_text_says_when_a_level_comes_with_controls_below_the_floor():
    regimes = pd.DataFrame([
        {"regime": "a", "epochs": 800, "seeds": 2, "level": "functional", "controls_score": False},
        {"regime": "b", "epochs": 400, "seeds": 2, "level": "functional", "controls_score": True},
        {"regime": "c", "epochs": 400, "seeds": 2, "level": "none", "controls_score": True}])
    decision = scout.decide(regimes)
    text = scout_findings.decision_text(pd.Series(decision), regimes)
    assert text.endswith("b at 400 epochs: functional; a at 800 epochs: functional, though a "
                         "control scores below 0.95, which the rule asks of every run.")
    assert decision["decision"] == "none"


def test_syntax_kth_is_the_kth_largest_token_cosine():
    row = {f"syntax_cos_{s}_axes": v for s, v in zip(scout.SYNTAX, (0.9, 0.2, 0.85, 0.5))}
    assert scout_findings.syntax_kth(table(row), k=3).tolist() == [0.5]
    assert scout_findings.syntax_kth(table(row), k=1).tolist() == [0.9]


def test_where_summary_finds_the_peak_slice_and_position():
    rows = [{"where": "slice", "slice": s, "position": -1, "share": v}
            for s, v in enumerate((0.01, 0.4, 0.2))]
    rows += [{"where": "position", "slice": 2, "position": t, "share": v}
             for t, v in enumerate((0.6, 0.1, 0.05))]
    where = table(*rows).assign(regime="r", epochs=400, optimizer="adam", seed=1)
    got = scout_findings.where_summary(where).iloc[0]
    assert (got["peak_slice"], got["peak_share"], got["last_slice_share"]) == (1, 0.4, 0.2)
    assert (got["top_position"], got["top_position_share"]) == (0, 0.6)
    assert got["median_position_share"] == 0.1  # position 0 stands out of a 0.1 profile


def test_premise_by_seed_puts_each_control_beside_its_rotated_twin():
    cos = {f"syntax_cos_{s}_axes": 0.5 for s in scout.SYNTAX}
    rows = [*both(2, plain={"top_cost": 0.4}, rotated={"top_cost": 0.1}, **cos),
            *both(1, plain={"top_cost": 0.3}, rotated={"top_cost": 0.2}, **cos)]
    got = scout_findings.premise_by_seed(table(*rows))
    assert got["seed"].tolist() == [1, 2]
    assert got["top_cost_plain"].tolist() == [0.3, 0.4]
    assert got["top_cost_rotated"].tolist() == [0.2, 0.1]
    assert got["top_share_axes_rotated"].tolist() == [0.05, 0.05]


def test_provenance_names_every_run_of_every_regime():
    from anchorkit.engine.provenance import run_names

    runs = scout.scout_runs()
    names = run_names(runs)
    assert len(names) == len(runs) == len(scout.REGIMES) * len(scout.SEEDS) * 2
    assert set(names.values()) == {c.hash for c in runs}


def test_findings_and_levels_share_one_reversal_test_with_the_kurtosis_bound():
    # a rotated twin with a small top axis but a heavy-tailed spread along the axes is not flat
    rows = [*both(1, rotated={"kurtosis_axes": 4.0}), *both(2)]
    found = scout_findings.premise_findings(table(*rows))
    assert "on every seed, in no regime and length" in found["reversal"]
    assert scout.seed_levels(table(*rows)).set_index("seed")["clear"].to_dict() == {1: False,
                                                                                   2: True}
