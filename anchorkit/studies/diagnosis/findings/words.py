"""Each part of the diagnosis in words: its result, whether it holds, and the counts and
figures its sentences quote (``anchorkit.studies.diagnosis.findings``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from anchorkit.studies import diagnosis
from anchorkit.core.optimizers import ARMS
from anchorkit.engine.formatting import and_list, number, summary
from anchorkit.measures.verdicts import (NOT_COMPARABLE, NOT_REPRODUCED, REPRODUCED, UNDECIDED,
                                         relation_interval, relation_verdict)
from anchorkit.studies.diagnosis.rank import DIFFUSE, LOW_RANK_VERDICT, NEITHER
from anchorkit.studies.diagnosis.findings.tables import FAMILY, FITTED, SOURCE_R, TARGET_NAMES, read_beyond_input


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
