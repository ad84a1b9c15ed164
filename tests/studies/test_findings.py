"""The report page's findings: each answer gives every one of its verdicts on constructed tables,
and concludes only what its regime can decide."""

from __future__ import annotations

import pandas as pd
import pytest

from anchorkit.measures.verdicts import UNDECIDED
from anchorkit.pages.screens import CLAIM_ID

IDS = ["P0", "P1", "P2", "E3a", "E3b", "E3c", "E3e"]
PREMISE_MISSING = pd.DataFrame({"id": IDS, "verdict": ["not reproduced"] * 3 + [UNDECIDED] * 4})
# existence reproduced, its size (P2) undecided: the premise forms
PREMISE_FORMS = PREMISE_MISSING.assign(verdict=["reproduced", "not reproduced", UNDECIDED]
                                       + [UNDECIDED] * 4)


def _results(kept_rotated, kept_plain, net=(0.8, 0.8), spill=(0.0, 0.0)):
    rows = []
    for o, kept, n, sp in (("rotated", kept_rotated, net[0], spill[0]),
                           ("adam", kept_plain, net[1], spill[1])):
        for s, k in enumerate(kept):
            rows.append({"optimizer": o, "seed": s, "kept": k, "net_removal": n, "raw_removal": n,
                         "spill": sp, "over_removal": False, "control_has_spike_rotated": False,
                         "control_top_share_rotated": 0.1, "control_top_share_axes": 0.05})
    return pd.DataFrame(rows)


ALIGNMENT = pd.DataFrame([{"optimizer": o, "seed": s, "role": "anchored", "context": "difference",
                           "slice": sl, "alignment": 0.9} for o in ("rotated", "adam")
                          for s in range(8) for sl in range(5)])
ALL = [True] * 8


def test_the_report_answers_follow_the_tables():
    from anchorkit.studies.rotated_basis.findings import report_answers

    seeds = range(8)
    results = pd.DataFrame([{"optimizer": o, "seed": s, "kept": True, "net_removal": 0.8,
                             "raw_removal": 0.8, "spill": 0.0, "over_removal": False,
                             "control_has_spike_rotated": False, "control_top_share_rotated": 0.1,
                             "control_top_share_axes": 0.05} for o in ("rotated", "adam") for s in seeds])
    alignment = pd.DataFrame([{"optimizer": o, "seed": s, "role": "anchored", "context": "difference",
                               "slice": sl, "alignment": 0.9} for o in ("rotated", "adam")
                              for s in seeds for sl in range(5)])
    claims = PREMISE_MISSING
    held = report_answers(results, alignment, claims)
    # without the premise (P0 not reproduced) no answer concludes about a privileged basis
    assert "cannot say" in held["e1"] and "cannot say" in held["e2"]
    assert "favour the alternative" not in held["e1"]
    assert "does not depend on e₁ being an axis" not in held["e2"]
    formed = report_answers(results, alignment, PREMISE_FORMS)
    assert formed["e1"].startswith("the numbers favour the alternative")
    assert "does not depend on e₁ being an axis" in formed["e2"] and "cannot say" not in formed["e2"]
    # existence and size said apart: a size rule never speaks for existence
    assert ("plain Adam builds no privileged basis beyond the share tolerance (the ledger: not "
            in held["e3"])
    assert ("plain Adam builds a privileged basis (the ledger: reproduced); one axis holding "
            "about half the energy, as in the source: cannot be decided") in formed["e3"]
    assert not any(CLAIM_ID.search(t) for t in [*held.values(), *formed.values()])
    size_only = claims.assign(verdict=[UNDECIDED, "reproduced", "reproduced"] + [UNDECIDED] * 4)
    assert "whether plain Adam builds a privileged basis cannot be decided" in report_answers(
        results, alignment, size_only)["e1"]
    lost = results.assign(kept=(results.optimizer == "adam") | (results.seed > 1))
    assert report_answers(lost, alignment, claims)["e1"].startswith("the anchor was lost on 2 of 8")
    spilled = results.assign(spill=0.05)
    assert report_answers(spilled, alignment, claims)["e2"].startswith("the edit is not selective")



def test_e1_gives_every_verdict_where_the_premise_forms():
    from anchorkit.studies.rotated_basis.findings import report_answers

    def e1(rot, plain):
        return report_answers(_results(rot, plain), ALIGNMENT, PREMISE_FORMS)["e1"]

    worry = e1([False, False] + [True] * 6, ALL)
    assert "as the report's worry predicts" in worry and "2 of 8 rotated runs and 0 of 8" in worry
    assert "cannot decide" in worry  # two discordant seeds: p = 0.5
    reverse = e1(ALL, [False] * 7 + [True])
    assert "the reverse of the report's worry" in reverse
    assert "p = 0.02" in reverse and "cannot decide" not in reverse  # 7 of 7 discordant: decided
    same = e1([False] + [True] * 7, [True] + [False] + [True] * 6)
    assert "as often under both arms" in same and "1 rotated, 1 plain" in same
    assert e1(ALL, ALL).startswith("the numbers favour the alternative")
    # the same losses, where the premise does not form, conclude nothing about the basis
    missing = report_answers(_results(ALL, [False] * 7 + [True]), ALIGNMENT, PREMISE_MISSING)["e1"]
    assert "reverse" not in missing and "cannot say" in missing


def test_e2_gives_every_verdict():
    from anchorkit.studies.rotated_basis.findings import report_answers

    def e2(**kw):
        return report_answers(_results(ALL, ALL, **kw), ALIGNMENT, PREMISE_FORMS)["e2"]

    assert e2().startswith("the edit removes difference as well under rotated Adam")
    assert e2(net=(0.8, 0.5)).startswith("the edit removes difference better under rotated Adam")
    assert e2(net=(0.5, 0.8)).startswith("the edit stays selective on every run but removes less")
    spilled = e2(spill=(0.0, 0.05))
    assert spilled.startswith("the edit is not selective") and "0 of 8 rotated and 8 of 8 plain" in spilled


def test_the_arms_test_counts_only_the_seeds_where_one_arm_lost():
    from anchorkit.studies.rotated_basis.findings import arms_test

    t = arms_test(_results([False, False, True, True, False, True, True, True],
                           [False, True, False, True, True, True, True, True]))
    # seed 0: both lost (concordant); 1: rotated only; 2: plain only; 4: rotated only
    assert (t["rotated_only"], t["plain_only"]) == (2, 1)
    assert t["p"] == pytest.approx(1.0)
    assert arms_test(_results(ALL, ALL))["p"] == 1.0


def test_the_side_by_side_table_has_one_column_per_regime_and_one_row_per_figure():
    from anchorkit.studies.rotated_basis.findings import QUESTIONS, question_table

    f = {k: k.upper() for q in QUESTIONS.values() for k in q}
    df = question_table({"Weak-basis regime": f, "Second regime": {k: v + "!" for k, v in f.items()}}, "E1")
    assert list(df.columns) == ["Weak-basis regime", "Second regime"]
    assert list(df.index) == list(QUESTIONS["E1"].values())
    assert df.iloc[0, 1] == df.iloc[0, 0] + "!"


def test_the_ledger_headline_counts_each_regime_on_its_own():
    from anchorkit.studies.rotated_basis.findings import ledger_top

    weak = pd.DataFrame({"id": ["P1", "E1a", "E2a"], "verdict": ["not reproduced", "reproduced",
                                                                 "not comparable"]})
    second = weak.assign(verdict=["reproduced", "reproduced", UNDECIDED])
    text = ledger_top({"weak-basis regime": weak, "second regime": second})
    assert text.startswith("Of the 3 findings")
    assert ("in the weak-basis regime 1 reproduce, 1 do not, 0 cannot be decided at this number "
            "of seeds and 1 cannot be compared") in text
    assert ("in the second regime 2 reproduce, 0 do not, 1 cannot be decided at this number of "
            "seeds and 0 cannot be compared") in text
    assert not CLAIM_ID.search(text)  # the claims are named on the ledger page, not here


def test_verdicts_are_counted_in_words_never_by_id():
    from anchorkit.studies.rotated_basis.findings import counted

    v = pd.Series(["reproduced", "not reproduced", "not reproduced", UNDECIDED],
                  index=["E3a", "E3b", "E3c", "E3e"])
    assert counted(v, "of the claims") == (f"1 of the claims reproduced, 2 not reproduced, 1 "
                                           f"{UNDECIDED}")
    assert counted(v.iloc[1:2], "of the claims") == "1 of the claims not reproduced"
    assert counted(v.iloc[:0], "of the claims") == "none of the claims"


def test_a_page_shows_the_second_regime_only_where_its_tables_are_written(tmp_path):
    from anchorkit.core.config import ParameterError
    from anchorkit.engine.regimes import SECOND, WEAK
    from anchorkit.engine.protocol import shown_regimes
    from anchorkit.engine.request import check_regimes
    from anchorkit.engine.registry import STUDIES

    rb = STUDIES["rotated-basis"]
    assert shown_regimes(rb, [704], reports_dir=tmp_path) == [WEAK]
    named = check_regimes([SECOND.name, WEAK.name, SECOND.name])
    assert named == (SECOND, WEAK)
    assert shown_regimes(rb, [704], reports_dir=tmp_path, regimes=named) == [WEAK, SECOND]
    for bad in (SECOND.name, SECOND, []):
        with pytest.raises(ParameterError, match="regimes"):
            check_regimes(bad)
    with pytest.raises(ValueError, match="regime"):
        check_regimes(["no-such"])


def test_a_regime_is_described_from_its_catalogue_entry():
    from anchorkit.engine.regimes import REGIMES, SECOND, WEAK

    assert WEAK.describe() == "the calibrated settings"
    text = SECOND.describe()
    assert "no learned positions" in text and "no residual biases" in text and "0.01" in text
    assert SECOND.title == "second regime"
    assert REGIMES["beta2-0.999"].title == "beta2-0.999 regime"


def test_each_calibration_criterion_can_fail_alone():
    """A falloff run that meets every criterion, then one that misses exactly one of them each:
    the table says which, and the count of runs meeting all follows."""
    from anchorkit.measures import criteria
    from anchorkit.pages.criteria_met import CRITERIA, criteria_table, criteria_text
    from anchorkit.core.task import OPS

    def run(seed, score=0.99, deep=0.9, other=0.1, raw=0.9, spill=0.0):
        scores = {f"{role}_score_{op}": score for role in ("anchored", "control") for op in OPS}
        result = {"optimizer": "rotated", "seed": seed, "raw_removal": raw, **scores}
        align = [{"optimizer": "rotated", "seed": seed, "role": "anchored", "context": c,
                  "slice": sl, "alignment": v} for sl in range(5)
                 for c, v in (("difference", deep), ("other", -other))]
        doses = [{"optimizer": "rotated", "seed": seed, "dose": d, "spill": spill * d}
                 for d in (0.5, 1.0)]
        return result, align, doses

    cases = [run(0), run(1, score=criteria.SCORE_MIN - 0.01), run(2, deep=criteria.ALIGNMENT_HIGH - 0.01),
             run(3, other=criteria.ALIGNMENT_LOW + 0.01), run(4, raw=criteria.REMOVAL_MIN - 0.01),
             run(5, spill=criteria.SPILL_MAX + 0.01)]
    table = criteria_table(pd.DataFrame([c[0] for c in cases]),
                           pd.DataFrame([a for c in cases for a in c[1]]),
                           pd.DataFrame([d for c in cases for d in c[2]]))
    assert table["meets all"].tolist() == [True] + [False] * 5
    assert table["criteria met"].tolist() == ["5 of 5"] + ["4 of 5"] * 5
    assert list(CRITERIA) == [c for c in table.columns if c in CRITERIA]  # each criterion a column
    assert criteria_text(table) == "1 of 6 rotated Adam runs meet every criterion"


def test_the_syntax_vector_sentence_counts_where_it_is_the_spike():
    """The source report's spike is the vector holding the syntax tokens; the sentence counts,
    per arm, the controls where that vector is the top-energy one and the costliest, over the
    controls that have one."""
    from anchorkit.studies.rotated_basis.findings import syntax_vector_text

    rows = []
    # rotated: seed 0 syntax = top = costliest; seed 1 syntax is costliest only; seed 2 none
    for seed, (top, syn, cost) in enumerate([(5, 5, 5), (7, 9, 9), (3, None, 3)]):
        for kind, idx in (("top energy", top), ("syntax", syn), ("costliest", cost)):
            rows.append({"role": "control", "optimizer": "rotated", "seed": seed, "kind": kind,
                         "index": idx, "cost": 0.5, "share": 0.1})
    # plain: one control whose syntax vector is neither
    for kind, idx in (("top energy", 1), ("syntax", 2), ("costliest", 3)):
        rows.append({"role": "control", "optimizer": "adam", "seed": 0, "kind": kind, "index": idx,
                     "cost": 0.01, "share": 0.01})
    table = pd.DataFrame(rows).astype({"index": "Int64"})
    text = syntax_vector_text(table)
    assert "under rotated Adam it is the top-energy direction on 1 of 2 controls and the costliest on 2 of 2" in text
    assert "under plain Adam it is the top-energy direction on 0 of 1 controls and the costliest on 0 of 1" in text


def test_removal_is_compared_seed_by_seed_and_the_runs_near_the_line_are_named():
    from anchorkit.studies.rotated_basis.findings import removal_comparison

    rows = []
    for opt, net in (("rotated", [0.9, 0.8, 0.7, 0.6, 0.5, 0.9, 0.9, 0.9]), ("adam", [0.5] * 8)):
        for seed, v in enumerate(net):
            rows.append({"optimizer": opt, "seed": 700 + seed, "net_removal": v,
                         "raw_removal": v, "removal_error": 0.045})
    text = removal_comparison(pd.DataFrame(rows))
    assert "net removal, rotated minus its twin seed by seed, has median +0.35 over 8 seeds" in text
    assert "rotated higher on 7; exact Wilcoxon p = 0.02" in text
    assert "rotated 704 (0.500)" in text and "plain 700 (0.500)" in text  # on the line
    assert "rotated 703" not in text  # 0.6 is beyond one standard error (0.032)
    far = pd.DataFrame(rows).assign(net_removal=lambda d: d.net_removal.where(d.net_removal != 0.5, 0.1))
    assert "no run is within one standard error" in removal_comparison(far)


def test_a_spill_that_misses_by_less_than_one_probe_context_is_said_to_be_at_the_resolution_limit():
    from anchorkit.measures import criteria
    from anchorkit.pages import criteria_met
    from anchorkit.studies.rotated_basis.recalibration import MET

    ok = {"lowest op": 0.99, "alignment, slices 3–4": 0.9, "|alignment|, other ops": 0.05,
          "raw removal": 0.9}
    step = criteria_met.SPILL_RESOLUTION
    table = pd.DataFrame([
        {"arm": "plain Adam", "seed": 1, **ok, "spill, any dose": criteria.SPILL_MAX + step / 2},
        {"arm": "plain Adam", "seed": 2, **ok, "spill, any dose": criteria.SPILL_MAX + 2 * step},
        {"arm": "plain Adam", "seed": 3, **ok, "spill, any dose": 0.0}])
    table["criteria met"] = [f"{sum(MET[k](r[k]) for k in MET)} of 5" for _, r in table.iterrows()]
    table["meets all"] = table["criteria met"] == "5 of 5"
    assert list(criteria_met.at_resolution_limit(table).seed) == [1]  # not 2 (two contexts over)
    text = criteria_met.criteria_text(table)
    assert text.startswith("1 of 3 plain Adam runs meet every criterion")
    assert "the spill of plain Adam 1 (spill 0.0210; 4 of 5 criteria met) misses" in text
    assert "at the limit of what the measure resolves" not in criteria_met.criteria_text(table[table.seed != 1])
