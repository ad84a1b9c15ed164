"""The first screens of the report, the introduction, the ledger and the essay: at most about
``WORDS`` words of plain sentences, computed from the committed tables, with no claim id in them.
Where a regime can ask the question, its answer comes first, by the question's own test
(``anchorkit.studies.rotated_basis.question``), with its figures; then why the other regimes cannot.

A failure is said as a success is, with both figures ("alignment 0.85, the source's about 0.6").
Per regime, the report's first screen says whether its question can be answered there: only where
plain Adam builds the privileged basis the question is about (the ledger's premise claims) *and*
the recipe works (some falloff run meets every calibration criterion); whether the basis exists
is the ledger's existence claim, apart from its size; otherwise it says which of
the two is missing, with the figure that shows it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

from anchorkit.studies.rotated_basis import question
from anchorkit.pages.criteria_met import criteria_table
from anchorkit.engine.formatting import number
from anchorkit.judging.ledger import E1B_SOURCE, E2A_MEDIAN, tally
from anchorkit.engine.regimes import Regime
from anchorkit.measures.verdicts import (NOT_COMPARABLE, NOT_REPRODUCED, REPRODUCED, UNDECIDED,
                                         median_interval)
from anchorkit.core.optimizers import PLAIN_ADAM, ROTATED_ADAM
from anchorkit.studies.rotated_basis import confirmation

WORDS = 120
CLAIM_ID = re.compile(r"\b(?:P[0-4]|E[1-3][a-h]′?|L1|S1)(?![\w])")
FORMS, UNDECIDED_PREMISE, ABSENT = "forms", "undecided", "absent"
PREMISE = "P0"  # the ledger's claim that plain Adam builds a privileged basis (existence, not size)


def words(text: str) -> int:
    """The words a reader reads (markup and glue spans left out)."""
    return len(re.sub(r"<[^>]+>|[*_`]", " ", text).split())


def premise_state(claims: pd.DataFrame) -> str:
    """Whether plain Adam builds a privileged basis in a regime, by the ledger's existence claim
    (P0; its size against the source's is P2's, and the figures say it): ``forms`` (reproduced),
    ``undecided`` (cannot be decided at this number of seeds) or ``absent``."""
    v = claims.set_index("id").verdict[PREMISE]
    return FORMS if v == REPRODUCED else UNDECIDED_PREMISE if v == UNDECIDED else ABSENT


@dataclass(frozen=True)
class Answer:
    """The question's own test in a regime (``question.question_rows``, raw removal) and the
    figures its sentence gives: medians with their exact 95% intervals (median, low, high)."""

    verdict: str  # one of question.ANSWERS
    difference: tuple[float, float, float]  # rotated minus plain, paired by seed
    margin: float
    rotated: tuple[float, float, float]  # the rotated falloff runs' raw removal
    plain: tuple[float, float, float]  # their plain-Adam twins'
    kept: int  # rotated falloff runs that keep the anchor (net removal at least one half)
    control_drop: float  # the rotated controls' median drop under the same edit
    higher: int = 0  # seeds on which rotated removes more than its plain twin


def question_answer(results: pd.DataFrame) -> Answer | None:
    """The question's test on a regime's results table (both arms, paired by seed); None where
    an arm is missing."""
    rows = question.question_rows(results)
    if rows.empty or not rows.seeds.iloc[0]:
        return None
    raw = rows.iloc[0]
    rot = results[results.optimizer == ROTATED_ADAM.name]
    plain = results[results.optimizer == PLAIN_ADAM.name]
    return Answer(raw.answer, (raw["median difference"], raw["interval low"],
                               raw["interval high"]), raw.margin,
                  median_interval(rot.raw_removal), median_interval(plain.raw_removal),
                  int(rot.kept.sum()), float(rot.control_drop.median()),
                  int(raw["rotated larger on"]))


@dataclass(frozen=True)
class RegimeFacts:
    """What a regime's first sentence needs, from its ledger and rotated-basis tables."""

    title: str
    seeds: int
    premise: str
    top_share: float  # the plain controls' median top-axis share
    met: int  # falloff runs meeting every calibration criterion
    runs: int
    raw_removal: float  # the rotated runs' median raw removal
    alignment: float  # the rotated runs' median alignment at slices 3–4
    tally: dict
    answer: Answer | None = None  # the question's own test (read only where it can be asked)
    confirmation: str | None = None  # the confirmation's outcome, where it asks this regime's

    @property
    def answerable(self) -> bool:
        return self.premise == FORMS and self.met > 0


def regime_facts(regime: Regime, claims: pd.DataFrame, tables: dict) -> RegimeFacts:
    results, alignment = tables["results"], tables["alignment"]
    plain = results[results.optimizer == PLAIN_ADAM.name]
    rot = results[results.optimizer == ROTATED_ADAM.name]
    a = alignment[(alignment.role == "anchored") & (alignment.context == "difference")
                  & (alignment.optimizer == ROTATED_ADAM.name) & (alignment.slice >= 3)]
    met = criteria_table(results, alignment, tables["dose"])["meets all"]
    return RegimeFacts(regime.title, int(rot.seed.nunique()), premise_state(claims),
                       float(plain.control_top_share_axes.median()), int(met.sum()), len(met),
                       float(rot.raw_removal.median()),
                       float(a.groupby("seed").alignment.mean().median()), tally(claims),
                       question_answer(results), confirmation.status(regime))


ANSWER_WORDS = {question.ALIKE: "the anchor does not need the privileged axis",
                question.NEEDS: "the anchor needs the privileged axis",
                question.MORE: "the anchor removes more without the privileged axis",
                question.UNDECIDED: "the answer cannot be decided at {seeds} seeds"}
WHERE = {question.ALIKE: "inside", question.NEEDS: "below", question.MORE: "above",
         question.UNDECIDED: "across"}


def _interval(m: tuple[float, float, float], lead: str = "95% interval ") -> str:
    return f"{lead}{number(m[1])} to {number(m[2])}"


def direction(a: Answer, seeds: int) -> str:
    """Which arm removes more of difference, as the paired interval says it: a side only where the
    interval excludes zero."""
    m, low, high = a.difference
    figures = f"({_interval(a.difference)}), on {a.higher} of {seeds} seeds"
    if low > 0:
        return f"rotated Adam removes {number(m)} more of difference than plain {figures}"
    if high < 0:
        return f"rotated Adam removes {number(-m)} less of difference than plain {figures}"
    return (f"the paired difference in removal of difference has no clear sign: rotated minus "
            f"plain {number(m)} {figures.replace(', on', ', rotated higher on')}")


def one_sided(a: Answer) -> str:
    """What the interval excludes where the pre-set rule cannot decide: a side beyond the margin
    ("" where it excludes neither)."""
    _, low, high = a.difference
    if low > -a.margin:
        return "the anchor does not need the privileged axis"
    if high < a.margin:
        return f"rotated Adam gains at most {a.margin:g}"
    return ""


def rule_sentence(a: Answer, seeds: int, confirmed: str | None) -> str:
    """What the rule set before the runs gives; where it cannot decide, what a one-sided reading
    gives, labelled post hoc, pending the confirmation, or, once the confirmation has judged, its
    outcome in its pre-set words instead (``confirmed``: its outcome, None where there is none)."""
    if a.verdict != question.UNDECIDED:
        return (f"The pre-set rule answers: {ANSWER_WORDS[a.verdict]} (the interval "
                f"{WHERE[a.verdict]} the margin ±{a.margin:g}).")
    if confirmed not in (None, confirmation.PENDING):  # the confirmation reads it now
        return f"The pre-set rule cannot decide at {seeds} seeds. {confirmation.SAYS[confirmed]}"
    said = f"The pre-set rule cannot decide at {seeds} seeds (the interval crosses ±{a.margin:g})"
    side = one_sided(a)
    if side:
        said += f"; read one-sided, post hoc, {side}"
    if confirmed == confirmation.PENDING:
        return said + f", pending confirmation on {len(confirmation.SEEDS)} fresh seeds."
    return said + "."


def answer_sentence(f: RegimeFacts) -> str:
    """The question's answer in a regime that can ask it, in two sentences a reader can repeat:
    the direction of the paired difference with its interval and count, then what the rule set
    before the runs gives, what a one-sided reading gives (post hoc) and the confirmation's
    status. No "cannot be decided" is said alone where the interval excludes a side."""
    a = f.answer
    return f"In the {f.title}, {direction(a, f.seeds)}. {rule_sentence(a, f.seeds, f.confirmation)}"


def missing(f: RegimeFacts, title: str) -> str:
    """What a regime that cannot ask the question lacks (the premise first), with its figure;
    ``title``: how the sentence names the regime."""
    if f.premise == ABSENT:
        return f"in {title} plain Adam builds no privileged basis (one axis holds {number(f.top_share)})"
    if f.premise == UNDECIDED_PREMISE:
        return (f"in {title} a privileged basis is undecided at {f.seeds} seeds (one axis holds "
                f"{number(f.top_share)})")
    return (f"in {title} the recipe fails (raw removal {number(f.raw_removal)}, the source's "
            f"{E2A_MEDIAN})")


def others_sentence(facts: list[RegimeFacts]) -> str:
    """Where some regime can ask the question: why each of the others cannot, in one sentence."""
    others = [f for f in facts if not f.answerable]
    if not others:
        return ""
    lead = ("The other regime cannot: " if len(others) == 1 else
            f"The other {'two' if len(others) == 2 else len(others)} regimes cannot: ")
    return lead + "; ".join(missing(f, f"the {f.title}") for f in others) + "."


def _why(f: RegimeFacts, short: bool = False,
         cannot: str = "it cannot be answered") -> str:
    """Why a regime cannot answer the question (or that it can), with the figures; ``short``:
    the energy share's figure alone, once the first regime has said what it is; ``cannot``: how
    the sentence says that the question cannot be answered."""
    share = (number(f.top_share) if short else
             f"one axis holds {number(f.top_share)} of the energy, the source's about half")
    premise = {ABSENT: f"plain Adam builds no privileged basis ({share})",
               UNDECIDED_PREMISE: f"whether plain Adam builds a privileged basis cannot be "
                                  f"decided at {f.seeds} seeds ({share})",
               FORMS: f"plain Adam builds a privileged basis ({share})"}[f.premise]
    recipe = (f"the recipe fails: none of the {f.runs} falloff runs meets every criterion; raw "
              f"removal {number(f.raw_removal)}, the source's {E2A_MEDIAN}"
              if f.met == 0 else
              f"{f.met} of {f.runs} runs meet every criterion")
    if f.answerable:
        return f"the question can be asked: {premise}, and {recipe}"
    if f.premise == FORMS:
        return f"{cannot}: {premise}, but {recipe}"
    return f"{cannot}: {premise}, and {recipe}"  # the recipe's scope said in every regime


def _alignment(facts: list[RegimeFacts]) -> str:
    said = " and ".join(number(f.alignment) for f in facts)
    return f"Alignment with e₁ is {said}, the source's about {E1B_SOURCE}."


def report_first_screen(facts: list[RegimeFacts], why: str = "") -> str:
    """The report's opening: what was done, per regime whether the question can be answered and
    why not (where some regime can ask it: its answer first, then why the others cannot, as the
    introduction says it), and ``why`` (the diagnosis's one sentence, with its link), regimes in the order
    given (the alignment and the ledger's counts follow the picture)."""
    seeds = " and ".join(dict.fromkeys(str(f.seeds) for f in facts))
    text = (f"We retrained the source's recipe under rotated and plain Adam: {seeds} seeds, "
            f"{len(facts)} regime{'s' if len(facts) != 1 else ''}.")
    if any(f.answerable for f in facts):  # the answer first, then why the others cannot ask
        return " ".join(t for t in (intro_answer(facts), why) if t)
    for i, f in enumerate(facts):
        cannot = ("the question cannot be answered" if i == 0 else
                  "it cannot either" if not facts[i - 1].answerable else "it cannot be answered")
        why_not = _why(f, short=i > 0, cannot=cannot)
        text += f" In the {f.title} {why_not}."
    return " ".join(t for t in (text, why) if t)


SHORT_PREMISE = {ABSENT: "plain Adam builds no privileged basis",
                 UNDECIDED_PREMISE: "whether plain Adam builds a privileged basis cannot be "
                                    "decided at {seeds} seeds",
                 FORMS: "plain Adam builds a privileged basis"}


def _short_why(f: RegimeFacts, again: bool = False) -> str:
    """Why a regime cannot answer the question, in one clause with its figures (``again``: the
    energy share's comparison said once already, by an earlier regime's clause)."""
    premise = SHORT_PREMISE[f.premise].format(seeds=f.seeds)
    figures = f"one axis holds {number(f.top_share)}" + (
        "" if again else " of the energy, the source's about half")
    if f.met:  # the recipe's scope, said where it works too
        return (f"in the {f.title} {premise} ({figures}), and {f.met} of {f.runs} runs meet "
                f"every criterion")
    recipe = (" but" if f.premise == FORMS else " and") + " the recipe fails"
    figures += f"; raw removal {number(f.raw_removal)}, the source's {E2A_MEDIAN}"
    return f"in the {f.title} {premise}{recipe} ({figures})"


def intro_first_screen(facts: list[RegimeFacts], why: str = "") -> str:
    """The introduction's answer: where the question can be answered (``intro_answer``; where
    some regime can ask it, its answer alone) and ``why`` (the diagnosis's one sentence, with its
    link); why the other regimes cannot ask it, and the four verdicts, are under its picture
    (``intro_counts``)."""
    return " ".join(t for t in (intro_answer(facts, others=False), why) if t)


def intro_answer(facts: list[RegimeFacts], others: bool = True) -> str:
    """Where the question can be answered, and why not where it cannot, in one sentence; where
    some regime can ask it, its answer, then (``others``) why the other regimes cannot."""
    can = [f for f in facts if f.answerable]
    if not can:
        head = (("Neither regime's" if len(facts) == 2 else "No regime's") + " runs can answer it: "
                + "; ".join(_short_why(f, i > 0) for i, f in enumerate(facts)) + ".")
    else:  # the answer where it can be asked, then why the others cannot
        head = " ".join(t for t in [answer_sentence(f) for f in can]
                        + [others_sentence(facts) if others else ""] if t)
    return head


def intro_counts(facts: list[RegimeFacts]) -> str:
    """Under the introduction's picture: why the regimes that cannot ask the question cannot,
    where some regime can (its first screen gives that one's answer), and the four verdicts
    counted per regime (``all_counts``)."""
    lead = others_sentence(facts) if any(f.answerable for f in facts) else ""
    return " ".join(t for t in (lead, all_counts(facts)) if t)


def all_counts(facts: list[RegimeFacts], against: str = "") -> str:
    """The four verdicts counted per regime, in words."""
    parts = []
    for f in facts:
        n = f.tally
        verb = "reproduces" if n[REPRODUCED] == 1 else "reproduce"
        parts.append(f"in the {f.title}, {n[REPRODUCED]} {verb}, {n[NOT_REPRODUCED]} do not, "
                     f"{n[UNDECIDED]} cannot be decided at this number of seeds and "
                     f"{n[NOT_COMPARABLE]} cannot be compared")
    total = sum(facts[0].tally.values())
    return f"Of the source report's {total} claims{against} " + "; ".join(parts) + "."


# the report's question, as the ledger's opening asks it
LEDGER_QUESTION = ("The source report asks whether an anchored concept needs its direction to "
                   "be the optimizer's privileged axis.")


def ledger_first_screen(facts: list[RegimeFacts], why: str = "") -> str:
    """The ledger's opening: the report's question, where our runs can answer it and why not
    (``intro_answer``, with its figures), and ``why`` (the diagnosis's one sentence, with its
    link); the verdicts are counted under its picture (``ledger_counts``)."""
    if any(f.answerable for f in facts):  # the answer; the grid beneath shows every regime
        said = " ".join(answer_sentence(f) for f in facts if f.answerable)
        return " ".join(t for t in (LEDGER_QUESTION, said, why) if t)
    return " ".join(t for t in (LEDGER_QUESTION, intro_answer(facts), why) if t)


def ledger_counts(facts: list[RegimeFacts]) -> str:
    """Under the ledger's picture: the four verdicts counted per regime, the alignment and the
    raw removal beside the source's (the largest failure, with both figures)."""
    return (f"{all_counts(facts, ', set against our committed tables,')} {_alignment(facts)} "
            f"Raw removal at full dose is "
            + " and ".join(number(f.raw_removal) for f in facts)
            + f", the source's {E2A_MEDIAN}.")
