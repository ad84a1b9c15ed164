"""The second regime's viability rule gives each of its verdicts on constructed cases."""

import pandas as pd
import pytest

from anchorkit.engine import regimes
from anchorkit.studies.scout import viability as v
from anchorkit.core.task import OPS


def anchor(seed, optimizer, raw=0.8, spill=0.0, score=0.97, length=1600):
    row = {"seed": seed, "optimizer": optimizer, "raw_removal": raw, "spill": spill,
           "run_epochs": length, "epochs": length}
    row.update({f"{role}_score_{op}": score for role in ("anchored", "control") for op in OPS})
    return row


def premise(seed, optimizer, share=0.5, ratio=10.0, axes=0.07, score=0.97, length=800):
    return {"seed": seed, "optimizer": optimizer, "top_share_rotated": share,
            "top_ratio_rotated": ratio, "top_share_axes": axes, "min_score": score,
            "run_epochs": length, "epochs": length}


def runs(length=1600, **rotated_1):
    """Both seeds under both optimizers; plain Adam loses its anchor on both (no condition)."""
    return [anchor(1, "rotated", length=length, **rotated_1), anchor(2, "rotated", raw=0.1,
                                                                     length=length),
            anchor(1, "adam", raw=0.1, length=length), anchor(2, "adam", raw=0.1, length=length)]


@pytest.mark.parametrize("change, kept", [({}, True), ({"raw": 0.49}, False),
                                          ({"spill": 0.03}, False), ({"score": 0.89}, False)])
def test_one_rotated_seed_keeping_the_anchor_is_enough_and_each_condition_can_fail(change, kept):
    assert v.viable(pd.DataFrame(runs(**change))) is kept


def test_plain_adam_alone_never_makes_the_regime_viable():
    rows = pd.DataFrame([anchor(1, "adam"), anchor(2, "adam"), anchor(1, "rotated", raw=0.2),
                         anchor(2, "rotated", raw=0.2)])
    assert v.viable(rows) is False


def test_a_control_scoring_low_fails_the_run():
    row = anchor(1, "rotated")
    row["control_score_max"] = 0.5
    assert v.keeps(row) is False and v.keeps(anchor(1, "rotated")) is True


def full_premise(**rotated_2):
    return pd.DataFrame([premise(1, "rotated"), premise(2, "rotated", **rotated_2),
                         premise(1, "adam", share=0.1, ratio=1.1), premise(2, "adam")])


@pytest.mark.parametrize("change, short", [({}, True), ({"share": 0.29}, False),
                                           ({"ratio": 1.9}, False), ({"axes": 0.11}, False),
                                           ({"score": 0.92}, False)])
def test_the_short_length_needs_the_premise_on_both_seeds(change, short):
    assert v.premise_short_enough(full_premise(**change)) is short


@pytest.mark.parametrize("full, short_runs, short_premise, expected", [
    (True, True, True, (True, 800)), (True, True, False, (True, 1600)),
    (True, False, True, (True, 1600)), (False, True, True, (False, None))])
def test_the_decision_goes_on_only_when_the_full_length_is_viable(full, short_runs,
                                                                 short_premise, expected):
    anchors = pd.DataFrame(runs(1600, raw=0.8 if full else 0.1)
                           + runs(800, raw=0.8 if short_runs else 0.1))
    prem = full_premise() if short_premise else full_premise(share=0.1)
    d = v.decide(anchors, prem)
    assert (d["viable"], d["epochs"]) == expected


def test_the_rule_text_states_the_fixed_values():
    for value in (v.SPILL_MAX, v.SCORE_MIN, v.SHORT, *v.SHORT_PREMISE.values()):
        assert f"{value:g}" in v.RULE


@pytest.mark.retrain
@pytest.mark.slow
def test_the_check_runs_end_to_end_at_the_quick_profile(tmp_path):
    from anchorkit.engine.provenance import read_tables
    from anchorkit.core.store import RunStore

    tables = v.run_viability(tmp_path / "reports", RunStore(tmp_path / "store"),
                             scheduler="in-process", profile="quick", progress=False)
    written = read_tables(regimes.SECOND.reports(tmp_path / "reports") / "viability")
    assert set(written) == {"premise", "anchors", "decision"}
    assert len(tables["premise"]) == 2 * 2 * 2 and len(tables["anchors"]) == 2 * 2 * 2
    assert tables["anchors"].keeps.dtype == bool
    table = v.anchor_table(tables)
    assert len(table) == 4 and "keeps the anchor" in table


def test_the_findings_say_when_a_plain_control_loses_difference_to_the_edit():
    anchors = pd.DataFrame([{**anchor(s, o), "control_drop": d, "alignment_4": 0.8}
                            for s, o, d in ((1, "adam", 0.01), (2, "adam", 1.1),
                                            (1, "rotated", 0.0), (2, "rotated", 0.0))])
    prem = pd.DataFrame([{**premise(s, o, length=1600), "top_ratio_axes": 3.0,
                          "kurtosis_axes": 10.0, "kurtosis_rotated": 12.0}
                         for s in (1, 2) for o in ("adam", "rotated")])
    text = v.findings_text({"anchors": anchors, "premise": prem})
    assert "loses difference entirely" in text and "0.01 and 1.10" in text
    calm = anchors.assign(control_drop=0.01)
    assert "loses difference" not in v.findings_text({"anchors": calm, "premise": prem})
