"""The reproduction ledger: each claim of the source report beside what our committed tables give.

Every claim carries the source's figure and the rules of its parts: values (``anchorkit.judging.rules``)
that read our tables (the ``reports/`` folder of one regime) and return our figure with a
verdict, and that write the rule's words from the same thresholds, before any table is read, so
that the words cannot drift from what is judged. The rules compare intervals, never a fixed cut-off on an
8-seed median (``anchorkit.measures.verdicts`` states the three comparisons: a size's median interval
against the region the claim allows, a count by Fisher's exact test against the source's count, a
relation's Fisher-z interval against the source's r); their verdicts are reproduced, not
reproduced, cannot be decided at this number of seeds, and not comparable. A claim of several
named parts says each part's verdict in our figure's text. A rule reads its claim's own scope: a
claim about the rotated runs is judged on the rotated runs.

Tolerances (stated once, used by every rule): a size quoted as a range allows the range widened
by ``SHARE_TOL`` (energy shares, |cos|, alignment) or ``SCORE_TOL`` (removal, landing, task
scores); "about x" allows x ± ``ABOUT``; an ordering of two quantities needs their paired
difference to be at least ``RESOLUTION`` (a few probe contexts), so that two costs both near zero
never order. A size whose region has two bounds also carries an equivalence margin
(``Figure.margin``, the measure's unit tolerance, stated per claim in ``SOURCE``): an interval
within it of a bound is decided (``verdicts.size_verdict``). A kept/lost line is blurred by one standard error of the removal it classifies
(``REMOVAL_SE``). Every |cos| claim is shown beside its chance level (``chance_cos``): the median
largest |cos| of a random unit vector with the 64 vectors of a basis, and its 95th percentile, the
level below which a |cos| places a token on no vector.

The claims are the source report's, in our words, never tuned towards.

Where things are: ``anchorkit.judging.rules`` (the rule kinds, a size, a count, a part given a premise,
the moved spikes, and the claim; ``rules.base``, the tolerances, the source's figures and the
judging helpers), each claim in the folder of the study whose tables it is judged on
(``Study.claims``: the rotated-basis study's ``premise``, ``anchor`` and ``basis``, the reference
baseline's L1, the loss-rate screen's S1), ``claims`` (gathering them in the ledger's order,
their short names, judging one) and, here, the
ledger table, the leave-one-seed-out check and the counts the pages glue. Every name of the
submodules is read as ``ledger.<name>``.
"""

from __future__ import annotations

import html

import pandas as pd

from anchorkit.engine.regimes import REPORT
from anchorkit.engine.provenance import has_tables, read_tables
from anchorkit.measures.verdicts import (NOT_COMPARABLE, NOT_REPRODUCED, REPRODUCED, UNDECIDED,
                                         VERDICTS)
from anchorkit.judging.base import *  # noqa: F401,F403 (every name is read as ledger.<name>)
from anchorkit.judging.rules import tally, verdict_list
from anchorkit.judging.base import SOURCE, Count, Tables
from anchorkit.judging.rules import *  # noqa: F401,F403
from anchorkit.judging.claims import *  # noqa: F401,F403
from anchorkit.judging.claims import CLAIMS, SECTIONS, judge


def ledger(where, regime: str = "weak basis") -> pd.DataFrame:
    """One row per claim: id, section, claim, the source's figure, the rule, and for the regime
    whose tables are in ``where``: our figure and the verdict."""
    t = Tables(where)
    rows = []
    for c in CLAIMS:
        ours, verdict = judge(c, t)
        assert verdict in VERDICTS, (c.id, verdict)
        rows.append({"id": c.id, "name": c.name, "section": c.section, "claim": c.claim,
                     "source": c.source,
                     "rule": c.rule, "regime": regime, "ours": ours,
                     "verdict": verdict})
    return pd.DataFrame(rows)


class Without(Tables):
    """A regime's tables with one seed's rows left out of every table that has a ``seed`` column
    (the leave-one-out check of ``pivotal``); read from the same folders, checked once."""

    def __init__(self, tables: Tables, seed: int):
        self.base, self.seed = tables, seed

    def get(self, study: str, table: str) -> pd.DataFrame | None:
        got = self.base.get(study, table)
        if got is None or "seed" not in got.columns:
            return got
        return got[got.seed != self.seed]


def source_runs(claim_id: str) -> int:
    """The most runs any count of the source's for this claim is out of (0: it has none): a count
    rule needs at least as many of ours, so leaving a seed out tests the claim fairly only where
    more than this remain."""
    return max((f.n for f in SOURCE.get(claim_id, {}).values() if isinstance(f, Count)),
               default=0)


def pivotal(where, seeds) -> pd.DataFrame:
    """Where one seed decides a verdict: each claim whose verdict changes when one seed's runs
    are left out of every table (``Without``), with that seed and the verdict without it; a claim
    whose source counts are out of as many runs as would remain is not checked (``checked``
    False: every count would change with n alone)."""
    seeds = sorted(seeds)
    t = where if isinstance(where, Tables) else Tables(where)
    rows = []
    for c in CLAIMS:
        verdict = judge(c, t)[1]
        if source_runs(c.id) > len(seeds) - 1:
            rows.append({"id": c.id, "checked": False, "seed": None, "verdict": verdict,
                         "without": None})
            continue
        for s in seeds:
            v = judge(c, Without(t, s))[1]
            if v != verdict:
                rows.append({"id": c.id, "checked": True, "seed": s, "verdict": verdict,
                             "without": v})
    return pd.DataFrame(rows, columns=["id", "checked", "seed", "verdict", "without"])


def pivotal_text(table: pd.DataFrame, seeds: int) -> str:
    """``pivotal`` in words for a page: the claims one seed decides, with the seeds and the
    verdict without each; how many were checked, and why the rest were not."""
    unchecked = table[~table.checked.astype(bool)].id.tolist()
    changed = table[table.checked.astype(bool)]
    checked = len(CLAIMS) - len(unchecked)
    def seeds_text(s):
        s = [str(int(x)) for x in s]
        return s[0] if len(s) == 1 else ", ".join(s[:-1]) + " or " + s[-1]

    said = [f"{cid} ({rows.verdict.iloc[0]}; "
            + "; ".join(f"without seed {seeds_text(w.seed)}: {v}"
                        for v, w in rows.groupby("without", sort=False)) + ")"
            for cid, rows in changed.groupby("id", sort=False)]
    text = (f"of the {checked} claims checked, {len(said)} change their verdict when one of the "
            f"{seeds} seeds is left out" + (": " + "; ".join(said) if said else ""))
    if unchecked:
        text += (f" ({', '.join(unchecked)} not checked: the source's counts there are out of "
                 f"{seeds} runs or more, which leaving one out would fall below)")
    return text


def pivotal_texts(reports_dir, regimes) -> dict:
    """``pivotal_text`` for each regime, at the seeds of its committed rotated-basis results."""
    out = {}
    for r in regimes:
        seeds = read_tables(r.reports(reports_dir) / "rotated-basis")["results"].seed.unique()
        out[r] = pivotal_text(pivotal(r.reports(reports_dir), seeds), len(seeds))
    return out


GROUPS = (("the premise (P1–P4)", ("premise",)), ("what the anchor does (E1–E2)", ("E1", "E2")),
          ("where the basis goes under rotation (E3)", ("E3",)),
          ("the later finding and the scope (L1, S1)", ("later", "scope")))


def by_group(table: pd.DataFrame) -> str:
    """The verdicts counted per group of claims, as one sentence for a page."""
    parts = []
    for name, sections in GROUPS:
        rows = table[table.section.isin(sections)]
        counts = tally(rows)
        said = ", ".join(f"{n} {v}" for v, n in counts.items() if n)
        parts.append(f"{name}: {said}")
    return "; ".join(parts)


def counts_text(table: pd.DataFrame) -> str:
    """One regime's ledger counted by verdict, with the ids, then by group: a sentence for a page."""
    n = tally(table)
    return (f"Of the {len(table)} claims, {n[REPRODUCED]} are reproduced "
            f"({verdict_list(table, REPRODUCED)}), {n[NOT_REPRODUCED]} not reproduced "
            f"({verdict_list(table, NOT_REPRODUCED)}), {n[UNDECIDED]} cannot be decided at this "
            f"number of seeds ({verdict_list(table, UNDECIDED)}) and {n[NOT_COMPARABLE]} are not "
            f"comparable ({verdict_list(table, NOT_COMPARABLE)}). By group, {by_group(table)}.")


def _seed_count(r) -> int:
    from anchorkit.engine.registry import PAPER_SEEDS  # the report study's default seeds
    return len(r.seeds) if r.seeds else len(PAPER_SEEDS)


def more_seeds_text(table: pd.DataFrame) -> str:
    """For each regime of the ledger whose runs share an earlier regime's settings at more seeds
    (the recalibrated column beside the second regime: the same model and training, its own
    recipe, 16 seeds against 8), which of the earlier regime's claims that cannot be decided are
    decided there, with the verdict, and which stay undecided; "" where no such pair is shown."""
    from anchorkit.engine.regimes import regime as named

    shown = [named(n) for n in dict.fromkeys(table.regime)]
    out = []
    for i, later in enumerate(shown):
        for earlier in shown[:i]:
            if earlier.changes != later.changes or _seed_count(later) <= _seed_count(earlier):
                continue
            before = table[table.regime == earlier.name].set_index("id").verdict
            after = table[table.regime == later.name].set_index("id").verdict
            open_ids = [c for c in before.index if before[c] == UNDECIDED]
            decided = [f"{c} ({after[c]})" for c in open_ids
                       if after.get(c) in (REPRODUCED, NOT_REPRODUCED)]
            apart = [c for c in open_ids if after.get(c) == NOT_COMPARABLE]
            still = [c for c in open_ids if after.get(c, UNDECIDED) == UNDECIDED]
            cannot = (f"; {', '.join(apart)} cannot be compared there (not a decision)"
                      if apart else "")
            out.append(
                f"Of the {len(open_ids)} claims the {earlier.title} cannot decide at "
                f"{_seed_count(earlier)} seeds, the {later.title} decides {len(decided)} at "
                f"{_seed_count(later)}: {', '.join(decided) or 'none'}; "
                f"{len(still)} {'stays' if len(still) == 1 else 'stay'} undecided "
                f"({', '.join(still) or 'none'}){cannot}. Its falloff runs "
                f"train another recipe ({', '.join(later.recipes.values())}) and its controls are "
                f"the {earlier.title}'s with {_seed_count(later) - _seed_count(earlier)} more "
                f"seeds, so a claim decided there is decided for that column, not for the "
                f"{earlier.title}'s runs.")
    return " ".join(out)


def section_tables(wide: pd.DataFrame) -> list[tuple[str, str]]:
    """The side-by-side ledger (``side_by_side``) as one HTML table per section of claims, with
    its title. A claim's row holds the claim (its id first, the rule for its verdict beneath), the
    source's figure, and one cell per regime with the verdict above our figure, so that a regime
    added to the report adds one column, not two; every cell carries its column's name
    (``data-label``), which a phone's layout shows where it stacks a row's cells."""
    regimes = [col[len("verdict ("):-1] for col in wide.columns if col.startswith("verdict (")]
    labels = ("claim", "the source's figure", *regimes)
    head = "".join(f"<th>{html.escape(h)}</th>" for h in labels)
    out = []
    for section, title in SECTIONS:
        body = []
        for _, row in wide[wide.section == section].iterrows():
            claim = (f"<strong>{html.escape(row.id)}</strong> {html.escape(row.claim)}"
                     f'<span class="ledger-rule">Rule: {html.escape(row.rule)}</span>')
            cells = [claim, html.escape(row.source)] + [
                f'<span class="ledger-verdict">{html.escape(row[f"verdict ({r})"])}</span>'
                f'{html.escape(row[f"ours ({r})"])}' if isinstance(row[f"verdict ({r})"], str)
                else "" for r in regimes]
            body.append("<tr>" + "".join(f'<td data-label="{html.escape(label)}">{c}</td>'
                                         for label, c in zip(labels, cells)) + "</tr>")
        out.append((title, f'<table class="ledger"><thead><tr style="text-align: left;">{head}'
                           f'</tr></thead><tbody>{"".join(body)}</tbody></table>'))
    return out


def regimes_ledger(reports_dir) -> pd.DataFrame:
    """The ledger of every regime on the report (``regimes.REPORT``, in its order) whose
    rotated-basis tables are committed under ``reports_dir`` (``Regime.reports``); the first, the
    regime the method was calibrated in, always (``regime`` names each row's)."""
    first, *others = REPORT
    tables = [ledger(first.reports(reports_dir), first.name)]
    for r in others:
        if has_tables(r.reports(reports_dir) / "rotated-basis"):
            tables.append(ledger(r.reports(reports_dir), r.name))
    return pd.concat(tables, ignore_index=True)


def side_by_side(table: pd.DataFrame) -> pd.DataFrame:
    """One row per claim: the source's figure and rule, then ours and the verdict per regime."""
    first = table.drop_duplicates("id")[["id", "section", "claim", "source", "rule"]]
    out = first.set_index("id")
    for regime, rows in table.groupby("regime", sort=False):
        r = rows.set_index("id")
        out[f"ours ({regime})"] = r["ours"]
        out[f"verdict ({regime})"] = r["verdict"]
    return out.reset_index()
