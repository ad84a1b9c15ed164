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


def page_facts(heads: pd.DataFrame, tests: dict[str, dict]) -> dict[str, str]:
    """The essay page's figures (glue key → text): how much was measured, each test's verdict,
    its figures and what would change it, and the facts its prose quotes."""
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
    return out


ESSAY_NAMES = {"boundary": "boundary layers grow more heterogeneous",
               "sinks": "sinks carry little value",
               "split": "weighting by value splits the structure measure",
               "change": "initial contribution predicts change",
               "populations": "anchors change less than workers",
               "gradients": "anchors' and workers' gradients differ",
               "recipe-heterogeneity": "the recipe changes head heterogeneity",
               "recipe-sinks": "the recipe changes the sinks"}


def essay_first_screen(tests: dict[str, dict], seeds: int, regime: str) -> str:
    """The essay page's opening: how many of its predictions our runs (of the ``regime`` named,
    a page's name for it) support, do not support, cannot decide and cannot test, and the verdict
    of the one its argument rests on."""
    counts = pd.Series([t["verdict"] for t in tests.values()]).value_counts()

    def n(*verdicts):
        return int(sum(counts.get(v, 0) for v in verdicts))

    split = tests["split"]
    return (f"We tested the essay's {len(tests)} predictions on our own runs of the {regime} at "
            f"{seeds} seeds. "
            f"Supported: {n(SUPPORTED, DIFFERS)}. Not supported (the seeds go against it): "
            f"{n(NOT_SUPPORTED)}. Not shown at this number of seeds (the predicted way, short "
            f"of the corrected threshold, or no clear way): {n(NOT_SHOWN)}. No difference "
            f"detected where the essay expects one: "
            f"{n(NO_DIFFERENCE)} (not rejected at this number of seeds, which does not show "
            f"there is none). Cannot be decided at this number of seeds: "
            f"{n(UNDECIDABLE)}. Cannot be tested on the published runs: "
            f"{n(NOT_TESTABLE)}. The split the argument rests on, that weighting by value "
            f"shrinks the structure measure: {split['verdict']}, with {split['n']} seeds that "
            f"have what the test needs, {split['agree']} of them going the predicted way.")


def verdicts_by_regime(columns: dict[str, dict[str, dict]]) -> pd.DataFrame:
    """Each prediction (rows, in ``ESSAY_NAMES``' words) and its verdict in each regime column
    (``columns``: a regime's title → its judged tests), with the seeds its test had and how many
    went the predicted way (above zero, for a two-sided test)."""
    rows = []
    for key, name in ESSAY_NAMES.items():
        row = {"prediction": name}
        for title, tests in columns.items():
            t = tests[key]
            row[title] = (f"{t['verdict']} ({t['agree']} of {t['n']} seeds)" if t["n"] else
                          t["verdict"])
        rows.append(row)
    return pd.DataFrame(rows)


def changed_verdicts(columns: dict[str, dict[str, dict]]) -> list[str]:
    """The predictions whose verdict differs between the first regime column and another (in
    ``ESSAY_NAMES``' words): what the second column changes."""
    first, *others = columns.values()
    return [name for key, name in ESSAY_NAMES.items()
            if any(o[key]["verdict"] != first[key]["verdict"] for o in others)]
