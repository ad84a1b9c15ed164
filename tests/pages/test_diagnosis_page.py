"""The diagnosis page ("Why our runs differ from the source's"): it reads only committed tables
(no weights at build time, and neither does the report's directions-of-note table), its first
screen is short, plain and computed, part 1's rank curves start where the study's e₁ edit stands,
and its summary has an outcome for every candidate in both regimes; and the two small page
fixes read with it (the cross-CPU sentence, the scout grid's adopted mark)."""

import re

import pandas as pd
import pytest

from anchorkit.studies import diagnosis
from anchorkit.pages import diagnosis_charts as dc
from anchorkit.studies.diagnosis import findings as dp
from anchorkit.pages import report_page
from anchorkit.studies.diagnosis.running import seeds_of
from anchorkit.pages.page import REPORTS
from anchorkit.engine.regimes import REPORT
from anchorkit.core.store import RunStore
from anchorkit.engine.registry import PAPER_SEEDS, study_runs

CLAIM_ID = re.compile(r"\b[EPL]\d[a-z]?\b")


@pytest.fixture
def no_weights(monkeypatch):
    """Loading any run's weights fails the test."""
    def refuse(*a, **k):
        raise AssertionError("a page computed something from weights")
    monkeypatch.setattr(RunStore, "load_final", refuse)
    import anchorkit.measures.directions
    import anchorkit.core.train
    monkeypatch.setattr(anchorkit.core.train, "load_model", refuse)
    monkeypatch.setattr(anchorkit.measures.directions, "load_model", refuse)  # where a page would load


@pytest.fixture(scope="module")
def tables():
    return dp.load(REPORTS)


def test_the_page_computes_everything_from_committed_tables(tables, no_weights):
    texts = [dp.first_screen(tables), dp.probe_text(tables), dp.rank_text(tables),
             dp.overlap_text(tables), dp.relation_text(tables), dp.mirror_text(tables),
             dp.full_overlap_text(tables), dp.erasure_gain_text(tables)]
    assert all(texts)
    charts = [dc.dissociation_chart(dp.dissociation(tables)), dc.probe_chart(tables),
              dc.rank_chart(dp.rank_long(tables)), dc.rank_chart(dp.rank_long(tables), "spill"),
              dc.overlap_chart(tables), dc.overlap_chart(tables, "control_other_ops")]
    assert all(c.to_dict() for c in charts)
    summary = dp.summary_table(tables)
    assert list(summary.columns[2:]) == [r.title for r in tables]
    assert [r for r in diagnosis.REGIMES if r in tables] == list(tables)  # in the diagnosis's order
    assert set(diagnosis.REQUIRED) <= set(tables)
    said = dp.shown_text(tables, REPORTS)
    assert said.startswith("It shows the weak-basis regime") and "Not shown yet" not in said
    d = dp.dissociation(tables)
    for r in tables:  # a regime beyond the required two gets the focus's sentence, its own figures
        if r not in diagnosis.REQUIRED:
            assert dp.column_text(r, tables[r], d) in said
            rot = d[(d.regime == r.title) & (d.optimizer == "rotated")]
            assert f"removes {dp.summary(rot.raw_removal)}" in said
    assert summary.notna().all().all() and (summary != "").all().all()


def test_the_reports_directions_of_note_are_read_not_computed(tables, no_weights):
    # in every regime the diagnosis page shows (its committed ``notable`` tables)
    shown = {r: {} for r in tables}
    runs = {r: study_runs("rotated-basis", PAPER_SEEDS, "paper", regime=r) for r in tables}
    notable = report_page.notables(runs, shown, store=None)
    for r in tables:
        assert set(notable[r].hash) == {c.hash for c in runs[r]}


def test_other_runs_compute_their_directions_of_note(monkeypatch):
    import anchorkit.measures.directions

    monkeypatch.setattr(anchorkit.measures.directions, "notable_table", lambda *a, **k: "computed")
    runs = {r: study_runs("rotated-basis", [712], "paper", regime=r) for r in REPORT}
    shown = {r: {"spectra": None, "basis": None} for r in REPORT}
    assert report_page.notables(runs, shown, store=None) == {r: "computed" for r in REPORT}


def test_the_first_screen_is_short_plain_and_computed(tables):
    text = dp.first_screen(tables)
    assert len(text.split()) <= 120
    assert not CLAIM_ID.search(text)
    d = dp.dissociation(tables)
    second = d[(d.regime == diagnosis.REGIMES[1].title) & (d.optimizer == "rotated")]
    # the rotated arm's figure, the one the report quotes (one form per number), which the chart
    # beside it shows in its own colour
    assert dp.summary(second.raw_removal) in text
    assert dp.summary(tables[diagnosis.REGIMES[1]]["results"].query("optimizer == 'rotated'").raw_removal) in text


def test_rank_curves_start_where_the_studys_e1_edit_stands(tables):
    """k = 1 is the e₁ edit: its raw removal is the rotated-basis study's, run for run."""
    for r, t in tables.items():
        k1 = t["rank_curves"].query("k == 1 and recipe != 'control'").set_index("run")
        study = t["results"].set_index("run").raw_removal
        assert len(k1) == len(study) == 2 * len(seeds_of(r))
        pd.testing.assert_series_equal(k1.removal.sort_index().astype(float), study.sort_index(),
                                       check_names=False, atol=1e-6, check_exact=False)
        # and the random subspaces at k = 1 are e₁ too
        assert (k1.removal - k1.random_removal).abs().max() < 1e-6


def test_the_probe_tables_cover_every_run_and_slice(tables):
    for r, t in tables.items():
        p = t["probe"]
        assert p.groupby(["run", "edit"]).slice.nunique().eq(5).all()
        assert p.run.nunique() == 4 * len(seeds_of(r))  # falloff and control, both arms
        assert ((p.low <= p.accuracy) & (p.accuracy <= p.high)).all()


def test_the_cross_cpu_sentence_reads_the_rerun_record_that_moved_most():
    from anchorkit.engine.provenance import read_study
    from anchorkit.pages.supporting import cross_cpu_text

    moved = [(int((~t["comparison"].within_tolerance).sum()), len(t["comparison"]))
             for t in (read_study(f.parent)[1] for f in REPORTS.glob("rerun/*/provenance.json"))]
    out, n = max(moved)
    text = cross_cpu_text(REPORTS)
    assert (f"changed {out} of the {n} values" in text) if out else ("agrees" in text)
    assert "recorded yet" in cross_cpu_text(REPORTS / "no-such-folder")


def test_the_scout_grid_marks_the_adopted_regime():
    from anchorkit.pages import charts

    levels = pd.DataFrame([{"regime": r, "epochs": 400, "seed": s, "level": "none"}
                           for r in ("a", "b") for s in (1, 2)])
    regimes = pd.DataFrame([{"regime": r, "epochs": 400, "level": "none", "controls_score": True}
                            for r in ("a", "b")])
    marked = charts.level_grid(levels, regimes, adopted="b").to_dict()
    assert "'b' ? [datum.value, '(adopted after the scout)']" in str(marked)
    assert "adopted" not in str(charts.level_grid(levels, regimes).to_dict())


def test_each_correlation_is_also_judged_by_the_ledgers_one_relation_rule():
    rel = pd.DataFrame([
        {"optimizer": "rotated", "measure": "control_drop", "against": "cos_e1_syntax", "n": 8,
         "pearson": 0.72, "testable": True, "relation": False},   # holds 0.94, above 0
        {"optimizer": "rotated", "measure": "shortfall", "against": "cos_e1_syntax", "n": 8,
         "pearson": 0.2, "testable": True, "relation": False},    # excludes 0.94
        {"optimizer": "rotated", "measure": "shortfall", "against": "cos_e1_spike", "n": 8,
         "pearson": 0.70, "testable": True, "relation": False},   # holds 0.94 and 0
        {"optimizer": "adam", "measure": "shortfall", "against": "cos_e1_spike", "n": 8,
         "pearson": float("nan"), "testable": False, "relation": False}])
    got = dp.source_r_verdicts(rel)
    assert list(got.against_source) == ["reproduced", "not reproduced",
                                        "cannot be decided at this number of seeds", "not comparable"]
    assert got.low.iloc[0] > 0 and got.high.iloc[0] >= dp.SOURCE_R > got.high.iloc[1]


def test_a_regime_whose_parts_are_not_all_committed_is_named_not_shown(tmp_path):
    """The diagnosis's third regime before its parts land: the page shows the required two and
    names the third with how it is computed; once a part is missing from a required regime, the
    page refuses to build rather than show less."""
    import shutil
    from anchorkit.engine.regimes import RECALIBRATED

    for r in diagnosis.REQUIRED:
        for study in ("diagnosis", "rotated-basis", "viability"):
            src = r.reports(REPORTS) / study
            if src.exists():
                shutil.copytree(src, r.reports(tmp_path) / study)
    got = dp.load(tmp_path)
    assert list(got) == list(diagnosis.REQUIRED)
    said = dp.shown_text(got, tmp_path)
    assert said.startswith("It shows the weak-basis regime and the second regime.")
    assert f"Not shown yet" in said and said.endswith(f"the {RECALIBRATED.title}.")
    shutil.rmtree(diagnosis.FOCUS.reports(tmp_path) / "diagnosis")
    with pytest.raises(Exception):
        dp.load(tmp_path)


def _family_tables(answers: str, query: str, ranks=(None, None), query_ranks=(None, None)):
    """One regime's part-1 tables with each family's verdict for the rotated arm, and two short
    falloff runs' effective ranks by each family (None: none up to 8)."""
    def verdicts(v):
        return pd.DataFrame([{"optimizer": "rotated", "verdict": v}])

    def ranks_of(rk):
        return pd.DataFrame({"run": ["a", "b"], "recipe": "falloff",
                             "effective_rank": [float("nan") if r is None else r for r in rk]})
    return {"rank_verdicts": verdicts(answers), f"{dp.FAMILY}_verdicts": verdicts(query),
            "ranks": ranks_of(ranks), f"{dp.FAMILY}_ranks": ranks_of(query_ranks)}


@pytest.mark.parametrize("answers, query, expected", [
    (dp.DIFFUSE, dp.DIFFUSE, dp.DIFFUSE),  # only where both families read it
    (dp.DIFFUSE, dp.NEITHER, dp.NEITHER),
    (dp.DIFFUSE, dp.LOW_RANK_VERDICT, f"{dp.LOW_RANK_VERDICT}, fitted at the query"),
    (dp.LOW_RANK_VERDICT, dp.LOW_RANK_VERDICT,
     f"{dp.LOW_RANK_VERDICT}, fitted at the answers and at the query")])
def test_the_families_together_say_diffuse_only_where_both_do(answers, query, expected):
    assert dp.families_verdict(_family_tables(answers, query), "rotated") == expected


def test_a_run_rescued_by_either_family_counts_as_rescued():
    t = _family_tables(dp.DIFFUSE, dp.DIFFUSE, ranks=(None, 1), query_ranks=(None, 1))
    assert dp.rescued_by_rank(t) == (1, 0)  # run b: e1 alone does it; a: neither family
    t = _family_tables(dp.DIFFUSE, dp.DIFFUSE, ranks=(None, 1), query_ranks=(6, 1))
    assert dp.rescued_by_rank(t) == (1, 1)  # the second family rescues run a


def test_no_sentence_concludes_beyond_the_families_tried(tables):
    for text in (dp.first_screen(tables), dp.why_sentence(tables)):
        assert "two families" in text or "two erasure families" in text
        if "no small subspace" in text:
            assert "of the families tried" in text
    assert "both families:" in dp.family_text(tables)
