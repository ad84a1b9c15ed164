"""The report's Discussion (anchorkit/pages/discussion.py): every branch of its sentences on
constructed regimes and constructed confirmation analyses; each sentence names its denominator and
says only what its reading allows."""

import dataclasses

import pandas as pd
import pytest

from anchorkit.studies.rotated_basis import question
from anchorkit.pages import discussion, screens
from anchorkit.studies.rotated_basis import confirmation as c
from tests.pages.test_screens import _answer, facts

WEAK, SECOND, RECAL = "weak-basis regime", "second regime", "second regime, recalibrated"


@pytest.mark.parametrize("premises, says", [
    ([(screens.ABSENT, 8), (screens.ABSENT, 8)],
     "in none of the 2 regimes, so the report cannot ask it"),
    ([(screens.ABSENT, 8), (screens.FORMS, 0)],
     "in 1 of the 2 regimes (the second regime), but the recipe did not anchor there"),
    ([(screens.ABSENT, 8), (screens.FORMS, 0), (screens.FORMS, 12)],
     "in 2 of the 3 regimes (the second regime and the second regime, recalibrated); the recipe "
     "anchored in the second regime, recalibrated, the only place"),
    ([(screens.ABSENT, 8), (screens.UNDECIDED_PREMISE, 3), (screens.FORMS, 12)],
     "in 1 of the 3 regimes (the second regime, recalibrated), and the recipe anchored there: "
     "only there could the question be asked"),
])
def test_where_the_question_could_be_asked_counts_the_regimes_shown(premises, says):
    regimes = [facts(t, p, m) for t, (p, m) in zip((WEAK, SECOND, RECAL), premises)]
    assert says in discussion.where_asked(regimes)


def _analyses(length: str, loss: str) -> pd.DataFrame:
    change = {c.SHRINKS: (-0.1, -0.2, -0.03), c.GROWS: (0.1, 0.03, 0.2),
              c.STEADY: (0.01, -0.05, 0.08)}[length]
    r = {c.LESS_TRAINED: (0.6, 0.2, 0.8), c.BETTER_TRAINED: (-0.6, -0.8, -0.2),
         c.UNTIED: (0.1, -0.3, 0.5)}[loss]
    return pd.DataFrame([
        {"analysis": "training length", "seeds": 24, "median change": change[0],
         "interval low": change[1], "interval high": change[2], "reading": length},
        {"analysis": "final loss", "seeds": 24, "r": r[0], "r low": r[1], "r high": r[2],
         "reading": loss, "at equal loss": 0.12, "equal-loss low": 0.02,
         "equal-loss high": 0.22, "rotated loss higher on": 15}])


@pytest.mark.parametrize("length", [c.SHRINKS, c.GROWS, c.STEADY])
@pytest.mark.parametrize("loss", [c.LESS_TRAINED, c.BETTER_TRAINED, c.UNTIED])
def test_the_training_length_sentences_say_each_reading_and_its_figures(length, loss):
    text = discussion.length_sentences(_analyses(length, loss))
    assert discussion.LENGTH[length] in text and discussion.OBJECTION[length] in text
    assert discussion.LOSS[loss] in text and "24 fresh seeds" in text
    assert f"epoch {c.EARLIER}" in text
    assert "at equal loss rotated Adam still removes 0.12 (0.02 to 0.22) more" in text
    # a reading that shows nothing never says that the objection is ruled out
    assert ("without being ruled out" in text) == (length == c.STEADY)


def _rows() -> pd.DataFrame:
    """A confirmation table: the primary and secondary measures, new seeds and pooled."""
    row = {"confidence": 0.95, "superior": True, "non-inferior": True, "four-way answer": "x"}
    return pd.DataFrame([
        {**row, "measure": c.SECONDARY, "look": "new seeds", "seeds": 24, "median difference": 0.9,
         "interval low": 0.8, "interval high": 1.0, "rotated larger on": 24, "one-sided p": 1e-7},
        {**row, "measure": c.PRIMARY, "look": "pooled", "seeds": 40, "median difference": 0.17,
         "interval low": 0.1, "interval high": 0.2, "rotated larger on": 31, "one-sided p": 1e-4},
        {**row, "measure": c.PRIMARY, "look": "new seeds", "seeds": 24, "median difference": 0.15,
         "interval low": 0.06, "interval high": 0.24, "rotated larger on": 18,
         "one-sided p": 0.0021}])


@pytest.mark.parametrize("outcome", c.OUTCOMES)
def test_the_paragraph_gives_the_answer_with_each_confirmation_outcome(outcome):
    asked = dataclasses.replace(facts(RECAL, screens.FORMS, 12, seeds=16),
                                answer=_answer(question.UNDECIDED, (0.2, 0.04, 0.31)),
                                confirmation=outcome)
    regimes = [facts(WEAK, screens.ABSENT, 8), asked]
    pending = outcome == c.PENDING
    committed = None if pending else {"confirmation": _rows(), "analyses": _analyses(c.STEADY,
                                                                                   c.UNTIED)}
    text = discussion.learned(regimes, committed)
    assert text.startswith("Plain Adam built the privileged basis")
    rule = screens.rule_sentence(asked.answer, asked.seeds, outcome)  # as the first screen says
    assert f"In the {RECAL}, {rule[0].lower()}{rule[1:]}" in text
    said = (f"pending confirmation on {len(c.SEEDS)} fresh seeds" if pending else c.SAYS[outcome])
    assert said in text
    # the fresh seeds' figures and the analyses only once committed
    assert ("On its 24 fresh seeds rotated minus plain raw removal has median 0.15 (95% interval "
            "0.06 to 0.24), rotated larger on 18 of 24, one-sided p 0.002." in text) == (not pending)
    assert ("Between epoch" in text) == (not pending)
    assert not screens.CLAIM_ID.search(text)


def test_a_regime_that_cannot_ask_gives_no_answer_in_the_paragraph():
    regimes = [facts(WEAK, screens.ABSENT, 8), facts(SECOND, screens.FORMS, 0)]
    text = discussion.learned(regimes)
    assert "pre-set rule" not in text and "could not be asked" in text


@pytest.mark.parametrize("at, says", [
    ((0.12, 0.02, 0.22), "still removes 0.12 (0.02 to 0.22) more"),
    ((-0.12, -0.22, -0.02), "removes 0.12 (-0.22 to -0.02) less"),
    ((0.05, -0.05, 0.15), "the difference is 0.05 (-0.05 to 0.15), which excludes neither side")])
def test_the_difference_at_equal_loss_says_only_the_side_its_interval_excludes(at, says):
    f = pd.Series({"at equal loss": at[0], "equal-loss low": at[1], "equal-loss high": at[2]})
    assert says in discussion.equal_loss(f)


def test_a_p_below_one_in_a_thousand_is_said_as_such_not_as_zero():
    rows = _rows().assign(**{"one-sided p": 4.5e-5})
    assert "one-sided p < 0.001." in discussion.fresh_sentence(rows)
