"""What a control's collateral damage tracks (the diagnosis, part 2): the overlap directions have
the stated cosine, the decision rule gives each of its verdicts, and the relation's exact
permutation test finds a relation that is there and none that is not."""

import math

import numpy as np
import pandas as pd
import pytest
import torch

from anchorkit.studies.diagnosis import AT, DRAWS, OVERLAPS
from anchorkit.studies.diagnosis.overlap import (IN_BETWEEN, SOURCE, WEAK_VERDICT, blended, relation, relations,
                               verdict, verdicts)


@pytest.mark.parametrize("c", OVERLAPS)
def test_a_blended_direction_has_the_stated_cosine_with_v(c):
    v = torch.zeros(64)
    v[5] = 1.0
    d = blended(v, c, DRAWS, seed=7)
    assert d.shape == (DRAWS, 64)
    assert torch.allclose(d.norm(dim=1), torch.ones(DRAWS), atol=1e-6)
    assert torch.allclose(d @ v, torch.full((DRAWS,), c), atol=1e-6)
    if 0 < c < 1:  # the rest of it is random, and differs between draws
        assert not torch.allclose(d[0], d[1])
    assert torch.equal(d, blended(v, c, DRAWS, seed=7))  # seeded


def curves(drop_at) -> pd.DataFrame:
    """Constructed controls: the drop at each overlap c given by ``drop_at(c)``, 8 controls."""
    rows = [{"regime": "r", "optimizer": "rotated", "target": "syntax", "run": f"c{s}",
             "overlap": c, "draw": k, "control_drop": drop_at(c) + 0.001 * s}
            for s in range(8) for c in OVERLAPS for k in range(DRAWS)]
    return pd.DataFrame(rows)


@pytest.mark.parametrize("drop_at, expected", [
    (lambda c: min(1.0, 2.4 * c), SOURCE),  # damage that rises steeply with the overlap
    (lambda c: c * c, WEAK_VERDICT),  # rises, but a sixteenth at a quarter's overlap
    (lambda c: 0.02, WEAK_VERDICT),  # flat: the damage does not depend on the overlap
    (lambda c: 0.8 * c, IN_BETWEEN),
])
def test_the_decision_rule_gives_every_verdict_on_constructed_controls(drop_at, expected):
    v = verdicts(curves(drop_at))
    assert list(v.verdict) == [expected] and int(v.controls.iloc[0]) == 8
    assert math.isclose(v.median_drop.iloc[0], drop_at(AT) + 0.0035, abs_tol=1e-9)


def test_the_rules_edges():
    assert verdict(0.3) == SOURCE and verdict(0.1) == WEAK_VERDICT and verdict(0.2) == IN_BETWEEN


def test_a_relation_that_is_there_is_found_and_one_that_is_not_is_not():
    x = np.arange(8) / 10
    strong = relation(x, 2 * x + 0.01 * np.sin(np.arange(8)))
    assert strong["pearson"] > 0.99 and strong["p_pearson"] <= 2 / math.factorial(8)
    assert strong["spearman"] == pytest.approx(1.0) and strong["p_spearman"] < 0.001
    none = relation(x, np.array([0.3, 0.1, 0.4, 0.1, 0.5, 0.9, 0.2, 0.6])[[3, 0, 7, 1, 5, 2, 6, 4]])
    assert none["p_pearson"] > 0.05
    flat = relation(x, np.full(8, 0.2))
    assert math.isnan(flat["pearson"]) and math.isnan(flat["p_pearson"])


def test_at_16_seeds_the_relation_draws_orderings_and_keeps_its_meaning():
    """16! orderings cannot all be tried: the p-value comes from random orderings with a fixed
    seed, the same on every call, never 0, tiny for a relation that is there, and not small for
    one that is not; the exact path at 8 seeds is the one its tables were computed with."""
    from anchorkit.studies.diagnosis.overlap import EXACT_MAX, PERMUTATIONS

    x = np.arange(16) / 10
    strong = relation(x, 2 * x + 0.01 * np.sin(np.arange(16)))
    assert strong["n"] == 16 > EXACT_MAX
    assert strong["p_pearson"] == 1 / (1 + PERMUTATIONS)  # none as large: the floor, not 0
    assert relation(x, 2 * x + 0.01 * np.sin(np.arange(16))) == strong  # the same draws
    shuffled = 2 * x[np.random.default_rng(3).permutation(16)]
    none = relation(x, shuffled)
    assert abs(none["pearson"]) < 0.5 and none["p_pearson"] > 0.05
    # a negative relation is not a positive one (one-sided)
    assert relation(x, -2 * x)["p_pearson"] > 0.99


def test_relations_judge_each_arm_measure_and_cosine():
    x = np.arange(8) / 10
    t = pd.DataFrame({"optimizer": ["rotated"] * 8, "cos_e1_syntax": x, "cos_e1_spike": x[::-1],
                      "shortfall": 1 - x, "control_drop": x + 0.01})
    out = relations(t).set_index(["measure", "against"])
    assert bool(out.loc[("control_drop", "cos_e1_syntax"), "relation"])
    assert not bool(out.loc[("shortfall", "cos_e1_syntax"), "relation"])  # falls with it
    assert bool(out.loc[("shortfall", "cos_e1_spike"), "relation"])
