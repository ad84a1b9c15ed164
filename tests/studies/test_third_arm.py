"""The basis-free arm's paper set judged by its predictions (anchorkit.studies.rotated_basis.third_arm)
on constructed tables: every part can hold, fail, or wait for the set."""

import numpy as np
import pandas as pd
import pytest

from anchorkit.core.task import SYNTAX
from anchorkit.measures.directions import SYNTAX_CHANCE
from anchorkit.studies.rotated_basis.question import MORE, UNDECIDED
from anchorkit.studies.rotated_basis import third_arm as t
from anchorkit.studies.rotated_basis.basis_free import EVEN, GAUSSIAN_KURTOSIS, PAPER_SEEDS

ARM = t.ARM


def results(shared=None, seeds=PAPER_SEEDS, removal=0.3):
    """Plain with its spike along the axes, rotated and the arm without; the arm's columns as
    ``shared`` overrides (a value, or a per-seed list)."""
    g = np.random.default_rng(0)
    rows = []
    for i, s in enumerate(seeds):
        for opt, spike, top, kurt, cos in (("adam", True, 0.4, 9.0, 0.9),
                                           ("rotated", False, 0.1, 5.0, 0.5),
                                           (ARM, False, 1.2 * EVEN, GAUSSIAN_KURTOSIS, 0.2)):
            row = {"seed": s, "optimizer": opt, "raw_removal": 0.5 + g.normal(0, 0.01),
                   "net_removal": 0.5, "removal_net_of_reference": 0.4,
                   "raw_spill": 0.1 + g.normal(0, 0.005)}
            for b in ("axes", "rotated"):
                row |= {f"control_has_spike_{b}": spike and b == "axes",
                        f"control_top_share_{b}": top + g.normal(0, 0.001),
                        f"control_kurtosis_{b}": kurt + g.normal(0, 0.01),
                        **{f"control_syntax_cos_{sym}_{b}": cos for sym in SYNTAX}}
            if opt == ARM:
                row["raw_removal"] += removal
                for k, v in (shared or {}).items():
                    row[k] = v[i] if isinstance(v, list) else v
            rows.append(row)
    return pd.DataFrame(rows)


def alignment(seeds=PAPER_SEEDS, arm=0.7):
    return pd.DataFrame([{"seed": s, "optimizer": o, "role": "anchored", "context": c,
                          "slice": k, "alignment": (arm if o == ARM else 0.8) + 0.001 * s}
                         for s in seeds for o in ("adam", "rotated", ARM)
                         for c in ("difference", "other") for k in range(5)])


def test_the_premise_absent_holds_part_by_part_where_the_tables_say_so():
    p = t.premise(results())
    assert list(p.holds) == [True] * len(p) and len(p) == 5
    spiky = [True, True, True] + [False] * (len(PAPER_SEEDS) - 3)  # 13 of 16 spike-free: short
    bad = t.premise(results({"control_has_spike_rotated": spiky,
                             "control_kurtosis_axes": 4.0}))
    held = dict(zip(bad.part + " " + bad.basis, bad.holds.tolist()))
    assert held["no spike rotated axes"] is False and held["no spike coordinate axes"] is True
    assert held["kurtosis coordinate axes"] is False  # far from the Gaussian value
    above_plain = t.premise(results({"control_top_share_axes": 0.5}))
    top = dict(zip(above_plain.part + " " + above_plain.basis, above_plain.holds.tolist()))
    assert top["top share coordinate axes"] is False


def test_a_part_waits_for_every_seed():
    p = t.premise(results(seeds=PAPER_SEEDS[:-1]))
    assert p.holds.isna().all() and "15 controls" in p.figure.iloc[0]


def test_the_question_is_asked_against_both_arms():
    q = t.question(results())
    raw = q[q.measure == "raw removal"].set_index("against")
    assert raw.answer["adam"] == MORE and raw.answer["rotated"] == MORE
    assert raw[f"{ARM} larger on"]["adam"] == len(PAPER_SEEDS)
    alike = t.question(results(removal=0.0)).set_index(["against", "measure"])
    assert alike.answer[("adam", "raw removal")] != MORE


def test_the_conjecture_s_parts_hold_fail_or_are_reported():
    c = t.conjecture(results({"raw_spill": 0.3}), alignment())
    held = c.holds.tolist()
    assert held == [True, True, True, None]  # (c) reported: no side predicted
    c = c.set_index("part")
    assert c.loc["(c) alignment against rotated's", "median difference"] == pytest.approx(-0.1)
    sits = t.conjecture(results({"control_syntax_cos_⏎_axes": SYNTAX_CHANCE, "raw_spill": 0.0}),
                        alignment())
    assert sits.holds.tolist()[:3] == [False, True, False]  # at chance is not below it


def test_the_folder_s_tables_judge_the_arm_with_the_other_two_arms_committed_tables():
    r, a = results({"raw_spill": 0.3}), alignment()
    mine = {"results": r[r.optimizer == ARM], "alignment": a[a.optimizer == ARM],
            "spectra": pd.DataFrame()}
    others = {"results": r[r.optimizer != ARM], "alignment": a[a.optimizer != ARM]}
    out = t.tables(mine, others)
    assert set(out) == {"results", "alignment", "spectra", "premise", "question", "conjecture"}
    assert (out["results"].optimizer == ARM).all()  # the folder keeps its own pairs only
    pd.testing.assert_frame_equal(out["premise"], t.premise(r))
    pd.testing.assert_frame_equal(out["conjecture"], t.conjecture(r, a))
    alone = t.tables(mine, {"results": others["results"].iloc[:0],
                            "alignment": others["alignment"].iloc[:0]})
    assert alone["question"].answer.eq(UNDECIDED).all()  # no other arm: nothing to compare
