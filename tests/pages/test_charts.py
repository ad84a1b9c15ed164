"""Chart builders: each takes the tidy table a study writes and returns a valid, interactive
Vega-Lite chart."""

import json

import numpy as np
import pandas as pd
import pytest

from anchorkit.pages import charts

RUNS = [("falloff-rotated-1", 1, "rotated"), ("falloff-adam-1", 1, "adam"),
        ("falloff-rotated-2", 2, "rotated"), ("falloff-adam-2", 2, "adam")]


def _alignment():
    return pd.DataFrame([{"run": r, "seed": s, "optimizer": o, "recipe": "falloff", "role": role,
                          "context": ctx, "slice": sl, "alignment": 0.1 * sl}
                         for r, s, o in RUNS for role in ("anchored", "control")
                         for ctx in ("difference", "other") for sl in range(5)])


def _dose():
    return pd.DataFrame([{"run": r, "seed": s, "optimizer": o, "dose": d, "net_removal": d,
                          "raw_removal": d, "spill": 0.01 * d} for r, s, o in RUNS
                         for d in (0.25, 0.5, 0.75, 1.0)])


def _basis():
    rng = np.random.default_rng(0)
    rows = []
    for r, s, o in RUNS:
        for role in ("anchored", "control"):
            for b, n in (("axes", 64), ("rotated", 64), ("random", 16)):
                share = rng.dirichlet(np.ones(n)) if b != "random" else [np.nan] * n
                rows += [{"run": r, "seed": s, "optimizer": o, "role": role, "basis": b,
                          "direction": k, "share": share[k], "cost": rng.random()}
                         for k in range(n)]
    return pd.DataFrame(rows)


def _spec(chart) -> str:
    return json.dumps(chart.to_dict())  # to_dict validates against the Vega-Lite schema


@pytest.mark.parametrize("build", [
    lambda: charts.alignment_by_slice(_alignment(), charts.recipe_weights()),
    lambda: charts.removal_by_dose(_dose()),
    lambda: charts.energy_spectrum(_basis().dropna(subset=["share"])),
    lambda: charts.direction_cost(_basis()),
    lambda: charts.trajectories(pd.DataFrame([{"run": r, "seed": s, "recipe": "falloff",
                                               "optimizer": o, "epoch": e, "score_sum": 0.5}
                                              for r, s, o in RUNS for e in (0, 20)]),
                                ["score_sum"], "score"),
], ids=["alignment", "dose", "spectrum", "cost", "trajectories"])
def test_every_chart_is_valid_and_tells_run_seed_and_value_on_hover(build):
    spec = _spec(build())
    assert '"tooltip"' in spec and '"field": "run"' in spec and '"field": "seed"' in spec


def test_a_table_missing_a_column_is_named():
    with pytest.raises(ValueError, match="spill"):
        charts.removal_by_dose(_dose().drop(columns="spill"))


def test_spill_panel_draws_the_selectivity_criterion():
    spec = _spec(charts.removal_by_dose(_dose(), criterion=0.02))
    assert '"criterion": 0.02' in spec and "strokeDash" in spec


def test_recipe_weights_are_the_falloff_recipe():
    w = charts.recipe_weights("falloff").pivot(index="slice", columns="term", values="weight")
    assert w["light anti"].iloc[0] == pytest.approx(0.2) and w["light anti"].iloc[-1] == pytest.approx(0.03)
    assert w["light anti"].is_monotonic_decreasing and (w["hold"] == 1.0).all()
    assert np.isnan(w["pull"].iloc[0]) and (w["pull"].iloc[1:] == 0.1).all()


def test_screen_charts_are_valid_and_interactive():
    res = pd.DataFrame([{"run": f"falloff-adam-{s}", "seed": s, "net_removal": 0.1 * s,
                         "raw_removal": 0.1 * s + 0.05, "kept": s > 4, "e1_share": 0.01 * s}
                        for s in range(1, 9)])
    for chart in (charts.removal_by_seed(res), charts.scatter(res, "e1_share", "net_removal",
                                                              "x", "y", color="kept")):
        spec = _spec(chart)
        assert '"field": "run"' in spec and '"field": "seed"' in spec
    assert "random()" not in _spec(charts.removal_by_seed(res))  # the dots sit still between loads


def test_essay_charts_are_valid_and_interactive():
    layers = pd.DataFrame([{"run": f"r{s}", "seed": s, "recipe": "control", "layer": l,
                            "measure": "head_heterogeneity", "enrichment": 1.0 + l}
                           for s in range(3) for l in range(4)])
    heads = pd.DataFrame([{"run": f"r{s}", "seed": s, "class": c, "value_content": 0.1 * s}
                          for s in range(3) for c in ("anchor", "worker")])
    for chart in (charts.by_layer(layers, "head_heterogeneity", "x"),
                  charts.strip(heads, "class", "value_content", "v", log=True)):
        spec = _spec(chart)
        assert '"field": "run"' in spec and '"field": "seed"' in spec


def test_trajectory_panels_are_named_in_the_books_words():
    assert charts.trajectory_label("score_difference") == "difference"
    assert charts.trajectory_label("alignment_difference_4") == "difference contexts, slice 4"
    assert charts.trajectory_label("alignment_other_0") == "other-op contexts, slice 0"


def test_the_lead_picture_labels_claims_in_words_and_every_legend_is_legible():
    from anchorkit.judging import ledger
    from anchorkit.measures.verdicts import VERDICTS

    table = pd.DataFrame([{"id": i, "name": n, "claim": "c", "regime": r, "verdict": VERDICTS[k % 4],
                           "ours": "o"} for k, (i, n) in enumerate(ledger.NAMES.items())
                          for r in ("weak basis", "second regime")])
    spec = charts.verdict_grid(table).to_dict()
    labels = [row["label"] for row in spec["datasets"][spec["data"]["name"]]]
    assert "P0  a privileged basis forms" in labels
    assert spec["layer"][0]["encoding"]["color"]["legend"]["columns"] == 1  # fits a phone's width
    with pytest.raises(ValueError, match="name"):
        charts.verdict_grid(table.drop(columns="name"))
    config = spec["config"]
    assert config["legend"]["labelFontSize"] >= 12 and config["legend"]["titleFontSize"] >= 12
    assert config["axis"]["titleFontSize"] >= 12 and config["axis"]["labelFontSize"] >= 12
    assert config["header"]["labelFontSize"] >= 12 and config["text"]["fontSize"] >= 12


def test_the_answer_picture_shows_each_seed_the_interval_the_margin_and_greys_a_row_that_cannot_ask():
    rng = np.random.default_rng(0)
    diffs = pd.concat([pd.DataFrame({"row": name, "seed": range(704, 704 + n),
                                     "difference": rng.normal(mid, 0.1, n)})
                       for name, mid, n in (("recalibrated", 0.2, 16), ("weak basis", 0.0, 8))])
    summary = pd.DataFrame([
        {"row": "recalibrated", "median": 0.2, "low": 0.04, "high": 0.31, "asked": True,
         "reason": ""},
        {"row": "weak basis", "median": 0.0, "low": -0.2, "high": 0.2, "asked": False,
         "reason": "no privileged basis"}])
    chart = charts.answer_picture(diffs, summary, 0.1)
    spec = _spec(chart)
    assert '"field": "seed"' in spec and '"field": "difference"' in spec
    assert charts.answer_rows(summary) == ["recalibrated", "weak basis — no privileged basis"]
    d = chart.to_dict()
    band = [l for l in d["layer"] if l["mark"] == "rect" or l["mark"].get("type") == "rect"]
    assert band  # the margin band
    assert sum('"type": "text"' in json.dumps(l["mark"]) for l in d["layer"]) == 3  # names, sides
    said = {row.get("t") for rows in d["datasets"].values() for row in rows}
    assert {charts.LESS, charts.MORE} <= said  # the sides named in words
    assert charts.GREY in spec  # the row that cannot ask
    with pytest.raises(ValueError, match="reason"):
        charts.answer_picture(diffs, summary.drop(columns="reason"), 0.1)


def test_the_verdict_grid_reads_without_colour_a_glyph_in_every_cell_and_in_the_legend():
    from anchorkit.judging import ledger
    from anchorkit.measures.verdicts import VERDICTS

    table = pd.DataFrame([{"id": i, "name": n, "claim": "c", "regime": "r", "verdict": VERDICTS[k % 4],
                           "ours": "o"} for k, (i, n) in enumerate(ledger.NAMES.items())])
    spec = charts.verdict_grid(table).to_dict()
    glyphs = [l for l in spec["layer"] if json.dumps(l["mark"]).count("text")]
    assert glyphs and glyphs[0]["encoding"]["text"]["field"] == "glyph"
    rows = spec["datasets"][spec["data"]["name"]] if "data" in spec else next(
        iter(spec["datasets"].values()))
    assert {r["glyph"] for r in rows} == set(charts.VERDICT_GLYPHS.values())
    assert len(set(charts.VERDICT_GLYPHS.values())) == len(VERDICTS)  # distinct glyphs
    legend = json.dumps(spec, ensure_ascii=False)
    assert all(g in legend for g in charts.VERDICT_GLYPHS.values())
    assert "#1a9850" not in legend and "#d73027" not in legend  # no red/green pair


def test_the_paired_removal_panels_share_one_y_scale_and_short_arm_labels():
    """Issue 70: raw and net removal are compared side by side, so they share a y scale; the arms
    are named by their first word under two narrow columns (the full names overlapped)."""
    import pandas as pd

    from anchorkit.pages import charts

    r = pd.DataFrame({"seed": [1, 1, 2, 2], "optimizer": ["adam", "rotated"] * 2,
                      "raw_removal": [0.5, 0.7, 0.6, 0.8], "net_removal": [0.1, 0.2, 0.3, 0.4]})
    spec = charts.e2_pairs(r).to_dict()
    assert spec["resolve"]["scale"]["y"] == "shared"
    axis = spec["hconcat"][0]["layer"][0]["encoding"]["x"]["axis"]
    assert axis["labelExpr"] == charts.SHORT_ARM


def test_each_regime_s_alignment_panel_draws_its_own_recipe_s_pull():
    from anchorkit.pages import charts
    from anchorkit.engine.regimes import RECALIBRATED, WEAK

    pulls = {r: charts.recipe_weights(r.settings("falloff")["recipe"]).query("term == 'pull'")
             .weight.iloc[0] for r in (WEAK, RECALIBRATED)}
    assert pulls[RECALIBRATED] == 0.3 and pulls[WEAK] == 0.1
