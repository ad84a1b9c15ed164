"""The two committed predictions about the arms (mirror image, e₁ as a syntax axis) and the
directions of note, on constructed cases that give each verdict."""

import pandas as pd
import pytest
import torch

from anchorkit.studies.rotated_basis import mirror
from anchorkit.measures import directions
from anchorkit.core.task import SYNTAX, token_id
from anchorkit.core.train import initial_state
from tests.conftest import small


def measures(rotated_top_share_shift=0.0, seeds=8):
    rows = []
    for s in range(seeds):
        base = {"top_share": 0.3 + 0.01 * s, "top_ratio": 2.0 + 0.1 * s, "kurtosis": 5 + s / 10,
                "syntax_cos": 0.5 + 0.01 * s, "costliest_cost": 0.2 + 0.01 * s}
        for opt in ("adam", "rotated"):
            row = dict(base, seed=s, optimizer=opt)
            if opt == "rotated":
                row["top_share"] += rotated_top_share_shift + 0.001 * (s % 3)
                row["kurtosis"] += 0.01 * (-1) ** s  # noise either side
            rows.append(row)
    return pd.DataFrame(rows)


def test_alike_arms_are_mirror_images():
    holds, text = mirror.mirror_verdict(mirror.mirror_test(measures()))
    assert holds and "no own-basis measure differs" in text and "not rejected at n = 8" in text
    assert "tendency" not in text  # noise either side is no tendency


def test_a_one_sided_tendency_the_rule_does_not_reject_is_said():
    m = measures(rotated_top_share_shift=0.0)
    rot = m.optimizer == "rotated"
    m.loc[rot & (m.seed < 6), "kurtosis"] += 0.5  # larger on 6 of 8 seeds, smaller on two
    m.loc[rot & (m.seed >= 6), "kurtosis"] -= 0.1
    holds, text = mirror.mirror_verdict(mirror.mirror_test(m))
    assert holds and "rotated larger on 6 of 8 seeds in" in text


def test_a_systematic_difference_is_caught_and_named():
    test = mirror.mirror_test(measures(rotated_top_share_shift=0.2))
    holds, text = mirror.mirror_verdict(test)
    assert not holds and "top share" in text
    assert test.set_index("measure").loc["kurtosis", "differs"] == False  # noqa: E712


def test_too_few_seeds_say_that_no_difference_could_be_detected():
    holds, text = mirror.mirror_verdict(mirror.mirror_test(measures(0.2, seeds=4)))
    assert holds and "could have been detected" in text


def syntax_rows(e1_on):
    return pd.DataFrame([{"kind": "syntax", "optimizer": "adam", "role": "control", "seed": s,
                          "run": f"control-adam-{s}",
                          **{f"syntax_vector_{t}": (0 if (s in e1_on and t == "?") else 10 + i)
                             for i, t in enumerate(SYNTAX)}} for s in range(8)])


@pytest.mark.parametrize("e1_on, holds", [((), True), ((3,), True), ((3, 5), False)])
def test_e1_as_a_syntax_axis_more_than_once_is_a_finding(e1_on, holds):
    table = mirror.e1_syntax_axis(syntax_rows(e1_on))
    ok, text = mirror.e1_verdict(table)
    assert ok is holds and f"{len(e1_on)} of 8" in text
    assert table.chance.iloc[0] == pytest.approx(4 / 64)


def test_a_plain_control_whose_spike_sits_on_e1_is_named():
    table = mirror.e1_syntax_axis(syntax_rows(()))
    results = pd.DataFrame([{"optimizer": o, "seed": s, "control_has_spike_axes": s != 2,
                             "control_spike_axes": 0 if s in (1, 2) else 7,
                             "control_spike_share_axes": 0.29}
                            for o in ("adam", "rotated") for s in range(4)])
    ok, text = mirror.e1_verdict(table, results)
    assert ok and "sits on e₁ in plain control 1 (share 0.29)" in text  # 2 has no spike
    assert "sits on e₁" not in mirror.e1_verdict(table, results.assign(control_spike_axes=7))[1]


def test_the_chance_of_at_least_k_hits():
    assert mirror.at_least_by_chance([0.5, 0.5], 1) == pytest.approx(0.75)
    assert mirror.at_least_by_chance([0.1] * 8, 0) == pytest.approx(1.0)


def test_the_costliest_direction_is_reported_apart_from_the_top_energy_one():
    cfg = small()
    state = initial_state(cfg)
    for sym in ("?", "⏎"):  # two syntax tokens one-hot on axis 12
        state["W_E"][token_id(cfg.task, sym)] = 4 * torch.eye(64)[12]
    shares = pd.Series([0.01] * 64)
    shares[21] = 0.44  # the energy sits on axis 21 ...
    costs = pd.Series([0.001] * 64)
    costs[0] = 0.85  # ... the task's cost on e₁
    t = directions.notable(cfg, state, shares, costs).set_index("kind")
    assert t.loc["top energy", "index"] == 21 and t.loc["top energy", "cos_e1"] == 0
    assert t.loc["syntax", "index"] == 12 and t.loc["syntax", "tokens_on_it"] == 2
    costly = t.loc["costliest"]
    assert costly["index"] == 0 and costly["cos_e1"] == 1 and costly["cost"] == pytest.approx(0.85)
    assert not costly["is_top_energy"] and costly["share"] == pytest.approx(0.01)
    assert costly["median_cost"] == pytest.approx(0.001)  # the floor it stands out from


def test_a_token_at_chance_level_sits_on_no_vector():
    """The argmax of a flat |cos| profile names no syntax axis (the measure's failure mode)."""
    cfg = small()
    state = initial_state(cfg)
    for sym in SYNTAX:  # every syntax embedding spread evenly over the axes: |cos| 1/8 with each
        state["W_E"][token_id(cfg.task, sym)] = torch.ones(64)
    t = directions.notable(cfg, state, pd.Series([1 / 64] * 64), pd.Series([0.0] * 64))
    syn = t.set_index("kind").loc["syntax"]
    assert pd.isna(syn["index"]) and syn["tokens_on_it"] == 0
    assert all(syn[f"syntax_vector_{s}"] == -1 for s in SYNTAX)
    assert 0.38 < directions.SYNTAX_CHANCE < 0.43
