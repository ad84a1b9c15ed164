"""The report's question by its own test (anchorkit.studies.rotated_basis.question): each answer on constructed cases,
the exact interval's ranks, and the seeds an undecided answer would need."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anchorkit.studies.rotated_basis import question as q

ROOT = Path(__file__).resolve().parents[2]


def results(plain, rotated):
    seeds = range(700, 700 + len(plain))
    rows = [{"seed": s, "optimizer": "adam", "raw_removal": p} for s, p in zip(seeds, plain)]
    rows += [{"seed": s, "optimizer": "rotated", "raw_removal": r} for s, r in zip(seeds, rotated)]
    return pd.DataFrame(rows)


def row(diffs):
    plain = np.full(len(diffs), 0.5)
    return q.question_rows(results(plain, plain + np.asarray(diffs))).iloc[0]


@pytest.mark.parametrize("diffs, expected", [
    (np.linspace(-0.05, 0.05, 16), q.ALIKE),
    (np.linspace(-0.4, -0.2, 16), q.NEEDS),
    (np.linspace(0.2, 0.4, 16), q.MORE),
    (np.linspace(-0.3, 0.3, 16), q.UNDECIDED),
])
def test_each_answer_can_be_given(diffs, expected):
    r = row(diffs)
    assert r["answer"] == expected and r["seeds"] == 16
    # the seeds needed are said only where the answer is undecided
    assert (r["seeds needed"] is not None) == (expected == q.UNDECIDED)


def test_at_16_seeds_the_interval_is_the_4th_to_the_13th_difference():
    d = np.arange(16) / 100 - 0.075
    r = row(d)
    assert r["interval low"] == pytest.approx(np.sort(d)[3])
    assert r["interval high"] == pytest.approx(np.sort(d)[12])


def test_at_8_seeds_one_outlier_keeps_it_undecided_and_the_seeds_needed_are_counted():
    d = [0.0, 0.01, -0.01, 0.02, -0.02, 0.03, -0.03, 0.5]  # the interval is the whole range
    r = row(d)
    assert r["answer"] == q.UNDECIDED
    assert r["seeds needed"] is not None and 8 < r["seeds needed"] <= 40


def test_a_wider_spread_or_a_median_nearer_the_margin_needs_more_seeds():
    base = q.seeds_needed(np.linspace(-0.2, 0.2, 8))
    assert q.seeds_needed(np.linspace(-0.4, 0.4, 8)) > base
    assert q.seeds_needed(np.linspace(-0.2, 0.2, 8) + 0.05) > base
    assert q.seeds_needed(np.linspace(-0.2, 0.2, 8) + q.MARGIN) is None  # on the margin
    assert q.seeds_needed([0.1, 0.2]) is None  # too few to say


def test_seeds_in_one_arm_only_are_left_out():
    t = results([0.5] * 8, [0.5] * 8)
    t = pd.concat([t, pd.DataFrame([{"seed": 999, "optimizer": "adam", "raw_removal": 0.9}])])
    assert len(q.paired_differences(t)) == 8


def test_the_answers_are_the_margins_own():
    assert q.answer(-q.MARGIN, q.MARGIN) == q.ALIKE
    assert q.answer(-0.3, -q.MARGIN - 1e-9) == q.NEEDS
    assert q.answer(q.MARGIN + 1e-9, 0.3) == q.MORE
    assert q.answer(-q.MARGIN - 0.01, 0.0) == q.UNDECIDED


def test_the_committed_predictions_are_the_code_s_and_name_the_interval_it_uses():
    from anchorkit.engine import regimes
    from anchorkit.measures import criteria
    from anchorkit.measures.verdicts import median_interval
    text = q.predictions(regimes.RECALIBRATED_SEEDS, regimes.RECALIBRATED.title,
                         regimes.RECALIBRATED.recipes["falloff"], regimes.SECOND_EPOCHS,
                         criteria.KEPT, criteria.REMOVAL_MIN)
    committed = ROOT / "calibration" / "second-regime" / "predictions.md"
    assert committed.read_text() == text
    _, low, high = median_interval(np.arange(1.0, 17.0))  # the order statistics themselves
    assert f"the {int(low)}th to the {int(high)}th difference" in text


def test_the_report_reads_the_test_as_an_answer_only_where_the_question_can_be_asked():
    import dataclasses
    from pathlib import Path

    from anchorkit.judging import ledger
    from anchorkit.pages import asked, screens
    from anchorkit.engine.provenance import read_tables
    from anchorkit.engine.regimes import SECOND

    root = Path(__file__).resolve().parents[2] / "reports"
    tables = read_tables(SECOND.reports(root) / "rotated-basis")
    f = screens.regime_facts(SECOND, ledger.ledger(SECOND.reports(root), SECOND.name), tables)
    assert not f.answerable and f.answer is not None  # the test runs; it is not read here
    said = asked.question_answers({SECOND: f})[SECOND]
    assert said.startswith("The question cannot be asked here") and "the recipe fails" in said
    can = dataclasses.replace(f, met=3)  # the same figures, where the recipe worked
    assert asked.question_answers({SECOND: can})[SECOND].startswith(f"In the {SECOND.title}, ")
    assert "The pre-set rule" in asked.question_answers({SECOND: can})[SECOND]
    table = asked.question_tables({SECOND: tables})[0].data
    assert list(table.measure) == list(q.MEASURES.values()) and set(table.answer) <= set(q.ANSWERS)
    assert (table.seeds == 8).all()


def test_the_picture_of_the_answer_draws_every_regime_and_greys_those_that_cannot_ask():
    from anchorkit.judging.ledger import ledger
    from anchorkit.pages import asked, charts, screens
    from anchorkit.engine.provenance import read_tables
    from anchorkit.engine.regimes import REPORT

    root = ROOT / "reports"
    shown = {r: read_tables(r.reports(root) / "rotated-basis") for r in REPORT}
    claims = {r: ledger(r.reports(root), r.title) for r in REPORT}
    from anchorkit.pages import basis_free

    diffs, summary = asked.answer_data(shown, claims)
    facts = [screens.regime_facts(r, claims[r], t) for r, t in shown.items()]
    third = basis_free.committed()  # the basis-free arm's row after its regime's, once committed
    # a regime's row, then the confirmation's where it has judged that regime's question
    assert list(summary.asked) == [x for r, f in zip(shown, facts) for x in
                                   [f.answerable] + [True] * (f.confirmation not in (None, "pending"))
                                   + [True] * (third and r == basis_free.bf.REGIME)]
    assert all((s.reason == "") == s.asked for s in summary.itertuples())
    arm = "rotated Adam, " if third else ""  # with a second arm drawn, each row names its arm
    for r, t in shown.items():  # every seed of every regime, once
        n = len(q.paired_differences(t["results"]))
        assert (diffs.row == f"{r.title}\n{arm}{n} seeds").sum() == n
    charts.answer_picture(diffs, summary, q.MARGIN).to_dict()  # a valid chart


def test_the_confirmation_s_row_follows_its_regime_once_its_tables_are_committed(tmp_path):
    """Pending (no tables), the picture has one row per regime; once the confirmation's tables are
    written (constructed readings here, in a reports folder of their own), its row follows the
    regime it asks again: its 24 fresh seeds' differences and its own interval, asked."""
    import numpy as np

    from anchorkit.judging.ledger import ledger
    from anchorkit.pages import asked
    from anchorkit.engine.provenance import read_tables, write_study
    from anchorkit.studies.rotated_basis import confirmation as c, confirming

    r = c.REGIME
    shown = {r: read_tables(r.reports(ROOT / "reports") / "rotated-basis")}
    claims = {r: ledger(r.reports(ROOT / "reports"), r.title)}
    _, pending = asked.answer_data(shown, claims, reports=tmp_path)
    assert len(pending) == 1
    rng = np.random.default_rng(5)
    rows = []
    for s in c.SEEDS:
        base, gain = rng.normal(0.6, 0.05), rng.normal(0.1, 0.05)
        for epoch in (c.EARLIER, c.EPOCHS):
            rows += [{"seed": s, "optimizer": "adam", "epoch": epoch, "raw_removal": base,
                      "removal_net_of_reference": base, "loss": 0.3},
                     {"seed": s, "optimizer": "rotated", "epoch": epoch, "raw_removal": base + gain,
                      "removal_net_of_reference": base + gain, "loss": 0.3}]
    t = confirming.tables(pd.DataFrame(rows), shown[r]["results"])
    write_study(r.reports(tmp_path) / c.FOLDER, t, c.FOLDER, list(c.SEEDS), "paper", c.runs(),
                0.0, {}, r.name)
    diffs, summary = asked.answer_data(shown, claims, reports=tmp_path)
    assert len(summary) == 2 and summary.iloc[1].asked
    outcome = t["outcome"].outcome.iloc[0]
    assert asked.confirmation_text(r, reports=tmp_path) == c.SAYS[outcome]
    *tables, picture = asked.confirmation_shown(r, reports=tmp_path)
    assert len(tables) == 2 and len(picture.to_dict()["layer"]) == 3
    row = summary.iloc[1]
    assert row.row == f"{r.title}\n24 fresh seeds (confirmation)"
    mine = diffs[diffs.row == row.row].set_index("seed").difference
    assert sorted(mine.index) == list(c.SEEDS)
    assert row["median"] == pytest.approx(float(np.median(mine)))
    assert row.low <= row["median"] <= row.high


def test_a_pending_confirmation_says_how_many_pairs_are_published_and_none_measured(tmp_path):
    """Pending, the report counts the confirmation's pairs with both arms published (a seed with
    one arm only is not a pair), and shows no table; a regime it does not ask says nothing."""
    from anchorkit.pages import asked
    from anchorkit.engine.regimes import WEAK
    from anchorkit.studies.rotated_basis import confirmation as c

    index = pd.DataFrame({"seed": [720, 720, 721, 721, 722, 704],
                          "optimizer": ["adam", "rotated"] * 2 + ["adam", "adam"],
                          "set": ["confirmation"] * 5 + [None]})
    index.to_parquet(tmp_path / "index.parquet")
    said = asked.confirmation_text(c.REGIME, reports=tmp_path, published=tmp_path)
    assert said.startswith("Not yet judged") and "2 of its 24 pairs are trained and published" in said
    assert asked.confirmation_shown(c.REGIME, reports=tmp_path) == []
    assert asked.confirmation_text(WEAK, reports=tmp_path, published=tmp_path) is None
