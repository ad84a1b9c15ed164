"""The report's Discussion: what the study learned, in sentences computed from what the page shows
(each regime's facts, the question's own test, the confirmation's committed tables), not lists
of claims. Every sentence reads a table shown on the page; none concludes more than its rule can.

``learned(facts, committed)`` gives the paragraph: where the question could be asked and why only
there, the answer there (``screens.rule_sentence``: what the rule set before the runs gives and
the confirmation's outcome in the words fixed before its seeds trained), and, once the
confirmation is committed, its fresh seeds' primary reading and what its two analyses say of the
training-length objection.
"""

from __future__ import annotations

import pandas as pd

from anchorkit.core.paths import REPORTS
from anchorkit.engine.formatting import number
from anchorkit.pages import screens
from anchorkit.engine.provenance import read_tables
from anchorkit.studies.rotated_basis import confirmation

LENGTH = {confirmation.SHRINKS: "shrank", confirmation.GROWS: "grew",
          confirmation.STEADY: "showed no change at this number of seeds"}
LOSS = {confirmation.LESS_TRAINED: "rises with it: seeds whose rotated twin ended less trained "
                                   "show more of it",
        confirmation.BETTER_TRAINED: "falls as it rises: seeds whose rotated twin ended better "
                                     "trained show more of it",
        confirmation.UNTIED: "is not tied to it at this number of seeds"}
# what the length reading allows about the objection that "removes more" is a matter of how far
# each arm had trained (the confirmation's analyses judge no claim: this is all they say)
OBJECTION = {confirmation.SHRINKS: "so more training narrows it: part of it may be how far each "
                                    "arm had got",
             confirmation.GROWS: "so it is not a gap that more training closes",
             confirmation.STEADY: "so the objection finds no support in it, without being ruled "
                                  "out"}


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def where_asked(facts: list[screens.RegimeFacts]) -> str:
    """Where plain Adam built the basis the question presupposes, and where the recipe also
    anchored, so that the question could be asked (of how many regimes)."""
    n = len(facts)
    formed = [f for f in facts if f.premise == screens.FORMS]
    asked = [f for f in formed if f.answerable]
    if not formed:
        return (f"Plain Adam built the privileged basis the question presupposes in none of the "
                f"{n} regimes, so the report cannot ask it: what it shows is where the source's "
                f"premise fails.")
    said = (f"Plain Adam built the privileged basis the question presupposes in {len(formed)} of "
            f"the {n} regimes ({_and([f'the {f.title}' for f in formed])})")
    if not asked:
        return said + ", but the recipe did not anchor there, so the question could not be asked."
    if len(asked) == len(formed):
        return said + ", and the recipe anchored there: only there could the question be asked."
    return (said + f"; the recipe anchored in {_and([f'the {f.title}' for f in asked])}, the "
            f"only place the question could be asked.")


def length_sentences(analyses: pd.DataFrame) -> str:
    """The confirmation's two analyses of its fresh seeds in words: the paired difference at the
    earlier epoch against the end, and against the twins' difference in final training loss."""
    t = analyses.set_index("analysis")
    g, f = t.loc["training length"], t.loc["final loss"]
    first = (f"Between epoch {confirmation.EARLIER} and the end of training the paired difference "
             f"{LENGTH[g.reading]} (median change {number(g['median change'])}, 95% interval "
             f"{number(g['interval low'])} to {number(g['interval high'])}, {int(g.seeds)} fresh "
             f"seeds), {OBJECTION[g.reading]}.")
    second = (f"Set against the twins' difference in final training loss, the difference in "
              f"removal {LOSS[f.reading]} (r {number(f.r)}, 95% interval {number(f['r low'])} to "
              f"{number(f['r high'])}); {equal_loss(f)}.")
    return f"{first} {second}"


def equal_loss(f) -> str:
    """The difference in removal at equal final loss (the fit's intercept) with what its 95%
    interval excludes."""
    m, low, high = f["at equal loss"], f["equal-loss low"], f["equal-loss high"]
    figures = f"{number(abs(m))} ({number(low)} to {number(high)})"
    if low > 0:
        return f"at equal loss rotated Adam still removes {figures} more"
    if high < 0:
        return f"at equal loss rotated Adam removes {figures} less"
    return (f"at equal loss the difference is {number(m)} ({number(low)} to {number(high)}), "
            f"which excludes neither side")


def fresh_sentence(rows: pd.DataFrame) -> str:
    """The confirmation's primary reading on its fresh seeds alone (its table's first row of the
    primary measure): the median difference, its exact interval, the count and the p."""
    r = rows[(rows.measure == confirmation.PRIMARY) & (rows.look == "new seeds")].iloc[0]
    return (f"On its {int(r.seeds)} fresh seeds rotated minus plain raw removal has median "
            f"{number(r['median difference'])} (95% interval {number(r['interval low'])} to "
            f"{number(r['interval high'])}), rotated larger on {int(r['rotated larger on'])} of "
            f"{int(r.seeds)}, one-sided p {_p(r['one-sided p'])}.")


def _p(p: float) -> str:
    return "< 0.001" if p < 0.001 else number(p, ".3f")


def learned(facts: list[screens.RegimeFacts], committed: dict | None = None) -> str:
    """The Discussion's paragraph: where the question could be asked, its answer there with the
    confirmation's outcome, and, from the confirmation's committed tables (``committed``: its
    ``confirmation`` and ``analyses`` tables; None while it is pending), its primary reading and
    what its analyses say of the training-length objection."""
    parts = [where_asked(facts)]
    for f in facts:  # what the rule and the confirmation say (the figures are the first screen's)
        if f.answerable:
            said = screens.rule_sentence(f.answer, f.seeds, f.confirmation)
            parts.append(f"In the {f.title}, {said[0].lower()}{said[1:]}")
    if committed is not None:
        parts += [fresh_sentence(committed["confirmation"]),
                  length_sentences(committed["analyses"])]
    return " ".join(parts)


def report_paragraph(shown: dict, claims: dict, reports=REPORTS) -> str:
    """``learned`` for the regimes the report shows (``shown``: regime → its tables; ``claims``:
    regime → its ledger), with the confirmation's tables once they are committed under
    ``reports``."""
    facts = [screens.regime_facts(r, claims[r], t) for r, t in shown.items()]
    r = confirmation.REGIME
    done = r in shown and confirmation.status(r, reports) not in (None, confirmation.PENDING)
    return learned(facts, read_tables(r.reports(reports) / confirmation.FOLDER) if done else None)
