"""The diagnosis page's text, charts and tables ("Why our runs differ from the source's"), read
from the committed tables of both report regimes: each regime's ``diagnosis/`` folder and its
rotated-basis study's ``results`` and ``alignment``. Every number the page prints comes from
those tables; nothing here loads weights."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from anchorkit import diagnosis, viability
from anchorkit.pages.findings import ARMS, deep_alignment
from anchorkit.formatting import and_list, captioned, number, summary
from anchorkit.ledger import E1B_SOURCE, E2A_MEDIAN, E2A_SOURCE, SOURCE
from anchorkit.verdicts import (NOT_COMPARABLE, NOT_REPRODUCED, REPRODUCED, UNDECIDED,
                                relation_interval, relation_verdict)
from anchorkit.provenance import has_tables, read_provenance, read_tables
from anchorkit.rank import DIFFUSE, LOW_RANK_VERDICT, NEITHER, beyond_input
from anchorkit.regimes import SECOND_EPOCHS
from anchorkit.studies import PAPER_SEEDS
from anchorkit.optimizers import ROTATED_ADAM

FAMILY = diagnosis.SECOND_FAMILY  # part 1's second family of erasure directions
TABLES = ("rank_curves", "probe", "ranks", "rank_verdicts", "probe_verdicts", "overlap",
          "overlap_targets", "overlap_verdicts", "relation", "mirror", "notable",
          f"{FAMILY}_curves", f"{FAMILY}_ranks", f"{FAMILY}_verdicts")
FITTED = {"answers": "at the answers", FAMILY: "at the query"}  # a family, in a few words
SOURCE_R = SOURCE["E2c"]["r"].value  # the source's overlap relation, Pearson r
TARGET_NAMES = {"spike": "energy spike", "syntax": "syntax-holding vector",
                "costliest": "costliest direction"}


def load(reports_dir) -> dict[str, dict[str, pd.DataFrame]]:
    """Per regime of the diagnosis (``diagnosis.REGIMES``) whose every part is committed (the
    ``REQUIRED`` ones must be; ``pending`` names the others): its diagnosis tables, with the
    rotated-basis study's ``results`` and ``alignment`` and, in the second regime, the viability
    check's ``anchors`` (every read checked against its folder's manifest)."""
    out = {}
    for regime in diagnosis.REGIMES:
        home = regime.reports(reports_dir)
        if regime not in diagnosis.REQUIRED and not complete(reports_dir, regime):
            continue
        tables = dict(read_tables(Path(home) / "diagnosis"))
        missing = [t for t in TABLES if t not in tables]
        if missing:
            raise FileNotFoundError(f"{home}/diagnosis lacks {missing}: compute them with "
                                    f"anchorkit.diagnosis_study (the page's Re-running section)")
        study = read_tables(Path(home) / "rotated-basis")
        tables.update(results=study["results"], alignment=study["alignment"])
        if regime == viability.REGIME:  # the regime whose calibration runs the check trained
            tables["anchors"] = read_tables(Path(home) / "viability")["anchors"]
        out[regime] = tables
    return out


def complete(reports_dir, regime) -> bool:
    """Whether a regime's diagnosis folder lists every table the page reads (its verified
    provenance's manifest; ``load`` then reads and checks the tables themselves, once)."""
    where = Path(regime.reports(reports_dir)) / "diagnosis"
    if not has_tables(where):
        return False
    listed = read_provenance(where).get("tables") or {}
    return all(f"{t}.parquet" in listed for t in TABLES)


def pending(reports_dir) -> list:
    """The diagnosis's regimes whose parts are not all committed yet (the page says so)."""
    return [r for r in diagnosis.REGIMES if not complete(reports_dir, r)]


def column_text(regime, t, d: pd.DataFrame) -> str:
    """What the first screen says of the focus, said of a regime shown beyond the required two
    (the recalibrated column): its rotated runs' alignment and raw removal, the probe after the
    e₁ edit on its falloff runs, and what more erasure directions rescue."""
    rot = d[(d.regime == regime.title) & (d.optimizer == ROTATED_ADAM.name)]
    read = beyond_input(t["probe"][t["probe"].recipe != "control"])
    short, rescued = rescued_by_rank(t)
    return (f"In the {regime.title}, rotated falloff runs align difference with e₁ "
            f"({summary(rot.alignment)}) and projecting e₁ out removes "
            f"{summary(rot.raw_removal)}; after the edit a probe still reads difference beyond "
            f"the input on {int(read.sum())} of {len(read)} of its falloff runs, and "
            f"{diagnosis.RANKS[-1] - 1} more erasure directions, of either family, rescue "
            f"{rescued} of the {short} runs e₁ leaves short.")


def shown_text(tables, reports_dir) -> str:
    """The regimes the page shows, in order (for each beyond the required two, ``column_text``),
    and those of the diagnosis not shown yet (their parts not all committed) with how they are
    computed."""
    said = f"It shows {and_list([f'the {r.title}' for r in tables])}."
    extra = [r for r in tables if r not in diagnosis.REQUIRED]
    if extra:
        d = dissociation(tables)
        said += " " + " ".join(column_text(r, tables[r], d) for r in extra)
    todo = pending(reports_dir)
    if todo:
        said += (f" Not shown yet, its parts not all computed (`anchorkit.diagnosis_study`, the "
                 f"page's Re-running section): {and_list([f'the {r.title}' for r in todo])}.")
    return said


def pooled(tables) -> str:
    """The regimes a pooled count is over, in words."""
    return "both regimes" if len(tables) == 2 else f"the {len(tables)} regimes"


# ---------------------------------------------------------------------- the dissociation
def dissociation(tables: dict[str, dict[str, pd.DataFrame]]) -> pd.DataFrame:
    """One row per falloff run of each regime: its alignment at slices 3–4 and raw removal."""
    rows = []
    for regime, t in tables.items():
        deep = deep_alignment(t["alignment"]).rename("alignment").reset_index()
        r = t["results"][["seed", "optimizer", "run", "raw_removal", "net_removal"]]
        rows.append(r.merge(deep, on=["optimizer", "seed"]).assign(regime=regime.title))
    out = pd.concat(rows, ignore_index=True)
    out["arm"] = out.optimizer.map(ARMS)
    return out


# ---------------------------------------------------------------------- part 1
def rank_long(tables) -> pd.DataFrame:
    """The rank curves of every falloff run, erasure and random subspaces as rows."""
    rows = []
    for regime, t in tables.items():
        c = t["rank_curves"]
        c = c[c.recipe != "control"]
        q = t[f"{FAMILY}_curves"]
        for which, d, col in ((f"erasure, {FITTED['answers']}", c, ""),
                              (f"erasure, {FITTED[FAMILY]}", q, ""), ("random", c, "random_")):
            rows.append(d[["run", "seed", "optimizer", "k"]].assign(
                subspace=which, removal=d[f"{col}removal"].to_numpy(),
                spill=d[f"{col}spill"].to_numpy(), regime=regime.title))
    out = pd.concat(rows, ignore_index=True)
    out["arm"] = out.optimizer.map(ARMS)
    return out


# ---------------------------------------------------------------------- verdicts in words
def probe_text(tables) -> str:
    """Per regime, on how many runs difference stays readable after the e₁ edit at slices 1–4 by
    the committed bar, and on how many falloff runs beyond the input's own (slice-0) level."""
    parts = []
    for regime, t in tables.items():
        v = t["probe_verdicts"]
        read, runs = read_beyond_input({regime: t})
        parts.append(f"{int(v.readable.sum())} of {int(v.runs.sum())} runs in the "
                     f"{regime.title} (lowest accuracy there {number(v.lowest.min())}; beyond the "
                     f"input's own level on {read} of its {runs} falloff runs)")
    return "; ".join(parts)


def probe_holds(tables) -> bool:
    return all(int(t["probe_verdicts"].readable.sum()) == int(t["probe_verdicts"].runs.sum())
               for t in tables.values())


def rank_text(tables) -> str:
    """Per regime and arm: the verdict, how many falloff runs have an effective rank at most
    LOW_RANK and how many none up to 8; then the same by the second family."""
    parts = []
    for regime, t in tables.items():
        arms = [f"{ARMS[r.optimizer]}: {r.verdict} ({r.low_rank} of {r.runs} falloff runs of "
                f"rank at most {diagnosis.LOW_RANK}, {r['none']} with none up to "
                f"{diagnosis.RANKS[-1]}; at k = {diagnosis.RANKS[-1]} the erasure subspace removes "
                f"{number(r.median_over_random_at_top, '+.2f')} beyond a random one, median; at "
                f"the e₁ edit's own spill it rescues {r.rescued_at_e1_spill} of the {r.short} runs "
                f"e₁ alone leaves short)"
                for _, r in t["rank_verdicts"].iterrows()]
        parts.append(f"{regime.title}: " + "; ".join(arms))
    return ". ".join(parts)


def family_text(tables) -> str:
    """Per regime and arm, the second family's verdict and counts (``REVISIONS["rank: a second
    family"]``), and the conclusion both families allow (``families_verdict``)."""
    parts = []
    for regime, t in tables.items():
        v = t[f"{FAMILY}_verdicts"]
        arms = [f"{ARMS[r.optimizer]}: {r.verdict} ({r.low_rank} of {r.runs} of rank at most "
                f"{diagnosis.LOW_RANK}, {r['none']} with none up to {diagnosis.RANKS[-1]}; "
                f"{number(r.median_over_random_at_top, '+.2f')} beyond random at "
                f"k = {diagnosis.RANKS[-1]}; at the e₁ edit's own spill it rescues "
                f"{r.rescued_at_e1_spill} of {r.short}); both families: "
                f"{families_verdict(t, r.optimizer)}" for _, r in v.iterrows()]
        parts.append(f"{regime.title}: " + "; ".join(arms))
    return ". ".join(parts)


def families_verdict(t, optimizer: str) -> str:
    """What the families tried say together of one arm (the rule fixed before the second family's
    tables): a diffuse code only where every family reads it; where one reads low-rank
    redundancy, that, with the family named; else neither."""
    said = {f: t[table].set_index("optimizer").loc[optimizer, "verdict"]
            for f, table in (("answers", "rank_verdicts"), (FAMILY, f"{FAMILY}_verdicts"))}
    low = [FITTED[f] for f, v in said.items() if v == LOW_RANK_VERDICT]
    if low:
        return f"{LOW_RANK_VERDICT}, fitted {and_list(low)}"
    return DIFFUSE if all(v == DIFFUSE for v in said.values()) else NEITHER


def rank_holds(tables) -> bool:
    """The rank prediction: the second regime's rotated arm reads low-rank redundancy, the
    weak-basis regime's rotated arm has a median effective rank of at most 2."""
    v = {r: t["rank_verdicts"].set_index("optimizer") for r, t in tables.items()}
    weak, second = diagnosis.REQUIRED  # the regimes the prediction was written for
    return (v[second].loc["rotated", "verdict"] == LOW_RANK_VERDICT
            and v[weak].loc["rotated", "median_rank"] <= 2)


def overlap_text(tables) -> str:
    cells = pd.concat([t["overlap_verdicts"] for t in tables.values()], ignore_index=True)
    weak = cells[cells.verdict == "weak"]
    return (f"{len(weak)} of {len(cells)} (regime, arm, v) cells read weak; the median drop on "
            f"difference at c = {diagnosis.AT} is {summary(cells.median_drop, '.3f')} over them")


def overlap_holds(tables) -> bool:
    return all((t["overlap_verdicts"].verdict == "weak").all() for t in tables.values())


def source_r_verdicts(rel: pd.DataFrame) -> pd.DataFrame:
    """Each testable correlation of a ``relation`` table judged by the ledger's one relation rule
    against the source's r (``REVISIONS["relation: the source's r"]``): its Fisher-z interval and
    verdict."""
    out = rel.copy()
    ivals = [relation_interval(r, int(n)) for r, n in zip(out.pearson, out.n)]
    out["low"], out["high"] = [i[0] for i in ivals], [i[1] for i in ivals]
    out["against_source"] = [relation_verdict(r, int(n), SOURCE_R) if t else NOT_COMPARABLE
                             for r, n, t in zip(out.pearson, out.n, out.testable)]
    return out


def relation_text(tables) -> str:
    rel = pd.concat([t["relation"] for t in tables.values()], ignore_index=True)
    tested = rel[rel.testable]
    judged = source_r_verdicts(tested).against_source
    by_rule = ", ".join(f"{int((judged == v).sum())} {v}" for v in (REPRODUCED, UNDECIDED,
                                                                     NOT_REPRODUCED))
    return (f"{int(tested.relation.sum())} of {len(tested)} testable correlations show a relation "
            f"by the rule ({len(rel) - len(tested)} more not testable: a cosine the same on every "
            f"seed); judged against the source's r = {SOURCE_R} by its Fisher-z interval, the "
            f"ledger's relation rule, {by_rule}")


def relation_holds(tables) -> bool:
    return not any(t["relation"].relation.any() for t in tables.values())


def mirror_text(tables) -> str:
    parts = []
    for regime, t in tables.items():
        m = t["mirror"]
        c, f = m[m.recipe == "control"], m[m.recipe != "control"]
        parts.append(f"{regime.title}: controls {int(c.equal.sum())} of {len(c)} equal (largest "
                     f"gap {c.largest_gap.max():.1e}), falloff {int(f.equal.sum())} of {len(f)} "
                     f"(gaps {summary(f.largest_gap, '.3f')})")
    return "; ".join(parts)


def mirror_holds(tables) -> bool:
    return all(t["mirror"][t["mirror"].recipe == "control"].equal.all()
               and not t["mirror"][t["mirror"].recipe != "control"].equal.any()
               for t in tables.values())


def verdict_word(holds: bool) -> str:
    return "holds" if holds else "does not hold"


# ---------------------------------------------------------------------- part 4: the summary
def syntax_is_spike(t) -> tuple[int, int]:
    """Rotated controls whose syntax-holding vector is their energy spike, of those with one."""
    g = t["overlap_targets"]
    g = g[(g.optimizer == ROTATED_ADAM.name) & g.syntax.notna()]
    return int((g.syntax.astype(int) == g.spike.astype(int)).sum()), len(g)


def selection(t) -> str:
    """The second regime's viability check against its paper seeds: rotated falloff runs whose
    raw removal kept the anchor."""
    a = t["anchors"]
    cal = a[(a.optimizer == ROTATED_ADAM.name) & (a.recipe != "control") & (a.epochs == a.run_epochs)
            & (a.run_epochs == SECOND_EPOCHS)]  # the paper's length, at its end
    r = t["results"]
    paper = r[(r.optimizer == ROTATED_ADAM.name) & (r.recipe != "control")]
    return (f"kept on {int(cal.kept_raw.sum())} of {len(cal)} rotated calibration runs, on "
            f"{int(paper.kept_raw.sum())} of {len(paper)} rotated paper seeds")


def summary_table(tables) -> pd.DataFrame:
    """Each candidate explanation of the ledger's failures, the test that addresses it and its
    outcome per regime, every cell computed from the tables."""
    rows = []

    def add(candidate, test, outcome):
        rows.append({"candidate explanation": candidate, "test": test,
                     **{r.title: outcome(t) for r, t in tables.items()}})

    add("The premise is smaller than the source's (the rotated controls' energy spike)",
        "top energy share of the rotated controls along their rotated axes (the source's about "
        "half)", lambda t: summary(t["results"].query("optimizer == 'rotated'")
                                   .control_top_share_rotated))
    add("The op is carried by more directions than e₁",
        f"removal curves by rank, k = 1–{diagnosis.RANKS[-1]}, of two erasure families (fitted "
        f"{' and '.join(FITTED.values())}) beside random subspaces",
        lambda t: "; ".join(f"{ARMS[o]}: {families_verdict(t, o)}"
                            for o in t["rank_verdicts"].optimizer))
    add("The op is no longer computed, so nothing is left to remove",
        "a held-out probe after the e₁ edit, slices 1–4, against the input's own level (slice 0)",
        lambda t: "beyond the input on {} of {} falloff runs".format(*read_beyond_input({0: t})))
    add("The syntax vector is not the energy spike",
        "rotated controls whose syntax-holding vector is their top-energy direction",
        lambda t: "{} of {}".format(*syntax_is_spike(t)))
    add("The control's collateral damage is small",
        f"overlap curves: median drop at c = {diagnosis.AT}, each v and arm",
        lambda t: summary(t["overlap_verdicts"].median_drop, ".3f") + " — "
                  + f"{int((t['overlap_verdicts'].verdict == 'weak').sum())} of "
                    f"{len(t['overlap_verdicts'])} weak")
    add("The arms differ by more than chance",
        "float64 mirror check over a training loop",
        lambda t: "controls equal on " + _count(t["mirror"][t["mirror"].recipe == "control"].equal))
    rows.append({"candidate explanation": "The regime was chosen on 2 calibration seeds",
                 "test": "the viability check's rotated falloff runs against the paper seeds "
                         f"({len(PAPER_SEEDS)})",
                 **{r.title: selection(t) if "anchors" in t else
                    "not chosen that way (its recipe calibrated first)"
                    for r, t in tables.items()}})
    return pd.DataFrame(rows)


def _count(flags) -> str:
    return f"{int(flags.sum())} of {len(flags)}"


def summary_styler(df: pd.DataFrame):
    return captioned(df, {c: c for c in df.columns},
                     "Each candidate explanation, the test that addresses it, and its outcome in "
                     "each regime (every cell computed from the committed tables).")


# ---------------------------------------------------------------------- the first screen
def first_screen(tables) -> str:
    """At most about 120 words, no claim ids: what explains the differences and what does not."""
    d = dissociation(tables)
    # the rotated arm, the one the report's first screen quotes (one form per number)
    second = d[(d.regime == diagnosis.FOCUS.title) & (d.optimizer == ROTATED_ADAM.name)]
    short, rescued = rescued_by_rank(tables[diagnosis.FOCUS])
    read, runs = read_beyond_input(tables)
    words = [
        f"In the {diagnosis.FOCUS.title} rotated falloff runs align difference with e₁ "
        f"({summary(second.alignment)}; the source's about {E1B_SOURCE}), "
        f"yet projecting e₁ out removes {summary(second.raw_removal)}, the source's "
        f"{E2A_MEDIAN} (range {E2A_SOURCE[0]} to {E2A_SOURCE[1]}).",
        f"A probe still reads difference beyond the input on "
        f"{read} of {runs} falloff runs ({pooled(tables)}), and "
        f"{diagnosis.RANKS[-1] - 1} more erasure directions (two families) rescue {rescued} "
        f"of the {short} {diagnosis.FOCUS.title} runs e₁ leaves short: the op is computed, "
        + ("on no small subspace of the families tried." if rescued * 2 < short
           else "on a few directions more."),
        f"Our controls barely show the source's collateral damage "
        f"({overlap_weak_count(tables)}).",
        (f"The arms' controls mirror each other by construction (float64 check: "
         f"{diagnosis.MIRROR_STEPS} steps).") if mirror_holds(tables) else
        (f"A float64 check over {diagnosis.MIRROR_STEPS} steps finds the arms' controls are not "
         f"mirror images."),
    ]
    return " ".join(words)


def read_beyond_input(tables) -> tuple[int, int]:
    """Falloff runs of every report regime on which, after the e₁ edit, the probe reads the op
    above the input's own level at slices 1–4 (``rank.beyond_input``), and how many there are."""
    read = pd.concat([beyond_input(t["probe"][t["probe"].recipe != "control"])
                      for t in tables.values()], ignore_index=True)  # run names repeat by regime
    return int(read.sum()), len(read)


def why_of(reports_dir) -> str:
    """``why_sentence`` from the diagnosis tables under ``reports_dir``; where they are not (a
    scratch re-run at another profile), a sentence that only points to them, with no figure."""
    if not all(has_tables(Path(r.reports(reports_dir)) / "diagnosis") for r in diagnosis.REQUIRED):
        return "Why the numbers differ is tested on the published weights"
    return why_sentence(load(reports_dir))


def why_sentence(tables) -> str:
    """The one-sentence why the other pages' first screens give (before its link to this page):
    the falloff runs only (the controls were never anchored), and a conclusion limited to the
    erasure families tried."""
    read, runs = read_beyond_input(tables)
    short, rescued = rescued_by_rank(tables[diagnosis.FOCUS])
    return (f"Why: with e₁ projected out, a probe still reads difference beyond the input on "
            f"{read} of {runs} falloff runs; two erasure families, {diagnosis.RANKS[-1] - 1} "
            f"more directions each, rescue {rescued} of the {short} {diagnosis.FOCUS.title} "
            f"runs e₁ leaves short")


def rescued_by_rank(t) -> tuple[int, int]:
    """Falloff runs whose e₁ edit alone misses the criteria (effective rank not 1), and how many
    of them reach the criteria with further erasure directions (an effective rank of 2–8) of
    either family tried."""
    r = t["ranks"][t["ranks"].recipe != "control"].set_index("run")
    q = t[f"{FAMILY}_ranks"].set_index("run").effective_rank.reindex(r.index)
    short = r.effective_rank != 1
    return int(short.sum()), int((short & (r.effective_rank.notna() | q.notna())).sum())


def random_spill_at_top(t) -> str:
    """The falloff runs' raw spill under random subspaces at k = 8 (median, range)."""
    c = t["rank_curves"]
    return summary(c[(c.recipe != "control") & (c.k == diagnosis.RANKS[-1])].random_spill)


def probe_count(tables) -> str:
    runs = sum(int(t["probe_verdicts"].runs.sum()) for t in tables.values())
    ok = sum(int(t["probe_verdicts"].readable.sum()) for t in tables.values())
    return f"{ok} of {runs} runs"


def overlap_weak_count(tables) -> str:
    cells = pd.concat([t["overlap_verdicts"] for t in tables.values()], ignore_index=True)
    return (f"at most {number(cells.median_drop.max(), '.2f')} lost at a cosine of "
            f"{diagnosis.AT}; {int((cells.verdict == 'weak').sum())} of {len(cells)} cells weak")


def ranks_styler(t, regime):
    """Per falloff run: its effective rank ("–": none up to 8) and the erasure subspace's removal
    beyond the random one's, at that rank and at k = 8; and its effective rank by the second
    family."""
    ranks = t["ranks"]
    other = t[f"{FAMILY}_ranks"].set_index("run").effective_rank
    df = ranks[ranks.recipe != "control"].assign(arm=lambda d: d.optimizer.map(ARMS),
                                                 other=lambda d: d.run.map(other))
    return captioned(df, {"arm": "arm", "seed": "seed", "effective_rank": "effective rank",
                          "over_random_at_rank": "beyond random, at that rank",
                          "over_random_at_top": f"beyond random, k = {diagnosis.RANKS[-1]}",
                          "other": f"effective rank, fitted {FITTED[FAMILY]}"},
                     f"Effective ranks, {regime.title} (– : none up to {diagnosis.RANKS[-1]})",
                     fmt="{:.2f}")


RELATION_NAMES = {"shortfall": "shortfall in net removal", "control_drop": "control's own drop",
                  "cos_e1_syntax": "|cos(e₁, syntax-holding vector)|",
                  "cos_e1_spike": "|cos(e₁, energy spike)|"}


def seed_count(n: pd.Series) -> str:
    """How many seeds a table's tests ran over: one number, or its range where a test had fewer
    (a run without a spike leaves its seed out of the spike's)."""
    return f"{n.max()}" if n.min() == n.max() else f"{n.min()} to {n.max()}"


def relation_styler(rel: pd.DataFrame, regime):
    """The overlap relation's correlations with their exact permutation p-values."""
    df = source_r_verdicts(rel)
    df = df.assign(arm=df.optimizer.map(ARMS), measure=df.measure.map(RELATION_NAMES),
                   against=df.against.map(RELATION_NAMES))
    return captioned(df, {"arm": "arm", "measure": "measure", "against": "against",
                          "pearson": "Pearson r", "p_pearson": "p", "spearman": "Spearman ρ",
                          "p_spearman": "p", "testable": "testable", "relation": "relation",
                          "low": "r, 95% low", "high": "r, 95% high",
                          "against_source": f"against the source's r = {SOURCE_R}"},
                     f"The overlap relation on our seeds, {regime.title} (exact one-sided "
                     f"permutation p-values over {seed_count(rel.n)} seeds; Fisher-z interval of r and the "
                     f"ledger's relation rule against the source's r beside)", fmt="{:.3f}")


def full_overlap_text(tables) -> str:
    """Per regime: the median control drop on difference when v itself is projected out (c = 1),
    each v, both arms pooled."""
    parts = []
    for regime, t in tables.items():
        o = t["overlap"][np.isclose(t["overlap"].overlap, 1.0)]
        per = o.groupby(["target", "run"]).control_drop.mean().groupby("target").median()
        parts.append(f"{regime.title}: " + ", ".join(
            f"{TARGET_NAMES[v]} {number(per[v])}" for v in diagnosis.TARGETS if v in per))
    return "; ".join(parts)


def falls_text(tables, fall: float = 0.1) -> str:
    """Falloff runs (every regime, the family fitted at the answers) whose raw removal falls by
    more than ``fall`` from one k to the next: projecting out one more direction can undo part
    of what the others removed, so removal need not grow with k."""
    n = fell = 0
    for t in tables.values():
        c = t["rank_curves"]
        c = c[c.recipe != "control"].pivot(index="run", columns="k", values="removal")
        n += len(c)
        fell += int((c.diff(axis=1) < -fall).any(axis=1).sum())
    return f"{fell} of {n} falloff runs lose more than {fall} of raw removal from one k to the next"


def erasure_gain_text(tables) -> str:
    """Per regime, the median over falloff runs of what the erasure directions after e₁ add to raw
    removal: the first two (k = 3 against k = 1) and all seven (k = 8)."""
    top = diagnosis.RANKS[-1]
    parts = []
    for regime, t in tables.items():
        c = t["rank_curves"]
        c = c[c.recipe != "control"].pivot(index="run", columns="k", values="removal")
        parts.append(f"{regime.title} {number(float((c[3] - c[1]).median()), '+.2f')} at k = 3 "
                     f"and {number(float((c[top] - c[1]).median()), '+.2f')} at k = {top}")
    return "; ".join(parts)
