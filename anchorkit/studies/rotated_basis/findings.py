"""The rotated-basis study's page texts (the report page's findings), regime by regime: the figures it quotes, its side-by-side tables,
the answer that closes each question and its opening in words.

Everything here is computed from a regime's rotated-basis tables (``results``, ``alignment``) and
its reproduction ledger (``anchorkit.judging.ledger``); nothing here knows a result. An answer concludes
only what its regime can decide: whether the anchor leans on e₁ being a privileged axis can be
asked only where plain Adam builds a privileged basis (the premise's existence, ledger row P0;
its size against the source's is P2's).
"""

from __future__ import annotations

import pandas as pd
from scipy.stats import binomtest, wilcoxon

from anchorkit.measures import criteria
from anchorkit.engine.formatting import count, count_moved, number, paired, summary
from anchorkit.judging.rules import tally
from anchorkit.judging.base import E2A_SOURCE, KEPT_LINE, removal_se
from anchorkit.measures.stats import loss_rate
from anchorkit.measures.verdicts import NOT_COMPARABLE, NOT_REPRODUCED, REPRODUCED, UNDECIDED
from anchorkit.core.optimizers import ARMS, PLAIN_ADAM, ROTATED_ADAM
from anchorkit.engine.pairs import deep_alignment

SAME = 0.05  # two medians within this read as the same (alignment, net removal), stated on the page
DECIDES = 0.05  # the sign test's level: below it, the arms' difference in losses is decided


def _arms(results: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    rot = results[results.optimizer == ROTATED_ADAM.name].sort_values("seed")
    sto = results[results.optimizer == PLAIN_ADAM.name].sort_values("seed")
    return rot, sto


def losses_text(kept) -> str:
    """``k of n lost (exact 95% interval lo to hi)``: the losses of one arm by the kept/lost rule."""
    r = loss_rate(kept)
    return f"{r['losses']} of {r['runs']} lost (exact 95% interval {r['low']:.2f} to {r['high']:.2f})"


def arms_test(results: pd.DataFrame) -> dict:
    """Seed by seed, where only one arm lost its anchor: ``rotated_only``, ``plain_only``, and the
    exact two-sided sign test over those discordant seeds (``p``; 1 when there are none)."""
    rot, sto = (a.set_index("seed").kept.astype(bool) for a in _arms(results))
    rot, sto = rot.align(sto, join="inner")
    a, b = int((~rot & sto).sum()), int((rot & ~sto).sum())
    p = float(binomtest(a, a + b).pvalue) if a + b else 1.0
    return {"rotated_only": a, "plain_only": b, "p": p}


def removal_comparison(results: pd.DataFrame) -> str:
    """Removal as a paired comparison, before any kept/lost count: per seed, the rotated run's
    net and raw removal minus its twin's, their median, on how many seeds the rotated run is
    higher and the exact two-sided Wilcoxon signed-rank p; then the runs whose net removal lies
    within one standard error of the kept/lost line (``ledger.removal_se``), whose count could
    flip on their measurement error alone."""
    rot, sto = _arms(results)
    parts = []
    for column, name in (("net_removal", "net"), ("raw_removal", "raw")):
        d = (rot.set_index("seed")[column] - sto.set_index("seed")[column]).dropna()
        p = (float(wilcoxon(d, alternative="two-sided", method="exact").pvalue)
             if (d != 0).any() else 1.0)
        parts.append(f"{name} removal, rotated minus its twin seed by seed, has median "
                     f"{number(float(d.median()), '+.2f')} over {len(d)} seeds (rotated higher on "
                     f"{int((d > 0).sum())}; exact Wilcoxon p = {p:.2f})")
    near = [f"{arm} {r.seed} ({r.net_removal:.3f})" for arm, runs in (("rotated", rot),
                                                                      ("plain", sto))
            for r in runs[(runs.net_removal - KEPT_LINE).abs() <= removal_se(runs, net=True)]
            .itertuples()]
    said = (f"; within one standard error of the kept/lost line, so that the count that "
            f"follows could flip on them: {', '.join(near)}" if near else
            "; no run is within one standard error of the kept/lost line")
    return "; ".join(parts) + said


def facts(tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    """The figures the report page quotes for one regime (glue key → text), from its
    rotated-basis tables. ``-rotated`` keys are the rotated arm, ``-stored`` keys its plain-Adam
    twins."""
    results = tables["results"]
    rot, sto = _arms(results)
    deep = deep_alignment(tables["alignment"])
    t = arms_test(results)
    return {
        "kept-rotated": count(rot.kept), "kept-stored": count(sto.kept),
        "lost-rotated": losses_text(rot.kept), "lost-stored": losses_text(sto.kept),
        "lost-discordant": (f"{t['rotated_only']} rotated only, {t['plain_only']} plain only "
                            f"(exact sign test p = {t['p']:.2f})"),
        "kept-raw-rotated": count(rot.kept_raw), "kept-raw-stored": count(sto.kept_raw),
        "net-rotated": summary(rot.net_removal), "net-stored": summary(sto.net_removal),
        "raw-rotated": summary(rot.raw_removal), "raw-stored": summary(sto.raw_removal),
        "cdrop-rotated": summary(rot.control_drop), "cdrop-stored": summary(sto.control_drop),
        "spill-rotated": summary(rot.spill, ".3f"), "spill-stored": summary(sto.spill, ".3f"),
        "spill-ok-rotated": count(rot.spill <= criteria.SPILL_MAX),
        "spill-ok-stored": count(sto.spill <= criteria.SPILL_MAX),
        "rawspill-rotated": summary(rot.raw_spill, ".3f"),
        "landing-rotated": summary(rot.landing), "landing-stored": summary(sto.landing),
        "task-rotated": summary(rot.task_change, ".3f"), "task-stored": summary(sto.task_change, ".3f"),
        "align-rotated": summary(deep["rotated"]), "align-stored": summary(deep["adam"]),
        "align-paired": paired(deep["rotated"].values, deep["adam"].values),
        "net-paired": paired(rot.net_removal.values, sto.net_removal.values),
        "refnet-rotated": summary(rot.removal_net_of_reference),
        "refnet-stored": summary(sto.removal_net_of_reference),
        "ref-rotated": summary(rot.anchored_reference_baseline, ".3f"),
        "ref-stored": summary(sto.anchored_reference_baseline, ".3f"),
        "over-rotated": count(rot.over_removal), "over-stored": count(sto.over_removal),
        "null-rotated": summary(rot.anchored_null_difference, ".3f"),
        "null-stored": summary(sto.anchored_null_difference, ".3f"),
        "evnull-rotated": summary(rot.anchored_evidence_null_difference),
        "evnull-stored": summary(sto.anchored_evidence_null_difference),
        "rawev-rotated": summary(rot.raw_removal_vs_evidence_null),
        "rawev-stored": summary(sto.raw_removal_vs_evidence_null),
        "lowest-op-rotated": summary(rot.filter(like="anchored_score_").min(axis=1), ".3f"),
        "lowest-op-stored": summary(sto.filter(like="anchored_score_").min(axis=1), ".3f"),
        "toprot-rotated": summary(rot.control_top_share_rotated, ".3f"),
        "topaxis-rotated": summary(rot.control_top_share_axes, ".3f"),
        "topaxis-stored": summary(sto.control_top_share_axes, ".3f"),
        "spike-paired": paired(rot.control_top_share_rotated.values,
                               sto.control_top_share_axes.values),
        "hasspike-rotated": count(rot.control_has_spike_rotated),
        "hasspike-stored": count(sto.control_has_spike_axes),
        "hasspike-falloff-rotated": count(rot.anchored_has_spike_rotated),
        "spikeshare-rotated": summary(rot.control_spike_share_rotated, ".3f"),
        "moved-rotated": count_moved(rot.moved_rotated, rot.anchored_has_spike_rotated,
                                     rot.control_has_spike_rotated),
        "moved-stored": count_moved(sto.moved_axes, sto.anchored_has_spike_axes,
                                    sto.control_has_spike_axes),
        "cos-e1-rotated": summary(rot.control_cos_e1_spike_rotated),
        "kurt-rotated": summary(rot.control_kurtosis_rotated),
        "kurt-stored": summary(sto.control_kurtosis_axes),
    }


# per question, the figures shown side by side (glue key → the row's label); "rotated" rows
# are the rotated arm, "plain" rows its plain-Adam twins; median (min to max) over seeds
QUESTIONS: dict[str, dict[str, str]] = {
    "E1": {"kept-rotated": f"anchor kept (net removal ≥ {criteria.KEPT}), rotated",
           "kept-stored": "anchor kept, plain",
           "lost-rotated": "losses, rotated", "lost-stored": "losses, plain",
           "lost-discordant": "seeds where one arm only lost",
           "align-rotated": "alignment with e₁, slices 3–4, rotated",
           "align-stored": "alignment with e₁, slices 3–4, plain",
           "align-paired": "alignment, rotated against plain, seed by seed"},
    "E2": {"raw-rotated": "raw removal, rotated", "raw-stored": "raw removal, plain",
           "cdrop-rotated": "control drop, rotated", "cdrop-stored": "control drop, plain",
           "net-rotated": "net removal, rotated", "net-stored": "net removal, plain",
           "net-paired": "net removal, rotated against plain, seed by seed",
           "null-rotated": "null (difference answered by another op), rotated",
           "null-stored": "null, plain",
           "rawev-rotated": "raw removal against the evidence null, rotated",
           "rawev-stored": "raw removal against the evidence null, plain",
           "spill-rotated": "spill, rotated", "spill-stored": "spill, plain",
           "spill-ok-rotated": f"spill ≤ {criteria.SPILL_MAX}, rotated",
           "spill-ok-stored": f"spill ≤ {criteria.SPILL_MAX}, plain",
           "over-rotated": "over-removal, rotated", "over-stored": "over-removal, plain",
           "landing-rotated": "landing, rotated", "landing-stored": "landing, plain",
           "lowest-op-rotated": "lowest clean op score of falloff, rotated",
           "lowest-op-stored": "lowest clean op score of falloff, plain"},
    "E3": {"toprot-rotated": "control's top share along its rotated axes, rotated",
           "topaxis-rotated": "control's top share along the coordinate axes, rotated",
           "topaxis-stored": "control's top share along the coordinate axes, plain",
           "spike-paired": "top share, rotated (own basis) against plain, seed by seed",
           "hasspike-rotated": "controls with a spike (rotated axes), rotated",
           "hasspike-stored": "controls with a spike (coordinate axes), plain",
           "kurt-rotated": "control's kurtosis, own basis, rotated",
           "kurt-stored": "control's kurtosis, own basis, plain",
           "moved-rotated": "falloff's spike moved off the control's, rotated"},
    "discussion": {"ref-rotated": "reference baseline, rotated", "ref-stored": "reference baseline, plain",
                   "refnet-rotated": "raw removal net of reference, rotated",
                   "refnet-stored": "raw removal net of reference, plain"},
}


def question_table(facts_by_regime: dict[str, dict[str, str]], question: str) -> pd.DataFrame:
    """One question's figures, one row per figure and one column per regime (its title)."""
    rows = QUESTIONS[question]
    return pd.DataFrame({regime: [f[k] for k in rows] for regime, f in facts_by_regime.items()},
                        index=pd.Index(list(rows.values())))


def premise_forms(claims: pd.DataFrame) -> bool:
    """Whether the report's premise (a privileged basis under plain Adam) forms in a regime, from
    its ledger's existence claim, P0, apart from its size (a premise that cannot be decided at
    this number of seeds is not shown to form)."""
    return claims.set_index("id").verdict["P0"] == REPRODUCED


def premise_words(verdict: pd.Series) -> str:
    """The premise in words from a ledger's verdicts: existence (P0) first, then its size against
    the source's (P2), each with its verdict, so that a size rule never speaks for existence."""
    exists = {REPRODUCED: "plain Adam builds a privileged basis",
              NOT_REPRODUCED: "plain Adam builds no privileged basis beyond the share tolerance",
              }.get(verdict["P0"], "whether plain Adam builds a privileged basis cannot be "
                                   "decided at this number of seeds")
    return (f"{exists} (the ledger: {verdict['P0']}); one axis holding about half the energy, "
            f"as in the source: {verdict['P2']}")


E3_CLAIMS = ("E3a", "E3b", "E3c", "E3e")  # the ledger's claims the E3 answer counts


def _e1(results: pd.DataFrame, alignment: pd.DataFrame, premise: bool, undecided: str,
        tolerance: float) -> str:
    rot, sto = _arms(results)
    a = deep_alignment(alignment)
    same_alignment = abs(a["rotated"].median() - a["adam"].median()) <= tolerance
    lost_r, lost_p, n = int((~rot.kept).sum()), int((~sto.kept).sum()), len(rot)
    if lost_r == 0 and lost_p == 0:
        if not same_alignment:
            return ("the anchor held on every run of both arms, but its alignment differs from "
                    "the twins' by more than the tolerance, so the optimizer's basis changed how "
                    "the anchor sits")
        said = ("every rotated run kept the anchor and aligned with e₁ as closely as its twin "
                f"(medians within {tolerance} of each other read as the same)")
        if not premise:
            return said + undecided
        return ("the numbers favour the alternative: the auxiliary loss sets the direction "
                "whatever the optimizer's basis, since " + said)
    t = arms_test(results)
    test = (f"; on the seeds where only one arm lost ({t['rotated_only']} rotated, "
            f"{t['plain_only']} plain) the exact two-sided sign test gives p = {t['p']:.2f}"
            + (f", so {n} seeds cannot decide the difference" if t["p"] >= DECIDES else ""))
    counts = (f"the anchor was lost on {lost_r} of {n} rotated runs and {lost_p} of {n} plain "
              "twins")
    if not premise:
        return counts + test + undecided
    if lost_r > lost_p:
        lean = ("more often under rotated Adam, as the report's worry predicts: the anchor "
                "leaned in part on e₁ being an axis of the optimizer")
    elif lost_p > lost_r:
        lean = ("more often under plain Adam, the reverse of the report's worry: where plain "
                "Adam builds a privileged basis, the anchor held less well on its axis e₁ than "
                "on an ordinary direction")
    else:
        lean = "as often under both arms: the optimizer's basis made no difference to it"
    return f"{counts}, {lean}{test}"


def _e2(results: pd.DataFrame, premise: bool, undecided: str, tolerance: float) -> str:
    rot, sto = _arms(results)
    gap = rot.net_removal.median() - sto.net_removal.median()
    spilled = results.spill > criteria.SPILL_MAX
    if spilled.any():
        e2 = (f"the edit is not selective on every run: {int(spilled[results.optimizer == 'rotated'].sum())}"
              f" of {len(rot)} rotated and {int(spilled[results.optimizer == 'adam'].sum())} of "
              f"{len(sto)} plain runs spill more than {criteria.SPILL_MAX}")
    elif abs(gap) <= tolerance:
        e2 = ("the edit removes difference as well under rotated Adam as under plain Adam "
              f"(median net removal within {tolerance}) and stays selective on every run"
              + (undecided if not premise else ", so removal does not depend on e₁ being an axis"))
    elif gap > tolerance:
        e2 = ("the edit removes difference better under rotated Adam than under plain Adam "
              f"(median net removal {rot.net_removal.median():.2f} against "
              f"{sto.net_removal.median():.2f}) and stays selective on every run"
              + (undecided if not premise else
                 ", so removal does not need e₁ to be an axis; where it is one, removal suffers"))
    else:
        e2 = ("the edit stays selective on every run but removes less under rotated Adam than "
              f"under plain Adam (median net removal {rot.net_removal.median():.2f} against "
              f"{sto.net_removal.median():.2f})")
    source_raw = E2A_SOURCE[0]  # the low end of the source report's raw removal (ledger E2a)
    m = rot.raw_removal.median()
    return e2 + (f"; raw removal (median {m:.2f} rotated) is "
                 f"{'below' if m < source_raw else 'at or above'} the source's {source_raw}, with "
                 f"{'no' if not rot.over_removal.any() else 'some'} over-removal")


def report_answers(results: pd.DataFrame, alignment: pd.DataFrame, claims: pd.DataFrame,
                   tolerance: float = SAME) -> dict[str, str]:
    """The sentence that closes each question of the report page (E1, E2, E3, Discussion) for
    one regime, from its rotated-basis ``results`` and ``alignment`` tables and its reproduction
    ledger ``claims``. ``tolerance``: how close two medians must be to read as the same."""
    rot, _ = _arms(results)
    verdict = claims.set_index("id").verdict
    premise = premise_forms(claims)
    # what a regime without the premise cannot decide: whether the anchor leans on e₁ being a
    # privileged axis (by the ledger's existence rule our runs do not show one here to lean on)
    undecided = (f"; whether that would hold where plain Adam builds a privileged basis, this "
                 f"regime cannot say: {premise_words(verdict)}")
    formed = int(rot.control_has_spike_rotated.sum())
    onto_rotated = rot.control_top_share_rotated.median() > rot.control_top_share_axes.median()
    e3 = (f"a spike stands out at the syntax positions in {formed} of {len(rot)} rotated controls; "
          + ("the largest share moves onto the rotated axes" if onto_rotated
             else "the largest share does not move onto the rotated axes")
          + (", at the source's size" if verdict["E3a"] == "reproduced" else
             ", not at the source's size")
          + f" ({counted(verdict[list(E3_CLAIMS)], 'of the ledger’s claims on it')})"
          + f"; {premise_words(verdict)}")
    discussion = (f"Against the source report: {counted(verdict, 'of its findings')}, each "
                  "named with its rule on the ledger page"
                  + (". Whether an anchor needs the optimizer's privileged basis can only be "
                     "answered where that basis forms, and in this regime our runs do not show "
                     "that it does" if not premise else ""))
    return {"e1": _e1(results, alignment, premise, undecided, tolerance),
            "e2": _e2(results, premise, undecided, tolerance), "e3": e3,
            "discussion": discussion}


def counted(verdicts: pd.Series, what: str) -> str:
    """Verdicts counted in words, ``2 of the ledger's claims on it reproduced, 1 not, 1 cannot be
    decided at this number of seeds``: the claims by their number, never by their ids (those are
    the ledger's), the verdicts that occur only."""
    n = verdicts.value_counts()
    said = [(n[v], w) for v, w in ((REPRODUCED, "reproduced"), (NOT_REPRODUCED, "not reproduced"),
                                   (UNDECIDED, "cannot be decided at this number of seeds"),
                                   (NOT_COMPARABLE, "cannot be compared")) if n.get(v, 0)]
    if not said:
        return f"none {what}"
    (first, word), rest = said[0], said[1:]
    return ", ".join([f"{first} {what} {word}"] + [f"{k} {w}" for k, w in rest])


def ledger_top(claims_by_regime: dict[str, pd.DataFrame]) -> str:
    """The ledger's counts in one sentence, regime by regime (title → that regime's ledger); the
    claims themselves are named on the ledger page."""
    parts = []
    for title, claims in claims_by_regime.items():
        n = tally(claims)
        parts.append(
            f"in the {title} {n[REPRODUCED]} reproduce, {n[NOT_REPRODUCED]} do not, "
            f"{n[UNDECIDED]} cannot be decided at this number of seeds and "
            f"{n[NOT_COMPARABLE]} cannot be compared")
    total = len(next(iter(claims_by_regime.values())))
    return (f"Of the {total} findings of the source report that our runs were set against, "
            + "; ".join(parts))


def syntax_vector_text(notable: pd.DataFrame) -> str:
    """Per arm, whether the vector holding the syntax tokens (the source report's spike) is the
    control's top-energy direction and its costliest, from the directions-of-note table of the
    controls (``directions.notable_table``): ``under rotated Adam it is the top-energy one on a
    of n controls and the costliest on b of n, at a cost of …; …``. ``n`` counts the controls
    where some token's |cos| is above chance (the others have no such vector)."""
    parts = []
    for arm, name in ARMS.items():
        mine = notable[(notable.role == "control") & (notable.optimizer == arm)]
        if not len(mine):
            continue
        kinds = mine.pivot(index="seed", columns="kind", values="index")
        syntax = mine[(mine.kind == "syntax") & mine["index"].notna()].set_index("seed")
        kinds = kinds.loc[syntax.index]
        top = int((kinds["syntax"] == kinds["top energy"]).sum())
        costly = int((kinds["syntax"] == kinds["costliest"]).sum())
        n = len(syntax)
        parts.append(f"under {name} it is the top-energy direction on {top} of {n} controls and the "
                     f"costliest on {costly} of {n}, at a cost of {summary(syntax.cost, '.3f')} and an energy "
                     f"share of {summary(syntax.share, '.3f')}" if n else
                     f"under {name} no control has one (no token's |cos| above chance)")
    return "; ".join(parts)
