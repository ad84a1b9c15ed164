"""The basis-free arm on the report (anchorkit.pages.basis_free): pending, it states no result and
draws no row; committed (constructed tables written to a reports folder of their own, judged with
the regime's committed plain and rotated tables), its sentences are computed from the tables it
shows, every answer of the question reads in words, and its row of the answer's picture is its
seeds' basis-free − plain differences, each row naming its arm."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anchorkit.engine.provenance import read_tables, write_study
from anchorkit.pages import asked, basis_free as page, charts
from anchorkit.studies.rotated_basis import basis_free as bf, question, third_arm

ROOT = Path(__file__).resolve().parents[2]
REGIME = bf.REGIME
ARM = third_arm.ARM


def committed_tables():
    t = read_tables(REGIME.reports(ROOT / "reports") / "rotated-basis")
    return t


def arm_tables(others, gain):
    """The arm's folder as ``third_arm.tables`` writes it: its results are the plain runs' with
    ``gain`` (a per-seed array) added to raw removal, renamed to the arm."""
    plain = others["results"][others["results"].optimizer == "adam"].sort_values("seed")
    mine = plain.assign(optimizer=ARM, raw_removal=plain.raw_removal.values + gain)
    align = others["alignment"][others["alignment"].optimizer == "rotated"].assign(optimizer=ARM)
    return third_arm.tables({"results": mine, "alignment": align, "spectra": pd.DataFrame(
        {"seed": [0], "optimizer": [ARM]})}, others)


def write(root, tables):
    write_study(page.folder(root), tables, third_arm.FOLDER, list(bf.PAPER_SEEDS), "paper",
                bf.paper_runs(bf.chosen_rate()), 0.0, {}, REGIME.name)


def test_pending_the_section_states_no_result_and_draws_no_row(tmp_path):
    others = committed_tables()
    said = page.said()
    assert "not yet written" in page.found(tmp_path) and "no result" in page.found(tmp_path)
    assert page.read_together(tmp_path) == ""
    assert said.startswith("Basis-free Adam shares")  # the label's case kept
    assert f"{bf.chosen_rate():g}" in said  # the arm's own learning rate, from the decision
    assert page.shown(tmp_path) == [] and page.answer_row(others["results"], tmp_path) is None
    from anchorkit.judging.ledger import ledger

    shown = {REGIME: others}
    diffs, summary = asked.answer_data(shown, {REGIME: ledger(REGIME.reports(ROOT / "reports"),
                                                              REGIME.title)}, reports=tmp_path)
    assert (summary.arm == "rotated").all() and "basis-free" not in " ".join(summary.row)


def test_committed_the_row_is_each_seed_s_basis_free_minus_plain_and_the_rows_name_their_arms(
        tmp_path):
    from anchorkit.judging.ledger import ledger

    others = committed_tables()
    gain = np.linspace(0.25, 0.45, len(bf.PAPER_SEEDS))  # more than the margin on every seed
    write(tmp_path, arm_tables(others, gain))
    diffs, summary = asked.answer_data({REGIME: others}, {REGIME: ledger(
        REGIME.reports(ROOT / "reports"), REGIME.title)}, reports=tmp_path)
    arm_row = summary[summary.arm == ARM].iloc[0]
    assert summary.row.iloc[-1] == arm_row.row  # after the regime (and its confirmation)
    assert "basis-free Adam" in arm_row.row and all(
        "rotated Adam" in r for r in summary[summary.arm == "rotated"].row)
    mine = diffs[diffs.row == arm_row.row].set_index("seed").difference.sort_index()
    assert np.allclose(mine.values, gain) and arm_row["median"] == pytest.approx(np.median(gain))
    assert arm_row.low > question.MARGIN  # every seed above the margin
    spec = charts.answer_picture(diffs, summary, question.MARGIN).to_dict()
    assert "the arm − plain" in str(spec) and "rotated − plain" not in str(spec)
    said = page.found(tmp_path)
    assert "removes more than plain Adam" in said and page.READS[question.MORE] in said
    t = read_tables(page.folder(tmp_path))
    assert f"over {int(t['question'].seeds.iloc[0])} seeds" in said
    held = int(t["premise"].holds.astype(bool).sum())  # every part judged: the set is complete
    assert f"holds in {held} of the {len(t['premise'])} judged" in said
    assert "no cheap direction" in page.read_together(tmp_path)
    assert [len(x.data) for x in page.shown(tmp_path)] == [len(t[k]) for k in (
        "question", "premise", "conjecture")]


@pytest.mark.parametrize("verdict", question.ANSWERS)
def test_every_answer_of_the_question_reads_in_words(verdict):
    rows = pd.DataFrame([{"against": o, "measure": page.PRIMARY, "seeds": 16,
                          "median difference": 0.0, "interval low": -0.05, "interval high": 0.05,
                          "margin": question.MARGIN,
                          "answer": verdict, "seeds needed": 30 if verdict == question.UNDECIDED
                          else None} for o in page.OTHERS])
    said = page.answer_sentence(rows)
    assert page.READS[verdict] in said
    assert "plain Adam" in said and "rotated Adam" in said
    assert ("about 30 seeds would decide it" in said) == (verdict == question.UNDECIDED)


@pytest.mark.parametrize("low, high, side", [(-0.04, 0.34, "no less than"),
                                              (-0.34, 0.04, "no more than"), (-0.3, 0.3, None)])
def test_an_undecided_answer_says_which_side_its_interval_still_excludes(low, high, side):
    """"Cannot be decided" is never said alone where the interval excludes a side beyond the
    margin: that side is named, read one-sided and post hoc; against plain Adam, with the arm
    removing no less, the anchor reads as not needing a privileged basis (post hoc)."""
    rows = pd.DataFrame([{"against": o, "measure": page.PRIMARY, "seeds": 16,
                          "median difference": (low + high) / 2, "interval low": low,
                          "interval high": high, "margin": question.MARGIN,
                          "answer": question.UNDECIDED, "seeds needed": 40} for o in page.OTHERS])
    said = page.answer_sentence(rows)
    assert ("post hoc" in said) == (side is not None)
    if side:
        assert f"{side} plain Adam by more than the margin" in said
        assert f"{side} rotated Adam by more than the margin" in said
    assert ("the anchor does not need one" in said) == (side == "no less than")


def test_the_premise_sentence_counts_only_the_parts_judged_and_names_those_that_fail():
    p = pd.DataFrame({"part": ["a", "b", "b", "c", "d"], "basis": ["x", "x", "y", "", ""],
                      "holds": [True, False, False, None, True]})
    said = page.premise_sentence(p)
    assert "holds in 2 of the 4 judged" in said and said.endswith(": it fails on b (x, y).")
    assert "judged once every seed is in" in page.premise_sentence(p.assign(holds=None))
    assert page.premise_sentence(p.assign(holds=True)).endswith("(the table below).")


def conjecture(a, b, c_median, c_width=0.02):
    """A conjecture table: (a) along two bases, (b) judged ``b``, (c) reported, its interval
    ``c_median`` ± ``c_width``."""
    return pd.DataFrame({"part": ["(a) syntax at chance"] * 2 + ["(b) spill above rotated's",
                                                                 third_arm.REPORTED],
                         "basis": ["coordinate axes", "rotated axes", "", ""],
                         "holds": [*a, b, None], "median difference": [None, None, 0.0, c_median],
                         "interval low": [None, None, -0.01, c_median - c_width],
                         "interval high": [None, None, 0.0, c_median + c_width],
                         "larger on": [None, None, 3, 12], "seeds": [None, None, 16, 16]})


@pytest.mark.parametrize("a, b", [((True, True), True), ((True, True), False),
                                  ((True, False), False), ((False, False), True)])
def test_the_conjecture_reads_as_one_for_every_verdict_of_its_parts(a, b):
    said = page.conjecture_reading(conjecture(a, b, 0.04))
    assert ("sit at chance along both bases" in said) == all(a)
    if not all(a):
        off = [n for n, h in zip(("coordinate axes", "rotated axes"), a) if not h]
        assert f"not at chance along the {' and '.join(off)}" in said
    assert ("finds no support" in said) == (not b) and ("spill is above" in said) == b
    assert "higher than under rotated Adam" in said and "larger on 12 of 16 seeds" in said
    assert "lower than under rotated Adam" in page.conjecture_reading(conjecture(a, b, -0.04))
    across = page.conjecture_reading(conjecture(a, b, 0.04, c_width=0.1))  # its interval spans 0
    assert "not told apart from rotated Adam's" in across and "higher" not in across
    pending = page.conjecture_reading(conjecture((None, None), None, 0.04))
    assert "judged once every seed is in" in pending and "support" not in pending
    half = page.conjecture_reading(conjecture((True, True), None, 0.04))  # (b) not judged yet
    assert "judged once every seed is in" in half and "support" not in half


def test_the_paper_set_is_named_from_its_configurations_or_said_not_set(monkeypatch):
    said = page.paper_set()
    runs = bf.paper_runs(bf.chosen_rate())
    assert f"({len(runs)} runs of {runs[0].epochs} epochs)" in said and bf.REGIME.title in said

    def none():
        raise ValueError("no rate chosen")

    monkeypatch.setattr(bf, "chosen_rate", none)
    assert page.paper_set().startswith("not yet set")


@pytest.mark.parametrize("spills", [0, 2])
def test_what_the_anchor_does_counts_kept_and_spilled_runs_at_the_arm_s_seeds(spills):
    """Kept and spilled runs are counted per arm over the arm's own seeds only (an other arm's
    run at a seed the arm lacks is left out), each count with its denominator."""
    others = committed_tables()["results"]
    seeds = sorted(others.seed.unique())[:6]
    plain = others[others.optimizer == "adam"].set_index("seed").loc[seeds].reset_index()
    mine = plain.assign(optimizer=ARM, kept=[True, True, True, True, False, True],
                        spill=[0.05] * spills + [0.0] * (6 - spills))
    said = page.together(mine, others, conjecture((True, True), False, 0.04))
    runs = others[others.seed.isin(seeds)]
    kept = {a: int(runs[runs.optimizer == a].kept.astype(bool).sum()) for a in ("rotated", "adam")}
    assert (f"on 5 of 6 basis-free runs, against {kept['rotated']} of 6 rotated and "
            f"{kept['adam']} of 6 plain runs") in said
    assert ("no basis-free run spills" in said) == (spills == 0)
    assert (f"{spills} of 6 basis-free runs spill more than" in said) == (spills > 0)