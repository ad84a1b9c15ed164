"""The report's question asked by its own test (``anchorkit.studies.rotated_basis.question``), as the report page shows
it: per regime the answer where the regime can ask the question (``screens.answer_sentence``),
else what it lacks, and the test's table in every regime shown."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from anchorkit.studies.rotated_basis import question
from anchorkit.core.paths import PUBLISHED, REPORTS
from anchorkit.engine.formatting import captioned
from anchorkit.core.optimizers import ROTATED_ADAM
from anchorkit.pages import basis_free, charts, screens
from anchorkit.engine.provenance import read_tables
from anchorkit.engine.regimes import Regime
from anchorkit.studies.rotated_basis import confirmation


def question_answers(facts: dict[Regime, screens.RegimeFacts]) -> dict[Regime, str]:
    """The question's own test read per regime computed: its answer where the regime can ask
    the question, else what it lacks (the test's figures are shown beside it, but not read as an
    answer)."""
    return {r: screens.answer_sentence(f) if f.answerable else
            ("The question cannot be asked here, so its test is not read as an answer: "
             + screens.missing(f, "this regime") + ".") for r, f in facts.items()}


def question_tables(shown: dict[Regime, dict]) -> list:
    """The question's own test in each regime shown (``question.question_rows``): per removal
    measure, the paired rotated − plain difference, its exact interval, the margin and the
    answer the interval gives."""
    out = []
    for r, t in shown.items():
        rows = question.question_rows(t["results"])
        rows["seeds needed"] = rows["seeds needed"].map(lambda n: "–" if pd.isna(n) else f"{int(n)}")
        out.append(captioned(rows, {c: c for c in rows.columns if c != "margin"},
                             f"The question's own test, {r.title}: per seed, rotated minus plain "
                             f"(its plain-Adam twin at the same seed), the median difference with "
                             f"its exact 95% interval against the margin ±{question.MARGIN:g}; on "
                             f"how many seeds rotated removes more; the answer the interval "
                             f"gives, and where it straddles a margin, about how many seeds "
                             f"would decide it. Read as the answer only where the regime can ask "
                             f"the question (the list above)."))
    return out


def asking(shown: dict[Regime, dict], claims: dict[Regime, pd.DataFrame]) -> tuple[Regime, ...]:
    """The regimes shown that can ask the report's question (``screens.regime_facts``), in the
    order shown; every regime shown where none can (nothing is then left out)."""
    can = tuple(r for r, t in shown.items() if screens.regime_facts(r, claims[r], t).answerable)
    return can or tuple(shown)


ROTATED = ROTATED_ADAM.name
REASONS = {screens.ABSENT: "no privileged basis", screens.UNDECIDED_PREMISE: "basis undecided"}


def answer_data(shown: dict[Regime, dict], claims: dict[Regime, pd.DataFrame],
                reports=REPORTS) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The picture of the answer's two tables (``charts.answer_picture``): per regime shown, each
    seed's rotated − plain raw removal, and the median with its exact interval, whether the
    regime can ask the question and, where it cannot, why in a few words; after the regime the
    confirmation asks again, the confirmation's row, once its tables are committed under
    ``reports`` (its fresh seeds' differences at the end of training, its interval on them),
    then the basis-free arm's row once its tables are committed (``basis_free.answer_row``: its
    seeds' basis-free − plain differences). ``arm``: the arm each row's difference is of; where
    more than one is drawn, each row's second line names its arm."""
    diffs, summary = [], []
    for r, t in shown.items():
        f = screens.regime_facts(r, claims[r], t)
        d = question.paired_differences(t["results"])
        q = question.question_rows(t["results"]).iloc[0]
        row = f"{r.title}\n{len(d)} seeds"  # drawn on two lines: the name, then its seeds
        diffs.append(pd.DataFrame({"row": row, "seed": d.index, "difference": d.values}))
        summary.append({"row": row, "median": q["median difference"], "low": q["interval low"],
                        "high": q["interval high"], "asked": f.answerable,
                        "reason": "" if f.answerable else REASONS.get(f.premise, "recipe fails")})
        if confirmation.status(r, reports) not in (None, confirmation.PENDING):
            d, q = confirmation_row(r, reports)
            row = f"{r.title}\n{len(d)} fresh seeds (confirmation)"
            diffs.append(pd.DataFrame({"row": row, "seed": d.index, "difference": d.values}))
            summary.append({"row": row, "median": q["median difference"],
                            "low": q["interval low"], "high": q["interval high"], "asked": True,
                            "reason": ""})
        third = basis_free.answer_row(t["results"], reports) if r == basis_free.bf.REGIME else None
        if third is not None:
            diffs.append(third[0])
            summary.append(third[1])
    diffs, summary = pd.concat(diffs, ignore_index=True), pd.DataFrame(summary)
    summary["arm"] = summary["arm"].fillna(ROTATED) if "arm" in summary else ROTATED
    if (summary.arm != ROTATED).any():  # more than one arm drawn: each row names its arm
        named = {r: r.replace("\n", f"\n{ROTATED_ADAM.label}, ", 1)
                 for r, a in zip(summary.row, summary.arm) if a == ROTATED}
        diffs["row"], summary["row"] = diffs.row.replace(named), summary.row.replace(named)
    return diffs, summary


def confirmation_row(regime: Regime, reports=REPORTS) -> tuple[pd.Series, pd.Series]:
    """The confirmation's committed primary reading: each fresh seed's rotated − plain raw
    removal at the end of training, and its row of the confirmation's table (the new seeds'
    look: median, exact interval)."""
    t = read_tables(regime.reports(reports) / confirmation.FOLDER)
    final = t["readings"][t["readings"].epoch == confirmation.EPOCHS]
    rows = t["confirmation"]
    mine = rows[(rows.measure == confirmation.PRIMARY) & (rows.look == "new seeds")].iloc[0]
    return question.paired_differences(final, confirmation.PRIMARY), mine


def confirmation_text(regime: Regime, reports=REPORTS, published=PUBLISHED) -> str | None:
    """What the report says of the confirmation where it asks this regime's question again
    (None elsewhere): pending, how many of its pairs are trained and published (none measured
    until all are); committed, its outcome in the words fixed before its runs."""
    state = confirmation.status(regime, reports)
    if state is None:
        return None
    if state != confirmation.PENDING:
        return confirmation.SAYS[state]
    index = pd.read_parquet(Path(published) / "index.parquet")
    mine = index[index["set"] == confirmation.FOLDER] if "set" in index else index.iloc[:0]
    pairs = int((mine.groupby("seed").optimizer.nunique() == 2).sum())
    return (f"Not yet judged: its rule was committed before any of its {len(confirmation.SEEDS)} "
            f"fresh seeds trained ({{doc}}`/book/methods`, *The confirmation*); {pairs} of its "
            f"{len(confirmation.SEEDS)} pairs are trained and published so far, and none is "
            f"measured until all are.")


def confirmation_shown(regime: Regime, reports=REPORTS) -> list:
    """The confirmation's committed tables and picture as the report shows them (none while
    pending): its readings of the primary and secondary measures on the new seeds and pooled, its
    two analyses of the new seeds, and the paired difference at the earlier epoch and the end."""
    if confirmation.status(regime, reports) in (None, confirmation.PENDING):
        return []
    t = read_tables(regime.reports(reports) / confirmation.FOLDER)
    words = {confirmation.PRIMARY: "raw removal",
             confirmation.SECONDARY: "removal net of the reference baseline"}
    rows = t["confirmation"].assign(measure=lambda d: d.measure.map(words).fillna(d.measure))
    return [captioned(rows, {c: c for c in rows.columns},
                      f"The confirmation, {regime.title}: each measure (rotated − plain, per "
                      "seed) on the fresh seeds alone at 95% and pooled with the exploratory "
                      "seeds at the wider interval of a second look; the one-sided exact "
                      "signed-rank p, and whether each test passes."),
            captioned(t["analyses"], {c: c for c in t["analyses"].columns},
                      "The confirmation's analyses of the fresh seeds (they judge no claim): "
                      "the paired difference at the earlier epoch against the end, and against "
                      "the twins' difference in final training loss."),
            charts.training_length_chart(t["readings"], confirmation.PRIMARY,
                                         confirmation.EARLIER, confirmation.EPOCHS)]


def confirmation_caption(regime: Regime, reports=REPORTS) -> str:
    """The caption of the confirmation's training-length picture (``confirmation_shown``'s
    last), as MyST; empty while there is no picture."""
    if confirmation.status(regime, reports) in (None, confirmation.PENDING):
        return ""
    return ("```{container} figure-caption\n**Figure.** The training-length analysis: each "
            "fresh seed's rotated − plain raw removal halfway through training and at its end "
            "(thin lines; the epochs on the axis), the median over seeds in bold, zero marked."
            "\n```")
