"""The essay's predictions as tests: constructed tables whose verdict is known."""

import pandas as pd

from anchorkit import essay


def _layers(boundary=2.0, interior=1.0, runs=6, functional=0.5, recipes=("control",)):
    rows = []
    for rec in recipes:
        for r in range(runs):
            for layer in range(4):
                b = layer in (0, 3)
                het = (boundary if b else interior) * (1.1 if rec == "falloff" and b else 1.0)
                for measure, fin in (("head_heterogeneity", het), ("noncommutativity", 1.0),
                                     ("functional_noncommutativity", functional)):
                    rows.append({"run": f"{rec}-{r}", "seed": r, "optimizer": "adam",
                                 "recipe": rec, "layer": layer, "boundary": b, "kind": "ov",
                                 "measure": measure, "initial": 1.0, "final": fin,
                                 "enrichment": het if measure == "head_heterogeneity" else fin})
    return pd.DataFrame(rows)


def _heads(n_sink=6, n_other=10, sink_value=0.01, anchor_change=0.1, worker_change=1.0):
    rows = []
    for i in range(n_sink + n_other):
        sink = i < n_sink
        rows.append({"run": f"control-{i % 6}", "seed": i % 6, "optimizer": "adam",
                     "recipe": "control", "stage": "final", "layer": i % 4, "head": i // 4,
                     "sink_dominated": sink, "value_content": sink_value if sink else 1.0 + i,
                     "class": "anchor" if sink else "worker",
                     "ov_change": (anchor_change if sink else worker_change) + 0.01 * i,
                     "gradient_alignment": (-0.5 if sink else 0.5) + 0.01 * i})
    return pd.DataFrame(rows)


def test_boundary_heterogeneity_verdicts():
    assert essay.boundary_heterogeneity(_layers(2.0, 1.0))["verdict"] == essay.SUPPORTED
    assert essay.boundary_heterogeneity(_layers(0.5, 1.0))["verdict"] == essay.NOT_SUPPORTED
    assert essay.boundary_heterogeneity(_layers(runs=3))["verdict"] == essay.NOT_TESTABLE


def test_sinks_with_near_zero_value_content():
    assert essay.sinks_carry_little_value(_heads())["verdict"] == essay.SUPPORTED
    assert essay.sinks_carry_little_value(_heads(sink_value=50.0))["verdict"] == essay.NOT_SUPPORTED
    assert essay.sinks_carry_little_value(_heads(n_sink=2))["verdict"] == essay.NOT_TESTABLE


def test_functional_measure_discounts_layers_with_anchors():
    heads = _heads()
    assert essay.functional_split(_layers(functional=0.5), heads)["verdict"] == essay.SUPPORTED
    assert essay.functional_split(_layers(functional=1.5), heads)["verdict"] == essay.NOT_SUPPORTED
    no_anchor = heads.assign(**{"class": "worker"})
    assert essay.functional_split(_layers(), no_anchor)["verdict"] == essay.NOT_TESTABLE


def test_initial_contribution_and_change():
    c = lambda rho, p: pd.DataFrame([{"group": "all", "rho": rho, "p": p, "n": 100}])  # noqa: E731
    assert essay.initial_contribution_predicts_change(c(-0.3, 0.01))["verdict"] == essay.SUPPORTED
    assert essay.initial_contribution_predicts_change(c(0.3, 0.01))["verdict"] == essay.NOT_SUPPORTED
    assert essay.anchors_change_less(_heads())["verdict"] == essay.SUPPORTED
    assert essay.anchors_change_less(_heads(anchor_change=5.0))["verdict"] == essay.NOT_SUPPORTED


def test_gradient_alignment_between_classes():
    assert essay.gradient_alignment_differs(_heads())["verdict"] == essay.SUPPORTED
    same = _heads().assign(gradient_alignment=0.1)
    assert essay.gradient_alignment_differs(same)["verdict"] == essay.NOT_SUPPORTED


def test_recipe_effect_is_paired_by_seed():
    layers = _layers(recipes=("control", "falloff"))
    heads = pd.concat([_heads(), _heads().assign(recipe="falloff")])
    out = essay.recipe_changes_it(layers, heads)
    assert out["heterogeneity_ratio"]["pairs"] == 6
    assert out["heterogeneity_ratio"]["median_difference"] > 0
    assert essay.recipe_changes_it(_layers(), _heads())["verdict"] == essay.NOT_TESTABLE
