"""The essay's predictions as tests: constructed tables whose verdict is known, and constructed
cases on which the earlier pooled, circular and uniform-blind versions of the tests were wrong."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from anchorkit.core.paths import REPO as ROOT
from anchorkit.studies import essay

SEEDS = range(8)
RUNS = ("control", "falloff")


def _layers(boundary=2.0, interior=1.0, seeds=SEEDS, functional=0.5):
    rows = []
    for seed in seeds:
        for rec in RUNS:
            for layer in range(4):
                b = layer in (0, 3)
                het = (boundary if b else interior) * (1.1 if rec == "falloff" and b else 1.0)
                het *= 1 + 0.01 * seed  # seeds differ a little
                for measure, fin in (("head_heterogeneity", het), ("noncommutativity", 1.0),
                                     ("functional_noncommutativity", functional)):
                    rows.append({"run": f"{rec}-adam-{seed}", "seed": seed, "optimizer": "adam",
                                 "recipe": rec, "layer": layer, "boundary": b, "kind": "ov",
                                 "measure": measure, "initial": 1.0, "final": fin,
                                 "enrichment": het if measure == "head_heterogeneity" else fin})
    return pd.DataFrame(rows)


def _heads(seeds=SEEDS, stages=(("initial", 0), ("snapshot", essay.EARLY_EPOCH), ("final", 400)),
           row=None):
    """Every head of two runs per seed at every stage; ``row(seed, run, stage, layer, head, rng)``
    fills in the measured columns."""
    rng = np.random.default_rng(0)
    rows = []
    for seed in seeds:
        for rec in RUNS:
            for stage, epoch in stages:
                for layer in range(4):
                    for head in range(4):
                        base = {"run": f"{rec}-adam-{seed}", "seed": seed, "optimizer": "adam",
                                "recipe": rec, "stage": stage, "epoch": epoch, "layer": layer,
                                "head": head, "sink_dominated": head == 0,
                                "class": "anchor" if head == 0 else "worker" if head >= 2
                                else "neither", "value_content": 1.0 + head,
                                "ov_change": 1.0, "ov_change_to_final": 1.0,
                                "gradient_alignment": 0.0}
                        if row is not None:
                            base.update(row(seed, rec, stage, layer, head, rng))
                        rows.append(base)
    return pd.DataFrame(rows)


def verdict(name, result):
    return essay.judge({name: result})[name]["verdict"]


def test_boundary_heterogeneity_verdicts():
    assert verdict("b", essay.boundary_heterogeneity(_layers(2.0, 1.0))) == essay.SUPPORTED
    assert verdict("b", essay.boundary_heterogeneity(_layers(0.5, 1.0))) == essay.NOT_SUPPORTED
    assert verdict("b", essay.boundary_heterogeneity(_layers(seeds=range(3)))) == essay.NOT_TESTABLE


def test_the_unit_is_the_seed_not_the_run_or_the_head():
    out = essay.boundary_heterogeneity(_layers())
    assert out["unit"] == "seed" and out["n"] == len(SEEDS)
    out = essay.sinks_carry_little_value(_heads(row=lambda *a: {}))
    assert out["n"] == len(SEEDS) and out["heads"] == 3 * len(SEEDS) * len(RUNS) * 16 // 3


def test_sinks_with_near_zero_value_content():
    low = _heads(row=lambda s, r, st, layer, head, rng: {"value_content": 0.01 if head == 0
                                                          else 1.0 + rng.random()})
    assert verdict("s", essay.sinks_carry_little_value(low)) == essay.SUPPORTED
    high = low.assign(value_content=np.where(low.sink_dominated, 50.0, low.value_content))
    assert verdict("s", essay.sinks_carry_little_value(high)) == essay.NOT_SUPPORTED


def test_functional_measure_discounts_layers_with_anchors():
    heads = _heads()
    assert verdict("f", essay.functional_split(_layers(functional=0.5), heads)) == essay.SUPPORTED
    assert verdict("f", essay.functional_split(_layers(functional=1.5), heads)) == essay.NOT_SUPPORTED
    no_anchor = heads.assign(**{"class": "worker"})
    assert verdict("f", essay.functional_split(_layers(), no_anchor)) == essay.NOT_TESTABLE


def test_a_layer_confound_fools_the_pooled_correlation_but_not_the_within_layer_test():
    """Layer 0 starts lowest and changes most, but within each layer initial value content says
    nothing about change: the pooled ρ (every head of every run) is strongly negative; the test
    within layer, with the seed as the unit, is not supported."""
    def confound(seed, rec, stage, layer, head, rng):
        return {"value_content": layer + 0.5 * rng.random() if stage == "initial" else 1.0,
                "ov_change": (4 - layer) + 0.5 * rng.random()}

    heads = _heads(row=confound)
    init = heads[heads.stage == "initial"]
    heads["value_content"] = heads["value_content"].where(  # shared by the seed's runs
        heads.stage != "initial",
        init.groupby(["seed", "layer", "head"]).value_content.transform("first"))
    pooled = essay.pooled_change_correlation(heads)
    assert pooled["rho"] < -0.8 and pooled["p"] < 1e-10
    # within a layer the confound is gone: no way shown, and nothing goes against the essay
    assert verdict("c", essay.initial_contribution_predicts_change(heads)) == essay.NOT_SHOWN

    def real(seed, rec, stage, layer, head, rng):  # within every layer: lower start, more change
        return {"value_content": layer + head / 10 if stage == "initial" else 1.0,
                "ov_change": 5 - head + 0.1 * rng.random()}

    out = essay.initial_contribution_predicts_change(_heads(row=real))
    assert out["distinct_heads"] == 16 * len(SEEDS)  # twins and recipe siblings counted once
    assert essay.judge({"c": out})["c"]["verdict"] == essay.SUPPORTED


def growth_noise(seed, rec, stage, layer, head, rng):
    """Pure noise: each head's W_OV grows by a random factor in training; value content follows
    its norm at each stage; the classes are then read off value content by the rule. Nothing
    makes anchors change less, but a head that grew a lot has both a large final value content
    and a large relative change."""
    key = (seed, rec, layer, head)
    g = growth_noise.cache.setdefault(key, (rng.lognormal(0, 1), rng.lognormal(0, 1)))
    early_norm, final_norm = 1.0 * g[0], 1.0 * g[0] * g[1]
    vc = {"initial": 1.0, "snapshot": early_norm, "final": final_norm}[stage]
    return {"value_content": vc, "ov_change": final_norm,  # grows with ‖W_final‖ / ‖W_initial‖
            "ov_change_to_final": g[1],
            "sink_dominated": bool(rng.random() < 0.5)}


growth_noise.cache = {}


def classify(heads):
    """The page's rule, per run and stage: anchor = sink-dominated and below half the median
    value content; worker = at least the median."""
    med = heads.groupby(["run", "stage"]).value_content.transform("median")
    cls = np.where(heads.value_content >= med, "worker",
                   np.where(heads.sink_dominated & (heads.value_content < 0.5 * med), "anchor",
                            "neither"))
    return heads.assign(**{"class": cls})


def test_the_circular_rule_supports_anchors_change_less_from_pure_noise_and_the_early_rule_does_not():
    growth_noise.cache.clear()
    heads = classify(_heads(row=growth_noise))
    old = essay.anchors_change_less(heads, classes_at="final")
    new = essay.anchors_change_less(heads)
    assert essay.judge({"x": old})["x"]["verdict"] == essay.SUPPORTED
    assert essay.judge({"x": new})["x"]["verdict"] == essay.NOT_SHOWN  # noise: no way at all


def test_anchors_that_do_change_less_are_found_from_the_early_classes():
    def settled(seed, rec, stage, layer, head, rng):
        return {"ov_change_to_final": (0.1 if head == 0 else 1.0) + 0.05 * rng.random()}

    assert verdict("a", essay.anchors_change_less(_heads(row=settled))) == essay.SUPPORTED
    no_snapshots = _heads(row=settled, stages=(("initial", 0), ("final", 400)))
    out = essay.anchors_change_less(no_snapshots)
    judged = essay.judge({"a": out})["a"]
    assert judged["verdict"] == essay.NOT_TESTABLE and "snapshot" in judged["would_change"]


def test_gradient_alignment_between_classes_at_the_early_checkpoint():
    def apart(seed, rec, stage, layer, head, rng):
        return {"gradient_alignment": (-0.5 if head == 0 else 0.5) + 0.01 * rng.random()}

    assert verdict("g", essay.gradient_alignment_differs(_heads(row=apart))) == essay.DIFFERS
    same = _heads(row=lambda *a: {"gradient_alignment": 0.1 + 0.01 * a[-1].random()})
    assert verdict("g", essay.gradient_alignment_differs(same)) == essay.NO_DIFFERENCE
    converged_only = _heads(row=apart, stages=(("initial", 0), ("final", 400)))
    assert verdict("g", essay.gradient_alignment_differs(converged_only)) == essay.NOT_TESTABLE


def test_recipe_effect_is_paired_by_seed():
    out = essay.recipe_changes_heterogeneity(_layers())
    assert out["n"] == len(SEEDS) and out["median"] > 0
    assert verdict("r", out) == essay.DIFFERS
    sinks = _heads(row=lambda s, rec, *a: {"sink_dominated": rec == "falloff"})
    assert verdict("r", essay.recipe_changes_sinks(sinks)) == essay.DIFFERS


def test_holm_by_hand_and_in_the_verdicts():
    adj = essay.holm({"a": 0.01, "b": 0.04, "c": 0.03, "d": float("nan")})
    assert adj["a"] == pytest.approx(0.03) and adj["c"] == pytest.approx(0.06)
    assert adj["b"] == pytest.approx(0.06) and np.isnan(adj["d"])
    # one test at the best p of eight seeds (0.0039) is supported alone, not among twenty like it
    one = essay.boundary_heterogeneity(_layers())
    assert one["p"] < 0.01
    alone = essay.judge({"x": one})["x"]
    many = essay.judge({f"x{i}": dict(one) for i in range(20)})["x0"]
    # among twenty, even every seed on one side (p 0.0039) cannot reach 0.05 / 20: undecidable
    assert alone["verdict"] == essay.SUPPORTED and many["verdict"] == essay.UNDECIDABLE
    assert many["p_holm"] == pytest.approx(min(1.0, 20 * one["p"]))
    assert stats.wilcoxon(np.arange(1, 9), alternative="greater").pvalue == pytest.approx(
        essay.best_p(8, "greater"))


def test_a_test_whose_best_p_cannot_pass_holm_is_undecidable_not_unsupported():
    five = essay.boundary_heterogeneity(_layers(seeds=range(5)))
    assert essay.best_p(5, five["alternative"]) * 6 >= essay.ALPHA
    judged = essay.judge({f"x{i}": dict(five) for i in range(6)})["x0"]
    assert judged["verdict"] == essay.UNDECIDABLE and "more seeds" in judged["would_change"]
    assert essay.judge({"x": five})["x"]["verdict"] != essay.UNDECIDABLE  # alone it can pass


def test_a_two_sided_count_says_how_many_seeds_lie_above_zero():
    out = essay._across_seeds(pd.Series([0.3, -0.1, 0.2, 0.5, -0.4, 0.1, 0.2, 0.3]),
                              "two-sided", "x")
    assert out["agree"] == 6


def test_a_one_sided_prediction_is_not_supported_only_where_the_seeds_go_against_it():
    """Issue 70: a prediction short of its corrected threshold is "not shown at this number of
    seeds" when the seeds lean its way or no way; "not supported" only when the reverse one-sided
    test passes at the same corrected level (Bonferroni over the tests)."""
    def test_of(values):
        return essay._across_seeds(pd.Series(values, index=range(len(values))), "greater", "x")

    up = [0.5, 0.7, 0.9, 1.1, 1.3, 1.5, 1.7, 1.9]
    down, mixed = [-v for v in up], [0.5, -0.7, 0.9, -1.1, 1.3, -1.5, 0.2, -0.1]
    got = essay.judge({"up": test_of(up), "down": test_of(down), "mixed": test_of(mixed)})
    assert got["up"]["verdict"] == essay.SUPPORTED
    assert got["down"]["verdict"] == essay.NOT_SUPPORTED
    assert got["mixed"]["verdict"] == essay.NOT_SHOWN
    leaning = essay.judge({"a": test_of([0.1, 0.2, -0.05, 0.3, 0.1, -0.1, 0.2, 0.05]),
                           "b": test_of(up)})
    assert leaning["a"]["verdict"] == essay.NOT_SHOWN  # the predicted way, short of the bar


@pytest.mark.parametrize("falloff", ["falloff", "falloff-pull-0.3"])  # a regime names its own
def test_a_regime_column_reads_the_recipe_predictions_on_its_controls_and_the_rest_on_its_early_set(
        falloff):
    """The recalibrated column (issue 71): its fresh seeds have falloff runs only, with their
    early weights; the paper seeds have controls and falloff but final weights only. Each
    prediction reads the set that has what it needs: the two on what anchoring changes the
    paper seeds (here 6, controls beside falloff), the six others the fresh seeds (here 9, their
    early snapshot read) — and none is "not testable" for want of weights or controls."""
    early_seeds, recipe_seeds = range(20, 29), range(6)
    early = _heads(early_seeds, row=lambda *a: {"ov_change": a[-1].random()})  # a rank to read
    early = early[early.recipe == "falloff"].assign(set="early")
    recipe = _heads(recipe_seeds, stages=(("initial", 0), ("final", 400))).assign(set="recipe")
    layers = pd.concat([_layers(seeds=early_seeds).query("recipe == 'falloff'").assign(set="early"),
                        _layers(seeds=recipe_seeds).assign(set="recipe")], ignore_index=True)
    named = {"recipe": {"falloff": falloff}}  # the recalibrated column's is falloff-pull-0.3
    early, recipe, layers = early.replace(named), recipe.replace(named), layers.replace(named)
    tests = essay.column_tests(pd.concat([early, recipe], ignore_index=True), layers)
    assert set(tests) == {"boundary", "sinks", "split", "change", "populations", "gradients",
                          *essay.RECIPE_TESTS}
    for name, t in tests.items():
        assert t["n"] == len(recipe_seeds if name in essay.RECIPE_TESTS else early_seeds), name
        assert t["verdict"] != essay.NOT_TESTABLE, (name, t.get("reason"))
    with pytest.raises(ValueError, match="one anchored recipe"):
        essay.as_falloff(pd.DataFrame({"recipe": ["control", "falloff", "split-anti"]}))
    # the whole table without its sets: the recipe predictions lose their controls on the fresh
    # seeds and the early ones their snapshots on the paper seeds, so reading both from one set
    # would test on fewer seeds or not at all
    alone = essay.all_tests(early, layers[layers.set == "early"])
    assert all(alone[k]["verdict"] == essay.NOT_TESTABLE or alone[k]["n"] == 0
               for k in essay.RECIPE_TESTS)


@pytest.mark.slow
def test_a_column_task_reads_only_the_epochs_it_is_given(tmp_path, monkeypatch):
    """The column reads a run's published epochs only (the store that trained it keeps more), so
    that a fresh clone, which has only those, computes the same rows."""
    import anchorkit.core.train as training
    from anchorkit.core.store import RunStore
    from anchorkit.studies.essay import measuring
    from tests.conftest import small

    monkeypatch.setattr(training, "SNAPSHOT_EPOCHS", (1, 2))
    store = RunStore(tmp_path / "store")
    cfg = small(seed=3, recipe="falloff", epochs=4)
    training.train([cfg], store, progress=False)
    assert store.snapshot_epochs(cfg) == [1, 2]
    out = measuring.column_task((cfg, (2,)), store, "cpu")
    heads = out["heads"]
    assert set(zip(heads.stage, heads.epoch)) == {("initial", 0), ("snapshot", 2), ("final", 4)}
    assert set(out) == {"heads", *measuring.geometry.MAP_KINDS}
    none = measuring.column_task((cfg, ()), store, "cpu")["heads"]
    assert set(none.stage) == {"initial", "final"}


def _judged(verdicts: dict[str, str], n: int = 8) -> dict[str, dict]:
    """Judged tests with the verdicts given (the rest of a test's fields as a judge leaves them)."""
    return {k: {"verdict": v, "n": n, "agree": n // 2, "p_holm": 0.5, "sink_heads": 3,
                "heads": 64} for k, v in verdicts.items()}


def test_short_counts_name_every_verdict_given_and_whether_all_were_tested():
    from anchorkit.studies.essay import findings

    verdicts = list(findings.SHORT)  # seven verdicts over the eight predictions: one twice
    tests = _judged(dict(zip(findings.ESSAY_NAMES, verdicts + verdicts[:1])))
    said = findings.short_counts(tests)
    for v, phrase in findings.SHORT.items():
        count = 2 if v == verdicts[0] else 1
        assert f"{count} {phrase}" in said, v
    assert "every prediction tested" not in said
    tested = _judged(dict.fromkeys(findings.ESSAY_NAMES, essay.SUPPORTED))
    assert findings.short_counts(tested) == "8 supported; every prediction tested"


def test_the_two_column_opening_names_the_fair_regime_and_why_and_both_verdicts():
    from anchorkit.studies.essay import findings
    from anchorkit.studies.essay.measuring import COLUMN_REGIME

    fair = _judged(dict.fromkeys(findings.ESSAY_NAMES, essay.NOT_SHOWN), n=24)
    fair["split"] = {**fair["split"], "verdict": essay.NOT_SUPPORTED, "agree": 5}
    weak = _judged(dict.fromkeys(findings.ESSAY_NAMES, essay.NOT_TESTABLE))
    text = findings.columns_first_screen(("recal", fair, "24 seeds"), ("weak", weak, "8 seeds"),
                                         positions=False)
    assert "The fair test is the recal: only the causal mask orders its tokens" in text
    assert "it has 24 seeds against 8 seeds" in text
    assert "There: 1 not supported, 7 not shown; every prediction tested." in text
    assert "In the weak: 8 not testable." in text
    assert "not supported (5 of 24 seeds) there" in text
    weak["split"]["n"] = 0  # a test with no seed: its verdict alone
    assert text.replace("not testable (4 of 8 seeds) in the other",
                        "not testable in the other") == findings.columns_first_screen(
        ("recal", fair, "24 seeds"), ("weak", weak, "8 seeds"), positions=False)
    # the reason it gives must hold for the regime it names: a model with learned positions
    # would make it false, and the page's regime has none
    with pytest.raises(ValueError, match="learned positions"):
        findings.columns_first_screen(("recal", fair, "24"), ("weak", weak, "8"), positions=True)
    assert COLUMN_REGIME.settings()["model"].learned_positions is False


def test_the_verdict_figure_draws_a_column_per_regime_with_a_glyph_per_verdict():
    from anchorkit.pages import charts
    from anchorkit.pages.charts.grids import COLUMN, ESSAY_COLOURS, ESSAY_GLYPHS
    from anchorkit.studies.essay import findings

    assert set(ESSAY_GLYPHS) == set(ESSAY_COLOURS)
    assert len(set(ESSAY_GLYPHS.values())) == len(ESSAY_GLYPHS)  # each verdict reads apart
    columns = {"weak": _judged(dict.fromkeys(findings.ESSAY_NAMES, essay.NOT_TESTABLE)),
               "recal": _judged(dict.fromkeys(findings.ESSAY_NAMES, essay.SUPPORTED))}
    spec = charts.prediction_verdicts(columns, findings.ESSAY_NAMES).to_dict()
    assert spec["width"] == 2 * COLUMN
    rows = next(iter(spec["datasets"].values()))
    assert {(r["regime"], r["glyph"]) for r in rows} == {("weak", "–"), ("recal", "✓")}
    assert len(rows) == 2 * len(findings.ESSAY_NAMES)


def test_the_committed_second_column_tests_every_prediction_at_its_seeds():
    """Issue 71's acceptance on the committed tables: the recalibrated column at the
    confirmation's 24 seeds (16 paper seeds for the two on what anchoring changes), its early
    weights read, and no prediction "not testable"."""
    from anchorkit.engine.provenance import has_tables, read_tables
    from anchorkit.studies.essay.measuring import COLUMN_REGIME, ESSAY

    where = COLUMN_REGIME.reports(ROOT / "reports") / ESSAY
    if not has_tables(where):
        pytest.skip("the second column's tables are not committed")
    t = read_tables(where)
    heads = t["heads"]
    early = heads[heads.set == "early"]
    assert early.seed.nunique() == 24 and set(early[early.stage == "snapshot"].epoch) == {50}
    assert heads[heads.set == "recipe"].seed.nunique() == 16
    tests = essay.column_tests(heads, t["layers"])
    assert all(v["verdict"] != essay.NOT_TESTABLE for v in tests.values()), {
        k: v.get("reason") for k, v in tests.items()}
