"""The essay page's texts (its notebook, notebooks/geometry-of-anchors.ipynb): the figures its
prose quotes, each prediction's short name, and its opening screen, from the tests of the
predictions (``anchorkit.studies.essay``) on the tables its measuring writes."""

from __future__ import annotations

import pandas as pd

from anchorkit.measures.geometry import SINK_THRESHOLD
from anchorkit.studies.essay import (DIFFERS, EARLY_EPOCH, NO_DIFFERENCE, NOT_SHOWN, NOT_SUPPORTED,
                                     NOT_TESTABLE, SUPPORTED, UNDECIDABLE, _early, _final,
                                     anchors_change_less, judge, pooled_change_correlation)


def _num(x, fmt: str = ".3f") -> str:
    return "n/a" if pd.isna(x) else f"{x:{fmt}}"


def _pv(p) -> str:  # a p-value after "p"
    return "n/a" if pd.isna(p) else ("< 0.001" if p < 0.001 else f"= {p:.3f}")


def page_facts(heads: pd.DataFrame, tests: dict[str, dict], prefix: str = "") -> dict[str, str]:
    """The essay page's figures (glue key → text, each key after ``prefix``, a regime column's):
    how much was measured, each test's verdict, its figures and what would change it, and the
    facts its prose quotes."""
    final, early = _final(heads), _early(heads)
    out = {"essay-runs": str(heads.run.nunique()), "essay-seeds": str(heads.seed.nunique()),
           "essay-heads": str(len(final)),
           "essay-snapshot-runs": f"{early.run.nunique()} of {heads.run.nunique()}",
           "essay-tests": (f"{sum(t['verdict'] != NOT_TESTABLE for t in tests.values())} of the "
                           f"{len(tests)}")}
    for key, t in tests.items():
        out[f"verdict-{key}"] = f"**{t['verdict']}**"
        way = "lie above zero" if t["alternative"] == "two-sided" else "go the predicted way"
        out[f"test-{key}"] = (
            f"per seed, {t['statistic']}: median {_num(t['median'])}, and {t['agree']} of {t['n']} "
            f"seeds {way}; Wilcoxon over n = {t['n']} seeds, p {_pv(t['p'])}, Holm-corrected p "
            f"{_pv(t['p_holm'])}" if t["n"] else "no seed has what this test needs")
        out[f"change-{key}"] = t["would_change"]
    pooled = pooled_change_correlation(heads)
    out["fact-pooled"] = f"ρ = {_num(pooled['rho'])} over {pooled['n']} head rows, p {_pv(pooled['p'])}"
    s = tests["sinks"]
    out["fact-sink-heads"] = f"{s.get('sink_heads', 0)} of {s.get('heads', len(final))}"
    sink_tokens = final[final.sink_dominated].sink_token.value_counts()
    out["fact-sink-tokens"] = ", ".join(f"`{tok}` {n}" for tok, n in sink_tokens.items()) or "none"
    circular = judge({"old": anchors_change_less(heads, classes_at="final")})["old"]
    out["fact-circular"] = (f"{circular['verdict']} (Holm-free p {_pv(circular['p'])}, "
                            f"{circular['agree']} of {circular['n']} seeds)")
    out["sink-threshold"] = f"{SINK_THRESHOLD:g}"
    out["early-epoch"] = str(EARLY_EPOCH)
    return {prefix + k: v for k, v in out.items()}


def recipe_runs(heads: pd.DataFrame) -> str:
    """The runs a column's two predictions on what anchoring changes read, in words."""
    seeds = sorted(heads.seed.unique())
    return (f"{heads.run.nunique()} runs at {len(seeds)} seeds ({seeds[0]}–{seeds[-1]})"
            if seeds else "no runs")


ESSAY_NAMES = {"boundary": "boundary layers grow more heterogeneous",
               "sinks": "sinks carry little value",
               "split": "weighting by value splits the structure measure",
               "change": "initial contribution predicts change",
               "populations": "anchors change less than workers",
               "gradients": "anchors' and workers' gradients differ",
               "recipe-heterogeneity": "the recipe changes head heterogeneity",
               "recipe-sinks": "the recipe changes the sinks"}


def verdict_counts(tests: dict[str, dict]) -> str:
    """How many of the judged predictions get each verdict, in words."""
    counts = pd.Series([t["verdict"] for t in tests.values()]).value_counts()

    def n(*verdicts):
        return int(sum(counts.get(v, 0) for v in verdicts))

    return (f"Supported: {n(SUPPORTED, DIFFERS)}. Not supported (the seeds go against it): "
            f"{n(NOT_SUPPORTED)}. Not shown at this number of seeds (the predicted way, short "
            f"of the corrected threshold, or no clear way): {n(NOT_SHOWN)}. No difference "
            f"detected where the essay expects one: "
            f"{n(NO_DIFFERENCE)} (not rejected at this number of seeds, which does not show "
            f"there is none). Cannot be decided at this number of seeds: "
            f"{n(UNDECIDABLE)}. Cannot be tested on the published runs: "
            f"{n(NOT_TESTABLE)}.")


def _split(t: dict) -> str:
    return f"{t['verdict']} ({t['agree']} of {t['n']} seeds)" if t["n"] else t["verdict"]


def essay_first_screen(tests: dict[str, dict], seeds: int, regime: str) -> str:
    """The essay page's opening on one regime column: how many of its predictions our runs (of
    the ``regime`` named, a page's name for it) support, do not support, cannot decide and cannot
    test, and the verdict of the one its argument rests on."""
    return (f"We tested the essay's {len(tests)} predictions on our own runs of the {regime} at "
            f"{seeds} seeds. {verdict_counts(tests)} The split the argument rests on, that "
            f"weighting by value shrinks the structure measure: {_split(tests['split'])}.")


SHORT = {SUPPORTED: "supported", DIFFERS: "differs", NOT_SUPPORTED: "not supported",
         NOT_SHOWN: "not shown", NO_DIFFERENCE: "no difference detected",
         UNDECIDABLE: "undecidable at this n", NOT_TESTABLE: "not testable"}  # the figure's words in full


def short_counts(tests: dict[str, dict]) -> str:
    """The verdicts' counts in one phrase (those given at least once, in ``SHORT``'s order), and
    whether every prediction could be tested."""
    counts = pd.Series([t["verdict"] for t in tests.values()]).value_counts()
    said = [f"{counts[v]} {SHORT[v]}" for v in SHORT if v != NOT_TESTABLE and counts.get(v, 0)]
    untested = int(counts.get(NOT_TESTABLE, 0))
    return "; ".join(filter(None, [", ".join(said), f"{untested} not testable" if untested
                                   else "every prediction tested"]))


def columns_first_screen(fair: tuple[str, dict, str], other: tuple[str, dict, str],
                         positions: bool) -> str:
    """The essay page's opening with two regime columns, each (its title, its judged tests, its
    seeds in words): which column is the fair test of the essay's premise and why (``positions``:
    whether its model has learned positions, which it must not for the first reason to hold),
    what each gives, and the split the argument rests on in both."""
    if positions:
        raise ValueError("the fair column's model has learned positions: the reason given for "
                         "it (only the causal mask orders the tokens) would not hold")
    (title, tests, seeds), (o_title, o_tests, o_seeds) = fair, other
    sinks, o_sinks = tests["sinks"], o_tests["sinks"]
    return (f"We tested the essay's {len(tests)} predictions in two regimes. The fair test is "
            f"the {title}: only the causal mask orders its tokens, where heads parking "
            f"attention on an early token are expected; weights kept at epoch "
            f"{EARLY_EPOCH}; it has {seeds} against {o_seeds}. Sink-dominated heads: "
            f"{sinks.get('sink_heads', 0)} of {sinks.get('heads', 0)} there, "
            f"{o_sinks.get('sink_heads', 0)} of {o_sinks.get('heads', 0)} in the {o_title}. "
            f"There: {short_counts(tests)}. In the {o_title}: {short_counts(o_tests)}. The split "
            f"the argument rests on: {_split(tests['split'])} there; {_split(o_tests['split'])} "
            f"in the other.")
