"""The report page assembled, regime by regime: every figure its prose glues (glue key → text, the
key suffixed by its regime's ``Regime.key``) and every reader's table it shows, from the regimes'
rotated-basis tables, their ledgers, the mirror test and the directions of note.

``anchorkit.pages.findings`` computes each finding; this module only names, words and lays them out for
the page (``notebooks/rotated-basis.ipynb``), and says "not computed yet" for a regime of the
report whose tables are not written.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from anchorkit.studies.rotated_basis import mirror
from anchorkit.engine import registry
from anchorkit.studies.scout import viability
from anchorkit.measures import criteria, directions
from anchorkit.pages import asked, criteria_met, screens
from anchorkit.studies.diagnosis.findings import selection
from anchorkit.core.task import SYNTAX
from anchorkit.pages.page import REPORTS, compute_command, regime_list, report_regimes
from anchorkit.engine.provenance import has_tables, read_tables
from anchorkit.engine.regimes import CALIBRATED, DEFAULT, Regime
from anchorkit.engine.formatting import by_seed, captioned, count_moved
from anchorkit.core.optimizers import PLAIN_ADAM, ROTATED_ADAM

# the report's study's page texts, its folder's (found through the registry)
findings = registry.findings(registry.ROTATED_BASIS)


def not_yet(regime: Regime) -> str:
    """What a page says of a regime on the report whose tables are not computed yet."""
    return f"the {regime.title}'s tables are not computed yet ({compute_command(regime, 'rotated-basis')})"


regimes_of = report_regimes  # the regimes a report page speaks of: the report's, and any other it shows


def _sentence(text: str) -> str:
    return text[0].upper() + text[1:] + "."


def summary_figures(shown: dict[Regime, dict], claims: dict[Regime, pd.DataFrame],
                    why: str = "") -> tuple[dict, dict]:
    """The first screen (with ``why``, the diagnosis's one sentence), the ledger's headline, each
    question's answer and ``findings.facts`` per regime: (glued figures, other pages' texts)."""
    glued, plain = {}, {}
    top = findings.ledger_top({r.title: c for r, c in claims.items()})
    glued["ledger-top"] = plain["ledger-top-text"] = top
    first = [screens.regime_facts(r, claims[r], t) for r, t in shown.items()]
    # the page's markdown follows it with the link to the diagnosis (a role does not work in glue)
    glued["report-first-screen"] = screens.report_first_screen(first, why)
    # the introduction's first screen, in three glued parts around its link to the diagnosis
    plain["intro-answer-text"] = screens.intro_answer(first, others=False)
    plain["why-text"] = why
    plain["intro-counts-text"] = screens.intro_counts(first)
    said = asked.question_answers(dict(zip(shown, first)))
    for r in regimes_of(shown):
        glued[r.key("answer-question")] = said[r] if r in said else _sentence(not_yet(r))
    answers = {r: findings.report_answers(t["results"], t["alignment"], claims[r])
               for r, t in shown.items()}
    facts = {r: findings.facts(t) for r, t in shown.items()}
    for r in regimes_of(shown):
        if r in shown:  # removal as a paired comparison first, the kept/lost count second
            answers[r]["e1"] = (f"{findings.removal_comparison(shown[r]['results'])}; by the "
                                f"kept/lost count, {answers[r]['e1']}")
        for key in QUESTIONS:
            glued[r.key(f"answer-{key}")] = _sentence(answers[r][key] if r in shown else not_yet(r))
        for key in facts[DEFAULT]:
            glued[r.key(key)] = facts[r][key] if r in shown else "(not computed yet)"
    can = [r for r, f in zip(shown, first) if f.answerable] or list(shown)  # as asked.asking
    for key in ("e1", "e2", "e3", "discussion"):  # the introduction's lines: where it is asked
        plain[f"answer-{key}-text"] = " ".join(f"{r.title.capitalize()}: {answers[r][key]}."
                                               for r in can)
    return glued, plain


QUESTIONS = ("e1", "e2", "e3", "discussion")  # the report's answers, one per regime each


def answer_lists(glued: dict[str, str], shown: dict, asking=None) -> dict[str, str]:
    """Each question's answers as one Markdown list glued as ``answers-<question>``, a line per
    regime (``regimes_of`` order, marked as computed; a regime added is one more line): the
    report's own question in every regime (what one cannot ask is said there, once), E1–E3 and
    the discussion in those ``asking`` only (``asked.asking``; None: every regime)."""
    every = regimes_of(shown)
    told = [r for r in every if asking is None or r in asking]
    return {f"answers-{q}": regime_list({r: glued[r.key(f"answer-{q}")]
                                         for r in (every if q == "question" else told)})
            for q in (*QUESTIONS, "question")}


# each finding said once per regime as a list glued ``<finding>-each``, with its lines' lead words
EACH = {"moved-rotated": "falloff's spike ", "later-moved": "falloff's spike ",
        "syntax-vector": "", "pred-mirror": "", "pred-e1": ""}


def each_lists(glued: dict[str, str], shown: dict, asking=None) -> dict[str, str]:
    """Every finding of ``EACH`` that ``glued`` holds (``summary_figures``, ``later_figures``,
    ``prediction_figures``) as one Markdown list, a line per regime (of those ``asking``, if
    given): the page's markdown names no regime, so one added to the report is one more line."""
    told = [r for r in regimes_of(shown) if asking is None or r in asking]
    return {f"{base}-each": regime_list({r: lead + glued[r.key(base)] for r in told})
            for base, lead in EACH.items() if DEFAULT.key(base) in glued}


def regimes_named(shown: dict) -> str:
    """The report's regimes by title, for the introduction's table of studies: "the weak-basis
    regime and the second regime, side by side"."""
    titles = [f"the {r.title}" for r in regimes_of(shown)]
    named = titles[0] if len(titles) == 1 else ", ".join(titles[:-1]) + " and " + titles[-1]
    return named + (", side by side" if len(titles) > 1 else "")


def seeds_named(study, seeds, shown: dict) -> str:
    """The seeds the report's runs use, for the introduction: "seeds 704–711 (704–719 in the
    second regime, recalibrated)" where a regime of the report has its own (``Study.seeds_in``)."""
    def span(s):
        return f"{min(s)}–{max(s)}"
    others = [f"{span(study.seeds_in(seeds, r))} in the {r.title}" for r in regimes_of(shown)
              if study.seeds_in(seeds, r) != list(seeds)]
    return f"seeds {span(seeds)}" + (f" ({'; '.join(others)})" if others else "")


def regimes_text(shown: dict, provenance: dict, lead: str = "We did so in") -> str:
    """The report's regimes in one sentence led by ``lead``: for each, its changes from the
    weak-basis regime, its length (the shown runs', else the regime's own) and how it came to the
    report (``Regime.origin``)."""
    regimes = regimes_of(shown)
    parts = [f"the **{r.title}** ({_described(r, regimes[:i])}"
             f"{provenance[r]['epochs'] if r in provenance else r.epochs} epochs), {r.origin}"
             for i, r in enumerate(regimes)]
    return f"{lead} {len(regimes)} {{term}}`regimes <Regime>`: " + "; ".join(parts) + "."


def _described(r: Regime, before) -> str:
    """A regime's changes in words, led into its length: a regime that only swaps recipes in the
    settings of one named before it is said as that one's settings with the swap."""
    same = next((b for b in before if b.changes == r.changes and not b.recipes), None)
    if same is not None and r.recipes:
        swaps = ", ".join(f"{new} in place of {old}" for old, new in r.recipes.items())
        return f"the {same.title}'s settings, {swaps}; "
    return r.describe() + "; " if r.changes or r.recipes else ""


def criterion_figures(shown: dict[Regime, dict]) -> tuple[str, str]:
    """The falloff runs of the regime the criterion was set in (``regimes.CALIBRATED``) short of the
    calibration's removal criterion: the report's clause, and the Methods page's sentence."""
    results = shown[CALIBRATED]["results"]
    short = results.raw_removal < criteria.REMOVAL_MIN
    rot, plain = int(short[results.optimizer == ROTATED_ADAM.name].sum()), int(short[results.optimizer == PLAIN_ADAM.name].sum())
    counts = (f"{int(short.sum())} of the {len(results)} weak-basis falloff runs of this page ({rot} "
              f"under rotated Adam, {plain} under plain Adam) remove less than {criteria.REMOVAL_MIN} "
              "of difference at full dose")
    methods = (f"With removal measured against the null of another op, {int(short.sum())} of the "
               f"{len(results)} falloff runs of the report's weak-basis regime ({rot} under rotated "
               f"Adam, {plain} under plain Adam) remove less than {criteria.REMOVAL_MIN} of difference "
               "at full dose. The criterion was set for the earlier ratio, against the evidence null, "
               "and the method has not been calibrated again.")
    return counts + ", the calibration's criterion", methods


def question_table(shown: dict[Regime, dict], question: str, caption: str):
    """One question's figures, one column per regime."""
    df = findings.question_table({r.title.capitalize(): findings.facts(t) for r, t in shown.items()},
                                 question)
    # the figures' names as a column with a header of its own (an index would leave its header
    # cell empty, which an accessibility audit rightly flags)
    df = df.rename_axis("figure").reset_index()
    return df.style.hide(axis="index").set_caption(
        caption + " Median (range: lowest to highest) over seeds; rotated: the rotated-Adam runs, plain: their "
        "plain-Adam twins.")


def criteria_tables(shown: dict[Regime, dict]) -> tuple[list, str]:
    """Each regime's falloff runs against the calibration criteria, and the sentence counting
    those that meet every one."""
    tables, met = [], []
    for r, x in shown.items():
        t = criteria_met.criteria_table(x["results"], x["alignment"], x["dose"])
        met.append(f"in the {r.title}, {criteria_met.criteria_text(t)}")
        tables.append(captioned(t.drop(columns="meets all"), {c: c for c in t.columns if c != "meets all"},
                                f"Each falloff run against the calibration's criteria, {r.title}: "
                                + "; ".join(criteria_met.CRITERIA.values()) + ". The figure each criterion "
                                "reads, and how many of the five the run meets."))
    return tables, "; ".join(met)


E2_HEADERS = {
    "seed": "seed",
    "raw_removal_rotated": "raw removal ↑ rotated", "raw_removal_stored": "raw removal ↑ stored",
    "control_drop_rotated": "control drop ↓ rotated", "control_drop_stored": "control drop ↓ stored",
    "control_other_ops_rotated": "control, other ops ↓ rotated",
    "control_other_ops_stored": "control, other ops ↓ stored",
    "net_removal_rotated": "net removal ↑ rotated", "net_removal_stored": "net removal ↑ stored",
    "over_removal_rotated": "over-removal rotated", "over_removal_stored": "over-removal stored",
    "spill_rotated": "spill ↓ rotated",
    "raw_spill_rotated": "raw spill ↓ rotated", "raw_spill_stored": "raw spill ↓ stored",
    "landing_rotated": "landing rotated", "task_change_rotated": "task change rotated",
    "control_cos_e1_spike_rotated_rotated": "cos(e₁, control spike) rotated (– no spike)",
    "removal_net_of_reference_rotated": "removal net of reference ↑ rotated",
    "removal_net_of_reference_stored": "removal net of reference ↑ stored"}


def e2_table(e2: pd.DataFrame, regime: Regime):
    return by_seed(e2, E2_HEADERS, f"Removal per seed (columns), {regime.title}, full dose. Raw removal: "
                   "drop of difference on the anchored run as a share of its span (clean score minus "
                   "the null, the level of a model doing another op). Control drop: the same on the "
                   "control under the same edit. Control, other ops: the largest drop of another op on "
                   "the control. Net removal: raw removal minus control drop. Over-removal: the edited "
                   "score of difference fell below the null beyond sampling error. Spill: the largest "
                   "extra drop of another op on the anchored run over the control, over all doses. Raw "
                   "spill: the largest drop of another op on the anchored run. Landing: share of edited "
                   "difference answers equal to another op's answer. Task change: mean clean score, "
                   "anchored minus control. cos(e₁, control spike): between e₁ and the control's "
                   "largest-energy rotated axis, where it has a spike. Removal net of reference: raw "
                   "removal minus the median removal of reference directions. Stored: the plain-Adam "
                   "twin at the same seed. ↑/↓: the better direction.")


def _e3_headers() -> dict[str, str]:
    h = {"seed": "seed",
         "control_top_share_rotated_rotated": "top rotated share, control",
         "anchored_top_share_rotated_rotated": "top rotated share, falloff",
         "control_spike_share_rotated_rotated": "spike share, control",
         "anchored_spike_share_rotated_rotated": "spike share, falloff",
         "control_top_share_axes_rotated": "top-axis share, control",
         "anchored_top_share_axes_rotated": "top-axis share, falloff"}
    for role, label in (("control", "control"), ("anchored", "falloff")):
        for sym in SYNTAX:
            h[f"{role}_syntax_cos_{sym}_rotated_rotated"] = f"|cos| of “{sym}”, {label}"
    h.update({"control_cos_e1_spike_rotated_rotated": "cos(e₁, spike), control",
              "anchored_cos_e1_spike_rotated_rotated": "cos(e₁, spike), falloff",
              "moved_rotated_rotated": "spike moved"})
    return h


def e3_table(e3: pd.DataFrame, regime: Regime):
    return by_seed(e3, _e3_headers(), f"The basis per seed (columns), {regime.title}, rotated runs, last "
                   "slice. Top rotated share: the largest energy share along the seed's rotated axes. "
                   "Spike share: the share of the spike, the rotated axis with at least twice the "
                   "energy of any other at the syntax positions (– where the run has none). Top-axis "
                   "share: the largest along the coordinate axes. |cos| of “s”: the largest |cos| "
                   "between the embedding of syntax token s and any rotated axis. cos(e₁, spike): "
                   "between e₁ and the run's spike. Spike moved: falloff's spike is a different "
                   "rotated axis from the control's (– unless both have a spike).")


NOTABLE_HEADERS = {"optimizer": "optimizer", "seed": "seed", "kind": "direction", "index": "index",
                   "cost": "cost", "share": "energy share", "cos_e1": "cos with e₁",
                   "same": "is the top-energy one", "median_cost": "median cost of the basis"}


def notable_table(notable: pd.DataFrame, regime: Regime):
    """The directions of note of each control of one regime."""
    n = (notable[notable.role == "control"].assign(same=lambda d: d.is_top_energy)
         .sort_values(["optimizer", "seed", "kind"])
         .assign(optimizer=lambda d: d.optimizer.map(findings.ARMS)))
    return captioned(n, NOTABLE_HEADERS,
                     f"Directions of note of each control, {regime.title}, along its own basis "
                     "(coordinate axes under plain Adam, rotated axes under rotated Adam): the "
                     "top-energy direction, the one holding the syntax tokens (– where no token's |cos| "
                     "is above chance) and the costliest, with the median cost of the basis beside it.")


def prediction_figures(shown: dict[Regime, dict], notable: dict[Regime, pd.DataFrame]
                       ) -> tuple[dict[str, str], dict[Regime, pd.DataFrame]]:
    """The two predictions of our own, per regime: glued verdicts, and the mirror tests."""
    glued, verdicts = {}, {}
    for r in regimes_of(shown):
        if r not in shown:
            glued[r.key("pred-mirror")] = glued[r.key("pred-e1")] = not_yet(r)
            glued[r.key("syntax-vector")] = not_yet(r)
            continue
        x = shown[r]
        verdicts[r] = mirror.mirror_test(mirror.own_basis_measures(x["results"], x["spectra"], x["basis"]))
        holds, text = mirror.mirror_verdict(verdicts[r])
        glued[r.key("pred-mirror")] = f"{text}: {'the prediction stands' if holds else 'the prediction fails'}"
        e1_holds, e1_text = mirror.e1_verdict(mirror.e1_syntax_axis(notable[r]), x["results"])
        glued[r.key("pred-e1")] = (f"{e1_text}: " + ("the prediction holds" if e1_holds else
                                                  "the prediction fails, a finding to explain"))
        glued[r.key("syntax-vector")] = findings.syntax_vector_text(notable[r])
    return glued, verdicts


def later_figures(reports_dir: Path, shown: dict[Regime, dict]) -> dict[str, str]:
    """The reference-baseline study's moved count along the axes, per regime."""
    out = {}
    for r in regimes_of(shown):
        ref = r.reports(reports_dir) / "reference-baseline"
        if r in shown and has_tables(ref):
            t = read_tables(ref)["results"]
            out[r.key("later-moved")] = count_moved(t.moved_axes, t.anchored_has_spike_axes,
                                                              t.control_has_spike_axes)
        else:
            out[r.key("later-moved")] = ("is not measured yet (run the reference-baseline "
                                                   "study in this regime)")
    return out


def viability_figures(reports_dir: Path, shown: dict[Regime, dict]) -> dict[str, str]:
    """The second regime's viability check, and the selection effect it implies: the regime was
    adopted on calibration runs that kept their anchor, which says little of new seeds."""
    checked = viability.REGIME
    where = checked.reports(reports_dir) / "viability"
    out = {"pred-regime": checked.name,
           "pred-viability-outcome": (viability.decision_text(read_tables(where))
                                      if has_tables(where)
                                      else "The check has not been run yet.")}
    if has_tables(where) and checked in shown:
        said = selection({"anchors": read_tables(where)["anchors"],
                          "results": shown[checked]["results"]})
        out["pred-selection"] = (f"By raw removal the anchor was {said}: a regime adopted because "
                                 "its calibration runs kept the anchor is selected on them, and "
                                 "new seeds need not do as well (a selection effect)")
    else:
        out["pred-selection"] = "The check's selection effect cannot be read yet"
    return out


def screen_scope(reports_dir: Path) -> str:
    """What the loss-rate screen says about eight runs' losses (its folder's ``screen_scope``)."""
    texts = registry.findings("loss-rate-screen")
    screen = Path(reports_dir) / "loss-rate-screen"
    if not has_tables(screen):
        return texts.screen_scope(None)
    tables = read_tables(screen)
    return texts.screen_scope(tables["rate"], texts.measured_before_bounded_removal(tables["results"]))


def notables(runs_by_regime: dict[str, list], shown: dict[Regime, dict], store,
             committed: Path | None = None) -> dict[Regime, pd.DataFrame]:
    """The directions of note of each regime's runs: the committed table (the diagnosis study's
    ``notable``, under ``committed`` — the repository's ``reports/`` by default) when it holds
    exactly these runs, so that the page computes nothing from weights; else computed from the
    runs' weights and the regime's ``spectra`` and ``basis`` (a re-run with other seeds)."""
    out = {}
    for r, x in shown.items():
        runs = runs_by_regime[r]
        where = r.reports(REPORTS if committed is None else committed) / "diagnosis"
        table = read_tables(where).get("notable") if has_tables(where) else None
        if table is not None and set(table.hash) == {c.hash for c in runs}:
            out[r] = table
        else:
            out[r] = directions.notable_table(runs, x["spectra"], x["basis"], store)
    return out
