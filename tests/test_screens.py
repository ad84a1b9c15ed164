"""The first screens: at most about 120 words, no claim id, a failure said with both figures, and
per regime whether the report's question can be answered there, on constructed cases and on the
committed tables."""

from pathlib import Path

import pytest

from anchorkit import essay, ledger
from anchorkit.pages import screens
from anchorkit.provenance import read_tables
from anchorkit.regimes import SECOND, WEAK
from anchorkit.verdicts import NOT_COMPARABLE, NOT_REPRODUCED, REPRODUCED, UNDECIDED

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 130  # "at most about 120"


def facts(title, premise, met, share=0.1, raw=0.5, seeds=8):
    return screens.RegimeFacts(title, seeds, premise, share, met, 16, raw, 0.85,
                               {REPRODUCED: 2, NOT_REPRODUCED: 3, UNDECIDED: 4,
                                NOT_COMPARABLE: 1})


@pytest.mark.parametrize("premise, met, says", [
    (screens.ABSENT, 8, "plain Adam builds no privileged basis (one axis holds 0.10"),
    (screens.UNDECIDED_PREMISE, 0, "cannot be decided at 8 seeds"),
    (screens.FORMS, 0, "but the recipe fails: none of the 16 falloff runs"),
    (screens.FORMS, 5, "the question can be asked")])
def test_each_regime_says_whether_the_question_can_be_answered_and_why(premise, met, says):
    text = screens.report_first_screen([facts("weak-basis regime", premise, met)])
    assert says in text and not screens.CLAIM_ID.search(text)
    assert ("raw removal 0.50, the source's 0.98" in text) == (met == 0)  # both figures
    assert screens.words(text) <= LIMIT


def test_the_premise_forms_by_the_existence_claim_never_by_a_size_claim():
    import pandas as pd

    def state(p0, p1, p2):
        return screens.premise_state(pd.DataFrame({"id": ["P0", "P1", "P2"],
                                                   "verdict": [p0, p1, p2]}))

    # a privileged basis that exists but whose size cannot be decided forms
    assert state(REPRODUCED, UNDECIDED, UNDECIDED) == screens.FORMS
    assert state(REPRODUCED, NOT_REPRODUCED, NOT_REPRODUCED) == screens.FORMS
    # the size reproduced does not make an undecided existence form
    assert state(UNDECIDED, REPRODUCED, REPRODUCED) == screens.UNDECIDED_PREMISE
    assert state(NOT_REPRODUCED, REPRODUCED, NOT_COMPARABLE) == screens.ABSENT


def test_the_second_regime_says_either_only_after_a_regime_that_could_not_answer():
    two = [facts("weak-basis regime", screens.ABSENT, 8), facts("second regime",
                                                                 screens.UNDECIDED_PREMISE, 0)]
    assert "In the second regime it cannot either" in screens.report_first_screen(two)
    two[0] = facts("weak-basis regime", screens.FORMS, 8)
    assert "either" not in screens.report_first_screen(two)


def test_claim_ids_are_recognised():
    assert screens.CLAIM_ID.search("E3e′") and screens.CLAIM_ID.search("(P2)")
    assert not screens.CLAIM_ID.search("E3 of the report")  # a section name is no id
    assert not screens.CLAIM_ID.search("e₁ and the 8 seeds")


@pytest.fixture(scope="module")
def committed():
    out = []
    for r in (WEAK, SECOND):
        where = r.reports(ROOT / "reports")
        out.append(screens.regime_facts(r, ledger.ledger(where, r.name),
                                        read_tables(where / "rotated-basis")))
    return out


def test_the_committed_first_screens_are_short_plain_and_computed(committed):
    from anchorkit.pages import diagnosis_page
    why = diagnosis_page.why_sentence(diagnosis_page.load(ROOT / "reports"))
    assert why.startswith("Why: ") and "falloff runs" in why and "controls" not in why
    for fn in (screens.report_first_screen, screens.intro_first_screen,
               screens.ledger_first_screen):
        text = fn(committed, why + " (the diagnosis).")
        assert screens.words(text) <= LIMIT, fn.__name__
        assert not screens.CLAIM_ID.search(text), fn.__name__
        assert why in text, fn.__name__  # what, whether and why, on the first screen
        if fn is not screens.report_first_screen:  # the question and its answer first
            assert screens.intro_answer(committed) in text, fn.__name__
    assert screens.ledger_first_screen(committed).startswith(screens.LEDGER_QUESTION)
    assert "the source's about 0.6" in screens.ledger_counts(committed)
    report = screens.report_first_screen(committed)
    assert f"{committed[1].runs} falloff runs" in report  # the second regime's recipe failure
    t = read_tables(ROOT / "reports" / "geometry-of-anchors")
    text = screens.essay_first_screen(essay.all_tests(t["heads"], t["layers"]), 8, "weak-basis regime")
    assert "runs of the weak-basis regime" in text  # the page names its regime
    assert screens.words(text) <= LIMIT and not screens.CLAIM_ID.search(text)


def test_the_introduction_says_why_each_regime_cannot_answer_even_where_the_basis_forms():
    text = screens.intro_first_screen([facts("weak-basis regime", screens.ABSENT, 8),
                                       facts("second regime", screens.FORMS, 0)])
    assert text.startswith("Neither regime's runs can answer it")
    assert "in the weak-basis regime plain Adam builds no privileged basis (one axis" in text
    assert ("in the second regime plain Adam builds a privileged basis but the recipe fails "
            "(one axis holds 0.10; raw removal 0.50, the source's 0.98)") in text
    assert text.count("the source's about half") == 1  # said once, by the first regime
    assert "cannot be shown" not in text
    counts = screens.all_counts([facts("weak-basis regime", screens.ABSENT, 8)])
    for said in ("2 reproduce", "3 do not", "4 cannot be decided", "1 cannot be compared"):
        assert said in counts  # all four verdicts
    three = screens.intro_first_screen([facts(t, screens.ABSENT, 8) for t in "abc"])
    assert three.startswith("No regime's runs can answer it")
    assert screens.intro_first_screen([facts("x", screens.FORMS, 3)]).startswith(
        "Our runs can ask it in the x.")


def test_each_question_answers_in_one_list_a_line_per_regime_of_the_report():
    from anchorkit.pages import report_page
    from anchorkit.regimes import REPORT

    glued = {r.key(f"answer-{q}"): f"{q} in the {r.title}" for r in REPORT
             for q in report_page.QUESTIONS}
    lists = report_page.answer_lists(glued, {r: {} for r in REPORT})
    assert set(lists) == {f"answers-{q}" for q in report_page.QUESTIONS}
    lines = lists["answers-e1"].split("\n")
    assert lines == [f'- *{r.title[0].upper() + r.title[1:]}:* <span class="glued">e1 in the '
                     f'{r.title}</span>' for r in REPORT]
