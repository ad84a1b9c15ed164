"""The basis-free arm (issue 69; ``anchorkit.studies.rotated_basis.basis_free``) as the report
shows it: while its tables are not committed, what is decided and what is not yet; once they are
(``reports/<regime>/basis-free/``, written by ``python -m anchorkit basis-free measure
--publish``), its answer in sentences computed from the tables shown beside them, the tables
(the question against both other arms, the premise absent, the conjecture), and its row of the
answer's picture.

Every sentence says what its verdict rests on: the arm minus the other arm, per seed, with the
question's own test (``question.question_rows``) and the parts of its predictions
(``third_arm.premise``, ``third_arm.conjecture``), committed before its paper set trained.
"""

from __future__ import annotations

import math

import pandas as pd

from anchorkit.core.optimizers import REGISTRY, SHARED_ADAM
from anchorkit.core.paths import REPORTS
from anchorkit.engine.formatting import captioned
from anchorkit.engine.provenance import has_tables, read_tables
from anchorkit.measures import criteria
from anchorkit.studies.rotated_basis import basis_free as bf, question, third_arm

ARM = SHARED_ADAM.name
OTHERS = ("adam", "rotated")  # the arms it is compared with, in the order the page names them
PRIMARY = "raw removal"  # the measure the answer's picture draws and the first sentence reads

# the question's answers, read for the arm against another (``{other}``: that arm's label)
COMPARED = {
    question.ALIKE: "removes as {other} does, within the margin",
    question.NEEDS: "removes less than {other}, by more than the margin",
    question.MORE: "removes more than {other}, by more than the margin",
    question.UNDECIDED: "cannot be told from {other} at this number of seeds",
}
# what the comparison with plain Adam, the arm with the privileged basis, answers (the predictions)
READS = {
    question.ALIKE: "the anchor does not need a privileged basis at all",
    question.NEEDS: "the anchor needs a privileged basis",
    question.MORE: "the anchor removes more with no privileged basis",
    question.UNDECIDED: "whether the anchor needs a privileged basis is not decided",
}


def folder(reports=REPORTS):
    """Where the arm's tables are committed: ``reports/<regime>/basis-free/``."""
    return bf.REGIME.reports(reports) / third_arm.FOLDER


def committed(reports=REPORTS) -> bool:
    """Whether the arm's tables are written under ``reports``."""
    return has_tables(folder(reports))


def _rates() -> str:
    """The learning rates in words: the arm's (its calibration's decision) against the others'."""
    own = bf.REGIME.settings()["train"].lr
    try:
        lr = bf.chosen_rate()
    except ValueError:  # no rate chosen (yet): the decision's text says why
        return ""
    if lr == own:
        return f" It trains at the regime's learning rate, {own:g}, as the other two arms do."
    return (f" It trains at learning rate {lr:g} (plain and rotated Adam: {own:g}), the rate its "
            f"calibration chose, with denormal floats flushed to zero (theirs were not), as its "
            f"rule's amendment set before any of its runs was kept ({{doc}}`/book/methods`, "
            f"*The optimizers*).")


def said() -> str:
    """The section's first paragraph (MyST): the arm, and the learning rate and arithmetic it
    trains with against the other arms'."""
    label = SHARED_ADAM.label
    return (f"{label[0].upper() + label[1:]} shares Adam's second moment along the residual "
            f"axis, so that no direction of the residual stream is cheaper for it than another."
            + _rates())


def paper_set() -> str:
    """The arm's paper set in words, from its configurations (the Methods page's clause)."""
    try:
        runs = bf.paper_runs(bf.chosen_rate())
    except ValueError:  # no rate chosen (yet): no paper set to name
        return "not yet set (its calibration has chosen no learning rate)"
    seeds = sorted({c.seed for c in runs})
    recipes = list(dict.fromkeys(c.recipe for c in runs))
    return (f"{' and '.join(recipes)} at seeds {seeds[0]}–{seeds[-1]} in the {bf.REGIME.title} "
            f"({len(runs)} runs of {runs[0].epochs} epochs)")


def found(reports=REPORTS) -> str:
    """The section's result (MyST): pending, that it states no result; committed, the answer
    against each arm and the premise, from the tables ``shown`` gives."""
    if not committed(reports):
        return ("Its predictions were committed before its paper set trained; its tables are not "
                "yet written, so this section states no result.")
    t = read_tables(folder(reports))
    return answer_sentence(t["question"]) + " " + premise_sentence(t["premise"])


def read_together(reports=REPORTS) -> str:
    """The section's last paragraph (MyST; empty while pending): what the anchor does with no
    cheap direction (``together``), from the arm's tables and the other arms' committed tables
    (``reports/<regime>/rotated-basis/``, which judged the arm's)."""
    if not committed(reports):
        return ""
    t = read_tables(folder(reports))
    others = read_tables(bf.REGIME.reports(REPORTS) / "rotated-basis")["results"]
    return together(t["results"], others, t["conjecture"])


def one_sided(r: pd.Series, label: str) -> str:
    """What an undecided interval (a ``question_rows`` row) still excludes, a side beyond the
    margin, read one-sided and post hoc ("" where it excludes neither)."""
    if r["interval low"] > -r["margin"]:
        return f"it removes no less than {label} by more than the margin"
    if r["interval high"] < r["margin"]:
        return f"it removes no more than {label} by more than the margin"
    return ""


def answer_sentence(q: pd.DataFrame) -> str:
    """The question against each other arm, in raw removal (``third_arm.question``'s rows); where
    the rule cannot decide, what the interval still excludes (one-sided, post hoc)."""
    parts, sides = [], {}
    for other in OTHERS:
        r = q[(q["against"] == other) & (q["measure"] == PRIMARY)].iloc[0]
        label = REGISTRY[other].label
        words = COMPARED[r["answer"]].format(other=label)
        needed = r["seeds needed"]
        if r["answer"] == question.UNDECIDED and not pd.isna(needed):
            words += f" (about {int(needed)} seeds would decide it)"
        if r["answer"] == question.UNDECIDED and (side := one_sided(r, label)):
            words += f"; read one-sided, post hoc, {side}"
            sides[other] = r
        parts.append(f"against {label}, median difference {r['median difference']:.2f} "
                     f"({r['interval low']:.2f} to {r['interval high']:.2f}) over "
                     f"{int(r['seeds'])} seeds, it {words}")
    first = q[(q["against"] == OTHERS[0]) & (q["measure"] == PRIMARY)].iloc[0]["answer"]
    reads = READS[first]
    if OTHERS[0] in sides and sides[OTHERS[0]]["interval low"] > -sides[OTHERS[0]]["margin"]:
        reads += " (read one-sided, post hoc, the anchor does not need one)"
    joined = ". ".join([parts[0]] + [p[0].upper() + p[1:] for p in parts[1:]])
    return f"In {PRIMARY}, per seed, {joined}: by the question's test, {reads}."


def _judged(v) -> bool:
    """Whether a prediction's part was judged (a table's ``holds``: None or NaN while pending)."""
    return v is not None and not (isinstance(v, float) and math.isnan(v))


def _holds(v) -> str:
    return ("holds" if bool(v) else "does not hold") if _judged(v) else "pending"


def premise_sentence(p: pd.DataFrame) -> str:
    """How many parts of the premise-absent prediction hold, of how many, and which fail."""
    done = p["holds"].map(_judged)
    if not done.any():
        return (f"The premise's absence, predicted in {len(p)} parts, is judged once every seed "
                f"is in (the table below).")
    held = p.loc[done, "holds"].astype(bool)
    failed = p.loc[done][~held.values].groupby("part", sort=False)["basis"].agg(list)
    said = (f"The premise's absence, predicted in {len(p)} parts, holds in {int(held.sum())} of "
            f"the {int(done.sum())} judged (the table below)")
    if failed.empty:
        return said + "."
    return said + ": it fails on " + "; ".join(f"{part} ({', '.join(b)})"
                                          for part, b in failed.items()) + "."


def _counts(results: pd.DataFrame, arm: str, column: pd.Series) -> tuple[int, int]:
    mine = results["optimizer"] == arm
    return int(column[mine].sum()), int(mine.sum())


def together(mine: pd.DataFrame, others: pd.DataFrame, conjecture: pd.DataFrame) -> str:
    """What the anchor does with no cheap direction (MyST): how often each arm keeps its anchor
    and spills past the criterion at the arm's seeds (``mine``: its results; ``others``: the
    plain and rotated runs'), then the conjecture read as one: the syntax tokens at chance (a),
    the spill against rotated Adam's (b), alignment against rotated Adam's (c, reported)."""
    runs = pd.concat([others[others["seed"].isin(mine["seed"])], mine], ignore_index=True)
    kept = {a: _counts(runs, a, runs["kept"].astype(bool)) for a in (ARM, *OTHERS[::-1])}
    spilled = {a: _counts(runs, a, runs["spill"] > criteria.SPILL_MAX) for a in kept}
    (k, n), (s, _) = kept[ARM], spilled[ARM]
    said = (f"**What the anchor does with no cheap direction.** It is kept (net removal at least "
            f"{criteria.KEPT:g}) on {k} of {n} basis-free runs, against "
            + " and ".join(f"{kept[a][0]} of {kept[a][1]} {REGISTRY[a].label.split()[0]}"
                           for a in OTHERS[::-1]) + " runs at the same seeds; ")
    others_spill = " and ".join(f"{spilled[a][0]} of {spilled[a][1]} {REGISTRY[a].label.split()[0]}"
                                for a in OTHERS[::-1])
    said += (f"no basis-free run spills more than {criteria.SPILL_MAX:g} ({others_spill} do). "
             if s == 0 else
             f"{s} of {n} basis-free runs spill more than {criteria.SPILL_MAX:g} "
             f"({others_spill}). ")
    return said + conjecture_reading(conjecture)


def conjecture_reading(c: pd.DataFrame) -> str:
    """The conjecture's parts read as one: (a) the syntax tokens at chance along each basis, so
    that no direction was cheap to steer them onto; (b) the spill above rotated Adam's, the larger
    job the source expected of the anti term; (c) alignment against rotated Adam's, reported."""
    a = c[c["part"].str.startswith("(a)")]
    b = c[c["part"].str.startswith("(b)")].iloc[0]
    r = c[c["part"] == third_arm.REPORTED].iloc[0]
    if not (a["holds"].map(_judged).all() and _judged(b["holds"])):
        return "The source's conjecture is judged once every seed is in (the table below)."
    off = [basis for basis, h in zip(a["basis"], a["holds"]) if not bool(h)]
    first = ("The syntax tokens sit at chance along both bases, so no direction was cheap to "
             "steer them onto" if not off else
             f"The syntax tokens are not at chance along the {' and '.join(off)}, so a direction "
             f"to steer them onto remained")
    second = ("the spill is above rotated Adam's, the larger job the source expected of the anti "
              "term" if bool(b["holds"]) else
              "the spill is not above rotated Adam's, so the larger job the source expected of "
              "the anti term finds no support in spill")
    # read from its interval, as the question's test reads its own: a side only where it excludes
    # zero
    way = ("higher than under rotated Adam" if r["interval low"] > 0 else
           "lower than under rotated Adam" if r["interval high"] < 0 else
           "not told apart from rotated Adam's")
    return (f"{first}; {second}. Alignment with e₁ is {way} (median difference "
            f"{r['median difference']:.3f}, 95% interval {r['interval low']:.3f} to "
            f"{r['interval high']:.3f}, larger on {int(r['larger on'])} of {int(r['seeds'])} "
            f"seeds; reported, no side predicted).")


def shown(reports=REPORTS) -> list:
    """The arm's committed tables as the report shows them (none while pending)."""
    if not committed(reports):
        return []
    t = read_tables(folder(reports))
    q = t["question"]
    q = q.assign(against=q["against"].map(lambda o: REGISTRY[o].label),
                 interval=[f"{lo:.3f} to {hi:.3f}" for lo, hi in
                           zip(q["interval low"], q["interval high"])],
                 **{"seeds needed": q["seeds needed"].map(
                     lambda n: "–" if pd.isna(n) else f"{int(n)}")})
    qh = {"against": "against", "measure": "measure", "seeds": "seeds",
          "median difference": "median difference", "interval": "95% interval",
          f"{ARM} larger on": "larger on", "answer": "answer", "seeds needed": "seeds needed"}
    ph = {"part": "part", "basis": "basis", "figure": "figure", "holds": "holds"}
    return [
        captioned(q, qh, f"The question's own test against each other arm, "
                  f"{bf.REGIME.title}: per seed, basis-free minus the other arm at the same "
                  f"seed, the median difference with its exact 95% interval against the margin "
                  f"±{question.MARGIN:g}, and the answer the interval gives."),
        captioned(t["premise"].assign(holds=t["premise"]["holds"].map(_holds)), ph,
                  "The premise absent under basis-free Adam: each part of the prediction, its "
                  "figure and whether it holds (pending while the set is incomplete)."),
        captioned(t["conjecture"].assign(holds=[
            "reported" if p == third_arm.REPORTED else _holds(v)
            for p, v in zip(t["conjecture"]["part"], t["conjecture"]["holds"])]), ph,
                  "The source's conjecture made testable: each part, its figure and whether it "
                  "holds; (c) is reported with no side predicted."),
    ]


def picture_sentence(reports=REPORTS) -> str:
    """The answer picture's caption on the arm: which row is its, or that none is drawn yet."""
    if not committed(reports):
        return (f"A third arm, {SHARED_ADAM.label}, is drawn once its paper set is measured.")
    return (f"The last row is {SHARED_ADAM.label}'s: each dot its raw removal minus that of its "
            f"plain-Adam twin at the same seed.")


def answer_row(plain: pd.DataFrame, reports=REPORTS
               ) -> tuple[pd.DataFrame, dict] | None:
    """The arm's row of the answer's picture (``asked.answer_data``): each seed's basis-free −
    plain raw removal, from the arm's committed results and the regime's ``plain`` results (the
    rotated-basis study's), and its summary; None while the arm's tables are not committed."""
    if not committed(reports):
        return None
    t = read_tables(folder(reports))
    d = question.paired_differences(pd.concat([plain, t["results"]], ignore_index=True),
                                    arms=(ARM, OTHERS[0]))
    q = t["question"]  # the committed test's row: the picture draws the interval judged
    q = q[(q["against"] == OTHERS[0]) & (q["measure"] == PRIMARY)].iloc[0]
    row = f"{bf.REGIME.title}\n{SHARED_ADAM.label}, {len(d)} seeds"
    return (pd.DataFrame({"row": row, "seed": d.index, "difference": d.values}),
            {"row": row, "median": q["median difference"], "low": q["interval low"],
             "high": q["interval high"], "asked": True, "reason": "", "arm": ARM})
